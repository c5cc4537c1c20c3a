// RUN: xpu-opt %s --split-input-file --xpu-verify-no-host-device-access --verify-diagnostics | FileCheck %s

// The bug of issue 22: BatchNorm's 1/sqrt(var + eps) left on the host in
// @forward.pack reads the caller's running_var, device memory on a GPU
// target (a segfault on cudaMalloc memory).
func.func @forward.pack(%var: memref<48xf32>) -> memref<48xf32> { // expected-note {{the device memory comes from here}}
  %c0 = arith.constant 0 : index
  %out = gpu.alloc host_shared () : memref<48xf32>
  // expected-error @below {{host code reads device memory: 'memref.load' on argument #0 of @forward.pack (a caller's buffer: device memory on a GPU target)}}
  %v = memref.load %var[%c0] : memref<48xf32>
  %r = math.rsqrt %v : f32
  memref.store %r, %out[%c0] : memref<48xf32>
  return %out : memref<48xf32>
}

// -----

// A host store into a device allocation.
func.func @store_to_device_alloc(%x: f32) {
  %c0 = arith.constant 0 : index
  %t = gpu.wait async
  %m, %t2 = gpu.alloc async [%t] () : memref<4xf32> // expected-note {{the device memory comes from here}}
  gpu.wait [%t2]
  // expected-error @below {{host code writes device memory: 'memref.store' on a device allocation (gpu.alloc without host_shared)}}
  memref.store %x, %m[%c0] : memref<4xf32>
  return
}

// -----

// Through views: a linalg op on the host reading a subview of an argument.
func.func @view_of_argument(%a: memref<8x8xf32>, %b: memref<4x4xf32>) { // expected-note {{the device memory comes from here}}
  %v = memref.subview %a[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32, strided<[8, 1]>>
  // expected-error @below {{host code reads device memory: 'linalg.copy' on argument #0 of @view_of_argument}}
  linalg.copy ins(%v : memref<4x4xf32, strided<[8, 1]>>) outs(%b : memref<4x4xf32>)
  return
}

// -----

// A host memref.copy reads its source on the host (memrefCopy).
func.func @host_copy(%a: memref<4xf32>) -> memref<4xf32> { // expected-note {{the device memory comes from here}}
  %b = memref.alloc() : memref<4xf32>
  // expected-error @below {{host code reads device memory: 'memref.copy' on argument #0 of @host_copy}}
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return %b : memref<4xf32>
}

// -----

// Across calls: a private helper is checked with what its callers pass; a
// caller passes its own argument.
func.func private @helper(%m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  // expected-error @below {{host code reads device memory: 'memref.load' on argument #0 of @entry}}
  %v = memref.load %m[%c0] : memref<4xf32>
  return %v : f32
}
func.func @entry(%w: memref<4xf32>) -> f32 { // expected-note {{the device memory comes from here}}
  %host = memref.alloc() : memref<4xf32>
  %a = call @helper(%host) : (memref<4xf32>) -> f32
  %b = call @helper(%w) : (memref<4xf32>) -> f32
  %s = arith.addf %a, %b : f32
  return %s : f32
}

// -----

// The result of a call: device memory the callee allocated.
func.func private @make() -> memref<4xf32> {
  %t = gpu.wait async
  %m, %t2 = gpu.alloc async [%t] () : memref<4xf32> // expected-note {{the device memory comes from here}}
  gpu.wait [%t2]
  return %m : memref<4xf32>
}
func.func @reads_result() -> f32 {
  %c0 = arith.constant 0 : index
  %m = call @make() : () -> memref<4xf32>
  // expected-error @below {{host code reads device memory: 'memref.load' on a device allocation}}
  %v = memref.load %m[%c0] : memref<4xf32>
  return %v : f32
}

// -----

// An external function gets the caller's buffer: it runs on the host.
func.func private @printMemrefF32(memref<*xf32>)
func.func @prints_argument(%a: memref<4xf32>) { // expected-note {{the device memory comes from here}}
  %u = memref.cast %a : memref<4xf32> to memref<*xf32>
  // expected-error @below {{host code passes to external function device memory: 'func.call' on argument #0 of @prints_argument}}
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

// -----

// Either branch of an scf.if may be device memory.
func.func @select_buffer(%p: i1, %a: memref<4xf32>) -> f32 { // expected-note {{the device memory comes from here}}
  %c0 = arith.constant 0 : index
  %host = memref.alloca() : memref<4xf32>
  %m = scf.if %p -> memref<4xf32> {
    scf.yield %host : memref<4xf32>
  } else {
    scf.yield %a : memref<4xf32>
  }
  // expected-error @below {{host code reads device memory: 'memref.load' on argument #1 of @select_buffer}}
  %v = memref.load %m[%c0] : memref<4xf32>
  return %v : f32
}

// -----

// Host-visible by construction: host allocations (memref.alloc, alloca),
// constants (memref.get_global) and shared allocations the pipeline made
// on purpose (gpu.alloc host_shared), also through calls, views and
// scf.if; device memory handed to the runtime (launches, gpu.memcpy,
// gpu.memset, deallocation) or read for its address only; and kernels,
// which may read anything. No diagnostic.
// CHECK-LABEL: func.func @host_visible
// CHECK-LABEL: func.func @runtime_and_kernels
module attributes {gpu.container_module} {
  memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
  func.func private @fill(%m: memref<4xf32>, %x: f32) {
    %c0 = arith.constant 0 : index
    memref.store %x, %m[%c0] : memref<4xf32>
    return
  }
  func.func @host_visible(%p: i1, %x: f32) -> f32 {
    %c0 = arith.constant 0 : index
    %a = memref.alloc() : memref<4xf32>
    %b = memref.alloca() : memref<4xf32>
    %g = memref.get_global @table : memref<4xf32>
    %s = gpu.alloc host_shared () : memref<4xf32>
    call @fill(%a, %x) : (memref<4xf32>, f32) -> ()
    call @fill(%s, %x) : (memref<4xf32>, f32) -> ()
    %m = scf.if %p -> memref<4xf32> {
      scf.yield %b : memref<4xf32>
    } else {
      scf.yield %s : memref<4xf32>
    }
    %v = memref.subview %g[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
    %l0 = memref.load %m[%c0] : memref<4xf32>
    %l1 = memref.load %v[%c0] : memref<2xf32, strided<[1], offset: 1>>
    %r = arith.addf %l0, %l1 : f32
    memref.dealloc %a : memref<4xf32>
    return %r : f32
  }
  gpu.module @kernels {
    gpu.func @k(%m: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %m[%c0] : memref<4xf32>
      memref.store %v, %m[%c0] : memref<4xf32>
      gpu.return
    }
  }
  func.func @runtime_and_kernels(%a: memref<4xf32>, %b: memref<4xf32>) -> index {
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %t0 = gpu.wait async
    %t1 = gpu.memcpy async [%t0] %b, %a : memref<4xf32>, memref<4xf32>
    %t2 = gpu.memset async [%t1] %b, %zero : memref<4xf32>, f32
    %t3 = gpu.launch_func async [%t2] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<4xf32>)
    gpu.wait [%t3]
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
      %e = memref.load %a[%c0] : memref<4xf32>
      memref.store %e, %b[%c0] : memref<4xf32>
      gpu.terminator
    }
    %p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
    return %p : index
  }
}
