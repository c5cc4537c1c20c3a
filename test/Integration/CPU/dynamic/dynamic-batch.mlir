// nn.Linear(36, 24) + bias + GELU on x: [?, 36], a batch dimension known
// only at run time. One compiled @forward is called on batches of 1, 3, 17,
// 64 and 300 rows (300 > the 264-row block of the single-threaded nest);
// each result is checked against a float64 NumPy reference. k = 36 and
// n = 24 leave partial register tiles at the edges, and every batch but 64
// leaves a partial row panel, masked at run time.
// DEFINE: %{check} = %refcheck --input w=24x36@2 --input b=24@3 \
// DEFINE:     --expr "gelu(x @ w.T + b)" --tol 1e-5
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void > %t.default
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=threads=1 > %t.nest
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=optimize=false > %t.unfused
// With precision=bf16 and amx=false: on a host with avx512bf16 the pair-dot
// form (vdpbf16ps) with its dynamic rows, elsewhere the operands widened to
// f32. The inputs (multiples of 1/8 up to 1.375) are exact in bf16, so the
// same float64 reference and tolerance hold; a pair from the wrong row or
// k is off by O(1).
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="precision=bf16 amx=false threads=1" > %t.bf16
// RUN: for f in %t.default %t.nest %t.unfused %t.bf16; do \
// RUN:   %{check} --input x=1x36@1 --index 0 < $f && \
// RUN:   %{check} --input x=3x36@1 --index 1 < $f && \
// RUN:   %{check} --input x=17x36@1 --index 2 < $f && \
// RUN:   %{check} --input x=64x36@1 --index 3 < $f && \
// RUN:   %{check} --input x=300x36@1 --index 4 < $f || exit 1; done \
// RUN:   | FileCheck %s
// CHECK-COUNT-20: PASS: max relative error
// CHECK-NOT: FAIL

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<?x36xf32>, %w: tensor<24x36xf32> {xpu.weight}, %b: tensor<24xf32> {xpu.weight}) -> tensor<?x24xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %sqrt2 = arith.constant 1.41421354 : f32
  %rows = tensor.dim %x, %c0 : tensor<?x36xf32>
  %e0 = tensor.empty() : tensor<36x24xf32>
  %wt = linalg.transpose ins(%w : tensor<24x36xf32>) outs(%e0 : tensor<36x24xf32>) permutation = [1, 0]
  %e1 = tensor.empty(%rows) : tensor<?x24xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<?x24xf32>) -> tensor<?x24xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<?x36xf32>, tensor<36x24xf32>) outs(%z : tensor<?x24xf32>) -> tensor<?x24xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<?x24xf32>, tensor<24xf32>) outs(%e1 : tensor<?x24xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<?x24xf32>
  %act = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<?x24xf32>) outs(%e1 : tensor<?x24xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.divf %in, %sqrt2 : f32
    %1 = math.erf %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.mulf %in, %half : f32
    %4 = arith.mulf %3, %2 : f32
    linalg.yield %4 : f32
  } -> tensor<?x24xf32>
  return %act : tensor<?x24xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

// Builds x ([rows, 36], seed 1), calls @forward and prints the result.
func.func @run(%rows: index, %w: tensor<24x36xf32>, %b: tensor<24xf32>) {
  %c36 = arith.constant 36 : index
  %s1 = arith.constant 1 : i64
  %xd = call @gen2(%rows, %c36, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<?x36xf32>
  %y = call @forward(%x, %w, %b)
      : (tensor<?x36xf32>, tensor<24x36xf32>, tensor<24xf32>) -> tensor<?x24xf32>
  %u = tensor.cast %y : tensor<?x24xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c17 = arith.constant 17 : index
  %c24 = arith.constant 24 : index
  %c36 = arith.constant 36 : index
  %c64 = arith.constant 64 : index
  %c300 = arith.constant 300 : index
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %wd = call @gen2(%c24, %c36, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c24, %s3) : (index, i64) -> tensor<?xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<24x36xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<24xf32>
  call @run(%c1, %w, %b) : (index, tensor<24x36xf32>, tensor<24xf32>) -> ()
  call @run(%c3, %w, %b) : (index, tensor<24x36xf32>, tensor<24xf32>) -> ()
  call @run(%c17, %w, %b) : (index, tensor<24x36xf32>, tensor<24xf32>) -> ()
  call @run(%c64, %w, %b) : (index, tensor<24x36xf32>, tensor<24xf32>) -> ()
  call @run(%c300, %w, %b) : (index, tensor<24x36xf32>, tensor<24xf32>) -> ()
  return
}
