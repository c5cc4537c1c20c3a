// torch.bmm(a, b) + r with a: [2, 25, 40], b: [2, 40, 40], r: [2, 25, 40]
// (compiled only): every per-batch slab of A (25 rows of 40 bf16 = 2000
// bytes), of the residual and of the result (25 rows of 40 f32 = 4000
// bytes) has a size that is not a multiple of 64 bytes, so batch 1 starts
// unaligned unless the batch stride is rounded (cl_intel_subgroup_2d_block_io
// wants 64-byte aligned base addresses).
#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @forward(%a: tensor<2x25x40xf32>, %b: tensor<2x40x40xf32>, %r: tensor<2x25x40xf32>) -> tensor<2x25x40xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<2x25x40xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x25x40xf32>) -> tensor<2x25x40xf32>
  %bmm = linalg.batch_matmul ins(%a, %b : tensor<2x25x40xf32>, tensor<2x40x40xf32>) outs(%z : tensor<2x25x40xf32>) -> tensor<2x25x40xf32>
  %sum = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm, %r : tensor<2x25x40xf32>, tensor<2x25x40xf32>) outs(%e : tensor<2x25x40xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<2x25x40xf32>
  return %sum : tensor<2x25x40xf32>
}
