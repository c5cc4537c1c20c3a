// --xpu-remarks prints what the xpu passes of the pipeline did, with
// locations, on stderr; the run itself is unchanged.
// RUN: cat %s %S/../../Integration/CPU/Inputs/gen.mlir \
// RUN:   | xpu-run -e main -entry-point-result=void --xpu-remarks 2>&1 >/dev/null | FileCheck %s
// CHECK: <stdin>:[[@LINE+8]]:9: remark: [Passed] Raised | Category:xpu-raise | Reason="raised linalg.matmul 4x6x8 (m x n x k) to xpu.gemm rhs_layout(nk), rhs transpose absorbed, zero fill absorbed"

func.func @forward(%x: tensor<4x8xf32>, %w: tensor<6x8xf32>) -> tensor<4x6xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<8x6xf32>
  %wt = linalg.transpose ins(%w : tensor<6x8xf32>) outs(%e0 : tensor<8x6xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<4x6xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<4x6xf32>) -> tensor<4x6xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<4x8xf32>, tensor<8x6xf32>) outs(%z : tensor<4x6xf32>) -> tensor<4x6xf32>
  return %mm : tensor<4x6xf32>
}

func.func @main() {
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %c8 = arith.constant 8 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %xd = call @gen2(%c4, %c8, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c6, %c8, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<4x8xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<6x8xf32>
  %y = call @forward(%x, %w) : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  return
}
