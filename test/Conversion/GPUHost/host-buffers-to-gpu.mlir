// RUN: xpu-opt %s --split-input-file --xpu-host-buffers-to-gpu | FileCheck %s

// Host allocations become host-shared GPU allocations (SVM through the
// runtime) and their deallocation is made asynchronous so that it lowers.
// CHECK-LABEL: func.func @alloc_becomes_host_shared
//       CHECK:   %[[M:.+]] = gpu.alloc  host_shared () : memref<8x6xf32>
//   CHECK-NOT:   memref.alloc
//       CHECK:   %[[T0:.+]] = gpu.wait async
//       CHECK:   %[[T1:.+]] = gpu.dealloc async [%[[T0]]] %[[M]] : memref<8x6xf32>
//       CHECK:   gpu.wait [%[[T1]]]
//   CHECK-NOT:   memref.dealloc
func.func @alloc_becomes_host_shared(%x: f32) {
  %m = memref.alloc() : memref<8x6xf32>
  linalg.fill ins(%x : f32) outs(%m : memref<8x6xf32>)
  memref.dealloc %m : memref<8x6xf32>
  return
}

// -----

// Allocations inside GPU code are left alone.
// CHECK-LABEL: gpu.func @kernel_alloc_untouched
//       CHECK:   memref.alloc
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @kernel_alloc_untouched() kernel {
      %m = memref.alloc() : memref<4xf32, 3>
      gpu.return
    }
  }
}
