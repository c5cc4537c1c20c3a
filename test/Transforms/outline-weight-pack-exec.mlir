// A forward whose weight is scaled per output channel and transposed before
// the matmul, then a bias add (torch-mlir linalg): run through xpu-run
// before and after xpu-outline-weight-pack and checked against the same
// float64 NumPy reference.
// RUN: cat %s %S/../Integration/CPU/Inputs/gen.mlir | xpu-opt --xpu-outline-weight-pack | FileCheck %s
// RUN: cat %s %S/../Integration/CPU/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void > %t.before
// RUN: cat %s %S/../Integration/CPU/Inputs/gen.mlir | xpu-opt --xpu-outline-weight-pack \
// RUN:   | xpu-run -e main -entry-point-result=void > %t.after
// RUN: for f in %t.before %t.after; do \
// RUN:   %refcheck --input x=16x64@1 --input w=32x64@2 --input s=32@3 --input b=32@4 \
// RUN:       --expr "x @ (w * s[:, None]).T + b" --tol 1e-5 < $f || exit 1; \
// RUN: done

// CHECK-LABEL: func.func @forward
//  CHECK-NEXT:   call @forward.pack
//  CHECK-NEXT:   call @forward.packed
//       CHECK: func.func @forward.pack
//       CHECK:   linalg.generic
//       CHECK:   linalg.transpose
//       CHECK: func.func @forward.packed
//       CHECK:   linalg.matmul
//       CHECK:   linalg.generic
// CHECK-LABEL: func.func @main

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d0)>
#map2 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<16x64xf32>, %w: tensor<32x64xf32> {xpu.weight}, %s: tensor<32xf32> {xpu.weight}, %b: tensor<32xf32> {xpu.weight}) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<32x64xf32>
  %ws = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<32x64xf32>, tensor<32xf32>) outs(%e0 : tensor<32x64xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %0 = arith.mulf %a, %c : f32
    linalg.yield %0 : f32
  } -> tensor<32x64xf32>
  %e1 = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.transpose ins(%ws : tensor<32x64xf32>) outs(%e1 : tensor<64x32xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<16x64xf32>, tensor<64x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %y = linalg.generic {indexing_maps = [#map, #map2, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e2 : tensor<16x32xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %s4 = arith.constant 4 : i64
  %xd = call @gen2(%c16, %c64, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c32, %c64, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %sd = call @gen1(%c32, %s3) : (index, i64) -> tensor<?xf32>
  %bd = call @gen1(%c32, %s4) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<16x64xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<32x64xf32>
  %s = tensor.cast %sd : tensor<?xf32> to tensor<32xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<32xf32>
  %y = call @forward(%x, %w, %s, %b)
      : (tensor<16x64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  %u = tensor.cast %y : tensor<16x32xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
