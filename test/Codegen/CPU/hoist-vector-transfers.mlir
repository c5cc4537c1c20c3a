// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-cpu-hoist-vector-transfers))' | FileCheck %s

// The micro-kernel's accumulator: read before the k loop, carried in a
// register through it, written once after it.
// CHECK-LABEL: func.func @accumulator_is_hoisted
//  CHECK-SAME:   %[[A:.+]]: memref<4x64xf32>, %[[B:.+]]: memref<64x16xf32>, %[[C:.+]]: memref<4x16xf32>
//       CHECK:   %[[INIT:.+]] = vector.transfer_read %[[C]]
//       CHECK:   %[[R:.+]] = scf.for {{.*}} iter_args(%[[ACC:.+]] = %[[INIT]]) -> (vector<4x16xf32>)
//   CHECK-NOT:     vector.transfer_read %[[C]]
//       CHECK:     vector.contract
//   CHECK-NOT:     vector.transfer_write
//       CHECK:     scf.yield
//       CHECK:   vector.transfer_write %[[R]], %[[C]]
func.func @accumulator_is_hoisted(%a: memref<4x64xf32>, %b: memref<64x16xf32>, %c: memref<4x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %c64 step %c1 {
    %va = vector.transfer_read %a[%c0, %k], %pad {in_bounds = [true, true]} : memref<4x64xf32>, vector<4x1xf32>
    %vb = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true, true]} : memref<64x16xf32>, vector<1x16xf32>
    %vc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
    %r = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>],
                          iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>}
         %va, %vb, %vc : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
  }
  return
}

// -----

// Another write to the same buffer inside the loop: hoisting would reorder
// it with the accumulator's, so the transfers stay in the loop.
// CHECK-LABEL: func.func @aliasing_write_is_not_hoisted
//       CHECK:   scf.for
//       CHECK:     vector.transfer_read %{{.+}}[%{{.+}}, %{{.+}}]
//       CHECK:     memref.store
//       CHECK:     vector.transfer_write
func.func @aliasing_write_is_not_hoisted(%c: memref<4x16xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %c8 step %c1 {
    %vc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
    memref.store %x, %c[%c1, %k] : memref<4x16xf32>
    %r = arith.addf %vc, %vc : vector<4x16xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
  }
  return
}

// -----

// A loop that may not run (unknown trip count) keeps its transfers: hoisting
// the read out of a zero-trip loop would read memory the program never reads.
// CHECK-LABEL: func.func @maybe_empty_loop_is_not_hoisted
//       CHECK:   scf.for
//       CHECK:     vector.transfer_read
//       CHECK:     vector.transfer_write
func.func @maybe_empty_loop_is_not_hoisted(%c: memref<4x16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %n step %c1 {
    %vc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<4x16xf32>, vector<4x16xf32>
    %r = arith.addf %vc, %vc : vector<4x16xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32>
  }
  return
}

// -----

// Once hoisted, the micro-kernel's k loop (vector iter_args, an
// outerproduct in its body) is unrolled by k-unroll = 4 (the default): 4
// outer products per step of 4.
// CHECK-LABEL: func.func @k_loop_is_unrolled
//       CHECK:   scf.for {{.*}} to %c64 step %c4 iter_args
// CHECK-COUNT-4:     vector.outerproduct
//   CHECK-NOT:     vector.outerproduct
//       CHECK:     scf.yield
func.func @k_loop_is_unrolled(%a: memref<64x6xf32>, %b: memref<64x16xf32>, %c: memref<6x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %pad = arith.constant 0.0 : f32
  scf.for %k = %c0 to %c64 step %c1 {
    %va = vector.transfer_read %a[%k, %c0], %pad {in_bounds = [true]} : memref<64x6xf32>, vector<6xf32>
    %vb = vector.transfer_read %b[%k, %c0], %pad {in_bounds = [true]} : memref<64x16xf32>, vector<16xf32>
    %vc = vector.transfer_read %c[%c0, %c0], %pad {in_bounds = [true, true]} : memref<6x16xf32>, vector<6x16xf32>
    %r = vector.outerproduct %va, %vb, %vc {kind = #vector.kind<add>} : vector<6xf32>, vector<16xf32>
    vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<6x16xf32>, memref<6x16xf32>
  }
  return
}
