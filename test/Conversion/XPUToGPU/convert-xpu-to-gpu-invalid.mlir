// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(convert-xpu-to-gpu{default-target=nosuch}))' --verify-diagnostics
// (Only the last function lacks a module target and reaches the default.)

module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @no_config(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @below {{convert-xpu-to-gpu: xpu.gemm has no #xpu.config; run xpu-select-strategy first}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
}

// -----

module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @stream_k(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @below {{convert-xpu-to-gpu: schedule stream_k has no SIMT kernel yet (data_parallel only)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 1, grf_mode = 128, schedule = stream_k>} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
}

// -----

// 16 lanes cannot split a 2x4 subgroup block (4 lanes along n leave 4 rows
// of lanes for 2 rows).
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @lanes(%x: tensor<16x16xf32>, %w: tensor<16x64xf32>) -> tensor<16x64xf32> {
  // expected-error @below {{convert-xpu-to-gpu: cannot generate a kernel for #xpu.config<tile = [2, 64, 16], group_m = 1, subgroups = [1, 16], stages = 1, grf_mode = 128, schedule = data_parallel>: 16 lanes do not split a 2x4 subgroup block}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [2, 64, 16], group_m = 1, subgroups = [1, 16], stages = 1, grf_mode = 128, schedule = data_parallel>} : (tensor<16x16xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %y : tensor<16x64xf32>
}
}

// -----

// One subgroup for a 256x256 tile: 256x16 accumulators per thread.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @accumulators(%x: tensor<256x32xf32>, %w: tensor<32x256xf32>) -> tensor<256x256xf32> {
  // expected-error @below {{256x16 accumulators per thread (at most 256)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 1, subgroups = [1, 1], stages = 1, grf_mode = 256, schedule = data_parallel>} : (tensor<256x32xf32>, tensor<32x256xf32>) -> tensor<256x256xf32>
  return %y : tensor<256x256xf32>
}
}

// -----

func.func @unknown_target(%x: tensor<16x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @below {{convert-xpu-to-gpu: unknown default-target 'nosuch' (presets: pvc, bmg, sm_80, sm_90, sm_90a, cpu)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 1, grf_mode = 128, schedule = data_parallel>} : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
