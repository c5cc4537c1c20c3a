// RUN: xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-prepack-bf16{precision=fp8}))' --verify-diagnostics

// An unknown precision is an error on each function, not a silent no-op.
// expected-error @+1 {{xpu-prepack-bf16: invalid precision 'fp8'; expected f32, bf16 or f16}}
func.func @bad_precision(%x: tensor<8x4xf32>, %w: tensor<6x4xf32>) -> tensor<8x6xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}
