// nn.Linear(4096, 4096) + BatchNorm1d(4096) in eval mode on x: [16384, 4096],
// as torch-mlir emits it (full size, compiled only).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<16384x4096xf32>, %w: tensor<4096x4096xf32> {xpu.weight}, %b: tensor<4096xf32> {xpu.weight},
                   %mean: tensor<4096xf32> {xpu.weight}, %var: tensor<4096xf32> {xpu.weight}, %gamma: tensor<4096xf32> {xpu.weight},
                   %beta: tensor<4096xf32> {xpu.weight}) -> tensor<16384x4096xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %eps = arith.constant 9.99999974E-6 : f32
  %e0 = tensor.empty() : tensor<4096x4096xf32>
  %wt = linalg.transpose ins(%w : tensor<4096x4096xf32>) outs(%e0 : tensor<4096x4096xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<16384x4096xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<16384x4096xf32>) -> tensor<16384x4096xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<16384x4096xf32>, tensor<4096x4096xf32>) outs(%z : tensor<16384x4096xf32>) -> tensor<16384x4096xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map1, #map1, #map1, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b, %mean, %var, %gamma, %beta : tensor<16384x4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>)
      outs(%e1 : tensor<16384x4096xf32>) {
  ^bb0(%a: f32, %bb: f32, %m: f32, %v: f32, %g: f32, %be: f32, %o: f32):
    %0 = arith.addf %a, %bb : f32
    %1 = arith.subf %0, %m : f32
    %2 = arith.addf %v, %eps : f32
    %3 = math.sqrt %2 : f32
    %4 = arith.divf %1, %3 : f32
    %5 = arith.mulf %4, %g : f32
    %6 = arith.addf %5, %be : f32
    linalg.yield %6 : f32
  } -> tensor<16384x4096xf32>
  return %y : tensor<16384x4096xf32>
}
