// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm),canonicalize,cse)' | FileCheck %s
// Every plan is a remark (single-threaded: upstream's remark engine drops
// remarks of split chunks run on other threads).
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// data_parallel: 64x48 in 32x16 tiles = 2 x 3 tiles, one program each. The
// host side: operand buffers, a 64-byte aligned result buffer, the result
// as a tensor. The program computes its tile's origin in the GROUP_SIZE_M
// order (group_m 2 covers both tile rows: tile t -> row t mod 2, column
// t / 2) and calls one output tile over the whole K. pvc runs 128 Xe-cores
// x 21 such workgroups at once (131072 bytes of SLM / (2 buffers x (32 +
// 16) x 16 x 4 bytes)).
// CHECK-LABEL: func.func @data_parallel(
// CHECK-SAME: %[[X:.*]]: tensor<64x32xf32>, %[[W:.*]]: tensor<48x32xf32>, %[[B:.*]]: tensor<48xf32>)
// CHECK-DAG: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<64x32xf32> to memref<64x32xf32>
// CHECK-DAG: %[[WB:.*]] = bufferization.to_buffer %[[W]] read_only
// CHECK-DAG: %[[BB:.*]] = bufferization.to_buffer %[[B]] read_only
// CHECK: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x48xf32>
// CHECK: scf.forall (%[[PID:.*]]) in (6) {
// CHECK:   %[[RM:.*]] = arith.remui %[[PID]], %c2
// CHECK:   %[[CN:.*]] = arith.divui %[[PID]], %c2
// CHECK:   %[[M0:.*]] = arith.muli %[[RM]], %c32
// CHECK:   %[[N0:.*]] = arith.muli %[[CN]], %c16
// CHECK:   xpu.gemm_tile output %[[XB]], %[[WB]] into %[[C]] epilogue(%[[BB]] : memref<48xf32>) at [%c0, %[[M0]], %[[N0]]] k [%c0, %c32]
// CHECK-SAME: dims = array<i64: 1, 64, 48, 32>, rhs_layout = #xpu<rhs_layout nk>
// CHECK:     arith.addf
// CHECK: } {mapping = [#gpu.block<x>]}
// CHECK-NOT: scf.forall
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[C]] restrict writable
// CHECK: return %[[R]]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @data_parallel(%x: tensor<64x32xf32>, %w: tensor<48x32xf32>, %b: tensor<48xf32>) -> tensor<64x48xf32> {
  // expected-remark @below {{64x48x32 for the simt backend: data_parallel: 6 tiles, one program each; 2688 workgroups run at once on pvc}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<48xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [32, 16, 16], group_m = 2, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<64x32xf32>, tensor<48x32xf32>) -> tensor<64x48xf32>
  return %y : tensor<64x48xf32>
}
}

// -----

// persistent<programs = 4>: 6 tiles, programs loop with stride 4 (tile t on
// program t mod 4).
// CHECK-LABEL: func.func @persistent
// CHECK: scf.forall (%[[PID:.*]]) in (4) {
// CHECK:   scf.for %[[T:.*]] = %[[PID]] to %c6 step %c4 {
// CHECK:     arith.remui %[[T]], %c2
// CHECK:     xpu.gemm_tile output {{.*}} k [%c0, %c32]
// CHECK: } {mapping = [#gpu.block<x>]}
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @persistent(%x: tensor<64x32xf32>, %w: tensor<32x48xf32>) -> tensor<64x48xf32> {
  // expected-remark @below {{64x48x32 for the simt backend: persistent: 6 tiles on 4 programs (1 or 2 tiles per program)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 16, 16], group_m = 2, subgroups = [1, 1], stages = 2, schedule = persistent<programs = 4>>} : (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32>
  return %y : tensor<64x48xf32>
}
}

// -----

// A persistent program count above the tiles: one program per tile, no
// loop.
// CHECK-LABEL: func.func @persistent_more_programs_than_tiles
// CHECK: scf.forall (%{{.*}}) in (6) {
// CHECK-NOT: scf.for
// CHECK:   xpu.gemm_tile output
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @persistent_more_programs_than_tiles(%x: tensor<64x32xf32>, %w: tensor<32x48xf32>) -> tensor<64x48xf32> {
  // expected-remark @below {{persistent: 6 tiles on 6 programs (1 tiles per program)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 16, 16], group_m = 2, subgroups = [1, 1], stages = 2, schedule = persistent<programs = 64>>} : (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32>
  return %y : tensor<64x48xf32>
}
}

// -----

// stream_k<programs = 4>, 6 tiles of 4 K-steps (K = 64, tile_k 16): the
// last wave's 6 mod 4 = 2 tiles are split (no second full wave precedes
// them), the first 4 are data-parallel (one per program). The 8 split
// K-steps go 2 per program: program p takes K-steps [2p, 2p + 2) of the
// split tiles, in tile j = 2p / 4, as piece p - 4j / 2 (the owner of the
// tile's first K-step) in slot 2j + piece. A second forall, one program per
// split tile, sums its slots in order and applies the epilogue (only the
// fix-up has the maximumf).
// CHECK-LABEL: func.func @stream_k
// CHECK: %[[WS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x32x16xf32>
// CHECK: scf.forall (%[[PID:.*]]) in (4) {
// CHECK:   xpu.gemm_tile output {{.*}} k [%c0, %c64]
// CHECK:     arith.maximumf
// CHECK:   %[[S:.*]] = arith.muli %[[PID]], %c2
// CHECK:   %[[E:.*]] = arith.addi %[[S]], %c2
// CHECK:   scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK:     %[[TB:.*]] = arith.muli %[[J]], %c4
// CHECK:     %[[MAX:.*]] = arith.maxui %[[S]], %[[TB]]
// CHECK:     %[[KBI:.*]] = arith.subi %[[MAX]], %[[TB]]
// CHECK:     %[[KB:.*]] = arith.muli %[[KBI]], %c16
// CHECK:     %[[KE:.*]] = arith.minui %{{.*}}, %c64
// CHECK:     %[[OWNER:.*]] = arith.divui %[[TB]], %c2
// CHECK:     %[[PIECE:.*]] = arith.subi %[[PID]], %[[OWNER]]
// CHECK:     %[[J2:.*]] = arith.muli %[[J]], %c2
// CHECK:     %[[SLOT:.*]] = arith.addi %[[J2]], %[[PIECE]]
// CHECK:     xpu.gemm_tile partial {{.*}} into %[[WS]][%[[SLOT]]] at [{{.*}}] k [%[[KB]], %[[KE]]]
// CHECK-NOT:     arith.maximumf
// CHECK: } {mapping = [#gpu.block<x>]}
// CHECK: scf.forall (%[[F:.*]]) in (2) {
// CHECK:   %[[FIRST:.*]] = arith.muli %[[F]], %c2
// CHECK:   xpu.gemm_fixup %[[WS]][%[[FIRST]], %{{.*}}] into %{{.*}} at [
// CHECK:     arith.maximumf
// CHECK: } {mapping = [#gpu.block<x>]}
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @stream_k(%x: tensor<64x64xf32>, %w: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-remark @below {{64x48x64 for the simt backend: stream_k: 6 tiles on 4 programs: 4 data-parallel, 2 split into 8 K-steps of 4 (2 K-steps per program), at most 2 pieces per tile, each in its own workspace slot, summed in program order; 2 fix-up programs; 2688 workgroups run at once on pvc; workspace 4 slot(s) of 32x16 f32 = 8192 bytes}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) epilogue() {
  ^bb0(%acc: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %acc, %z : f32
    xpu.yield %r : f32
  } {config = #xpu.config<tile = [32, 16, 16], group_m = 2, subgroups = [1, 1], stages = 2, schedule = stream_k<programs = 4>>} : (tensor<64x64xf32>, tensor<64x48xf32>) -> tensor<64x48xf32>
  return %y : tensor<64x48xf32>
}
}

// -----

// The atomic fix-up: one zeroed f32 slot per split tile
// (streamk_output_must_be_prezeroed), atomic_add pieces into the tile's
// slot, fix-ups of one slot.
// CHECK-LABEL: func.func @stream_k_atomic
// CHECK: %[[WS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x32x16xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[WS]] : memref<2x32x16xf32>)
// CHECK: scf.for %[[J:.*]] =
// CHECK:   xpu.gemm_tile atomic_add {{.*}} into %[[WS]][%[[J]]]
// CHECK: xpu.gemm_fixup %[[WS]][%{{.*}}, %c1]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @stream_k_atomic(%x: tensor<64x64xf32>, %w: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-remark @below {{pieces added with atomics into one zeroed slot per tile; 2 fix-up programs; 2688 workgroups run at once on pvc; workspace 2 slot(s) of 32x16 f32 = 4096 bytes}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 16, 16], group_m = 2, subgroups = [1, 1], stages = 2, schedule = stream_k<programs = 4, fixup = atomic>>} : (tensor<64x64xf32>, tensor<64x48xf32>) -> tensor<64x48xf32>
  return %y : tensor<64x48xf32>
}
}

// -----

// A tile count the programs divide: nothing to split, the Stream-K schedule
// is the data-parallel waves on its programs (no workspace, no fix-up).
// CHECK-LABEL: func.func @stream_k_nothing_to_split
// CHECK-NOT: x32x16xf32>
// CHECK: scf.forall (%{{.*}}) in (3) {
// CHECK:   scf.for
// CHECK:     xpu.gemm_tile output
// CHECK-NOT: xpu.gemm_fixup
// CHECK: return
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @stream_k_nothing_to_split(%x: tensor<64x64xf32>, %w: tensor<64x48xf32>) -> tensor<64x48xf32> {
  // expected-remark @below {{stream_k: 6 tiles on 3 programs: all data-parallel (2 whole waves, nothing to split)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 16, 16], group_m = 2, subgroups = [1, 1], stages = 2, schedule = stream_k<programs = 3>>} : (tensor<64x64xf32>, tensor<64x48xf32>) -> tensor<64x48xf32>
  return %y : tensor<64x48xf32>
}
}

// -----

// K-steps fewer than programs: 2 tiles of 2 K-steps on 8 programs; both
// tiles are split (no full wave), 4 K-steps on 8 programs: programs 0-3
// take one each, 4-7 none (their range is empty: the scf.if skips them).
// Batched, with M (20) smaller than the tile: one tile per batch, the
// batch is the tile index.
// CHECK-LABEL: func.func @k_steps_fewer_than_programs
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<4x32x16xf32>
// CHECK: scf.forall (%{{.*}}) in (8) {
// CHECK-NOT: xpu.gemm_tile output
// CHECK:   scf.if
// CHECK:     xpu.gemm_tile partial
// CHECK: scf.forall (%{{.*}}) in (2) {
// CHECK:   xpu.gemm_fixup
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @k_steps_fewer_than_programs(%x: tensor<2x20x32xf32>, %w: tensor<2x32x16xf32>) -> tensor<2x20x16xf32> {
  // expected-remark @below {{2x(20x16x32) for the simt backend: stream_k: 2 tiles on 8 programs: 0 data-parallel, 2 split into 4 K-steps of 2 (0 or 1 K-steps per program), at most 2 pieces per tile}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 16, 16], group_m = 8, subgroups = [1, 1], stages = 2, schedule = stream_k<programs = 8>>} : (tensor<2x20x32xf32>, tensor<2x32x16xf32>) -> tensor<2x20x16xf32>
  return %y : tensor<2x20x16xf32>
}
}

// -----

// The Xe backend's row pitch: 10 f32 (40 bytes) are padded to 16 (64
// bytes, the narrowest 2D block pitch), and the result tensor is the
// logical slice. A view that xpu-materialize-layouts left (a row pitch) is
// read through to the packed tensor. No SLM: 64 hardware threads / 2
// subgroups = 32 workgroups per Xe-core.
// CHECK-LABEL: func.func @xe_pitch
// CHECK-SAME: %[[X:.*]]: tensor<16x32xbf16>, %[[WP:.*]]: tensor<32x16xbf16>
// CHECK: %[[WB:.*]] = bufferization.to_buffer %[[WP]] read_only : tensor<32x16xbf16> to memref<32x16xbf16>
// CHECK: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32>
// CHECK: xpu.gemm_tile output %{{.*}}, %[[WB]] into %[[C]]
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[C]] restrict writable : memref<16x16xf32> to tensor<16x16xf32>
// CHECK: %[[R:.*]] = tensor.extract_slice %[[T]][0, 0] [16, 10] [1, 1] : tensor<16x16xf32> to tensor<16x10xf32>
// CHECK: return %[[R]]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_pitch(%x: tensor<16x32xbf16>, %wp: tensor<32x16xbf16>) -> tensor<16x10xf32> {
  %w = tensor.extract_slice %wp[0, 0] [32, 10] [1, 1] : tensor<32x16xbf16> to tensor<32x10xbf16>
  // expected-remark @below {{16x10x32 for the xe backend: data_parallel: 1 tiles, one program each; 4096 workgroups run at once on pvc}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<16x32xbf16>, tensor<32x10xbf16>) -> tensor<16x10xf32>
  return %y : tensor<16x10xf32>
}
}

// -----

// Batched on Xe: every batch's slab of the result is a multiple of 64 bytes
// so that each batch's base address is 64-byte aligned (2D block I/O): 25
// rows of 20 f32 (80 bytes, a legal pitch) make 2000 bytes, so the result
// gets slabs of 28 rows (2240 bytes) and is sliced back. Views that
// xpu-materialize-layouts left with padded rows and pitch (A: 25 of 28
// rows; B: 20 of 32 columns) are read through to the padded tensors.
// CHECK-LABEL: func.func @xe_batched_slabs
// CHECK-SAME: %[[AP:[^:]*]]: tensor<2x28x40xbf16>, %[[BP:[^:]*]]: tensor<2x40x32xbf16>
// CHECK: %[[AB:.*]] = bufferization.to_buffer %[[AP]] read_only : tensor<2x28x40xbf16> to memref<2x28x40xbf16>
// CHECK: %[[BB:.*]] = bufferization.to_buffer %[[BP]] read_only : tensor<2x40x32xbf16> to memref<2x40x32xbf16>
// CHECK: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x28x20xf32>
// CHECK: xpu.gemm_tile output %[[AB]], %[[BB]] into %[[C]]
// CHECK-SAME: dims = array<i64: 2, 25, 20, 40>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[C]] restrict writable : memref<2x28x20xf32> to tensor<2x28x20xf32>
// CHECK: %[[R:.*]] = tensor.extract_slice %[[T]][0, 0, 0] [2, 25, 20] [1, 1, 1] : tensor<2x28x20xf32> to tensor<2x25x20xf32>
// CHECK: return %[[R]]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_batched_slabs(%ap: tensor<2x28x40xbf16>, %bp: tensor<2x40x32xbf16>) -> tensor<2x25x20xf32> {
  %a = tensor.extract_slice %ap[0, 0, 0] [2, 25, 40] [1, 1, 1] : tensor<2x28x40xbf16> to tensor<2x25x40xbf16>
  %b = tensor.extract_slice %bp[0, 0, 0] [2, 40, 20] [1, 1, 1] : tensor<2x40x32xbf16> to tensor<2x40x20xbf16>
  // expected-remark @below {{2x(25x20x40) for the xe backend: data_parallel: 8 tiles, one program each}}
  %y = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<2x25x40xbf16>, tensor<2x40x20xbf16>) -> tensor<2x25x20xf32>
  return %y : tensor<2x25x20xf32>
}
}

// -----

// SIMT buffers keep their shapes: the same batched GEMM with a SIMT config
// gets a result of exactly [2, 25, 20].
// CHECK-LABEL: func.func @simt_batched_unpadded
// CHECK: %[[C:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x25x20xf32>
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[C]] restrict writable : memref<2x25x20xf32> to tensor<2x25x20xf32>
// CHECK: return %[[T]]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @simt_batched_unpadded(%a: tensor<2x25x40xf32>, %b: tensor<2x40x20xf32>) -> tensor<2x25x20xf32> {
  // expected-remark @below {{2x(25x20x40) for the simt backend}}
  %y = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<2x25x40xf32>, tensor<2x40x20xf32>) -> tensor<2x25x20xf32>
  return %y : tensor<2x25x20xf32>
}
}

// -----

// A dynamic m (a batch known at run time): the rows are read on the host,
// ceil(m / 32) rows of 3 tiles make the program count, the result buffer
// takes the rows, and every tile gets them (`rows`). Tile t is walked in
// groups of group_m = 2 tile rows, the last group as tall as what is left:
// t / 6 is the group, min(rows of tiles - its first row, 2) its height.
// CHECK-LABEL: func.func @dynamic_m(
// CHECK-SAME: %[[X:.*]]: tensor<?x32xf32>,
// CHECK-DAG: %[[ROWS:.*]] = tensor.dim %[[X]], %c0 : tensor<?x32xf32>
// CHECK-DAG: %[[UP:.*]] = arith.addi %[[ROWS]], %c31
// CHECK-DAG: %[[TM:.*]] = arith.divui %[[UP]], %c32
// CHECK-DAG: %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<?x32xf32> to memref<?x32xf32>
// CHECK-DAG: %[[C:.*]] = memref.alloc(%[[ROWS]]) {alignment = 64 : i64} : memref<?x48xf32>
// CHECK-DAG: %[[COUNT:.*]] = arith.muli %[[TM]], %c3
// CHECK: scf.forall (%[[PID:.*]]) in (%[[COUNT]]) {
// CHECK:   %[[G:.*]] = arith.divui %[[PID]], %c6
// CHECK:   %[[FIRST:.*]] = arith.muli %[[G]], %c2
// CHECK:   %[[LEFT:.*]] = arith.subi %[[TM]], %[[FIRST]]
// CHECK:   %[[H:.*]] = arith.minui %[[LEFT]], %c2
// CHECK:   %[[POS:.*]] = arith.remui %[[PID]], %c6
// CHECK:   %[[R:.*]] = arith.remui %[[POS]], %[[H]]
// CHECK:   %[[PM:.*]] = arith.addi %[[FIRST]], %[[R]]
// CHECK:   %[[PN:.*]] = arith.divui %[[POS]], %[[H]]
// CHECK:   %[[M0:.*]] = arith.muli %[[PM]], %c32
// CHECK:   %[[N0:.*]] = arith.muli %[[PN]], %c16
// CHECK:   xpu.gemm_tile output %[[XB]], %{{.*}} into %[[C]] epilogue({{.*}}) at [%c0, %[[M0]], %[[N0]]] k [%c0, %c32] rows(%[[ROWS]])
// CHECK-SAME: dims = array<i64: 1, -9223372036854775808, 48, 32>
// CHECK: } {mapping = [#gpu.block<x>]}
// CHECK: %[[RES:.*]] = bufferization.to_tensor %[[C]] restrict writable : memref<?x48xf32> to tensor<?x48xf32>
// CHECK: return %[[RES]]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @dynamic_m(%x: tensor<?x32xf32>, %w: tensor<48x32xf32>, %b: tensor<48xf32>) -> tensor<?x48xf32> {
  // expected-remark @below {{?x48x32 for the simt backend: data_parallel, ceil(m / 32) x 3 programs counted at run time (m is dynamic); 2688 workgroups run at once on pvc}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<48xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [32, 16, 16], group_m = 2, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<?x32xf32>, tensor<48x32xf32>) -> tensor<?x48xf32>
  return %y : tensor<?x48xf32>
}
}
