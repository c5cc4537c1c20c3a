// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{default-target=mi300}))' --verify-diagnostics

// Hand-written configs that the target cannot run are errors on the GEMM.

// Xe has 128- and 256-GRF modes; 0 is for targets without modes.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_grf_mode_zero(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on pvc: grf_mode 0 is not a GRF mode of Xe (128 or 256)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [4, 4], stages = 2, grf_mode = 0, schedule = data_parallel>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @nvidia_grf_mode(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90: grf_mode 256: the target has no GRF modes (grf_mode must be 0)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [2, 2], stages = 2, grf_mode = 256, schedule = data_parallel>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// 64 / 8 = 8 columns per subgroup: not a multiple of DPAS's n = 16.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @block_not_mma_multiple(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on pvc: subgroup block [64, 8] and tile_k 32 are not multiples of the mma shape [8, 16, 16]}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [1, 8], stages = 2, grf_mode = 128, schedule = data_parallel>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// tile_k 8 is half an mma.sync k-step.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @tile_k_not_mma_multiple(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90: subgroup block [64, 64] and tile_k 8 are not multiples of the mma shape [16, 8, 16]}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 8], group_m = 8, subgroups = [2, 2], stages = 2, grf_mode = 0, schedule = data_parallel>} : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// 8 x 8 warps of 32 threads = 2048 > 1024 threads per block.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @too_many_threads(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on sm_90: 64 subgroups of 32 lanes = 2048 work-items > 1024 per workgroup}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 8], stages = 2, grf_mode = 0, schedule = data_parallel>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// 64 subgroups of 16 = 1024 work-items fit a workgroup, but an Xe-core runs
// only 32 threads in 256-GRF mode (64 in 128-GRF mode: the same layout is
// valid there).
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_threads_in_256_grf_mode(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> (tensor<256x256xf32>, tensor<256x256xf32>) {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on pvc: 64 subgroups > 32 hardware threads of an Xe-core in 256-GRF mode}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 8], stages = 2, grf_mode = 256, schedule = data_parallel>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %h = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 8], stages = 2, grf_mode = 128, schedule = data_parallel>} : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %g, %h : tensor<256x256xf32>, tensor<256x256xf32>
}
}

// -----

// 4 stages x (256 + 256) x 64 x 2 bytes = 262144 bytes > 128 KiB of SLM.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @slm_overflow(%a: tensor<512x512xbf16>, %b: tensor<512x512xbf16>) -> tensor<512x512xf32> {
  // expected-error @+1 {{xpu-select-strategy: the config written by hand is invalid on pvc: 4 stages x (256 + 256) x 64 x 2 bytes = 262144 bytes of SLM > 131072}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 64], group_m = 8, subgroups = [8, 4], stages = 4, grf_mode = 256, schedule = data_parallel>} : (tensor<512x512xbf16>, tensor<512x512xbf16>) -> tensor<512x512xf32>
  return %g : tensor<512x512xf32>
}
}

// -----

// No module target and an unknown default-target preset.
// expected-error @+1 {{xpu-select-strategy: unknown default-target 'mi300' (presets: pvc, bmg, sm_80, sm_90, sm_90a, cpu)}}
func.func @unknown_default_target(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  return %g : tensor<8x6xf32>
}
