// A batched GEMM whose operands and result pass 2^31 bytes (64 x 2048 x
// 4096 f32: 2 GiB each): byte offsets need 64 bits (compiled only).
func.func @forward(%a: tensor<64x2048x4096xf32>, %b: tensor<64x4096x4096xf32>) -> tensor<64x2048x4096xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<64x2048x4096xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x2048x4096xf32>) -> tensor<64x2048x4096xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<64x2048x4096xf32>, tensor<64x4096x4096xf32>) outs(%z : tensor<64x2048x4096xf32>) -> tensor<64x2048x4096xf32>
  return %r : tensor<64x2048x4096xf32>
}
