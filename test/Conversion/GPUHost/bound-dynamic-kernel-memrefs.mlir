// RUN: xpu-opt %s --split-input-file --xpu-bound-dynamic-kernel-memrefs --verify-diagnostics | FileCheck %s

// A kernel over a dynamic batch: its memref arguments with a dynamic
// leading dimension (static strides) get a static bound, 2^31 - 1 rows
// here, and each launch reinterprets its operand with that shape. The
// kernel's memref.dim of the leading dimension (outlining sinks them) reads
// a new index argument instead, which the launch computes on the host; the
// static dimension folds to a constant. A static argument is left alone.
// CHECK-LABEL: gpu.module @kernels
// CHECK: gpu.func @scale(%[[X:.*]]: memref<2147483647x48xf32>, %[[Y:.*]]: memref<2147483647x48xf32>, %[[S:.*]]: memref<48xf32>, %[[ROWS:.*]]: index) kernel
// CHECK-NOT: memref.dim
// CHECK: arith.muli %[[ROWS]], %c48
// CHECK: memref.load %[[X]]
// CHECK: memref.store %{{.*}}, %[[Y]]
// CHECK-LABEL: func.func @host(
// CHECK-SAME: %[[HX:.*]]: memref<?x48xf32>, %[[HY:.*]]: memref<?x48xf32>, %[[HS:.*]]: memref<48xf32>)
// CHECK: %[[HROWS:.*]] = memref.dim %[[HX]], %c0 : memref<?x48xf32>
// CHECK: %[[BX:.*]] = memref.reinterpret_cast %[[HX]] to offset: [0], sizes: [2147483647, 48], strides: [48, 1] : memref<?x48xf32> to memref<2147483647x48xf32>
// CHECK: %[[BY:.*]] = memref.reinterpret_cast %[[HY]] to offset: [0], sizes: [2147483647, 48], strides: [48, 1]
// CHECK: gpu.launch_func @kernels::@scale {{.*}} args(%[[BX]] : memref<2147483647x48xf32>, %[[BY]] : memref<2147483647x48xf32>, %[[HS]] : memref<48xf32>, %[[HROWS]] : index)
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<?x48xf32>, %y: memref<?x48xf32>, %s: memref<48xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %rows = memref.dim %x, %c0 : memref<?x48xf32>
      %cols = memref.dim %x, %c1 : memref<?x48xf32>
      %n = arith.muli %rows, %cols : index
      %id = gpu.global_id x
      %in = arith.cmpi ult, %id, %n : index
      scf.if %in {
        %r = arith.divui %id, %cols : index
        %c = arith.remui %id, %cols : index
        %v = memref.load %x[%r, %c] : memref<?x48xf32>
        %w = memref.load %s[%c] : memref<48xf32>
        %p = arith.mulf %v, %w : f32
        memref.store %p, %y[%r, %c] : memref<?x48xf32>
      }
      gpu.return
    }
  }
  func.func @host(%x: memref<?x48xf32>, %y: memref<?x48xf32>, %s: memref<48xf32>) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func @kernels::@scale blocks in (%c1, %c1, %c1) threads in (%c256, %c1, %c1) args(%x : memref<?x48xf32>, %y : memref<?x48xf32>, %s : memref<48xf32>)
    return
  }
}

// -----

// A memref.dim at an index known only at run time cannot be rewritten.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @read_any(%x: memref<?x48xf32>, %d: index) kernel {
      // expected-error @below {{xpu-bound-dynamic-kernel-memrefs: a dimension read at a non-constant index of kernel argument #0}}
      %n = memref.dim %x, %d : memref<?x48xf32>
      gpu.return
    }
  }
}
