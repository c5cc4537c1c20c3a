// examples/pytorch/linear_scale_bn_f64.py exported by torch-mlir (weights as arguments):
//   .venv/bin/python -m xpu_opt.importer examples/pytorch/linear_scale_bn_f64.py -o <this file>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0) -> (d0)>
module {
  func.func @forward(%arg0: tensor<32x64xf64>, %arg1: tensor<48xf64> {xpu.weight}, %arg2: tensor<48x64xf64> {xpu.weight}, %arg3: tensor<48xf64> {xpu.weight}, %arg4: tensor<48xf64> {xpu.weight}, %arg5: tensor<48xf64> {xpu.weight}, %arg6: tensor<48xf64> {xpu.weight}, %arg7: tensor<48xf64> {xpu.weight}, %arg8: tensor<i64> {xpu.weight}) -> tensor<32x48xf64> {
    %cst = arith.constant 0.000000e+00 : f64
    %cst_0 = arith.constant 1.000000e-05 : f64
    %0 = tensor.empty() : tensor<64x48xf64>
    %transposed = linalg.transpose ins(%arg2 : tensor<48x64xf64>) outs(%0 : tensor<64x48xf64>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<32x48xf64>
    %2 = linalg.fill ins(%cst : f64) outs(%1 : tensor<32x48xf64>) -> tensor<32x48xf64>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<32x64xf64>, tensor<64x48xf64>) outs(%2 : tensor<32x48xf64>) -> tensor<32x48xf64>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg3 : tensor<32x48xf64>, tensor<48xf64>) outs(%1 : tensor<32x48xf64>) {
    ^bb0(%in: f64, %in_1: f64, %out: f64):
      %13 = arith.addf %in, %in_1 : f64
      linalg.yield %13 : f64
    } -> tensor<32x48xf64>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %arg1 : tensor<32x48xf64>, tensor<48xf64>) outs(%1 : tensor<32x48xf64>) {
    ^bb0(%in: f64, %in_1: f64, %out: f64):
      %13 = arith.mulf %in, %in_1 : f64
      linalg.yield %13 : f64
    } -> tensor<32x48xf64>
    %6 = tensor.empty() : tensor<48xf64>
    %7 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg7 : tensor<48xf64>) outs(%6 : tensor<48xf64>) {
    ^bb0(%in: f64, %out: f64):
      %13 = arith.addf %in, %cst_0 : f64
      linalg.yield %13 : f64
    } -> tensor<48xf64>
    %8 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%7 : tensor<48xf64>) outs(%6 : tensor<48xf64>) {
    ^bb0(%in: f64, %out: f64):
      %13 = math.rsqrt %in : f64
      linalg.yield %13 : f64
    } -> tensor<48xf64>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %arg6 : tensor<32x48xf64>, tensor<48xf64>) outs(%1 : tensor<32x48xf64>) {
    ^bb0(%in: f64, %in_1: f64, %out: f64):
      %13 = arith.subf %in, %in_1 : f64
      linalg.yield %13 : f64
    } -> tensor<32x48xf64>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %8 : tensor<32x48xf64>, tensor<48xf64>) outs(%1 : tensor<32x48xf64>) {
    ^bb0(%in: f64, %in_1: f64, %out: f64):
      %13 = arith.mulf %in, %in_1 : f64
      linalg.yield %13 : f64
    } -> tensor<32x48xf64>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %arg4 : tensor<32x48xf64>, tensor<48xf64>) outs(%1 : tensor<32x48xf64>) {
    ^bb0(%in: f64, %in_1: f64, %out: f64):
      %13 = arith.mulf %in, %in_1 : f64
      linalg.yield %13 : f64
    } -> tensor<32x48xf64>
    %12 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %arg5 : tensor<32x48xf64>, tensor<48xf64>) outs(%1 : tensor<32x48xf64>) {
    ^bb0(%in: f64, %in_1: f64, %out: f64):
      %13 = arith.addf %in, %in_1 : f64
      linalg.yield %13 : f64
    } -> tensor<32x48xf64>
    return %12 : tensor<32x48xf64>
  }
}
