// bf16 GEMMs on AVX-512 pair dot products (xpu-cpu-pack-operands' pair-dot
// form, vdpbf16ps in xpu-cpu-tile-and-vectorize's nest) on hosts with
// avx512bf16: nn.Linear(97, 67) + bias on x: [131, 97] with
// precision=bf16, run on this host. amx=false keeps an AMX host (whose
// preset also has avx512bf16) off its AMX form. M, N, K = 131, 67, 97:
// rows and columns cut the 14 x 32 tiles, and the last k pair is half
// padding. As in amx-bf16.mlir, @main divides x and w by 3 so that the
// operands are not exact in bf16.
// REQUIRES: x86-avx512bf16
//
// 1. The operands rounded to bf16 the way arith.truncf rounds (to nearest,
//    ties to even): only the f32 accumulation and the printing remain. The
//    f32 sums of K = 97 terms (vdpbf16ps adds pairs, then accumulates) are
//    off by at most about K 2^-24 max_ij sum_k |x_ik| |w_jk| = 5.8e-6 * 7.50,
//    relative to refcheck's scale max(max |ref|, 1) = 8.72: 5.0e-6;
//    printing (6 significant digits) adds up to 5e-6. An f32 GEMM (the
//    conversion missing) is 6.0e-4 away and fails this check, as does a
//    pair from the wrong k or row.
// DEFINE: %{bf16ref} = %refcheck --input x=131x97@1 --input w=67x97@2 --input b=67@3 \
// DEFINE:   --expr "(lambda bf16: bf16(x / 3) @ bf16(w / 3).T + b)(lambda a: ((lambda i: ((i + 0x7fff + ((i >> 16) & 1)) >> 16) << 16)(a.astype(np.float32).view(np.uint32).astype(np.uint64))).astype(np.uint32).view(np.float32).astype(np.float64))" \
// DEFINE:   --tol 1e-5
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="precision=bf16 amx=false threads=1" | %{bf16ref}
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="precision=bf16 amx=false threads=2" | %{bf16ref}
//
// 2. The same against the exact float64 product of x / 3 and w / 3: the
//    bf16 rounding of both operands, |delta| <= 2^-8, bounds the error by
//    (2 2^-8 + 2^-16 + K 2^-24) * 7.50 / 8.72 = 6.7e-3.
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="precision=bf16 amx=false threads=1" \
// RUN:   | %refcheck --input x=131x97@1 --input w=67x97@2 --input b=67@3 \
// RUN:       --expr "(x / 3) @ (w / 3).T + b" --tol 6.8e-3
//
// 3. Without avx512bf16 (chip=x86-64-v4) the bf16 operands are widened to
//    f32 and take the f32 panels: the same bf16-rounded result.
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="precision=bf16 chip=x86-64-v4 threads=1" | %{bf16ref}
//
// 4. The pair-dot form and its nest, and vdpbf16ps in the code (chip=znver4:
//    compiled, not run).
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-opt --xpu-cpu-pipeline="precision=bf16 chip=znver4 threads=1" --xpu-remarks -o %t.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// REMARK: PackedForDotPairs | Category:xpu-cpu-pack-operands | Reason="linalg.matmul (bf16 into f32) in the pair-dot form (vdpbf16ps)
// REMARK: Reason="packed GEMM 131x67x97 as one loop nest: {{.*}} [14, 32] register tiles of bf16 pair dot products (vdpbf16ps)
// RUN: mlir-translate --mlir-to-llvmir %t.mlir | llc -O2 -o - | FileCheck %s --check-prefix=ASM
// ASM: vdpbf16ps

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<131x97xf32>, %w: tensor<67x97xf32> {xpu.weight}, %b: tensor<67xf32> {xpu.weight}) -> tensor<131x67xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<97x67xf32>
  %wt = linalg.transpose ins(%w : tensor<67x97xf32>) outs(%e0 : tensor<97x67xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<131x67xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<131x67xf32>) -> tensor<131x67xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<131x97xf32>, tensor<97x67xf32>) outs(%z : tensor<131x67xf32>) -> tensor<131x67xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<131x67xf32>, tensor<67xf32>) outs(%e1 : tensor<131x67xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<131x67xf32>
  return %biased : tensor<131x67xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

// x / 3 elementwise: thirds of multiples of 1/8 are not exact in bf16.
func.func private @third(%t: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %t, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %t, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %three = arith.constant 3.0 : f32
    %v = arith.divf %in, %three : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @main() {
  %c131 = arith.constant 131 : index
  %c67 = arith.constant 67 : index
  %c97 = arith.constant 97 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd0 = call @gen2(%c131, %c97, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd0 = call @gen2(%c67, %c97, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %xd = call @third(%xd0) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %wd = call @third(%wd0) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %bd = call @gen1(%c67, %s3) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<131x97xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<67x97xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<67xf32>
  %y = call @forward(%x, %w, %b) : (tensor<131x97xf32>, tensor<67x97xf32>, tensor<67xf32>) -> tensor<131x67xf32>
  %u = tensor.cast %y : tensor<131x67xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
