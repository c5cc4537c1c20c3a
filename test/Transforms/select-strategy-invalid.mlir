// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy))' --verify-diagnostics
// Bad options are errors on the function, in the option's words.
// RUN: not xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{backend=tpu}))' 2>&1 | FileCheck %s --check-prefix=BACKEND
// BACKEND: error: xpu-select-strategy: unknown backend 'tpu' (auto, xe, nvgpu, simt)
// RUN: not xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{schedule=round_robin}))' 2>&1 | FileCheck %s --check-prefix=SCHEDULE
// SCHEDULE: error: xpu-select-strategy: unknown schedule 'round_robin' (auto, data_parallel, persistent, stream_k)
// RUN: not xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{fixup=eventually}))' 2>&1 | FileCheck %s --check-prefix=FIXUP
// FIXUP: error: xpu-select-strategy: unknown fixup 'eventually' (deterministic, atomic)
// RUN: not xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{programs=-3}))' 2>&1 | FileCheck %s --check-prefix=PROGRAMS
// PROGRAMS: error: xpu-select-strategy: programs must be in [0, 2^31), got -3

// Hand-written configs that the target cannot run are errors on the GEMM,
// by the rules of the config's backend (GemmBackends.h).

// Xe knobs on an NVIDIA target: the Xe backend cannot run there.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @xe_knobs_on_nvidia(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90: the xe backend cannot compute this GEMM: the target 'sm_90' is not an Intel Xe target (pvc, bmg)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// Xe: 64 / 8 = 8 columns per subgroup, not a multiple of DPAS's n = 16.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @block_not_dpas_multiple(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on pvc: tile [64, 64, 32] on subgroups [1, 8]: each subgroup block must be a multiple of 8x16 and tile_k a multiple of 16 (DPAS)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [1, 8], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// SIMT: one 32-lane warp on a 256x256 tile keeps 256 x 8 accumulators per
// thread.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @simt_too_many_accumulators(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90: 256x8 accumulators per thread (at most 256)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 16], group_m = 8, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// SIMT: 8 x 8 warps of 32 threads = 2048 > 1024 threads per block.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @too_many_threads(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90: 2048 threads per workgroup (at most 1024)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 8], stages = 2, schedule = data_parallel>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// Xe: 64 subgroups of 16 = 1024 work-items fit a workgroup, but an Xe-core
// runs only 32 threads in 256-GRF mode (64 in 128-GRF mode: the same
// layout is valid there).
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_threads_in_256_grf_mode(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>) {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on pvc: 64 subgroups > 32 hardware threads of an Xe-core in 256-GRF mode}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 8], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %h = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 8], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %g, %h : tensor<256x256xf32>, tensor<256x256xf32>
}
}

// -----

// 4 stages x (256 + 256) x 64 x 2 bytes = 262144 bytes > 128 KiB of SLM.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @slm_overflow(%a: tensor<512x512xbf16>, %b: tensor<512x512xbf16>) -> tensor<512x512xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on pvc: 4 stages x (256 + 256) x 64 x 2 bytes = 262144 bytes of SLM > 131072}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 64], group_m = 8, subgroups = [8, 4], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<512x512xbf16>, tensor<512x512xbf16>) -> tensor<512x512xf32>
  return %g : tensor<512x512xf32>
}
}

// -----

// The Xe backend (auto on pvc) cannot compute an f64 GEMM: an error on the
// GEMM, not a config it could not lower.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_cannot_compute(%a: tensor<64x64xf64>, %b: tensor<64x64xf64>) -> tensor<64x64xf64> {
  // expected-error @+1 {{xpu-select-strategy: the xe backend cannot compute this GEMM: f64 operands: DPAS takes f16 or bf16 (f32 is converted to bf16; run xpu-demote-f64 for f64)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f64) : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  return %g : tensor<64x64xf64>
}
}

// -----

// An #xpu.nvgpu config written by hand is verified with the nvgpu backend's
// rules: wgmma needs sm_90a.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @hand_wgmma_on_sm90(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90: wgmma needs sm_90a (the target is 'sm_90')}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 64], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// Thread block clusters (cluster_m = 2) pair programs 2i and 2i + 1 on
// vertically adjacent tiles: 3 tile rows of 128 do not pair up.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @hand_cluster_odd_tile_rows(%a: tensor<384x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<384x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90a: cluster_m 2 needs the tile rows walked in groups of 2: 3 tile rows of 128 and group_m 8 are not (both must be multiples of 2)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 64], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, cluster_m = 2>>} : (tensor<384x256xbf16>, tensor<256x256xbf16>) -> tensor<384x256xf32>
  return %g : tensor<384x256xf32>
}
}

// -----

// Nor do groups of 3 tile rows (group_m 3 of 6 tile rows).
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @hand_cluster_odd_group_m(%a: tensor<768x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<768x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90a: cluster_m 2 needs the tile rows walked in groups of 2: 6 tile rows of 128 and group_m 3 are not (both must be multiples of 2)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 64], group_m = 3, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, cluster_m = 2>>} : (tensor<768x256xbf16>, tensor<256x256xbf16>) -> tensor<768x256xf32>
  return %g : tensor<768x256xf32>
}
}

// -----

// A cluster's workgroups compute one tile each: not a persistent schedule.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @hand_cluster_persistent(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90a: cluster_m 2: the workgroups of a cluster compute one tile each, side by side (the data_parallel schedule), not persistent}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 64], group_m = 8, subgroups = [2, 2], stages = 2, schedule = persistent<programs = 2>, backend = #xpu.nvgpu<mma = wgmma, cluster_m = 2>>} : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// Pingpong consumers take turns at a persistent program's tiles.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @hand_pingpong_data_parallel(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90a: consumers pingpong: the two consumer warpgroups take turns at a program's tiles (the persistent schedule), not data_parallel}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 64], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, consumers = pingpong>>} : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// One pingpong consumer holds a whole tile: 128x256 is 256 accumulators a
// thread.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @hand_pingpong_tile(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90a: consumers pingpong: one warpgroup holds the whole 128x256 tile, 256 f32 accumulators a thread (at most 128: tile_m * tile_n <= 16384)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 256, 64], group_m = 8, subgroups = [2, 4], stages = 2, schedule = persistent<programs = 2>, backend = #xpu.nvgpu<mma = wgmma, consumers = pingpong>>} : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// A [k, n] B is multicast in whole 64-column boxes: tile_n 64 has one.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @hand_cluster_kn_tile_n(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90a: cluster_m 2 with a [k, n] B: tile_n 64 must be a multiple of 128 (each workgroup multicasts whole 64-column boxes of B)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 64, 64], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, cluster_m = 2>>} : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// The tile_n rule that depends on B's layout: a [k, n] B is read in rows of
// tile_n elements, a power-of-two number of 16-byte chunks (96 bf16 = 12).
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @hand_mma_sync_kn_tile_n(%a: tensor<256x256xbf16>, %b: tensor<256x192xbf16>) -> tensor<256x192xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90: tile_n 96 must be a power-of-two number (>= 2) of 16-byte chunks for a [k, n] B}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 96, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<256x256xbf16>, tensor<256x192xbf16>) -> tensor<256x192xf32>
  return %g : tensor<256x192xf32>
}
}

// -----

// #xpu.nvgpu knobs on an Intel target.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @nvgpu_on_pvc(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on pvc: the nvgpu backend cannot compute this GEMM: the target 'pvc' is not an NVIDIA target}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// A dynamic batch of a batched GEMM: no GPU kernel takes it.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @dynamic_batch(%a: tensor<?x8x256xf32>, %b: tensor<?x256x128xf32>) -> tensor<?x8x128xf32> {
  // expected-error @+1 {{xpu-select-strategy: the GEMM ?x(8x128x256) has a dynamic batched shape, which the kernels for pvc do not take; a dynamic m of an unbatched GEMM compiles for every target}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<?x8x256xf32>, tensor<?x256x128xf32>) -> tensor<?x8x128xf32>
  return %g : tensor<?x8x128xf32>
}
}
