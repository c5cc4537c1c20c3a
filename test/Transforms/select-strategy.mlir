// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy))' | FileCheck %s
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null
// A target attached by xpu-attach-target: only @odd_shape has no module target.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(xpu-attach-target{chip=sm_90},func.func(xpu-select-strategy))' | FileCheck %s --check-prefix=SM90
// A lower persistent-gain threshold.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{persistent-gain=0.05}))' | FileCheck %s --check-prefix=PERSISTENT
// Forcing a schedule (the pipelines' schedule= option) for every GEMM; a
// config written by hand keeps its own.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{schedule=stream_k programs=64}))' | FileCheck %s --check-prefix=FORCED
// tf32: f32 GEMMs on NVIDIA tensor cores (xpu-nvvm-pipeline precision=tf32).
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{tf32=true}))' | FileCheck %s --check-prefix=TF32
// backend=simt: the register model of convert-xpu-to-gpu's SIMT kernels
// (docs/Strategy.md, "Registers and the GRF mode"), tile_k 16 on Xe. On pvc
// a 4096^3 bf16 GEMM gets 8-row tiles (the 256-register budget; SIMT
// configs carry no Xe knobs): 8x256 on [1, 8] subgroups is an 8x32 block,
// 16 lanes along n, 8x2 accumulators per lane:
// 64 + 16 + ceil(3 * 16 / 4) * (8 + 2) = 200 <= 256; a 16-row tile would need
// 64 + 32 + 12 * 18 = 312. On sm_90 the SIMT kernels run in runs of 4
// (#xpu.simt<vector = 4>) on 32x64 warp blocks, tiles up to 128x128,
// tile_k 16 for 16-bit operands, with the NVIDIA model of that layout
// (12 + 7 * acc / 4 + live, budget 128): 128x128 on [4, 2] warps, 64
// accumulators per thread: 12 + 112 + 1 = 125 <= 128.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{backend=simt}))' | FileCheck %s --check-prefix=SIMT
// SIMT-LABEL: func.func @pvc_large_square
//       SIMT:   xpu.gemm {{.*}} {config = #xpu.config<tile = [8, 256, 16], group_m = 8, subgroups = [1, 8], stages = 4, schedule = data_parallel>}
// SIMT-LABEL: func.func @sm90_large_square
//       SIMT:   xpu.gemm {{.*}} {config = #xpu.config<tile = [128, 128, 16], group_m = 8, subgroups = [4, 2], stages = 4, schedule = data_parallel, backend = #xpu.simt<vector = 4>>}

// Numbers used below (docs/Design.md's target table, docs/Strategy.md's
// model). Per compute unit: pvc f32 52400 / 128 = 409.375 GFLOP/s, bf16
// 838900 / 128 = 6553.9, memory 3277 / 128 = 25.6016 GB/s; bmg f32
// 13670 / 20 = 683.5, memory 456 / 20 = 22.8; sm_90 bf16 989400 / 132 =
// 7495.45, memory 4800 / 132 = 36.3636. Time of a tile =
// max(2 tm tn Kpad / flops, ((tm + tn) Kpad opBytes + tm tn 4) / bytes) ns.
// Xe registers: a subgroup block of bm x bn f32 is bm*bn*4/64 GRFs, plus 16
// reserved; sm_90 with 16-bit operands (mma.sync): bm*bn/32 accumulators
// per lane + 2 * (4 * bm/16 + 2 * bn/8) fragment registers + 32 reserved +
// 2 per live epilogue value.

// pvc, 4096^3 with bf16 operands. 256x256 tiles: 16 * 16 = 256 tiles /
// 128 Xe-cores = 2 waves, efficiency 256 / (2 * 128) = 1.00, no padding.
// tile_k 32 (16-bit), K / 32 = 128 steps -> 4 stages; SLM 4 * (256 + 256) *
// 32 * 2 = 131072 <= 131072. Subgroups [8, 4] (8x8 halved on columns to 32)
// own 32x64 blocks: 32*64*4/64 = 128 GRFs + 16 = 144 > 128 -> 256-GRF mode.
// Time: memory (512*4096*2 + 65536*4) / 25.6016 = 174070 > compute
// 2*65536*4096 / 6553.9 = 81916; 2 waves = 348139 ns. 128x128 tiles would
// take 8 waves of (256*4096*2 + 16384*4) / 25.6016 = 84475: 675799 ns.
module attributes {xpu.target = #xpu.target<"pvc">} {
// FORCED-LABEL: func.func @pvc_large_square
//       FORCED:   schedule = stream_k<programs = 64>
// CHECK-LABEL: func.func @pvc_large_square
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 4], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>}
func.func @pvc_large_square(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
  // expected-remark @+3 {{selected for 4096x4096x4096 (m x n x k) on pvc: tile [256, 256, 32], subgroups [8, 4], group_m 8, stages 4, grf_mode 256: 256 tiles on 128 compute units = 2.00 waves, wave efficiency 1.00, useful work 1.00, model time 348139 ns (memory bound); 144 registers per thread (budget 256); SLM 131072 of 131072 bytes; 0 of 30 candidates rejected (0 registers, 0 SLM, 0 backend rules)}}
  // expected-remark @+2 {{256-GRF mode: estimated 144 registers per thread > 128 (128 per accumulator fragment x 1 live + 16 reserved)}}
  // expected-remark @+1 {{schedule data_parallel (wave efficiency 1.00 over 2 wave(s): no tail or launch cost worth removing): 256 tiles, 128 workgroups at once; data_parallel: 2.00 waves, efficiency 0.99, 350139 ns}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  return %g : tensor<4096x4096xf32>
}
}

// -----

// bmg (20 Xe-cores), 2048^3 f32: quantization decides. 256x256: 64 tiles =
// 3.2 waves -> 4 waves of 2*65536*2048 / 683.5 = 392737 ns = 1570946 ns.
// 128x128: 256 tiles = 12.8 waves -> 13, efficiency 256 / 260 = 0.98;
// compute 2*16384*2048 / 683.5 = 98184 > memory (256*2048*4 + 16384*4) /
// 22.8 = 94855; 13 * 98184 = 1276394 ns (128x64 ties at 26 waves and loses
// on area). Subgroups [4, 4] own 32x32: 64 GRFs + 16 = 80 <= 128. tile_k 16
// (f32), 128 steps -> 4 stages, SLM 4 * 256 * 16 * 4 = 65536.
module attributes {xpu.target = #xpu.target<"bmg">} {
// CHECK-LABEL: func.func @bmg_quantization
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [128, 128, 16], group_m = 8, subgroups = [4, 4], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>}
func.func @bmg_quantization(%a: tensor<2048x2048xf32>, %b: tensor<2048x2048xf32>) -> tensor<2048x2048xf32> {
  // expected-remark @+2 {{selected for 2048x2048x2048 (m x n x k) on bmg: tile [128, 128, 16], subgroups [4, 4], group_m 8, stages 4, grf_mode 128: 256 tiles on 20 compute units = 12.80 waves, wave efficiency 0.98, useful work 1.00, model time 1276394 ns (compute bound); 80 registers per thread (budget 128); SLM 65536 of 131072 bytes; 0 of 30 candidates rejected (0 registers, 0 SLM, 0 backend rules)}}
  // expected-remark @+1 {{schedule data_parallel (wave efficiency 0.98 over 13 waves; persistent programs model 0.01 faster, less than 0.10): 256 tiles, 80 workgroups at once; data_parallel: 12.80 waves, efficiency 0.97, 1289394 ns}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<2048x2048xf32>, tensor<2048x2048xf32>) -> tensor<2048x2048xf32>
  return %g : tensor<2048x2048xf32>
}
}

// -----

// sm_90, 4096^3 bf16, rhs [n, k]: the nvgpu backend (tensor cores,
// mma.sync: wgmma needs sm_90a). m tiles are multiples of 16 (mma 16x8x16):
// 5 x 5 = 25 candidates. 256x256 on 8 warps [4, 2] gives 64x128 warp
// blocks: 256 accumulators alone exceed 255, rejected; 16x256 and 256x16
// are refused by the backend's rules (64 + 1024 16-byte chunks of a k tile
// do not split over 128 threads). 128x256 on [2, 4]
// (64x64 blocks: 128 + 2 * (16 + 16) + 32 + 2 = 226 <= 255): 32 * 16 = 512
// tiles / 132
// SMs = 3.88 waves -> 4, efficiency 512 / 528 = 0.97; memory (384*4096*2 +
// 32768*4) / 36.3636 = 90112 > compute 2*32768*4096 / 7495.45 = 35812;
// 4 * 90112 = 360448 ns (256x128 ties and loses on width; 128x128: 8 waves
// of 59474 = 475791). SLM 4 * 384 * 32 * 2 = 98304: 233472 / 98304 = 2
// workgroups per SM (8 warps each: 64 / 8 = 8 would fit), 264 at once.
module attributes {xpu.target = #xpu.target<"sm_90">} {
// CHECK-LABEL: func.func @sm90_large_square
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [128, 256, 32], group_m = 8, subgroups = [2, 4], stages = 4, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>}
func.func @sm90_large_square(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
  // expected-remark @+3 {{nvgpu backend on sm_90: bf16 operands run on tensor cores with mma_sync (wgmma needs sm_90a)}}
  // expected-remark @+2 {{selected for 4096x4096x4096 (m x n x k) on sm_90: tile [128, 256, 32], subgroups [2, 4], group_m 8, stages 4, mma_sync: 512 tiles on 132 compute units = 3.88 waves, wave efficiency 0.97, useful work 1.00, model time 360448 ns (memory bound); 226 registers per thread (budget 255); SLM 98304 of 233472 bytes; 3 of 25 candidates rejected (1 registers, 0 SLM, 2 backend rules)}}
  // expected-remark @+1 {{schedule data_parallel (wave efficiency 0.97 over 4 waves; persistent programs model 0.01 faster, less than 0.10): 512 tiles, 264 workgroups at once; data_parallel: 3.88 waves, efficiency 0.96, 364448 ns}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  return %g : tensor<4096x4096xf32>
}
}

// -----

// Skinny M = 1 (a GEMV), f32 on pvc: memory bound, so the smallest tile_m
// (8, the DPAS repeat count) and the n tile that fills the machine: 8x32 ->
// 4096 / 32 = 128 tiles = 1 wave; useful work 1 / 8 = 0.125; one row of
// tiles -> group_m 1. Memory (40*4096*4 + 256*4) / 25.6016 = 25638 ns.
// 8x16: 256 tiles = 2 waves of 15380 = 30760; 8x64: 1 wave of 46160.
// 8x32 on one subgroup: 256*4/64 = 16 + 16 = 32 GRFs; SLM 4*40*16*4 = 10240.
module attributes {xpu.target = #xpu.target<"pvc">} {
// CHECK-LABEL: func.func @skinny_m
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [8, 32, 16], group_m = 1, subgroups = [1, 1], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>}
func.func @skinny_m(%a: tensor<1x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<1x4096xf32> {
  // expected-remark @+2 {{selected for 1x4096x4096 (m x n x k) on pvc: tile [8, 32, 16], subgroups [1, 1], group_m 1, stages 4, grf_mode 128: 128 tiles on 128 compute units = 1.00 waves, wave efficiency 1.00, useful work 0.12, model time 25638 ns (memory bound); 32 registers per thread (budget 128); SLM 10240 of 131072 bytes; 0 of 30 candidates rejected (0 registers, 0 SLM, 0 backend rules)}}
  // expected-remark @+1 {{schedule data_parallel (wave efficiency 1.00 over 1 wave(s): no tail or launch cost worth removing): 128 tiles, 8192 workgroups at once; data_parallel: 1.00 waves, efficiency 0.96, 26638 ns}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<1x4096xf32>, tensor<4096x4096xf32>) -> tensor<1x4096xf32>
  return %g : tensor<1x4096xf32>
}
}

// -----

// Odd shapes, no module target: the pvc preset. 131x67x97: every
// candidate fits one wave, so the fastest tile is the smallest: 8x16 ->
// 17 * 5 = 85 tiles = 0.66 waves, efficiency 85 / 128 = 0.66, useful work
// 131*67 / (136*80) = 0.81; K padded to 112: memory (24*112*4 + 128*4) /
// 25.6016 = 440 ns > compute 2*8*16*112 / 409.375 = 70. 16x16: 45 tiles of
// 600 ns. K / 16 = 7 steps -> 3 stages, SLM 3*24*16*4 = 4608; 8*16*4/64 = 8
// GRFs + 16 = 24.
// On sm_90 (third RUN): SIMT kernels in runs of 4 rows and columns, so a
// warp's 32 lanes need a block of at least 16x32 (4 x 8 lanes): 9 * 3 = 27
// tiles, tile_k 8.
// CHECK-LABEL: func.func @odd_shape
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [8, 16, 16], group_m = 8, subgroups = [1, 1], stages = 3, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>}
// SM90-LABEL: func.func @odd_shape
//       SM90:   xpu.gemm {{.*}} {config = #xpu.config<tile = [16, 32, 8], group_m = 8, subgroups = [1, 1], stages = 3, schedule = data_parallel, backend = #xpu.simt<vector = 4>>}
func.func @odd_shape(%a: tensor<131x97xf32>, %b: tensor<97x67xf32>) -> tensor<131x67xf32> {
  // expected-remark @+2 {{selected for 131x67x97 (m x n x k) on pvc: tile [8, 16, 16], subgroups [1, 1], group_m 8, stages 3, grf_mode 128: 85 tiles on 128 compute units = 0.66 waves, wave efficiency 0.66, useful work 0.81, model time 440 ns (memory bound); 24 registers per thread (budget 128); SLM 4608 of 131072 bytes; 0 of 30 candidates rejected (0 registers, 0 SLM, 0 backend rules)}}
  // expected-remark @+1 {{schedule data_parallel (the last wave leaves 0.34 of the machine idle, but Stream-K models slower (7434 ns vs 1440 ns)): 85 tiles, 8192 workgroups at once; data_parallel: 0.66 waves, efficiency 0.20, 1440 ns}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<131x97xf32>, tensor<97x67xf32>) -> tensor<131x67xf32>
  return %g : tensor<131x67xf32>
}

// -----

// Batched: 8 x 512^3 f32 on pvc. The batch multiplies the tiles: 64x256 ->
// 8 * 2 * 8 = 128 tiles = 1 wave; compute 2*64*256*512 / 409.375 = 40983
// ns > memory (320*512*4 + 16384*4) / 25.6016 = 28158; 128x128 ties and
// loses on width, 128x256 takes 64 tiles of 81966. Subgroups [2, 8] own
// 32x32: 80 GRFs; SLM 4 * 320 * 16 * 4 = 81920.
module attributes {xpu.target = #xpu.target<"pvc">} {
// CHECK-LABEL: func.func @batched
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [64, 256, 16], group_m = 8, subgroups = [2, 8], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>}
func.func @batched(%a: tensor<8x512x512xf32>, %b: tensor<8x512x512xf32>) -> tensor<8x512x512xf32> {
  // expected-remark @+2 {{selected for 512x512x512 x 8 (m x n x k) on pvc: tile [64, 256, 16], subgroups [2, 8], group_m 8, stages 4, grf_mode 128: 128 tiles on 128 compute units = 1.00 waves, wave efficiency 1.00, useful work 1.00, model time 40983 ns (compute bound); 80 registers per thread (budget 128); SLM 81920 of 131072 bytes; 0 of 30 candidates rejected (0 registers, 0 SLM, 0 backend rules)}}
  // expected-remark @+1 {{schedule data_parallel (wave efficiency 1.00 over 1 wave(s): no tail or launch cost worth removing): 128 tiles, 512 workgroups at once; data_parallel: 1.00 waves, efficiency 0.98, 41983 ns}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8x512x512xf32>, tensor<8x512x512xf32>) -> tensor<8x512x512xf32>
  return %g : tensor<8x512x512xf32>
}
}

// -----

// A heavy epilogue (bias + GELU) on 1024^3 f32, pvc: 3 fragments live at
// math.erf (x across it, erf's input/result, one temporary), as in
// fuse-epilogue.mlir. The fastest tile is 64x128 on [2, 4] (128 tiles, 1
// wave, 2*8192*1024 / 409.375 = 40983 ns, as for the identity epilogue);
// 32x32 blocks: 64 GRFs x 3 + 16 = 208 > 128 -> 256-GRF mode (the identity
// epilogue needs 80 and stays in 128). 256x256 (32x64 blocks): 128 x 3 + 16
// = 400 > 256, rejected.
module attributes {xpu.target = #xpu.target<"pvc">} {
// CHECK-LABEL: func.func @heavy_epilogue_needs_256_grf
//       CHECK:   xpu.gemm
//       CHECK:     math.erf
//       CHECK:   } {config = #xpu.config<tile = [64, 128, 16], group_m = 8, subgroups = [2, 4], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>}
func.func @heavy_epilogue_needs_256_grf(%x: tensor<1024x1024xf32>, %w: tensor<1024x1024xf32>, %b: tensor<1024xf32>) -> tensor<1024x1024xf32> {
  // expected-remark @+3 {{selected for 1024x1024x1024 (m x n x k) on pvc: tile [64, 128, 16], subgroups [2, 4], group_m 8, stages 4, grf_mode 256: 128 tiles on 128 compute units = 1.00 waves, wave efficiency 1.00, useful work 1.00, model time 40983 ns (compute bound); 208 registers per thread (budget 256); SLM 49152 of 131072 bytes; 1 of 30 candidates rejected (1 registers, 0 SLM, 0 backend rules)}}
  // expected-remark @+2 {{256-GRF mode: estimated 208 registers per thread > 128 (64 per accumulator fragment x 3 live + 16 reserved)}}
  // expected-remark @+1 {{schedule data_parallel (wave efficiency 1.00 over 1 wave(s): no tail or launch cost worth removing): 128 tiles, 512 workgroups at once; data_parallel: 1.00 waves, efficiency 0.98, 41983 ns}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<1024xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rs2 = arith.constant 0.70710678 : f32
    %in = arith.addf %acc, %bias : f32
    %0 = arith.mulf %in, %rs2 : f32
    %1 = math.erf %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.mulf %in, %half : f32
    %4 = arith.mulf %3, %2 : f32
    xpu.yield %4 : f32
  } : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %g : tensor<1024x1024xf32>
}
}

// -----

// A config written by hand is kept as written. 4096^3 f32 on pvc, 128x128:
// 1024 tiles = 8 waves; compute 2*16384*4096 / 409.375 = 327860 > memory
// (256*4096*4 + 16384*4) / 25.6016 = 166390; 8 waves = 2622881 ns; [4, 4]
// -> 32x32 blocks, 80 GRFs; SLM 3 * 256 * 32 * 4 = 98304.
module attributes {xpu.target = #xpu.target<"pvc">} {
// CHECK-LABEL: func.func @hand_config_kept
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [128, 128, 32], group_m = 4, subgroups = [4, 4], stages = 3, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>}
func.func @hand_config_kept(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  // expected-remark @+1 {{kept the config written by hand on pvc: tile [128, 128, 32], subgroups [4, 4], group_m 4, stages 3, grf_mode 128: 1024 tiles on 128 compute units = 8.00 waves, wave efficiency 1.00, useful work 1.00, model time 2622881 ns (compute bound); 80 registers per thread (budget 128); SLM 98304 of 131072 bytes}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 32], group_m = 4, subgroups = [4, 4], stages = 3, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %g : tensor<4096x4096xf32>
}
}

// -----

// A hand config over the register estimate is kept, with a missed remark:
// 256x256 on [8, 4] in 128-GRF mode needs 128 + 16 = 144 > 128. 1024^3 f32:
// 16 tiles = 0.12 waves, efficiency 16 / 128 = 0.12; compute
// 2*65536*1024 / 409.375 = 327860 ns; SLM 2 * 512 * 32 * 4 = 131072.
module attributes {xpu.target = #xpu.target<"pvc">} {
// CHECK-LABEL: func.func @hand_config_spills_kept
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 4], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>}
func.func @hand_config_spills_kept(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  // expected-remark @+2 {{kept the config written by hand on pvc: tile [256, 256, 32], subgroups [8, 4], group_m 8, stages 2, grf_mode 128: 16 tiles on 128 compute units = 0.12 waves, wave efficiency 0.12, useful work 1.00, model time 327860 ns (compute bound); 144 registers per thread (budget 128); SLM 131072 of 131072 bytes}}
  // expected-remark @+1 {{the config written by hand needs an estimated 144 registers per thread > 128 (128 per accumulator fragment x 1 live + 16 reserved): expect spills}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 4], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %g : tensor<1024x1024xf32>
}
}

// -----

// A Stream-K hand config on sm_90 (SIMT, no backend knobs): kept, with the
// data-parallel numbers and the plan of its schedule. 128x128 on [2, 2]
// (64x64 warp blocks: 128 + 2 * (16 + 16) + 32 + 2 = 226), 1024 tiles = 7.76 waves -> 8, efficiency 1024 /
// 1056 = 0.97; memory (256*4096*2 + 16384*4) / 36.3636 = 59474 ns x 8 =
// 475791; SLM 3 * 256 * 32 * 2 = 49152. No program count: the workgroups
// sm_90 runs at once with the nvgpu backend's residency (its 3 stages of
// shared memory), 132 SMs x min(64 warps / 4, 233472 / 49152) = 132 x 4 =
// 528; 1024 mod 528 = 496 tiles split into 496 x 128 = 63488 K-steps, 120
// or 121 per program.
module attributes {xpu.target = #xpu.target<"sm_90">} {
// FORCED-LABEL: func.func @hand_stream_k_kept
//       FORCED:   schedule = stream_k, backend = #xpu.nvgpu<mma = mma_sync>>
// CHECK-LABEL: func.func @hand_stream_k_kept
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [2, 2], stages = 3, schedule = stream_k, backend = #xpu.nvgpu<mma = mma_sync>>}
func.func @hand_stream_k_kept(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
  // expected-remark @+1 {{kept the config written by hand on sm_90: tile [128, 128, 32], subgroups [2, 2], group_m 8, stages 3, mma_sync: 1024 tiles on 132 compute units = 7.76 waves, wave efficiency 0.97, useful work 1.00, model time 475791 ns (memory bound); 226 registers per thread (budget 255); SLM 49152 of 233472 bytes; stream_k: 1024 tiles on 528 programs: 528 data-parallel, 496 split into 63488 K-steps of 128 (120 or 121 K-steps per program), at most 3 pieces per tile, each in its own workspace slot, summed in program order; 496 fix-up programs: efficiency 0.89, 519035 ns}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [2, 2], stages = 3, schedule = stream_k, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  return %g : tensor<4096x4096xf32>
}
}

// -----

// The cpu target gets no config: its tiles are xpu-cpu-tile-and-vectorize
// options. A hand config there is left as it is.
module attributes {xpu.target = #xpu.target<"cpu">} {
// CHECK-LABEL: func.func @cpu_target_is_untouched
//       CHECK:   xpu.gemm
//   CHECK-NOT:   config
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [64, 256, 256], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel>}
func.func @cpu_target_is_untouched(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  // expected-remark @+1 {{no #xpu.config on the cpu target cpu: the CPU tiles ([mc, nc, kc], [mr, nr]) are options of xpu-cpu-tile-and-vectorize, which does not read it}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  // expected-remark @+1 {{no #xpu.config on the cpu target cpu: the CPU tiles ([mc, nc, kc], [mr, nr]) are options of xpu-cpu-tile-and-vectorize, which does not read it; the config written by hand is left as it is}}
  %h = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 256, 256], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %g, %h : tensor<64x64xf32>, tensor<64x64xf32>
}
}

// -----

// Nothing fits a chip with 1 KiB of SLM: the smallest candidate, 8x16x16
// f32 with 1 stage, needs (8 + 16) * 16 * 4 = 1536 bytes. No config, and
// a missed remark with the counts.
module attributes {xpu.target = #xpu.target<"tiny", vendor = "intel",
    subgroup_sizes = [16], grf_count = 128, grf_bytes = 64, slm_bytes = 1024,
    compute_units = 4, mma = [8, 16, 16], vector_bits = 512,
    peak_f32_gflops = 1000, peak_bf16_gflops = 8000, mem_gbps = 100>} {
// CHECK-LABEL: func.func @nothing_fits_is_untouched
//       CHECK:   xpu.gemm
//   CHECK-NOT:   config
//       CHECK:   return
func.func @nothing_fits_is_untouched(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{no config fits tiny: 30 candidates, 0 over the register budget (1 live accumulator fragments in the epilogue), 30 over 1024 bytes of SLM, 0 refused by the xe backend}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}


// -----

// Stream-K chosen: 2304^2 x 16384 bf16 on pvc. 256x256 tiles: 9 x 9 = 81
// tiles on 128 Xe-cores, 0.63 of a wave: the last (only) wave leaves 0.37
// of the machine idle (> 0.2). One tile: memory (512*16384*2 + 65536*4) /
// 25.6016 = 665559 ns (> compute 2*65536*16384 / 6553.9 = 327680).
// data_parallel: 1 wave + 1000 ns to start a workgroup = 666559 ns.
// stream_k on 128 programs (the best of 128 = all resident): all 81 tiles
// split, 81 x 512 = 41472 K-steps, 324 per program: 324 x 665559 / 512 +
// two partial tiles written (2 x 262144 / 25.6016 = 20479) = 441654; the
// fix-up: a launch (5000) + 81 tiles on 128 Xe-cores reading 3 slots and
// writing the tile ((3 + 1) x 262144 / 25.6016 = 40958) + 1000 = 46958;
// + 1000 to start the programs = 489611 ns, efficiency 81 x 665559 / 128 /
// 489611 = 0.86.
module attributes {xpu.target = #xpu.target<"pvc">} {
// CHECK-LABEL: func.func @tail_wave_stream_k
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 4], stages = 4, schedule = stream_k<programs = 128>, backend = #xpu.xe<grf_mode = 256>>}
func.func @tail_wave_stream_k(%a: tensor<2304x16384xbf16>, %b: tensor<16384x2304xbf16>) -> tensor<2304x2304xf32> {
  // expected-remark @+3 {{selected for 2304x2304x16384 (m x n x k) on pvc: tile [256, 256, 32], subgroups [8, 4], group_m 8, stages 4, grf_mode 256: 81 tiles on 128 compute units = 0.63 waves, wave efficiency 0.63, useful work 1.00, model time 665559 ns (memory bound)}}
  // expected-remark @+2 {{256-GRF mode}}
  // expected-remark @+1 {{schedule stream_k<programs = 128>: 81 tiles, 128 workgroups at once; data_parallel: 0.63 waves, efficiency 0.63, 666559 ns; stream_k: 81 tiles on 128 programs: 0 data-parallel, 81 split into 41472 K-steps of 512 (324 K-steps per program), at most 3 pieces per tile, each in its own workspace slot, summed in program order; 81 fix-up programs: efficiency 0.86, 489611 ns}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<2304x16384xbf16>, tensor<16384x2304xbf16>) -> tensor<2304x2304xf32>
  return %g : tensor<2304x2304xf32>
}
}

// -----

// Launch costs: 8192^2 x 32 bf16 on bmg, 256x256 tiles: 1024 tiles on 20
// Xe-cores = 51.2 waves of 12630 ns (memory: (512*32*2 + 65536*4) / 22.8).
// data_parallel: 52 x (12630 + 1000) = 724606 ns. Persistent on 20 programs:
// 52 tiles each x 12630 + 1000 = 657761, 0.07 faster: below the default
// gain (0.1), chosen with persistent-gain=0.05 (the PERSISTENT run).
// PERSISTENT-LABEL: func.func @launch_bound_persistent
//       PERSISTENT:   schedule = persistent<programs = 20>
module attributes {xpu.target = #xpu.target<"bmg">} {
// CHECK-LABEL: func.func @launch_bound_persistent
//       CHECK:   schedule = data_parallel
func.func @launch_bound_persistent(%a: tensor<8192x32xbf16>, %b: tensor<32x8192xbf16>) -> tensor<8192x8192xf32> {
  // expected-remark @+3 {{selected for 8192x8192x32 (m x n x k) on bmg: tile [256, 256, 32]}}
  // expected-remark @+2 {{256-GRF mode}}
  // expected-remark @+1 {{schedule data_parallel (wave efficiency 0.98 over 52 waves; persistent programs model 0.07 faster, less than 0.10): 1024 tiles, 20 workgroups at once; data_parallel: 51.20 waves, efficiency 0.91, 724606 ns}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8192x32xbf16>, tensor<32x8192xbf16>) -> tensor<8192x8192xf32>
  return %g : tensor<8192x8192xf32>
}
}

// -----

// sm_90a, 4096^3 bf16, rhs [n, k]: the nvgpu backend with wgmma (TMA +
// warpgroup MMA). Only wgmma tiles are candidates: tile_m 64 or 128, tile_n
// 64, 128 or 256 (6), tile_k 64 (one 128-byte swizzled row); 4096 / 64 = 64
// k tiles -> 4 stages, 4 * (128 + 256) * 64 * 2 = 196608 bytes of shared
// memory. 128x256: 512 tiles = 3.88 waves, the same memory-bound 4 * 90112
// = 360448 ns as mma.sync on sm_90. One workgroup per SM: the setmaxnreg
// split takes 128 x (40 + 2 x 232) = 64512 of 65536 registers (and 233472 /
// 196608 = 1), so 132 at once.
// With schedule=stream_k (the FORCED run) the GEMM stays on wgmma: its
// programs run Stream-K's pieces of tiles on the mbarrier ring too.
// FORCED-LABEL: func.func @sm90a_wgmma
//       FORCED:   xpu.gemm {{.*}} {config = #xpu.config<tile = [128, 256, 64], group_m = 8, subgroups = [2, 4], stages = 4, schedule = stream_k<programs = 64>, backend = #xpu.nvgpu<mma = wgmma>>}
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @sm90a_wgmma
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [128, 256, 64], group_m = 8, subgroups = [2, 4], stages = 4, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>}
func.func @sm90a_wgmma(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
  // expected-remark @+3 {{nvgpu backend on sm_90a: bf16 operands run on tensor cores with wgmma (sm_90a: TMA and warpgroup MMA, tile_k 64)}}
  // expected-remark @+2 {{selected for 4096x4096x4096 (m x n x k) on sm_90a: tile [128, 256, 64], subgroups [2, 4], group_m 8, stages 4, wgmma: 512 tiles on 132 compute units = 3.88 waves, wave efficiency 0.97, useful work 1.00, model time 360448 ns (memory bound); 226 registers per thread (budget 255); SLM 196608 of 233472 bytes; 0 of 6 candidates rejected (0 registers, 0 SLM, 0 backend rules)}}
  // expected-remark @+1 {{schedule data_parallel (wave efficiency 0.97 over 4 waves; persistent programs model 0.01 faster, less than 0.10): 512 tiles, 132 workgroups at once; data_parallel: 3.88 waves, efficiency 0.96, 364448 ns}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  return %g : tensor<4096x4096xf32>
}
}

// -----

// sm_90a, 1536x2048x16384: 96 tiles of 128x256 leave 0.27 of the 132 SMs
// idle, and Stream-K (all 96 tiles split over 132 programs) models 19%
// faster, but the nvgpu backend does not let the model choose it
// (choosesStreamK): on an H100 it ran at half the data-parallel kernel's
// speed on this shape (docs/Performance.md, "Stream-K on wgmma"). A forced
// stream_k still runs on wgmma (the FORCED run).
// FORCED-LABEL: func.func @tail_wave_wgmma
//       FORCED:   schedule = stream_k<programs = 64>, backend = #xpu.nvgpu<mma = wgmma>>
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @tail_wave_wgmma
//       CHECK:   schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>
func.func @tail_wave_wgmma(%a: tensor<1536x16384xbf16>, %b: tensor<2048x16384xbf16>) -> tensor<1536x2048xf32> {
  // expected-remark @+3 {{nvgpu backend on sm_90a}}
  // expected-remark @+2 {{selected for 1536x2048x16384 (m x n x k) on sm_90a: tile [128, 256, 64]}}
  // expected-remark @+1 {{schedule data_parallel (the last wave leaves 0.27 of the machine idle and Stream-K models faster (284024 ns vs 350635 ns), but Stream-K is not chosen on sm_90a: it measured slower than data-parallel on every shape (its K pieces lose the L2 reuse of neighbouring tiles, and the fix-up kernel reads every piece back, which the model does not price); schedule=stream_k forces it): 96 tiles, 132 workgroups at once}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) : (tensor<1536x16384xbf16>, tensor<2048x16384xbf16>) -> tensor<1536x2048xf32>
  return %g : tensor<1536x2048xf32>
}
}

// -----

// f32 operands on NVIDIA: SIMT kernels in runs of 4 (#xpu.simt<vector = 4>:
// ld.shared.v4 and ld.global.v4, tile_k 8) on 32x64 warp blocks unless tf32 is asked
// for (the TF32 run): then the nvgpu backend, mma.sync m16n8k8 with
// precision = tf32.
// TF32-LABEL: func.func @sm80_f32
//       TF32:   backend = #xpu.nvgpu<mma = mma_sync, precision = tf32>>}
module attributes {xpu.target = #xpu.target<"sm_80">} {
// CHECK-LABEL: func.func @sm80_f32
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [{{[0-9]+}}, {{[0-9]+}}, 8], group_m = 8, subgroups = [{{[0-9]+}}, {{[0-9]+}}], stages = 4, schedule = data_parallel, backend = #xpu.simt<vector = 4>>}
func.func @sm80_f32(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  // expected-remark @+3 {{simt backend on sm_80: f32 operands without tf32 do not run on tensor cores}}
  // expected-remark @+2 {{selected for 1024x1024x1024 (m x n x k) on sm_80}}
  // expected-remark @+1 {{schedule data_parallel}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %g : tensor<1024x1024xf32>
}
}

// -----

// A wgmma config written by hand on sm_90a: kept and verified by the nvgpu
// backend's rules (tile_k 64, 3 stages of (128 + 128) x 64 x 2 bytes).
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @hand_wgmma_kept
//       CHECK:   backend = #xpu.nvgpu<mma = wgmma>>}
func.func @hand_wgmma_kept(%a: tensor<1024x1024xbf16>, %b: tensor<1024x1024xbf16>) -> tensor<1024x1024xf32> {
  // expected-remark @+1 {{kept the config written by hand on sm_90a: tile [128, 128, 64], subgroups [2, 2], group_m 8, stages 3, wgmma: 64 tiles on 132 compute units = 0.48 waves, wave efficiency 0.48, useful work 1.00, model time 16220 ns (memory bound); 226 registers per thread (budget 255); SLM 98304 of 233472 bytes}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 64], group_m = 8, subgroups = [2, 2], stages = 3, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xf32>
  return %g : tensor<1024x1024xf32>
}
}
