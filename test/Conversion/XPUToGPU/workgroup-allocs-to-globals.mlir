// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(xpu-workgroup-allocs-to-globals))' | FileCheck %s

// A row reduction's shared local memory (xpu-linalg-to-gpu-loops) becomes
// an uninitialized private workgroup global of the module, one per
// allocation, and its deallocation goes away.
// CHECK-LABEL: gpu.module @reductions
//   CHECK-DAG:   memref.global "private" @__xpu_workgroup : memref<64xf32, 3>
//   CHECK-DAG:   memref.global "private" @__xpu_workgroup_0 : memref<32xi32, 3>
//       CHECK:   gpu.func @k
//   CHECK-NOT:     memref.alloc
//       CHECK:     %[[A:.*]] = memref.get_global @__xpu_workgroup : memref<64xf32, 3>
//       CHECK:     memref.store %{{.*}}, %[[A]]
//       CHECK:     %[[B:.*]] = memref.get_global @__xpu_workgroup_0 : memref<32xi32, 3>
//       CHECK:     memref.store %{{.*}}, %[[B]]
//   CHECK-NOT:     memref.dealloc
//       CHECK:     gpu.return
gpu.module @reductions {
  gpu.func @k(%x: f32, %i: i32) kernel {
    %c0 = arith.constant 0 : index
    %a = memref.alloc() : memref<64xf32, 3>
    memref.store %x, %a[%c0] : memref<64xf32, 3>
    %b = memref.alloc() : memref<32xi32, 3>
    memref.store %i, %b[%c0] : memref<32xi32, 3>
    memref.dealloc %a : memref<64xf32, 3>
    gpu.return
  }
}

// -----

// Allocations in other address spaces, dynamic ones and those not at the
// top of a kernel stay.
// CHECK-LABEL: gpu.module @untouched
//   CHECK-NOT:   memref.global
//       CHECK:   memref.alloc() : memref<4xf32>
//       CHECK:   memref.alloc(%{{.*}}) : memref<?xf32, 3>
//       CHECK:   scf.if
//       CHECK:     memref.alloc() : memref<8xf32, 3>
gpu.module @untouched {
  gpu.func @k(%n: index, %p: i1) kernel {
    %a = memref.alloc() : memref<4xf32>
    %b = memref.alloc(%n) : memref<?xf32, 3>
    scf.if %p {
      %c = memref.alloc() : memref<8xf32, 3>
    }
    gpu.return
  }
}
