// RUN: not xpu-opt %s --xpu-lower-to-linalg 2>&1 | FileCheck %s

// Bad input never reaches the lowering: the verifier reports it with its
// location and xpu-opt exits non-zero.
// CHECK: invalid.mlir:[[@LINE+3]]:8: error: 'xpu.gemm' op contraction sizes differ: lhs has k = 8, rhs (kn) has k = 4
// CHECK-NOT: linalg.matmul
func.func @k_mismatch(%a: tensor<4x8xf32>, %b: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
