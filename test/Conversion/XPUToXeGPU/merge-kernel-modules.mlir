// RUN: xpu-opt %s --split-input-file --xpu-merge-kernel-modules='module-matcher=_kernel(_[0-9]+)?$' | FileCheck %s

// Outlined modules of one target become one module (LLVM 22.1.8's SPIR-V
// backend corrupts ids across many translated modules): each kernel takes
// its module's name, a helper whose name is taken is renamed along with
// its uses, and the launches follow. A module of another target and one
// the matcher does not select stay.
// CHECK-LABEL: func.func @forward
//       CHECK:   gpu.launch_func @forward_kernel::@forward_kernel
//       CHECK:   gpu.launch_func @forward_kernel::@forward_kernel_0
//       CHECK:   gpu.launch_func @forward_kernel_1::@forward_kernel
//       CHECK:   gpu.launch_func @forward_xe_gemm0::@forward_xe_gemm0
//       CHECK: gpu.module @forward_kernel [#xevm.target<chip = "pvc">]
//       CHECK:   memref.global "private" @table
//       CHECK:   gpu.func @forward_kernel()
//       CHECK:     memref.get_global @table
//       CHECK:   memref.global "private" @table_0
//       CHECK:   gpu.func @forward_kernel_0()
//       CHECK:     memref.get_global @table_0
//   CHECK-NOT: gpu.module @forward_kernel_0
//       CHECK: gpu.module @forward_kernel_1 [#xevm.target]
//       CHECK: gpu.module @forward_xe_gemm0 [#xevm.target<chip = "pvc">]
module attributes {gpu.container_module} {
  func.func @forward() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @forward_kernel::@forward_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @forward_kernel_0::@forward_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @forward_kernel_1::@forward_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @forward_xe_gemm0::@forward_xe_gemm0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.module @forward_kernel [#xevm.target<chip = "pvc">] {
    memref.global "private" @table : memref<4xf32, 3>
    gpu.func @forward_kernel() kernel {
      %t = memref.get_global @table : memref<4xf32, 3>
      gpu.return
    }
  }
  gpu.module @forward_kernel_0 [#xevm.target<chip = "pvc">] {
    memref.global "private" @table : memref<4xf32, 3>
    gpu.func @forward_kernel() kernel {
      %t = memref.get_global @table : memref<4xf32, 3>
      gpu.return
    }
  }
  gpu.module @forward_kernel_1 [#xevm.target<chip = "bmg">] {
    gpu.func @forward_kernel() kernel {
      gpu.return
    }
  }
  gpu.module @forward_xe_gemm0 [#xevm.target<chip = "pvc">] {
    gpu.func @forward_xe_gemm0() kernel {
      gpu.return
    }
  }
}

// -----

// A bad matcher is an error that names the option.
// RUN: not xpu-opt %s --split-input-file --xpu-merge-kernel-modules='module-matcher=(' 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: xpu-merge-kernel-modules: invalid module-matcher '(':
module {
}
