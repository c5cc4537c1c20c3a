// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-split-gemm-reduction))' | FileCheck %s
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-split-gemm-reduction))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Row sums of exp(x W^T) (softmax's denominator): the GEMM is marked, the
// reduction and the elementwise op in between are left as they are.
// CHECK-LABEL: func.func @row_sum_after_exp
//       CHECK:   %[[G:.+]] = xpu.gemm {{.*}} {xpu.reduction_consumer} : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xf32>
//       CHECK:   %[[E:.+]] = linalg.generic {{.*}} ins(%[[G]] : tensor<64x32xf32>)
//       CHECK:     math.exp
//       CHECK:   linalg.reduce ins(%[[E]] : tensor<64x32xf32>) outs(%{{.+}} : tensor<64xf32>) dimensions = [1]
func.func @row_sum_after_exp(%x: tensor<64x128xf32>, %w: tensor<32x128xf32>) -> tensor<64xf32> {
  // expected-remark @+1 {{GEMM 64x32x128 followed by a row reduction over n=32: kept as a GEMM then a separate reduction (never serialize over N inside one program); the 1 elementwise op(s) between them are eligible for epilogue fusion (the GEMM result has one user) (linalg.reduce)}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xf32>
  %e0 = tensor.empty() : tensor<64x32xf32>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<64x32xf32>) outs(%e0 : tensor<64x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<64x32xf32>
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<64xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%s0 : tensor<64xf32>) -> tensor<64xf32>
  %s = linalg.reduce ins(%e : tensor<64x32xf32>) outs(%s1 : tensor<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %s : tensor<64xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// torch-mlir's row max: a linalg.generic with a reduction over n, reading
// the GEMM result directly.
// CHECK-LABEL: func.func @row_max_generic
//       CHECK:   %[[G:.+]] = xpu.gemm {{.*}} {xpu.reduction_consumer}
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[G]] : tensor<16x8xf32>)
func.func @row_max_generic(%x: tensor<16x4xf32>, %w: tensor<4x8xf32>) -> tensor<16xf32> {
  // expected-remark @+1 {{GEMM 16x8x4 followed by a row reduction over n=8: kept as a GEMM then a separate reduction (never serialize over N inside one program); the reduction reads the GEMM result directly (linalg.generic)}}
  %g = xpu.gemm %x, %w rhs_layout(kn) acc(f32) : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %m0 = tensor.empty() : tensor<16xf32>
  %m1 = linalg.fill ins(%ninf : f32) outs(%m0 : tensor<16xf32>) -> tensor<16xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%g : tensor<16x8xf32>) outs(%m1 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %m : tensor<16xf32>
}

// -----

#t = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0)>

// Loops in the other order: the generic iterates (n, m) and reduces m, i.e.
// the GEMM result's dimension 0 — a column reduction, not marked.
// CHECK-LABEL: func.func @column_sum_is_not_marked
//   CHECK-NOT:   xpu.reduction_consumer
func.func @column_sum_is_not_marked(%x: tensor<16x4xf32>, %w: tensor<4x8xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{GEMM 16x8x4 followed by a column reduction over m=16 (linalg.generic): not a row reduction, not marked}}
  %g = xpu.gemm %x, %w rhs_layout(kn) acc(f32) : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<8xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%c0 : tensor<8xf32>) -> tensor<8xf32>
  %c = linalg.generic {indexing_maps = [#t, #out], iterator_types = ["parallel", "reduction"]}
      ins(%g : tensor<16x8xf32>) outs(%c1 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %c : tensor<8xf32>
}

// -----

// The same generic with a transposed read reduces n after all.
#t = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @transposed_read_row_sum
//       CHECK:   xpu.gemm {{.*}} {xpu.reduction_consumer}
func.func @transposed_read_row_sum(%x: tensor<16x4xf32>, %w: tensor<4x8xf32>) -> tensor<16xf32> {
  // expected-remark @+1 {{GEMM 16x8x4 followed by a row reduction over n=8}}
  %g = xpu.gemm %x, %w rhs_layout(kn) acc(f32) : (tensor<16x4xf32>, tensor<4x8xf32>) -> tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<16xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%c0 : tensor<16xf32>) -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#t, #out], iterator_types = ["reduction", "parallel"]}
      ins(%g : tensor<16x8xf32>) outs(%c1 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<16xf32>
  return %c : tensor<16xf32>
}

// -----

// linalg.reduce over m: a column reduction.
// CHECK-LABEL: func.func @column_reduce_is_not_marked
//   CHECK-NOT:   xpu.reduction_consumer
//       CHECK:   linalg.reduce
func.func @column_reduce_is_not_marked(%x: tensor<16x4xf32>, %w: tensor<8x4xf32>) -> tensor<8xf32> {
  // expected-remark @+1 {{GEMM 16x8x4 followed by a column reduction over m=16 (linalg.reduce): not a row reduction, not marked}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<8xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%c0 : tensor<8xf32>) -> tensor<8xf32>
  %c = linalg.reduce ins(%g : tensor<16x8xf32>) outs(%c1 : tensor<8xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %c : tensor<8xf32>
}

// -----

// A full reduction over m and n is not a row reduction either.
// CHECK-LABEL: func.func @full_reduce_is_not_marked
//   CHECK-NOT:   xpu.reduction_consumer
func.func @full_reduce_is_not_marked(%x: tensor<16x4xf32>, %w: tensor<8x4xf32>) -> tensor<f32> {
  // expected-remark @+1 {{GEMM 16x8x4 followed by a reduction over dimensions [0, 1] of its rank-2 result (linalg.reduce): only a reduction over n alone is a row reduction, not marked}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<16x4xf32>, tensor<8x4xf32>) -> tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<f32>
  %c1 = linalg.fill ins(%zero : f32) outs(%c0 : tensor<f32>) -> tensor<f32>
  %c = linalg.reduce ins(%g : tensor<16x8xf32>) outs(%c1 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %c : tensor<f32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Softmax as torch-mlir decomposes it: the row max reads the GEMM result
// and so does x - max, so the GEMM result has two users and the elementwise
// ops cannot move into the epilogue (the remark says so); both row
// reductions are reported and the GEMM is marked.
// CHECK-LABEL: func.func @softmax_two_row_reductions
//       CHECK:   xpu.gemm {{.*}} {xpu.reduction_consumer}
func.func @softmax_two_row_reductions(%x: tensor<8x4xf32>, %w: tensor<16x4xf32>) -> tensor<8x16xf32> {
  // expected-remark @+2 {{GEMM 8x16x4 followed by a row reduction over n=16: kept as a GEMM then a separate reduction (never serialize over N inside one program); the reduction reads the GEMM result directly (linalg.generic)}}
  // expected-remark @+1 {{GEMM 8x16x4 followed by a row reduction over n=16: kept as a GEMM then a separate reduction (never serialize over N inside one program); the 2 elementwise op(s) between them cannot move into the epilogue: the GEMM result has 2 users (linalg.reduce)}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<8x4xf32>, tensor<16x4xf32>) -> tensor<8x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %r0 = tensor.empty() : tensor<8xf32>
  %m1 = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<8xf32>) -> tensor<8xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%g : tensor<8x16xf32>) outs(%m1 : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  %e0 = tensor.empty() : tensor<8x16xf32>
  %sub = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %max : tensor<8x16xf32>, tensor<8xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %0 = arith.subf %in, %mx : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%sub : tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  %s1 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<8xf32>) -> tensor<8xf32>
  %sum = linalg.reduce ins(%exp : tensor<8x16xf32>) outs(%s1 : tensor<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  %div = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<8x16xf32>, tensor<8xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %0 = arith.divf %in, %s : f32
    linalg.yield %0 : f32
  } -> tensor<8x16xf32>
  return %div : tensor<8x16xf32>
}

// -----

// linalg.softmax over the last dimension of a batched GEMM (attention
// scores): a row reduction over n.
// CHECK-LABEL: func.func @batched_softmax_op
//       CHECK:   xpu.gemm {{.*}} {xpu.reduction_consumer}
//       CHECK:   linalg.softmax dimension(2)
func.func @batched_softmax_op(%q: tensor<2x8x4xf32>, %k: tensor<2x16x4xf32>) -> tensor<2x8x16xf32> {
  // expected-remark @+1 {{GEMM 2x(8x16x4) followed by a row reduction over n=16: kept as a GEMM then a separate reduction (never serialize over N inside one program); the reduction reads the GEMM result directly (linalg.softmax)}}
  %g = xpu.gemm %q, %k rhs_layout(nk) acc(f32) : (tensor<2x8x4xf32>, tensor<2x16x4xf32>) -> tensor<2x8x16xf32>
  %e = tensor.empty() : tensor<2x8x16xf32>
  %s = linalg.softmax dimension(2) ins(%g : tensor<2x8x16xf32>) outs(%e : tensor<2x8x16xf32>) -> tensor<2x8x16xf32>
  return %s : tensor<2x8x16xf32>
}

// -----

// A batch-dimension reduction of a batched GEMM is not a row reduction.
// CHECK-LABEL: func.func @batch_reduce_is_not_marked
//   CHECK-NOT:   xpu.reduction_consumer
func.func @batch_reduce_is_not_marked(%q: tensor<2x8x4xf32>, %k: tensor<2x16x4xf32>) -> tensor<8x16xf32> {
  // expected-remark @+1 {{GEMM 2x(8x16x4) followed by a reduction over dimensions [0] of its rank-3 result (linalg.reduce): only a reduction over n alone is a row reduction, not marked}}
  %g = xpu.gemm %q, %k rhs_layout(nk) acc(f32) : (tensor<2x8x4xf32>, tensor<2x16x4xf32>) -> tensor<2x8x16xf32>
  %zero = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<8x16xf32>
  %c1 = linalg.fill ins(%zero : f32) outs(%c0 : tensor<8x16xf32>) -> tensor<8x16xf32>
  %c = linalg.reduce ins(%g : tensor<2x8x16xf32>) outs(%c1 : tensor<8x16xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %0 = arith.addf %in, %acc : f32
      linalg.yield %0 : f32
    }
  return %c : tensor<8x16xf32>
}

// -----

// No reduction anywhere: nothing happens, no remark; a stale mark from an
// earlier run (the reduction is gone) is removed.
// CHECK-LABEL: func.func @no_reduction_is_untouched
//   CHECK-NOT:   xpu.reduction_consumer
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) : (tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x6xf32>
func.func @no_reduction_is_untouched(%x: tensor<8x4xf32>, %w: tensor<6x4xf32>) -> tensor<8x6xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {xpu.reduction_consumer} : (tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}
