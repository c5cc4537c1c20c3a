// Models at the benchmark's sizes (bench/nvidia/problems.py), so that the
// strategy picks its large tiles: every kernel of xpu-nvvm-pipeline on
// them goes through ptxas -v in ptxas-kernels.test.
func.func @gemm_bf16(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xbf16> {
  %v1 = arith.constant 0.000000e+00 : f32
  %v2 = tensor.empty() : tensor<4096x4096xf32>
  %v3 = linalg.fill ins(%v1 : f32) outs(%v2 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %v4 = linalg.matmul ins(%a, %b : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%v3 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %v5 = tensor.empty() : tensor<4096x4096xbf16>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v4 : tensor<4096x4096xf32>) outs(%v5 : tensor<4096x4096xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %yt = arith.truncf %a0 : f32 to bf16
    linalg.yield %yt : bf16
  } -> tensor<4096x4096xbf16>
  return %v6 : tensor<4096x4096xbf16>
}
func.func @odd_bf16(%a: tensor<8205x2949xbf16>, %b: tensor<2949x5921xbf16>) -> tensor<8205x5921xbf16> {
  %v1 = arith.constant 0.000000e+00 : f32
  %v2 = tensor.empty() : tensor<8205x5921xf32>
  %v3 = linalg.fill ins(%v1 : f32) outs(%v2 : tensor<8205x5921xf32>) -> tensor<8205x5921xf32>
  %v4 = linalg.matmul ins(%a, %b : tensor<8205x2949xbf16>, tensor<2949x5921xbf16>) outs(%v3 : tensor<8205x5921xf32>) -> tensor<8205x5921xf32>
  %v5 = tensor.empty() : tensor<8205x5921xbf16>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v4 : tensor<8205x5921xf32>) outs(%v5 : tensor<8205x5921xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %yt = arith.truncf %a0 : f32 to bf16
    linalg.yield %yt : bf16
  } -> tensor<8205x5921xbf16>
  return %v6 : tensor<8205x5921xbf16>
}
func.func @bmm_bf16(%a: tensor<64x1024x1024xbf16>, %b: tensor<64x1024x1024xbf16>) -> tensor<64x1024x1024xbf16> {
  %v1 = arith.constant 0.000000e+00 : f32
  %v2 = tensor.empty() : tensor<64x1024x1024xf32>
  %v3 = linalg.fill ins(%v1 : f32) outs(%v2 : tensor<64x1024x1024xf32>) -> tensor<64x1024x1024xf32>
  %v4 = linalg.batch_matmul ins(%a, %b : tensor<64x1024x1024xbf16>, tensor<64x1024x1024xbf16>) outs(%v3 : tensor<64x1024x1024xf32>) -> tensor<64x1024x1024xf32>
  %v5 = tensor.empty() : tensor<64x1024x1024xbf16>
  %v6 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v4 : tensor<64x1024x1024xf32>) outs(%v5 : tensor<64x1024x1024xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %yt = arith.truncf %a0 : f32 to bf16
    linalg.yield %yt : bf16
  } -> tensor<64x1024x1024xbf16>
  return %v6 : tensor<64x1024x1024xbf16>
}
func.func @linear_gelu_bf16(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>, %bias: tensor<4096xbf16>) -> tensor<4096x4096xbf16> {
  %v1 = arith.constant 0.000000e+00 : f32
  %v2 = tensor.empty() : tensor<4096x4096xbf16>
  %v3 = linalg.transpose ins(%w : tensor<4096x4096xbf16>) outs(%v2 : tensor<4096x4096xbf16>) permutation = [1, 0]
  %v4 = tensor.empty() : tensor<4096x4096xf32>
  %v5 = linalg.fill ins(%v1 : f32) outs(%v4 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %v6 = linalg.matmul ins(%x, %v3 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%v5 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %v7 = tensor.empty() : tensor<4096x4096xf32>
  %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v6, %bias : tensor<4096x4096xf32>, tensor<4096xbf16>) outs(%v7 : tensor<4096x4096xf32>) {
  ^bb0(%a0: f32, %a1: bf16, %out: f32):
    %a1_f = arith.extf %a1 : bf16 to f32
    %r = arith.addf %a0, %a1_f : f32
    linalg.yield %r : f32
  } -> tensor<4096x4096xf32>
  %v9 = tensor.empty() : tensor<4096x4096xf32>
  %v10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v8 : tensor<4096x4096xf32>) outs(%v9 : tensor<4096x4096xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %c = arith.constant 0.707106769 : f32
    %h = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %s = arith.mulf %a0, %c : f32
    %e = math.erf %s : f32
    %p = arith.addf %e, %one : f32
    %q = arith.mulf %a0, %h : f32
    %r = arith.mulf %q, %p : f32
    linalg.yield %r : f32
  } -> tensor<4096x4096xf32>
  %v11 = tensor.empty() : tensor<4096x4096xbf16>
  %v12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v10 : tensor<4096x4096xf32>) outs(%v11 : tensor<4096x4096xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %yt = arith.truncf %a0 : f32 to bf16
    linalg.yield %yt : bf16
  } -> tensor<4096x4096xbf16>
  return %v12 : tensor<4096x4096xbf16>
}
func.func @linear_bn_relu_bf16(%x: tensor<4096x4096xbf16>, %w: tensor<4096x4096xbf16>, %bias: tensor<4096xbf16>, %gamma: tensor<4096xbf16>, %beta: tensor<4096xbf16>, %mean: tensor<4096xbf16>, %var: tensor<4096xbf16>) -> tensor<4096x4096xbf16> {
  %v1 = arith.constant 0.000000e+00 : f32
  %v2 = tensor.empty() : tensor<4096x4096xbf16>
  %v3 = linalg.transpose ins(%w : tensor<4096x4096xbf16>) outs(%v2 : tensor<4096x4096xbf16>) permutation = [1, 0]
  %v4 = tensor.empty() : tensor<4096x4096xf32>
  %v5 = linalg.fill ins(%v1 : f32) outs(%v4 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %v6 = linalg.matmul ins(%x, %v3 : tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) outs(%v5 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %v7 = tensor.empty() : tensor<4096x4096xf32>
  %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v6, %bias : tensor<4096x4096xf32>, tensor<4096xbf16>) outs(%v7 : tensor<4096x4096xf32>) {
  ^bb0(%a0: f32, %a1: bf16, %out: f32):
    %a1_f = arith.extf %a1 : bf16 to f32
    %r = arith.addf %a0, %a1_f : f32
    linalg.yield %r : f32
  } -> tensor<4096x4096xf32>
  %v9 = tensor.empty() : tensor<4096x4096xf32>
  %v10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v8, %mean, %var, %gamma, %beta : tensor<4096x4096xf32>, tensor<4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>, tensor<4096xbf16>) outs(%v9 : tensor<4096x4096xf32>) {
  ^bb0(%a0: f32, %a1: bf16, %a2: bf16, %a3: bf16, %a4: bf16, %out: f32):
    %a1_f = arith.extf %a1 : bf16 to f32
    %a2_f = arith.extf %a2 : bf16 to f32
    %a3_f = arith.extf %a3 : bf16 to f32
    %a4_f = arith.extf %a4 : bf16 to f32
    %eps = arith.constant 1.000000e-05 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %d = arith.subf %a0, %a1_f : f32
    %ve = arith.addf %a2_f, %eps : f32
    %sd = math.sqrt %ve : f32
    %nrm = arith.divf %d, %sd : f32
    %sc = arith.mulf %nrm, %a3_f : f32
    %sh = arith.addf %sc, %a4_f : f32
    %gt = arith.cmpf ugt, %sh, %zero : f32
    %r = arith.select %gt, %sh, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4096x4096xf32>
  %v11 = tensor.empty() : tensor<4096x4096xbf16>
  %v12 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v10 : tensor<4096x4096xf32>) outs(%v11 : tensor<4096x4096xbf16>) {
  ^bb0(%a0: f32, %out: bf16):
    %yt = arith.truncf %a0 : f32 to bf16
    linalg.yield %yt : bf16
  } -> tensor<4096x4096xbf16>
  return %v12 : tensor<4096x4096xbf16>
}
func.func @gemm_f32(%a: tensor<2048x2048xf32>, %b: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  %v1 = arith.constant 0.000000e+00 : f32
  %v2 = tensor.empty() : tensor<2048x2048xf32>
  %v3 = linalg.fill ins(%v1 : f32) outs(%v2 : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  %v4 = linalg.matmul ins(%a, %b : tensor<2048x2048xf32>, tensor<2048x2048xf32>) outs(%v3 : tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %v4 : tensor<2048x2048xf32>
}
func.func @linear_gelu_f32(%x: tensor<4096x4096xf32>, %w: tensor<4096x4096xf32>, %bias: tensor<4096xf32>) -> tensor<4096x4096xf32> {
  %v1 = arith.constant 0.000000e+00 : f32
  %v2 = tensor.empty() : tensor<4096x4096xf32>
  %v3 = linalg.transpose ins(%w : tensor<4096x4096xf32>) outs(%v2 : tensor<4096x4096xf32>) permutation = [1, 0]
  %v4 = tensor.empty() : tensor<4096x4096xf32>
  %v5 = linalg.fill ins(%v1 : f32) outs(%v4 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %v6 = linalg.matmul ins(%x, %v3 : tensor<4096x4096xf32>, tensor<4096x4096xf32>) outs(%v5 : tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  %v7 = tensor.empty() : tensor<4096x4096xf32>
  %v8 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v6, %bias : tensor<4096x4096xf32>, tensor<4096xf32>) outs(%v7 : tensor<4096x4096xf32>) {
  ^bb0(%a0: f32, %a1: f32, %out: f32):
    %r = arith.addf %a0, %a1 : f32
    linalg.yield %r : f32
  } -> tensor<4096x4096xf32>
  %v9 = tensor.empty() : tensor<4096x4096xf32>
  %v10 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%v8 : tensor<4096x4096xf32>) outs(%v9 : tensor<4096x4096xf32>) {
  ^bb0(%a0: f32, %out: f32):
    %c = arith.constant 0.707106769 : f32
    %h = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %s = arith.mulf %a0, %c : f32
    %e = math.erf %s : f32
    %p = arith.addf %e, %one : f32
    %q = arith.mulf %a0, %h : f32
    %r = arith.mulf %q, %p : f32
    linalg.yield %r : f32
  } -> tensor<4096x4096xf32>
  return %v10 : tensor<4096x4096xf32>
}
