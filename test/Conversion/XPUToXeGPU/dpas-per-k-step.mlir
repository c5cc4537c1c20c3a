// The number of DPAS instructions per K-step and subgroup that each config
// gives, after upstream's subgroup distribution (sg_layout / sg_data) and
// blocking (inst_data) of the kernels convert-xpu-to-xegpu emits:
// (block_m / 8) * (block_n / 16) * (tile_k / 16) with block = tile /
// subgroups.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-materialize-layouts,xpu-schedule-gemm),convert-xpu-to-xegpu,gpu.module(xegpu-wg-to-sg-distribute,cse,xegpu-propagate-layout{layout-kind=inst},xegpu-blocking,canonicalize,cse))' | FileCheck %s

// 256x256x32 on [8, 4]: 32x64 blocks: 4 * 4 * 2 = 32.
// CHECK-LABEL: gpu.func @tile_256x256x32_sg_8x4
//       CHECK:   scf.for
// CHECK-COUNT-32:  xegpu.dpas {{.*}} : vector<8x16xbf16>, vector<16x16xbf16>, vector<8x16xf32> -> vector<8x16xf32>
//   CHECK-NOT:     xegpu.dpas
//       CHECK:     scf.yield
func.func @tile_256x256x32_sg_8x4(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 4], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  return %g : tensor<4096x4096xf32>
}

// -----

// 128x128x16 on [4, 4] (the strategy's choice for f32 2048^3 on bmg): 32x32
// blocks: 4 * 2 * 1 = 8.
// CHECK-LABEL: gpu.func @tile_128x128x16_sg_4x4
//       CHECK:   scf.for
// CHECK-COUNT-8:   xegpu.dpas
//   CHECK-NOT:     xegpu.dpas
//       CHECK:     scf.yield
func.func @tile_128x128x16_sg_4x4(%a: tensor<2048x2048xbf16>, %b: tensor<2048x2048xbf16>) -> tensor<2048x2048xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 128, 16], group_m = 8, subgroups = [4, 4], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<2048x2048xbf16>, tensor<2048x2048xbf16>) -> tensor<2048x2048xf32>
  return %g : tensor<2048x2048xf32>
}

// -----

// Skinny M = 1 with the strategy's 8x32x16 tile on one subgroup: 1 * 2 * 1
// = 2 (the 7 padded rows are zeros read outside the descriptor).
// CHECK-LABEL: gpu.func @skinny_8x32x16_sg_1x1
//       CHECK:   scf.for
// CHECK-COUNT-2:   xegpu.dpas
//   CHECK-NOT:     xegpu.dpas
//       CHECK:     scf.yield
func.func @skinny_8x32x16_sg_1x1(%a: tensor<1x4096xf16>, %b: tensor<4096x4096xf16>) -> tensor<1x4096xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [8, 32, 16], group_m = 1, subgroups = [1, 1], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<1x4096xf16>, tensor<4096x4096xf16>) -> tensor<1x4096xf32>
  return %g : tensor<1x4096xf32>
}
