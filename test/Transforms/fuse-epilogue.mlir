// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-fuse-epilogue))' | FileCheck %s
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-fuse-epilogue))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// The register model on the default target (pvc, no config): a 128x128 tile
// on 32 subgroups is 128*128*4 B / 32 = 2048 B of accumulator per hardware
// thread (a subgroup of 16 lanes) = 32 GRFs of 64 B per fragment, plus 16
// reserved. GELU peaks at 3 live fragments (x live across math.erf, erf's
// input giving its register to the result, one temporary for erf):
// 16 + 3 * 32 = 112 <= 128, so bias + GELU + ReLU fuse whole.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_gelu_relu_fuse_whole
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<16x64xf32>, %[[W:[a-z0-9]+]]: tensor<32x64xf32>, %[[B:[a-z0-9]+]]: tensor<32xf32>
//       CHECK:   %[[R:.+]] = xpu.gemm %[[X]], %[[W]] rhs_layout(nk) acc(f32) epilogue(%[[B]] per_col : tensor<32xf32>) {
//       CHECK:   ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f32):
//       CHECK:     %[[Y:.+]] = arith.addf %[[ACC]], %[[BIAS]] : f32
//       CHECK:     math.erf
//       CHECK:     arith.select
//       CHECK:     xpu.yield
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[R]]
func.func @bias_gelu_relu_fuse_whole(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+1 {{fused arith.addf, arith.mulf, math.erf, arith.addf, arith.mulf, arith.mulf, arith.cmpf, arith.select into the xpu.gemm epilogue: estimated 112 registers per thread <= 128 on pvc}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %b1 = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %0 = arith.addf %in, %bb : f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  %g1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b1 : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rs2 = arith.constant 0.70710678 : f32
    %0 = arith.mulf %in, %rs2 : f32
    %1 = math.erf %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.mulf %in, %half : f32
    %4 = arith.mulf %3, %2 : f32
    linalg.yield %4 : f32
  } -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g1 : tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ugt, %in, %z : f32
    %s = arith.select %c, %in, %z : f32
    linalg.yield %s : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// A deliberately heavy chain: y = acc + b; out = tanh(y) * exp(y) * y + tanh(y).
// At math.exp, y and tanh(y) stay live, exp's result, one temporary and one
// more for the transcendental before it (tanh; chained transcendentals do not
// share temporaries in IGC, docs/Strategy.md "Calibration"): 5 fragments,
// 16 + 5 * 32 = 176 > 128. pvc's Xe backend has a larger register file (the
// 256-GRF mode, the catalog's grf_mode='large'), which the guard takes before
// it splits an epilogue: 176 <= 256, the chain fuses whole and
// xpu-select-strategy later gives the GEMM a config that holds it.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @heavy_chain_fuses_in_large_grf
//       CHECK:   %[[G:.+]] = xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) epilogue(%{{.+}} per_col : tensor<32xf32>) {
//       CHECK:     math.tanh
//       CHECK:     math.exp
//       CHECK:     xpu.yield
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[G]]
func.func @heavy_chain_fuses_in_large_grf(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+1 {{fused arith.addf, math.tanh, math.exp, arith.mulf, arith.mulf, arith.addf into the xpu.gemm epilogue: estimated 176 registers per thread <= 256 on pvc with the larger register file (> 128: xpu-select-strategy gives the GEMM a config that holds it, e.g. grf_mode 256)}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %y = arith.addf %in, %bb : f32
    %t = math.tanh %y : f32
    %x1 = math.exp %y : f32
    %s = arith.mulf %t, %x1 : f32
    %u = arith.mulf %s, %y : f32
    %o = arith.addf %u, %t : f32
    linalg.yield %o : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// Heavier: y = acc + b; out = (tanh(y) * exp(y) + sin(y) * cos(y)) * y. At
// math.cos, the 4th transcendental, y, tanh(y), exp(y) and sin(y) stay live,
// cos makes one more, and it needs 4 temporaries: 9 fragments, 16 + 9 * 32 =
// 304 > 256 even in the large register file. The only valid shorter cut is
// after the bias add (y and the transcendentals would cross any later cut),
// so the chain is split there and the rest stays an elementwise generic.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @heavier_chain_is_split
//       CHECK:   %[[G:.+]] = xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) epilogue(%{{.+}} per_col : tensor<32xf32>) {
//       CHECK:     arith.addf
//   CHECK-NOT:     math.tanh
//       CHECK:     xpu.yield
//       CHECK:   %[[R:.+]] = linalg.generic {{.*}} ins(%[[G]] : tensor<16x32xf32>)
//       CHECK:     math.tanh
//       CHECK:     math.cos
//       CHECK:   return %[[R]]
func.func @heavier_chain_is_split(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+2 {{fusion stopped before math.tanh: estimated 304 registers per thread > 256 on pvc (32 per accumulator fragment, 16 reserved); the rest stays a separate elementwise kernel}}
  // expected-remark @+1 {{fused arith.addf into the xpu.gemm epilogue: estimated 48 registers per thread <= 128 on pvc}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %y = arith.addf %in, %bb : f32
    %t = math.tanh %y : f32
    %x1 = math.exp %y : f32
    %sn = math.sin %y : f32
    %cs = math.cos %y : f32
    %te = arith.mulf %t, %x1 : f32
    %sc = arith.mulf %sn, %cs : f32
    %a = arith.addf %te, %sc : f32
    %o = arith.mulf %a, %y : f32
    linalg.yield %o : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// A config written by hand keeps its register file: the chain of
// @heavy_chain_fuses_in_large_grf (176) is split in 128-GRF mode.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @heavy_chain_split_in_128_grf_config
//       CHECK:   xpu.gemm
//   CHECK-NOT:     math.tanh
//       CHECK:   linalg.generic
//       CHECK:     math.tanh
func.func @heavy_chain_split_in_128_grf_config(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+2 {{fusion stopped before math.tanh: estimated 176 registers per thread > 128 on pvc}}
  // expected-remark @+1 {{fused arith.addf into the xpu.gemm epilogue: estimated 48 registers per thread <= 128 on pvc}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [8, 4], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %y = arith.addf %in, %bb : f32
    %t = math.tanh %y : f32
    %x1 = math.exp %y : f32
    %s = arith.mulf %t, %x1 : f32
    %u = arith.mulf %s, %y : f32
    %o = arith.addf %u, %t : f32
    linalg.yield %o : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// The same chain with the 256-GRF mode in the GEMM's config fits whole.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @heavy_chain_fits_256_grf
//       CHECK:   xpu.gemm
//       CHECK:     math.exp
//       CHECK:   } {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [8, 4], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>}
//   CHECK-NOT:   linalg.generic
func.func @heavy_chain_fits_256_grf(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+1 {{estimated 176 registers per thread <= 256 on pvc}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [8, 4], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %y = arith.addf %in, %bb : f32
    %t = math.tanh %y : f32
    %x1 = math.exp %y : f32
    %s = arith.mulf %t, %x1 : f32
    %u = arith.mulf %s, %y : f32
    %o = arith.addf %u, %t : f32
    linalg.yield %o : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// A residual that reuses the GEMM result: out = relu(y) + y. The two generics
// merge into one that reads y twice, and the whole chain fuses.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @residual_reuses_gemm_result
//       CHECK:   %[[G:.+]] = xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f32) epilogue {
//       CHECK:   ^bb0(%[[ACC:.+]]: f32):
//       CHECK:     %[[C:.+]] = arith.cmpf ugt, %[[ACC]]
//       CHECK:     %[[S:.+]] = arith.select %[[C]], %[[ACC]]
//       CHECK:     %[[O:.+]] = arith.addf %[[S]], %[[ACC]]
//       CHECK:     xpu.yield %[[O]]
//       CHECK:   return %[[G]]
func.func @residual_reuses_gemm_result(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{fused arith.cmpf, arith.select, arith.addf into the xpu.gemm epilogue}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %e = tensor.empty() : tensor<8x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ugt, %in, %z : f32
    %s = arith.select %c, %in, %z : f32
    linalg.yield %s : f32
  } -> tensor<8x6xf32>
  %o = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %g : tensor<8x6xf32>, tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.addf %in, %in2 : f32
    linalg.yield %0 : f32
  } -> tensor<8x6xf32>
  return %o : tensor<8x6xf32>
}

// -----

// The GEMM result is returned and also consumed: fusing would recompute the
// GEMM, so nothing moves.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @two_users_not_fused
//       CHECK:   %[[G:.+]] = xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
//       CHECK:   %[[R:.+]] = linalg.generic {{.*}} ins(%[[G]]
//       CHECK:   return %[[G]], %[[R]]
func.func @two_users_not_fused(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> (tensor<8x6xf32>, tensor<8x6xf32>) {
  // expected-remark @+1 {{the GEMM result has 2 users; fusing would recompute the GEMM}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %e = tensor.empty() : tensor<8x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<8x6xf32>
  return %g, %r : tensor<8x6xf32>, tensor<8x6xf32>
}

// -----

// Every broadcast form torch-mlir emits: a per-row vector, a 0-d scalar, a
// size-1 operand read at index 0, an expand_shape'd per-channel [1, C] vector
// read as (0, d1), and a full residual.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#scalar = affine_map<(d0, d1) -> ()>
#one = affine_map<(d0, d1) -> (0)>
#col1 = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @all_broadcast_forms
//  CHECK-SAME:   %{{[a-z0-9]+}}: tensor<8x4xf32>, %{{[a-z0-9]+}}: tensor<4x6xf32>, %[[ROW:[a-z0-9]+]]: tensor<8xf32>, %[[S:[a-z0-9]+]]: tensor<f32>, %[[ONE:[a-z0-9]+]]: tensor<1xf32>, %[[C:[a-z0-9]+]]: tensor<6xf32>, %[[RES:[a-z0-9]+]]: tensor<8x6xf32>
//       CHECK:   %[[ONE0:.+]] = tensor.collapse_shape %[[ONE]] [] : tensor<1xf32> into tensor<f32>
//       CHECK:   xpu.gemm {{.*}} epilogue(%[[ROW]] per_row : tensor<8xf32>, %[[S]] scalar : tensor<f32>, %[[ONE0]] scalar : tensor<f32>, %[[C]] per_col : tensor<6xf32>, %[[RES]] full : tensor<8x6xf32>)
//   CHECK-NOT:   linalg.generic
func.func @all_broadcast_forms(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>, %row: tensor<8xf32>, %s: tensor<f32>,
                               %one: tensor<1xf32>, %c: tensor<6xf32>, %res: tensor<8x6xf32>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{fused arith.mulf, arith.addf, arith.mulf, arith.addf, arith.addf into the xpu.gemm epilogue}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %c2 = tensor.expand_shape %c [[0, 1]] output_shape [1, 6] : tensor<6xf32> into tensor<1x6xf32>
  %e = tensor.empty() : tensor<8x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #row, #scalar, #one, #col1, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %row, %s, %one, %c2, %res : tensor<8x6xf32>, tensor<8xf32>, tensor<f32>, tensor<1xf32>, tensor<1x6xf32>, tensor<8x6xf32>)
      outs(%e : tensor<8x6xf32>) {
  ^bb0(%in: f32, %vr: f32, %vs: f32, %v1: f32, %vc: f32, %vres: f32, %out: f32):
    %0 = arith.mulf %in, %vr : f32
    %1 = arith.addf %0, %vs : f32
    %2 = arith.mulf %1, %v1 : f32
    %3 = arith.addf %2, %vc : f32
    %4 = arith.addf %3, %vres : f32
    linalg.yield %4 : f32
  } -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// A transposed full operand is not a broadcast an epilogue supports.
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @transposed_operand_not_fused
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f32) : (tensor<6x4xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
//       CHECK:   linalg.generic
func.func @transposed_operand_not_fused(%a: tensor<6x4xf32>, %b: tensor<4x6xf32>, %m: tensor<6x6xf32>) -> tensor<6x6xf32> {
  // expected-remark @+1 {{consumer operand #1: the operand varies along dimensions a GEMM epilogue cannot broadcast}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<6x4xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
  %e = tensor.empty() : tensor<6x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #t, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %m : tensor<6x6xf32>, tensor<6x6xf32>) outs(%e : tensor<6x6xf32>) {
  ^bb0(%in: f32, %vm: f32, %out: f32):
    %0 = arith.addf %in, %vm : f32
    linalg.yield %0 : f32
  } -> tensor<6x6xf32>
  return %r : tensor<6x6xf32>
}

// -----

// BatchNorm's 1/sqrt(var + eps) (with torch-mlir's cf.assert) depends on no
// GEMM: it stays its own generic and its result is a per-column operand.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @batchnorm_statistics_stay_operands
//       CHECK:   %[[INV:.+]] = linalg.generic
//       CHECK:     cf.assert
//       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_col : tensor<6xf32>, %[[INV]] per_col : tensor<6xf32>)
//   CHECK-NOT:   cf.assert
func.func @batchnorm_statistics_stay_operands(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>, %mean: tensor<6xf32>, %var: tensor<6xf32>) -> tensor<8x6xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  // expected-remark @+1 {{fused arith.subf, arith.mulf into the xpu.gemm epilogue}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %e1 = tensor.empty() : tensor<6xf32>
  %inv = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%var : tensor<6xf32>) outs(%e1 : tensor<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %eps : f32
    %1 = math.sqrt %0 : f32
    %2 = arith.cmpf one, %1, %zero : f32
    cf.assert %2, "unimplemented: tensor with zero element"
    %3 = arith.divf %one, %1 : f32
    linalg.yield %3 : f32
  } -> tensor<6xf32>
  %e = tensor.empty() : tensor<8x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %mean, %inv : tensor<8x6xf32>, tensor<6xf32>, tensor<6xf32>) outs(%e : tensor<8x6xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
    %0 = arith.subf %in, %m : f32
    %1 = arith.mulf %0, %s : f32
    linalg.yield %1 : f32
  } -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// Batched GEMM with a bias shared across the batch; the sm_90 model for
// f32 operands (a SIMT kernel in runs of 4, #xpu.simt<vector = 4>;
// docs/Strategy.md): 64x64 on 8 warps = 16 accumulators per lane,
// 12 + 7 * 16 / 4 = 40 reserved and a register per live value (the
// epilogue runs on one accumulator at a time), budget 255; a bias add
// peaks at 1 value: 41.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#col3 = affine_map<(d0, d1, d2) -> (d2)>
module attributes {xpu.target = #xpu.target<"sm_90">} {
  // CHECK-LABEL: func.func @batched_bias_sm90
  //       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_col : tensor<5xf32>)
  func.func @batched_bias_sm90(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %bias: tensor<5xf32>) -> tensor<2x3x5xf32> {
    // expected-remark @+1 {{fused arith.addf into the xpu.gemm epilogue: estimated 41 registers per thread <= 255 on sm_90}}
    %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %e = tensor.empty() : tensor<2x3x5xf32>
    %r = linalg.generic {indexing_maps = [#id3, #col3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%g, %bias : tensor<2x3x5xf32>, tensor<5xf32>) outs(%e : tensor<2x3x5xf32>) {
    ^bb0(%in: f32, %vb: f32, %out: f32):
      %0 = arith.addf %in, %vb : f32
      linalg.yield %0 : f32
    } -> tensor<2x3x5xf32>
    return %r : tensor<2x3x5xf32>
  }
}

// -----

// On the CPU the epilogue is applied per vector tile: no register guard.
#id = affine_map<(d0, d1) -> (d0, d1)>
module attributes {xpu.target = #xpu.target<"cpu">} {
  // CHECK-LABEL: func.func @cpu_has_no_guard
  //       CHECK:   xpu.gemm {{.*}} epilogue {
  //       CHECK:     math.exp
  func.func @cpu_has_no_guard(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf32> {
    // expected-remark @+1 {{fused math.tanh, math.exp, arith.mulf into the xpu.gemm epilogue (cpu target: no register guard, the CPU strategy applies the epilogue per vector tile)}}
    %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    %e = tensor.empty() : tensor<8x6xf32>
    %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
        ins(%g : tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
    ^bb0(%in: f32, %out: f32):
      %t = math.tanh %in : f32
      %x = math.exp %in : f32
      %o = arith.mulf %t, %x : f32
      linalg.yield %o : f32
    } -> tensor<8x6xf32>
    return %r : tensor<8x6xf32>
  }
}

// -----

// A consumer that reads indices cannot move into an epilogue.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @index_reading_consumer_not_fused
//       CHECK:   linalg.index
func.func @index_reading_consumer_not_fused(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{its consumer computes linalg.index, which cannot move into an epilogue}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  %e = tensor.empty() : tensor<8x6xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<8x6xf32>) outs(%e : tensor<8x6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %0 = arith.addf %in, %f : f32
    linalg.yield %0 : f32
  } -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}

// -----

// torch 2.15 broadcasts nn.Linear's bias to the full [M, N] before the add
// (linalg.broadcast, or a copying linalg.generic): the broadcast folds into
// the add, and the bias is a per_col operand, not a full one.
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_broadcast_to_full_is_per_col
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<16x64xf32>, %[[W:[a-z0-9]+]]: tensor<32x64xf32>, %[[B:[a-z0-9]+]]: tensor<32xf32>
//   CHECK-NOT:   linalg.broadcast
//       CHECK:   xpu.gemm %[[X]], %[[W]] rhs_layout(nk) acc(f32) epilogue(%[[B]] per_col : tensor<32xf32>)
func.func @bias_broadcast_to_full_is_per_col(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+1 {{fused arith.addf into the xpu.gemm epilogue}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %bb = linalg.broadcast ins(%b : tensor<32xf32>) outs(%e : tensor<16x32xf32>) dimensions = [0]
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %bb : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @bias_copied_to_full_is_per_col
//       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_col : tensor<32xf32>)
func.func @bias_copied_to_full_is_per_col(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+1 {{fused arith.addf into the xpu.gemm epilogue}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  %e = tensor.empty() : tensor<16x32xf32>
  %bb = linalg.generic {indexing_maps = [#col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%b : tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %bb : tensor<16x32xf32>, tensor<16x32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    linalg.yield %0 : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

// -----

// A 3-D input: torch-mlir collapses it to 2-D for the matmul and expands
// the result back before the activation. The activation is collapsed to the
// GEMM's shape and fused; the expand_shape moves after the GEMM.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @relu_after_expand_shape
//       CHECK:   %[[G:.+]] = xpu.gemm
//       CHECK:     arith.select
//       CHECK:   %[[E:.+]] = tensor.expand_shape %[[G]] {{\[}}[0, 1], [2]] output_shape [4, 8, 32]
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[E]]
func.func @relu_after_expand_shape(%x: tensor<32x64xf32>, %w: tensor<32x64xf32>) -> tensor<4x8x32xf32> {
  // expected-remark @+2 {{fused arith.cmpf, arith.select into the xpu.gemm epilogue}}
  // expected-remark @+1 {{its consumer tensor.expand_shape is not an elementwise linalg.generic}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<32x64xf32>, tensor<32x64xf32>) -> tensor<32x32xf32>
  %x3 = tensor.expand_shape %g [[0, 1], [2]] output_shape [4, 8, 32] : tensor<32x32xf32> into tensor<4x8x32xf32>
  %e = tensor.empty() : tensor<4x8x32xf32>
  %r = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x3 : tensor<4x8x32xf32>) outs(%e : tensor<4x8x32xf32>) {
  ^bb0(%in: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %c = arith.cmpf ugt, %in, %z : f32
    %s = arith.select %c, %in, %z : f32
    linalg.yield %s : f32
  } -> tensor<4x8x32xf32>
  return %r : tensor<4x8x32xf32>
}
