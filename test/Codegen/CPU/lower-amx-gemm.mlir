// RUN: xpu-opt %s --split-input-file --xpu-cpu-lower-amx-gemm --xpu-remarks \
// RUN:   -verify-diagnostics | FileCheck %s
// With parallel, the panel groups (disjoint output columns) are an
// scf.forall: N1 = 4 panels, groups of 2 (at least 8 groups where N1
// allows, pairs at the least).
// RUN: xpu-opt %s --split-input-file --xpu-cpu-lower-amx-gemm=parallel=true \
// RUN:   2>/dev/null | FileCheck %s --check-prefix=PAR
// RUN: xpu-opt %s --split-input-file --xpu-cpu-lower-amx-gemm="k-steps=4" \
// RUN:   2>/dev/null | FileCheck %s --check-prefix=GROUPS
// PAR-LABEL: func.func @amx_gemm
//       PAR:   call @__xpu_cpu_request_amx()
//       PAR:   scf.forall (%{{.*}}) = (0) to (4) step (2) {
//       PAR:     amx.tile_mulf

// The AMX contraction on buffers (AmxLayout.h): M1 = 2 blocks of 32 rows,
// N1 = 4 panels of 16 columns, K1 = 3 steps of 32. The tile permission is
// requested first; then column-panel groups, row bands, k groups (by
// default one: all of k), 32-row blocks and pairs of panels. The four f32
// accumulators are loaded once, carried in tile registers over the k steps
// and stored once; per k step two lhs and two rhs tile loads and four
// tdpbf16ps. With k-unroll = 2 a loop would run one iteration here, so the
// three steps are straight-line code.
#a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d1, d5 * 2 + d6)>
#b = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d3, d6)>
#c = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @amx_gemm
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: memref<2x3x32x32xbf16>
//  CHECK-SAME:   %[[B:[a-zA-Z0-9]+]]: memref<4x3x16x16x2xbf16>
//  CHECK-SAME:   %[[C:[a-zA-Z0-9]+]]: memref<2x32x4x16xf32>
//       CHECK:   call @__xpu_cpu_request_amx()
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       scf.for
//       CHECK:         scf.for
//       CHECK:           scf.for
//   CHECK-COUNT-4:         amx.tile_load %[[C]]{{.*}} : memref<2x32x4x16xf32> into !amx.tile<16x16xf32>
//   CHECK-NOT:             amx.tile_store
//   CHECK-COUNT-2:         amx.tile_load %[[A]]{{.*}} : memref<2x3x32x32xbf16> into !amx.tile<16x32xbf16>
//   CHECK-COUNT-2:         amx.tile_load %[[B]]{{.*}} : memref<4x3x16x16x2xbf16> into !amx.tile<16x32xbf16>
//   CHECK-COUNT-12:        amx.tile_mulf
//   CHECK-NOT:             amx.tile_load
//   CHECK-COUNT-4:         amx.tile_store %[[C]]
//   CHECK-NOT:   linalg.generic
//       CHECK: func.func private @__xpu_cpu_request_amx()
//       CHECK:   llvm.inline_asm has_side_effects "syscall"
//       CHECK:   call @exit
func.func @amx_gemm(%a: memref<2x3x32x32xbf16>, %b: memref<4x3x16x16x2xbf16>, %c: memref<2x32x4x16xf32>) {
  // expected-remark @+1 {{AMX GEMM 64x64x96 (padded): 2x2 blocks of 16x16 f32 tiles, tdpbf16ps over k in steps of 32, the accumulators in tile registers for 3 of the 3 steps at a time, 4 rhs panels of 16 columns per pass over the rows}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%a, %b : memref<2x3x32x32xbf16>, memref<4x3x16x16x2xbf16>) outs(%c : memref<2x32x4x16xf32>) {
  ^bb0(%x: bf16, %w: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %w : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// A body that is not the plain product (here a fused conversion) is left
// to the scalar loops, with a remark.
#a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d1, d5 * 2 + d6)>
#b = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d3, d6)>
#c = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @other_body_is_untouched
//   CHECK-NOT:   amx.
//       CHECK:   linalg.generic
func.func @other_body_is_untouched(%a: memref<2x3x32x32xbf16>, %b: memref<4x3x16x16x2xbf16>, %c: memref<2x32x4x16xf32>) {
  // expected-remark @+1 {{AMX contraction left to the scalar loops: its body is not acc + extf(lhs) * extf(rhs)}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%a, %b : memref<2x3x32x32xbf16>, memref<4x3x16x16x2xbf16>) outs(%c : memref<2x32x4x16xf32>) {
  ^bb0(%x: bf16, %w: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %w : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.subf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// Panels that do not pair up (N1 = 3) are not the padded form: left alone.
#a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d1, d5 * 2 + d6)>
#b = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d3, d6)>
#c = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @unpadded_is_untouched
//   CHECK-NOT:   amx.
//       CHECK:   linalg.generic
func.func @unpadded_is_untouched(%a: memref<2x3x32x32xbf16>, %b: memref<3x3x16x16x2xbf16>, %c: memref<2x32x3x16xf32>) {
  // expected-remark @+1 {{AMX contraction left to the scalar loops: its shapes are not whole 32x32 blocks and 32-deep k steps}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%a, %b : memref<2x3x32x32xbf16>, memref<3x3x16x16x2xbf16>) outs(%c : memref<2x32x3x16xf32>) {
  ^bb0(%x: bf16, %w: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %w : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// A zero fill of the accumulator right before the contraction is folded
// into the nest: the first k group starts from zero tiles, the fill is
// gone. K1 = 9 in one group: zero tiles, a loop of 2 steps per iteration
// over steps 0 to 8 that carries the four tiles, the ninth step after it,
// one store; the accumulator buffer is never read.
#a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d1, d5 * 2 + d6)>
#b = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d3, d6)>
#c = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @zero_fill_is_folded
//   CHECK-NOT:   linalg.fill
//   CHECK-COUNT-4:       amx.tile_zero : !amx.tile<16x16xf32>
//       CHECK:           %[[T:.+]]:4 = scf.for %{{.+}} = %{{.+}} to %{{.+}} step %{{.+}} iter_args(
//   CHECK-SAME:              -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
//   CHECK-COUNT-8:         amx.tile_mulf
//       CHECK:             scf.yield
//       CHECK:           }
//       CHECK:           amx.tile_mulf %{{.+}}, %{{.+}}, %[[T]]#0
//   CHECK-COUNT-3:       amx.tile_mulf
//   CHECK-COUNT-4:       amx.tile_store
//   CHECK-NOT:           amx.tile_load %{{.*}} : memref<1x32x2x16xf32>
//
// With k-steps=4 the accumulators go back to memory every 4 steps: the
// first group from zero tiles, the group of steps 4 to 7 and the
// remainder (step 8) load them first.
// GROUPS-LABEL: func.func @zero_fill_is_folded
//   GROUPS-COUNT-4:      amx.tile_zero : !amx.tile<16x16xf32>
//       GROUPS:          scf.for {{.*}} iter_args(
//   GROUPS-COUNT-4:      amx.tile_store
//       GROUPS:          scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %[[C4:.+]] {
//   GROUPS-COUNT-4:      amx.tile_load %{{.*}} : memref<1x32x2x16xf32> into !amx.tile<16x16xf32>
//       GROUPS:          scf.for {{.*}} = %[[K]] to {{.*}} iter_args(
//   GROUPS-COUNT-4:      amx.tile_store
//   GROUPS-COUNT-4:      amx.tile_load %{{.*}} : memref<1x32x2x16xf32> into !amx.tile<16x16xf32>
//   GROUPS-NOT:          scf.for
//   GROUPS-COUNT-4:      amx.tile_mulf
//   GROUPS-COUNT-4:      amx.tile_store
func.func @zero_fill_is_folded(%a: memref<1x9x32x32xbf16>, %b: memref<2x9x16x16x2xbf16>, %c: memref<1x32x2x16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<1x32x2x16xf32>)
  // expected-remark @+1 {{AMX GEMM 32x32x288 (padded)}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%a, %b : memref<1x9x32x32xbf16>, memref<2x9x16x16x2xbf16>) outs(%c : memref<1x32x2x16xf32>) {
  ^bb0(%x: bf16, %w: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %w : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// i8 operands into i32 (the AMX form of an int8 matmul, AmxLayout.h): a k
// step is 64 i8 values, the rhs panels hold quadruples; the zero fill
// becomes zero tiles. Signed operands (arith.extsi) are tdpbssd: tile_muli
// without zext.
#a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d1, d5 * 4 + d6)>
#b = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d3, d6)>
#c = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @amx_gemm_i8
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: memref<2x3x32x64xi8>
//  CHECK-SAME:   %[[B:[a-zA-Z0-9]+]]: memref<4x3x16x16x4xi8>
//  CHECK-SAME:   %[[C:[a-zA-Z0-9]+]]: memref<2x32x4x16xi32>
//   CHECK-NOT:   linalg.fill
//       CHECK:   call @__xpu_cpu_request_amx()
//   CHECK-COUNT-4:         amx.tile_zero : !amx.tile<16x16xi32>
//   CHECK-COUNT-2:         amx.tile_load %[[A]]{{.*}} : memref<2x3x32x64xi8> into !amx.tile<16x64xi8>
//   CHECK-COUNT-2:         amx.tile_load %[[B]]{{.*}} : memref<4x3x16x16x4xi8> into !amx.tile<16x64xi8>
//       CHECK:             amx.tile_muli %{{[^ ]+}}, %{{[^ ]+}}, %{{[^ ]+}} : !amx.tile<16x64xi8>, !amx.tile<16x64xi8>, !amx.tile<16x16xi32>
//   CHECK-NOT:             amx.tile_mulf
//   CHECK-COUNT-4:         amx.tile_store %[[C]]
//   CHECK-NOT:   linalg.generic
func.func @amx_gemm_i8(%a: memref<2x3x32x64xi8>, %b: memref<4x3x16x16x4xi8>, %c: memref<2x32x4x16xi32>) {
  %zero = arith.constant 0 : i32
  linalg.fill ins(%zero : i32) outs(%c : memref<2x32x4x16xi32>)
  // expected-remark @+1 {{AMX GEMM 64x64x192 (padded): 2x2 blocks of 16x16 i32 tiles, tdpbssd over k in steps of 64, the accumulators in tile registers for 3 of the 3 steps at a time, 4 rhs panels of 16 columns per pass over the rows}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%a, %b : memref<2x3x32x64xi8>, memref<4x3x16x16x4xi8>) outs(%c : memref<2x32x4x16xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %0 = arith.extsi %x : i8 to i32
    %1 = arith.extsi %w : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %acc, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// An unsigned lhs (arith.extui) times a signed rhs is tdpbusd: tile_muli
// with zext on the lhs only.
#a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d1, d5 * 4 + d6)>
#b = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d3, d6)>
#c = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @amx_gemm_u8_s8
//       CHECK:   amx.tile_muli %{{[^ ]+}} zext, %{{[^ ]+}}, %{{[^ ]+}} :
func.func @amx_gemm_u8_s8(%a: memref<2x3x32x64xi8>, %b: memref<4x3x16x16x4xi8>, %c: memref<2x32x4x16xi32>) {
  // expected-remark @+1 {{AMX GEMM 64x64x192 (padded): 2x2 blocks of 16x16 i32 tiles, tdpbusd over k}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%a, %b : memref<2x3x32x64xi8>, memref<4x3x16x16x4xi8>) outs(%c : memref<2x32x4x16xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %0 = arith.extui %x : i8 to i32
    %1 = arith.extsi %w : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.addi %acc, %2 : i32
    linalg.yield %3 : i32
  }
  return
}

// -----

// The int8 maps with bf16 buffers, and an i8 body that is not the plain
// product, are left alone with a remark.
#a = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d1, d5 * 4 + d6)>
#b = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d3, d6)>
#c = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @i8_mismatches_are_untouched
//   CHECK-NOT:   amx.
func.func @i8_mismatches_are_untouched(%a: memref<2x3x32x64xbf16>, %b: memref<4x3x16x16x4xbf16>, %c: memref<2x32x4x16xf32>,
                                       %a8: memref<2x3x32x64xi8>, %b8: memref<4x3x16x16x4xi8>, %c8: memref<2x32x4x16xi32>) {
  // expected-remark @+1 {{AMX contraction left to the scalar loops: its buffers are not static i8, i8 and i32}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%a, %b : memref<2x3x32x64xbf16>, memref<4x3x16x16x4xbf16>) outs(%c : memref<2x32x4x16xf32>) {
  ^bb0(%x: bf16, %w: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %w : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  // expected-remark @+1 {{AMX contraction left to the scalar loops: its body is not acc + ext(lhs) * ext(rhs) on i32}}
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
      ins(%a8, %b8 : memref<2x3x32x64xi8>, memref<4x3x16x16x4xi8>) outs(%c8 : memref<2x32x4x16xi32>) {
  ^bb0(%x: i8, %w: i8, %acc: i32):
    %0 = arith.extsi %x : i8 to i32
    %1 = arith.extsi %w : i8 to i32
    %2 = arith.muli %0, %1 : i32
    %3 = arith.subi %acc, %2 : i32
    linalg.yield %3 : i32
  }
  return
}
