// RUN: xpu-opt %s --pass-pipeline='builtin.module(gpu.module(xpu-lower-subgroup-reduce))' | FileCheck %s
// RUN: xpu-opt %s --pass-pipeline='builtin.module(gpu.module(xpu-lower-subgroup-reduce{subgroup-size=16}))' | FileCheck %s --check-prefix=SG16

// A warp's f32 sum: log2(32) = 5 butterfly steps (xor 1, 2, 4, 8, 16), each
// a shuffle and an add; an i32 max the same with arith.maxsi.
// CHECK-LABEL: gpu.func @sum
//   CHECK-NOT:   gpu.subgroup_reduce
//       CHECK:   gpu.shuffle  xor %{{.+}}, %c1_i32, %c32_i32
//       CHECK:   arith.addf
//       CHECK:   gpu.shuffle  xor %{{.+}}, %c2_i32, %c32_i32
//       CHECK:   gpu.shuffle  xor %{{.+}}, %c4_i32, %c32_i32
//       CHECK:   gpu.shuffle  xor %{{.+}}, %c8_i32, %c32_i32
//       CHECK:   gpu.shuffle  xor %{{.+}}, %c16_i32, %c32_i32
//       CHECK:   arith.addf
//       CHECK:   gpu.shuffle  xor %{{.+}}, %c1_i32, %c32_i32 : i32
//       CHECK:   arith.maxsi
// CHECK-COUNT-4:   gpu.shuffle  xor
//   CHECK-NOT:   gpu.shuffle
// Subgroups of 16 lanes: 4 steps, the last xor 8.
// SG16-LABEL: gpu.func @sum
//       SG16:   gpu.shuffle  xor %{{.+}}, %c8_i32, %c16_i32 : f32
//       SG16:   arith.addf
//  SG16-NEXT:   gpu.shuffle  xor %{{.+}}, %c1_i32, %c16_i32 : i32
gpu.module @kernels {
  gpu.func @sum(%x: f32, %y: i32, %out: memref<2xf32>, %outi: memref<1xi32>) kernel {
    %s = gpu.subgroup_reduce add %x uniform : (f32) -> f32
    %m = gpu.subgroup_reduce maxsi %y uniform : (i32) -> i32
    %c0 = arith.constant 0 : index
    memref.store %s, %out[%c0] : memref<2xf32>
    memref.store %m, %outi[%c0] : memref<1xi32>
    gpu.return
  }
}
