// nn.Linear(97, 67) followed by nn.ReLU() on x: [131, 97]: M, N, K =
// 131, 67, 97 are primes, so no cache or register tile divides them and
// every tiled loop has a partial last tile.
// The model as torch-mlir emits it, compiled without and with xpu-optimize
// (xpu-cpu-pipeline's default), both against the same float64 NumPy
// reference.
// DEFINE: %{check} = %refcheck --input x=131x97@1 --input w=67x97@2 --input b=67@3 \
// DEFINE:     --expr "np.maximum(x @ w.T + b, 0)" \
// DEFINE:     --tol 1e-5
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=optimize=false | %{check}
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<131x97xf32>, %w: tensor<67x97xf32> {xpu.weight}, %b: tensor<67xf32> {xpu.weight}) -> tensor<131x67xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<97x67xf32>
  %wt = linalg.transpose ins(%w : tensor<67x97xf32>) outs(%e0 : tensor<97x67xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<131x67xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<131x67xf32>) -> tensor<131x67xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<131x97xf32>, tensor<97x67xf32>) outs(%z : tensor<131x67xf32>) -> tensor<131x67xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<131x67xf32>, tensor<67xf32>) outs(%e1 : tensor<131x67xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<131x67xf32>
  %act = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<131x67xf32>) outs(%e1 : tensor<131x67xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf ugt, %in, %cst : f32
    %1 = arith.select %0, %in, %cst : f32
    linalg.yield %1 : f32
  } -> tensor<131x67xf32>
  return %act : tensor<131x67xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c67 = arith.constant 67 : index
  %c97 = arith.constant 97 : index
  %c131 = arith.constant 131 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd = call @gen2(%c131, %c97, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c67, %c97, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c67, %s3) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<131x97xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<67x97xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<67xf32>
  %y = call @forward(%x, %w, %b)
      : (tensor<131x97xf32>, tensor<67x97xf32>, tensor<67xf32>) -> tensor<131x67xf32>
  %u = tensor.cast %y : tensor<131x67xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
