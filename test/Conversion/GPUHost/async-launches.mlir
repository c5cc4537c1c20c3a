// RUN: xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-async-launches))' | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @f(%m: memref<4xf32>) kernel { gpu.return }
  }

  // Launches chain on one token; allocating between them does not stop the
  // host, reading a result does; the terminator waits for the rest.
  // CHECK-LABEL: func.func @chain(
  // CHECK: %[[T0:.*]] = gpu.wait async
  // CHECK: %[[T1:.*]] = gpu.launch_func async [%[[T0]]] @k::@f
  // CHECK: %[[B:.*]] = memref.alloc()
  // CHECK: %[[T2:.*]] = gpu.launch_func async [%[[T1]]] @k::@f
  // CHECK-NEXT: gpu.wait [%[[T2]]]
  // CHECK-NEXT: memref.load %[[B]]
  // CHECK: %[[T3:.*]] = gpu.wait async
  // CHECK: %[[T4:.*]] = gpu.launch_func async [%[[T3]]] @k::@f
  // CHECK-NEXT: gpu.wait [%[[T4]]]
  // CHECK-NEXT: return
  func.func @chain(%a: memref<4xf32>, %n: index) -> f32 {
    %c0 = arith.constant 0 : index
    gpu.launch_func @k::@f blocks in (%n, %n, %n) threads in (%n, %n, %n) args(%a : memref<4xf32>)
    %b = memref.alloc() : memref<4xf32>
    gpu.launch_func @k::@f blocks in (%n, %n, %n) threads in (%n, %n, %n) args(%b : memref<4xf32>)
    %v = memref.load %b[%c0] : memref<4xf32>
    gpu.launch_func @k::@f blocks in (%n, %n, %n) threads in (%n, %n, %n) args(%b : memref<4xf32>)
    return %v : f32
  }

  // Already asynchronous launches are the user's: left alone.
  // CHECK-LABEL: func.func @user_async(
  // CHECK: %[[U:.*]] = gpu.wait async
  // CHECK-NEXT: %[[L:.*]] = gpu.launch_func async [%[[U]]] @k::@f
  // CHECK-NEXT: gpu.wait [%[[L]]]
  // CHECK-NEXT: return
  func.func @user_async(%a: memref<4xf32>, %n: index) {
    %t = gpu.wait async
    %l = gpu.launch_func async [%t] @k::@f blocks in (%n, %n, %n) threads in (%n, %n, %n) args(%a : memref<4xf32>)
    gpu.wait [%l]
    return
  }
}
