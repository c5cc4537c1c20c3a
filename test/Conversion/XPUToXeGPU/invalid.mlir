// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm),convert-xpu-to-xegpu)' --verify-diagnostics
// RUN: not xpu-opt %s --split-input-file --pass-pipeline='builtin.module(convert-xpu-to-xegpu)' 2>&1 | FileCheck %s --check-prefix=UNSCHEDULED
// Without xpu-schedule-gemm, a GEMM reaching the backend is an error.
// UNSCHEDULED: error: convert-xpu-to-xegpu: xpu.gemm is not scheduled; run xpu-select-strategy, xpu-materialize-layouts and xpu-schedule-gemm first

// convert-xpu-to-xegpu lowers the tiles xpu-schedule-gemm makes. It does no
// operand layout work: it checks that xpu-materialize-layouts ran (DPAS
// operand types, a [k, n] rhs, 2D block pitches, aligned batch slabs,
// epilogue panels).

// A SIMT config (no #xpu.xe knobs) is for convert-xpu-to-gpu.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @simt_config(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: the config #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel> is not for the Xe backend (no #xpu.xe knobs)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @not_intel(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: #xpu.xe knobs on the non-Intel target 'sm_90'}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @block_not_dpas_multiple(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: tile [8, 16, 16] on subgroups [2, 1]: each subgroup block must be a multiple of 8x16 and tile_k a multiple of 16 (DPAS)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [8, 16, 16], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// Stream-K with atomic adds: 2D block stores are not atomic.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @atomic_stream_k(%a: tensor<64x256xbf16>, %b: tensor<256x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: the Xe kernels have no atomic Stream-K fix-up (2D block stores are not atomic); use fixup=deterministic}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 32, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = stream_k<programs = 3, fixup = atomic>, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x256xbf16>, tensor<256x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// Layout work left undone: an [n, k] rhs ...
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @rhs_nk(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: the DPAS kernels read a [k, n] rhs; run xpu-materialize-layouts first}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// ... f32 operands ...
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @f32_operands(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: 'f32' operands: DPAS takes f16 or bf16; run xpu-materialize-layouts first}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// ... rows too short for 2D block reads (20 bf16 = 40 bytes) ...
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @bad_pitch(%a: tensor<64x20xbf16>, %b: tensor<20x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: A rows of 20 x 2 bytes are not a 2D block pitch (>= 64 bytes, a multiple of 16); run xpu-materialize-layouts first}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x20xbf16>, tensor<20x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// ... batches whose slabs (25 rows of 80 bytes = 2000 bytes) would start
// batch 1 at an address that is not 64-byte aligned ...
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @unaligned_batches(%a: tensor<2x25x40xbf16>, %b: tensor<2x40x64xbf16>) -> tensor<2x25x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: A batches of 2000 bytes do not start 64-byte aligned (2D block base addresses); run xpu-materialize-layouts first}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<2x25x40xbf16>, tensor<2x40x64xbf16>) -> tensor<2x25x64xf32>
  return %g : tensor<2x25x64xf32>
}
}

// -----

// ... or a per_row vector instead of its panel ...
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @per_row_not_a_panel(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %scale: tensor<64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: epilogue operand #0 (per_row) is not a panel the kernel can read with the accumulator's layout; run xpu-materialize-layouts first}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%scale per_row : tensor<64xf32>) {
  ^bb0(%acc: f32, %s: f32):
    %t = arith.mulf %acc, %s : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// ... or a per_col vector that is not whole tiles: the kernel gathers each
// tile's 32 columns without a bounds check, so N = 40 needs 64 columns
// (xpu-materialize-layouts pads it), not 40.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @bias_not_whole_tiles(%a: tensor<64x64xbf16>, %b: tensor<64x40xbf16>, %bias: tensor<40xf32>) -> tensor<64x40xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: epilogue operand #0 (per_col) 'memref<40xf32>' does not hold the 64 columns of whole 32-column tiles that the kernel reads; run xpu-materialize-layouts first}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%bias per_col : tensor<40xf32>) {
  ^bb0(%acc: f32, %bb: f32):
    %t = arith.addf %acc, %bb : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [64, 32, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x64xbf16>, tensor<64x40xbf16>) -> tensor<64x40xf32>
  return %g : tensor<64x40xf32>
}
}
