// nn.Linear(512, 1024) + ReLU on a [1024, 512] input, in linalg on tensors:
// on sm_90a its wgmma tiles pair up, so thread block clusters apply.
func.func @forward(%x: tensor<1024x512xf32>, %w: tensor<512x1024xf32> {xpu.weight}, %b: tensor<1024xf32> {xpu.weight}) -> tensor<1024x1024xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<1024x512xf32>, tensor<512x1024xf32>) outs(%z : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<1024x1024xf32>, tensor<1024xf32>) outs(%e : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = arith.maximumf %s, %cst : f32
    linalg.yield %t : f32
  } -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
