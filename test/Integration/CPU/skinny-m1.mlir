// nn.Linear(256, 96) on a single row x: [1, 256] (M = 1, GEMV-like).
// The model as torch-mlir emits it, compiled without and with xpu-optimize
// (xpu-cpu-pipeline's default), both against the same float64 NumPy
// reference.
// DEFINE: %{check} = %refcheck --input x=1x256@1 --input w=96x256@2 --input b=96@3 \
// DEFINE:     --expr "x @ w.T + b" \
// DEFINE:     --tol 1e-5
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=optimize=false | %{check}
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<1x256xf32>, %w: tensor<96x256xf32> {xpu.weight}, %b: tensor<96xf32> {xpu.weight}) -> tensor<1x96xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<256x96xf32>
  %wt = linalg.transpose ins(%w : tensor<96x256xf32>) outs(%e0 : tensor<256x96xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<1x96xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<1x96xf32>) -> tensor<1x96xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<1x256xf32>, tensor<256x96xf32>) outs(%z : tensor<1x96xf32>) -> tensor<1x96xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<1x96xf32>, tensor<96xf32>) outs(%e1 : tensor<1x96xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<1x96xf32>
  return %biased : tensor<1x96xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c96 = arith.constant 96 : index
  %c256 = arith.constant 256 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd = call @gen2(%c1, %c256, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c96, %c256, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c96, %s3) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<1x256xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<96x256xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<96xf32>
  %y = call @forward(%x, %w, %b)
      : (tensor<1x256xf32>, tensor<96x256xf32>, tensor<96xf32>) -> tensor<1x96xf32>
  %u = tensor.cast %y : tensor<1x96xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
