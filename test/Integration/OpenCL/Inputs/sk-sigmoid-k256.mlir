// nn.Linear(256, 40) + sigmoid on x: [20, 256]: K = 256 gives Stream-K
// tiles several K-steps to split, so that their partial sums are summed
// before the non-linear epilogue (a sigmoid of partial sums is far from
// the reference). The pre-activations (|y| up to 178) are scaled by 1/64
// so that the sigmoid does not saturate; x is divided by 3 first so that
// the products and sums round (with the test inputs, multiples of 1/8,
// every sum would be exact in f32 and any order would give the same
// bits). main_bits prints the result's bits.
// DEFINE: %{check} = %refcheck --input x=20x256@1 --input w=40x256@2 --input b=40@3 \
// DEFINE:     --expr "sigmoid(((x / 3) @ w.T + b) * 0.015625)" \
// DEFINE:     --tol 1e-5

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<20x256xf32>, %w: tensor<40x256xf32>, %b: tensor<40xf32>) -> tensor<20x40xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %scale = arith.constant 1.562500e-02 : f32
  %three = arith.constant 3.000000e+00 : f32
  %ex = tensor.empty() : tensor<20x256xf32>
  %x3 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<20x256xf32>) outs(%ex : tensor<20x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.divf %in, %three : f32
    linalg.yield %t : f32
  } -> tensor<20x256xf32>
  %e0 = tensor.empty() : tensor<256x40xf32>
  %wt = linalg.transpose ins(%w : tensor<40x256xf32>) outs(%e0 : tensor<256x40xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<20x40xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<20x40xf32>) -> tensor<20x40xf32>
  %mm = linalg.matmul ins(%x3, %wt : tensor<20x256xf32>, tensor<256x40xf32>) outs(%z : tensor<20x40xf32>) -> tensor<20x40xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<20x40xf32>, tensor<40xf32>) outs(%e1 : tensor<20x40xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<20x40xf32>
  %act = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<20x40xf32>) outs(%e1 : tensor<20x40xf32>) {
  ^bb0(%y: f32, %out: f32):
    %in = arith.mulf %y, %scale : f32
    %n = arith.negf %in : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<20x40xf32>
  return %act : tensor<20x40xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}
func.func private @printMemrefI32(tensor<*xi32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c20 = arith.constant 20 : index
  %c40 = arith.constant 40 : index
  %c256 = arith.constant 256 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd = call @gen2(%c20, %c256, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c40, %c256, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c40, %s3) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<20x256xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<40x256xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<40xf32>
  %y = call @forward(%x, %w, %b)
      : (tensor<20x256xf32>, tensor<40x256xf32>, tensor<40xf32>) -> tensor<20x40xf32>
  %u = tensor.cast %y : tensor<20x40xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

// The result's bit patterns, for bitwise comparisons between runs.
func.func @main_bits() {
  %c20 = arith.constant 20 : index
  %c40 = arith.constant 40 : index
  %c256 = arith.constant 256 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd = call @gen2(%c20, %c256, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c40, %c256, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c40, %s3) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<20x256xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<40x256xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<40xf32>
  %y = call @forward(%x, %w, %b)
      : (tensor<20x256xf32>, tensor<40x256xf32>, tensor<40xf32>) -> tensor<20x40xf32>
  %ei = tensor.empty() : tensor<20x40xi32>
  %bits = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<20x40xf32>) outs(%ei : tensor<20x40xi32>) {
  ^bb0(%in: f32, %out: i32):
    %i = arith.bitcast %in : f32 to i32
    linalg.yield %i : i32
  } -> tensor<20x40xi32>
  %u = tensor.cast %bits : tensor<20x40xi32> to tensor<*xi32>
  call @printMemrefI32(%u) : (tensor<*xi32>) -> ()
  return
}
