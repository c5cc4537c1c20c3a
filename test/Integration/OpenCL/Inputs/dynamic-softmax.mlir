// softmax(x @ w.T + b) over rows of x: [?, 40], a batch known only at run
// time. The GEMM + bias runs on the SIMT kernels with its programs counted
// from the rows; the row max and the row sum (48 elements each) are row
// reductions with one workgroup per row, the rows read on the host; the
// exp and the division are elementwise kernels over ? x 48 points.
// dynamic-batch.test calls @main.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @forward(%x: tensor<?x40xf32>, %w: tensor<48x40xf32> {xpu.weight}, %b: tensor<48xf32> {xpu.weight}) -> tensor<?x48xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.000000e+00 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %rows = tensor.dim %x, %c0 : tensor<?x40xf32>
  %e0 = tensor.empty() : tensor<40x48xf32>
  %wt = linalg.transpose ins(%w : tensor<48x40xf32>) outs(%e0 : tensor<40x48xf32>) permutation = [1, 0]
  %e1 = tensor.empty(%rows) : tensor<?x48xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x48xf32>) -> tensor<?x48xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<?x40xf32>, tensor<40x48xf32>) outs(%z : tensor<?x48xf32>) -> tensor<?x48xf32>
  %y = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x48xf32>, tensor<48xf32>) outs(%e1 : tensor<?x48xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<?x48xf32>
  %er = tensor.empty(%rows) : tensor<?xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<?x48xf32>) outs(%mi : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%y, %max : tensor<?x48xf32>, tensor<?xf32>) outs(%e1 : tensor<?x48xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    linalg.yield %e : f32
  } -> tensor<?x48xf32>
  %zi = linalg.fill ins(%zero : f32) outs(%er : tensor<?xf32>) -> tensor<?xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<?x48xf32>) outs(%zi : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %sm = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %sum : tensor<?x48xf32>, tensor<?xf32>) outs(%e1 : tensor<?x48xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  } -> tensor<?x48xf32>
  return %sm : tensor<?x48xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

// Builds x ([rows, 40], seed 1), calls @forward and prints the result.
func.func @run(%rows: index, %w: tensor<48x40xf32>, %b: tensor<48xf32>) {
  %c40 = arith.constant 40 : index
  %s1 = arith.constant 1 : i64
  %xd = call @gen2(%rows, %c40, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<?x40xf32>
  %y = call @forward(%x, %w, %b)
      : (tensor<?x40xf32>, tensor<48x40xf32>, tensor<48xf32>) -> tensor<?x48xf32>
  %u = tensor.cast %y : tensor<?x48xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c17 = arith.constant 17 : index
  %c40 = arith.constant 40 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %c300 = arith.constant 300 : index
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %wd = call @gen2(%c48, %c40, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c48, %s3) : (index, i64) -> tensor<?xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<48x40xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<48xf32>
  call @run(%c1, %w, %b) : (index, tensor<48x40xf32>, tensor<48xf32>) -> ()
  call @run(%c3, %w, %b) : (index, tensor<48x40xf32>, tensor<48xf32>) -> ()
  call @run(%c17, %w, %b) : (index, tensor<48x40xf32>, tensor<48xf32>) -> ()
  call @run(%c64, %w, %b) : (index, tensor<48x40xf32>, tensor<48xf32>) -> ()
  call @run(%c300, %w, %b) : (index, tensor<48x40xf32>, tensor<48xf32>) -> ()
  return
}
