// Two GEMMs with pingpong consumers on persistent programs, each program
// going through several tiles: a Linear + bias + GELU (erf) of 200x320x256
// in 128x128 tiles (2 x 3 tiles on 2 programs; the second tile row is cut
// at m = 200) and a 256x512x128 GEMM with a [k, n] B in 64x256 tiles (4 x 2
// tiles on 3 programs: one of them has two, so its consumers take one each).
func.func @forward(%x: tensor<200x256xbf16>, %w: tensor<320x256xbf16>, %bias: tensor<320xf32>, %a: tensor<256x128xbf16>, %b: tensor<128x512xbf16>) -> (tensor<200x320xbf16>, tensor<256x512xbf16>) {
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%bias per_col : tensor<320xf32>) {
  ^bb0(%acc: f32, %c: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.707106769 : f32
    %v = arith.addf %acc, %c : f32
    %s = arith.mulf %v, %rsqrt2 : f32
    %e = math.erf %s : f32
    %p = arith.addf %e, %one : f32
    %h = arith.mulf %v, %half : f32
    %r = arith.mulf %h, %p : f32
    %o = arith.truncf %r : f32 to bf16
    xpu.yield %o : bf16
  } {config = #xpu.config<tile = [128, 128, 64], group_m = 8, subgroups = [2, 2], stages = 4, schedule = persistent<programs = 2>, backend = #xpu.nvgpu<mma = wgmma, consumers = pingpong>>} : (tensor<200x256xbf16>, tensor<320x256xbf16>) -> tensor<200x320xbf16>
  %k = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %t = arith.truncf %acc : f32 to bf16
    xpu.yield %t : bf16
  } {config = #xpu.config<tile = [64, 256, 64], group_m = 8, subgroups = [1, 4], stages = 5, schedule = persistent<programs = 3>, backend = #xpu.nvgpu<mma = wgmma, consumers = pingpong>>} : (tensor<256x128xbf16>, tensor<128x512xbf16>) -> tensor<256x512xbf16>
  return %g, %k : tensor<200x320xbf16>, tensor<256x512xbf16>
}
