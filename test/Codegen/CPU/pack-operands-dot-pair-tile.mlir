// RUN: xpu-opt %s --xpu-remarks -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-pack-operands{register-tile=4,16}))' \
// RUN:   | FileCheck %s

// register-tile=4,16 on an avx512bf16 target: the pair-dot form takes the
// option's tile (16 columns fill one 16-lane accumulator a row).
// CHECK-LABEL: func.func @bf16_dot_pairs_option_tile
//       CHECK:   linalg.pack {{.*}} inner_tiles = [4, 2] {{.*}} -> tensor<10x35x4x2xbf16>
//       CHECK:   linalg.pack {{.*}} inner_tiles = [16, 2] {{.*}} -> tensor<4x35x16x2xbf16>
//       CHECK:   linalg.unpack {{.*}} inner_tiles = [4, 16]
module attributes {xpu.target = #xpu.target<"znver4">} {
func.func @bf16_dot_pairs_option_tile(%a: tensor<40x70xbf16>, %b: tensor<50x70xbf16>) -> tensor<40x50xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x50xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<40x50xf32>) -> tensor<40x50xf32>
  // expected-remark @+1 {{a contraction into [4, 16] f32 tiles}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
                     ins(%a, %b : tensor<40x70xbf16>, tensor<50x70xbf16>)
                     outs(%c : tensor<40x50xf32>) -> tensor<40x50xf32>
  return %r : tensor<40x50xf32>
}
}
