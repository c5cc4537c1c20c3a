// RUN: xpu-opt %s --split-input-file --xpu-cuda-buffers | FileCheck %s
// RUN: xpu-opt %s --split-input-file --xpu-cuda-buffers="device-results=true" | FileCheck %s --check-prefix=DEVICE

// A buffer only kernels touch is device memory (async allocation on the
// stream); one the host reads (memref.load) and the returned one are
// managed (host_shared). A contiguous copy becomes gpu.memcpy; the
// deallocation is asynchronous. With device-results, the returned buffer
// is device memory too.
// CHECK-LABEL: func.func @kinds
//       CHECK:   %[[T0:.+]] = gpu.wait async
//       CHECK:   %[[DEV:.+]], %{{.+}} = gpu.alloc async [%[[T0]]] () : memref<16xf32>
//       CHECK:   %[[HOST:.+]] = gpu.alloc  host_shared () : memref<16xf32>
//       CHECK:   %[[RES:.+]] = gpu.alloc  host_shared () : memref<16xf32>
//       CHECK:   gpu.launch_func
//       CHECK:   gpu.memcpy async [%{{.+}}] %[[RES]], %[[DEV]] : memref<16xf32>, memref<16xf32>
//       CHECK:   memref.load %[[HOST]]
//       CHECK:   gpu.dealloc async [%{{.+}}] %[[DEV]] : memref<16xf32>
//       CHECK:   return %[[RES]]
// DEVICE-LABEL: func.func @kinds
//       DEVICE:   gpu.alloc async
//       DEVICE:   gpu.alloc  host_shared
//       DEVICE:   gpu.alloc async
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<16xf32>, %b: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func @kinds() -> (memref<16xf32>, f32) {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %dev = memref.alloc() : memref<16xf32>
    %host = memref.alloc() : memref<16xf32>
    %res = memref.alloc() : memref<16xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%dev : memref<16xf32>, %host : memref<16xf32>)
    memref.copy %dev, %res : memref<16xf32> to memref<16xf32>
    %x = memref.load %host[%c0] : memref<16xf32>
    memref.dealloc %dev : memref<16xf32>
    return %res, %x : memref<16xf32>, f32
  }
}

// -----

// Through a view: a subview read by the host makes its buffer managed.
// CHECK-LABEL: func.func @view
//       CHECK:   gpu.alloc  host_shared () : memref<4x4xf32>
module {
  func.func @view() -> f32 {
    %c0 = arith.constant 0 : index
    %a = memref.alloc() : memref<4x4xf32>
    %s = memref.subview %a[0, 0] [2, 2] [1, 1] : memref<4x4xf32> to memref<2x2xf32, strided<[4, 1]>>
    %x = memref.load %s[%c0, %c0] : memref<2x2xf32, strided<[4, 1]>>
    return %x : f32
  }
}

// -----

// A buffer that a TMA descriptor is made from stays device memory: the host
// reads only its address, sizes and strides (the copy engine reads the
// data). A host read of the same buffer still makes it managed.
// CHECK-LABEL: func.func @tma
//       CHECK:   gpu.alloc async
//   CHECK-NOT:   host_shared
//       CHECK:   nvgpu.tma.create.descriptor
// CHECK-LABEL: func.func @tma_and_host_read
//       CHECK:   gpu.alloc  host_shared
module attributes {gpu.container_module} {
  func.func @tma() -> !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> {
    %c64 = arith.constant 64 : index
    %a = memref.alloc() : memref<128x64xbf16>
    %u = memref.cast %a : memref<128x64xbf16> to memref<*xbf16>
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xbf16> -> !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
    return %d : !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
  }
  func.func @tma_and_host_read() -> bf16 {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %a = memref.alloc() : memref<128x64xbf16>
    %u = memref.cast %a : memref<128x64xbf16> to memref<*xbf16>
    %d = nvgpu.tma.create.descriptor %u box[%c64, %c64] : memref<*xbf16> -> !nvgpu.tensormap.descriptor<tensor = memref<64x64xbf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
    %x = memref.load %a[%c0, %c0] : memref<128x64xbf16>
    return %x : bf16
  }
}

// -----

// A buffer passed to a function is touched by the host where the function's
// argument is: @fill only launches a kernel on it (device memory), @peek
// reads it on the host (managed). xpu-write-results-in-place's thin
// functions pass their result buffers so.
// CHECK-LABEL: func.func @through_calls
//       CHECK:   %[[DEV:.+]], %{{.+}} = gpu.alloc async [%{{.+}}] () : memref<16xf32>
//       CHECK:   %[[HOST:.+]] = gpu.alloc  host_shared () : memref<16xf32>
//       CHECK:   call @fill(%[[DEV]])
//       CHECK:   call @peek(%[[HOST]])
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func private @fill(%a: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<16xf32>)
    return
  }
  func.func private @peek(%a: memref<16xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %x = memref.load %a[%c0] : memref<16xf32>
    return %x : f32
  }
  func.func @through_calls() -> f32 {
    %dev = memref.alloc() : memref<16xf32>
    %host = memref.alloc() : memref<16xf32>
    call @fill(%dev) : (memref<16xf32>) -> ()
    %x = call @peek(%host) : (memref<16xf32>) -> f32
    memref.dealloc %dev : memref<16xf32>
    memref.dealloc %host : memref<16xf32>
    return %x : f32
  }
}
