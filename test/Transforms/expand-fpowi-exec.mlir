// The general lowering of math.fpowi (an exponent known only at run time)
// runs on the CPU and matches NumPy's x ** n in float64, signs included.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xpu-run %s --function=pow --input="6xf32=-2 -1.5 -0.5 0.5 1.5 2" --input="6xi32=3 2 -1 -3 4 5" --output=@%t/y.npy
// RUN: %python -c "import numpy as np; x = np.array([-2, -1.5, -0.5, 0.5, 1.5, 2.0]); n = np.array([3, 2, -1, -3, 4, 5]); y = np.load('%t/y.npy'); ref = x ** n.astype(float); err = np.max(np.abs(y - ref) / np.abs(ref)); print('PASS' if err <= 1e-6 else 'FAIL', err); assert err <= 1e-6"
func.func @pow(%x: tensor<6xf32>, %n: tensor<6xi32>) -> tensor<6xf32> {
  %e = tensor.empty() : tensor<6xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x, %n : tensor<6xf32>, tensor<6xi32>) outs(%e : tensor<6xf32>) {
  ^bb0(%a: f32, %b: i32, %out: f32):
    %0 = math.fpowi %a, %b : f32, i32
    linalg.yield %0 : f32
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}
