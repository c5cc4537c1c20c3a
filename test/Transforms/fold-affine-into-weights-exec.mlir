// Linear + scale + BatchNorm(eval) (KernelBench 39: y = bn(scale * (x W^T + b)))
// in xpu.gemm epilogue form, run before and after
// xpu-fold-affine-into-weights{reassociate=true} (the fold rounds differently
// from the epilogue, within the tolerance below) (and after folding +
// xpu-outline-weight-pack)
// and checked against the same float64 NumPy references:
//   #0 the decomposed BatchNorm: a separate inv_std = 1/sqrt(var + eps)
//      generic (with torch-mlir's cf.assert) read as a per_col operand;
//   #1 the rsqrt form: rsqrt(var + eps) inside the epilogue, then GELU (tanh
//      form), which stays in the epilogue and reads y, 0.5 * y and y^3;
//   #2 rhs_layout(kn) weights [k, n] with a 0-d scale and a per_col shift.
// RUN: cat %s %S/../Integration/CPU/Inputs/gen.mlir | xpu-opt --pass-pipeline='builtin.module(func.func(xpu-fold-affine-into-weights{reassociate=true}))' | FileCheck %s
// RUN: cat %s %S/../Integration/CPU/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void > %t.before
// RUN: cat %s %S/../Integration/CPU/Inputs/gen.mlir | xpu-opt --pass-pipeline='builtin.module(func.func(xpu-fold-affine-into-weights{reassociate=true}))' \
// RUN:   | xpu-run -e main -entry-point-result=void > %t.after
// RUN: cat %s %S/../Integration/CPU/Inputs/gen.mlir | xpu-opt --pass-pipeline='builtin.module(func.func(xpu-fold-affine-into-weights{reassociate=true}),xpu-outline-weight-pack)' \
// RUN:   | xpu-run -e main -entry-point-result=void > %t.outlined
// RUN: for f in %t.before %t.after %t.outlined; do \
// RUN:   %refcheck --index 0 --input x=16x64@1 --input w=32x64@2 --input b=32@3 --input s=32@4 \
// RUN:       --input gamma=32@5 --input beta=32@6 --input mean=32@7 --input var=32@8:pos \
// RUN:       --expr "((x @ w.T + b) * s - mean) / np.sqrt(var + 1e-5) * gamma + beta" --tol 1e-5 < $f || exit 1; \
// RUN:   %refcheck --index 1 --input x=16x64@1 --input w=32x64@2 --input b=32@3 --input s=32@4 \
// RUN:       --input gamma=32@5 --input beta=32@6 --input mean=32@7 --input var=32@8:pos \
// RUN:       --expr "(lambda y: 0.5 * y * (1 + np.tanh(0.7978845608 * (y + 0.044715 * y**3))))(((x @ w.T + b) * s - mean) / np.sqrt(var + 1e-5) * gamma + beta)" --tol 1e-5 < $f || exit 1; \
// RUN:   %refcheck --index 2 --input x=16x64@1 --input wkn=64x32@9 --input s0=1@10 --input t=32@11 \
// RUN:       --expr "(x @ wkn) * s0[0] + t" --tol 1e-5 < $f || exit 1; \
// RUN: done

// The folded forms: the weights are scaled by a generic, the epilogue is a
// bias add (then the GELU).
// CHECK-LABEL: func.func @bn_decomposed
//       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_col : tensor<32xf32>) {
//  CHECK-NEXT:   ^bb0(%[[A:.+]]: f32, %[[T:.+]]: f32):
//  CHECK-NEXT:     %[[R:.+]] = arith.addf %[[A]], %[[T]] : f32
//  CHECK-NEXT:     xpu.yield %[[R]] : f32
// CHECK-LABEL: func.func @bn_rsqrt_gelu
//       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_col : tensor<32xf32>) {
//  CHECK-NEXT:   ^bb0(%[[A:.+]]: f32, %[[T:.+]]: f32):
//  CHECK-NEXT:     %[[R:.+]] = arith.addf %[[A]], %[[T]] : f32
//   CHECK-NOT:     math.rsqrt
//       CHECK:     math.tanh
//       CHECK:     xpu.yield
// CHECK-LABEL: func.func @kn_scalar_scale
//       CHECK:   xpu.gemm {{.*}} rhs_layout(kn) acc(f32) epilogue(%{{.+}} per_col : tensor<32xf32>) {
//  CHECK-NEXT:   ^bb0(%[[A:.+]]: f32, %[[T:.+]]: f32):
//  CHECK-NEXT:     %[[R:.+]] = arith.addf %[[A]], %[[T]] : f32
//  CHECK-NEXT:     xpu.yield %[[R]] : f32

#map1 = affine_map<(d0) -> (d0)>
func.func @bn_decomposed(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>, %s: tensor<32xf32>,
                         %gamma: tensor<32xf32>, %beta: tensor<32xf32>,
                         %mean: tensor<32xf32>, %var: tensor<32xf32>) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %eps = arith.constant 1.000000e-05 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e = tensor.empty() : tensor<32xf32>
  %invstd = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]}
      ins(%var : tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %eps : f32
    %1 = math.sqrt %0 : f32
    %2 = arith.cmpf one, %1, %cst : f32
    cf.assert %2, "unimplemented: tensor with zero element"
    %3 = arith.divf %one, %1 : f32
    linalg.yield %3 : f32
  } -> tensor<32xf32>
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
      epilogue(%b per_col : tensor<32xf32>, %s per_col : tensor<32xf32>, %mean per_col : tensor<32xf32>,
               %invstd per_col : tensor<32xf32>, %gamma per_col : tensor<32xf32>, %beta per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %vb: f32, %vs: f32, %vm: f32, %vi: f32, %vg: f32, %vbt: f32):
    %0 = arith.addf %acc, %vb : f32
    %1 = arith.mulf %0, %vs : f32
    %2 = arith.subf %1, %vm : f32
    %3 = arith.mulf %2, %vi : f32
    %4 = arith.mulf %3, %vg : f32
    %5 = arith.addf %4, %vbt : f32
    xpu.yield %5 : f32
  } : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

func.func @bn_rsqrt_gelu(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>, %s: tensor<32xf32>,
                         %gamma: tensor<32xf32>, %beta: tensor<32xf32>,
                         %mean: tensor<32xf32>, %var: tensor<32xf32>) -> tensor<16x32xf32> {
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
      epilogue(%b per_col : tensor<32xf32>, %s per_col : tensor<32xf32>, %mean per_col : tensor<32xf32>,
               %var per_col : tensor<32xf32>, %gamma per_col : tensor<32xf32>, %beta per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %vb: f32, %vs: f32, %vm: f32, %vv: f32, %vg: f32, %vbt: f32):
    %eps = arith.constant 1.000000e-05 : f32
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %c = arith.constant 4.471500e-02 : f32
    %k = arith.constant 0.797884583 : f32
    %0 = arith.addf %acc, %vb : f32
    %1 = arith.mulf %0, %vs : f32
    %2 = arith.subf %1, %vm : f32
    %3 = arith.addf %vv, %eps : f32
    %4 = math.rsqrt %3 : f32
    %5 = arith.mulf %2, %4 : f32
    %6 = arith.mulf %5, %vg : f32
    %7 = arith.addf %6, %vbt : f32
    %g0 = arith.mulf %7, %half : f32
    %g1 = arith.mulf %7, %7 : f32
    %g2 = arith.mulf %g1, %7 : f32
    %g3 = arith.mulf %g2, %c : f32
    %g4 = arith.addf %7, %g3 : f32
    %g5 = arith.mulf %g4, %k : f32
    %g6 = math.tanh %g5 : f32
    %g7 = arith.addf %g6, %one : f32
    %g8 = arith.mulf %g0, %g7 : f32
    xpu.yield %g8 : f32
  } : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

func.func @kn_scalar_scale(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %s: tensor<f32>, %t: tensor<32xf32>) -> tensor<16x32xf32> {
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32)
      epilogue(%s scalar : tensor<f32>, %t per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %vs: f32, %vt: f32):
    %0 = arith.mulf %vs, %acc : f32
    %1 = arith.addf %vt, %0 : f32
    xpu.yield %1 : f32
  } : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %s4 = arith.constant 4 : i64
  %s5 = arith.constant 5 : i64
  %s6 = arith.constant 6 : i64
  %s7 = arith.constant 7 : i64
  %s8 = arith.constant 8 : i64
  %s9 = arith.constant 9 : i64
  %s10 = arith.constant 10 : i64
  %s11 = arith.constant 11 : i64
  %xd = call @gen2(%c16, %c64, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c32, %c64, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c32, %s3) : (index, i64) -> tensor<?xf32>
  %sd = call @gen1(%c32, %s4) : (index, i64) -> tensor<?xf32>
  %gd = call @gen1(%c32, %s5) : (index, i64) -> tensor<?xf32>
  %btd = call @gen1(%c32, %s6) : (index, i64) -> tensor<?xf32>
  %md = call @gen1(%c32, %s7) : (index, i64) -> tensor<?xf32>
  %vd = call @gen1pos(%c32, %s8) : (index, i64) -> tensor<?xf32>
  %wknd = call @gen2(%c64, %c32, %s9) : (index, index, i64) -> tensor<?x?xf32>
  %s0d = call @gen1(%c1, %s10) : (index, i64) -> tensor<?xf32>
  %td = call @gen1(%c32, %s11) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<16x64xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<32x64xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<32xf32>
  %s = tensor.cast %sd : tensor<?xf32> to tensor<32xf32>
  %g = tensor.cast %gd : tensor<?xf32> to tensor<32xf32>
  %bt = tensor.cast %btd : tensor<?xf32> to tensor<32xf32>
  %m = tensor.cast %md : tensor<?xf32> to tensor<32xf32>
  %v = tensor.cast %vd : tensor<?xf32> to tensor<32xf32>
  %wkn = tensor.cast %wknd : tensor<?x?xf32> to tensor<64x32xf32>
  %s01 = tensor.cast %s0d : tensor<?xf32> to tensor<1xf32>
  %s0 = tensor.collapse_shape %s01 [] : tensor<1xf32> into tensor<f32>
  %t = tensor.cast %td : tensor<?xf32> to tensor<32xf32>
  %y0 = call @bn_decomposed(%x, %w, %b, %s, %g, %bt, %m, %v)
      : (tensor<16x64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  %u0 = tensor.cast %y0 : tensor<16x32xf32> to tensor<*xf32>
  call @printMemrefF32(%u0) : (tensor<*xf32>) -> ()
  %y1 = call @bn_rsqrt_gelu(%x, %w, %b, %s, %g, %bt, %m, %v)
      : (tensor<16x64xf32>, tensor<32x64xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<16x32xf32>
  %u1 = tensor.cast %y1 : tensor<16x32xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()
  %y2 = call @kn_scalar_scale(%x, %wkn, %s0, %t)
      : (tensor<16x64xf32>, tensor<64x32xf32>, tensor<f32>, tensor<32xf32>) -> tensor<16x32xf32>
  %u2 = tensor.cast %y2 : tensor<16x32xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()
  return
}
