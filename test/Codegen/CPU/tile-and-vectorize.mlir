// RUN: xpu-opt %s --xpu-remarks -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-tile-and-vectorize))' \
// RUN:   | FileCheck %s

// Static shapes that the register tile divides: cache loops n, k, m (the
// cache tile [64, 256, 256] covers the whole 16x32x64 matmul, so no cache
// loop), register loops n (step 16), m (step 4), then k (step 1), with a
// 4x16 vector.contract and no masks.
// CHECK-LABEL: func.func @matmul_static
//   CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
//   CHECK-DAG:   %[[C4:.*]] = arith.constant 4 : index
//   CHECK-DAG:   %[[C16:.*]] = arith.constant 16 : index
//       CHECK:   scf.for %{{.*}} step %[[C16]]
//       CHECK:     scf.for %{{.*}} step %[[C4]]
//       CHECK:       scf.for %{{.*}} step %[[C1]]
//   CHECK-NOT:         vector.create_mask
//       CHECK:         vector.transfer_read {{.*}} vector<4x1xf32>
//       CHECK:         vector.transfer_read {{.*}} vector<1x16xf32>
//       CHECK:         vector.transfer_read {{.*}} vector<4x16xf32>
//       CHECK:         vector.contract {{.*}} vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
//       CHECK:         vector.transfer_write {{.*}} vector<4x16xf32>
//   CHECK-NOT:   linalg.matmul
func.func @matmul_static(%a: tensor<16x64xf32>, %b: tensor<64x32xf32>,
                         %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+1 {{[Passed] Vectorized | Category:xpu-cpu-tile-and-vectorize | Reason="GEMM tiled for caches [64, 256, 256] and registers [4, 16], vectorized"}}
  %r = linalg.matmul ins(%a, %b : tensor<16x64xf32>, tensor<64x32xf32>)
                     outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// A [n, k] rhs is packed to [k, n] by a linalg.transpose, itself tiled 8x8
// and vectorized; the packed buffer of a 1 KiB row stride gets one cache
// line of padding (256 + 16 columns).
// CHECK-LABEL: func.func @matmul_transposed_rhs
//       CHECK:   %[[E:.*]] = tensor.empty() : tensor<128x272xf32>
//       CHECK:   %[[S:.*]] = tensor.extract_slice %[[E]][0, 0] [128, 256] [1, 1]
//       CHECK:   scf.for {{.*}} step %c8 iter_args(%{{.*}} = %[[S]])
//       CHECK:     scf.for {{.*}} step %c8
//       CHECK:       vector.transfer_read {{.*}} permutation_map = {{.*}} vector<8x8xf32>
//       CHECK:       vector.transfer_write {{.*}} vector<8x8xf32>
//       CHECK:   vector.contract {{.*}} into vector<4x16xf32>
func.func @matmul_transposed_rhs(%a: tensor<64x128xf32>, %b: tensor<256x128xf32>,
                                 %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  // expected-remark @+1 {{Vectorized}}
  %r = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x128xf32>, tensor<256x128xf32>)
      outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// M, N, K = 131, 67, 97: no tile divides them, every loop has a partial
// last tile; the register tile keeps its 4x16 vector shape under masks.
// CHECK-LABEL: func.func @matmul_masked
//       CHECK:   scf.for {{.*}} step %c64
//       CHECK:     affine.min
//       CHECK:     scf.for {{.*}} step %c16
//       CHECK:       scf.for {{.*}} step %c4
//       CHECK:         scf.for {{.*}} step %c1
//       CHECK:           affine.min
//       CHECK:           vector.create_mask %{{.*}}, %{{.*}} : vector<4x1xi1>
//       CHECK:           %[[M:.*]] = vector.create_mask %{{.*}}, %{{.*}} : vector<4x16xi1>
//       CHECK:           vector.transfer_read {{.*}}, %[[M]] {{.*}} vector<4x16xf32>
//       CHECK:           vector.mask %{{.*}} { vector.contract {{.*}} } : vector<4x16x1xi1> -> vector<4x16xf32>
//       CHECK:           vector.transfer_write {{.*}} vector<4x16xf32>
func.func @matmul_masked(%a: tensor<131x97xf32>, %b: tensor<97x67xf32>,
                         %c: tensor<131x67xf32>) -> tensor<131x67xf32> {
  // expected-remark @+1 {{Vectorized}}
  %r = linalg.matmul ins(%a, %b : tensor<131x97xf32>, tensor<97x67xf32>)
                     outs(%c : tensor<131x67xf32>) -> tensor<131x67xf32>
  return %r : tensor<131x67xf32>
}

// Batched: a unit batch loop outermost, then the same n, m, k loops.
// CHECK-LABEL: func.func @batch_matmul
//       CHECK:   scf.for {{.*}} step %c1
//       CHECK:     scf.for {{.*}} step %c16
//       CHECK:       scf.for {{.*}} step %c4
//       CHECK:         scf.for {{.*}} step %c1
//       CHECK:           vector.contract {{.*}} vector<1x4x1xf32>, vector<1x1x16xf32> into vector<1x4x16xf32>
func.func @batch_matmul(%a: tensor<2x8x24xf32>, %b: tensor<2x24x32xf32>,
                        %c: tensor<2x8x32xf32>) -> tensor<2x8x32xf32> {
  // expected-remark @+1 {{Vectorized}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<2x8x24xf32>, tensor<2x24x32xf32>)
                           outs(%c : tensor<2x8x32xf32>) -> tensor<2x8x32xf32>
  return %r : tensor<2x8x32xf32>
}

// Elementwise generics are tiled [1, 16] and vectorized to vector<1x16xf32>.
// CHECK-LABEL: func.func @elementwise
//       CHECK:   scf.for {{.*}} step %c1
//       CHECK:     scf.for {{.*}} step %c16
//       CHECK:       vector.transfer_read {{.*}} vector<1x16xf32>
//       CHECK:       arith.maximumf {{.*}} : vector<1x16xf32>
//       CHECK:       vector.transfer_write {{.*}} vector<1x16xf32>
//   CHECK-NOT:   linalg.generic
func.func @elementwise(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.maximumf %in, %zero : f32
    linalg.yield %0 : f32
  } -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}

// A body with cf.assert cannot be vectorized: the generic stays scalar and
// untiled, with a remark.
// CHECK-LABEL: func.func @assert_stays_scalar
//   CHECK-NOT:   scf.for
//       CHECK:   linalg.generic
//       CHECK:     cf.assert
//   CHECK-NOT:   vector.
func.func @assert_stays_scalar(%v: tensor<32xf32>) -> tensor<32xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<32xf32>
  // expected-remark @+1 {{[Missed] NotVectorized | Category:xpu-cpu-tile-and-vectorize | Reason="linalg.generic cannot be vectorized (its body has ops the vectorizer does not support); left scalar"}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
                                        affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%v : tensor<32xf32>) outs(%e : tensor<32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.sqrt %in : f32
    %1 = arith.cmpf one, %0, %zero : f32
    cf.assert %1, "unimplemented: tensor with zero element"
    %2 = arith.divf %one, %0 : f32
    linalg.yield %2 : f32
  } -> tensor<32xf32>
  return %r : tensor<32xf32>
}

// Issue 10 (fuzzer): a zero-size dimension crashed upstream tiling
// (linalg::computeTileSizes). Such an op does no work: it is left to the
// scalar lowering, whose loops run zero times.
// CHECK-LABEL: func.func @zero_size_matmul_stays_scalar
//   CHECK-NOT:   scf.for
//       CHECK:   linalg.matmul
//   CHECK-NOT:   vector.
//       CHECK:   return
func.func @zero_size_matmul_stays_scalar(%a: tensor<0x8xf32>, %b: tensor<8x16xf32>, %c: tensor<0x16xf32>) -> tensor<0x16xf32> {
  // expected-remark @+1 {{[Missed] NotVectorized | Category:xpu-cpu-tile-and-vectorize | Reason="linalg.matmul has a zero-size dimension; left to the scalar lowering"}}
  %0 = linalg.matmul ins(%a, %b : tensor<0x8xf32>, tensor<8x16xf32>) outs(%c : tensor<0x16xf32>) -> tensor<0x16xf32>
  return %0 : tensor<0x16xf32>
}

// Zero-size k: the result is the initial value.
// CHECK-LABEL: func.func @zero_k_matmul_stays_scalar
//       CHECK:   linalg.matmul
//   CHECK-NOT:   vector.
func.func @zero_k_matmul_stays_scalar(%a: tensor<4x0xf32>, %b: tensor<0x16xf32>, %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-remark @+1 {{has a zero-size dimension}}
  %0 = linalg.matmul ins(%a, %b : tensor<4x0xf32>, tensor<0x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
