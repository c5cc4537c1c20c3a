// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm,convert-xpu-to-gpu),canonicalize,cse)' | FileCheck %s
// Every kernel is described in a remark (single-threaded: upstream's remark
// engine drops remarks of split chunks run on other threads).
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm,convert-xpu-to-gpu))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// A shape the tile divides: 64x64x32 in 32x32x16 tiles on pvc (16 lanes),
// data-parallel (xpu-schedule-gemm makes 4 programs, tile t at row t mod 2,
// column t / 2). 2x2 subgroups of 16 lanes -> 64 threads; each subgroup
// owns a 16x16 block, its 16 lanes split the columns, so every thread keeps
// 16x1 accumulators. stages = 2: two SLM buffers of 32x16 (A) and 16x32
// (B) = 1024 elements each, one barrier per K-step after a prologue copy.
// No masks, offsets in i32. The buffers are collapsed on the host, before
// the launch.
// CHECK-LABEL: func.func @divisible(
// CHECK-SAME: %[[X:.*]]: tensor<64x32xf32>, %[[W:.*]]: tensor<64x32xf32>, %[[B:.*]]: tensor<64xf32>)
// CHECK-DAG: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only
// CHECK-DAG: %[[WB:.*]] = bufferization.to_buffer %[[W]] read_only
// CHECK-DAG: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
// CHECK-DAG: %[[XF:.*]] = memref.collapse_shape %[[XB]] {{\[\[}}0, 1]] : memref<64x32xf32> into memref<2048xf32>
// CHECK-DAG: %[[CF:.*]] = memref.collapse_shape %[[C]] {{\[\[}}0, 1]] : memref<64x64xf32> into memref<4096xf32>
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c4, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[ASLM:.*]] = memref.alloc() : memref<1024xf32, 3>
// CHECK: %[[BSLM:.*]] = memref.alloc() : memref<1024xf32, 3>
// The schedule's tile origin, then the tile in i32.
// CHECK: %[[PM:.*]] = arith.remui %[[BX]], %c2 : index
// CHECK: %[[PN:.*]] = arith.divui %[[BX]], %c2 : index
// CHECK: %[[M0:.*]] = arith.muli %[[PM]], %c32 : index
// CHECK: %[[N0:.*]] = arith.muli %[[PN]], %c32 : index
// CHECK: arith.index_cast %[[M0]] : index to i32
// CHECK-NOT: scf.if
// Prologue: slice 0 of A (coalesced reads, i32 offsets) and B, then a barrier.
// CHECK: memref.load %[[XF]][%{{.*}}] : memref<2048xf32>
// CHECK: memref.store %{{.*}}, %[[ASLM]][%{{.*}}] : memref<1024xf32, 3>
// CHECK: gpu.barrier
// The K loop carries the 16 accumulators; slice s+1 is copied (when there
// is one) before slice s is consumed; one barrier per step.
// CHECK: %[[ACC:.*]]:16 = scf.for %[[S:.*]] = %c0 to %c2 step %c1 iter_args(
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[ASLM]]
// CHECK: memref.store %{{.*}}, %[[BSLM]]
// CHECK: }
// CHECK: scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(
// CHECK-COUNT-16: memref.load %[[ASLM]]
// CHECK: memref.load %[[BSLM]]
// CHECK-COUNT-16: math.fma
// CHECK: scf.yield
// CHECK: gpu.barrier
// CHECK: scf.yield
// Epilogue before each store: the bias is read per column (canonicalize
// folds the load from its to_buffer into a tensor.extract).
// CHECK: %[[BIAS:.*]] = tensor.extract %[[B]][%{{.*}}] : tensor<64xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]]#0, %[[BIAS]] : f32
// CHECK: memref.store %[[SUM]], %[[CF]][%{{.*}}] : memref<4096xf32>
// CHECK-COUNT-15: memref.store %{{.*}}, %[[CF]]
// CHECK: gpu.terminator
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[C]] restrict writable : memref<64x64xf32> to tensor<64x64xf32>
// CHECK: return %[[R]]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @divisible(%x: tensor<64x32xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>) -> tensor<64x64xf32> {
  // expected-remark @below {{64x64x32 for the simt backend: data_parallel: 4 tiles, one program each}}
  // expected-remark @below {{[Passed] Kernel | Category:convert-xpu-to-gpu | Reason="4 workgroups of 64 threads (2x2 subgroups of 16 lanes), 1 tile op(s); 16x1 accumulators per thread; 2 SLM buffer(s) of 32x16 + 16x32; masks on none; offsets in i32"}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<64xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [32, 32, 16], group_m = 2, subgroups = [2, 2], stages = 2, schedule = data_parallel>} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
}

// -----

// 37x70x50, which no 16x32x16 tile divides: every load checks the
// dimensions the tile overruns (m, n, k) and reads zero outside, every store
// checks m and n. stages = 1: one buffer, load / barrier / compute / barrier.
// CHECK-LABEL: func.func @odd(
// CHECK: gpu.launch
// CHECK: %[[ASLM:.*]] = memref.alloc() : memref<256xf32, 3>
// CHECK: %[[BSLM:.*]] = memref.alloc() : memref<512xf32, 3>
// CHECK: scf.for
// CHECK: %[[ROWOK:.*]] = arith.cmpi ult, %{{.*}}, %c37_i32 : i32
// CHECK: %[[KOK:.*]] = arith.cmpi ult, %{{.*}}, %c50_i32 : i32
// CHECK: %[[OK:.*]] = arith.andi %[[ROWOK]], %[[KOK]] : i1
// CHECK: %[[V:.*]] = scf.if %[[OK]] -> (f32) {
// CHECK:   memref.load
// CHECK: } else {
// CHECK:   scf.yield %cst : f32
// CHECK: }
// CHECK: memref.store %[[V]], %[[ASLM]]
// CHECK: arith.cmpi ult, %{{.*}}, %c70_i32 : i32
// CHECK: memref.store %{{.*}}, %[[BSLM]]
// CHECK: gpu.barrier
// CHECK: scf.for
// CHECK-COUNT-16: math.fma
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %{{.*}}, %c37_i32 : i32
// CHECK: arith.cmpi ult, %{{.*}}, %c70_i32 : i32
// CHECK: scf.if
// CHECK:   arith.maximumf
// CHECK:   memref.store
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @odd(%x: tensor<37x50xf32>, %w: tensor<50x70xf32>) -> tensor<37x70xf32> {
  // expected-remark @below {{37x70x50 for the simt backend: data_parallel: 9 tiles}}
  // expected-remark @below {{[Passed] Kernel | Category:convert-xpu-to-gpu | Reason="9 workgroups of 32 threads (1x2 subgroups of 16 lanes), 1 tile op(s); 16x1 accumulators per thread; 1 SLM buffer(s) of 16x16 + 16x32; masks on m, n, k; offsets in i32"}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) epilogue() {
  ^bb0(%acc: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %acc, %z : f32
    xpu.yield %r : f32
  } {config = #xpu.config<tile = [16, 32, 16], group_m = 8, subgroups = [1, 2], stages = 1, schedule = data_parallel>} : (tensor<37x50xf32>, tensor<50x70xf32>) -> tensor<37x70xf32>
  return %y : tensor<37x70xf32>
}
}

// -----

// int64_cast_for_large_batch_offsets: C has 65536 x 32768 = 2^31 elements,
// past the i32 range, so every offset is computed in i64 ... (512 x 256
// tiles of 128x128; 32x32 subgroup blocks over 16 lanes: 32x2 per thread)
// CHECK-LABEL: func.func @wide(
// CHECK: gpu.launch
// CHECK: memref.alloc() : memref<8192xf32, 3>
// CHECK: memref.alloc() : memref<8192xf32, 3>
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : i64
// CHECK: %[[OFF:.*]] = arith.muli %[[ROW]], %c64_i64 : i64
// CHECK: %[[ELEM:.*]] = arith.addi %[[OFF]], %{{.*}} : i64
// CHECK: %[[I:.*]] = arith.index_cast %[[ELEM]] : i64 to index
// CHECK: memref.load %{{.*}}[%[[I]]] : memref<4194304xf32>
// CHECK: arith.muli %{{.*}}, %c32768_i64 : i64
// CHECK: memref.store %{{.*}} : memref<2147483648xf32>
// CHECK-NOT: i32
// CHECK: bufferization.to_tensor
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @wide(%x: tensor<65536x64xf32>, %w: tensor<32768x64xf32>) -> tensor<65536x32768xf32> {
  // expected-remark @below {{65536x32768x64 for the simt backend: data_parallel: 131072 tiles}}
  // expected-remark @below {{[Passed] Kernel | Category:convert-xpu-to-gpu | Reason="131072 workgroups of 256 threads (4x4 subgroups of 16 lanes), 1 tile op(s); 32x2 accumulators per thread; 2 SLM buffer(s) of 128x32 + 32x128; masks on none; offsets in i64"}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [4, 4], stages = 3, schedule = data_parallel>} : (tensor<65536x64xf32>, tensor<32768x64xf32>) -> tensor<65536x32768xf32>
  return %y : tensor<65536x32768xf32>
}
}

// -----

// ... and just below it (46336^2 = 2147024896 < 2^31 - 1) in i32.
// CHECK-LABEL: func.func @narrow(
// CHECK: gpu.launch
// CHECK-NOT: i64
// CHECK: gpu.terminator
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @narrow(%x: tensor<46336x32xf32>, %w: tensor<46336x32xf32>) -> tensor<46336x46336xf32> {
  // expected-remark @below {{data_parallel: 131044 tiles}}
  // expected-remark @below {{offsets in i32}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [4, 4], stages = 1, schedule = data_parallel>} : (tensor<46336x32xf32>, tensor<46336x32xf32>) -> tensor<46336x46336xf32>
  return %y : tensor<46336x46336xf32>
}
}

// -----

// Batched: the batch is the tile index divided by the tiles of one batch
// (2), and offsets A, B and C by whole matrices (24x40, 40x16 and 24x16
// elements); scalar, per-row and full (residual) epilogue operands are read
// at the element's coordinates.
// CHECK-LABEL: func.func @batched(
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c6, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: %[[BI:.*]] = arith.divui %[[BX]], %c2 : index
// CHECK: %[[BATCH:.*]] = arith.index_cast %[[BI]] : index to i32
// CHECK: arith.muli %[[BATCH]], %c960_i32 : i32
// CHECK: arith.muli %[[BATCH]], %c640_i32 : i32
// CHECK: %[[SCALE:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK: arith.muli %[[BATCH]], %c384_i32 : i32
// CHECK: %[[ROWV:.*]] = tensor.extract %{{.*}}[%{{.*}}] : tensor<24xf32>
// CHECK: %[[RES:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1152xf32>
// CHECK: %[[P:.*]] = arith.mulf %{{.*}}, %[[SCALE]] : f32
// CHECK: %[[Q:.*]] = arith.addf %[[P]], %[[ROWV]] : f32
// CHECK: %[[T:.*]] = arith.addf %[[Q]], %[[RES]] : f32
// CHECK: memref.store %[[T]]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @batched(%a: tensor<3x24x40xf32>, %b: tensor<3x40x16xf32>, %s: tensor<f32>, %r: tensor<24xf32>, %res: tensor<3x24x16xf32>) -> tensor<3x24x16xf32> {
  // expected-remark @below {{3x(24x16x40) for the simt backend: data_parallel: 6 tiles}}
  // expected-remark @below {{[Passed] Kernel | Category:convert-xpu-to-gpu | Reason="6 workgroups of 16 threads (1x1 subgroups of 16 lanes), 1 tile op(s); 16x1 accumulators per thread; 1 SLM buffer(s) of 16x16 + 16x16; masks on m, k; offsets in i32"}}
  %y = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%s scalar : tensor<f32>, %r per_row : tensor<24xf32>, %res full : tensor<3x24x16xf32>) {
  ^bb0(%acc: f32, %sc: f32, %rv: f32, %rr: f32):
    %p = arith.mulf %acc, %sc : f32
    %q = arith.addf %p, %rv : f32
    %t = arith.addf %q, %rr : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<3x24x40xf32>, tensor<3x40x16xf32>) -> tensor<3x24x16xf32>
  return %y : tensor<3x24x16xf32>
}
}

// -----

// Stream-K, deterministic (3 programs, 2 tiles of 4 K-steps, all split):
// the main kernel loops over its pieces and stores each piece's f32
// accumulators, unmasked and without the epilogue, into its workspace slot;
// the fix-up kernel (one workgroup per split tile) loads the first slot,
// adds the others in slot order, then applies the epilogue (tanh) once and
// stores the tile with the m mask (20 rows in 16-row tiles).
// CHECK-LABEL: func.func @stream_k_deterministic(
// CHECK: %[[WS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x16x16xf32>
// CHECK: %[[WSF:.*]] = memref.collapse_shape %[[WS]] {{\[\[}}0, 1, 2]] : memref<4x16x16xf32> into memref<1024xf32>
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c3, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK:   scf.for
// CHECK:     scf.for
// CHECK:       math.fma
// CHECK-NOT:   math.tanh
// CHECK:     %[[BASE:.*]] = arith.muli %{{.*}}, %c256_i32 : i32
// CHECK-NOT:   scf.if
// CHECK:     memref.store %{{.*}}, %[[WSF]][%{{.*}}] : memref<1024xf32>
// CHECK-COUNT-15: memref.store %{{.*}}, %[[WSF]]
// CHECK: gpu.terminator
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK:   %[[FIRST:.*]] = memref.load %[[WSF]][%{{.*}}] : memref<1024xf32>
// CHECK:   %[[SUM:.*]]:16 = scf.for %{{.*}} = %c1 to %{{.*}} step %c1 iter_args(%[[ACC:.*]] = %[[FIRST]],
// CHECK:     %[[NEXT:.*]] = memref.load %[[WSF]]
// CHECK:     arith.addf %[[ACC]], %[[NEXT]] : f32
// CHECK:   scf.if
// CHECK:     %[[T:.*]] = math.tanh %[[SUM]]#0 : f32
// CHECK:     memref.store %[[T]]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @stream_k_deterministic(%x: tensor<20x64xf32>, %w: tensor<64x16xf32>) -> tensor<20x16xf32> {
  // expected-remark @below {{2 split into 8 K-steps of 4 (2 or 3 K-steps per program), at most 2 pieces per tile}}
  // expected-remark @below {{3 workgroups of 16 threads (1x1 subgroups of 16 lanes), 1 tile op(s); 16x1 accumulators per thread; 1 SLM buffer(s) of 16x16 + 16x16; masks on m; offsets in i32}}
  // expected-remark @below {{2 workgroups of 16 threads (1x1 subgroups of 16 lanes), 1 fix-up op(s); 16x1 accumulators per thread; no SLM; masks on m; offsets in i32}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) epilogue() {
  ^bb0(%acc: f32):
    %r = math.tanh %acc : f32
    xpu.yield %r : f32
  } {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 1, schedule = stream_k<programs = 3>>} : (tensor<20x64xf32>, tensor<64x16xf32>) -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}
}

// -----

// Stream-K with atomics: the pieces add into the tile's zeroed slot with
// memref.atomic_rmw addf, masked at the edge of m
// (streamk_atomic_add_needs_mask).
// CHECK-LABEL: func.func @stream_k_atomic(
// CHECK: linalg.fill
// CHECK: gpu.launch
// CHECK:   %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %c20_i32 : i32
// CHECK:   scf.if %{{.*}} {
// CHECK:     memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<512xf32>) -> f32
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @stream_k_atomic(%x: tensor<20x64xf32>, %w: tensor<64x16xf32>) -> tensor<20x16xf32> {
  // expected-remark @below {{pieces added with atomics into one zeroed slot per tile}}
  // expected-remark @below {{1 tile op(s)}}
  // expected-remark @below {{1 fix-up op(s)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 1, schedule = stream_k<programs = 3, fixup = atomic>>} : (tensor<20x64xf32>, tensor<64x16xf32>) -> tensor<20x16xf32>
  return %y : tensor<20x16xf32>
}
}

// -----

// Persistent: one launch of 2 workgroups, each looping over its tiles; the
// shared-memory buffers are allocated once, before the loop.
// CHECK-LABEL: func.func @persistent(
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK:   memref.alloc() : memref<256xf32, 3>
// CHECK:   scf.for %{{.*}} = %{{.*}} to %c6 step %c2 {
// CHECK-NOT: memref.alloc
// CHECK:     math.fma
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @persistent(%x: tensor<48x32xf32>, %w: tensor<32x32xf32>) -> tensor<48x32xf32> {
  // expected-remark @below {{persistent: 6 tiles on 2 programs (3 tiles per program)}}
  // expected-remark @below {{2 workgroups of 16 threads}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 1, schedule = persistent<programs = 2>>} : (tensor<48x32xf32>, tensor<32x32xf32>) -> tensor<48x32xf32>
  return %y : tensor<48x32xf32>
}
}

// -----

// #xpu.simt<vector = 4> on sm_90: runs of 4 rows and 4 columns. 2x1 warps of
// 32 lanes on a 64x64x16 tile: each warp owns 32x64, its lanes 4 x 8 (runs of
// 4: 16 rows by 32 columns), so every thread keeps 8x8 accumulators. The
// slices are moved 16 bytes at a time (K = 32 and the row pitch are
// multiples of 4): 4 reads of A and 4 of the [n, k] B per thread, both
// stored k-major (pitch 64 + 4) into two 16-byte aligned buffers of
// 2 x 16 x 68 floats. The K loop reads slice s + 1 into registers first,
// then computes slice s with straight-line code: per K value 2 runs of A and
// 2 of B from shared memory and 64 FMAs; then stores slice s + 1, barrier.
// CHECK-LABEL: func.func @vector4(
// CHECK-DAG: %[[XF:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<64x32xf32> into memref<2048xf32>
// CHECK-DAG: %[[WF:.*]] = memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<64x32xf32> into memref<2048xf32>
// CHECK: gpu.launch
// CHECK: %[[ASLM:.*]] = memref.alloc() {alignment = 16 : i64} : memref<2176xf32, 3>
// CHECK: %[[BSLM:.*]] = memref.alloc() {alignment = 16 : i64} : memref<2176xf32, 3>
// CHECK-NOT: scf.if
// CHECK-COUNT-4: vector.load %[[XF]][%{{.*}}] {alignment = 16 : i64} : memref<2048xf32>, vector<4xf32>
// CHECK-COUNT-4: vector.load %[[WF]][%{{.*}}] {alignment = 16 : i64} : memref<2048xf32>, vector<4xf32>
// CHECK: vector.extract %{{.*}}[0] : f32 from vector<4xf32>
// CHECK: memref.store %{{.*}}, %[[ASLM]][%{{.*}}] : memref<2176xf32, 3>
// CHECK: gpu.barrier
// CHECK: %[[ACC:.*]]:64 = scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(
// CHECK-COUNT-4: vector.load %[[XF]]
// CHECK-COUNT-4: vector.load %[[WF]]
// CHECK-COUNT-2: vector.load %[[ASLM]][%{{.*}}] {alignment = 16 : i64} : memref<2176xf32, 3>, vector<4xf32>
// CHECK-COUNT-2: vector.load %[[BSLM]][%{{.*}}] {alignment = 16 : i64} : memref<2176xf32, 3>, vector<4xf32>
// CHECK-COUNT-64: math.fma
// CHECK-NOT: scf.for
// CHECK: memref.store %{{.*}}, %[[ASLM]]
// CHECK: memref.store %{{.*}}, %[[BSLM]]
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK: arith.addf %[[ACC]]#0,
// CHECK: gpu.terminator
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @vector4(%x: tensor<64x32xf32>, %w: tensor<64x32xf32>, %b: tensor<64xf32>) -> tensor<64x64xf32> {
  // expected-remark @below {{64x64x32 for the simt backend: data_parallel: 1 tiles, one program each}}
  // expected-remark @below {{[Passed] Kernel | Category:convert-xpu-to-gpu | Reason="1 workgroups of 64 threads (2x1 subgroups of 32 lanes), 1 tile op(s); 8x8 accumulators per thread in runs of 4 rows and 4 columns, 4-wide loads, A k-major in SLM; 2 SLM buffer(s) of 64x16 + 16x64; masks on none; offsets in i32"}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<64xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [64, 64, 16], group_m = 1, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.simt<vector = 4>>} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
}

// -----

// A dynamic m: the launch takes the program count computed on the host
// from the rows, the flat views of A and the result stay dynamic, and every
// row of A read and of the result written is compared with the rows (in
// i64: the offsets of a buffer of any size).
// CHECK-LABEL: func.func @dynamic_m(
// CHECK: %[[ROWS:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x32xf32>
// CHECK: %[[TM:.*]] = arith.divui
// CHECK: %[[COUNT:.*]] = arith.muli %[[TM]], %c3
// CHECK: %[[XF:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<?x32xf32> into memref<?xf32>
// CHECK: %[[CF:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1]] : memref<?x48xf32> into memref<?xf32>
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[COUNT]], %{{.*}} = %c1, %{{.*}} = %c1) threads
// CHECK: %[[ROWS64:.*]] = arith.index_cast %[[ROWS]] : index to i64
// CHECK: %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %[[ROWS64]] : i64
// CHECK: scf.if %[[OK]] -> (f32)
// CHECK: memref.load %[[XF]][%{{.*}}] : memref<?xf32>
// CHECK: arith.cmpi ult, %{{.*}}, %[[ROWS64]] : i64
// CHECK: memref.store %{{.*}}, %[[CF]][%{{.*}}] : memref<?xf32>
// CHECK: gpu.terminator
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @dynamic_m(%x: tensor<?x32xf32>, %w: tensor<48x32xf32>, %b: tensor<48xf32>) -> tensor<?x48xf32> {
  // expected-remark @below {{?x48x32 for the simt backend: data_parallel, ceil(m / 32) x 3 programs counted at run time (m is dynamic)}}
  // expected-remark @below {{[Passed] Kernel | Category:convert-xpu-to-gpu | Reason="(counted at run time) workgroups of 16 threads (1x1 subgroups of 16 lanes), 1 tile op(s); 32x1 accumulators per thread; 2 SLM buffer(s) of 32x16 + 16x16; masks on m; offsets in i64"}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<48xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [32, 16, 16], group_m = 2, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<?x32xf32>, tensor<48x32xf32>) -> tensor<?x48xf32>
  return %y : tensor<?x48xf32>
}
}
