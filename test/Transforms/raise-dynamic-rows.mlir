// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-raise{dynamic-rows=true}))' | FileCheck %s
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-raise{dynamic-rows=true}))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// With dynamic-rows (what xpu-cpu-pipeline uses), a contraction whose batch
// and m dimensions are dynamic is raised: nn.Linear on a batch of any size.
// CHECK-LABEL: func.func @dynamic_m_is_raised
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<?x64xf32>, %[[W:[a-z0-9]+]]: tensor<32x64xf32>
//   CHECK-NOT:   linalg.matmul
//       CHECK:   %[[G:.+]] = xpu.gemm %[[X]], %[[W]] rhs_layout(nk) acc(f32) : (tensor<?x64xf32>, tensor<32x64xf32>) -> tensor<?x32xf32>
//       CHECK:   return %[[G]]
func.func @dynamic_m_is_raised(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %n = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e0 = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%e0 : tensor<64x32xf32>) permutation = [1, 0]
  %e1 = tensor.empty(%n) : tensor<?x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<?x32xf32>) -> tensor<?x32xf32>
  // expected-remark @+1 {{raised linalg.matmul ?x32x64 (m x n x k) to xpu.gemm rhs_layout(nk), rhs transpose absorbed, zero fill absorbed}}
  %r = linalg.matmul ins(%x, %wt : tensor<?x64xf32>, tensor<64x32xf32>) outs(%z : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// A batched GEMM with a dynamic batch and m; the initial value becomes a
// `full` epilogue operand, dynamic like the result.
// CHECK-LABEL: func.func @dynamic_batch_is_raised
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f32) epilogue(%{{.+}} full : tensor<?x?x6xf32>)
//       CHECK:   } : (tensor<?x?x4xf32>, tensor<?x4x6xf32>) -> tensor<?x?x6xf32>
func.func @dynamic_batch_is_raised(%a: tensor<?x?x4xf32>, %b: tensor<?x4x6xf32>, %c: tensor<?x?x6xf32>) -> tensor<?x?x6xf32> {
  // expected-remark @+1 {{raised linalg.batch_matmul ?x6x4}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x?x4xf32>, tensor<?x4x6xf32>) outs(%c : tensor<?x?x6xf32>) -> tensor<?x?x6xf32>
  return %r : tensor<?x?x6xf32>
}

// -----

// A dynamic k (a contracted sequence, as in attention scores) stays a
// linalg op for the generic path.
// CHECK-LABEL: func.func @dynamic_k_is_untouched
//   CHECK-NOT:   xpu.gemm
//       CHECK:   linalg.matmul
func.func @dynamic_k_is_untouched(%a: tensor<8x?xf32>, %b: tensor<?x6xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{linalg.matmul has a dynamic k or n dimension (dimension 1 of tensor<8x?xf32>); xpu.gemm takes dynamic batch and m dimensions only}}
  %r = linalg.matmul ins(%a, %b : tensor<8x?xf32>, tensor<?x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// So does a dynamic n.
// CHECK-LABEL: func.func @dynamic_n_is_untouched
//   CHECK-NOT:   xpu.gemm
func.func @dynamic_n_is_untouched(%a: tensor<?x4xf32>, %b: tensor<4x?xf32>, %c: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // expected-remark @+1 {{linalg.matmul has a dynamic k or n dimension (dimension 1 of tensor<4x?xf32>)}}
  %r = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x?xf32>) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}
