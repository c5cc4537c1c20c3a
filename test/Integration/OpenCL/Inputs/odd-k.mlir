// nn.Linear(147, 29) on x: [37, 147]: M, N and K are not multiples of any
// tile, and K = 147 leaves a partial last K-step in every K range that ends
// at K.
// DEFINE: %{check} = %refcheck --input x=37x147@1 --input w=29x147@2 --input b=29@3 \
// DEFINE:     --expr "x @ w.T + b" \
// DEFINE:     --tol 1e-5

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<37x147xf32>, %w: tensor<29x147xf32>, %b: tensor<29xf32>) -> tensor<37x29xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<147x29xf32>
  %wt = linalg.transpose ins(%w : tensor<29x147xf32>) outs(%e0 : tensor<147x29xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<37x29xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<37x29xf32>) -> tensor<37x29xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<37x147xf32>, tensor<147x29xf32>) outs(%z : tensor<37x29xf32>) -> tensor<37x29xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<37x29xf32>, tensor<29xf32>) outs(%e1 : tensor<37x29xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<37x29xf32>
  return %biased : tensor<37x29xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c29 = arith.constant 29 : index
  %c37 = arith.constant 37 : index
  %c147 = arith.constant 147 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd = call @gen2(%c37, %c147, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c29, %c147, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c29, %s3) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<37x147xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<29x147xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<29xf32>
  %y = call @forward(%x, %w, %b)
      : (tensor<37x147xf32>, tensor<29x147xf32>, tensor<29xf32>) -> tensor<37x29xf32>
  %u = tensor.cast %y : tensor<37x29xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
