// A GEMM with large odd sizes, C[8205, 5921] = A[8205, 2949] B[2949, 5921]
// (full size, compiled only): every tile grid has partial tiles and every
// row pitch needs padding.
func.func @forward(%a: tensor<8205x2949xf32>, %b: tensor<2949x5921xf32> {xpu.weight}) -> tensor<8205x5921xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8205x5921xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8205x5921xf32>) -> tensor<8205x5921xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<8205x2949xf32>, tensor<2949x5921xf32>) outs(%z : tensor<8205x5921xf32>) -> tensor<8205x5921xf32>
  return %mm : tensor<8205x5921xf32>
}
