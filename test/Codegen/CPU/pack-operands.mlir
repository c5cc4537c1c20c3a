// RUN: xpu-opt %s --xpu-remarks -verify-diagnostics --split-input-file \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-pack-operands))' \
// RUN:   | FileCheck %s

// M, N, K = 131, 67, 97, no panel divides them: the lhs is packed into
// 6-row panels [22, 97, 6] and the rhs into 16-column panels [5, 97, 16],
// both zero-padded; the zero-filled accumulator is filled in the packed
// shape, the panels are contracted over (m1, n1, k, mi, ni) and the result
// is unpacked to 131x67 (the padding is dropped).
//   CHECK-DAG: #[[$LHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d3)>
//   CHECK-DAG: #[[$RHS:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d4)>
//   CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-LABEL: func.func @matmul_odd_shape
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<131x97xf32>
//  CHECK-SAME:   %[[B:[a-zA-Z0-9]+]]: tensor<97x67xf32>
//       CHECK:   %[[PA:.*]] = linalg.pack %[[A]] padding_value(%{{.*}} : f32) inner_dims_pos = [0] inner_tiles = [6] into %{{.*}} : tensor<131x97xf32> -> tensor<22x97x6xf32>
//       CHECK:   %[[PB:.*]] = linalg.pack %[[B]] padding_value(%{{.*}} : f32) outer_dims_perm = [1, 0] inner_dims_pos = [1] inner_tiles = [16] into %{{.*}} : tensor<97x67xf32> -> tensor<5x97x16xf32>
//       CHECK:   %[[ACC:.*]] = linalg.fill {{.*}} -> tensor<22x5x6x16xf32>
//       CHECK:   %[[P:.*]] = linalg.generic {indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel"]} ins(%[[PA]], %[[PB]] : {{.*}}) outs(%[[ACC]] : tensor<22x5x6x16xf32>)
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//       CHECK:   %[[R:.*]] = linalg.unpack %[[P]] inner_dims_pos = [0, 1] inner_tiles = [6, 16] into %{{.*}} : tensor<22x5x6x16xf32> -> tensor<131x67xf32>
//       CHECK:   return %[[R]]
func.func @matmul_odd_shape(%a: tensor<131x97xf32>, %b: tensor<97x67xf32>) -> tensor<131x67xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<131x67xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<131x67xf32>) -> tensor<131x67xf32>
  // expected-remark @+1 {{[Passed] Packed | Category:xpu-cpu-pack-operands | Reason="linalg.matmul: lhs packed into 6-row panels, rhs ([k, n]) into 16-column panels, a contraction of panels into [6, 16] tiles"}}
  %r = linalg.matmul ins(%a, %b : tensor<131x97xf32>, tensor<97x67xf32>)
                     outs(%c : tensor<131x67xf32>) -> tensor<131x67xf32>
  return %r : tensor<131x67xf32>
}

// -----

// An nn.Linear weight [n, k] packs into the same [N1, k, 16] panels as a
// [k, n] one, without a transpose of its own.
// CHECK-LABEL: func.func @matmul_transposed_rhs
//  CHECK-SAME:   %[[B:[a-zA-Z0-9]+]]: tensor<256x128xf32>
//       CHECK:   linalg.pack %[[B]] inner_dims_pos = [0] inner_tiles = [16] into %{{.*}} : tensor<256x128xf32> -> tensor<16x128x16xf32>
//       CHECK:   linalg.generic
//   CHECK-NOT:   linalg.matmul
func.func @matmul_transposed_rhs(%a: tensor<64x128xf32>, %b: tensor<256x128xf32>,
                                 %c: tensor<64x256xf32>) -> tensor<64x256xf32> {
  // expected-remark @+1 {{rhs ([n, k]) into 16-column panels}}
  %r = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                       affine_map<(m, n, k) -> (n, k)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<64x128xf32>, tensor<256x128xf32>)
      outs(%c : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %r : tensor<64x256xf32>
}

// -----

// An init that is not a fill is packed like the result, so the mmt4d
// accumulates onto it; M = 1 gives one 6-row panel (5 rows of padding).
// CHECK-LABEL: func.func @matmul_init_and_m1
//  CHECK-SAME:   %[[C:[a-zA-Z0-9]+]]: tensor<1x32xf32>
//       CHECK:   %[[PC:.*]] = linalg.pack %[[C]] padding_value(%{{.*}} : f32) inner_dims_pos = [0, 1] inner_tiles = [6, 16] into %{{.*}} : tensor<1x32xf32> -> tensor<1x2x6x16xf32>
//       CHECK:   linalg.generic {{.*}} outs(%[[PC]] : tensor<1x2x6x16xf32>)
func.func @matmul_init_and_m1(%a: tensor<1x8xf32>, %b: tensor<8x32xf32>,
                              %c: tensor<1x32xf32>) -> tensor<1x32xf32> {
  // expected-remark @+1 {{Packed}}
  %r = linalg.matmul ins(%a, %b : tensor<1x8xf32>, tensor<8x32xf32>)
                     outs(%c : tensor<1x32xf32>) -> tensor<1x32xf32>
  return %r : tensor<1x32xf32>
}

// -----

// Batched: the batch dimension stays outermost in every packed operand.
// CHECK-LABEL: func.func @batch_matmul
//       CHECK:   linalg.pack {{.*}} inner_dims_pos = [1] inner_tiles = [6] {{.*}} -> tensor<3x2x16x6xf32>
//       CHECK:   linalg.pack {{.*}} outer_dims_perm = [0, 2, 1] inner_dims_pos = [2] inner_tiles = [16] {{.*}} -> tensor<3x2x16x16xf32>
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<3x2x2x6x16xf32>)
//       CHECK:   linalg.unpack {{.*}} inner_dims_pos = [1, 2] inner_tiles = [6, 16] {{.*}} -> tensor<3x7x20xf32>
func.func @batch_matmul(%a: tensor<3x7x16xf32>, %b: tensor<3x16x20xf32>) -> tensor<3x7x20xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x7x20xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x7x20xf32>) -> tensor<3x7x20xf32>
  // expected-remark @+1 {{linalg.batch_matmul: lhs packed into 6-row panels}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x7x16xf32>, tensor<3x16x20xf32>)
                           outs(%c : tensor<3x7x20xf32>) -> tensor<3x7x20xf32>
  return %r : tensor<3x7x20xf32>
}

// -----

// A dynamic m (a batch of rows known at run time) is packed like a static
// one that the panel does not divide: zero padding, and ceil(m / 6) panels
// read from the size at run time; the result is unpacked to [?, 16].
// CHECK-LABEL: func.func @dynamic_m_is_packed
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<?x8xf32>
//       CHECK:   %[[PA:.*]] = linalg.pack %[[A]] padding_value(%{{.*}} : f32) inner_dims_pos = [0] inner_tiles = [6] into %{{.*}} : tensor<?x8xf32> -> tensor<?x8x6xf32>
//       CHECK:   %[[P:.*]] = linalg.generic {{.*}} ins(%[[PA]], %{{.*}} : tensor<?x8x6xf32>, tensor<1x8x16xf32>) outs(%{{.*}} : tensor<?x1x6x16xf32>)
//       CHECK:   %[[R:.*]] = linalg.unpack %[[P]] inner_dims_pos = [0, 1] inner_tiles = [6, 16] into %{{.*}} : tensor<?x1x6x16xf32> -> tensor<?x16xf32>
//       CHECK:   return %[[R]]
func.func @dynamic_m_is_packed(%a: tensor<?x8xf32>, %b: tensor<8x16xf32>,
                               %c: tensor<?x16xf32>) -> tensor<?x16xf32> {
  // expected-remark @+1 {{[Passed] Packed | Category:xpu-cpu-pack-operands | Reason="linalg.matmul: lhs packed into 6-row panels}}
  %r = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x16xf32>)
                     outs(%c : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// -----

// A dynamic k (or n) is left to the tiling pass's generic path, with the
// reason.
// CHECK-LABEL: func.func @dynamic_k_is_untouched
//       CHECK:   linalg.matmul
//   CHECK-NOT:   linalg.pack
func.func @dynamic_k_is_untouched(%a: tensor<4x?xf32>, %b: tensor<?x16xf32>,
                                  %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-remark @+1 {{[Missed] NotPacked | Category:xpu-cpu-pack-operands | Reason="linalg.matmul left in place: its k or n dimension is dynamic"}}
  %r = linalg.matmul ins(%a, %b : tensor<4x?xf32>, tensor<?x16xf32>)
                     outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// A matmul that reads its lhs transposed is not in the packed form's
// shape: left alone, with the reason.
// CHECK-LABEL: func.func @transposed_lhs_is_untouched
//       CHECK:   linalg.matmul
//   CHECK-NOT:   linalg.mmt4d
func.func @transposed_lhs_is_untouched(%a: tensor<8x4xf32>, %b: tensor<8x16xf32>,
                                       %c: tensor<4x16xf32>) -> tensor<4x16xf32> {
  // expected-remark @+1 {{its lhs or result is not read in [b?, m, k] / [b?, m, n] order}}
  %r = linalg.matmul
      indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
                       affine_map<(m, n, k) -> (k, n)>,
                       affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<8x4xf32>, tensor<8x16xf32>)
      outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// Without register-tile, the tile comes from the module's CPU #xpu.target:
// (registers - 3) / 2 rows of two vectors. 32 zmm registers (x86-64-v4):
// 14 rows of 32 f32.
// CHECK-LABEL: func.func @register_tile_from_avx512_target
//       CHECK:   linalg.pack {{.*}} inner_tiles = [14] {{.*}} -> tensor<10x97x14xf32>
//       CHECK:   linalg.pack {{.*}} inner_tiles = [32] {{.*}} -> tensor<3x97x32xf32>
//       CHECK:   linalg.unpack {{.*}} inner_tiles = [14, 32]
module attributes {xpu.target = #xpu.target<"x86-64-v4">} {
func.func @register_tile_from_avx512_target(%a: tensor<131x97xf32>, %b: tensor<97x67xf32>) -> tensor<131x67xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<131x67xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<131x67xf32>) -> tensor<131x67xf32>
  // expected-remark @+1 {{lhs packed into 14-row panels, rhs ([k, n]) into 32-column panels}}
  %r = linalg.matmul ins(%a, %b : tensor<131x97xf32>, tensor<97x67xf32>)
                     outs(%c : tensor<131x67xf32>) -> tensor<131x67xf32>
  return %r : tensor<131x67xf32>
}
}

// -----

// 16 ymm registers (x86-64-v3): the AVX2 tile, 6 rows of 16 f32.
// CHECK-LABEL: func.func @register_tile_from_avx2_target
//       CHECK:   linalg.unpack {{.*}} inner_tiles = [6, 16]
module attributes {xpu.target = #xpu.target<"x86-64-v3">} {
func.func @register_tile_from_avx2_target(%a: tensor<131x97xf32>, %b: tensor<97x67xf32>) -> tensor<131x67xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<131x67xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<131x67xf32>) -> tensor<131x67xf32>
  // expected-remark @+1 {{lhs packed into 6-row panels, rhs ([k, n]) into 16-column panels}}
  %r = linalg.matmul ins(%a, %b : tensor<131x97xf32>, tensor<97x67xf32>)
                     outs(%c : tensor<131x67xf32>) -> tensor<131x67xf32>
  return %r : tensor<131x67xf32>
}
}

// -----

// bf16 operands into a zero-filled f32 result on a target with AMX (mma =
// [16, 16, 32]): the AMX form. M, N, K = 40, 50, 70: the lhs is packed into
// zero-padded 32x32 blocks, the [n, k] rhs copied into a zero 64x96 tensor
// and relaid into VNNI panels (rhs[n1 * 16 + n][k1 * 32 + k2 * 2 + kk]),
// the contraction accumulates into [M1, 32, N1, 16] f32, and the 40x50
// corner of its 64x64 view is the result (returned: copied by a
// linalg.copy, not by the runtime's strided memref.copy).
//   CHECK-DAG: #[[$VNNI:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0 * 16 + d3, d1 * 32 + d2 * 2 + d4)>
//   CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d1, d5 * 2 + d6)>
//   CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d4, d5, d3, d6)>
//   CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @bf16_matmul_on_amx
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<40x70xbf16>
//  CHECK-SAME:   %[[B:[a-zA-Z0-9]+]]: tensor<50x70xbf16>
//       CHECK:   %[[PA:.*]] = linalg.pack %[[A]] padding_value(%{{.*}} : bf16) inner_dims_pos = [0, 1] inner_tiles = [32, 32] into %{{.*}} : tensor<40x70xbf16> -> tensor<2x3x32x32xbf16>
//       CHECK:   %[[ZB:.*]] = linalg.fill {{.*}} -> tensor<64x96xbf16>
//       CHECK:   %[[SB:.*]] = tensor.extract_slice %[[ZB]][0, 0] [50, 70] [1, 1]
//       CHECK:   %[[CB:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<50x70xbf16>) outs(%[[SB]] : tensor<50x70xbf16>)
//       CHECK:   %[[PB:.*]] = tensor.insert_slice %[[CB]] into %[[ZB]][0, 0] [50, 70] [1, 1]
//       CHECK:   %[[VB:.*]] = linalg.generic {indexing_maps = [#[[$VNNI]], {{.*}}]{{.*}} ins(%[[PB]] : tensor<64x96xbf16>) outs(%{{.*}} : tensor<4x3x16x16x2xbf16>)
//       CHECK:   %[[ACC:.*]] = linalg.fill {{.*}} -> tensor<2x32x4x16xf32>
//       CHECK:   %[[P:.*]] = linalg.generic {indexing_maps = [#[[$A]], #[[$B]], #[[$C]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%[[PA]], %[[VB]] : {{.*}}) outs(%[[ACC]] : tensor<2x32x4x16xf32>)
//       CHECK:     arith.extf
//       CHECK:     arith.extf
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//       CHECK:   %[[F:.*]] = tensor.collapse_shape %[[P]] {{\[}}[0, 1], [2, 3]] : tensor<2x32x4x16xf32> into tensor<64x64xf32>
//       CHECK:   %[[S:.*]] = tensor.extract_slice %[[F]][0, 0] [40, 50] [1, 1]
//       CHECK:   %[[R:.*]] = linalg.copy ins(%[[S]] : tensor<40x50xf32>)
//       CHECK:   return %[[R]]
module attributes {xpu.target = #xpu.target<"sapphirerapids">} {
func.func @bf16_matmul_on_amx(%a: tensor<40x70xbf16>, %b: tensor<50x70xbf16>) -> tensor<40x50xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x50xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<40x50xf32>) -> tensor<40x50xf32>
  // expected-remark @+1 {{linalg.matmul (bf16 into f32) in the AMX form: lhs packed into 32x32 blocks (64x96 padded), rhs ([n, k]) into VNNI panels 4x3x16x16x2, f32 tiles 64x64}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
                     ins(%a, %b : tensor<40x70xbf16>, tensor<50x70xbf16>)
                     outs(%c : tensor<40x50xf32>) -> tensor<40x50xf32>
  return %r : tensor<40x50xf32>
}
}

// -----

// A bf16 batch_matmul (both operands activations, as in a bmm): one AMX
// product per batch in an scf.for, each batch's [m, k] and [k, n] matrices
// sliced out, its [m, n] corner inserted into the [b, m, n] result.
// CHECK-LABEL: func.func @bf16_batch_matmul_on_amx
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<3x40x70xbf16>, %[[B:[a-zA-Z0-9]+]]: tensor<3x70x50xbf16>
//       CHECK:   %[[R:.*]] = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[C:.*]] = %{{.*}}) -> (tensor<3x40x50xf32>)
//       CHECK:     %[[AI:.*]] = tensor.extract_slice %[[A]][%[[I]], 0, 0] [1, 40, 70] [1, 1, 1] : tensor<3x40x70xbf16> to tensor<40x70xbf16>
//       CHECK:     %[[BI:.*]] = tensor.extract_slice %[[B]][%[[I]], 0, 0] [1, 70, 50] [1, 1, 1] : tensor<3x70x50xbf16> to tensor<70x50xbf16>
//       CHECK:     linalg.pack %[[AI]]
//       CHECK:     linalg.generic {{.*}} ins(%[[BI]] : tensor<70x50xbf16>)
//       CHECK:     %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
//       CHECK:     %[[F:.*]] = tensor.collapse_shape %[[P]]
//       CHECK:     %[[S:.*]] = tensor.extract_slice %[[F]][0, 0] [40, 50] [1, 1]
//       CHECK:     %[[N:.*]] = tensor.insert_slice %[[S]] into %[[C]][%[[I]], 0, 0] [1, 40, 50] [1, 1, 1] : tensor<40x50xf32> into tensor<3x40x50xf32>
//       CHECK:     scf.yield %[[N]]
//       CHECK:   return %[[R]]
module attributes {xpu.target = #xpu.target<"sapphirerapids">} {
func.func @bf16_batch_matmul_on_amx(%a: tensor<3x40x70xbf16>, %b: tensor<3x70x50xbf16>) -> tensor<3x40x50xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x40x50xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<3x40x50xf32>) -> tensor<3x40x50xf32>
  // expected-remark @+2 {{linalg.batch_matmul (bf16 into f32): one AMX product per batch, in an scf.for over the 3 batches}}
  // expected-remark @+1 {{each batch's matrix (bf16 into f32) in the AMX form: lhs packed into 32x32 blocks (64x96 padded), rhs ([k, n]) into VNNI panels 4x3x16x16x2, f32 tiles 64x64}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<3x40x70xbf16>, tensor<3x70x50xbf16>)
                           outs(%c : tensor<3x40x50xf32>) -> tensor<3x40x50xf32>
  return %r : tensor<3x40x50xf32>
}
}

// -----

// The same matmul on a target with neither AMX nor avx512bf16 (x86-64-v4):
// both operands are widened to f32 (exactly) and take the f32 panels.
// CHECK-LABEL: func.func @bf16_matmul_without_amx_is_widened
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<40x70xbf16>
//  CHECK-SAME:   %[[B:[a-zA-Z0-9]+]]: tensor<50x70xbf16>
//       CHECK:   %[[WA:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<40x70xbf16>) outs(%{{.*}} : tensor<40x70xf32>)
//       CHECK:     arith.extf
//       CHECK:   %[[WB:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<50x70xbf16>) outs(%{{.*}} : tensor<50x70xf32>)
//       CHECK:   linalg.pack %[[WA]] {{.*}} inner_tiles = [14] {{.*}} -> tensor<3x70x14xf32>
//       CHECK:   linalg.pack %[[WB]] {{.*}} inner_tiles = [32] {{.*}} -> tensor<2x70x32xf32>
//   CHECK-NOT:   linalg.matmul
module attributes {xpu.target = #xpu.target<"x86-64-v4">} {
func.func @bf16_matmul_without_amx_is_widened(%a: tensor<40x70xbf16>, %b: tensor<50x70xbf16>) -> tensor<40x50xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x50xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<40x50xf32>) -> tensor<40x50xf32>
  // expected-remark @+1 {{linalg.matmul: bf16 operands widened to f32 (neither the AMX nor the pair-dot form applies), lhs packed into 14-row panels, rhs ([n, k]) into 32-column panels}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
                     ins(%a, %b : tensor<40x70xbf16>, tensor<50x70xbf16>)
                     outs(%c : tensor<40x50xf32>) -> tensor<40x50xf32>
  return %r : tensor<40x50xf32>
}
}

// -----

// On an AMX target, a bf16 matmul that does not start from zero is in
// neither the AMX nor the pair-dot form (their tiles would drop the init):
// it is widened to f32 and packs its init like the f32 one.
// CHECK-LABEL: func.func @bf16_matmul_with_init_is_widened
//  CHECK-SAME:   %[[C:[a-zA-Z0-9]+]]: tensor<40x50xf32>
//       CHECK:   linalg.pack %[[C]] {{.*}} inner_tiles = [14, 32]
//       CHECK:   linalg.unpack
module attributes {xpu.target = #xpu.target<"sapphirerapids">} {
func.func @bf16_matmul_with_init_is_widened(%a: tensor<40x70xbf16>, %b: tensor<70x50xbf16>, %c: tensor<40x50xf32>) -> tensor<40x50xf32> {
  // expected-remark @+1 {{linalg.matmul: bf16 operands widened to f32 (neither the AMX nor the pair-dot form applies)}}
  %r = linalg.matmul ins(%a, %b : tensor<40x70xbf16>, tensor<70x50xbf16>)
                     outs(%c : tensor<40x50xf32>) -> tensor<40x50xf32>
  return %r : tensor<40x50xf32>
}
}

// -----

// bf16 operands into a zero-filled f32 result on a target with avx512bf16
// and no AMX (znver4): the pair-dot form. M, N, K = 40, 50, 71: the lhs is
// packed into [3, 36, 14, 2] (14-row panels of k pairs, the last pair half
// padding), the [n, k] rhs into [2, 36, 32, 2], the contraction runs over
// (M1, N1, K2, mr, nr, kk) into the [3, 2, 14, 32] accumulator.
//   CHECK-DAG: #[[$PA:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d2, d3, d5)>
//   CHECK-DAG: #[[$PB:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d5)>
//   CHECK-DAG: #[[$PC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d4)>
// CHECK-LABEL: func.func @bf16_matmul_dot_pairs
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<40x71xbf16>
//  CHECK-SAME:   %[[B:[a-zA-Z0-9]+]]: tensor<50x71xbf16>
//       CHECK:   %[[LA:.*]] = linalg.pack %[[A]] padding_value(%{{.*}} : bf16) inner_dims_pos = [0, 1] inner_tiles = [14, 2] into %{{.*}} : tensor<40x71xbf16> -> tensor<3x36x14x2xbf16>
//       CHECK:   %[[LB:.*]] = linalg.pack %[[B]] padding_value(%{{.*}} : bf16) inner_dims_pos = [0, 1] inner_tiles = [32, 2] into %{{.*}} : tensor<50x71xbf16> -> tensor<2x36x32x2xbf16>
//       CHECK:   %[[ACC:.*]] = linalg.fill {{.*}} -> tensor<3x2x14x32xf32>
//       CHECK:   %[[P:.*]] = linalg.generic {indexing_maps = [#[[$PA]], #[[$PB]], #[[$PC]]], iterator_types = ["parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]} ins(%[[LA]], %[[LB]] : {{.*}}) outs(%[[ACC]] : tensor<3x2x14x32xf32>)
//       CHECK:     arith.extf
//       CHECK:     arith.extf
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
//       CHECK:   %[[R:.*]] = linalg.unpack %[[P]] inner_dims_pos = [0, 1] inner_tiles = [14, 32] into %{{.*}} : tensor<3x2x14x32xf32> -> tensor<40x50xf32>
//       CHECK:   return %[[R]]
module attributes {xpu.target = #xpu.target<"znver4">} {
func.func @bf16_matmul_dot_pairs(%a: tensor<40x71xbf16>, %b: tensor<50x71xbf16>) -> tensor<40x50xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<40x50xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<40x50xf32>) -> tensor<40x50xf32>
  // expected-remark @+1 {{linalg.matmul (bf16 into f32) in the pair-dot form (vdpbf16ps): lhs packed into 14-row panels of k pairs, rhs ([n, k]) into 32-column panels of k pairs, a contraction into [14, 32] f32 tiles}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
                     ins(%a, %b : tensor<40x71xbf16>, tensor<50x71xbf16>)
                     outs(%c : tensor<40x50xf32>) -> tensor<40x50xf32>
  return %r : tensor<40x50xf32>
}
}

// -----

// A [k, n] rhs in the pair-dot form: n tiled by 32 and k by the pair, the
// outer dimensions swapped to [N1, K2]. Batched, with a dynamic batch (a
// dynamic shape is not in AMX's static form: on sapphirerapids too, the
// pair dot products take it).
// CHECK-LABEL: func.func @bf16_batch_matmul_dot_pairs
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<?x40x70xbf16>, %[[B:[a-zA-Z0-9]+]]: tensor<?x70x50xbf16>
//       CHECK:   linalg.pack %[[A]] {{.*}} inner_dims_pos = [1, 2] inner_tiles = [14, 2] {{.*}} : tensor<?x40x70xbf16> -> tensor<?x3x35x14x2xbf16>
//       CHECK:   linalg.pack %[[B]] {{.*}} outer_dims_perm = [0, 2, 1] inner_dims_pos = [2, 1] inner_tiles = [32, 2] {{.*}} : tensor<?x70x50xbf16> -> tensor<?x2x35x32x2xbf16>
//       CHECK:   linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "parallel", "reduction"]
//       CHECK:   linalg.unpack {{.*}} -> tensor<?x40x50xf32>
module attributes {xpu.target = #xpu.target<"sapphirerapids">} {
func.func @bf16_batch_matmul_dot_pairs(%a: tensor<?x40x70xbf16>, %b: tensor<?x70x50xbf16>) -> tensor<?x40x50xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x40x70xbf16>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?x40x50xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<?x40x50xf32>) -> tensor<?x40x50xf32>
  // expected-remark @+1 {{linalg.batch_matmul (bf16 into f32) in the pair-dot form (vdpbf16ps): lhs packed into 14-row panels of k pairs, rhs ([k, n]) into 32-column panels of k pairs}}
  %r = linalg.batch_matmul ins(%a, %b : tensor<?x40x70xbf16>, tensor<?x70x50xbf16>)
                           outs(%c : tensor<?x40x50xf32>) -> tensor<?x40x50xf32>
  return %r : tensor<?x40x50xf32>
}
}

// -----

// i8 operands into a zero-filled i32 result on an AMX target: the AMX form
// of the int8 instructions. A k step is 64 i8 (one 64-byte tile row), the
// VNNI panels hold quadruples (rhs[n1 * 16 + n][k1 * 64 + k2 * 4 + kk]),
// and the body keeps linalg's signed extension (tdpbssd). M, N, K = 40, 50,
// 70: K is padded to 128, two k steps.
//   CHECK-DAG: #[[$VNNI4:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0 * 16 + d3, d1 * 64 + d2 * 4 + d4)>
//   CHECK-DAG: #[[$A4:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d4, d1, d5 * 4 + d6)>
// CHECK-LABEL: func.func @i8_matmul_on_amx
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<40x70xi8>
//  CHECK-SAME:   %[[B:[a-zA-Z0-9]+]]: tensor<50x70xi8>
//       CHECK:   %[[PA:.*]] = linalg.pack %[[A]] padding_value(%{{.*}} : i8) inner_dims_pos = [0, 1] inner_tiles = [32, 64] into %{{.*}} : tensor<40x70xi8> -> tensor<2x2x32x64xi8>
//       CHECK:   %[[ZB:.*]] = linalg.fill {{.*}} -> tensor<64x128xi8>
//       CHECK:   %[[PB:.*]] = tensor.insert_slice %{{.*}} into %[[ZB]][0, 0] [50, 70] [1, 1]
//       CHECK:   %[[VB:.*]] = linalg.generic {indexing_maps = [#[[$VNNI4]], {{.*}}]{{.*}} ins(%[[PB]] : tensor<64x128xi8>) outs(%{{.*}} : tensor<4x2x16x16x4xi8>)
//       CHECK:   %[[ACC:.*]] = linalg.fill {{.*}} -> tensor<2x32x4x16xi32>
//       CHECK:   %[[P:.*]] = linalg.generic {indexing_maps = [#[[$A4]], {{.*}}]{{.*}} ins(%[[PA]], %[[VB]] : {{.*}}) outs(%[[ACC]] : tensor<2x32x4x16xi32>)
//  CHECK-NEXT:   ^bb0(%[[X:.*]]: i8, %[[Y:.*]]: i8, %[[O:.*]]: i32):
//  CHECK-NEXT:     %[[XE:.*]] = arith.extsi %[[X]] : i8 to i32
//  CHECK-NEXT:     %[[YE:.*]] = arith.extsi %[[Y]] : i8 to i32
//  CHECK-NEXT:     %[[M:.*]] = arith.muli %[[XE]], %[[YE]] : i32
//  CHECK-NEXT:     %[[S:.*]] = arith.addi %[[O]], %[[M]] : i32
//  CHECK-NEXT:     linalg.yield %[[S]] : i32
//       CHECK:   tensor.collapse_shape %[[P]] {{\[}}[0, 1], [2, 3]] : tensor<2x32x4x16xi32> into tensor<64x64xi32>
module attributes {xpu.target = #xpu.target<"sapphirerapids">} {
func.func @i8_matmul_on_amx(%a: tensor<40x70xi8>, %b: tensor<50x70xi8>) -> tensor<40x50xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<40x50xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<40x50xi32>) -> tensor<40x50xi32>
  // expected-remark @+1 {{linalg.matmul (signed i8 times signed i8 into i32) in the AMX form: lhs packed into 32x64 blocks (64x128 padded), rhs ([n, k]) into VNNI panels 4x2x16x16x4, i32 tiles 64x64}}
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
                     ins(%a, %b : tensor<40x70xi8>, tensor<50x70xi8>)
                     outs(%c : tensor<40x50xi32>) -> tensor<40x50xi32>
  return %r : tensor<40x50xi32>
}
}

// -----

// Without AMX (x86-64-v4), or with an init that is not zero, an i8 matmul
// keeps the matmul.
// CHECK-LABEL: func.func @i8_matmul_without_amx_is_untouched
//       CHECK:   linalg.matmul
module attributes {xpu.target = #xpu.target<"x86-64-v4">} {
func.func @i8_matmul_without_amx_is_untouched(%a: tensor<40x70xi8>, %b: tensor<70x50xi8>) -> tensor<40x50xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<40x50xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<40x50xi32>) -> tensor<40x50xi32>
  // expected-remark @+1 {{linalg.matmul left in place: its element types are not all f32}}
  %r = linalg.matmul ins(%a, %b : tensor<40x70xi8>, tensor<70x50xi8>)
                     outs(%c : tensor<40x50xi32>) -> tensor<40x50xi32>
  return %r : tensor<40x50xi32>
}
}

// -----

// CHECK-LABEL: func.func @i8_matmul_with_init_is_untouched
//       CHECK:   linalg.matmul
module attributes {xpu.target = #xpu.target<"sapphirerapids">} {
func.func @i8_matmul_with_init_is_untouched(%a: tensor<40x70xi8>, %b: tensor<70x50xi8>, %c: tensor<40x50xi32>) -> tensor<40x50xi32> {
  // expected-remark @+1 {{linalg.matmul left in place: its element types are neither all f32 nor bf16 (i8) operands into a zero-filled f32 (i32) result (AMX)}}
  %r = linalg.matmul ins(%a, %b : tensor<40x70xi8>, tensor<70x50xi8>)
                     outs(%c : tensor<40x50xi32>) -> tensor<40x50xi32>
  return %r : tensor<40x50xi32>
}
}

// -----

// i8 operands into a zero-filled i32 result on a target with avx512vnni
// and no AMX (znver4): the pair-dot form on i16 pairs (vpdpwssd). Each
// operand is widened to i16 as the matmul extends it (cast_unsigned:
// arith.extui), the contraction extends the i16 pairs as signed (they
// hold every u8 value). M, N, K = 40, 50, 70.
// CHECK-LABEL: func.func @u8_matmul_dot_pairs
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<40x70xi8>
//  CHECK-SAME:   %[[B:[a-zA-Z0-9]+]]: tensor<70x50xi8>
//       CHECK:   %[[WA:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<40x70xi8>) outs(%{{.*}} : tensor<40x70xi16>)
//       CHECK:     arith.extui {{.*}} : i8 to i16
//       CHECK:   %[[WB:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<70x50xi8>) outs(%{{.*}} : tensor<70x50xi16>)
//       CHECK:     arith.extui {{.*}} : i8 to i16
//       CHECK:   %[[LA:.*]] = linalg.pack %[[WA]] {{.*}} inner_dims_pos = [0, 1] inner_tiles = [14, 2] {{.*}} -> tensor<3x35x14x2xi16>
//       CHECK:   %[[LB:.*]] = linalg.pack %[[WB]] {{.*}} outer_dims_perm = [1, 0] inner_dims_pos = [1, 0] inner_tiles = [32, 2] {{.*}} -> tensor<2x35x32x2xi16>
//       CHECK:   linalg.generic {{.*}} ins(%[[LA]], %[[LB]] : {{.*}}) outs(%{{.*}} : tensor<3x2x14x32xi32>)
//       CHECK:     arith.extsi {{.*}} : i16 to i32
//       CHECK:     arith.extsi {{.*}} : i16 to i32
//       CHECK:     arith.muli
//       CHECK:     arith.addi
module attributes {xpu.target = #xpu.target<"znver4">} {
func.func @u8_matmul_dot_pairs(%a: tensor<40x70xi8>, %b: tensor<70x50xi8>) -> tensor<40x50xi32> {
  %zero = arith.constant 0 : i32
  %e = tensor.empty() : tensor<40x50xi32>
  %c = linalg.fill ins(%zero : i32) outs(%e : tensor<40x50xi32>) -> tensor<40x50xi32>
  // expected-remark @+1 {{linalg.matmul (unsigned i8 times unsigned i8 into i32) in the pair-dot form (vpdpwssd on i16 pairs): lhs packed into 14-row panels of k pairs, rhs ([k, n]) into 32-column panels of k pairs, a contraction into [14, 32] i32 tiles}}
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<40x70xi8>, tensor<70x50xi8>)
                     outs(%c : tensor<40x50xi32>) -> tensor<40x50xi32>
  return %r : tensor<40x50xi32>
}
}
