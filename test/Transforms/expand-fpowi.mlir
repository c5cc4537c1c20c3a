// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-expand-fpowi))' | FileCheck %s

// A constant exponent (GELU's x ** 3 as torch-mlir emits it): multiplications.
// CHECK-LABEL: func.func @cube
//  CHECK-SAME:   (%[[X:.+]]: f32)
//       CHECK:   %[[SQ:.+]] = arith.mulf %[[X]], %[[X]] : f32
//       CHECK:   %[[CU:.+]] = arith.mulf %[[SQ]], %[[X]] : f32
//   CHECK-NOT:   math.fpowi
//       CHECK:   return %[[CU]]
func.func @cube(%x: f32) -> f32 {
  %c3 = arith.constant 3 : i64
  %r = math.fpowi %x, %c3 : f32, i64
  return %r : f32
}

// -----

// The vector form, which convert-math-to-llvm rejects.
// CHECK-LABEL: func.func @cube_vector
//       CHECK:   arith.mulf {{.*}} : vector<16xf32>
//       CHECK:   arith.mulf {{.*}} : vector<16xf32>
//   CHECK-NOT:   math.fpowi
func.func @cube_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %c3 = arith.constant dense<3> : vector<16xi64>
  %r = math.fpowi %x, %c3 : vector<16xf32>, vector<16xi64>
  return %r : vector<16xf32>
}

// -----

// A negative constant exponent: 1 / x^2, with the IEEE results for zeros.
// CHECK-LABEL: func.func @inverse_square
//       CHECK:   arith.mulf
//       CHECK:   arith.divf
//   CHECK-NOT:   math.fpowi
func.func @inverse_square(%x: f32) -> f32 {
  %c = arith.constant -2 : i32
  %r = math.fpowi %x, %c : f32, i32
  return %r : f32
}

// -----

// Any other exponent: powf of |x|, with the sign of x copied when n is odd.
// CHECK-LABEL: func.func @runtime_exponent
//  CHECK-SAME:   (%[[X:.+]]: f64, %[[N:.+]]: i32)
//       CHECK:   %[[F:.+]] = arith.sitofp %[[N]] : i32 to f64
//       CHECK:   %[[A:.+]] = math.absf %[[X]] : f64
//       CHECK:   %[[P:.+]] = math.powf %[[A]], %[[F]] : f64
//       CHECK:   %[[S:.+]] = math.copysign %[[P]], %[[X]] : f64
//       CHECK:   %[[LOW:.+]] = arith.andi %[[N]], %{{.+}} : i32
//       CHECK:   %[[ODD:.+]] = arith.cmpi eq, %[[LOW]], %{{.+}} : i32
//       CHECK:   %[[R:.+]] = arith.select %[[ODD]], %[[S]], %[[P]] : f64
//       CHECK:   return %[[R]]
func.func @runtime_exponent(%x: f64, %n: i32) -> f64 {
  %r = math.fpowi %x, %n : f64, i32
  return %r : f64
}

// -----

// Negative case: math.powf is left alone (the backends lower it).
// CHECK-LABEL: func.func @powf_untouched
//       CHECK:   math.powf
func.func @powf_untouched(%x: f32, %y: f32) -> f32 {
  %r = math.powf %x, %y : f32
  return %r : f32
}
