// nn.Linear(8192, 8192) + GELU (erf) on x: [1024, 8192] (full size, compiled
// only).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<1024x8192xf32>, %w: tensor<8192x8192xf32> {xpu.weight}, %b: tensor<8192xf32> {xpu.weight}) -> tensor<1024x8192xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %sqrt2 = arith.constant 1.41421354 : f32
  %e0 = tensor.empty() : tensor<8192x8192xf32>
  %wt = linalg.transpose ins(%w : tensor<8192x8192xf32>) outs(%e0 : tensor<8192x8192xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<1024x8192xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<1024x8192xf32>, tensor<8192x8192xf32>) outs(%z : tensor<1024x8192xf32>) -> tensor<1024x8192xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<1024x8192xf32>, tensor<8192xf32>) outs(%e1 : tensor<1024x8192xf32>) {
  ^bb0(%a: f32, %bb: f32, %o: f32):
    %0 = arith.addf %a, %bb : f32
    %1 = arith.divf %0, %sqrt2 : f32
    %2 = math.erf %1 : f32
    %3 = arith.addf %2, %one : f32
    %4 = arith.mulf %0, %half : f32
    %5 = arith.mulf %4, %3 : f32
    linalg.yield %5 : f32
  } -> tensor<1024x8192xf32>
  return %y : tensor<1024x8192xf32>
}
