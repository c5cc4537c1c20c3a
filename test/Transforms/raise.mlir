// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-raise))' | FileCheck %s
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-raise))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// nn.Linear as torch-mlir emits it: the transpose becomes rhs_layout(nk),
// the zero fill is absorbed, the bias add stays for the fusion pass.
// CHECK-LABEL: func.func @linear_transpose_absorbed
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<16x64xf32>, %[[W:[a-z0-9]+]]: tensor<32x64xf32>, %[[B:[a-z0-9]+]]: tensor<32xf32>
//   CHECK-NOT:   linalg.transpose
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[G:.+]] = xpu.gemm %[[X]], %[[W]] rhs_layout(nk) acc(f32) : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
//       CHECK:   linalg.generic {{.*}} ins(%[[G]], %[[B]] : tensor<16x32xf32>, tensor<32xf32>)
func.func @linear_transpose_absorbed(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%e0 : tensor<64x32xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  // expected-remark @+1 {{raised linalg.matmul 16x32x64 (m x n x k) to xpu.gemm rhs_layout(nk), rhs transpose absorbed, zero fill absorbed}}
  %mm = linalg.matmul ins(%x, %wt : tensor<16x64xf32>, tensor<64x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e1 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// MLIR 22's transposed-operand form: explicit indexing_maps read B as [n, k].
// CHECK-LABEL: func.func @matmul_explicit_transposed_maps
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x4xf32>, %[[W:[a-z0-9]+]]: tensor<6x4xf32>
//       CHECK:   xpu.gemm %[[X]], %[[W]] rhs_layout(nk) acc(f32) : (tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x6xf32>
func.func @matmul_explicit_transposed_maps(%x: tensor<8x4xf32>, %w: tensor<6x4xf32>) -> tensor<8x6xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x6xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark @+1 {{raised linalg.matmul 8x6x4 (m x n x k) to xpu.gemm rhs_layout(nk), zero fill absorbed}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x, %w : tensor<8x4xf32>, tensor<6x4xf32>) outs(%z : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// A transposed map on a transposed operand reads the original [k, n] tensor.
// CHECK-LABEL: func.func @double_transpose_is_kn
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x4xf32>, %[[B:[a-z0-9]+]]: tensor<4x6xf32>
//       CHECK:   xpu.gemm %[[X]], %[[B]] rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
func.func @double_transpose_is_kn(%x: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<6x4xf32>
  %bt = linalg.transpose ins(%b : tensor<4x6xf32>) outs(%e0 : tensor<6x4xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<8x6xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark @+1 {{rhs_layout(kn), rhs transpose absorbed}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x, %bt : tensor<8x4xf32>, tensor<6x4xf32>) outs(%z : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// aten.bmm.
// CHECK-LABEL: func.func @batch_matmul
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f32) : (tensor<4x8x16xf32>, tensor<4x16x12xf32>) -> tensor<4x8x12xf32>
func.func @batch_matmul(%a: tensor<4x8x16xf32>, %b: tensor<4x16x12xf32>) -> tensor<4x8x12xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4x8x12xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8x12xf32>) -> tensor<4x8x12xf32>
  // expected-remark @+1 {{raised linalg.batch_matmul 8x12x16 (m x n x k) to xpu.gemm rhs_layout(kn), zero fill absorbed}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32>, tensor<4x16x12xf32>) outs(%z : tensor<4x8x12xf32>) -> tensor<4x8x12xf32>
  return %r : tensor<4x8x12xf32>
}

// -----

// bmm(a, b.transpose(1, 2)).
// CHECK-LABEL: func.func @batch_matmul_transposed_rhs
//  CHECK-SAME:   %{{.+}}: tensor<4x8x16xf32>, %[[B:[a-z0-9]+]]: tensor<4x12x16xf32>
//       CHECK:   xpu.gemm %{{.+}}, %[[B]] rhs_layout(nk) acc(f32) : (tensor<4x8x16xf32>, tensor<4x12x16xf32>) -> tensor<4x8x12xf32>
func.func @batch_matmul_transposed_rhs(%a: tensor<4x8x16xf32>, %b: tensor<4x12x16xf32>) -> tensor<4x8x12xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x16x12xf32>
  %bt = linalg.transpose ins(%b : tensor<4x12x16xf32>) outs(%e0 : tensor<4x16x12xf32>) permutation = [0, 2, 1]
  %e = tensor.empty() : tensor<4x8x12xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8x12xf32>) -> tensor<4x8x12xf32>
  // expected-remark @+1 {{rhs_layout(nk), rhs transpose absorbed}}
  %r = linalg.batch_matmul ins(%a, %bt : tensor<4x8x16xf32>, tensor<4x16x12xf32>) outs(%z : tensor<4x8x12xf32>) -> tensor<4x8x12xf32>
  return %r : tensor<4x8x12xf32>
}

// -----

// Older torch-mlir transposes with a linalg.generic that copies through a
// permutation map; that is absorbed too.
// CHECK-LABEL: func.func @generic_transpose_absorbed
//  CHECK-SAME:   %{{.+}}: tensor<8x4xf32>, %[[W:[a-z0-9]+]]: tensor<6x4xf32>
//       CHECK:   xpu.gemm %{{.+}}, %[[W]] rhs_layout(nk)
func.func @generic_transpose_absorbed(%x: tensor<8x4xf32>, %w: tensor<6x4xf32>) -> tensor<8x6xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x6xf32>
  %wt = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<6x4xf32>) outs(%e0 : tensor<4x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x6xf32>
  %e = tensor.empty() : tensor<8x6xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark @+1 {{rhs transpose absorbed}}
  %r = linalg.matmul ins(%x, %wt : tensor<8x4xf32>, tensor<4x6xf32>) outs(%z : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// torch.addmm(c, a, b): the initial value is added in the epilogue.
// CHECK-LABEL: func.func @nonzero_init_becomes_full_epilogue
//  CHECK-SAME:   %[[A:[a-z0-9]+]]: tensor<8x4xf32>, %[[B:[a-z0-9]+]]: tensor<4x6xf32>, %[[C:[a-z0-9]+]]: tensor<8x6xf32>
//       CHECK:   xpu.gemm %[[A]], %[[B]] rhs_layout(kn) acc(f32) epilogue(%[[C]] full : tensor<8x6xf32>) {
//       CHECK:   ^bb0(%[[ACC:.+]]: f32, %[[V:.+]]: f32):
//       CHECK:     %[[S:.+]] = arith.addf %[[ACC]], %[[V]] : f32
//       CHECK:     xpu.yield %[[S]] : f32
func.func @nonzero_init_becomes_full_epilogue(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{initial value added in the epilogue}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// f16 operands accumulated in f32.
// CHECK-LABEL: func.func @f16_operands_f32_accumulator
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f32) : (tensor<8x4xf16>, tensor<4x6xf16>) -> tensor<8x6xf32>
func.func @f16_operands_f32_accumulator(%a: tensor<8x4xf16>, %b: tensor<4x6xf16>) -> tensor<8x6xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x6xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark @+1 {{raised linalg.matmul 8x6x4}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf16>, tensor<4x6xf16>) outs(%z : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// Left unchanged: dynamic shapes.
// CHECK-LABEL: func.func @dynamic_is_untouched
//   CHECK-NOT:   xpu.gemm
//       CHECK:   linalg.matmul
func.func @dynamic_is_untouched(%a: tensor<?x4xf32>, %b: tensor<4x6xf32>, %c: tensor<?x6xf32>) -> tensor<?x6xf32> {
  // expected-remark @+1 {{linalg.matmul has dynamic shapes (tensor<?x4xf32>); xpu.gemm needs static shapes}}
  %r = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x6xf32>) outs(%c : tensor<?x6xf32>) -> tensor<?x6xf32>
  return %r : tensor<?x6xf32>
}

// -----

// Left unchanged: mixed operand element types.
// CHECK-LABEL: func.func @mixed_types_are_untouched
//   CHECK-NOT:   xpu.gemm
func.func @mixed_types_are_untouched(%a: tensor<8x4xf16>, %b: tensor<4x6xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{linalg.matmul mixes operand element types (f16 and f32)}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf16>, tensor<4x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// Left unchanged: integer GEMMs.
// CHECK-LABEL: func.func @integer_is_untouched
//   CHECK-NOT:   xpu.gemm
func.func @integer_is_untouched(%a: tensor<8x4xi8>, %b: tensor<4x6xi8>, %c: tensor<8x6xi32>) -> tensor<8x6xi32> {
  // expected-remark @+1 {{linalg.matmul is not a floating-point contraction}}
  %r = linalg.matmul ins(%a, %b : tensor<8x4xi8>, tensor<4x6xi8>) outs(%c : tensor<8x6xi32>) -> tensor<8x6xi32>
  return %r : tensor<8x6xi32>
}

// -----

// Left unchanged: a transposed lhs.
// CHECK-LABEL: func.func @transposed_lhs_is_untouched
//   CHECK-NOT:   xpu.gemm
func.func @transposed_lhs_is_untouched(%a: tensor<4x8xf32>, %b: tensor<4x6xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{linalg.matmul reads its lhs transposed or broadcast; only [m, k] lhs operands are raised}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : tensor<4x8xf32>, tensor<4x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// Left unchanged: a broadcast rhs.
// CHECK-LABEL: func.func @broadcast_rhs_is_untouched
//   CHECK-NOT:   xpu.gemm
func.func @broadcast_rhs_is_untouched(%a: tensor<8x4xf32>, %b: tensor<4xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{linalg.matmul reads its rhs through a broadcast map}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%a, %b : tensor<8x4xf32>, tensor<4xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// Left unchanged: buffers.
// CHECK-LABEL: func.func @memref_is_untouched
//       CHECK:   linalg.matmul
func.func @memref_is_untouched(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  // expected-remark @+1 {{linalg.matmul works on buffers; only tensors are raised}}
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
  return
}

// -----

// Left unchanged: other contractions are reported.
// CHECK-LABEL: func.func @matvec_is_untouched
//       CHECK:   linalg.matvec
func.func @matvec_is_untouched(%a: tensor<8x4xf32>, %x: tensor<4xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{linalg.matvec is a contraction xpu-raise does not recognize; only linalg.matmul and linalg.batch_matmul are raised}}
  %r = linalg.matvec ins(%a, %x : tensor<8x4xf32>, tensor<4xf32>) outs(%y : tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// A zero-size dimension: xpu.gemm takes none (the lowerings tile every
// dimension), so the contraction stays linalg.
// CHECK-LABEL: func.func @zero_size_is_untouched
//   CHECK-NOT:   xpu.gemm
//       CHECK:   linalg.matmul
func.func @zero_size_is_untouched(%a: tensor<4x0xf32>, %b: tensor<0x16xf32>) -> tensor<4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  // expected-remark @+1 {{linalg.matmul: lhs dimension 1 of 'tensor<4x0xf32>' is 0: xpu.gemm takes no zero-size dimensions}}
  %0 = linalg.matmul ins(%a, %b : tensor<4x0xf32>, tensor<0x16xf32>) outs(%z : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
