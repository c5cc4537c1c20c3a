// RUN: xpu-opt %s --xpu-fuse-epilogue=default-target=mi300 --verify-diagnostics

// expected-error @+1 {{xpu-fuse-epilogue: unknown default-target 'mi300' (presets: pvc, bmg, sm_80, sm_90, sm_90a, cpu)}}
func.func @unknown_target(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  return %g : tensor<8x6xf32>
}
