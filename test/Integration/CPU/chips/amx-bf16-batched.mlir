// A batched bf16 GEMM on AMX tiles: torch.bmm(a, b) + bias with a:
// [3, 40, 70], b: [3, 70, 50] (both activations) and precision=bf16.
// xpu-cpu-pack-operands builds one AMX product per batch in an scf.for;
// every dimension of a batch's matrix is padded (to 64, 64, 96). @main
// divides a and b by 3 so that the operands are not exact in bf16.
// REQUIRES: x86-amx-tile, x86-amx-bf16
//
// 1. The operands rounded to bf16 the way arith.truncf rounds (to nearest,
//    ties to even): only the f32 accumulation of K = 70 terms and the
//    printing (6 significant digits) remain, below 1e-5 of the result
//    scale. A batch computed from another batch's matrices, or in f32
//    without the conversion, is far outside it.
// DEFINE: %{bf16ref} = %refcheck --input a=3x40x70@1 --input bm=3x70x50@2 --input bias=50@3 \
// DEFINE:   --expr "(lambda bf16: bf16(a / 3) @ bf16(bm / 3) + bias)(lambda v: ((lambda i: ((i + 0x7fff + ((i >> 16) & 1)) >> 16) << 16)(v.astype(np.float32).view(np.uint32).astype(np.uint64))).astype(np.uint32).view(np.float32).astype(np.float64))" \
// DEFINE:   --tol 1e-5
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="precision=bf16 threads=1" | %{bf16ref}
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="precision=bf16 chip=sapphirerapids threads=2" | %{bf16ref}
//
// 2. Against the exact float64 product of a / 3 and b / 3: the bf16
//    rounding of both operands (|delta| <= 2^-8 each) bounds the error by
//    about 2 2^-8 of the result scale.
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="precision=bf16 threads=1" \
// RUN:   | %refcheck --input a=3x40x70@1 --input bm=3x70x50@2 --input bias=50@3 \
// RUN:       --expr "(a / 3) @ (bm / 3) + bias" --tol 8e-3
//
// 3. The batches run on AMX: the loop over the batches, tdpbf16ps in the
//    code.
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-opt --xpu-cpu-pipeline="precision=bf16 chip=sapphirerapids threads=1" --xpu-remarks -o %t.mlir 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK
// REMARK: linalg.batch_matmul (bf16 into f32): one AMX product per batch, in an scf.for over the 3 batches
// REMARK: Lowered | Category:xpu-cpu-lower-amx-gemm | Reason="AMX GEMM 64x64x96 (padded)
// RUN: mlir-translate --mlir-to-llvmir %t.mlir | llc -O2 -o - | FileCheck %s --check-prefix=ASM
// ASM: tdpbf16ps

#map = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d2)>
func.func @forward(%a: tensor<3x40x70xf32>, %bm: tensor<3x70x50xf32>, %bias: tensor<50xf32> {xpu.weight}) -> tensor<3x40x50xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e1 = tensor.empty() : tensor<3x40x50xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<3x40x50xf32>) -> tensor<3x40x50xf32>
  %bmm = linalg.batch_matmul ins(%a, %bm : tensor<3x40x70xf32>, tensor<3x70x50xf32>) outs(%z : tensor<3x40x50xf32>) -> tensor<3x40x50xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%bmm, %bias : tensor<3x40x50xf32>, tensor<50xf32>) outs(%e1 : tensor<3x40x50xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<3x40x50xf32>
  return %biased : tensor<3x40x50xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

// t / 3 elementwise: thirds of multiples of 1/8 are not exact in bf16.
func.func private @third(%t: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %t, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %t, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %t, %c2 : tensor<?x?x?xf32>
  %e = tensor.empty(%d0, %d1, %d2) : tensor<?x?x?xf32>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%t : tensor<?x?x?xf32>) outs(%e : tensor<?x?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %three = arith.constant 3.0 : f32
    %v = arith.divf %in, %three : f32
    linalg.yield %v : f32
  } -> tensor<?x?x?xf32>
  return %r : tensor<?x?x?xf32>
}

func.func @main() {
  %c3 = arith.constant 3 : index
  %c40 = arith.constant 40 : index
  %c50 = arith.constant 50 : index
  %c70 = arith.constant 70 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %ad0 = call @gen3(%c3, %c40, %c70, %s1) : (index, index, index, i64) -> tensor<?x?x?xf32>
  %bmd0 = call @gen3(%c3, %c70, %c50, %s2) : (index, index, index, i64) -> tensor<?x?x?xf32>
  %ad = call @third(%ad0) : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %bmd = call @third(%bmd0) : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %biasd = call @gen1(%c50, %s3) : (index, i64) -> tensor<?xf32>
  %a = tensor.cast %ad : tensor<?x?x?xf32> to tensor<3x40x70xf32>
  %bm = tensor.cast %bmd : tensor<?x?x?xf32> to tensor<3x70x50xf32>
  %bias = tensor.cast %biasd : tensor<?xf32> to tensor<50xf32>
  %y = call @forward(%a, %bm, %bias)
      : (tensor<3x40x70xf32>, tensor<3x70x50xf32>, tensor<50xf32>) -> tensor<3x40x50xf32>
  %u = tensor.cast %y : tensor<3x40x50xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
