// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm))' --verify-diagnostics

// A GEMM without a config is an error.
func.func @no_config(%x: tensor<16x32xf32>, %w: tensor<32x16xf32>) -> tensor<16x16xf32> {
  // expected-error @below {{xpu-schedule-gemm: xpu.gemm has no #xpu.config; run xpu-select-strategy first}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) : (tensor<16x32xf32>, tensor<32x16xf32>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}

// -----

// 2^17 x 2^16 tiles: more programs than a launch grid holds.
func.func @too_many_tiles(%x: tensor<1048576x16xf32>, %w: tensor<16x1048576xf32>) -> tensor<1048576x1048576xf32> {
  // expected-error @below {{xpu-schedule-gemm: cannot schedule 1048576x1048576x16: more than 2^31 - 1 tiles}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [8, 16, 16], group_m = 8, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<1048576x16xf32>, tensor<16x1048576xf32>) -> tensor<1048576x1048576xf32>
  return %y : tensor<1048576x1048576xf32>
}

// -----

// A dynamic m has its programs counted at run time, one per tile: Stream-K
// (and persistent programs) divide a tile count known at compile time.
func.func @dynamic_m_stream_k(%x: tensor<?x32xf32>, %w: tensor<32x16xf32>) -> tensor<?x16xf32> {
  // expected-error @below {{xpu-schedule-gemm: cannot schedule ?x16x32: a dynamic m needs the data_parallel schedule (programs counted at run time), the config asks for stream_k}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [8, 16, 16], group_m = 8, subgroups = [1, 1], stages = 1, schedule = stream_k<programs = 4>>} : (tensor<?x32xf32>, tensor<32x16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

func.func @dynamic_batch(%x: tensor<?x8x32xf32>, %w: tensor<?x32x16xf32>) -> tensor<?x8x16xf32> {
  // expected-error @below {{xpu-schedule-gemm: cannot schedule ?x(8x16x32): a dynamic batched GEMM (the GPU kernels take a dynamic m of unbatched GEMMs only)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [8, 16, 16], group_m = 8, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<?x8x32xf32>, tensor<?x32x16xf32>) -> tensor<?x8x16xf32>
  return %y : tensor<?x8x16xf32>
}
