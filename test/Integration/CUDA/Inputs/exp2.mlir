// exp2: |x| from 1e-6 to 160, both signs: the tails overflow (x >= 128) and underflow into subnormals and 0 (x < -126).
// A sweep of test/Integration/CPU/math/Inputs/sweep.mlir (fast-math.test).

func.func private @sweep_bounds() -> (f32, f32, i1) {
  %lo = arith.constant 1.0e-6 : f32
  %hi = arith.constant 160.0 : f32
  %signed = arith.constant true
  return %lo, %hi, %signed : f32, f32, i1
}

func.func @forward(%x: tensor<65536xf32>) -> tensor<65536xf32> {
  %e = tensor.empty() : tensor<65536xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<65536xf32>) outs(%e : tensor<65536xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = math.exp2 %in : f32
    linalg.yield %r : f32
  } -> tensor<65536xf32>
  return %y : tensor<65536xf32>
}
