// RUN: xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-cpu-lower-vectors))' \
// RUN:   | FileCheck %s

#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs = affine_map<(m, n, k) -> (k, n)>
#acc = affine_map<(m, n, k) -> (m, n)>

// The hoisted micro-kernel (what xpu-cpu-hoist-vector-transfers leaves): the
// 4x16 accumulator is loaded as 4 rows of 16 before the k loop, each k step
// is 4 broadcasts of an lhs element times one rhs row (vector.fma on 1-D
// vectors), and 4 rows are stored after the loop.
// CHECK-LABEL: func.func @micro_kernel
//   CHECK-COUNT-4: vector.load {{.*}} : memref<16x32xf32>, vector<16xf32>
//           CHECK: scf.for {{.*}} -> (vector<4x16xf32>)
//           CHECK:   vector.load {{.*}} : memref<64x32xf32>, vector<16xf32>
//   CHECK-COUNT-4:   vector.fma {{.*}} : vector<16xf32>
//           CHECK:   scf.yield
//   CHECK-COUNT-4: vector.store {{.*}} : memref<16x32xf32>, vector<16xf32>
//       CHECK-NOT: vector.contract
//       CHECK-NOT: vector.transfer_
func.func @micro_kernel(%a: memref<16x64xf32>, %b: memref<64x32xf32>,
                        %c: memref<16x32xf32>, %i: index, %j: index) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %init = vector.transfer_read %c[%i, %j], %cst {in_bounds = [true, true]}
      : memref<16x32xf32>, vector<4x16xf32>
  %r = scf.for %k = %c0 to %c64 step %c1 iter_args(%acc = %init) -> (vector<4x16xf32>) {
    %va = vector.transfer_read %a[%i, %k], %cst {in_bounds = [true, true]}
        : memref<16x64xf32>, vector<4x1xf32>
    %vb = vector.transfer_read %b[%k, %j], %cst {in_bounds = [true, true]}
        : memref<64x32xf32>, vector<1x16xf32>
    %d = vector.contract {indexing_maps = [#lhs, #rhs, #acc],
                          iterator_types = ["parallel", "parallel", "reduction"],
                          kind = #vector.kind<add>} %va, %vb, %acc
        : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
    scf.yield %d : vector<4x16xf32>
  }
  vector.transfer_write %r, %c[%i, %j] {in_bounds = [true, true]}
      : vector<4x16xf32>, memref<16x32xf32>
  return
}

// A partial tile: masked transfers become 1-D masked loads and stores, the
// masked contraction selects between the fma and the old accumulator row.
// CHECK-LABEL: func.func @masked_micro_kernel
//   CHECK-NOT:   vector.create_mask {{.*}} : vector<4x16xi1>
//       CHECK:   vector.create_mask %{{.*}} : vector<16xi1>
//       CHECK:   vector.maskedload {{.*}} : memref<97x67xf32>, vector<16xi1>, vector<16xf32> into vector<16xf32>
//       CHECK:   vector.fma {{.*}} : vector<16xf32>
//       CHECK:   arith.select {{.*}} : vector<16xi1>, vector<16xf32>
//       CHECK:   vector.maskedstore {{.*}} : memref<131x67xf32>, vector<16xi1>, vector<16xf32>
//   CHECK-NOT:   vector.contract
//   CHECK-NOT:   vector.mask %
//   CHECK-NOT:   vector.transfer_
func.func @masked_micro_kernel(%a: memref<131x97xf32>, %b: memref<97x67xf32>,
                               %c: memref<131x67xf32>, %i: index, %j: index,
                               %k: index, %m: index, %n: index) {
  %cst = arith.constant 0.0 : f32
  %c1 = arith.constant 1 : index
  %ma = vector.create_mask %m, %c1 : vector<4x1xi1>
  %mb = vector.create_mask %c1, %n : vector<1x16xi1>
  %mc = vector.create_mask %m, %n : vector<4x16xi1>
  %mk = vector.create_mask %m, %n, %c1 : vector<4x16x1xi1>
  %va = vector.transfer_read %a[%i, %k], %cst, %ma {in_bounds = [true, true]}
      : memref<131x97xf32>, vector<4x1xf32>
  %vb = vector.transfer_read %b[%k, %j], %cst, %mb {in_bounds = [true, true]}
      : memref<97x67xf32>, vector<1x16xf32>
  %vc = vector.transfer_read %c[%i, %j], %cst, %mc {in_bounds = [true, true]}
      : memref<131x67xf32>, vector<4x16xf32>
  %d = vector.mask %mk {
    vector.contract {indexing_maps = [#lhs, #rhs, #acc],
                     iterator_types = ["parallel", "parallel", "reduction"],
                     kind = #vector.kind<add>} %va, %vb, %vc
        : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
  } : vector<4x16x1xi1> -> vector<4x16xf32>
  vector.transfer_write %d, %c[%i, %j], %mc {in_bounds = [true, true]}
      : vector<4x16xf32>, memref<131x67xf32>
  return
}

// An elementwise tile on a strided buffer: the unit leading dim is cast
// away, leaving 1-D loads, arith and stores.
// CHECK-LABEL: func.func @elementwise_row
//       CHECK:   vector.load {{.*}} vector<16xf32>
//       CHECK:   arith.maximumf {{.*}} : vector<16xf32>
//       CHECK:   vector.store {{.*}} vector<16xf32>
//   CHECK-NOT:   vector<1x16xf32>
func.func @elementwise_row(%x: memref<8x64xf32, strided<[128, 1], offset: ?>>,
                           %y: memref<8x64xf32>, %i: index, %j: index) {
  %cst = arith.constant 0.0 : f32
  %zero = arith.constant dense<0.0> : vector<1x16xf32>
  %v = vector.transfer_read %x[%i, %j], %cst {in_bounds = [true, true]}
      : memref<8x64xf32, strided<[128, 1], offset: ?>>, vector<1x16xf32>
  %r = arith.maximumf %v, %zero : vector<1x16xf32>
  vector.transfer_write %r, %y[%i, %j] {in_bounds = [true, true]}
      : vector<1x16xf32>, memref<8x64xf32>
  return
}

// The rhs packing block: a transposed 8x8 read becomes 8 row loads, a 1-D
// shuffle transpose, and 8 row stores.
// CHECK-LABEL: func.func @transpose_block
//   CHECK-COUNT-8: vector.load {{.*}} : memref<256x128xf32>, vector<8xf32>
//           CHECK: vector.shuffle
//   CHECK-COUNT-8: vector.store {{.*}} : memref<128x272xf32>, vector<8xf32>
//       CHECK-NOT: vector.transpose
func.func @transpose_block(%src: memref<256x128xf32>, %dst: memref<128x272xf32>,
                           %i: index, %j: index) {
  %cst = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%j, %i], %cst
      {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>}
      : memref<256x128xf32>, vector<8x8xf32>
  vector.transfer_write %v, %dst[%i, %j] {in_bounds = [true, true]}
      : vector<8x8xf32>, memref<128x272xf32>
  return
}

// A weight's packing block, 32 rows of 8 transposed into 8 rows of 32, is
// split into four 8x8 transposes of one 64-lane shuffle each: one 256-lane
// shuffle (or one per element) made LLVM's instruction selection the
// largest part of a model's compile time.
// CHECK-LABEL: func.func @transpose_panel
//   CHECK-COUNT-32: vector.load {{.*}} : memref<256x128xf32>, vector<8xf32>
//   CHECK-COUNT-4: vector.shuffle {{.*}} : vector<64xf32>, vector<64xf32>
//       CHECK-NOT: vector.shuffle {{.*}} : vector<256xf32>
//   CHECK-COUNT-8: vector.store {{.*}} : memref<128x272xf32>, vector<32xf32>
//       CHECK-NOT: vector.transpose
func.func @transpose_panel(%src: memref<256x128xf32>, %dst: memref<128x272xf32>,
                           %i: index, %j: index) {
  %cst = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%j, %i], %cst
      {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>}
      : memref<256x128xf32>, vector<8x32xf32>
  vector.transfer_write %v, %dst[%i, %j] {in_bounds = [true, true]}
      : vector<8x32xf32>, memref<128x272xf32>
  return
}

// Issue 10 (fuzzer): a 2^40-row vector in hand-written input made the
// unrolling stages run for ever; it is a located error.
// RUN: not xpu-opt %S/Inputs/huge-vector.mlir --pass-pipeline='builtin.module(func.func(xpu-cpu-lower-vectors))' 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HUGE
// HUGE: huge-vector.mlir:4:8: error: xpu-cpu-lower-vectors: 'vector<1099511627776x16xf32>' has more than 65536 elements, which the lowerings would unroll element by element

// A transfer of one element in a 2-D vector (a 1x1 edge tile) is kept from
// the stage-0 flattening: LLVM 22's vector::isContiguousSlice compares the
// empty shape left after dropping its unit dimensions with a negative size
// (found by the ASan build of this suite). The unit-dimension patterns make
// it a scalar access instead. So is the one-element read that the
// permutation-map lowering makes of a broadcast row statistic (the mean of a
// layer norm, one value per row of a [rows, 1] buffer).
// CHECK-LABEL: func.func @single_element
//       CHECK: %[[V:.*]] = memref.load %{{.*}} : memref<8x8xf32>
//       CHECK: memref.store %[[V]], %{{.*}} : memref<8x8xf32>
func.func @single_element(%src: memref<8x8xf32>, %dst: memref<8x8xf32>,
                          %i: index) {
  %cst = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%i, %i], %cst {in_bounds = [true, true]}
      : memref<8x8xf32>, vector<1x1xf32>
  vector.transfer_write %v, %dst[%i, %i] {in_bounds = [true, true]}
      : vector<1x1xf32>, memref<8x8xf32>
  return
}

// CHECK-LABEL: func.func @broadcast_row_statistic
//       CHECK: %[[S:.*]] = memref.load %{{.*}} : memref<2x16x1xf32>
//       CHECK: %[[B:.*]] = vector.broadcast %[[S]] : f32 to vector<16xf32>
//       CHECK: vector.store %[[B]], %{{.*}} : memref<2x16x64xf32>, vector<16xf32>
func.func @broadcast_row_statistic(%src: memref<2x16x1xf32>,
                                   %dst: memref<2x16x64xf32>, %i: index,
                                   %j: index) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%i, %j, %c0], %cst
      {in_bounds = [true, true, true],
       permutation_map = affine_map<(d0, d1, d2) -> (d0, d1, 0)>}
      : memref<2x16x1xf32>, vector<1x1x16xf32>
  vector.transfer_write %v, %dst[%i, %j, %c0] {in_bounds = [true, true, true]}
      : vector<1x1x16xf32>, memref<2x16x64xf32>
  return
}

// A broadcast to more dimensions than the memref has is not given to the
// flattening either (LLVM 22's contiguity check would ask the memref for two
// trailing strides): the row is loaded once; the write of the two rows, a
// minor identity, is flattened into one store.
// CHECK-LABEL: func.func @broadcast_rows
//       CHECK: vector.load %{{.*}} : memref<16xf32>, vector<16xf32>
//       CHECK: memref.collapse_shape %{{.*}} : memref<4x16xf32> into memref<64xf32>
//       CHECK: vector.store %{{.*}} : memref<64xf32>, vector<32xf32>
func.func @broadcast_rows(%src: memref<16xf32>, %dst: memref<4x16xf32>,
                          %i: index) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %v = vector.transfer_read %src[%c0], %cst
      {in_bounds = [true, true],
       permutation_map = affine_map<(d0) -> (0, d0)>}
      : memref<16xf32>, vector<2x16xf32>
  vector.transfer_write %v, %dst[%i, %c0] {in_bounds = [true, true]}
      : vector<2x16xf32>, memref<4x16xf32>
  return
}
