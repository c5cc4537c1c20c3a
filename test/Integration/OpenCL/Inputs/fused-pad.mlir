// A pad on both sides with a padding value of 0.5 (@pad), and the same pad
// of an elementwise result, 2 x + 1, that only the pad reads (@scale_pad).
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @pad(%x: tensor<67x97xf32>) -> tensor<70x104xf32> {
  %c = arith.constant 0.5 : f32
  %p = tensor.pad %x low[1, 2] high[2, 5] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<67x97xf32> to tensor<70x104xf32>
  return %p : tensor<70x104xf32>
}
func.func @scale_pad(%x: tensor<67x97xf32>) -> tensor<70x104xf32> {
  %c = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<67x97xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<67x97xf32>) outs(%e : tensor<67x97xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %two : f32
    %a = arith.addf %m, %one : f32
    linalg.yield %a : f32
  } -> tensor<67x97xf32>
  %p = tensor.pad %y low[1, 2] high[2, 5] {
  ^bb0(%i: index, %j: index):
    tensor.yield %c : f32
  } : tensor<67x97xf32> to tensor<70x104xf32>
  return %p : tensor<70x104xf32>
}
