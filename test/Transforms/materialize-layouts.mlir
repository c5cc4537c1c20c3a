// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-materialize-layouts))' | FileCheck %s
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-materialize-layouts))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// Xe (a #xpu.xe config): f32 operands to bf16, the [n, k] rhs to [k, n],
// rows padded to a 2D block pitch (A: 20 bf16 = 40 bytes -> 32 elements;
// B: 24 bf16 = 48 bytes -> 32), the bias padded with zeros to whole
// 16-column tiles (a 1 x 32 row, from which the kernel gathers each tile's
// 16 columns without a bounds check), each read through a view of the
// logical shape (the bias row's columns, marked xpu.panel).
// CHECK-LABEL: func.func @xe_linear
// CHECK-SAME: %[[X:.*]]: tensor<40x20xf32>, %[[W:.*]]: tensor<24x20xf32>, %[[B:.*]]: tensor<24xf32>
// CHECK-DAG: %[[XB:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<40x20xf32>)
// CHECK-DAG:   arith.truncf
// CHECK-DAG: %[[WB:.*]] = linalg.generic {{.*}} ins(%[[W]] : tensor<24x20xf32>)
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[WB]] : tensor<24x20xbf16>) outs(%{{.*}} : tensor<20x24xbf16>) permutation = [1, 0]
// CHECK: %[[XP:.*]] = tensor.pad %[[XB]] low[0, 0] high[0, 12]
// CHECK: %[[XV:.*]] = tensor.extract_slice %[[XP]][0, 0] [40, 20] [1, 1] : tensor<40x32xbf16> to tensor<40x20xbf16>
// CHECK: %[[WP:.*]] = tensor.pad %[[WT]] low[0, 0] high[0, 8]
// CHECK: %[[WV:.*]] = tensor.extract_slice %[[WP]][0, 0] [20, 24] [1, 1] : tensor<20x32xbf16> to tensor<20x24xbf16>
// CHECK: %[[ROW:.*]] = linalg.broadcast ins(%[[B]] : tensor<24xf32>) outs(%{{.*}} : tensor<1x24xf32>) dimensions = [0]
// CHECK: %[[ROWP:.*]] = tensor.pad %[[ROW]] low[0, 0] high[0, 8]
// CHECK: %[[BV:.*]] = tensor.extract_slice %[[ROWP]][0, 0] [1, 24] [1, 1] {xpu.panel} : tensor<1x32xf32> to tensor<24xf32>
// CHECK: xpu.gemm %[[XV]], %[[WV]] rhs_layout(kn) acc(f32) epilogue(%[[BV]] per_col : tensor<24xf32>)
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_linear(%x: tensor<40x20xf32>, %w: tensor<24x20xf32>, %b: tensor<24xf32>) -> tensor<40x24xf32> {
  // expected-remark @below {{40x24x20: f32 operands converted to bf16 for DPAS (bf16 x bf16 -> f32; tf32 is not used)}}
  // expected-remark @below {{40x24x20: rhs [n, k] transposed to [k, n] (the block reads of B take [k, n] rows)}}
  // expected-remark @below {{40x24x20: A: rows of 20 x 2 bytes padded with zeros to 32 elements, the narrowest pitch 2D block I/O accepts (>= 64 bytes, a multiple of 16)}}
  // expected-remark @below {{40x24x20: B: rows of 24 x 2 bytes padded with zeros to 32 elements}}
  // expected-remark @below {{40x24x20: epilogue operand #0 (per_col) padded with zeros to 32 columns, whole 16-column tiles of a row vector}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<24xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [16, 16, 16], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<40x20xf32>, tensor<24x20xf32>) -> tensor<40x24xf32>
  return %y : tensor<40x24xf32>
}
}

// -----

// Xe, a per_col vector of whole tiles (N = 32, tn = 16) is read as it is:
// no panel, no copy.
// CHECK-LABEL: func.func @xe_per_col_whole_tiles
// CHECK-SAME: %[[B:[a-zA-Z0-9]+]]: tensor<32xf32>
// CHECK-NOT: linalg.broadcast
// CHECK: xpu.gemm %{{.*}} epilogue(%[[B]] per_col : tensor<32xf32>)
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_per_col_whole_tiles(%x: tensor<40x32xbf16>, %w: tensor<32x32xbf16>, %b: tensor<32xf32>) -> tensor<40x32xf32> {
  // expected-remark @below {{40x32x32: epilogue operand #0 (per_col) read as it is: 2 whole 16-column tiles of a row vector}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) epilogue(%b per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [16, 16, 16], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<40x32xbf16>, tensor<32x32xbf16>) -> tensor<40x32xf32>
  return %y : tensor<40x32xf32>
}
}

// -----

// Xe, bf16 operands in [k, n] with legal pitches: nothing to do for A and
// B. A per_row vector becomes a tile-wide panel (40 x 16 f32) and a scalar
// a tile-sized one (16 x 16).
// CHECK-LABEL: func.func @xe_epilogue_kinds
// CHECK-SAME: %[[X:.*]]: tensor<40x32xbf16>, %[[W:.*]]: tensor<32x48xbf16>
// CHECK-NOT: linalg.transpose
// CHECK: %[[ROWS:.*]] = linalg.broadcast ins(%{{.*}} : tensor<40xf32>) outs(%{{.*}} : tensor<40x16xf32>) dimensions = [1]
// CHECK: tensor.extract_slice %[[ROWS]][0, 0] [40, 1] [1, 1] {xpu.panel} : tensor<40x16xf32> to tensor<40xf32>
// CHECK: %[[S:.*]] = linalg.broadcast ins(%{{.*}} : tensor<f32>) outs(%{{.*}} : tensor<16x16xf32>) dimensions = [0, 1]
// CHECK: tensor.extract_slice %[[S]][0, 0] [1, 1] [1, 1] {xpu.panel} : tensor<16x16xf32> to tensor<f32>
// CHECK: xpu.gemm %[[X]], %[[W]] rhs_layout(kn)
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_epilogue_kinds(%x: tensor<40x32xbf16>, %w: tensor<32x48xbf16>, %r: tensor<40xf32>, %s: tensor<f32>) -> tensor<40x48xf32> {
  // expected-remark @below {{epilogue operand #0 (per_row) broadcast to a 40x16 panel}}
  // expected-remark @below {{epilogue operand #1 (scalar) broadcast to a 16x16 panel}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) epilogue(%r per_row : tensor<40xf32>, %s scalar : tensor<f32>) {
  ^bb0(%acc: f32, %vr: f32, %vs: f32):
    %t = arith.addf %acc, %vr : f32
    %u = arith.mulf %t, %vs : f32
    xpu.yield %u : f32
  } {config = #xpu.config<tile = [16, 16, 32], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<40x32xbf16>, tensor<32x48xbf16>) -> tensor<40x48xf32>
  return %y : tensor<40x48xf32>
}
}

// -----

// A full epilogue operand (a residual) is read with 2D block loads like the
// output: rows of 24 f16 (48 bytes) are padded to 32 elements (B's rows
// of 24 bf16 too).
// CHECK-LABEL: func.func @xe_full_residual
// CHECK-SAME: %[[R:[^:]*]]: tensor<40x24xf16>
// CHECK: %[[RP:.*]] = tensor.pad %[[R]] low[0, 0] high[0, 8]
// CHECK: %[[RV:.*]] = tensor.extract_slice %[[RP]][0, 0] [40, 24] [1, 1] : tensor<40x32xf16> to tensor<40x24xf16>
// CHECK: xpu.gemm {{.*}} epilogue(%[[RV]] full : tensor<40x24xf16>)
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_full_residual(%x: tensor<40x32xbf16>, %w: tensor<32x24xbf16>, %r: tensor<40x24xf16>) -> tensor<40x24xf32> {
  // expected-remark @below {{B: rows of 24 x 2 bytes padded with zeros to 32 elements}}
  // expected-remark @below {{epilogue operand #0: rows of 24 x 2 bytes padded with zeros to 32 elements}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) epilogue(%r full : tensor<40x24xf16>) {
  ^bb0(%acc: f32, %res: f16):
    %e = arith.extf %res : f16 to f32
    %t = arith.addf %acc, %e : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [16, 16, 32], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<40x32xbf16>, tensor<32x24xbf16>) -> tensor<40x24xf32>
  return %y : tensor<40x24xf32>
}
}

// -----

// Batched operands: each batch's slab must be a multiple of 64 bytes so that
// every batch's base address is 64-byte aligned (2D block I/O). A: 25 rows
// of 41 bf16 get the pitch 48 (96 bytes) and 26 rows (2496 bytes); B: 41
// rows of 80 bytes get 44 rows (3520 bytes); the residual: 25 rows of 160
// bytes get 26 (4160 bytes). One pad each (zeros: A's padding columns are
// multiplied into the sum), read through a view of the logical shape.
// CHECK-LABEL: func.func @xe_batched_slabs
// CHECK-SAME: %[[A:[^:]*]]: tensor<2x25x41xbf16>, %[[B:[^:]*]]: tensor<2x41x40xbf16>, %[[R:[^:]*]]: tensor<2x25x40xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : bf16
// CHECK: %[[AP:.*]] = tensor.pad %[[A]] low[0, 0, 0] high[0, 1, 7]
// CHECK: tensor.yield %[[ZERO]] : bf16
// CHECK: } : tensor<2x25x41xbf16> to tensor<2x26x48xbf16>
// CHECK: %[[AV:.*]] = tensor.extract_slice %[[AP]][0, 0, 0] [2, 25, 41] [1, 1, 1] : tensor<2x26x48xbf16> to tensor<2x25x41xbf16>
// CHECK: %[[BP:.*]] = tensor.pad %[[B]] low[0, 0, 0] high[0, 3, 0]
// CHECK: } : tensor<2x41x40xbf16> to tensor<2x44x40xbf16>
// CHECK: %[[BV:.*]] = tensor.extract_slice %[[BP]][0, 0, 0] [2, 41, 40] [1, 1, 1] : tensor<2x44x40xbf16> to tensor<2x41x40xbf16>
// CHECK: %[[RP:.*]] = tensor.pad %[[R]] low[0, 0, 0] high[0, 1, 0]
// CHECK: } : tensor<2x25x40xf32> to tensor<2x26x40xf32>
// CHECK: %[[RV:.*]] = tensor.extract_slice %[[RP]][0, 0, 0] [2, 25, 40] [1, 1, 1] : tensor<2x26x40xf32> to tensor<2x25x40xf32>
// CHECK: xpu.gemm %[[AV]], %[[BV]] rhs_layout(kn) acc(f32) epilogue(%[[RV]] full : tensor<2x25x40xf32>)
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_batched_slabs(%a: tensor<2x25x41xbf16>, %b: tensor<2x41x40xbf16>, %r: tensor<2x25x40xf32>) -> tensor<2x25x40xf32> {
  // expected-remark @below {{2x(25x40x41): A: rows of 41 x 2 bytes padded with zeros to 48 elements}}
  // expected-remark @below {{2x(25x40x41): A: each batch's 25 rows of 96 bytes padded with zero rows to 26, so that every batch starts 64-byte aligned (2D block I/O)}}
  // expected-remark @below {{2x(25x40x41): B: each batch's 41 rows of 80 bytes padded with zero rows to 44}}
  // expected-remark @below {{2x(25x40x41): epilogue operand #0: each batch's 25 rows of 160 bytes padded with zero rows to 26}}
  %y = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%r full : tensor<2x25x40xf32>) {
  ^bb0(%acc: f32, %res: f32):
    %t = arith.addf %acc, %res : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [16, 16, 32], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<2x25x41xbf16>, tensor<2x41x40xbf16>) -> tensor<2x25x40xf32>
  return %y : tensor<2x25x40xf32>
}
}

// -----

// Batched slabs that are whole 64-byte blocks already are left alone: A's
// 24 rows of 40 bf16 (1920 bytes) need no copy; B's rows of 20 bf16 (40
// bytes) only get the pitch 32 (40 rows of 64 bytes).
// CHECK-LABEL: func.func @xe_batched_aligned
// CHECK-SAME: %[[A:[^:]*]]: tensor<4x24x40xbf16>, %[[B:[^:]*]]: tensor<4x40x20xbf16>
// CHECK: %[[BP:.*]] = tensor.pad %[[B]] low[0, 0, 0] high[0, 0, 12]
// CHECK: } : tensor<4x40x20xbf16> to tensor<4x40x32xbf16>
// CHECK-NOT: tensor.pad
// CHECK: xpu.gemm %[[A]], %{{.*}} rhs_layout(kn)
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_batched_aligned(%a: tensor<4x24x40xbf16>, %b: tensor<4x40x20xbf16>) -> tensor<4x24x20xf32> {
  // expected-remark @below {{4x(24x20x40): B: rows of 20 x 2 bytes padded with zeros to 32 elements}}
  %y = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 32], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<4x24x40xbf16>, tensor<4x40x20xbf16>) -> tensor<4x24x20xf32>
  return %y : tensor<4x24x20xf32>
}
}

// -----

// An f64 epilogue (xpu-demote-f64 kept it) cannot run in the kernel: the
// GEMM stores f32 and the epilogue becomes a host linalg.generic.
// CHECK-LABEL: func.func @xe_host_epilogue
// CHECK: %[[G:.*]] = xpu.gemm {{.*}} : (tensor<32x32xbf16>, tensor<32x32xbf16>) -> tensor<32x32xf32>
// CHECK: linalg.generic {{.*}} ins(%[[G]], %{{.*}} : tensor<32x32xf32>, tensor<32xf64>)
// CHECK:   arith.extf
// CHECK:   arith.addf {{.*}} : f64
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_host_epilogue(%x: tensor<32x32xbf16>, %w: tensor<32x32xbf16>, %b: tensor<32xf64>) -> tensor<32x32xf64> {
  // expected-remark @below {{the epilogue computes in a type the kernel does not (f64, or bf16 results): the kernel stores the f32 accumulator and the epilogue runs on the host}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) epilogue(%b per_col : tensor<32xf64>) {
  ^bb0(%acc: f32, %bias: f64):
    %e = arith.extf %acc : f32 to f64
    %t = arith.addf %e, %bias : f64
    xpu.yield %t : f64
  } {config = #xpu.config<tile = [16, 16, 32], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<32x32xbf16>, tensor<32x32xbf16>) -> tensor<32x32xf64>
  return %y : tensor<32x32xf64>
}
}

// -----

// NVIDIA tensor cores (an #xpu.nvgpu config), mma.sync: cp.async copies
// 16-byte chunks, so A's rows (K = 97 bf16, 194 bytes) and the [n, k] B's
// are padded with zeros to 104 elements (208 bytes) and read through views
// of the logical shape; nothing else changes (no transpose: ldmatrix reads
// [n, k]; the bias stays a vector).
// CHECK-LABEL: func.func @nvgpu_mma_sync_pitch
// CHECK-SAME: %[[X:.*]]: tensor<131x97xbf16>, %[[W:.*]]: tensor<67x97xbf16>, %[[B:.*]]: tensor<67xf32>
// CHECK-NOT: linalg.transpose
// CHECK: %[[XP:.*]] = tensor.pad %[[X]] low[0, 0] high[0, 7]
// CHECK: %[[XV:.*]] = tensor.extract_slice %[[XP]][0, 0] [131, 97] [1, 1] : tensor<131x104xbf16> to tensor<131x97xbf16>
// CHECK: %[[WP:.*]] = tensor.pad %[[W]] low[0, 0] high[0, 7]
// CHECK: %[[WV:.*]] = tensor.extract_slice %[[WP]][0, 0] [67, 97] [1, 1] : tensor<67x104xbf16> to tensor<67x97xbf16>
// CHECK-NOT: linalg.broadcast
// CHECK: xpu.gemm %[[XV]], %[[WV]] rhs_layout(nk) acc(f32) epilogue(%[[B]] per_col : tensor<67xf32>)
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @nvgpu_mma_sync_pitch(%x: tensor<131x97xbf16>, %w: tensor<67x97xbf16>, %b: tensor<67xf32>) -> tensor<131x67xf32> {
  // expected-remark @below {{131x67x97: A: rows of 97 x 2 bytes padded with zeros to 104 elements (208 bytes): cp.async copies 16-byte chunks from rows that start on 16 bytes}}
  // expected-remark @below {{131x67x97: B [n, k]: rows of 97 x 2 bytes padded with zeros to 104 elements (208 bytes)}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<67xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [32, 32, 32], group_m = 8, subgroups = [1, 1], stages = 3, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<131x97xbf16>, tensor<67x97xbf16>) -> tensor<131x67xf32>
  return %y : tensor<131x67xf32>
}
}

// -----

// wgmma on sm_90a: rows TMA reads that need a new pitch get a multiple of
// 128 bytes (K = 100 bf16, 200 bytes -> 128 elements, 256 bytes); the
// [k, n] B's rows (N = 72 bf16, 144 bytes) are 16-byte multiples and stay.
// Batched operands keep their batch dimension.
// CHECK-LABEL: func.func @nvgpu_wgmma_pitch
// CHECK-SAME: %[[X:.*]]: tensor<2x64x100xbf16>, %[[W:.*]]: tensor<2x100x72xbf16>
// CHECK: %[[XP:.*]] = tensor.pad %[[X]] low[0, 0, 0] high[0, 0, 28]
// CHECK: %[[XV:.*]] = tensor.extract_slice %[[XP]][0, 0, 0] [2, 64, 100] [1, 1, 1] : tensor<2x64x128xbf16> to tensor<2x64x100xbf16>
// CHECK-NOT: tensor.pad
// CHECK: xpu.gemm %[[XV]], %[[W]] rhs_layout(kn)
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @nvgpu_wgmma_pitch(%x: tensor<2x64x100xbf16>, %w: tensor<2x100x72xbf16>) -> tensor<2x64x72xf32> {
  // expected-remark @below {{2x(64x72x100): A: rows of 100 x 2 bytes padded with zeros to 128 elements (256 bytes): TMA reads rows of 16-byte multiples, and rows that need a new pitch get a multiple of 128 bytes (one swizzled box row)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<2x64x100xbf16>, tensor<2x100x72xbf16>) -> tensor<2x64x72xf32>
  return %y : tensor<2x64x72xf32>
}
}

// -----

// A 16-bit [k, n] B computed from weights alone (an argument marked
// xpu.weight, converted to bf16 by an elementwise op) becomes [n, k] for
// wgmma: xpu-outline-weight-pack moves the transpose into <fn>.pack, and the
// kernel reads B K-major. The activation %b of the second GEMM stays
// [k, n] (a transpose on every call would cost more than it saves).
// CHECK-LABEL: func.func @nvgpu_wgmma_weight_kn
// CHECK-SAME: %[[X:.*]]: tensor<64x128xbf16>, %[[W:.*]]: tensor<128x96xf32> {xpu.weight}, %[[B:.*]]: tensor<128x96xbf16>
// CHECK: %[[WB:.*]] = linalg.generic
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[WB]] : tensor<128x96xbf16>) outs(%{{.*}} : tensor<96x128xbf16>) permutation = [1, 0]
// CHECK: xpu.gemm %[[X]], %[[WT]] rhs_layout(nk)
// CHECK-NOT: linalg.transpose
// CHECK: xpu.gemm %[[X]], %[[B]] rhs_layout(kn)
#id2 = affine_map<(d0, d1) -> (d0, d1)>
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @nvgpu_wgmma_weight_kn(%x: tensor<64x128xbf16>, %w: tensor<128x96xf32> {xpu.weight}, %b: tensor<128x96xbf16>) -> (tensor<64x96xf32>, tensor<64x96xf32>) {
  %e = tensor.empty() : tensor<128x96xbf16>
  %wb = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<128x96xf32>) outs(%e : tensor<128x96xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<128x96xbf16>
  // expected-remark @below {{64x96x128: rhs [k, n] transposed to [n, k] (computed from weights alone, so once per weight set in <fn>.pack): wgmma reads a K-major B faster}}
  %y = xpu.gemm %x, %wb rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<64x128xbf16>, tensor<128x96xbf16>) -> tensor<64x96xf32>
  // expected-remark @below {{64x96x128: the tensor-core kernels read the operands as they are (wgmma rows of 16-byte multiples, rhs kn, epilogue vectors read per row and column)}}
  %z = xpu.gemm %x, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<64x128xbf16>, tensor<128x96xbf16>) -> tensor<64x96xf32>
  return %y, %z : tensor<64x96xf32>, tensor<64x96xf32>
}
}

// -----

// tf32 (f32 operands, 4-byte rows): K = 64 is 256 bytes, already a multiple
// of 16: the tensor-core kernels read the operands as they are.
// CHECK-LABEL: func.func @nvgpu_as_they_are
// CHECK-NOT: tensor.pad
// CHECK: xpu.gemm
module attributes {xpu.target = #xpu.target<"sm_80">} {
func.func @nvgpu_as_they_are(%x: tensor<128x64xf32>, %w: tensor<64x96xf32>) -> tensor<128x96xf32> {
  // expected-remark @below {{128x96x64: the tensor-core kernels read the operands as they are (mma_sync rows of 16-byte multiples, rhs kn, epilogue vectors read per row and column)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 16], group_m = 8, subgroups = [2, 2], stages = 3, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync, precision = tf32>>} : (tensor<128x64xf32>, tensor<64x96xf32>) -> tensor<128x96xf32>
  return %y : tensor<128x96xf32>
}
}

// -----

// tf32 on wgmma: wgmma reads tf32 operands K-major only, so the [k, n] B
// becomes [n, k] (batched here: the last two dimensions swap), and then its
// rows of K = 98 f32 (392 bytes, not a multiple of 16) get a TMA pitch of
// 128 elements (512 bytes), as A's do.
// CHECK-LABEL: func.func @nvgpu_wgmma_tf32_kn
// CHECK-SAME: %[[X:.*]]: tensor<2x64x98xf32>, %[[W:.*]]: tensor<2x98x72xf32>
// CHECK: %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<2x98x72xf32>) outs(%{{.*}} : tensor<2x72x98xf32>) permutation = [0, 2, 1]
// CHECK: %[[XP:.*]] = tensor.pad %[[X]] low[0, 0, 0] high[0, 0, 30]
// CHECK: %[[XV:.*]] = tensor.extract_slice %[[XP]]
// CHECK: %[[WP:.*]] = tensor.pad %[[WT]] low[0, 0, 0] high[0, 0, 30]
// CHECK: %[[WV:.*]] = tensor.extract_slice %[[WP]][0, 0, 0] [2, 72, 98] [1, 1, 1] : tensor<2x72x128xf32> to tensor<2x72x98xf32>
// CHECK: xpu.gemm %[[XV]], %[[WV]] rhs_layout(nk)
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @nvgpu_wgmma_tf32_kn(%x: tensor<2x64x98xf32>, %w: tensor<2x98x72xf32>) -> tensor<2x64x72xf32> {
  // expected-remark @below {{2x(64x72x98): rhs [k, n] transposed to [n, k]: wgmma reads tf32 operands K-major only}}
  // expected-remark @below {{2x(64x72x98): A: rows of 98 x 4 bytes padded with zeros to 128 elements (512 bytes)}}
  // expected-remark @below {{2x(64x72x98): B [n, k]: rows of 98 x 4 bytes padded with zeros to 128 elements (512 bytes)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, precision = tf32>>} : (tensor<2x64x98xf32>, tensor<2x98x72xf32>) -> tensor<2x64x72xf32>
  return %y : tensor<2x64x72xf32>
}
}

// -----

// SIMT configs (no backend sub-attribute): the operands stay as they are.
// CHECK-LABEL: func.func @simt_is_untouched
// CHECK-NOT: linalg.transpose
// CHECK-NOT: tensor.pad
// CHECK: xpu.gemm %{{.*}}, %{{.*}} rhs_layout(nk)
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @simt_is_untouched(%x: tensor<40x20xf32>, %w: tensor<24x20xf32>) -> tensor<40x24xf32> {
  // expected-remark @below {{40x24x20: the SIMT kernels read the operands as they are (rhs nk transposed on the way into shared memory, epilogue vectors read per row and column)}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<40x20xf32>, tensor<24x20xf32>) -> tensor<40x24xf32>
  return %y : tensor<40x24xf32>
}
}

// -----

// A GEMM without a config is left alone (no remark): nothing decided its
// backend yet.
// CHECK-LABEL: func.func @no_config_is_untouched
// CHECK: xpu.gemm %{{.*}}, %{{.*}} rhs_layout(nk) acc(f32) :
func.func @no_config_is_untouched(%x: tensor<40x20xf32>, %w: tensor<24x20xf32>) -> tensor<40x24xf32> {
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<40x20xf32>, tensor<24x20xf32>) -> tensor<40x24xf32>
  return %y : tensor<40x24xf32>
}
