// RUN: xpu-opt %s --xpu-remarks -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-pack-operands))' \
// RUN:   | FileCheck %s

// cooperlake has avx512bf16 and VNNI, but its bf16 peak (vdpbf16ps on one
// port) is half its f32 peak (two FMA ports): the bf16 matmul is widened
// to f32 and takes the f32 panels, while the i8 matmul, which has no
// faster form, takes vpdpwssd on i16 pairs. znver4, whose bf16 peak is
// twice its f32 one, takes the pair-dot form for both
// (pack-operands-dot-pair-tile.mlir).
// CHECK-LABEL: func.func @bf16_matmul
//       CHECK:   arith.extf
//       CHECK:   linalg.pack {{.*}} -> tensor<3x70x14xf32>
//   CHECK-NOT:   bf16>
//       CHECK:   return
// CHECK-LABEL: func.func @i8_matmul
//       CHECK:   arith.extsi {{.*}} : i8 to i16
//       CHECK:   return
module attributes {xpu.target = #xpu.target<"cooperlake">} {
func.func @bf16_matmul(%a: tensor<40x70xbf16>, %b: tensor<50x70xbf16>) -> tensor<40x50xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x50xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<40x50xf32>) -> tensor<40x50xf32>
  // expected-remark @+1 {{linalg.matmul: bf16 operands widened to f32 (neither the AMX nor the pair-dot form applies), lhs packed into 14-row panels, rhs ([n, k]) into 32-column panels, a contraction of panels into [14, 32] tiles}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
                     ins(%a, %b : tensor<40x70xbf16>, tensor<50x70xbf16>)
                     outs(%c : tensor<40x50xf32>) -> tensor<40x50xf32>
  return %r : tensor<40x50xf32>
}
func.func @i8_matmul(%a: tensor<40x70xi8>, %b: tensor<50x70xi8>) -> tensor<40x50xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<40x50xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<40x50xi32>) -> tensor<40x50xi32>
  // expected-remark @+1 {{linalg.matmul (signed i8 times signed i8 into i32) in the pair-dot form (vpdpwssd on i16 pairs)}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
                     ins(%a, %b : tensor<40x70xi8>, tensor<50x70xi8>)
                     outs(%c : tensor<40x50xi32>) -> tensor<40x50xi32>
  return %r : tensor<40x50xi32>
}
}
