// nn.Linear(72, 56) on x: [40, 72] written as one linalg.matmul whose
// indexing maps read the [N, K] weight transposed (MLIR 22's
// transposed-B matmul: no separate linalg.transpose), plus the bias.
// The model as torch-mlir emits it, compiled without and with xpu-optimize
// (xpu-cpu-pipeline's default), both against the same float64 NumPy
// reference.
// DEFINE: %{check} = %refcheck --input x=40x72@1 --input w=56x72@2 --input b=56@3 \
// DEFINE:     --expr "x @ w.T + b" \
// DEFINE:     --tol 1e-5
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=optimize=false | %{check}
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#mapA = affine_map<(d0, d1, d2) -> (d0, d2)>
#mapB = affine_map<(d0, d1, d2) -> (d1, d2)>
#mapC = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @forward(%x: tensor<40x72xf32>, %w: tensor<56x72xf32> {xpu.weight}, %b: tensor<56xf32> {xpu.weight}) -> tensor<40x56xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<40x56xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<40x56xf32>) -> tensor<40x56xf32>
  %mm = linalg.matmul indexing_maps = [#mapA, #mapB, #mapC]
      ins(%x, %w : tensor<40x72xf32>, tensor<56x72xf32>) outs(%z : tensor<40x56xf32>) -> tensor<40x56xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<40x56xf32>, tensor<56xf32>) outs(%e1 : tensor<40x56xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<40x56xf32>
  return %biased : tensor<40x56xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c40 = arith.constant 40 : index
  %c56 = arith.constant 56 : index
  %c72 = arith.constant 72 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd = call @gen2(%c40, %c72, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c56, %c72, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c56, %s3) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<40x72xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<56x72xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<56xf32>
  %y = call @forward(%x, %w, %b)
      : (tensor<40x72xf32>, tensor<56x72xf32>, tensor<56xf32>) -> tensor<40x56xf32>
  %u = tensor.cast %y : tensor<40x56xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
