// torch.bmm(a[:, :25, :], b) + bias with a: [2, 28, 40], b: [2, 40, 20]:
// the lhs is a view that keeps 25 of each batch's 28 rows, the shape
// xpu-materialize-layouts gives batch slabs it pads for alignment. The
// schedule passes the whole [2, 28, 40] buffer, so batch 1 starts 28 rows
// in, not 25: the kernels must take the batch stride from the buffer.
// DEFINE: %{check} = %refcheck --input a=2x28x40@1 --input bm=2x40x20@2 \
// DEFINE:     --input bias=20@3 \
// DEFINE:     --expr "a[:, :25, :] @ bm + bias" \
// DEFINE:     --tol 1e-5

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2)>
func.func @forward(%ap: tensor<2x28x40xf32>, %bm: tensor<2x40x20xf32>, %bias: tensor<20xf32>) -> tensor<2x25x20xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %a = tensor.extract_slice %ap[0, 0, 0] [2, 25, 40] [1, 1, 1] : tensor<2x28x40xf32> to tensor<2x25x40xf32>
  %e1 = tensor.empty() : tensor<2x25x20xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<2x25x20xf32>) -> tensor<2x25x20xf32>
  %bmm = linalg.batch_matmul ins(%a, %bm : tensor<2x25x40xf32>, tensor<2x40x20xf32>) outs(%z : tensor<2x25x20xf32>) -> tensor<2x25x20xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm, %bias : tensor<2x25x20xf32>, tensor<20xf32>) outs(%e1 : tensor<2x25x20xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<2x25x20xf32>
  return %biased : tensor<2x25x20xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c2 = arith.constant 2 : index
  %c20 = arith.constant 20 : index
  %c28 = arith.constant 28 : index
  %c40 = arith.constant 40 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %ad = call @gen3(%c2, %c28, %c40, %s1) : (index, index, index, i64) -> tensor<?x?x?xf32>
  %bmd = call @gen3(%c2, %c40, %c20, %s2) : (index, index, index, i64) -> tensor<?x?x?xf32>
  %biasd = call @gen1(%c20, %s3) : (index, i64) -> tensor<?xf32>
  %a = tensor.cast %ad : tensor<?x?x?xf32> to tensor<2x28x40xf32>
  %bm = tensor.cast %bmd : tensor<?x?x?xf32> to tensor<2x40x20xf32>
  %bias = tensor.cast %biasd : tensor<?xf32> to tensor<20xf32>
  %y = call @forward(%a, %bm, %bias)
      : (tensor<2x28x40xf32>, tensor<2x40x20xf32>, tensor<20xf32>) -> tensor<2x25x20xf32>
  %u = tensor.cast %y : tensor<2x25x20xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
