// Linear + BatchNorm(eval) + ReLU as torch-mlir emits it, run through
// xpu-cpu-pipeline and compared with a float64 NumPy reference.
// The model as torch-mlir emits it, compiled without and with xpu-optimize
// (xpu-cpu-pipeline's default), both against the same float64 NumPy
// reference.
// DEFINE: %{check} = %refcheck --input x=16x64@1 --input w=32x64@2 --input b=32@3 \
// DEFINE:     --input gamma=32@4 --input beta=32@5 --input mean=32@6 --input var=32@7:pos \
// DEFINE:     --expr "np.maximum((x @ w.T + b - mean) / np.sqrt(var + 1e-5) * gamma + beta, 0)" \
// DEFINE:     --tol 1e-5
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=optimize=false | %{check}
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0) -> (d0)>
func.func @forward(%x: tensor<16x64xf32>, %w: tensor<32x64xf32> {xpu.weight}, %b: tensor<32xf32> {xpu.weight},
                   %gamma: tensor<32xf32> {xpu.weight}, %beta: tensor<32xf32> {xpu.weight},
                   %mean: tensor<32xf32> {xpu.weight}, %var: tensor<32xf32> {xpu.weight}) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %eps = arith.constant 1.000000e-05 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e0 = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%e0 : tensor<64x32xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<16x64xf32>, tensor<64x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e1 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  %e2 = tensor.empty() : tensor<32xf32>
  %invstd = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]}
      ins(%var : tensor<32xf32>) outs(%e2 : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %eps : f32
    %1 = math.sqrt %0 : f32
    %2 = arith.cmpf one, %1, %cst : f32
    cf.assert %2, "unimplemented: tensor with zero element"
    %3 = arith.divf %one, %1 : f32
    linalg.yield %3 : f32
  } -> tensor<32xf32>
  %bn = linalg.generic {indexing_maps = [#map, #map1, #map1, #map1, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%biased, %mean, %invstd, %gamma, %beta : tensor<16x32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>)
      outs(%e1 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %g: f32, %bt: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = arith.mulf %0, %s : f32
    %2 = arith.mulf %1, %g : f32
    %3 = arith.addf %2, %bt : f32
    linalg.yield %3 : f32
  } -> tensor<16x32xf32>
  %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%bn : tensor<16x32xf32>) outs(%e1 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf ugt, %in, %cst : f32
    %1 = arith.select %0, %in, %cst : f32
    linalg.yield %1 : f32
  } -> tensor<16x32xf32>
  return %relu : tensor<16x32xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %s4 = arith.constant 4 : i64
  %s5 = arith.constant 5 : i64
  %s6 = arith.constant 6 : i64
  %s7 = arith.constant 7 : i64
  %xd = call @gen2(%c16, %c64, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c32, %c64, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c32, %s3) : (index, i64) -> tensor<?xf32>
  %gd = call @gen1(%c32, %s4) : (index, i64) -> tensor<?xf32>
  %btd = call @gen1(%c32, %s5) : (index, i64) -> tensor<?xf32>
  %md = call @gen1(%c32, %s6) : (index, i64) -> tensor<?xf32>
  %vd = call @gen1pos(%c32, %s7) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<16x64xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<32x64xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<32xf32>
  %g = tensor.cast %gd : tensor<?xf32> to tensor<32xf32>
  %bt = tensor.cast %btd : tensor<?xf32> to tensor<32xf32>
  %m = tensor.cast %md : tensor<?xf32> to tensor<32xf32>
  %v = tensor.cast %vd : tensor<?xf32> to tensor<32xf32>
  %y = call @forward(%x, %w, %b, %g, %bt, %m, %v)
      : (tensor<16x64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  %u = tensor.cast %y : tensor<16x32xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
