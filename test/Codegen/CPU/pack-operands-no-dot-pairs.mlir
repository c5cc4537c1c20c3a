// RUN: xpu-opt %s --xpu-remarks -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-pack-operands{dot-pairs=false}))' \
// RUN:   | FileCheck %s

// dot-pairs=false on an avx512bf16 target (znver4): the bf16 matmul is
// widened to f32 and takes the f32 panels, no pair-dot form.
// CHECK-LABEL: func.func @bf16_matmul_without_dot_pairs
//       CHECK:   arith.extf
//       CHECK:   linalg.pack {{.*}} -> tensor<3x70x14xf32>
//   CHECK-NOT:   bf16>
//       CHECK:   return
module attributes {xpu.target = #xpu.target<"znver4">} {
func.func @bf16_matmul_without_dot_pairs(%a: tensor<40x70xbf16>, %b: tensor<50x70xbf16>) -> tensor<40x50xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x50xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<40x50xf32>) -> tensor<40x50xf32>
  // expected-remark @+1 {{linalg.matmul: bf16 operands widened to f32 (neither the AMX nor the pair-dot form applies)}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
                     ins(%a, %b : tensor<40x70xbf16>, tensor<50x70xbf16>)
                     outs(%c : tensor<40x50xf32>) -> tensor<40x50xf32>
  return %r : tensor<40x50xf32>
}
}
