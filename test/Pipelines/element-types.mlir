// Issue 22, part 6: bad element types are an error at the op that has
// them, with a location and a non-zero exit, on every pipeline (the first
// pass of each is xpu-check-element-types), never an LLVM verifier error
// without a location from deep in the lowering. The supported combinations
// at the end compile on every pipeline.
// RUN: xpu-opt %s --split-input-file --xpu-cpu-pipeline --verify-diagnostics -o /dev/null
// RUN: xpu-opt %s --split-input-file --xpu-spirv-pipeline --verify-diagnostics -o /dev/null
// RUN: xpu-opt %s --split-input-file --xpu-xe-pipeline=chip=pvc --verify-diagnostics -o /dev/null
// RUN: xpu-opt %s --split-input-file --xpu-xe-pipeline=chip=bmg --verify-diagnostics -o /dev/null
// RUN: xpu-opt %s --split-input-file --xpu-nvvm-pipeline="chip=sm_90a binary-format=isa" --verify-diagnostics -o /dev/null
// RUN: not xpu-opt %s --split-input-file --xpu-xe-pipeline 2>&1 | FileCheck %s
// CHECK: element-types.mlir:{{[0-9]+}}:8: error: xpu-check-element-types: 'linalg.matmul' on f8E5M2
// CHECK-NOT: <unknown>
// CHECK-NOT: llvm.sitofp

// GEMMs of two float types: the GPU pipelines run them as generic kernels,
// the CPU pipeline (whose vectorization needs one type) refuses them.
// RUN: not xpu-opt %S/Inputs/mixed-float-gemm.mlir --xpu-cpu-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: mixed-float-gemm.mlir:4:8: error: xpu-check-element-types: operands of 'f16' and 'f32': this pipeline's GEMM code reads both operands in one float type
// RUN: xpu-opt %S/Inputs/mixed-float-gemm.mlir --xpu-spirv-pipeline -o /dev/null
// RUN: xpu-opt %S/Inputs/mixed-float-gemm.mlir --xpu-xe-pipeline -o /dev/null
// RUN: xpu-opt %S/Inputs/mixed-float-gemm.mlir --xpu-nvvm-pipeline=binary-format=isa -o /dev/null

// The fuzzer's finding: i8 x i8 into an f8 result.
func.func @f(%a: tensor<8x4xi8>, %b: tensor<4x6xi8>, %c: tensor<8x6xf8E5M2>) -> tensor<8x6xf8E5M2> {
  // expected-error @below {{xpu-check-element-types: 'linalg.matmul' on f8E5M2: 8-bit and narrower float types have no lowering on any target of the pipelines}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xi8>, tensor<4x6xi8>) outs(%c : tensor<8x6xf8E5M2>) -> tensor<8x6xf8E5M2>
  return %r : tensor<8x6xf8E5M2>
}

// -----

func.func @f8_operands(%a: tensor<8x4xf8E4M3FN>, %b: tensor<4x6xf8E4M3FN>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error @below {{'linalg.matmul' on f8E4M3FN}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf8E4M3FN>, tensor<4x6xf8E4M3FN>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

func.func @int_gemm_into_float(%a: tensor<8x4xi8>, %b: tensor<4x6xi8>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-error @below {{an integer contraction ('i8' x 'i8') into a 'f32' result is not lowered}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xi8>, tensor<4x6xi8>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// Unsigned operands of a named contraction (the CPU vectorization extended
// them as signed: 25 instead of 257049 for -3 x -2 over k = 4).
func.func @unsigned_cast(%a: tensor<8x4xi8>, %b: tensor<4x6xi8>, %c: tensor<8x6xi32>) -> tensor<8x6xi32> {
  // expected-error @below {{'linalg.matmul' with cast_unsigned on 'i8' x 'i8' operands}}
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<8x4xi8>, tensor<4x6xi8>) outs(%c : tensor<8x6xi32>) -> tensor<8x6xi32>
  return %r : tensor<8x6xi32>
}

// -----

func.func @unsigned_type(%a: tensor<8xui8>, %c: tensor<8xui8>) -> tensor<8xui8> {
  // expected-error @below {{'linalg.copy' on ui8: signed and unsigned integer types are not lowered}}
  %r = linalg.copy ins(%a : tensor<8xui8>) outs(%c : tensor<8xui8>) -> tensor<8xui8>
  return %r : tensor<8xui8>
}

// -----

// Supported: a signless i8 GEMM into i32, and mixed signedness spelled out
// with arith.extsi / arith.extui in a linalg.generic.
func.func @int_gemms(%a: tensor<8x4xi8>, %b: tensor<4x6xi8>, %c: tensor<8x6xi32>) -> (tensor<8x6xi32>, tensor<8x6xi32>) {
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
  return %r, %g : tensor<8x6xi32>, tensor<8x6xi32>
}
