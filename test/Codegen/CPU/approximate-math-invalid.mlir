// RUN: xpu-opt %s -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-approximate-math{functions=exp,tan}))'

// A function without an upstream polynomial approximation is an error that
// lists the ones there are.
// expected-error @+1 {{xpu-cpu-approximate-math: no approximation of 'tan'; known: acos, asin, atan, atan2, cbrt, cos, erf, erfc, exp, expm1, log, log1p, log2, sin, tanh}}
func.func @unknown_function(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}
