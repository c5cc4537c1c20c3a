// OpenCL SPIR-V has no bf16 type: xpu-spirv-pipeline runs convert-xpu-to-gpu
// with allow-bf16=false, and a bf16 GEMM is a located error rather than a
// kernel that writes 32-bit words into a 16-bit buffer.
// RUN: xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm,convert-xpu-to-gpu{allow-bf16=false}))' --verify-diagnostics
// The default (NVVM and XeGPU-bound users) keeps bf16.
// RUN: xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm,convert-xpu-to-gpu))' | FileCheck %s
// CHECK: gpu.launch
// CHECK: memref.alloc() : memref<{{[0-9]+}}xbf16, 3>
// CHECK: arith.extf %{{.*}} : bf16 to f32

module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @bf16(%x: tensor<16x32xbf16>, %w: tensor<32x16xbf16>) -> tensor<16x16xf32> {
  // expected-error @below {{convert-xpu-to-gpu: bf16 operands, but the kernels of this target cannot use bf16 (OpenCL SPIR-V has no bf16 type); use precision f16 or f32 here, or xpu-xe-pipeline for DPAS on Intel GPUs}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<16x32xbf16>, tensor<32x16xbf16>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
}
