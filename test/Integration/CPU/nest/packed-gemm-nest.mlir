// The packed GEMM as one loop nest (xpu-cpu-tile-and-vectorize) on shapes
// with remainders in every dimension: row blocks (264 rows by default, 60
// with cache-tile=60,256,256), k blocks (<= 640, or <= 256; the last one
// shorter), 6x16 register tiles masked at the edges, the epilogue applied
// per tile. Each model runs single-threaded (the nest, with the default
// blocks and with small ones) and some with the default threads, on random
// normal inputs, against NumPy in float64:
// max |got - ref| / max(max |ref|, 1) <= 1e-5 (f32 accumulation over
// k <= 1031 terms stays near 1e-6).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; r = np.random.default_rng(15); f = lambda n, *s, k=1: np.save('%t/' + n + '.npy', (k * r.standard_normal(s)).astype(np.float32)); f('x1', 1000, 1000); f('w1', 1000, 1000); f('x2', 131, 517); f('w2', 4097, 517); f('x3', 333, 777, k=0.04); f('w3', 1000, 777); f('b3', 1000); f('x4', 61, 1031, k=0.03); f('w4', 1031, 263); f('b4', 263); f('x5', 3, 67, 300); f('w5', 3, 300, 45); f('c5', 3, 67, 45); f('x6', 37, 517); f('w6', 517, 29); f('c6', 37, 29)"
// DEFINE: %{check} = %python %xpu_src_root/test/lib/npycheck.py check

// 1000^3, x·Wᵀ: 1000 = 166 * 6 + 4 = 62 * 16 + 8; rows in 4 blocks (the
// last 208), k in 2 blocks of 504 (the last 496); with small blocks 17 row
// blocks (the last 40) and k in 4 blocks of 256 (the last 232).
// RUN: xpu-run %s --function=square --input=@%t/x1.npy --input=@%t/w1.npy --output=@%t/y1.npy --xpu-pipeline-options=threads=1
// RUN: %{check} %t/y1.npy --inputs %t x1 w1 --expr "x1 @ w1.T" --tol 1e-5
// RUN: xpu-run %s --function=square --input=@%t/x1.npy --input=@%t/w1.npy --output=@%t/y1s.npy --xpu-pipeline-options="threads=1 cache-tile=60,256,256"
// RUN: %{check} %t/y1s.npy --inputs %t x1 w1 --expr "x1 @ w1.T" --tol 1e-5
// RUN: xpu-run %s --function=square --input=@%t/x1.npy --input=@%t/w1.npy --output=@%t/y1t.npy
// RUN: %{check} %t/y1t.npy --inputs %t x1 w1 --expr "x1 @ w1.T" --tol 1e-5

// 131x4097x517, x·Wᵀ.
// RUN: xpu-run %s --function=odd --input=@%t/x2.npy --input=@%t/w2.npy --output=@%t/y2.npy --xpu-pipeline-options=threads=1
// RUN: %{check} %t/y2.npy --inputs %t x2 w2 --expr "x2 @ w2.T" --tol 1e-5

// Linear + bias + sigmoid 333x1000x777 (the negation folds into the weight);
// x is scaled by 0.04 so that x·Wᵀ is of order 1, where the sigmoid is not
// flat (unscaled, OpenBLAS in f32 is 9e-6 off the float64 reference too).
// RUN: xpu-run %s --function=sigmoid --input=@%t/x3.npy --input=@%t/w3.npy --input=@%t/b3.npy --output=@%t/y3.npy --xpu-pipeline-options=threads=1
// RUN: %{check} %t/y3.npy --inputs %t x3 w3 b3 --expr "1 / (1 + np.exp(-(x3 @ w3.T + b3)))" --tol 1e-5
// RUN: xpu-run %s --function=sigmoid --input=@%t/x3.npy --input=@%t/w3.npy --input=@%t/b3.npy --output=@%t/y3t.npy
// RUN: %{check} %t/y3t.npy --inputs %t x3 w3 b3 --expr "1 / (1 + np.exp(-(x3 @ w3.T + b3)))" --tol 1e-5

// A [k, n] weight, k = 1031 in 2 blocks of 520 (the last 511), with small
// blocks 5 of 208 (the last 199); tanh (x scaled by 0.03 likewise).
// RUN: xpu-run %s --function=kn_tanh --input=@%t/x4.npy --input=@%t/w4.npy --input=@%t/b4.npy --output=@%t/y4.npy --xpu-pipeline-options=threads=1
// RUN: %{check} %t/y4.npy --inputs %t x4 w4 b4 --expr "np.tanh(x4 @ w4 + b4)" --tol 1e-5
// RUN: xpu-run %s --function=kn_tanh --input=@%t/x4.npy --input=@%t/w4.npy --input=@%t/b4.npy --output=@%t/y4s.npy --xpu-pipeline-options="threads=1 cache-tile=60,256,256"
// RUN: %{check} %t/y4s.npy --inputs %t x4 w4 b4 --expr "np.tanh(x4 @ w4 + b4)" --tol 1e-5

// The same GEMM with mish, whose epilogue is long enough on any host's
// register tile to be applied row by row (after the tile is stored).
// RUN: xpu-run %s --function=kn_mish --input=@%t/x4.npy --input=@%t/w4.npy --input=@%t/b4.npy --output=@%t/y7.npy --xpu-pipeline-options=threads=1
// RUN: %{check} %t/y7.npy --inputs %t x4 w4 b4 --expr "(x4 @ w4 + b4) * np.tanh(np.log1p(np.exp(x4 @ w4 + b4)))" --tol 1e-5
// RUN: xpu-run %s --function=kn_mish --input=@%t/x4.npy --input=@%t/w4.npy --input=@%t/b4.npy --output=@%t/y7s.npy --xpu-pipeline-options="threads=1 cache-tile=60,256,256"
// RUN: %{check} %t/y7s.npy --inputs %t x4 w4 b4 --expr "(x4 @ w4 + b4) * np.tanh(np.log1p(np.exp(x4 @ w4 + b4)))" --tol 1e-5
// RUN: xpu-run %s --function=kn_mish --input=@%t/x4.npy --input=@%t/w4.npy --input=@%t/b4.npy --output=@%t/y7t.npy
// RUN: %{check} %t/y7t.npy --inputs %t x4 w4 b4 --expr "(x4 @ w4 + b4) * np.tanh(np.log1p(np.exp(x4 @ w4 + b4)))" --tol 1e-5
// RUN: xpu-opt %s --xpu-cpu-pipeline=threads=1 --xpu-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROWS
// ROWS: packed-gemm-nest.mlir:[[# @LINE + 65]]:{{.*}} as one loop nest{{.*}}, epilogue applied to each tile row by row

// Batched, from a nonzero init: 3 x (67x300 @ 300x45 + c).
// RUN: xpu-run %s --function=batched --input=@%t/x5.npy --input=@%t/w5.npy --input=@%t/c5.npy --output=@%t/y5.npy --xpu-pipeline-options=threads=1
// RUN: %{check} %t/y5.npy --inputs %t x5 w5 c5 --expr "x5 @ w5 + c5" --tol 1e-5
// RUN: xpu-run %s --function=batched --input=@%t/x5.npy --input=@%t/w5.npy --input=@%t/c5.npy --output=@%t/y5t.npy
// RUN: %{check} %t/y5t.npy --inputs %t x5 w5 c5 --expr "x5 @ w5 + c5" --tol 1e-5

// addmm then ReLU: 37x517 @ 517x29 + c, with small blocks k in 3 blocks of
// 176 (the last 165): the partial sums start from the init.
// RUN: xpu-run %s --function=addmm_relu --input=@%t/x6.npy --input=@%t/w6.npy --input=@%t/c6.npy --output=@%t/y6.npy --xpu-pipeline-options="threads=1 cache-tile=60,256,256"
// RUN: %{check} %t/y6.npy --inputs %t x6 w6 c6 --expr "np.maximum(x6 @ w6 + c6, 0)" --tol 1e-5

// The single-threaded pipeline builds the nest for each of them.
// RUN: xpu-opt %s --xpu-cpu-pipeline=threads=1 --xpu-remarks -o /dev/null 2>&1 | FileCheck %s --check-prefix=NEST
// NEST-COUNT-7: remark: [Passed] Vectorized | Category:xpu-cpu-tile-and-vectorize | Reason="packed GEMM {{.*}} as one loop nest

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @square(%x: tensor<1000x1000xf32>, %w: tensor<1000x1000xf32> {xpu.weight}) -> tensor<1000x1000xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %et = tensor.empty() : tensor<1000x1000xf32>
  %wt = linalg.transpose ins(%w : tensor<1000x1000xf32>) outs(%et : tensor<1000x1000xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<1000x1000xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  %g = linalg.matmul ins(%x, %wt : tensor<1000x1000xf32>, tensor<1000x1000xf32>) outs(%z : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %g : tensor<1000x1000xf32>
}

func.func @odd(%x: tensor<131x517xf32>, %w: tensor<4097x517xf32> {xpu.weight}) -> tensor<131x4097xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %et = tensor.empty() : tensor<517x4097xf32>
  %wt = linalg.transpose ins(%w : tensor<4097x517xf32>) outs(%et : tensor<517x4097xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<131x4097xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<131x4097xf32>) -> tensor<131x4097xf32>
  %g = linalg.matmul ins(%x, %wt : tensor<131x517xf32>, tensor<517x4097xf32>) outs(%z : tensor<131x4097xf32>) -> tensor<131x4097xf32>
  return %g : tensor<131x4097xf32>
}

func.func @sigmoid(%x: tensor<333x777xf32>, %w: tensor<1000x777xf32> {xpu.weight}, %b: tensor<1000xf32> {xpu.weight}) -> tensor<333x1000xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %et = tensor.empty() : tensor<777x1000xf32>
  %wt = linalg.transpose ins(%w : tensor<1000x777xf32>) outs(%et : tensor<777x1000xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<333x1000xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<333x1000xf32>) -> tensor<333x1000xf32>
  %g = linalg.matmul ins(%x, %wt : tensor<333x777xf32>, tensor<777x1000xf32>) outs(%z : tensor<333x1000xf32>) -> tensor<333x1000xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<333x1000xf32>, tensor<1000xf32>) outs(%e : tensor<333x1000xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %0 = arith.addf %in, %bb : f32
    %1 = arith.negf %0 : f32
    %2 = math.exp %1 : f32
    %3 = arith.addf %2, %one : f32
    %4 = arith.divf %one, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<333x1000xf32>
  return %r : tensor<333x1000xf32>
}

func.func @kn_mish(%x: tensor<61x1031xf32>, %w: tensor<1031x263xf32> {xpu.weight}, %b: tensor<263xf32> {xpu.weight}) -> tensor<61x263xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<61x263xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<61x263xf32>) -> tensor<61x263xf32>
  %g = linalg.matmul ins(%x, %w : tensor<61x1031xf32>, tensor<1031x263xf32>) outs(%z : tensor<61x263xf32>) -> tensor<61x263xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<61x263xf32>, tensor<263xf32>) outs(%e : tensor<61x263xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %0 = arith.addf %in, %bb : f32
    %1 = math.exp %0 : f32
    %2 = math.log1p %1 : f32
    %3 = math.tanh %2 : f32
    %4 = arith.mulf %0, %3 : f32
    linalg.yield %4 : f32
  } -> tensor<61x263xf32>
  return %r : tensor<61x263xf32>
}

func.func @kn_tanh(%x: tensor<61x1031xf32>, %w: tensor<1031x263xf32> {xpu.weight}, %b: tensor<263xf32> {xpu.weight}) -> tensor<61x263xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<61x263xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<61x263xf32>) -> tensor<61x263xf32>
  %g = linalg.matmul ins(%x, %w : tensor<61x1031xf32>, tensor<1031x263xf32>) outs(%z : tensor<61x263xf32>) -> tensor<61x263xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<61x263xf32>, tensor<263xf32>) outs(%e : tensor<61x263xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %0 = arith.addf %in, %bb : f32
    %1 = math.tanh %0 : f32
    linalg.yield %1 : f32
  } -> tensor<61x263xf32>
  return %r : tensor<61x263xf32>
}

func.func @batched(%x: tensor<3x67x300xf32>, %w: tensor<3x300x45xf32>, %c: tensor<3x67x45xf32> {xpu.weight}) -> tensor<3x67x45xf32> {
  %g = linalg.batch_matmul ins(%x, %w : tensor<3x67x300xf32>, tensor<3x300x45xf32>) outs(%c : tensor<3x67x45xf32>) -> tensor<3x67x45xf32>
  return %g : tensor<3x67x45xf32>
}

func.func @addmm_relu(%x: tensor<37x517xf32>, %w: tensor<517x29xf32> {xpu.weight}, %c: tensor<37x29xf32> {xpu.weight}) -> tensor<37x29xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %g = linalg.matmul ins(%x, %w : tensor<37x517xf32>, tensor<517x29xf32>) outs(%c : tensor<37x29xf32>) -> tensor<37x29xf32>
  %e = tensor.empty() : tensor<37x29xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<37x29xf32>) outs(%e : tensor<37x29xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %cst : f32
    linalg.yield %0 : f32
  } -> tensor<37x29xf32>
  return %r : tensor<37x29xf32>
}
