// RUN: xpu-opt %s --split-input-file --xpu-check-element-types --verify-diagnostics | FileCheck %s
// With mixed-float-operands (the GPU pipelines), a GEMM of two float types
// is left alone (the other chunks still fail, hence `not`).
// RUN: not xpu-opt %s --split-input-file --xpu-check-element-types=mixed-float-operands=true 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED-LABEL: func.func @mixed_float_operands
//       MIXED:   linalg.matmul

// Issue 22's fuzzer finding: an integer GEMM into an f8 result (it stopped
// xpu-xe-pipeline with an unlocated LLVM verifier error).
func.func @int_gemm_into_f8(%a: tensor<8x4xi8>, %b: tensor<4x6xi8>, %c: tensor<8x6xf8E5M2>) -> tensor<8x6xf8E5M2> {
  // expected-error @below {{xpu-check-element-types: 'linalg.matmul' on f8E5M2: 8-bit and narrower float types have no lowering on any target of the pipelines}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xi8>, tensor<4x6xi8>) outs(%c : tensor<8x6xf8E5M2>) -> tensor<8x6xf8E5M2>
  return %r : tensor<8x6xf8E5M2>
}

// -----

func.func @f8_operands(%a: tensor<8x4xf8E4M3FN>, %b: tensor<4x6xf8E4M3FN>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error @below {{'linalg.matmul' on f8E4M3FN: 8-bit and narrower float types}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf8E4M3FN>, tensor<4x6xf8E4M3FN>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// Any linalg op: an elementwise conversion to f8.
func.func @f8_elementwise(%a: tensor<8xf32>, %c: tensor<8xf8E4M3FN>) -> tensor<8xf8E4M3FN> {
  // expected-error @below {{'linalg.generic' on f8E4M3FN}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<8xf32>) outs(%c : tensor<8xf8E4M3FN>) {
  ^bb0(%x: f32, %out: f8E4M3FN):
    %t = arith.truncf %x : f32 to f8E4M3FN
    linalg.yield %t : f8E4M3FN
  } -> tensor<8xf8E4M3FN>
  return %r : tensor<8xf8E4M3FN>
}

// -----

func.func @int_gemm_into_float(%a: tensor<8x4xi8>, %b: tensor<4x6xi8>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error @below {{xpu-check-element-types: an integer contraction ('i8' x 'i8') into a 'f32' result is not lowered: accumulate in an integer type and convert the result, or convert the operands to float first}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xi8>, tensor<4x6xi8>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

func.func @float_gemm_into_int(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>, %c: tensor<8x6xi32>) -> tensor<8x6xi32> {
  // expected-error @below {{a float contraction ('f32' x 'f32') into an 'i32' result is not lowered}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x6xf32>) outs(%c : tensor<8x6xi32>) -> tensor<8x6xi32>
  return %r : tensor<8x6xi32>
}

// -----

func.func @mixed_float_operands(%a: tensor<8x4xf16>, %b: tensor<4x6xbf16>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error @below {{operands of 'f16' and 'bf16': this pipeline's GEMM code reads both operands in one float type}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf16>, tensor<4x6xbf16>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

func.func @int_times_float(%a: tensor<8x4xi8>, %b: tensor<4x6xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error @below {{operands of 'i8' and 'f32': a contraction multiplies two integer or two float operands}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xi8>, tensor<4x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// Unsigned integer operands of a named contraction.
func.func @unsigned_cast(%a: tensor<8x4xi8>, %b: tensor<4x6xi8>, %c: tensor<8x6xi32>) -> tensor<8x6xi32> {
  // expected-error @below {{'linalg.matmul' with cast_unsigned on 'i8' x 'i8' operands is not lowered faithfully by every pipeline}}
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<8x4xi8>, tensor<4x6xi8>) outs(%c : tensor<8x6xi32>) -> tensor<8x6xi32>
  return %r : tensor<8x6xi32>
}

// -----

// Signed and unsigned integer types (valid in ops that do no arithmetic).
func.func @unsigned_type(%a: tensor<8xui8>, %c: tensor<8xui8>) -> tensor<8xui8> {
  // expected-error @below {{'linalg.copy' on ui8: signed and unsigned integer types are not lowered}}
  %r = linalg.copy ins(%a : tensor<8xui8>) outs(%c : tensor<8xui8>) -> tensor<8xui8>
  return %r : tensor<8xui8>
}

// -----

// Left alone: float GEMMs, signless integer GEMMs into integer results,
// mixed signedness spelled out in a linalg.generic, an xpu.gemm.
// CHECK-LABEL: func.func @supported
func.func @supported(%a: tensor<8x4xi8>, %b: tensor<4x6xi8>, %c: tensor<8x6xi32>,
                     %x: tensor<8x4xbf16>, %w: tensor<4x6xbf16>) -> (tensor<8x6xi32>, tensor<8x6xi32>, tensor<8x6xf32>) {
  %r = linalg.matmul ins(%a, %b : tensor<8x4xi8>, tensor<4x6xi8>) outs(%c : tensor<8x6xi32>) -> tensor<8x6xi32>
  %g = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<8x4xi8>, tensor<4x6xi8>) outs(%c : tensor<8x6xi32>) {
  ^bb0(%p: i8, %q: i8, %acc: i32):
    %ps = arith.extsi %p : i8 to i32
    %qu = arith.extui %q : i8 to i32
    %m = arith.muli %ps, %qu : i32
    %s = arith.addi %acc, %m : i32
    linalg.yield %s : i32
  } -> tensor<8x6xi32>
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) : (tensor<8x4xbf16>, tensor<4x6xbf16>) -> tensor<8x6xf32>
  return %r, %g, %y : tensor<8x6xi32>, tensor<8x6xi32>, tensor<8x6xf32>
}
