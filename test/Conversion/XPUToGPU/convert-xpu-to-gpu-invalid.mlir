// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm,convert-xpu-to-gpu{float-atomics=false}))' --verify-diagnostics
// RUN: not xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-xpu-to-gpu))' 2>&1 | FileCheck %s --check-prefix=UNSCHEDULED
// Without xpu-schedule-gemm, a GEMM reaching the backend is an error.
// UNSCHEDULED: error: convert-xpu-to-gpu: xpu.gemm is not scheduled; run xpu-select-strategy and xpu-schedule-gemm first

// The pass lowers scheduled programs; a GEMM left unscheduled is an error
// (xpu-schedule-gemm reports one without a config the same way).
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @unscheduled(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @below {{xpu-schedule-gemm: xpu.gemm has no #xpu.config; run xpu-select-strategy first}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
}

// -----

// A config with Xe knobs is for convert-xpu-to-xegpu.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_config(%x: tensor<16x16xbf16>, %w: tensor<16x16xbf16>) -> tensor<16x16xf32> {
  // expected-error @below {{convert-xpu-to-gpu: the config #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>> is for the xe backend, not the SIMT kernels}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<16x16xbf16>, tensor<16x16xbf16>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
}

// -----

// The atomic Stream-K fix-up on kernels without float atomics (OpenCL 1.2
// SPIR-V: xpu-spirv-pipeline runs the pass with float-atomics=false).
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @atomic_without_float_atomics(%x: tensor<16x64xf32>, %w: tensor<64x16xf32>) -> tensor<16x16xf32> {
  // expected-error @below {{convert-xpu-to-gpu: the atomic Stream-K fix-up needs float atomic adds, which this target's kernels cannot use (OpenCL SPIR-V has none); use fixup=deterministic}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 1, schedule = stream_k<programs = 3, fixup = atomic>>} : (tensor<16x64xf32>, tensor<64x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
}

// -----

// 16 lanes cannot split a 2x4 subgroup block (4 lanes along n leave 4 rows
// of lanes for 2 rows).
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @lanes(%x: tensor<16x16xf32>, %w: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // expected-error @below {{convert-xpu-to-gpu: cannot generate a kernel for #xpu.config<tile = [2, 64, 16], group_m = 1, subgroups = [1, 16], stages = 1, schedule = data_parallel>: 16 lanes do not split a 2x4 subgroup block}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [2, 64, 16], group_m = 1, subgroups = [1, 16], stages = 1, schedule = data_parallel>} : (tensor<16x16xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
}

// -----

// One subgroup for a 256x256 tile: 256x16 accumulators per thread.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @accumulators(%x: tensor<256x32xf32>, %w: tensor<32x256xf32>) -> tensor<256x256xf32> {
  // expected-error @below {{256x16 accumulators per thread (at most 256)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<256x32xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}
}

// -----

// Runs of 4 that do not tile a warp's block: a located error.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @vector4_bad_block(%x: tensor<64x32xf32>, %w: tensor<64x32xf32>) -> tensor<64x64xf32> {
  // expected-error @below {{convert-xpu-to-gpu: cannot generate a kernel for #xpu.config<tile = [4, 64, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.simt<vector = 4>>: 32 lanes in runs of 4 rows and columns do not split a 4x64 subgroup block}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [4, 64, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.simt<vector = 4>>} : (tensor<64x32xf32>, tensor<64x32xf32>) -> tensor<64x64xf32>
  return %y : tensor<64x64xf32>
}
}

// -----

// Programs written by hand must count from 0 in steps of 1: the launch
// takes the block id for the induction variable.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @strided_programs(%a: memref<64x32xf32>, %b: memref<48x32xf32>, %c: memref<64x48xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  // expected-error @below {{GEMM programs must count from 0 in steps of 1 (the program id is the induction variable)}}
  scf.forall (%p) = (1) to (6) step (2) {
    %c16 = arith.constant 16 : index
    %n0 = arith.muli %p, %c16 : index
    xpu.gemm_tile output %a, %b into %c at [%c0, %c0, %n0] k [%c0, %c32] {acc_type = f32, config = #xpu.config<tile = [32, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, broadcasts = [], dims = array<i64: 1, 64, 48, 32>, rhs_layout = #xpu<rhs_layout nk>} : memref<64x32xf32>, memref<48x32xf32>, memref<64x48xf32> {
    ^bb0(%acc: f32):
      xpu.yield %acc : f32
    }
  } {mapping = [#gpu.block<x>]}
  return
}
}
