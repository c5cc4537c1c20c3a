// Accuracy of math.erf as the CPU pipeline compiles it (vectorized, with
// the polynomial approximation of xpu-cpu-approximate-math), against NumPy /
// Python's math in float64, in f32 ulps at the reference value.
// Sweep (65536 points, uniform in bit pattern): erf: |x| from 1e-6 (erf(x) ~ 2x/sqrt(pi)) to 10 (saturated at +-1), both signs.
// RUN: cat %s %S/Inputs/sweep.mlir | xpu-run -e main -entry-point-result=void \
// RUN:   | %mathcheck erf --tol-ulp 5

func.func private @sweep_bounds() -> (f32, f32, i1) {
  %lo = arith.constant 1.0e-6 : f32
  %hi = arith.constant 10.0 : f32
  %signed = arith.constant true
  return %lo, %hi, %signed : f32, f32, i1
}

func.func @forward(%x: tensor<65536xf32>) -> tensor<65536xf32> {
  %e = tensor.empty() : tensor<65536xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<65536xf32>) outs(%e : tensor<65536xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.erf %in : f32
    linalg.yield %r : f32
  } -> tensor<65536xf32>
  return %y : tensor<65536xf32>
}
