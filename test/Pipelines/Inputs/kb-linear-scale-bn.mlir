// examples/pytorch/linear_scale_bn.py exported by torch-mlir (weights as arguments):
//   .venv/bin/python -m xpu_opt.importer examples/pytorch/linear_scale_bn.py -o <this file>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0) -> (d0)>
module {
  func.func @forward(%arg0: tensor<32x64xf32>, %arg1: tensor<48xf32> {xpu.weight}, %arg2: tensor<48x64xf32> {xpu.weight}, %arg3: tensor<48xf32> {xpu.weight}, %arg4: tensor<48xf32> {xpu.weight}, %arg5: tensor<48xf32> {xpu.weight}, %arg6: tensor<48xf32> {xpu.weight}, %arg7: tensor<48xf32> {xpu.weight}, %arg8: tensor<i64> {xpu.weight}) -> tensor<32x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e-05 : f64
    %0 = tensor.empty() : tensor<64x48xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<48x64xf32>) outs(%0 : tensor<64x48xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<32x48xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<32x48xf32>) -> tensor<32x48xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<32x64xf32>, tensor<64x48xf32>) outs(%2 : tensor<32x48xf32>) -> tensor<32x48xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg3 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %13 = arith.addf %in, %in_1 : f32
      linalg.yield %13 : f32
    } -> tensor<32x48xf32>
    %5 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %arg1 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %13 = arith.mulf %in, %in_1 : f32
      linalg.yield %13 : f32
    } -> tensor<32x48xf32>
    %6 = tensor.empty() : tensor<48xf32>
    %7 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg7 : tensor<48xf32>) outs(%6 : tensor<48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = arith.truncf %cst_0 : f64 to f32
      %14 = arith.addf %in, %13 : f32
      linalg.yield %14 : f32
    } -> tensor<48xf32>
    %8 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%7 : tensor<48xf32>) outs(%6 : tensor<48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %13 = math.rsqrt %in : f32
      linalg.yield %13 : f32
    } -> tensor<48xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%5, %arg6 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %13 = arith.subf %in, %in_1 : f32
      linalg.yield %13 : f32
    } -> tensor<32x48xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %8 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %13 = arith.mulf %in, %in_1 : f32
      linalg.yield %13 : f32
    } -> tensor<32x48xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %arg4 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %13 = arith.mulf %in, %in_1 : f32
      linalg.yield %13 : f32
    } -> tensor<32x48xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %arg5 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_1: f32, %out: f32):
      %13 = arith.addf %in, %in_1 : f32
      linalg.yield %13 : f32
    } -> tensor<32x48xf32>
    return %12 : tensor<32x48xf32>
  }
}
