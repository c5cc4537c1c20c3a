// xpu-run --function: arguments from .npy files, inline values or seeded
// random values; results to .npy files or printed; checked against NumPy in
// float64.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %xpu_src_root/test/lib/npycheck.py make %t x=32x64@1 w=48x64@2 b=48@3
// RUN: xpu-run %s --function=forward --input=@%t/x.npy --input=@%t/w.npy --input=@%t/b.npy --output=@%t/y.npy
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/y.npy --inputs %t x w b --expr "np.tanh(x @ w.T + b)" --tol 1e-5 | FileCheck %s --check-prefix=NPY
// NPY: PASS: max relative error {{.*}} over 1536 elements, dtype float32

// The same without xpu-optimize, and at -O0.
// RUN: xpu-run %s --function=forward --input=@%t/x.npy --input=@%t/w.npy --input=@%t/b.npy --output=@%t/y0.npy --xpu-pipeline-options=optimize=false -O0
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/y0.npy --inputs %t x w b --expr "np.tanh(x @ w.T + b)" --tol 1e-5

// Inline values (brackets and commas are ignored; one value fills a
// tensor); the result is printed. 1*1 + 2*2 + 3*3 = 14, 4 + 10 + 18 = 32.
// RUN: xpu-run %s --function=small --input="2x3xf32=[1 2 3][4 5 6]" --input="3xf32=1, 2, 3" --input="2xf32=0.5" | FileCheck %s --check-prefix=INLINE
// INLINE: result[0]: 2xf32=[14.5 32.5]

// Scalars, and a scalar result.
// RUN: xpu-run %s --function=scale --input="4xf32=1 2 3 4" --input="f32=2.5" | FileCheck %s --check-prefix=SCALAR
// SCALAR: result[0]: 4xf32=[2.5 5 7.5 10]
// SCALAR: result[1]: f32=2.5

// Random inputs are seeded: the same seed gives the same result, another
// seed another one.
// RUN: xpu-run %s --function=forward --seed=7 --output=@%t/r1.npy
// RUN: xpu-run %s --function=forward --seed=7 --output=@%t/r2.npy
// RUN: xpu-run %s --function=forward --seed=8 --output=@%t/r3.npy
// RUN: cmp %t/r1.npy %t/r2.npy
// RUN: not cmp %t/r1.npy %t/r3.npy

// Timing on the CPU: per-call wall time. The CPU pipeline packs the weight
// (marked xpu.weight: only marked arguments are packed) into micro-kernel
// panels (xpu-cpu-pack-operands) in @forward.pack, which runs once, before
// the calls (the inputs of one xpu-run do not change between calls).
// RUN: xpu-run %s --function=forward --repeat=5 --time --output=@%t/t.npy | FileCheck %s --check-prefix=TIME
// TIME: xpu-run: @forward on cpu: 5 call(s), wall time per call: min {{[0-9.]+}} ms, median {{[0-9.]+}} ms, mean {{[0-9.]+}} ms
// TIME-NEXT: xpu-run: @forward.pack (weights packed once, before the calls): {{[0-9.]+}} ms
// TIME-NEXT: xpu-run: the CPU runs no kernels; the wall time is the measurement

// Linear + BatchNorm + ReLU: the folded weights are packed once, before the
// calls; the variance reaches torch-mlir's cf.assert, so its random values
// are positive.
// RUN: xpu-run %xpu_src_root/examples/linear_bn_relu.mlir --function=forward --repeat=3 --time --output=@%t/bn.npy 2>&1 | FileCheck %s --check-prefix=PACK
// PACK: xpu-run: argument #6 of @forward reaches a cf.assert of the model: its random values are drawn from [0.5, 1.5)
// PACK: xpu-run: @forward on cpu: 3 call(s)
// PACK: xpu-run: @forward.pack (weights packed once, before the calls): {{[0-9.]+}} ms

// f64 kept with --precision=f64; computed in f32 by default.
// Values that f32 does not hold exactly, so that demotion shows.
// RUN: %python -c "import numpy as np; r = np.random.default_rng(3); np.save('%t/x64.npy', r.standard_normal((8, 16))); np.save('%t/w64.npy', r.standard_normal((4, 16)))"
// RUN: xpu-run %s --function=f64 --input=@%t/x64.npy --input=@%t/w64.npy --precision=f64 --output=@%t/y64.npy
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/y64.npy --inputs %t x64 w64 --expr "np.sin(x64 @ w64.T) / 3" --tol 1e-15 | FileCheck %s --check-prefix=F64
// F64: PASS: {{.*}} dtype float64
// RUN: xpu-run %s --function=f64 --input=@%t/x64.npy --input=@%t/w64.npy --output=@%t/y32.npy --xpu-remarks 2>&1 | FileCheck %s --check-prefix=DEMOTED
// DEMOTED: remark: [Passed] DemotedF64 | Category:xpu-demote-f64 | Reason="GEMM 8x4x16 (m x n x k) demoted from f64 to f32
// RUN: not %python %xpu_src_root/test/lib/npycheck.py check %t/y32.npy --inputs %t x64 w64 --expr "np.sin(x64 @ w64.T) / 3" --tol 1e-12

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<32x64xf32>, %w: tensor<48x64xf32> {xpu.weight}, %b: tensor<48xf32> {xpu.weight}) -> tensor<32x48xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<64x48xf32>
  %wt = linalg.transpose ins(%w : tensor<48x64xf32>) outs(%e0 : tensor<64x48xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<32x48xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %g = linalg.matmul ins(%x, %wt : tensor<32x64xf32>, tensor<64x48xf32>) outs(%z : tensor<32x48xf32>) -> tensor<32x48xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<32x48xf32>, tensor<48xf32>) outs(%e : tensor<32x48xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %0 = arith.addf %in, %bb : f32
    %1 = math.tanh %0 : f32
    linalg.yield %1 : f32
  } -> tensor<32x48xf32>
  return %r : tensor<32x48xf32>
}

func.func @small(%a: tensor<2x3xf32>, %v: tensor<3xf32>, %c: tensor<2xf32>) -> tensor<2xf32> {
  %e = tensor.empty() : tensor<2xf32>
  %r = linalg.matvec ins(%a, %v : tensor<2x3xf32>, tensor<3xf32>) outs(%c : tensor<2xf32>) -> tensor<2xf32>
  return %r : tensor<2xf32>
}

func.func @scale(%a: tensor<4xf32>, %s: f32) -> (tensor<4xf32>, f32) {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %s : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  return %r, %s : tensor<4xf32>, f32
}

func.func @f64(%x: tensor<8x16xf64>, %w: tensor<4x16xf64>) -> tensor<8x4xf64> {
  %cst = arith.constant 0.0 : f64
  %third = arith.constant 3.0 : f64
  %e0 = tensor.empty() : tensor<16x4xf64>
  %wt = linalg.transpose ins(%w : tensor<4x16xf64>) outs(%e0 : tensor<16x4xf64>) permutation = [1, 0]
  %e = tensor.empty() : tensor<8x4xf64>
  %z = linalg.fill ins(%cst : f64) outs(%e : tensor<8x4xf64>) -> tensor<8x4xf64>
  %g = linalg.matmul ins(%x, %wt : tensor<8x16xf64>, tensor<16x4xf64>) outs(%z : tensor<8x4xf64>) -> tensor<8x4xf64>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<8x4xf64>) outs(%e : tensor<8x4xf64>) {
  ^bb0(%in: f64, %out: f64):
    %0 = math.sin %in : f64
    %1 = arith.divf %0, %third : f64
    linalg.yield %1 : f64
  } -> tensor<8x4xf64>
  return %r : tensor<8x4xf64>
}
