// RUN: xpu-opt %s --pass-pipeline='builtin.module(gpu.module(xpu-xe-approximate-math))' | FileCheck %s

// erf in a kernel (GELU in a SIMT kernel) becomes a polynomial: XeVM has no
// lowering for it. exp, which it has, stays.
// CHECK-LABEL: gpu.func @gelu
//   CHECK-NOT:   math.erf
//       CHECK:   math.exp
//       CHECK:   gpu.return
gpu.module @m {
  gpu.func @gelu(%x: f32, %p: memref<2xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %e = math.erf %x : f32
    %x2 = math.exp %x : f32
    memref.store %e, %p[%c0] : memref<2xf32>
    memref.store %x2, %p[%c1] : memref<2xf32>
    gpu.return
  }
}
