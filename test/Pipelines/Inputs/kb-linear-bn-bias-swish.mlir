// examples/pytorch/linear_bn_bias_swish.py exported by torch-mlir (weights as arguments):
//   .venv/bin/python -m xpu_opt.importer examples/pytorch/linear_bn_bias_swish.py -o <this file>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (0)>
module {
  func.func @forward(%arg0: tensor<32x64xf32>, %arg1: tensor<1xf32> {xpu.weight}, %arg2: tensor<48x64xf32> {xpu.weight}, %arg3: tensor<48xf32> {xpu.weight}, %arg4: tensor<48xf32> {xpu.weight}, %arg5: tensor<48xf32> {xpu.weight}, %arg6: tensor<48xf32> {xpu.weight}, %arg7: tensor<48xf32> {xpu.weight}, %arg8: tensor<i64> {xpu.weight}) -> tensor<32x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %cst_0 = arith.constant 1.000000e+00 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %0 = tensor.empty() : tensor<64x48xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<48x64xf32>) outs(%0 : tensor<64x48xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<32x48xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<32x48xf32>) -> tensor<32x48xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<32x64xf32>, tensor<64x48xf32>) outs(%2 : tensor<32x48xf32>) -> tensor<32x48xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg3 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %15 = arith.addf %in, %in_2 : f32
      linalg.yield %15 : f32
    } -> tensor<32x48xf32>
    %5 = tensor.empty() : tensor<48xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg7 : tensor<48xf32>) outs(%5 : tensor<48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.truncf %cst_1 : f64 to f32
      %16 = arith.addf %in, %15 : f32
      linalg.yield %16 : f32
    } -> tensor<48xf32>
    %7 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%6 : tensor<48xf32>) outs(%5 : tensor<48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = math.rsqrt %in : f32
      linalg.yield %15 : f32
    } -> tensor<48xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %arg6 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %15 = arith.subf %in, %in_2 : f32
      linalg.yield %15 : f32
    } -> tensor<32x48xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %7 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %15 = arith.mulf %in, %in_2 : f32
      linalg.yield %15 : f32
    } -> tensor<32x48xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg4 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %15 = arith.mulf %in, %in_2 : f32
      linalg.yield %15 : f32
    } -> tensor<32x48xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %arg5 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %15 = arith.addf %in, %in_2 : f32
      linalg.yield %15 : f32
    } -> tensor<32x48xf32>
    %12 = linalg.generic {indexing_maps = [#map, #map3, #map], iterator_types = ["parallel", "parallel"]} ins(%11, %arg1 : tensor<32x48xf32>, tensor<1xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %15 = arith.addf %in, %in_2 : f32
      linalg.yield %15 : f32
    } -> tensor<32x48xf32>
    %13 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%12 : tensor<32x48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %15 = arith.negf %in : f32
      %16 = math.exp %15 : f32
      %17 = arith.addf %16, %cst_0 : f32
      %18 = arith.divf %cst_0, %17 : f32
      linalg.yield %18 : f32
    } -> tensor<32x48xf32>
    %14 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %13 : tensor<32x48xf32>, tensor<32x48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %15 = arith.mulf %in, %in_2 : f32
      linalg.yield %15 : f32
    } -> tensor<32x48xf32>
    return %14 : tensor<32x48xf32>
  }
}
