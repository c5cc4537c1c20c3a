// nn.Linear(128, 512) + GELU on a [256, 128] input in bf16 (torch-mlir form:
// transposed weight, matmul into a zero fill with f32 accumulation, one
// epilogue generic for bias, GELU and the bf16 result).
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<256x128xbf16>, %w: tensor<512x128xbf16> {xpu.weight}, %b: tensor<512xf32> {xpu.weight}) -> tensor<256x512xbf16> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<128x512xbf16>
  %wt = linalg.transpose ins(%w : tensor<512x128xbf16>) outs(%e0 : tensor<128x512xbf16>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<256x512xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<256x128xbf16>, tensor<128x512xbf16>) outs(%z : tensor<256x512xf32>) -> tensor<256x512xf32>
  %e2 = tensor.empty() : tensor<256x512xbf16>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<256x512xf32>, tensor<512xf32>) outs(%e2 : tensor<256x512xbf16>) {
  ^bb0(%in: f32, %bv: f32, %out: bf16):
    %t = arith.addf %in, %bv : f32
    %h = arith.constant 5.000000e-01 : f32
    %c = arith.constant 0.707106769 : f32
    %one = arith.constant 1.000000e+00 : f32
    %s = arith.mulf %t, %c : f32
    %e = math.erf %s : f32
    %p = arith.addf %e, %one : f32
    %q = arith.mulf %t, %h : f32
    %r = arith.mulf %q, %p : f32
    %o = arith.truncf %r : f32 to bf16
    linalg.yield %o : bf16
  } -> tensor<256x512xbf16>
  return %y : tensor<256x512xbf16>
}
