// A dynamically shaped elementwise op on the caller's buffer whose leading
// dimension alone is dynamic (a batch): every GPU pipeline makes it a
// kernel that reads the rows at run time.
func.func @scale(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = arith.mulf %in, %two : f32
    linalg.yield %y : f32
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}
