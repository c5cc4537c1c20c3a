// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(xpu-xevm-kernel-subgroup-size))' | FileCheck %s

// Kernels without a subgroup size get the target's first one (16 on pvc);
// one that has a size keeps it, other functions get none.
// CHECK-LABEL: gpu.module @m
//       CHECK:   llvm.func spir_kernelcc @simt() attributes {intel_reqd_sub_group_size = 16 : i32}
//       CHECK:   llvm.func spir_kernelcc @given() attributes {intel_reqd_sub_group_size = 32 : i32}
//       CHECK:   llvm.func spir_funccc @helper() {
module attributes {xpu.target = #xpu.target<"pvc">} {
  gpu.module @m {
    llvm.func spir_kernelcc @simt() {
      llvm.return
    }
    llvm.func spir_kernelcc @given() attributes {intel_reqd_sub_group_size = 32 : i32} {
      llvm.return
    }
    llvm.func spir_funccc @helper() {
      llvm.return
    }
  }
}

// -----

// Without a target nothing changes.
// CHECK-LABEL: gpu.module @untargeted
//       CHECK:   llvm.func spir_kernelcc @simt() {
gpu.module @untargeted {
  llvm.func spir_kernelcc @simt() {
    llvm.return
  }
}
