// RUN: xpu-opt %s --split-input-file --xpu-sanitize-kernel-names | FileCheck %s
// RUN: xpu-opt %s --split-input-file --xpu-sanitize-kernel-names | FileCheck %s --check-prefix=DISTINCT

// ptxas rejects '.' in names: the module and its kernel are renamed, and
// the launch follows; a name that is taken gets a suffix.
// CHECK-LABEL: func.func @forward.pack
//       CHECK:   gpu.launch_func @forward_pack_kernel_0::@forward_pack_kernel blocks
//       CHECK:   gpu.launch_func @ok_kernel::@ok_kernel blocks
//       CHECK: gpu.module @forward_pack_kernel_0
//       CHECK:   gpu.func @forward_pack_kernel() kernel
//       CHECK: gpu.module @forward_pack_kernel
//       CHECK: gpu.module @ok_kernel
module attributes {gpu.container_module} {
  func.func @"forward.pack"() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @"forward.pack_kernel"::@"forward.pack_kernel" blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @ok_kernel::@ok_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.module @"forward.pack_kernel" {
    gpu.func @"forward.pack_kernel"() kernel {
      gpu.return
    }
  }
  gpu.module @forward_pack_kernel {
  }
  gpu.module @ok_kernel {
    gpu.func @ok_kernel() kernel {
      gpu.return
    }
  }
}

// -----

// Outlining names every kernel of a function after it: a kernel whose name
// an earlier module's kernel has takes its own module's name, so that the
// profiler's rows tell them apart (a name that is taken gets a suffix).
// DISTINCT-LABEL: func.func @forward
//       DISTINCT:   gpu.launch_func @forward_kernel::@forward_kernel blocks
//       DISTINCT:   gpu.launch_func @forward_kernel_0::@forward_kernel_0 blocks
//       DISTINCT:   gpu.launch_func @forward_kernel_1::@forward_kernel_1_0 blocks
//       DISTINCT: gpu.module @forward_kernel
//       DISTINCT:   gpu.func @forward_kernel() kernel
//       DISTINCT: gpu.module @forward_kernel_0
//       DISTINCT:   gpu.func @forward_kernel_0() kernel
//       DISTINCT: gpu.module @forward_kernel_1
//       DISTINCT:   gpu.func @forward_kernel_1_0() kernel
//       DISTINCT:   gpu.func @forward_kernel_1() kernel
module attributes {gpu.container_module} {
  func.func @forward() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @forward_kernel::@forward_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @forward_kernel_0::@forward_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    gpu.launch_func @forward_kernel_1::@forward_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.module @forward_kernel {
    gpu.func @forward_kernel() kernel {
      gpu.return
    }
  }
  gpu.module @forward_kernel_0 {
    gpu.func @forward_kernel() kernel {
      gpu.return
    }
  }
  gpu.module @forward_kernel_1 {
    gpu.func @forward_kernel() kernel {
      gpu.return
    }
    gpu.func @forward_kernel_1() kernel {
      gpu.return
    }
  }
}
