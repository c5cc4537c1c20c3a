// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(xpu-set-spirv-entry-point-abi))' | FileCheck %s
// The target attached by xpu-attach-target (the pipelines attach one first).
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(xpu-attach-target{chip=pvc},gpu.module(xpu-set-spirv-entry-point-abi))' | FileCheck %s --check-prefix=PVC
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(xpu-attach-target{chip=pvc},gpu.module(xpu-set-spirv-entry-point-abi))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// The workgroup size of the entry point comes from the kernel's known block
// size, and the module's SPIR-V target is recorded as spirv.target_env.
// Without a target (no #xpu.target), no subgroup size:
// the device compiler picks the SIMD width.
// CHECK-LABEL: gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.0, [Addresses, Int64, Kernel], []>, api=OpenCL, #spirv.resource_limits<>>]
// CHECK-SAME: spirv.target_env
// CHECK: gpu.func @k
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [16, 8, 1]>
// A kernel that has an ABI already is left alone.
// CHECK: gpu.func @kept
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [4, 1, 1]>
// Functions that are not kernels get none.
// CHECK: gpu.func @helper
// CHECK-NOT: spirv.entry_point_abi
// CHECK: gpu.return
// With the pvc target attached the kernels would get 16 lanes, but SPIR-V 1.0
// without SubgroupDispatch cannot say so: a missed remark, no subgroup size.
// PVC-LABEL: gpu.module @kernels
// PVC: gpu.func @k
// PVC-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [16, 8, 1]>
module attributes {gpu.container_module} {
  // expected-remark @+1 {{the kernels of 'kernels' get no subgroup size: pvc plans 16 lanes, but OpExecutionMode SubgroupSize needs SPIR-V 1.1 and the SubgroupDispatch capability, which the target environment does not have; the device compiler picks the SIMD width}}
  gpu.module @kernels [#spirv.target_env<#spirv.vce<v1.0, [Addresses, Int64, Kernel], []>, api=OpenCL, #spirv.resource_limits<>>] {
    gpu.func @k(%a: memref<4xf32>) kernel attributes {known_block_size = array<i32: 16, 8, 1>} {
      gpu.return
    }
    gpu.func @kept() kernel attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [4, 1, 1]>} {
      gpu.return
    }
    gpu.func @helper() {
      gpu.return
    }
  }
}

// -----

// SPIR-V 1.1 with SubgroupDispatch: every kernel gets the first subgroup
// size of the target, here the module's own #xpu.target (bmg: 16), which
// xpu-attach-target keeps.
// CHECK-LABEL: gpu.module @sized
// CHECK: gpu.func @k
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [512, 1, 1], subgroup_size = 16>
// CHECK: gpu.func @no_block_size
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<subgroup_size = 16>
// expected-remark @+1 {{the module's own target 'bmg' is kept (not replaced by 'pvc')}}
module attributes {gpu.container_module, xpu.target = #xpu.target<"bmg">} {
  gpu.module @sized [#spirv.target_env<#spirv.vce<v1.1, [Addresses, Int64, Kernel, SubgroupDispatch], []>, api=OpenCL, #spirv.resource_limits<>>] {
    gpu.func @k(%a: memref<4xf32>) kernel attributes {known_block_size = array<i32: 512, 1, 1>} {
      gpu.return
    }
    gpu.func @no_block_size() kernel {
      gpu.return
    }
  }
}

// -----

// An attached target alone gives the subgroup size (pvc: 16); without
// #xpu.target, none.
// PVC-LABEL: gpu.module @warps
// PVC: gpu.func @k
// PVC-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1], subgroup_size = 16>
// CHECK-LABEL: gpu.module @warps
// CHECK: gpu.func @k
// CHECK-SAME: spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>
module attributes {gpu.container_module} {
  gpu.module @warps [#spirv.target_env<#spirv.vce<v1.1, [Addresses, Int64, Kernel, SubgroupDispatch], []>, api=OpenCL, #spirv.resource_limits<>>] {
    gpu.func @k() kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      gpu.return
    }
  }
}
