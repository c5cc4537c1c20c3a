// A 1024^3 f32 GEMM, for the SIMT register model in
// test/Vendor/IGC/register-model.test.
func.func @forward(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32> {xpu.weight}) -> tensor<1024x1024xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %g : tensor<1024x1024xf32>
}
