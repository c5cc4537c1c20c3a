// examples/pytorch/linear_bn_scale_softmax.py exported by torch-mlir (weights as arguments):
//   .venv/bin/python -m xpu_opt.importer examples/pytorch/linear_bn_scale_softmax.py -o <this file>
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0) -> (d0)>
#map3 = affine_map<(d0, d1) -> (0)>
#map4 = affine_map<(d0, d1) -> (d0)>
#map5 = affine_map<(d0, d1) -> (d0, 0)>
module {
  func.func @forward(%arg0: tensor<32x64xf32>, %arg1: tensor<1xf32> {xpu.weight}, %arg2: tensor<48x64xf32> {xpu.weight}, %arg3: tensor<48xf32> {xpu.weight}, %arg4: tensor<48xf32> {xpu.weight}, %arg5: tensor<48xf32> {xpu.weight}, %arg6: tensor<48xf32> {xpu.weight}, %arg7: tensor<48xf32> {xpu.weight}, %arg8: tensor<i64> {xpu.weight}) -> tensor<32x48xf32> {
    %cst = arith.constant 0.000000e+00 : f32
    %c0_i64 = arith.constant 0 : i64
    %cst_0 = arith.constant 0xFF800000 : f32
    %cst_1 = arith.constant 1.000000e-05 : f64
    %0 = tensor.empty() : tensor<64x48xf32>
    %transposed = linalg.transpose ins(%arg2 : tensor<48x64xf32>) outs(%0 : tensor<64x48xf32>) permutation = [1, 0] 
    %1 = tensor.empty() : tensor<32x48xf32>
    %2 = linalg.fill ins(%cst : f32) outs(%1 : tensor<32x48xf32>) -> tensor<32x48xf32>
    %3 = linalg.matmul ins(%arg0, %transposed : tensor<32x64xf32>, tensor<64x48xf32>) outs(%2 : tensor<32x48xf32>) -> tensor<32x48xf32>
    %4 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%3, %arg3 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %24 = arith.addf %in, %in_2 : f32
      linalg.yield %24 : f32
    } -> tensor<32x48xf32>
    %5 = tensor.empty() : tensor<48xf32>
    %6 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%arg7 : tensor<48xf32>) outs(%5 : tensor<48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = arith.truncf %cst_1 : f64 to f32
      %25 = arith.addf %in, %24 : f32
      linalg.yield %25 : f32
    } -> tensor<48xf32>
    %7 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]} ins(%6 : tensor<48xf32>) outs(%5 : tensor<48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = math.rsqrt %in : f32
      linalg.yield %24 : f32
    } -> tensor<48xf32>
    %8 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%4, %arg6 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %24 = arith.subf %in, %in_2 : f32
      linalg.yield %24 : f32
    } -> tensor<32x48xf32>
    %9 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%8, %7 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %24 = arith.mulf %in, %in_2 : f32
      linalg.yield %24 : f32
    } -> tensor<32x48xf32>
    %10 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%9, %arg4 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %24 = arith.mulf %in, %in_2 : f32
      linalg.yield %24 : f32
    } -> tensor<32x48xf32>
    %11 = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%10, %arg5 : tensor<32x48xf32>, tensor<48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %24 = arith.addf %in, %in_2 : f32
      linalg.yield %24 : f32
    } -> tensor<32x48xf32>
    %12 = linalg.generic {indexing_maps = [#map3, #map, #map], iterator_types = ["parallel", "parallel"]} ins(%arg1, %11 : tensor<1xf32>, tensor<32x48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %24 = arith.mulf %in, %in_2 : f32
      linalg.yield %24 : f32
    } -> tensor<32x48xf32>
    %13 = tensor.empty() : tensor<32xi64>
    %14 = linalg.fill ins(%c0_i64 : i64) outs(%13 : tensor<32xi64>) -> tensor<32xi64>
    %15 = tensor.empty() : tensor<32xf32>
    %16 = linalg.fill ins(%cst_0 : f32) outs(%15 : tensor<32xf32>) -> tensor<32xf32>
    %17:2 = linalg.generic {indexing_maps = [#map, #map4, #map4], iterator_types = ["parallel", "reduction"]} ins(%12 : tensor<32x48xf32>) outs(%16, %14 : tensor<32xf32>, tensor<32xi64>) {
    ^bb0(%in: f32, %out: f32, %out_2: i64):
      %24 = linalg.index 1 : index
      %25 = arith.index_cast %24 : index to i64
      %26 = arith.maximumf %in, %out : f32
      %27 = arith.cmpf ogt, %in, %out : f32
      %28 = arith.select %27, %25, %out_2 : i64
      linalg.yield %26, %28 : f32, i64
    } -> (tensor<32xf32>, tensor<32xi64>)
    %expanded = tensor.expand_shape %17#0 [[0, 1]] output_shape [32, 1] : tensor<32xf32> into tensor<32x1xf32>
    %18 = linalg.generic {indexing_maps = [#map, #map5, #map], iterator_types = ["parallel", "parallel"]} ins(%12, %expanded : tensor<32x48xf32>, tensor<32x1xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %24 = arith.subf %in, %in_2 : f32
      linalg.yield %24 : f32
    } -> tensor<32x48xf32>
    %19 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%18 : tensor<32x48xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = math.exp %in : f32
      linalg.yield %24 : f32
    } -> tensor<32x48xf32>
    %20 = tensor.empty() : tensor<32x1xf32>
    %21 = linalg.fill ins(%cst : f32) outs(%20 : tensor<32x1xf32>) -> tensor<32x1xf32>
    %22 = linalg.generic {indexing_maps = [#map, #map5], iterator_types = ["parallel", "reduction"]} ins(%19 : tensor<32x48xf32>) outs(%21 : tensor<32x1xf32>) {
    ^bb0(%in: f32, %out: f32):
      %24 = arith.addf %in, %out : f32
      linalg.yield %24 : f32
    } -> tensor<32x1xf32>
    %23 = linalg.generic {indexing_maps = [#map, #map5, #map], iterator_types = ["parallel", "parallel"]} ins(%19, %22 : tensor<32x48xf32>, tensor<32x1xf32>) outs(%1 : tensor<32x48xf32>) {
    ^bb0(%in: f32, %in_2: f32, %out: f32):
      %24 = arith.divf %in, %in_2 : f32
      linalg.yield %24 : f32
    } -> tensor<32x48xf32>
    return %23 : tensor<32x48xf32>
  }
}
