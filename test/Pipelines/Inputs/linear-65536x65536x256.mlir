// Linear + bias whose result has 2^32 elements (65536 x 65536 f32): element
// offsets pass 2^31 (compiled only), in torch-mlir's form (the weight
// [n, k] transposed by linalg.transpose, the bias a broadcast add; weight
// and bias marked xpu.weight, as xpu_opt's importer marks parameters).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<65536x256xf32>, %w: tensor<65536x256xf32> {xpu.weight}, %b: tensor<65536xf32> {xpu.weight}) -> tensor<65536x65536xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<256x65536xf32>
  %wt = linalg.transpose ins(%w : tensor<65536x256xf32>) outs(%e0 : tensor<256x65536xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<65536x65536xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<65536x65536xf32>) -> tensor<65536x65536xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<65536x256xf32>, tensor<256x65536xf32>) outs(%z : tensor<65536x65536xf32>) -> tensor<65536x65536xf32>
  %r = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<65536x65536xf32>, tensor<65536xf32>) outs(%e1 : tensor<65536x65536xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %s = arith.addf %in, %in_0 : f32
    linalg.yield %s : f32
  } -> tensor<65536x65536xf32>
  return %r : tensor<65536x65536xf32>
}
