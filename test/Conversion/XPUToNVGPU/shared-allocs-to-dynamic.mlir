// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-shared-allocs-to-dynamic))' | FileCheck %s

// Two workgroup buffers (f32 2x64 = 512 bytes, then 2x128 = 1024 bytes at
// 512) become views of dynamic shared memory; the launch passes 1536
// bytes; their deallocations go. The global buffer stays.
// CHECK-LABEL: func.func @two_buffers
//       CHECK:   %[[SIZE:.+]] = arith.constant 1536 : i32
//       CHECK:   gpu.launch {{.+}} dynamic_shared_memory_size %[[SIZE]]
//       CHECK:     %[[BASE:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
//       CHECK:     %[[V0:.+]] = memref.view %[[BASE]][%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128xf32, #gpu.address_space<workgroup>>
//       CHECK:     memref.memory_space_cast %[[V0]] : memref<128xf32, #gpu.address_space<workgroup>> to memref<128xf32, 3>
//       CHECK:     %[[V1:.+]] = memref.view %[[BASE]][%c512{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<256xf32, #gpu.address_space<workgroup>>
//       CHECK:     memref.alloc() : memref<4xf32>
//   CHECK-NOT:     memref.dealloc %{{.+}} : memref<{{.+}}, 3>
func.func @two_buffers(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %a = memref.alloc() : memref<128xf32, 3>
    %b = memref.alloc() : memref<256xf32, 3>
    %g = memref.alloc() : memref<4xf32>
    %c0 = arith.constant 0 : index
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%c0] : memref<128xf32, 3>
    memref.store %f, %b[%c0] : memref<256xf32, 3>
    memref.store %f, %g[%c0] : memref<4xf32>
    memref.dealloc %a : memref<128xf32, 3>
    memref.dealloc %b : memref<256xf32, 3>
    gpu.terminator
  }
  return
}

// -----

// A launch that already passes a dynamic size is left alone.
// CHECK-LABEL: func.func @already_dynamic
//       CHECK:   memref.alloc() : memref<16xf32, 3>
func.func @already_dynamic() {
  %c1 = arith.constant 1 : index
  %s = arith.constant 64 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
             threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1)
             dynamic_shared_memory_size %s {
    %a = memref.alloc() : memref<16xf32, 3>
    gpu.terminator
  }
  return
}
