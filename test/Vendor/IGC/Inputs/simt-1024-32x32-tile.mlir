// The GEMM of simt-1024.mlir with a config written by hand: a 32x32 tile on
// one subgroup (32x2 accumulators per lane), for
// test/Vendor/IGC/register-model.test.
func.func @forward(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32> {xpu.weight}) -> tensor<1024x1024xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 32, 16], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %g : tensor<1024x1024xf32>
}
