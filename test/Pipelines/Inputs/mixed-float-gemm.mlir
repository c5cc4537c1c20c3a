// A GEMM of f16 by f32 operands into f32 (test/Pipelines/element-types.mlir).
func.func @f(%a: tensor<8x4xf16>, %b: tensor<4x6xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // The linalg.matmul on the next line.
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf16>, tensor<4x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}
