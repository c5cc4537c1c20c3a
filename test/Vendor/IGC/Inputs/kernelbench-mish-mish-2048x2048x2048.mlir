// KernelBench level 2 "Matmul_Mish_Mish": nn.Linear(2048, 2048) on x:
// [2048, 2048], then Mish twice (mish(x) = x * tanh(softplus(x)),
// softplus(x) = log1p(exp(x))), as torch-mlir emits it (compiled only).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<2048x2048xf32>, %w: tensor<2048x2048xf32> {xpu.weight}, %b: tensor<2048xf32> {xpu.weight}) -> tensor<2048x2048xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<2048x2048xf32>
  %wt = linalg.transpose ins(%w : tensor<2048x2048xf32>) outs(%e0 : tensor<2048x2048xf32>) permutation = [1, 0]
  %z = linalg.fill ins(%cst : f32) outs(%e0 : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<2048x2048xf32>, tensor<2048x2048xf32>) outs(%z : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<2048x2048xf32>, tensor<2048xf32>) outs(%e0 : tensor<2048x2048xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    // Mish.
    %1 = math.exp %0 : f32
    %2 = math.log1p %1 : f32
    %3 = math.tanh %2 : f32
    %4 = arith.mulf %0, %3 : f32
    // Mish again.
    %5 = math.exp %4 : f32
    %6 = math.log1p %5 : f32
    %7 = math.tanh %6 : f32
    %8 = arith.mulf %4, %7 : f32
    linalg.yield %8 : f32
  } -> tensor<2048x2048xf32>
  return %y : tensor<2048x2048xf32>
}
