// RUN: xpu-opt %s --split-input-file --xpu-guard-zero-trip-loops | FileCheck %s

// A loop with results whose trip count is not known: put under lb < ub,
// with the init values otherwise (a Stream-K fix-up summing slots 1 ..
// count of a tile with one piece runs zero times).
// CHECK-LABEL: func.func @dynamic_bounds
//  CHECK-SAME:   %[[LB:[^:]+]]: index, %[[UB:[^:]+]]: index, %[[INIT:[^:]+]]: f32
//       CHECK:   %[[RUNS:.+]] = arith.cmpi slt, %[[LB]], %[[UB]] : index
//       CHECK:   %[[R:.+]] = scf.if %[[RUNS]] -> (f32) {
//       CHECK:     %[[L:.+]] = scf.for %{{.+}} = %[[LB]] to %[[UB]] step %{{.+}} iter_args(%{{.+}} = %[[INIT]]) -> (f32)
//       CHECK:     scf.yield %[[L]] : f32
//       CHECK:   } else {
//       CHECK:     scf.yield %[[INIT]] : f32
//       CHECK:   return %[[R]]
func.func @dynamic_bounds(%lb: index, %ub: index, %init: f32) -> f32 {
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %lb to %ub step %c1 iter_args(%acc = %init) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// -----

// An unsigned loop compares unsigned.
// CHECK-LABEL: func.func @unsigned_bounds
//       CHECK:   arith.cmpi ult
//       CHECK:   scf.if
//       CHECK:     scf.for unsigned
func.func @unsigned_bounds(%lb: index, %ub: index, %init: f32) -> f32 {
  %c1 = arith.constant 1 : index
  %r = scf.for unsigned %i = %lb to %ub step %c1 iter_args(%acc = %init) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  return %r : f32
}

// -----

// Left alone: a loop with constant bounds that runs, and a loop without
// results.
// CHECK-LABEL: func.func @left_alone
//   CHECK-NOT:   scf.if
//       CHECK:   scf.for
//   CHECK-NOT:   scf.if
//       CHECK:   scf.for
//   CHECK-NOT:   scf.if
func.func @left_alone(%lb: index, %ub: index, %init: f32, %m: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  scf.for %i = %lb to %ub step %c1 {
    memref.store %init, %m[%c0] : memref<4xf32>
  }
  return %r : f32
}

// -----

// Constant bounds that never run are guarded too (the condition folds
// later).
// CHECK-LABEL: func.func @constant_zero_trip
//       CHECK:   scf.if
func.func @constant_zero_trip(%init: f32) -> f32 {
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c1 to %c1 step %c1 iter_args(%acc = %init) -> (f32) {
    %s = arith.addf %acc, %acc : f32
    scf.yield %s : f32
  }
  return %r : f32
}
