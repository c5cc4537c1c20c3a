// RUN: xpu-opt %s --xpu-sanitize-kernel-names | FileCheck %s

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
