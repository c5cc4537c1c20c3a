// RUN: xpu-opt %s --split-input-file --xpu-spirv-legalize-huge-memrefs | FileCheck %s

// A kernel argument of 2^32 elements gets a dynamic leading dimension
// (convert-gpu-to-spirv held its array length in 32 bits: 0); its strides
// stay static, and the launch casts the operand. The small argument stays.
// CHECK-LABEL: func.func @launch
//  CHECK-SAME:   (%[[BIG:.*]]: memref<65536x65536xf32>, %[[SMALL:.*]]: memref<16xf32>)
//       CHECK:   %[[CAST:.*]] = memref.cast %[[BIG]] : memref<65536x65536xf32> to memref<?x65536xf32, strided<[65536, 1]>>
//       CHECK:   gpu.launch_func @kernels::@k {{.*}} args(%[[CAST]] : memref<?x65536xf32, strided<[65536, 1]>>, %[[SMALL]] : memref<16xf32>)
//       CHECK: gpu.func @k(%[[A:.*]]: memref<?x65536xf32, strided<[65536, 1]>>, %{{.*}}: memref<16xf32>) kernel
//       CHECK:   memref.store %{{.*}}, %[[A]][%{{.*}}, %{{.*}}] : memref<?x65536xf32, strided<[65536, 1]>>
module attributes {gpu.container_module} {
  func.func @launch(%big: memref<65536x65536xf32>, %small: memref<16xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%big : memref<65536x65536xf32>, %small : memref<16xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @k(%a: memref<65536x65536xf32>, %s: memref<16xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c7 = arith.constant 7 : index
      %v = memref.load %s[%c0] : memref<16xf32>
      memref.store %v, %a[%c7, %c0] : memref<65536x65536xf32>
      gpu.return
    }
  }
}

// -----

// A 1-D argument keeps its layout; 2^31 - 1 elements fit and stay static.
// CHECK-LABEL: gpu.func @k1
//  CHECK-SAME:   memref<?xf32>
//  CHECK-SAME:   memref<2147483647xi8>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k1(%a: memref<4294967296xf32>, %b: memref<2147483647xi8>) kernel {
      gpu.return
    }
  }
}
