// RUN: xpu-opt %s --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-approximate-math))' \
// RUN:   | FileCheck %s

// The default functions on vectors become polynomials in vector arithmetic:
// no math.exp / math.erf / math.tanh is left for math-to-libm to unroll into
// one scalar call per lane.
// CHECK-LABEL: func.func @vector_epilogue_math
//   CHECK-NOT:   math.exp
//   CHECK-NOT:   math.erf
//   CHECK-NOT:   math.tanh
//       CHECK:   math.fma {{.*}} : vector<16xf32>
//       CHECK:   return {{.*}} : vector<16xf32>
func.func @vector_epilogue_math(%x: vector<16xf32>) -> vector<16xf32> {
  %e = math.exp %x : vector<16xf32>
  %g = math.erf %e : vector<16xf32>
  %t = math.tanh %g : vector<16xf32>
  return %t : vector<16xf32>
}

// -----

// Functions outside the selection keep their op: math.sqrt has an LLVM
// intrinsic that vectorizes; math.sin is not approximated by default.
// CHECK-LABEL: func.func @sqrt_and_sin_are_untouched
//       CHECK:   math.sqrt %{{.*}} : vector<8xf32>
//       CHECK:   math.sin %{{.*}} : vector<8xf32>
func.func @sqrt_and_sin_are_untouched(%x: vector<8xf32>) -> vector<8xf32> {
  %s = math.sqrt %x : vector<8xf32>
  %t = math.sin %s : vector<8xf32>
  return %t : vector<8xf32>
}

// -----

// Scalars are approximated too (the remainders of vector loops).
// CHECK-LABEL: func.func @scalar_log1p
//   CHECK-NOT:   math.log1p
//       CHECK:   return %{{.*}} : f32
func.func @scalar_log1p(%x: f32) -> f32 {
  %l = math.log1p %x : f32
  return %l : f32
}
