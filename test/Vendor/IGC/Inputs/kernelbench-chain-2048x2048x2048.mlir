// A KernelBench-style epilogue chain after nn.Linear(2048, 2048) on x:
// [2048, 2048]: add a per-channel bias, Swish (x * sigmoid(x)), tanh, GELU
// (approximate='none') and Hardtanh(-1, 1), as torch-mlir emits it
// (compiled only: the register-model calibration corpus).
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<2048x2048xf32>, %w: tensor<2048x2048xf32> {xpu.weight}, %b: tensor<2048xf32> {xpu.weight},
                   %add: tensor<2048xf32> {xpu.weight}) -> tensor<2048x2048xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %minus_one = arith.constant -1.000000e+00 : f32
  %sqrt2 = arith.constant 1.41421354 : f32
  %e0 = tensor.empty() : tensor<2048x2048xf32>
  %wt = linalg.transpose ins(%w : tensor<2048x2048xf32>) outs(%e0 : tensor<2048x2048xf32>) permutation = [1, 0]
  %z = linalg.fill ins(%cst : f32) outs(%e0 : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<2048x2048xf32>, tensor<2048x2048xf32>) outs(%z : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b, %add : tensor<2048x2048xf32>, tensor<2048xf32>, tensor<2048xf32>) outs(%e0 : tensor<2048x2048xf32>) {
  ^bb0(%in: f32, %bias: f32, %a: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    %1 = arith.addf %0, %a : f32
    // Swish: x * sigmoid(x) = x / (1 + exp(-x)).
    %2 = arith.negf %1 : f32
    %3 = math.exp %2 : f32
    %4 = arith.addf %3, %one : f32
    %5 = arith.divf %one, %4 : f32
    %6 = arith.mulf %1, %5 : f32
    %7 = math.tanh %6 : f32
    // GELU: 0.5 * y * (1 + erf(y / sqrt(2))).
    %8 = arith.divf %7, %sqrt2 : f32
    %9 = math.erf %8 : f32
    %10 = arith.addf %9, %one : f32
    %11 = arith.mulf %7, %half : f32
    %12 = arith.mulf %11, %10 : f32
    // Hardtanh(-1, 1).
    %13 = arith.maximumf %12, %minus_one : f32
    %14 = arith.minimumf %13, %one : f32
    linalg.yield %14 : f32
  } -> tensor<2048x2048xf32>
  return %y : tensor<2048x2048xf32>
}
