// RUN: xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-prepack-bf16{precision=f32}))' | FileCheck %s
// RUN: xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-prepack-bf16{precision=f32}))' --xpu-remarks --verify-diagnostics > /dev/null

// precision=f32 (every pipeline's default) changes nothing and says so.
// CHECK-LABEL: func.func @f32_keeps_f32_operands
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   bf16
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xf32>
func.func @f32_keeps_f32_operands(%x: tensor<64x128xf32>, %w: tensor<32x128xf32>) -> tensor<64x32xf32> {
  // expected-remark @+1 {{GEMM 64x32x128 operands unchanged: precision=f32 keeps f32 operands}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}
