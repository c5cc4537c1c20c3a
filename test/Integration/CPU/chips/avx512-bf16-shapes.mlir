// The pair-dot bf16 GEMMs (avx512-bf16.mlir) on the shapes that exercise
// the rest of the nest, against float64 NumPy on the bf16-rounded operands:
// - @linear: 300 rows times a [45, 2501] weight: K = 2501 takes two k
//   blocks (the partial sums go through the result) and ends in half a
//   pair; the mish epilogue is long enough to be applied row by row; with
//   threads=2 the row blocks are spread over the threads;
// - @bmm: a batch of two activations, [3, 40, 130] x [3, 130, 70] (a [k, n]
//   rhs packed per call).
// Each model divides its inputs by 3 first, so that the bf16 operands are
// not exact. With operands rounded as truncf rounds, only the f32
// accumulation is left: at most about K 2^-24 sum_k |x_ik w_kj| (for
// K = 2501, 1.5e-4 of sum_k |x w| <= 2501 x 0.21: 7.8e-2 absolute, against
// results of magnitude about 10) and the mish (a few ulps): 2e-4 relative.
// A pair from the wrong k, row or batch is off by O(1).
// REQUIRES: x86-avx512bf16
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %xpu_src_root/test/lib/npycheck.py make %t x1=300x2501@1 w=45x2501@3 b=45@4 ba=3x40x130@5 bb=3x130x70@6
// DEFINE: %{bf16} = (lambda v: ((lambda i: ((i + 0x7fff + ((i >> 16) & 1)) >> 16) << 16)((v / 3).astype(np.float32).view(np.uint32).astype(np.uint64))).astype(np.uint32).view(np.float32).astype(np.float64))
// DEFINE: %{mish} = (lambda t: t * np.tanh(np.log1p(np.exp(t))))
// RUN: xpu-run %s --function=linear --input=@%t/x1.npy --input=@%t/w.npy --input=@%t/b.npy --output=@%t/y1.npy --xpu-pipeline-options="precision=bf16 amx=false threads=1"
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/y1.npy --inputs %t x1 w b --expr "%{mish}(%{bf16}(x1) @ %{bf16}(w).T + b)" --tol 2e-4
// RUN: xpu-run %s --function=linear --input=@%t/x1.npy --input=@%t/w.npy --input=@%t/b.npy --output=@%t/y2.npy --xpu-pipeline-options="precision=bf16 amx=false threads=2"
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/y2.npy --inputs %t x1 w b --expr "%{mish}(%{bf16}(x1) @ %{bf16}(w).T + b)" --tol 2e-4
// RUN: xpu-run %s --function=bmm --input=@%t/ba.npy --input=@%t/bb.npy --output=@%t/bm1.npy --xpu-pipeline-options="precision=bf16 amx=false threads=1"
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/bm1.npy --inputs %t ba bb --expr "%{bf16}(ba) @ %{bf16}(bb)" --tol 2e-5
// RUN: xpu-run %s --function=bmm --input=@%t/ba.npy --input=@%t/bb.npy --output=@%t/bm2.npy --xpu-pipeline-options="precision=bf16 amx=false threads=2"
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/bm2.npy --inputs %t ba bb --expr "%{bf16}(ba) @ %{bf16}(bb)" --tol 2e-5
//
// Both GEMMs take the pair-dot form; the linear one two k blocks and the
// epilogue row by row.
// RUN: xpu-opt %s --xpu-cpu-pipeline="precision=bf16 chip=znver4 threads=1" --xpu-remarks -o /dev/null 2>&1 | FileCheck %s
// CHECK-DAG: Reason="packed GEMM 300x45x2501 as one loop nest: rows in blocks of {{[0-9]+}} (lhs packed per block), k in 2 block(s) of 1264, [14, 32] register tiles of bf16 pair dot products (vdpbf16ps) written straight into the result (masked at the edges), epilogue applied to each tile row by row"
// CHECK-DAG: Reason="linalg.batch_matmul (bf16 into f32) in the pair-dot form (vdpbf16ps): lhs packed into 14-row panels of k pairs, rhs ([k, n]) into 32-column panels of k pairs

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @linear(%x: tensor<300x2501xf32>, %w: tensor<45x2501xf32> {xpu.weight}, %b: tensor<45xf32> {xpu.weight}) -> tensor<300x45xf32> {
  %zero = arith.constant 0.0 : f32
  %three = arith.constant 3.0 : f32
  %ex = tensor.empty() : tensor<300x2501xf32>
  %x3 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<300x2501xf32>) outs(%ex : tensor<300x2501xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.divf %v, %three : f32
    linalg.yield %d : f32
  } -> tensor<300x2501xf32>
  %ew = tensor.empty() : tensor<45x2501xf32>
  %w3 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<45x2501xf32>) outs(%ew : tensor<45x2501xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.divf %v, %three : f32
    linalg.yield %d : f32
  } -> tensor<45x2501xf32>
  %e = tensor.empty() : tensor<300x45xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<300x45xf32>) -> tensor<300x45xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
      ins(%x3, %w3 : tensor<300x2501xf32>, tensor<45x2501xf32>) outs(%z : tensor<300x45xf32>) -> tensor<300x45xf32>
  %y = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<300x45xf32>, tensor<45xf32>) outs(%e : tensor<300x45xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %t = arith.addf %v, %bias : f32
    %ex1 = math.exp %t : f32
    %sp = math.log1p %ex1 : f32
    %th = math.tanh %sp : f32
    %r = arith.mulf %t, %th : f32
    linalg.yield %r : f32
  } -> tensor<300x45xf32>
  return %y : tensor<300x45xf32>
}

func.func @bmm(%a: tensor<3x40x130xf32>, %bm: tensor<3x130x70xf32>) -> tensor<3x40x70xf32> {
  %zero = arith.constant 0.0 : f32
  %three = arith.constant 3.0 : f32
  %ea = tensor.empty() : tensor<3x40x130xf32>
  %a3 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%a : tensor<3x40x130xf32>) outs(%ea : tensor<3x40x130xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.divf %v, %three : f32
    linalg.yield %d : f32
  } -> tensor<3x40x130xf32>
  %eb = tensor.empty() : tensor<3x130x70xf32>
  %b3 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bm : tensor<3x130x70xf32>) outs(%eb : tensor<3x130x70xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.divf %v, %three : f32
    linalg.yield %d : f32
  } -> tensor<3x130x70xf32>
  %e = tensor.empty() : tensor<3x40x70xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<3x40x70xf32>) -> tensor<3x40x70xf32>
  %r = linalg.batch_matmul ins(%a3, %b3 : tensor<3x40x130xf32>, tensor<3x130x70xf32>) outs(%z : tensor<3x40x70xf32>) -> tensor<3x40x70xf32>
  return %r : tensor<3x40x70xf32>
}
