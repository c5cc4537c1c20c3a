// torch.bmm(a, b) + bias with a: [3, 13, 77], b: [3, 77, 290]: three
// batches (the parallel loop of the packed batched GEMM), M = 13 and
// N = 290 cut by the 6-row and 16-column panels, K = 77 not a multiple of
// the k unroll. Single-threaded, on 2 threads and with the default thread
// count, against the same float64 NumPy reference.
// DEFINE: %{check} = %refcheck --input a=3x13x77@1 --input bm=3x77x290@2 \
// DEFINE:     --input bias=290@3 --expr "a @ bm + bias" --tol 1e-5
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=threads=1 | %{check}
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=threads=2 | %{check}
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2)>
func.func @forward(%a: tensor<3x13x77xf32>, %bm: tensor<3x77x290xf32>, %bias: tensor<290xf32> {xpu.weight}) -> tensor<3x13x290xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<3x13x290xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<3x13x290xf32>) -> tensor<3x13x290xf32>
  %bmm = linalg.batch_matmul ins(%a, %bm : tensor<3x13x77xf32>, tensor<3x77x290xf32>) outs(%z : tensor<3x13x290xf32>) -> tensor<3x13x290xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm, %bias : tensor<3x13x290xf32>, tensor<290xf32>) outs(%e1 : tensor<3x13x290xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<3x13x290xf32>
  return %biased : tensor<3x13x290xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c4 = arith.constant 3 : index
  %c20 = arith.constant 290 : index
  %c24 = arith.constant 13 : index
  %c40 = arith.constant 77 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %ad = call @gen3(%c4, %c24, %c40, %s1) : (index, index, index, i64) -> tensor<?x?x?xf32>
  %bmd = call @gen3(%c4, %c40, %c20, %s2) : (index, index, index, i64) -> tensor<?x?x?xf32>
  %biasd = call @gen1(%c20, %s3) : (index, i64) -> tensor<?xf32>
  %a = tensor.cast %ad : tensor<?x?x?xf32> to tensor<3x13x77xf32>
  %bm = tensor.cast %bmd : tensor<?x?x?xf32> to tensor<3x77x290xf32>
  %bias = tensor.cast %biasd : tensor<?xf32> to tensor<290xf32>
  %y = call @forward(%a, %bm, %bias)
      : (tensor<3x13x77xf32>, tensor<3x77x290xf32>, tensor<290xf32>) -> tensor<3x13x290xf32>
  %u = tensor.cast %y : tensor<3x13x290xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
