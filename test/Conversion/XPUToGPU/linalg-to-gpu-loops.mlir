// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops | FileCheck %s

// A static, identity-layout linalg op becomes scf.parallel loops (later
// mapped to a gpu.launch).
// CHECK-LABEL: func.func @static_matmul_becomes_parallel
//   CHECK-NOT:   linalg.matmul
//       CHECK:   scf.parallel
//       CHECK:     scf.for
func.func @static_matmul_becomes_parallel(%a: memref<8x4xf32>, %b: memref<4x6xf32>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x6xf32>) outs(%c : memref<8x6xf32>)
  return
}

// -----

// Dynamic shapes stay on the host (they cannot be bare-pointer kernel args).
// CHECK-LABEL: func.func @dynamic_stays_on_host
//       CHECK:   linalg.fill
//   CHECK-NOT:   scf.parallel
func.func @dynamic_stays_on_host(%c: memref<?x6xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<?x6xf32>)
  return
}

// -----

// A body that calls a function cannot become a kernel.
func.func private @value(%i: index) -> f32
// CHECK-LABEL: func.func @call_in_body_stays_on_host
//       CHECK:   linalg.generic
//   CHECK-NOT:   scf.parallel
func.func @call_in_body_stays_on_host(%c: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%c : memref<4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = func.call @value(%i) : (index) -> f32
    linalg.yield %v : f32
  }
  return
}
