// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm),convert-xpu-to-nvgpu)' --verify-diagnostics

// The pass verifies the #xpu.nvgpu config of each GEMM with the nvgpu
// backend's rules (GemmBackends.h) instead of deciding: a config written by
// hand that breaks them is an error at the GEMM.

// Not an NVIDIA target.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @intel(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-nvgpu: the target 'pvc' is not an NVIDIA target}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// Warp blocks of 8 columns: ldmatrix.x4 loads B in pairs of n8 tiles.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @narrow_warps(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-nvgpu: the config #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 8], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>> is invalid for the nvgpu backend on sm_90: each warp's 64x8 block must be a multiple of 16x16 (mma.sync m16 rows, ldmatrix.x4 pairs of n8 columns)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 8], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// An accumulator in bf16: tensor cores accumulate in f32.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @bf16_acc(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @+1 {{convert-xpu-to-nvgpu: accumulator bf16: tensor cores accumulate in f32}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(bf16) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %g : tensor<64x64xbf16>
}
}

// -----

// An epilogue reading a value computed outside the GEMM (not a constant):
// the kernel has no such value.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @captured(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %s: f32) -> tensor<64x64xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    // expected-error @+1 {{convert-xpu-to-nvgpu: the epilogue uses a value defined outside the GEMM that is not a scalar constant}}
    %t = arith.mulf %acc, %s : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// wgmma needs sm_90a.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @wgmma_on_sm90(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>) -> tensor<128x128xf32> {
  // expected-error @+1 {{convert-xpu-to-nvgpu: the config #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>> is invalid for the nvgpu backend on sm_90: wgmma needs sm_90a (the target is 'sm_90')}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xf32>
  return %g : tensor<128x128xf32>
}
}

// -----

// wgmma reads k tiles of one 128-byte swizzled row: tile_k 64 for bf16.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @wgmma_tile_k(%a: tensor<128x128xbf16>, %b: tensor<128x128xbf16>) -> tensor<128x128xf32> {
  // expected-error @+1 {{tile_k 32: one 128-byte swizzled row (64 2-byte elements)}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<128x128xbf16>, tensor<128x128xbf16>) -> tensor<128x128xf32>
  return %g : tensor<128x128xf32>
}
}

// -----

// ... and tile_k 32 for tf32 (f32 operands, 4 bytes each).
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @wgmma_tf32_tile_k(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{tile_k 64: one 128-byte swizzled row (32 4-byte elements)}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, precision = tf32>>} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  return %g : tensor<128x128xf32>
}
}

// -----

// wgmma reads tf32 operands K-major only: a [k, n] B that
// xpu-materialize-layouts did not transpose (a pass pipeline without it) is
// an error, not a kernel that reads B transposed.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @wgmma_tf32_kn(%a: tensor<128x128xf32>, %b: tensor<128x128xf32>) -> tensor<128x128xf32> {
  // expected-error @+1 {{wgmma reads tf32 operands K-major only: B must be [n, k] (xpu-materialize-layouts transposes a [k, n] B)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, precision = tf32>>} : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  return %g : tensor<128x128xf32>
}
}

// -----

// Pingpong consumers take turns at a persistent program's whole tiles, not
// at Stream-K's pieces of tiles.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @wgmma_stream_k_pingpong(%a: tensor<256x128xbf16>, %b: tensor<256x128xbf16>) -> tensor<256x256xf32> {
  // expected-error @+1 {{consumers pingpong: the two consumer warpgroups take turns at a program's tiles (the persistent schedule), not stream_k}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 4, schedule = stream_k<programs = 4>, backend = #xpu.nvgpu<mma = wgmma, consumers = pingpong>>} : (tensor<256x128xbf16>, tensor<256x128xbf16>) -> tensor<256x256xf32>
  return %g : tensor<256x256xf32>
}
}

// -----

// tf32 is how the tensor cores read f32 operands, not bf16 ones.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @tf32_bf16(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{precision tf32 for 2-byte operands: the tensor cores read 16-bit operands natively and f32 ones as tf32}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync, precision = tf32>>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// 16x256 on [1, 16] warps of 16x16: 512 threads, over which the 16 x 32 /
// 8 = 64 16-byte chunks of A's k tile do not split evenly.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @chunks_do_not_split(%a: tensor<64x64xbf16>, %b: tensor<256x64xbf16>) -> tensor<64x256xf32> {
  // expected-error @+1 {{the 64 + 1024 16-byte chunks of a k tile do not split evenly over 512 threads}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [16, 256, 32], group_m = 1, subgroups = [1, 16], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<64x64xbf16>, tensor<256x64xbf16>) -> tensor<64x256xf32>
  return %g : tensor<64x256xf32>
}
}

// -----

// An operand laid out with a pitch of its own (a view of a wider tensor, as
// xpu-materialize-layouts leaves them) is read with that pitch, which must
// keep rows on 16 bytes: 100 bf16 are 200 bytes.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @pitch_not_16_bytes(%a: tensor<64x100xbf16>, %b: tensor<64x97xbf16>) -> tensor<64x64xf32> {
  %v = tensor.extract_slice %a[0, 0] [64, 97] [1, 1] : tensor<64x100xbf16> to tensor<64x97xbf16>
  // expected-error @+1 {{convert-xpu-to-nvgpu: A has rows of 100 x 2 bytes, not a multiple of 16 (cp.async and TMA read 16-byte aligned rows)}}
  %g = xpu.gemm %v, %b rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<64x97xbf16>, tensor<64x97xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// A dynamic m scheduled for the NVIDIA kernels (written by hand past the
// strategy): refused at the tile, not sized from an unknown m.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @dynamic_m(%a: tensor<?x256xbf16>, %b: tensor<256x128xbf16>) -> tensor<?x128xf32> {
  // expected-error @+1 {{a tile with a dynamic m and a config for the nvgpu backend, whose kernels need static shapes (the SIMT and Xe kernels read the rows at run time)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<?x256xbf16>, tensor<256x128xbf16>) -> tensor<?x128xf32>
  return %g : tensor<?x128xf32>
}
}
