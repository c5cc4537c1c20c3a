// nn.Linear(48, 36) followed by nn.BatchNorm1d(36) in eval mode, on
// x: [20, 48], in the form where the per-channel vectors are
// tensor.expand_shape'd to [1, C] and broadcast with (d0, d1) -> (0, d1),
// with (y - mean) * rsqrt(var + eps) * gamma + beta in one generic.
// The model as torch-mlir emits it, compiled without and with xpu-optimize
// (xpu-cpu-pipeline's default), both against the same float64 NumPy
// reference.
// DEFINE: %{check} = %refcheck --input x=20x48@1 --input w=36x48@2 --input b=36@3 \
// DEFINE:     --input gamma=36@4 --input beta=36@5 --input mean=36@6 \
// DEFINE:     --input var=36@7:pos \
// DEFINE:     --expr "(x @ w.T + b - mean) / np.sqrt(var + 1e-5) * gamma + beta" \
// DEFINE:     --tol 1e-5
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=optimize=false | %{check}
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0, d1) -> (0, d1)>
func.func @forward(%x: tensor<20x48xf32>, %w: tensor<36x48xf32> {xpu.weight}, %b: tensor<36xf32> {xpu.weight},
                   %gamma: tensor<36xf32> {xpu.weight}, %beta: tensor<36xf32> {xpu.weight},
                   %mean: tensor<36xf32> {xpu.weight}, %var: tensor<36xf32> {xpu.weight}) -> tensor<20x36xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %eps = arith.constant 1.000000e-05 : f32
  %e0 = tensor.empty() : tensor<48x36xf32>
  %wt = linalg.transpose ins(%w : tensor<36x48xf32>) outs(%e0 : tensor<48x36xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<20x36xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<20x36xf32>) -> tensor<20x36xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<20x48xf32>, tensor<48x36xf32>) outs(%z : tensor<20x36xf32>) -> tensor<20x36xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<20x36xf32>, tensor<36xf32>) outs(%e1 : tensor<20x36xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<20x36xf32>
  %mean2 = tensor.expand_shape %mean [[0, 1]] output_shape [1, 36] : tensor<36xf32> into tensor<1x36xf32>
  %var2 = tensor.expand_shape %var [[0, 1]] output_shape [1, 36] : tensor<36xf32> into tensor<1x36xf32>
  %gamma2 = tensor.expand_shape %gamma [[0, 1]] output_shape [1, 36] : tensor<36xf32> into tensor<1x36xf32>
  %beta2 = tensor.expand_shape %beta [[0, 1]] output_shape [1, 36] : tensor<36xf32> into tensor<1x36xf32>
  %bn = linalg.generic {indexing_maps = [#map, #map2, #map2, #map2, #map2, #map], iterator_types = ["parallel", "parallel"]}
      ins(%biased, %mean2, %var2, %gamma2, %beta2 : tensor<20x36xf32>, tensor<1x36xf32>, tensor<1x36xf32>, tensor<1x36xf32>, tensor<1x36xf32>)
      outs(%e1 : tensor<20x36xf32>) {
  ^bb0(%in: f32, %m: f32, %v: f32, %g: f32, %bt: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = arith.addf %v, %eps : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.mulf %0, %2 : f32
    %4 = arith.mulf %3, %g : f32
    %5 = arith.addf %4, %bt : f32
    linalg.yield %5 : f32
  } -> tensor<20x36xf32>
  return %bn : tensor<20x36xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c20 = arith.constant 20 : index
  %c36 = arith.constant 36 : index
  %c48 = arith.constant 48 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %s4 = arith.constant 4 : i64
  %s5 = arith.constant 5 : i64
  %s6 = arith.constant 6 : i64
  %s7 = arith.constant 7 : i64
  %xd = call @gen2(%c20, %c48, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c36, %c48, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c36, %s3) : (index, i64) -> tensor<?xf32>
  %gammad = call @gen1(%c36, %s4) : (index, i64) -> tensor<?xf32>
  %betad = call @gen1(%c36, %s5) : (index, i64) -> tensor<?xf32>
  %meand = call @gen1(%c36, %s6) : (index, i64) -> tensor<?xf32>
  %vard = call @gen1pos(%c36, %s7) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<20x48xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<36x48xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<36xf32>
  %gamma = tensor.cast %gammad : tensor<?xf32> to tensor<36xf32>
  %beta = tensor.cast %betad : tensor<?xf32> to tensor<36xf32>
  %mean = tensor.cast %meand : tensor<?xf32> to tensor<36xf32>
  %var = tensor.cast %vard : tensor<?xf32> to tensor<36xf32>
  %y = call @forward(%x, %w, %b, %gamma, %beta, %mean, %var)
      : (tensor<20x48xf32>, tensor<36x48xf32>, tensor<36xf32>, tensor<36xf32>, tensor<36xf32>, tensor<36xf32>, tensor<36xf32>) -> tensor<20x36xf32>
  %u = tensor.cast %y : tensor<20x36xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
