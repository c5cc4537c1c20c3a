// int8 GEMMs on AVX-512 VNNI without AMX (xpu-cpu-pack-operands' pair-dot
// form: the i8 operands widened to i16 as the matmul extends them, then
// vpdpwssd in xpu-cpu-tile-and-vectorize's nest), run on this host with
// amx=false (an AMX host takes its AMX form otherwise): an i8 x i8 -> i32
// matmul against an [n, k] weight, M, N, K = 131, 67, 200; the product
// dequantized to f32 by an epilogue; a batched matmul of two activations
// ([k, n] rhs). The inputs cover the whole int8 range (-128 to 127,
// npycheck.py's integer generator); the sums (at most 200 x 128 x 128 =
// 3.3e6) are exact in float64, so the integer results must match NumPy
// exactly.
// REQUIRES: x86-avx512vnni, x86-avx512bw
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %xpu_src_root/test/lib/npycheck.py make %t x=131x200@1:int8 w=67x200@2:int8 b=67@3 bx=3x40x130@4:int8 bw=3x130x70@5:int8
// RUN: xpu-run %s --function=forward --input=@%t/x.npy --input=@%t/w.npy --output=@%t/y.npy --xpu-pipeline-options="amx=false threads=1"
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/y.npy --inputs %t x w --expr "x @ w.T" --tol 0
// RUN: xpu-run %s --function=forward --input=@%t/x.npy --input=@%t/w.npy --output=@%t/y2.npy --xpu-pipeline-options="amx=false threads=2"
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/y2.npy --inputs %t x w --expr "x @ w.T" --tol 0
//
// The dequantizing epilogue: f32(acc) * 0.5 + b. The products convert to
// f32 exactly (below 2^24) and the scale is exact; the bias addition
// rounds once (2^-24 of the result's scale).
// RUN: xpu-run %s --function=dequant --input=@%t/x.npy --input=@%t/w.npy --input=@%t/b.npy --output=@%t/d.npy --xpu-pipeline-options="amx=false threads=1"
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/d.npy --inputs %t x w b --expr "(x @ w.T) * 0.5 + b" --tol 1e-7
//
// RUN: xpu-run %s --function=bmm --input=@%t/bx.npy --input=@%t/bw.npy --output=@%t/bm.npy --xpu-pipeline-options="amx=false threads=1"
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/bm.npy --inputs %t bx bw --expr "bx @ bw" --tol 0
//
// Every GEMM takes the pair-dot form, and vpdpwssd is in the code (chip=
// znver4: compiled, not run).
// RUN: xpu-opt %s --xpu-cpu-pipeline="chip=znver4 threads=1" --xpu-remarks -o %t/out.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// REMARK-DAG: linalg.matmul (signed i8 times signed i8 into i32) in the pair-dot form (vpdpwssd on i16 pairs)
// REMARK-DAG: linalg.batch_matmul (signed i8 times signed i8 into i32) in the pair-dot form (vpdpwssd on i16 pairs)
// REMARK-DAG: packed GEMM 131x67x200 as one loop nest: {{.*}} [14, 32] register tiles of i16 pair dot products (vpdpwssd)
// RUN: mlir-translate --mlir-to-llvmir %t/out.mlir | llc -O2 -o - | FileCheck %s --check-prefix=ASM
// ASM: vpdpwssd

func.func @forward(%x: tensor<131x200xi8>, %w: tensor<67x200xi8> {xpu.weight}) -> tensor<131x67xi32> {
  %c0 = arith.constant 0 : i32
  %e0 = tensor.empty() : tensor<200x67xi8>
  %wt = linalg.transpose ins(%w : tensor<67x200xi8>) outs(%e0 : tensor<200x67xi8>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<131x67xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e1 : tensor<131x67xi32>) -> tensor<131x67xi32>
  %mm = linalg.matmul ins(%x, %wt : tensor<131x200xi8>, tensor<200x67xi8>) outs(%z : tensor<131x67xi32>) -> tensor<131x67xi32>
  return %mm : tensor<131x67xi32>
}

func.func @dequant(%x: tensor<131x200xi8>, %w: tensor<67x200xi8> {xpu.weight}, %b: tensor<67xf32> {xpu.weight}) -> tensor<131x67xf32> {
  %c0 = arith.constant 0 : i32
  %e0 = tensor.empty() : tensor<200x67xi8>
  %wt = linalg.transpose ins(%w : tensor<67x200xi8>) outs(%e0 : tensor<200x67xi8>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<131x67xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e1 : tensor<131x67xi32>) -> tensor<131x67xi32>
  %mm = linalg.matmul ins(%x, %wt : tensor<131x200xi8>, tensor<200x67xi8>) outs(%z : tensor<131x67xi32>) -> tensor<131x67xi32>
  %e2 = tensor.empty() : tensor<131x67xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<131x67xi32>, tensor<67xf32>) outs(%e2 : tensor<131x67xf32>) {
  ^bb0(%acc: i32, %bias: f32, %out: f32):
    %f = arith.sitofp %acc : i32 to f32
    %half = arith.constant 0.5 : f32
    %s = arith.mulf %f, %half : f32
    %v = arith.addf %s, %bias : f32
    linalg.yield %v : f32
  } -> tensor<131x67xf32>
  return %r : tensor<131x67xf32>
}

func.func @bmm(%x: tensor<3x40x130xi8>, %w: tensor<3x130x70xi8>) -> tensor<3x40x70xi32> {
  %c0 = arith.constant 0 : i32
  %e = tensor.empty() : tensor<3x40x70xi32>
  %z = linalg.fill ins(%c0 : i32) outs(%e : tensor<3x40x70xi32>) -> tensor<3x40x70xi32>
  %mm = linalg.batch_matmul ins(%x, %w : tensor<3x40x130xi8>, tensor<3x130x70xi8>) outs(%z : tensor<3x40x70xi32>) -> tensor<3x40x70xi32>
  return %mm : tensor<3x40x70xi32>
}
