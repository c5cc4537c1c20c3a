// A 512x512x256 bf16 GEMM (B an activation, [k, n]) with a wgmma config in
// thread block clusters of 2 along M: 4 tile rows of 128 pair up, and each
// workgroup multicasts 2 of B's 4 boxes of 64 columns.
func.func @forward(%a: tensor<512x256xbf16>, %b: tensor<256x512xbf16>) -> tensor<512x512xbf16> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %t = arith.truncf %acc : f32 to bf16
    xpu.yield %t : bf16
  } {config = #xpu.config<tile = [128, 256, 64], group_m = 8, subgroups = [2, 4], stages = 4, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, cluster_m = 2>>} : (tensor<512x256xbf16>, tensor<256x512xbf16>) -> tensor<512x512xbf16>
  return %g : tensor<512x512xbf16>
}
