// nn.Linear(200, 40) on x: [3, 200]: M = 3 is smaller than any tile's rows
// (the tile's other rows are masked), K = 200 is not a multiple of tile_k.
// DEFINE: %{check} = %refcheck --input x=3x200@1 --input w=40x200@2 --input b=40@3 \
// DEFINE:     --expr "x @ w.T + b" \
// DEFINE:     --tol 1e-5

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<3x200xf32>, %w: tensor<40x200xf32>, %b: tensor<40xf32>) -> tensor<3x40xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<200x40xf32>
  %wt = linalg.transpose ins(%w : tensor<40x200xf32>) outs(%e0 : tensor<200x40xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<3x40xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<3x40xf32>) -> tensor<3x40xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<3x200xf32>, tensor<200x40xf32>) outs(%z : tensor<3x40xf32>) -> tensor<3x40xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<3x40xf32>, tensor<40xf32>) outs(%e1 : tensor<3x40xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<3x40xf32>
  return %biased : tensor<3x40xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c40 = arith.constant 40 : index
  %c200 = arith.constant 200 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd = call @gen2(%c3, %c200, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c40, %c200, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c40, %s3) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<3x200xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<40x200xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<40xf32>
  %y = call @forward(%x, %w, %b)
      : (tensor<3x200xf32>, tensor<40x200xf32>, tensor<40xf32>) -> tensor<3x40xf32>
  %u = tensor.cast %y : tensor<3x40xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
