// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{tf32=true}))' | FileCheck %s
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{tf32=true}))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// f32 GEMMs read as tf32 (xpu-nvvm-pipeline precision=tf32) on sm_90a: the
// nvgpu backend with wgmma k8, whose tile_k is one 128-byte swizzled row of
// f32: 32. The model rates tf32 at half the bf16 peak (989400 / 2 GFLOP/s
// over 132 SMs: 3747.7 flop/ns per SM): a 128x256 tile over K = 4096 computes
// in 2 * 128 * 256 * 4096 / 3747.7 = 71626 ns and moves (128 + 256) * 4096 *
// 4 + 128 * 256 * 4 bytes at 4800 / 132 bytes/ns in 176619 ns, so it is
// memory bound; 512 tiles are 4 waves: 706478 ns. 4 stages of (128 + 256) x
// 32 x 4 bytes: the 196608 bytes of the bf16 kernel.
// CHECK-LABEL: func.func @sm90a_tf32
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [128, 256, 32], group_m = 8, subgroups = [2, 4], stages = 4, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, precision = tf32>>}
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @sm90a_tf32(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  // expected-remark @+3 {{nvgpu backend on sm_90a: f32 operands run on tensor cores as tf32 with wgmma (sm_90a: TMA and warpgroup MMA, tile_k 32)}}
  // expected-remark @+2 {{selected for 4096x4096x4096 (m x n x k) on sm_90a: tile [128, 256, 32], subgroups [2, 4], group_m 8, stages 4, wgmma tf32: 512 tiles on 132 compute units = 3.88 waves, wave efficiency 0.97, useful work 1.00, model time 706478 ns (memory bound); 226 registers per thread (budget 255); SLM 196608 of 233472 bytes}}
  // expected-remark @+1 {{schedule data_parallel}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %g : tensor<4096x4096xf32>
}
}

// -----

// sm_90 (no wgmma): mma.sync m16n8k8, at the same tf32 rate.
// CHECK-LABEL: func.func @sm90_tf32
//       CHECK:   backend = #xpu.nvgpu<mma = mma_sync, precision = tf32>>}
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @sm90_tf32(%a: tensor<4096x4096xf32>, %b: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  // expected-remark @+3 {{nvgpu backend on sm_90: f32 operands run on tensor cores as tf32 with mma_sync (wgmma needs sm_90a)}}
  // expected-remark @+2 {{selected for 4096x4096x4096 (m x n x k) on sm_90}}
  // expected-remark @+1 {{schedule data_parallel}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4096x4096xf32>, tensor<4096x4096xf32>) -> tensor<4096x4096xf32>
  return %g : tensor<4096x4096xf32>
}
}
