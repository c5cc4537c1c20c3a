// RUN: xpu-opt %s --pass-pipeline='builtin.module(gpu.module(xpu-set-spirv-entry-point-abi))' | FileCheck %s

// The workgroup size of the entry point comes from the kernel's known block
// size, and the module's SPIR-V target is recorded as spirv.target_env.
// CHECK: gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.0, [Addresses, Int64, Kernel], []>, api=OpenCL, #spirv.resource_limits<>>]
// CHECK-SAME: spirv.target_env
// CHECK: gpu.func @k
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [16, 8, 1]>
module attributes {gpu.container_module} {
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.0, [Addresses, Int64, Kernel], []>, api=OpenCL, #spirv.resource_limits<>>] {
    gpu.func @k(%a: memref<4xf32>) kernel attributes {known_block_size = array<i32: 16, 8, 1>} {
      gpu.return
    }
  }
}
