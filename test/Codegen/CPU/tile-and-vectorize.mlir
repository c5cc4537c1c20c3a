// Remarks of functions compiled on other threads are dropped by the
// remark engine: one thread.
// RUN: xpu-opt %s --xpu-remarks -verify-diagnostics --mlir-disable-threading \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-tile-and-vectorize))' \
// RUN:   | FileCheck %s
// RUN: xpu-opt %s \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-tile-and-vectorize{parallel=true}))' \
// RUN:   | FileCheck %s --check-prefix=PAR

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

// The packed GEMM of xpu-cpu-pack-operands (M, N, K = 131, 67, 600 in
// 6x16 panels): k = 600 is split at 512 (a multiple of kc = 256) so that
// every k loop has a static trip count; cache loops k, then row blocks (the
// 5 column panels fit one column block), register loops n, m, then k; each
// register tile reads 6 lhs values and 16 rhs values at one k and
// accumulates their vector.outerproduct into the 6x16 tile: no masks.
// CHECK-LABEL: func.func @packed_gemm
//   CHECK-NOT:   vector.create_mask
//       CHECK:   scf.for {{.*}} to %c512 step %c256
//       CHECK:     scf.for {{.*}} to %c22 step %c10
//       CHECK:       scf.for {{.*}} to %c5 step %c1
//       CHECK:         scf.for {{.*}} step %c1
//       CHECK:           scf.for {{.*}} to %c256 step %c1
//       CHECK:             vector.transfer_read {{.*}} vector<6xf32>
//       CHECK:             vector.transfer_read {{.*}} vector<16xf32>
//       CHECK:             vector.transfer_read {{.*}} vector<6x16xf32>
//       CHECK:             vector.outerproduct {{.*}} : vector<6xf32>, vector<16xf32>
//       CHECK:             vector.transfer_write {{.*}} vector<6x16xf32>
//       CHECK:   scf.for {{.*}} to %c22 step %c10
//       CHECK:           scf.for {{.*}} to %c88 step %c1
//       CHECK:             vector.outerproduct
//   CHECK-NOT:   linalg.generic
func.func @packed_gemm(%a: tensor<22x600x6xf32>, %b: tensor<5x600x16xf32>,
                       %c: tensor<22x5x6x16xf32>) -> tensor<22x5x6x16xf32> {
  // One remark for the k blocks [0, 512), one for the remainder [512, 600).
  // expected-remark @+2 {{[Passed] Vectorized | Category:xpu-cpu-tile-and-vectorize | Reason="packed GEMM (k = 512) tiled for caches [60, 256, 256] (rows, columns, k) and registers [6, 16], vectorized without masks"}}
  // expected-remark @+1 {{packed GEMM (k = 88) tiled}}
  %r = linalg.generic {
      indexing_maps = [affine_map<(m1, n1, k, mi, ni) -> (m1, k, mi)>,
                       affine_map<(m1, n1, k, mi, ni) -> (n1, k, ni)>,
                       affine_map<(m1, n1, k, mi, ni) -> (m1, n1, mi, ni)>],
      iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]}
      ins(%a, %b : tensor<22x600x6xf32>, tensor<5x600x16xf32>)
      outs(%c : tensor<22x5x6x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<22x5x6x16xf32>
  return %r : tensor<22x5x6x16xf32>
}

// The lhs panel packing: blocks of 8 k values of one 6-row panel, read as a
// (masked at the edges) 6x8 vector, transposed, written as 8 rows of 6.
// CHECK-LABEL: func.func @pack_lhs_panels
//       CHECK:   scf.for {{.*}} to %c22 step %c1
//       CHECK:     scf.for {{.*}} to %c97 step %c8
//       CHECK:       vector.transfer_read {{.*}} vector<6x8xf32>
//       CHECK:       vector.transpose
//       CHECK:       vector.transfer_write {{.*}} vector<1x8x6xf32>
func.func @pack_lhs_panels(%a: tensor<131x97xf32>) -> tensor<22x97x6xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<22x97x6xf32>
  %p = linalg.pack %a padding_value(%zero : f32) inner_dims_pos = [0] inner_tiles = [6]
      into %e : tensor<131x97xf32> -> tensor<22x97x6xf32>
  return %p : tensor<22x97x6xf32>
}

// Unpacking: one 6x16 tile per step, written (masked at the edges) into
// the 131x67 result.
// CHECK-LABEL: func.func @unpack_result
//       CHECK:   scf.for {{.*}} to %c131 step %c6
//       CHECK:     scf.for {{.*}} to %c67 step %c16
//       CHECK:       vector.transfer_read {{.*}} vector<1x1x6x16xf32>
//       CHECK:       vector.transfer_write {{.*}} vector<6x16xf32>
func.func @unpack_result(%c: tensor<22x5x6x16xf32>) -> tensor<131x67xf32> {
  %e = tensor.empty() : tensor<131x67xf32>
  %u = linalg.unpack %c inner_dims_pos = [0, 1] inner_tiles = [6, 16]
      into %e : tensor<22x5x6x16xf32> -> tensor<131x67xf32>
  return %u : tensor<131x67xf32>
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

// A sum along rows of 100: one row per step, 16-wide chunks accumulated
// into a vector of partial sums (the last chunk of 4 masked), merged by one
// vector.multi_reduction per row.
// CHECK-LABEL: func.func @row_sum
//       CHECK:   scf.for {{.*}} to %c8 step %c1
//       CHECK:     scf.for {{.*}} to %c100 step %c16
//       CHECK:       vector.create_mask
//       CHECK:       arith.addf {{.*}} : vector<1x16xf32>
//       CHECK:     vector.multi_reduction <add>, {{.*}} [1] : vector<1x16xf32> to vector<1xf32>
func.func @row_sum(%x: tensor<8x100xf32>, %init: tensor<8xf32>) -> tensor<8xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x100xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// A keepdim reduction as torch-mlir emits it writes through `(d0, 0)`, which
// upstream's partial-reduction tiling cannot read: the unit dimension is
// dropped first and the row is then reduced in vector chunks as above.
// CHECK-LABEL: func.func @row_sum_keepdim
//       CHECK:   tensor.collapse_shape {{.*}} : tensor<8x1xf32> into tensor<8xf32>
//       CHECK:   scf.for {{.*}} to %c8 step %c1
//       CHECK:     scf.for {{.*}} to %c48 step %c16
//       CHECK:       arith.addf {{.*}} : vector<1x16xf32>
//       CHECK:     vector.multi_reduction <add>, {{.*}} [1] : vector<1x16xf32> to vector<1xf32>
//       CHECK:   tensor.expand_shape {{.*}} : tensor<8xf32> into tensor<8x1xf32>
func.func @row_sum_keepdim(%x: tensor<8x48xf32>, %init: tensor<8x1xf32>) -> tensor<8x1xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, 0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x48xf32>) outs(%init : tensor<8x1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %0 = arith.addf %in, %acc : f32
    linalg.yield %0 : f32
  } -> tensor<8x1xf32>
  return %r : tensor<8x1xf32>
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

// The packed GEMM with the ops around it (the pack of its lhs, the fill,
// the unpack and an elementwise epilogue) as one loop nest: M, N, K = 301,
// 37, 700, a remainder in every dimension. Row blocks of 264 rows (the last
// one 37: arith.minsi); k in 2 blocks of 352 (the last one 348); per row
// block and k block the lhs rows are packed into a 44x352x6 buffer (6x8
// reads, transposed); then all 3 column panels times the row panels of the
// block, one 6x16 register tile each: the accumulator starts from the fill
// in the first k block and from the partial sums in the result after, the
// k loop runs outer products on the registers, and the last k block adds
// the bias, applies the ReLU and writes the tile into the 301x37 result
// (masked at the edges). No unpack and no separate epilogue are left.
// CHECK-LABEL: func.func @nest_bias_relu
//       CHECK:   %[[BUF:.*]] = tensor.empty() : tensor<44x352x6xf32>
//       CHECK:   scf.for %[[IC:.*]] = %c0 to %c301 step %c264
//       CHECK:     arith.minsi %{{.*}}, %c264
//       CHECK:     scf.for %[[PC:.*]] = %c0 to %c700 step %c352
//       CHECK:       arith.minsi %{{.*}}, %c352
//       CHECK:       scf.for
//       CHECK:         scf.for
//       CHECK:           vector.transfer_read %{{.*}} : tensor<301x700xf32>, vector<6x8xf32>
//       CHECK:           vector.transpose {{.*}} : vector<6x8xf32> to vector<8x6xf32>
//       CHECK:           vector.transfer_write {{.*}} : vector<8x6xf32>, tensor<44x352x6xf32>
//       CHECK:       scf.for %{{.*}} = %c0 to %c3 step %c1
//       CHECK:         scf.for
//       CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[PC]], %c0
//       CHECK:           scf.if %[[FIRST]] -> (vector<6x16xf32>)
//       CHECK:           } else {
//       CHECK:             vector.transfer_read {{.*}} : tensor<301x37xf32>, vector<6x16xf32>
//       CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<6x16xf32>)
//       CHECK:             vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<44x352x6xf32>, vector<6xf32>
//       CHECK:             vector.transfer_read {{.*}} {in_bounds = [true]} : tensor<3x700x16xf32>, vector<16xf32>
//       CHECK:             vector.outerproduct {{.*}} : vector<6xf32>, vector<16xf32>
//       CHECK:           %[[LAST:.*]] = arith.cmpi eq, %[[PC]], %c352
//       CHECK:           scf.if %[[LAST]] -> (tensor<301x37xf32>)
//       CHECK:             vector.transfer_read {{.*}} : tensor<37xf32>, vector<6x16xf32>
//       CHECK:             arith.addf {{.*}} : vector<6x16xf32>
//       CHECK:             arith.maximumf {{.*}} : vector<6x16xf32>
//       CHECK:             vector.transfer_write {{.*}} : vector<6x16xf32>, tensor<301x37xf32>
//       CHECK:           } else {
//       CHECK:             vector.transfer_write {{.*}} : vector<6x16xf32>, tensor<301x37xf32>
//   CHECK-NOT:   linalg.unpack
//   CHECK-NOT:   linalg.generic
//
// With `parallel` the row blocks are an scf.forall, at least 4 of them
// (78 = 301 / 4 rounded up to whole 6-row panels): each packs its own lhs
// block, computes its rows in a slice of the result (tile rows relative
// to the block) and inserts the slice back.
// PAR-LABEL: func.func @nest_bias_relu
//       PAR:   %[[E:.+]] = tensor.empty() : tensor<301x37xf32>
//       PAR:   scf.forall (%[[IC:.+]]) = (0) to (301) step (78) shared_outs(%[[OUT:.+]] = %[[E]])
//       PAR:     tensor.extract_slice %[[OUT]][%[[IC]], 0] [%[[N:.+]], 37] [1, 1] : tensor<301x37xf32> to tensor<?x37xf32>
//       PAR:     tensor.empty() : tensor<13x352x6xf32>
//       PAR:     vector.transpose
//       PAR:     %[[R:.+]] = arith.muli %{{.+}}, %c6 : index
//       PAR:     vector.transfer_read %{{.+}}[%[[R]], %{{.+}}], %{{.+}} : tensor<?x37xf32>, vector<6x16xf32>
//       PAR:     vector.transfer_read {{.*}} : tensor<37xf32>, vector<6x16xf32>
//       PAR:     vector.transfer_write %{{.+}}, %{{.+}}[%[[R]], %{{.+}}] : vector<6x16xf32>, tensor<?x37xf32>
//       PAR:   scf.forall.in_parallel
//       PAR:     tensor.parallel_insert_slice %{{.+}} into %[[OUT]][%[[IC]], 0] [%[[N]], 37] [1, 1]
func.func @nest_bias_relu(%x: tensor<301x700xf32>, %w: tensor<3x700x16xf32>,
                          %b: tensor<37xf32>) -> tensor<301x37xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<301x37xf32>
  %el = tensor.empty() : tensor<51x700x6xf32>
  %lhs = linalg.pack %x padding_value(%zero : f32) inner_dims_pos = [0]
      inner_tiles = [6] into %el : tensor<301x700xf32> -> tensor<51x700x6xf32>
  %ea = tensor.empty() : tensor<51x3x6x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ea : tensor<51x3x6x16xf32>) -> tensor<51x3x6x16xf32>
  // expected-remark @+1 {{[Passed] Vectorized | Category:xpu-cpu-tile-and-vectorize | Reason="packed GEMM 301x37x700 as one loop nest: rows in blocks of 264 (lhs packed per block), k in 2 block(s) of 352, [6, 16] register tiles written straight into the result (masked at the edges), epilogue applied to each tile in registers"}}
  %p = linalg.generic {
      indexing_maps = [affine_map<(m1, n1, k, mi, ni) -> (m1, k, mi)>,
                       affine_map<(m1, n1, k, mi, ni) -> (n1, k, ni)>,
                       affine_map<(m1, n1, k, mi, ni) -> (m1, n1, mi, ni)>],
      iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]}
      ins(%lhs, %w : tensor<51x700x6xf32>, tensor<3x700x16xf32>)
      outs(%acc : tensor<51x3x6x16xf32>) {
  ^bb0(%a: f32, %bv: f32, %c: f32):
    %m = arith.mulf %a, %bv : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<51x3x6x16xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [6, 16] into %e
      : tensor<51x3x6x16xf32> -> tensor<301x37xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%u, %b : tensor<301x37xf32>, tensor<37xf32>) outs(%e : tensor<301x37xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %t = arith.addf %v, %bias : f32
    %r = arith.maximumf %t, %zero : f32
    linalg.yield %r : f32
  } -> tensor<301x37xf32>
  return %y : tensor<301x37xf32>
}

// An epilogue whose straight-line code on the tile would be large (mish:
// three math functions, about 73 instructions per element, times 6 rows)
// is applied row by row: the last k block stores the 6x16 tile as it is,
// then a loop over its rows (6, fewer in the last panel: min(6, 301 - row),
// so that each row is in bounds) reads each row, applies the epilogue on
// vector<1x16> (the bias a broadcast row) and writes it back; only the
// columns stay masked.
// CHECK-LABEL: func.func @nest_bias_mish
//       CHECK:   scf.if
//       CHECK:     %[[TILE:.+]] = vector.transfer_write %{{.+}}, %{{.+}}[%[[R0:.+]], %[[C0:.+]]] : vector<6x16xf32>, tensor<301x37xf32>
//       CHECK:     %[[LEFT:.+]] = arith.subi %c301, %[[R0]] : index
//       CHECK:     %[[N:.+]] = arith.minsi %[[LEFT]], %c6 : index
//       CHECK:     scf.for %[[I:.+]] = %c0 to %[[N]] step %c1 iter_args(%[[T:.+]] = %[[TILE]])
//       CHECK:       %[[ROW:.+]] = arith.addi %[[R0]], %[[I]] : index
//       CHECK:       vector.transfer_read %[[T]][%[[ROW]], %[[C0]]], %{{.+}} {in_bounds = [true, false]} : tensor<301x37xf32>, vector<1x16xf32>
//       CHECK:       vector.transfer_read {{.*}} : tensor<37xf32>, vector<1x16xf32>
//       CHECK:       math.exp {{.*}} : vector<1x16xf32>
//       CHECK:       math.log1p {{.*}} : vector<1x16xf32>
//       CHECK:       math.tanh {{.*}} : vector<1x16xf32>
//       CHECK:       vector.transfer_write {{.*}}, %[[T]][%[[ROW]], %[[C0]]] {in_bounds = [true, false]} : vector<1x16xf32>, tensor<301x37xf32>
//       CHECK:   } else {
//       CHECK:     vector.transfer_write {{.*}} : vector<6x16xf32>, tensor<301x37xf32>
//   CHECK-NOT:   math.exp {{.*}} : vector<6x16xf32>
func.func @nest_bias_mish(%x: tensor<301x700xf32>, %w: tensor<3x700x16xf32>,
                          %b: tensor<37xf32>) -> tensor<301x37xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<301x37xf32>
  %el = tensor.empty() : tensor<51x700x6xf32>
  %lhs = linalg.pack %x padding_value(%zero : f32) inner_dims_pos = [0]
      inner_tiles = [6] into %el : tensor<301x700xf32> -> tensor<51x700x6xf32>
  %ea = tensor.empty() : tensor<51x3x6x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ea : tensor<51x3x6x16xf32>) -> tensor<51x3x6x16xf32>
  // expected-remark @+1 {{[Passed] Vectorized | Category:xpu-cpu-tile-and-vectorize | Reason="packed GEMM 301x37x700 as one loop nest: rows in blocks of 264 (lhs packed per block), k in 2 block(s) of 352, [6, 16] register tiles written straight into the result (masked at the edges), epilogue applied to each tile row by row"}}
  %p = linalg.generic {
      indexing_maps = [affine_map<(m1, n1, k, mi, ni) -> (m1, k, mi)>,
                       affine_map<(m1, n1, k, mi, ni) -> (n1, k, ni)>,
                       affine_map<(m1, n1, k, mi, ni) -> (m1, n1, mi, ni)>],
      iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]}
      ins(%lhs, %w : tensor<51x700x6xf32>, tensor<3x700x16xf32>)
      outs(%acc : tensor<51x3x6x16xf32>) {
  ^bb0(%a: f32, %bv: f32, %c: f32):
    %m = arith.mulf %a, %bv : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<51x3x6x16xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [6, 16] into %e
      : tensor<51x3x6x16xf32> -> tensor<301x37xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%u, %b : tensor<301x37xf32>, tensor<37xf32>) outs(%e : tensor<301x37xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %t = arith.addf %v, %bias : f32
    %ex = math.exp %t : f32
    %sp = math.log1p %ex : f32
    %th = math.tanh %sp : f32
    %r = arith.mulf %t, %th : f32
    linalg.yield %r : f32
  } -> tensor<301x37xf32>
  return %y : tensor<301x37xf32>
}

// Panels divide M and N, one k block, the lhs comes packed (an argument):
// no row-block pack, no scf.if on the k block, and every transfer of the
// register tile is in bounds (no masks).
// CHECK-LABEL: func.func @nest_divisible
//   CHECK-NOT:   vector.create_mask
//   CHECK-NOT:   scf.if
//       CHECK:   scf.for %{{.*}} = %c0 to %c2 step %c1
//       CHECK:     scf.for %{{.*}} = %c0 to %c2 step %c1
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<6x16xf32>)
//       CHECK:         vector.transfer_read {{.*}} : tensor<2x64x6xf32>, vector<6xf32>
//       CHECK:         vector.outerproduct
//       CHECK:       vector.transfer_write {{.*}} {in_bounds = [true, true]} : vector<6x16xf32>, tensor<12x32xf32>
//   CHECK-NOT:   vector.transpose
func.func @nest_divisible(%lhs: tensor<2x64x6xf32>, %w: tensor<2x64x16xf32>) -> tensor<12x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x32xf32>
  %ea = tensor.empty() : tensor<2x2x6x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ea : tensor<2x2x6x16xf32>) -> tensor<2x2x6x16xf32>
  // expected-remark @+1 {{packed GEMM 12x32x64 as one loop nest: rows in blocks of 12, k in 1 block(s) of 64, [6, 16] register tiles written straight into the result"}}
  %p = linalg.generic {
      indexing_maps = [affine_map<(m1, n1, k, mi, ni) -> (m1, k, mi)>,
                       affine_map<(m1, n1, k, mi, ni) -> (n1, k, ni)>,
                       affine_map<(m1, n1, k, mi, ni) -> (m1, n1, mi, ni)>],
      iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]}
      ins(%lhs, %w : tensor<2x64x6xf32>, tensor<2x64x16xf32>)
      outs(%acc : tensor<2x2x6x16xf32>) {
  ^bb0(%a: f32, %bv: f32, %c: f32):
    %m = arith.mulf %a, %bv : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x2x6x16xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [6, 16] into %e
      : tensor<2x2x6x16xf32> -> tensor<12x32xf32>
  return %u : tensor<12x32xf32>
}

// Batched, starting from a [b, m, n] init that the matmul packed: a batch
// loop outermost; the first k block reads the accumulator from the
// unpacked init (%c), so neither the init's pack nor the unpack is left.
// CHECK-LABEL: func.func @nest_batched_init
//  CHECK-SAME:   %{{.*}}: tensor<2x7x20xf32>, %{{.*}}: tensor<2x2x20x16xf32>, %[[C:.*]]: tensor<2x7x17xf32>
//       CHECK:   scf.for %[[B:.*]] = %c0 to %c2 step %c1
//       CHECK:     vector.transfer_read %{{.*}}[%[[B]], {{.*}} : tensor<2x7x20xf32>, vector<6x8xf32>
//       CHECK:     vector.transfer_read %[[C]][%[[B]], {{.*}} : tensor<2x7x17xf32>, vector<6x16xf32>
//       CHECK:     vector.outerproduct
//   CHECK-NOT:   linalg.pack
//   CHECK-NOT:   linalg.unpack
func.func @nest_batched_init(%x: tensor<2x7x20xf32>, %w: tensor<2x2x20x16xf32>,
                             %c: tensor<2x7x17xf32>) -> tensor<2x7x17xf32> {
  %zero = arith.constant 0.0 : f32
  %el = tensor.empty() : tensor<2x2x20x6xf32>
  %lhs = linalg.pack %x padding_value(%zero : f32) inner_dims_pos = [1]
      inner_tiles = [6] into %el : tensor<2x7x20xf32> -> tensor<2x2x20x6xf32>
  %ea = tensor.empty() : tensor<2x2x2x6x16xf32>
  %acc = linalg.pack %c padding_value(%zero : f32) inner_dims_pos = [1, 2]
      inner_tiles = [6, 16] into %ea : tensor<2x7x17xf32> -> tensor<2x2x2x6x16xf32>
  // expected-remark @+1 {{packed GEMM 7x17x20 as one loop nest}}
  %p = linalg.generic {
      indexing_maps = [affine_map<(b, m1, n1, k, mi, ni) -> (b, m1, k, mi)>,
                       affine_map<(b, m1, n1, k, mi, ni) -> (b, n1, k, ni)>,
                       affine_map<(b, m1, n1, k, mi, ni) -> (b, m1, n1, mi, ni)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]}
      ins(%lhs, %w : tensor<2x2x20x6xf32>, tensor<2x2x20x16xf32>)
      outs(%acc : tensor<2x2x2x6x16xf32>) {
  ^bb0(%a: f32, %bv: f32, %o: f32):
    %m = arith.mulf %a, %bv : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x2x2x6x16xf32>
  %e = tensor.empty() : tensor<2x7x17xf32>
  %u = linalg.unpack %p inner_dims_pos = [1, 2] inner_tiles = [6, 16] into %e
      : tensor<2x2x2x6x16xf32> -> tensor<2x7x17xf32>
  return %u : tensor<2x7x17xf32>
}

// Batched, with an activation as the rhs (its packing is in the function,
// not in <fn>.pack): the nest packs one batch's rhs panels per iteration of
// the batch loop, from that batch's slice, instead of all batches up front.
// CHECK-LABEL: func.func @nest_batched_rhs_per_batch
//  CHECK-SAME:   %{{.*}}: tensor<2x7x20xf32>, %[[Y:.*]]: tensor<2x20x17xf32>
//   CHECK-NOT:   tensor<2x2x20x16xf32>
//       CHECK:   scf.for %[[B:.*]] = %c0 to %c2 step %c1
//       CHECK:     tensor.extract_slice %[[Y]][%[[B]], 0, 0] [1, 20, 17] [1, 1, 1] : tensor<2x20x17xf32> to tensor<1x20x17xf32>
//       CHECK:     vector.transfer_read {{.*}} : tensor<1x2x20x16xf32>, vector<16xf32>
//       CHECK:     vector.outerproduct
//   CHECK-NOT:   linalg.pack
func.func @nest_batched_rhs_per_batch(%x: tensor<2x7x20xf32>,
                                      %y: tensor<2x20x17xf32>)
    -> tensor<2x7x17xf32> {
  %zero = arith.constant 0.0 : f32
  %el = tensor.empty() : tensor<2x2x20x6xf32>
  %lhs = linalg.pack %x padding_value(%zero : f32) inner_dims_pos = [1]
      inner_tiles = [6] into %el : tensor<2x7x20xf32> -> tensor<2x2x20x6xf32>
  %er = tensor.empty() : tensor<2x2x20x16xf32>
  %rhs = linalg.pack %y padding_value(%zero : f32) outer_dims_perm = [0, 2, 1]
      inner_dims_pos = [2] inner_tiles = [16] into %er
      : tensor<2x20x17xf32> -> tensor<2x2x20x16xf32>
  %ea = tensor.empty() : tensor<2x2x2x6x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ea : tensor<2x2x2x6x16xf32>)
      -> tensor<2x2x2x6x16xf32>
  // expected-remark @+1 {{the rhs (an activation) packed one batch at a time}}
  %p = linalg.generic {
      indexing_maps = [affine_map<(b, m1, n1, k, mi, ni) -> (b, m1, k, mi)>,
                       affine_map<(b, m1, n1, k, mi, ni) -> (b, n1, k, ni)>,
                       affine_map<(b, m1, n1, k, mi, ni) -> (b, m1, n1, mi, ni)>],
      iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]}
      ins(%lhs, %rhs : tensor<2x2x20x6xf32>, tensor<2x2x20x16xf32>)
      outs(%acc : tensor<2x2x2x6x16xf32>) {
  ^bb0(%a: f32, %bv: f32, %o: f32):
    %m = arith.mulf %a, %bv : f32
    %s = arith.addf %o, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x2x2x6x16xf32>
  %e = tensor.empty() : tensor<2x7x17xf32>
  %u = linalg.unpack %p inner_dims_pos = [1, 2] inner_tiles = [6, 16] into %e
      : tensor<2x2x2x6x16xf32> -> tensor<2x7x17xf32>
  return %u : tensor<2x7x17xf32>
}

// The unpacked product has a second user (it is returned too): the nest
// writes the product, and the ReLU stays a separate elementwise op (tiled
// [1, 16] and vectorized on its own).
// CHECK-LABEL: func.func @nest_product_two_uses
//       CHECK:   vector.outerproduct
//       CHECK:   vector.transfer_write {{.*}} : vector<6x16xf32>, tensor<12x32xf32>
//   CHECK-NOT:   arith.maximumf {{.*}} : vector<6x16xf32>
//       CHECK:   arith.maximumf {{.*}} : vector<1x16xf32>
func.func @nest_product_two_uses(%lhs: tensor<2x64x6xf32>, %w: tensor<2x64x16xf32>)
    -> (tensor<12x32xf32>, tensor<12x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<12x32xf32>
  %ea = tensor.empty() : tensor<2x2x6x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ea : tensor<2x2x6x16xf32>) -> tensor<2x2x6x16xf32>
  // expected-remark @+1 {{packed GEMM 12x32x64 as one loop nest: rows in blocks of 12, k in 1 block(s) of 64, [6, 16] register tiles written straight into the result"}}
  %p = linalg.generic {
      indexing_maps = [affine_map<(m1, n1, k, mi, ni) -> (m1, k, mi)>,
                       affine_map<(m1, n1, k, mi, ni) -> (n1, k, ni)>,
                       affine_map<(m1, n1, k, mi, ni) -> (m1, n1, mi, ni)>],
      iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]}
      ins(%lhs, %w : tensor<2x64x6xf32>, tensor<2x64x16xf32>)
      outs(%acc : tensor<2x2x6x16xf32>) {
  ^bb0(%a: f32, %bv: f32, %c: f32):
    %m = arith.mulf %a, %bv : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<2x2x6x16xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [6, 16] into %e
      : tensor<2x2x6x16xf32> -> tensor<12x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%u : tensor<12x32xf32>) outs(%e : tensor<12x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.maximumf %v, %zero : f32
    linalg.yield %r : f32
  } -> tensor<12x32xf32>
  return %u, %y : tensor<12x32xf32>, tensor<12x32xf32>
}

// An elementwise producer whose only use is a linalg.pack (the weight
// scaled by xpu-fold-affine-into-weights, then packed): the pack's tiles
// read the weight itself and apply the producer's body to the vector they
// read; lanes outside the read mask (the padding of the last panel) keep
// the padding value. The scaled weight is not materialized.
// CHECK-LABEL: func.func @pack_fuses_producer
//  CHECK-SAME:   %[[W:.*]]: tensor<37x20xf32>
//   CHECK-NOT:   linalg.generic
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       %[[S:.*]] = tensor.extract_slice %[[W]]
//       CHECK:       %[[M:.*]] = vector.create_mask {{.*}} : vector<16x8xi1>
//       CHECK:       %[[R:.*]] = vector.transfer_read %[[S]]{{.*}}, %[[M]]
//       CHECK:       %[[F:.*]] = arith.mulf %[[R]], %{{.*}} : vector<16x8xf32>
//       CHECK:       %[[P:.*]] = arith.select %[[M]], %[[F]], %{{.*}} : vector<16x8xi1>, vector<16x8xf32>
//       CHECK:       vector.transpose
//       CHECK:       vector.transfer_write
//   CHECK-NOT:   tensor<37x20xf32> to tensor<?x?xf32>
func.func @pack_fuses_producer(%w: tensor<37x20xf32>) -> tensor<3x20x16xf32> {
  %zero = arith.constant 0.0 : f32
  %m1 = arith.constant -1.0 : f32
  %e = tensor.empty() : tensor<37x20xf32>
  // expected-remark @+1 {{[Passed] FusedIntoPack | Category:xpu-cpu-tile-and-vectorize | Reason="elementwise op applied to the vectors the linalg.pack of its result reads; its result is not materialized"}}
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<37x20xf32>) outs(%e : tensor<37x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %m1 : f32
    linalg.yield %0 : f32
  } -> tensor<37x20xf32>
  %ep = tensor.empty() : tensor<3x20x16xf32>
  %p = linalg.pack %s padding_value(%zero : f32) inner_dims_pos = [0]
      inner_tiles = [16] into %ep : tensor<37x20xf32> -> tensor<3x20x16xf32>
  return %p : tensor<3x20x16xf32>
}

// A converting producer (f32 -> bf16, the activations of a bf16 GEMM
// packed into AMX blocks): the pack's tiles read f32 vectors of the input
// (with an f32 padding value), truncate them and pack bf16; the bf16 copy
// of the input is not materialized.
// CHECK-LABEL: func.func @pack_fuses_converting_producer
//  CHECK-SAME:   %[[X:.*]]: tensor<40x70xf32>
//   CHECK-NOT:   linalg.generic
//       CHECK:   %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       %[[S:.*]] = tensor.extract_slice %[[X]]
//       CHECK:       %[[M:.*]] = vector.create_mask {{.*}} : vector<32x32xi1>
//       CHECK:       %[[R:.*]] = vector.transfer_read %[[S]][%{{.*}}], %[[PAD]], %[[M]] {{.*}} : tensor<?x?xf32>, vector<32x32xf32>
//       CHECK:       %[[T:.*]] = arith.truncf %[[R]] : vector<32x32xf32> to vector<32x32xbf16>
//       CHECK:       arith.select %[[M]], %[[T]], %{{.*}} : vector<32x32xi1>, vector<32x32xbf16>
//       CHECK:       vector.transfer_write {{.*}} : vector<1x1x32x32xbf16>
func.func @pack_fuses_converting_producer(%x: tensor<40x70xf32>) -> tensor<2x3x32x32xbf16> {
  %zero = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<40x70xbf16>
  // expected-remark @+1 {{[Passed] FusedIntoPack | Category:xpu-cpu-tile-and-vectorize}}
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<40x70xf32>) outs(%e : tensor<40x70xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %0 = arith.truncf %in : f32 to bf16
    linalg.yield %0 : bf16
  } -> tensor<40x70xbf16>
  %ep = tensor.empty() : tensor<2x3x32x32xbf16>
  %p = linalg.pack %b padding_value(%zero : bf16) inner_dims_pos = [0, 1]
      inner_tiles = [32, 32] into %ep : tensor<40x70xbf16> -> tensor<2x3x32x32xbf16>
  return %p : tensor<2x3x32x32xbf16>
}

// The producer's result is also returned: it is materialized (tiled and
// vectorized on its own) and the pack reads it.
// CHECK-LABEL: func.func @pack_producer_two_uses
//       CHECK:   %[[S:.*]] = scf.for
//       CHECK:     arith.mulf {{.*}} : vector<1x16xf32>
//       CHECK:   scf.for
//       CHECK:     tensor.extract_slice %[[S]]
//   CHECK-NOT:     arith.mulf
func.func @pack_producer_two_uses(%w: tensor<37x20xf32>) -> (tensor<37x20xf32>, tensor<3x20x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %m1 = arith.constant -1.0 : f32
  %e = tensor.empty() : tensor<37x20xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<37x20xf32>) outs(%e : tensor<37x20xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.mulf %in, %m1 : f32
    linalg.yield %0 : f32
  } -> tensor<37x20xf32>
  %ep = tensor.empty() : tensor<3x20x16xf32>
  %p = linalg.pack %s padding_value(%zero : f32) inner_dims_pos = [0]
      inner_tiles = [16] into %ep : tensor<37x20xf32> -> tensor<3x20x16xf32>
  return %s, %p : tensor<37x20xf32>, tensor<3x20x16xf32>
}

// The nest of a dynamic batch of rows (m = ? at compile time): the row
// loop runs to the result's size read at run time, every row block is
// clipped to it, and the lhs reads and the result's writes are masked on
// the rows (in_bounds false) as a static edge that the panel does not
// divide is; k = 64 and n = 32 stay static and unmasked (the bias is a
// broadcast row).
// CHECK-LABEL: func.func @nest_dynamic_rows
//  CHECK-SAME:   %[[X:[a-zA-Z0-9]+]]: tensor<?x64xf32>
//       CHECK:   %[[M:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x32xf32>
//       CHECK:   scf.for %[[IC:.*]] = %c0 to %[[M]] step %c264
//       CHECK:     arith.subi %[[M]], %[[IC]]
//       CHECK:     arith.minsi %{{.*}}, %c264
//       CHECK:         scf.for
//       CHECK:           vector.transfer_read %[[X]]{{.*}} {in_bounds = [false, true]} : tensor<?x64xf32>, vector<6x8xf32>
//       CHECK:       scf.for %{{.*}} = %c0 to %c2 step %c1
//       CHECK:             vector.outerproduct {{.*}} : vector<6xf32>, vector<16xf32>
//       CHECK:           vector.transfer_read {{.*}} : tensor<32xf32>, vector<6x16xf32>
//       CHECK:           vector.transfer_write {{.*}} {in_bounds = [false, true]} : vector<6x16xf32>, tensor<?x32xf32>
//   CHECK-NOT:   linalg.unpack
//   CHECK-NOT:   linalg.generic
func.func @nest_dynamic_rows(%x: tensor<?x64xf32>, %w: tensor<2x64x16xf32>,
                             %b: tensor<32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x64xf32>
  %m1 = affine.apply affine_map<()[s0] -> (s0 ceildiv 6)>()[%m]
  %e = tensor.empty(%m) : tensor<?x32xf32>
  %el = tensor.empty(%m1) : tensor<?x64x6xf32>
  %lhs = linalg.pack %x padding_value(%zero : f32) inner_dims_pos = [0]
      inner_tiles = [6] into %el : tensor<?x64xf32> -> tensor<?x64x6xf32>
  %ea = tensor.empty(%m1) : tensor<?x2x6x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ea : tensor<?x2x6x16xf32>) -> tensor<?x2x6x16xf32>
  // expected-remark @+1 {{[Passed] Vectorized | Category:xpu-cpu-tile-and-vectorize | Reason="packed GEMM ?x32x64 as one loop nest: rows in blocks of 264 (lhs packed per block), k in 1 block(s) of 64, [6, 16] register tiles written straight into the result (masked at the edges), epilogue applied to each tile in registers"}}
  %p = linalg.generic {
      indexing_maps = [affine_map<(m1, n1, k, mi, ni) -> (m1, k, mi)>,
                       affine_map<(m1, n1, k, mi, ni) -> (n1, k, ni)>,
                       affine_map<(m1, n1, k, mi, ni) -> (m1, n1, mi, ni)>],
      iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]}
      ins(%lhs, %w : tensor<?x64x6xf32>, tensor<2x64x16xf32>)
      outs(%acc : tensor<?x2x6x16xf32>) {
  ^bb0(%a: f32, %bv: f32, %c: f32):
    %mul = arith.mulf %a, %bv : f32
    %s = arith.addf %c, %mul : f32
    linalg.yield %s : f32
  } -> tensor<?x2x6x16xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [6, 16] into %e
      : tensor<?x2x6x16xf32> -> tensor<?x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%u, %b : tensor<?x32xf32>, tensor<32xf32>) outs(%e : tensor<?x32xf32>) {
  ^bb0(%v: f32, %bias: f32, %o: f32):
    %t = arith.addf %v, %bias : f32
    %r = arith.maximumf %t, %zero : f32
    linalg.yield %r : f32
  } -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// The pair-dot contraction (xpu-cpu-pack-operands on an avx512bf16 chip:
// bf16 operands in k pairs into f32) gets the packed-GEMM nest with k in
// pairs. M, N, K = 301, 37, 700 with [4, 32] tiles: row blocks of 264, two
// k blocks of 352 (a multiple of 16). The lhs block is [66, 176, 8] bf16
// (176 k pairs of each 4-row panel, the 4 rows' pairs side by side), packed
// 16 k values of a panel per step as 4 x 8 32-bit pairs, transposed. The
// rhs [2, 350, 32, 2] is read as [2, 350, 64] rows: per k pair one vector
// of the 32 columns' pairs, in two halves of 16 columns; each row's pair is
// broadcast as one 32-bit value into 16 lanes, and one
// x86vector.avx512.dot per half accumulates into the row's 16 lanes.
// CHECK-LABEL: func.func @nest_dot_pairs
//  CHECK-SAME:   %[[X:[a-zA-Z0-9]+]]: tensor<301x700xbf16>, %[[W:[a-zA-Z0-9]+]]: tensor<2x350x32x2xbf16>
//       CHECK:   %[[WF:.+]] = tensor.collapse_shape %[[W]] {{\[}}[0], [1], [2, 3]] : tensor<2x350x32x2xbf16> into tensor<2x350x64xbf16>
//       CHECK:   tensor.empty() : tensor<66x176x8xbf16>
//       CHECK:   %[[T:.+]] = vector.transfer_read %[[X]]{{.*}} : tensor<301x700xbf16>, vector<4x16xbf16>
//       CHECK:   %[[TW:.+]] = vector.bitcast %[[T]] : vector<4x16xbf16> to vector<4x8xi32>
//       CHECK:   %[[TT:.+]] = vector.transpose %[[TW]], [1, 0] : vector<4x8xi32> to vector<8x4xi32>
//       CHECK:   %[[TB:.+]] = vector.bitcast %[[TT]] : vector<8x4xi32> to vector<8x8xbf16>
//       CHECK:   vector.transfer_write %[[TB]]{{.*}} : vector<8x8xbf16>, tensor<66x176x8xbf16>
//       CHECK:   scf.for
//       CHECK:     %[[COLS:.+]] = vector.transfer_read %[[WF]]{{.*}} : tensor<2x350x64xbf16>, vector<64xbf16>
//       CHECK:     %[[H0:.+]] = vector.extract_strided_slice %[[COLS]] {offsets = [0], sizes = [32], strides = [1]}
//       CHECK:     %[[H1:.+]] = vector.extract_strided_slice %[[COLS]] {offsets = [32], sizes = [32], strides = [1]}
//       CHECK:     %[[P:.+]] = vector.transfer_read {{.*}} : tensor<66x176x8xbf16>, vector<2xbf16>
//       CHECK:     %[[PW:.+]] = vector.bitcast %[[P]] : vector<2xbf16> to vector<1xi32>
//       CHECK:     %[[PS:.+]] = vector.broadcast %[[PW]] : vector<1xi32> to vector<16xi32>
//       CHECK:     %[[PB:.+]] = vector.bitcast %[[PS]] : vector<16xi32> to vector<32xbf16>
//       CHECK:     x86vector.avx512.dot %{{.+}}, %[[PB]], %[[H0]] : vector<32xbf16> -> vector<16xf32>
//       CHECK:     x86vector.avx512.dot %{{.+}}, %[[PB]], %[[H1]] : vector<32xbf16> -> vector<16xf32>
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   linalg.unpack
func.func @nest_dot_pairs(%x: tensor<301x700xbf16>, %w: tensor<2x350x32x2xbf16>) -> tensor<301x37xf32> {
  %zero = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %e = tensor.empty() : tensor<301x37xf32>
  %el = tensor.empty() : tensor<76x350x4x2xbf16>
  %lhs = linalg.pack %x padding_value(%zb : bf16) inner_dims_pos = [0, 1]
      inner_tiles = [4, 2] into %el : tensor<301x700xbf16> -> tensor<76x350x4x2xbf16>
  %ea = tensor.empty() : tensor<76x2x4x32xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ea : tensor<76x2x4x32xf32>) -> tensor<76x2x4x32xf32>
  // expected-remark @+1 {{[Passed] Vectorized | Category:xpu-cpu-tile-and-vectorize | Reason="packed GEMM 301x37x700 as one loop nest: rows in blocks of 264 (lhs packed per block), k in 2 block(s) of 352, [4, 32] register tiles of bf16 pair dot products (vdpbf16ps) written straight into the result (masked at the edges)"}}
  %p = linalg.generic {
      indexing_maps = [affine_map<(m1, n1, k2, mi, ni, kk) -> (m1, k2, mi, kk)>,
                       affine_map<(m1, n1, k2, mi, ni, kk) -> (n1, k2, ni, kk)>,
                       affine_map<(m1, n1, k2, mi, ni, kk) -> (m1, n1, mi, ni)>],
      iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
      ins(%lhs, %w : tensor<76x350x4x2xbf16>, tensor<2x350x32x2xbf16>)
      outs(%acc : tensor<76x2x4x32xf32>) {
  ^bb0(%a: bf16, %bv: bf16, %c: f32):
    %ae = arith.extf %a : bf16 to f32
    %be = arith.extf %bv : bf16 to f32
    %m = arith.mulf %ae, %be : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<76x2x4x32xf32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [4, 32] into %e
      : tensor<76x2x4x32xf32> -> tensor<301x37xf32>
  return %u : tensor<301x37xf32>
}

// The same nest for i16 pairs into i32 (widened i8 operands): per row and
// 16 columns, vpdpwssd as side-effect-free inline assembly (the buffer
// deallocation after this pass rejects llvm.call_intrinsic, whose memory
// effects are unknown), the accumulator tied to the result.
// CHECK-LABEL: func.func @nest_dot_pairs_i16
//       CHECK:   tensor.empty() : tensor<66x176x8xi16>
//       CHECK:   scf.for
//       CHECK:     %[[PB:.+]] = vector.bitcast %{{.+}} : vector<16xi32> to vector<32xi16>
//       CHECK:     llvm.inline_asm asm_dialect = att "vpdpwssd $2, $1, $0", "=v,v,v,0" %[[PB]], %{{.+}}, %{{.+}} : (vector<32xi16>, vector<32xi16>, vector<16xi32>) -> vector<16xi32>
func.func @nest_dot_pairs_i16(%x: tensor<301x700xi16>, %w: tensor<2x350x32x2xi16>) -> tensor<301x37xi32> {
  %zero = arith.constant 0 : i32
  %zs = arith.constant 0 : i16
  %e = tensor.empty() : tensor<301x37xi32>
  %el = tensor.empty() : tensor<76x350x4x2xi16>
  %lhs = linalg.pack %x padding_value(%zs : i16) inner_dims_pos = [0, 1]
      inner_tiles = [4, 2] into %el : tensor<301x700xi16> -> tensor<76x350x4x2xi16>
  %ea = tensor.empty() : tensor<76x2x4x32xi32>
  %acc = linalg.fill ins(%zero : i32) outs(%ea : tensor<76x2x4x32xi32>) -> tensor<76x2x4x32xi32>
  // expected-remark @+1 {{[4, 32] register tiles of i16 pair dot products (vpdpwssd) written straight into the result (masked at the edges)}}
  %p = linalg.generic {
      indexing_maps = [affine_map<(m1, n1, k2, mi, ni, kk) -> (m1, k2, mi, kk)>,
                       affine_map<(m1, n1, k2, mi, ni, kk) -> (n1, k2, ni, kk)>,
                       affine_map<(m1, n1, k2, mi, ni, kk) -> (m1, n1, mi, ni)>],
      iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]}
      ins(%lhs, %w : tensor<76x350x4x2xi16>, tensor<2x350x32x2xi16>)
      outs(%acc : tensor<76x2x4x32xi32>) {
  ^bb0(%a: i16, %bv: i16, %c: i32):
    %ae = arith.extsi %a : i16 to i32
    %be = arith.extsi %bv : i16 to i32
    %m = arith.muli %ae, %be : i32
    %s = arith.addi %c, %m : i32
    linalg.yield %s : i32
  } -> tensor<76x2x4x32xi32>
  %u = linalg.unpack %p inner_dims_pos = [0, 1] inner_tiles = [4, 32] into %e
      : tensor<76x2x4x32xi32> -> tensor<301x37xi32>
  return %u : tensor<301x37xi32>
}
