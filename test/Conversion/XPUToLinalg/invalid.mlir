// RUN: xpu-opt %s --split-input-file --xpu-lower-to-linalg --verify-diagnostics
// RUN: not xpu-opt %s --split-input-file --xpu-lower-to-linalg 2>&1 | FileCheck %s

// Bad input never reaches the lowering: the verifier reports it with its
// location and xpu-opt exits non-zero without printing IR.
// CHECK-NOT: linalg.matmul
// CHECK: invalid.mlir:[[@LINE+3]]:8: error: 'xpu.gemm' op contraction sizes differ
func.func @k_mismatch(%a: tensor<4x8xf32>, %b: tensor<4x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{contraction sizes differ: lhs has k = 8, rhs (kn) has k = 4}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

func.func @dynamic_k(%a: tensor<4x?xf32>, %b: tensor<8x6xf32>) -> tensor<4x6xf32> {
  // expected-error @+1 {{dynamic shapes are supported in the batch and m dimensions only}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x?xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}
