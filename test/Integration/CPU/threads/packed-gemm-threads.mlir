// A Linear with a [k, n] weight (x @ w + b, then GELU through math.erf) on
// M, N, K = 67, 301, 611: no register panel (14 or 6 rows, 32 or 16
// columns) divides M or N; with threads the packed GEMM's row blocks are
// the parallel loop (at least 4 where the rows have that many panels, the
// last one partial); k = 611 is split in two blocks. Run single-threaded,
// on 2 and on 3 threads and with the default (one thread per online
// core), each against the same float64 NumPy reference.
// DEFINE: %{check} = %refcheck --input x=67x611@1 --input w=611x301@2 --input b=301@3 \
// DEFINE:     --expr "gelu(x @ w + b)" --tol 1e-5
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=threads=1 | %{check}
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=threads=2 | %{check}
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=threads=3 | %{check}
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}
// The threaded code forks and joins POSIX threads, nothing else.
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-opt --xpu-cpu-pipeline=threads=2 | FileCheck %s
// CHECK: llvm.call @pthread_create
// CHECK: llvm.call @pthread_join
// CHECK-NOT: __kmpc

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<67x611xf32>, %w: tensor<611x301xf32> {xpu.weight}, %b: tensor<301xf32> {xpu.weight}) -> tensor<67x301xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %half = arith.constant 5.000000e-01 : f32
  %one = arith.constant 1.000000e+00 : f32
  %rsqrt2 = arith.constant 0.707106769 : f32
  %e = tensor.empty() : tensor<67x301xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<67x301xf32>) -> tensor<67x301xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<67x611xf32>, tensor<611x301xf32>) outs(%z : tensor<67x301xf32>) -> tensor<67x301xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<67x301xf32>, tensor<301xf32>) outs(%e : tensor<67x301xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %v = arith.addf %in, %bias : f32
    %s = arith.mulf %v, %rsqrt2 : f32
    %r = math.erf %s : f32
    %p = arith.addf %r, %one : f32
    %h = arith.mulf %v, %half : f32
    %g = arith.mulf %h, %p : f32
    linalg.yield %g : f32
  } -> tensor<67x301xf32>
  return %y : tensor<67x301xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c67 = arith.constant 67 : index
  %c301 = arith.constant 301 : index
  %c611 = arith.constant 611 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd = call @gen2(%c67, %c611, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c611, %c301, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c301, %s3) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<67x611xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<611x301xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<301xf32>
  %y = call @forward(%x, %w, %b) : (tensor<67x611xf32>, tensor<611x301xf32>, tensor<301xf32>) -> tensor<67x301xf32>
  %u = tensor.cast %y : tensor<67x301xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
