// nn.Sequential(nn.Linear(64, 32), nn.BatchNorm1d(32).eval(), nn.ReLU()) on a
// [16, 64] input, in the linalg-on-tensors form torch-mlir emits for it
// (torch_mlir.compile(..., output_type="linalg-on-tensors")): the weight is
// transposed by linalg.transpose, the matmul accumulates into a zero fill,
// and bias, BatchNorm (decomposed, with 1/sqrt(var+eps) and a cf.assert in
// the reciprocal body) and ReLU are separate broadcast linalg.generic ops.
// The parameters and buffers are marked xpu.weight, as xpu_opt's export marks
// them: only marked arguments are weights, packed once in @forward.pack.
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0) -> (d0)>
func.func @forward(%x: tensor<16x64xf32>, %w: tensor<32x64xf32> {xpu.weight}, %b: tensor<32xf32> {xpu.weight},
                   %gamma: tensor<32xf32> {xpu.weight}, %beta: tensor<32xf32> {xpu.weight},
                   %mean: tensor<32xf32> {xpu.weight}, %var: tensor<32xf32> {xpu.weight}) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %eps = arith.constant 1.000000e-05 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e0 = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%e0 : tensor<64x32xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<16x64xf32>, tensor<64x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e1 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  // inv_std = 1 / sqrt(var + eps)
  %e2 = tensor.empty() : tensor<32xf32>
  %invstd = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]}
      ins(%var : tensor<32xf32>) outs(%e2 : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %eps : f32
    %1 = math.sqrt %0 : f32
    %2 = arith.cmpf one, %1, %cst : f32
    cf.assert %2, "unimplemented: tensor with zero element"
    %3 = arith.divf %one, %1 : f32
    linalg.yield %3 : f32
  } -> tensor<32xf32>
  // (y - mean) * inv_std * gamma + beta
  %bn = linalg.generic {indexing_maps = [#map, #map1, #map1, #map1, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%biased, %mean, %invstd, %gamma, %beta : tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
      outs(%e1 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %g: f32, %bt: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = arith.mulf %0, %s : f32
    %2 = arith.mulf %1, %g : f32
    %3 = arith.addf %2, %bt : f32
    linalg.yield %3 : f32
  } -> tensor<16x32xf32>
  %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%bn : tensor<16x32xf32>) outs(%e1 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf ugt, %in, %cst : f32
    %1 = arith.select %0, %in, %cst : f32
    linalg.yield %1 : f32
  } -> tensor<16x32xf32>
  return %relu : tensor<16x32xf32>
}
