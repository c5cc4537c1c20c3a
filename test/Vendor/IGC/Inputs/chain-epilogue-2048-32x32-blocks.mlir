// The GEMM of chain-epilogue-2048.mlir with a config written by hand: 32x32
// subgroup blocks in 256-GRF mode, for test/Vendor/IGC/register-model.test.
func.func @forward(%a: tensor<2048x2048xbf16>, %b: tensor<2048x2048xbf16> {xpu.weight}, %bias: tensor<2048xf32> {xpu.weight}) -> tensor<2048x2048xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%bias per_col : tensor<2048xf32>) {
  ^bb0(%acc: f32, %c: f32):
    %one = arith.constant 1.000000e+00 : f32
    %minus_one = arith.constant -1.000000e+00 : f32
    %half = arith.constant 5.000000e-01 : f32
    %rsqrt2 = arith.constant 0.707106769 : f32
    %v = arith.addf %acc, %c : f32
    %n = arith.negf %v : f32
    %x = math.exp %n : f32
    %d = arith.addf %x, %one : f32
    %s = arith.divf %one, %d : f32
    %w = arith.mulf %v, %s : f32
    %t = math.tanh %w : f32
    %y = arith.mulf %t, %rsqrt2 : f32
    %e = math.erf %y : f32
    %p = arith.addf %e, %one : f32
    %h = arith.mulf %t, %half : f32
    %gl = arith.mulf %h, %p : f32
    %lo = arith.maximumf %gl, %minus_one : f32
    %r = arith.minimumf %lo, %one : f32
    xpu.yield %r : f32
  } {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [4, 4], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<2048x2048xbf16>, tensor<2048x2048xbf16>) -> tensor<2048x2048xf32>
  return %g : tensor<2048x2048xf32>
}
