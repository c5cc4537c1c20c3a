// RUN: xpu-opt %s --split-input-file --xpu-fold-constant-weights --xpu-remarks --verify-diagnostics --mlir-disable-threading | FileCheck %s
// A lower max-elements leaves every fold above it, with the reason.
// RUN: xpu-opt %s --split-input-file --xpu-fold-constant-weights=max-elements=4 --xpu-remarks --mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=SMALL
// SMALL: 'linalg.transpose' on constant weights is not folded: the result has 6 elements, more than max-elements (4)
// The pipeline: a frozen (dense_resource) weight of the Xe path is converted
// to bf16 and transposed at compile time; @forward does no layout work.
// RUN: xpu-opt %S/Inputs/frozen-weight.mlir --xpu-xe-pipeline --mlir-print-ir-after=xpu-outline-weight-pack 2>&1 >/dev/null | FileCheck %s --check-prefix=XE
// (The input x is still converted per call: it is an activation.)
// XE-LABEL: func.func @forward(
//   XE-NOT:   linalg.transpose
//   XE-NOT:   ins(%{{[a-z0-9_]+}} : tensor<48x64xf32>)
//       XE:   %[[W:.+]] = arith.constant dense<{{.*}}> : tensor<64x48xbf16>
//       XE:   xpu.gemm %{{.*}}, %[[W]] rhs_layout(kn)

// The CPU pipeline packs the frozen weight into micro-kernel panels at
// compile time (no linalg.pack of it in @forward), and the result matches
// NumPy (the weight's values: 0.25 * ((7 i) mod 11 - 5), i the flat index).
// RUN: xpu-opt %S/Inputs/frozen-weight.mlir --xpu-cpu-pipeline --mlir-print-ir-after=xpu-outline-weight-pack 2>&1 >/dev/null | FileCheck %s --check-prefix=CPU
// CPU-LABEL: func.func @forward(
//       CPU:   linalg.pack %arg0
//   CPU-NOT:   linalg.pack
//       CPU:   linalg.unpack
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %xpu_src_root/test/lib/npycheck.py make %t x=32x64@1
// RUN: xpu-run %S/Inputs/frozen-weight.mlir --target=cpu --function=forward --input=@%t/x.npy --output=@%t/y.npy
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/y.npy --inputs %t x --expr "x @ (0.25 * ((np.arange(48 * 64) * 7) % 11 - 5)).reshape(48, 64).T" --tol 1e-5

// Values computed by hand. A transpose of a dense_resource weight
// [[1, 2, 3], [4, 5, 6]]: [[1, 4], [2, 5], [3, 6]].
// CHECK-LABEL: func.func @transpose
//   CHECK-NOT:   linalg.transpose
//       CHECK:   %[[C:.+]] = arith.constant dense<{{\[}}[1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
//       CHECK:   return %[[C]]
func.func @transpose() -> tensor<3x2xf32> {
  %w = arith.constant dense_resource<w23> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  // expected-remark @+1 {{'linalg.transpose' on constant weights folded at compile time into a 3x2 constant}}
  %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      w23: "0x040000000000803F0000004000004040000080400000A0400000C040"
    }
  }
#-}

// -----

// bf16 conversion rounds to nearest, ties to even, as arith.truncf does:
// 1 + 2^-8 is halfway between 1 and 1 + 2^-7 (odd mantissa): 1;
// 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6 (even): 1.015625.
// Extended back to f32 in the same body, the values are exact. Then the
// chain's transpose folds too (link by link).
// CHECK-LABEL: func.func @round_then_transpose
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   linalg.transpose
//       CHECK:   %[[C:.+]] = arith.constant dense<{{\[}}[1.000000e+00, 1.015625], [1.000000e+00, -2.500000e+00]]> : tensor<2x2xf32>
//       CHECK:   return %[[C]]
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @round_then_transpose() -> tensor<2x2xf32> {
  %w = arith.constant dense_resource<r4> : tensor<2x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  // expected-remark @+1 {{'linalg.generic' on constant weights folded at compile time into a 2x2 constant}}
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %b = arith.truncf %in : f32 to bf16
    %f = arith.extf %b : bf16 to f32
    linalg.yield %f : f32
  } -> tensor<2x2xf32>
  %e2 = tensor.empty() : tensor<2x2xf32>
  // expected-remark @+1 {{'linalg.transpose' on constant weights folded at compile time into a 2x2 constant}}
  %t = linalg.transpose ins(%r : tensor<2x2xf32>) outs(%e2 : tensor<2x2xf32>) permutation = [1, 0]
  return %t : tensor<2x2xf32>
}

{-#
  dialect_resources: {
    builtin: {
      r4: "0x040000000000803F0080803F0080813F000020C0"
    }
  }
#-}

// -----

// A row pitch (tensor.pad with zeros) and an epilogue panel
// (linalg.broadcast of a bias, a per-column operand read by rows), on
// dense constants; a scalar multiply broadcast in a generic.
// CHECK-LABEL: func.func @pad_broadcast_scale
//       CHECK:   arith.constant dense<{{\[}}[1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00], [3.000000e+00, 4.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<2x4xf32>
//       CHECK:   arith.constant dense<{{\[}}[5.000000e-01, -1.000000e+00], [5.000000e-01, -1.000000e+00], [5.000000e-01, -1.000000e+00]]> : tensor<3x2xf32>
//       CHECK:   arith.constant dense<{{\[}}[3.000000e+00, 6.000000e+00], [9.000000e+00, 1.200000e+01]]> : tensor<2x2xf32>
//   CHECK-NOT:   tensor.pad
//   CHECK-NOT:   linalg.broadcast
//   CHECK-NOT:   linalg.generic
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @pad_broadcast_scale() -> (tensor<2x4xf32>, tensor<3x2xf32>, tensor<2x2xf32>) {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{'tensor.pad' on constant weights folded at compile time into a 2x4 constant}}
  %p = tensor.pad %w low[0, 0] high[0, 2] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<2x2xf32> to tensor<2x4xf32>
  %b = arith.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  // expected-remark @+1 {{'linalg.broadcast' on constant weights folded at compile time into a 3x2 constant}}
  %panel = linalg.broadcast ins(%b : tensor<2xf32>) outs(%e : tensor<3x2xf32>) dimensions = [0]
  %s = arith.constant dense<3.0> : tensor<f32>
  %e2 = tensor.empty() : tensor<2x2xf32>
  // expected-remark @+1 {{'linalg.generic' on constant weights folded at compile time into a 2x2 constant}}
  %m = linalg.generic {indexing_maps = [#id2, #scalar, #id2], iterator_types = ["parallel", "parallel"]} ins(%w, %s : tensor<2x2xf32>, tensor<f32>) outs(%e2 : tensor<2x2xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %r = arith.mulf %x, %y : f32
    linalg.yield %r : f32
  } -> tensor<2x2xf32>
  return %p, %panel, %m : tensor<2x4xf32>, tensor<3x2xf32>, tensor<2x2xf32>
}

// -----

// The CPU micro-kernel's rhs panels: [[1, 2], [3, 4], [5, 6]] packed along
// dim 0 in tiles of 2, padded with 0: result[o][k][t] = w[2 o + t][k].
// CHECK-LABEL: func.func @pack
//   CHECK-NOT:   linalg.pack
//       CHECK:   %[[C:.+]] = arith.constant dense<{{\[}}{{\[}}[1.000000e+00, 3.000000e+00], [2.000000e+00, 4.000000e+00]], {{\[}}[5.000000e+00, 0.000000e+00], [6.000000e+00, 0.000000e+00]]]> : tensor<2x2x2xf32>
//       CHECK:   return %[[C]]
func.func @pack() -> tensor<2x2x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2x2xf32>
  // expected-remark @+1 {{'linalg.pack' on constant weights folded at compile time into a 2x2x2 constant}}
  %p = linalg.pack %w padding_value(%zero : f32) inner_dims_pos = [0] inner_tiles = [2] into %e : tensor<3x2xf32> -> tensor<2x2x2xf32>
  return %p : tensor<2x2x2xf32>
}

// -----

// Negative: an input that is not a constant (an activation): left alone,
// without a remark.
// CHECK-LABEL: func.func @activation
//       CHECK:   linalg.transpose
func.func @activation(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}

// -----

// Negative: a body op the pass does not evaluate (math.exp, whose result
// depends on the libm), and a resource without data: left, with the reason.
// CHECK-LABEL: func.func @not_evaluated
//       CHECK:   linalg.generic
//       CHECK:   math.exp
//       CHECK:   linalg.transpose
#id3 = affine_map<(d0) -> (d0)>
func.func @not_evaluated() -> (tensor<2xf32>, tensor<3x2xf32>) {
  %w = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %e = tensor.empty() : tensor<2xf32>
  // expected-remark @+1 {{'linalg.generic' on constant weights is not folded: the body has 'math.exp', which is not evaluated}}
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel"]} ins(%w : tensor<2xf32>) outs(%e : tensor<2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %x = math.exp %in : f32
    linalg.yield %x : f32
  } -> tensor<2xf32>
  %elided = arith.constant dense_resource<__elided__> : tensor<2x3xf32>
  %e2 = tensor.empty() : tensor<3x2xf32>
  // expected-remark @+1 {{'linalg.transpose' on constant weights is not folded: a dense_resource operand has no data of the tensor's size}}
  %t = linalg.transpose ins(%elided : tensor<2x3xf32>) outs(%e2 : tensor<3x2xf32>) permutation = [1, 0]
  return %r, %t : tensor<2xf32>, tensor<3x2xf32>
}

