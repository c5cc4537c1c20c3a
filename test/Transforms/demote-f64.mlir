// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-demote-f64{keep=keep_me,also_kept}))' | FileCheck %s
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-demote-f64{keep=keep_me,also_kept}))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// Everything in f64: the operands and the bias are truncated once before the
// GEMM, the epilogue (constant included) is retyped to f32 and the result is
// extended back, so the signature does not change.
// CHECK-LABEL: func.func @linear_bias_tanh_f64
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<64x128xf64>, %[[W:[a-z0-9]+]]: tensor<32x128xf64>, %[[B:[a-z0-9]+]]: tensor<32xf64>) -> tensor<64x32xf64>
//       CHECK:   %[[X32:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<64x128xf64>) outs(%{{.+}} : tensor<64x128xf32>)
//       CHECK:     arith.truncf %{{.+}} : f64 to f32
//       CHECK:   %[[W32:.+]] = linalg.generic {{.*}} ins(%[[W]] : tensor<32x128xf64>) outs(%{{.+}} : tensor<32x128xf32>)
//       CHECK:     arith.truncf %{{.+}} : f64 to f32
//       CHECK:   %[[B32:.+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<32xf64>) outs(%{{.+}} : tensor<32xf32>)
//       CHECK:     arith.truncf %{{.+}} : f64 to f32
//       CHECK:   %[[G:.+]] = xpu.gemm %[[X32]], %[[W32]] rhs_layout(nk) acc(f32) epilogue(%[[B32]] per_col : tensor<32xf32>) {
//  CHECK-NEXT:   ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f32):
//  CHECK-NEXT:     %[[HALF:.+]] = arith.constant 5.000000e-01 : f32
//  CHECK-NEXT:     %[[T:.+]] = arith.addf %[[ACC]], %[[BIAS]] : f32
//  CHECK-NEXT:     %[[U:.+]] = arith.mulf %[[T]], %[[HALF]] : f32
//  CHECK-NEXT:     %[[V:.+]] = math.tanh %[[U]] : f32
//  CHECK-NEXT:     xpu.yield %[[V]] : f32
//  CHECK-NEXT:   } : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xf32>
//       CHECK:   %[[R:.+]] = linalg.generic {{.*}} ins(%[[G]] : tensor<64x32xf32>) outs(%{{.+}} : tensor<64x32xf64>)
//       CHECK:     arith.extf %{{.+}} : f32 to f64
//       CHECK:   return %[[R]] : tensor<64x32xf64>
func.func @linear_bias_tanh_f64(%x: tensor<64x128xf64>, %w: tensor<32x128xf64>, %b: tensor<32xf64>) -> tensor<64x32xf64> {
  // expected-remark @+1 {{GEMM 64x32x128 (m x n x k) demoted from f64 to f32: lhs and rhs converted to f32 before it, accumulates in f32, 1 epilogue operand(s) converted to f32, epilogue computed in f32 (4 op(s) were on f64), result extended back to f64}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f64) epilogue(%b per_col : tensor<32xf64>) {
  ^bb0(%acc: f64, %bias: f64):
    %half = arith.constant 0.5 : f64
    %t = arith.addf %acc, %bias : f64
    %u = arith.mulf %t, %half : f64
    %v = math.tanh %u : f64
    xpu.yield %v : f64
  } : (tensor<64x128xf64>, tensor<32x128xf64>) -> tensor<64x32xf64>
  return %0 : tensor<64x32xf64>
}

// -----

// The playbook's "a.to(float64)" accumulator: f32 operands accumulated in
// f64 and truncated in the epilogue. The accumulator becomes f32 and the
// truncation disappears; the operands and the result are not converted.
// CHECK-LABEL: func.func @f64_accumulator_of_f32_operands
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x4xf32>, %[[W:[a-z0-9]+]]: tensor<4x6xf32>
//   CHECK-NOT:   linalg.generic
//       CHECK:   %[[G:.+]] = xpu.gemm %[[X]], %[[W]] rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
//   CHECK-NOT:   arith.truncf
//       CHECK:   return %[[G]]
func.func @f64_accumulator_of_f32_operands(%x: tensor<8x4xf32>, %w: tensor<4x6xf32>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{GEMM 8x6x4 (m x n x k) demoted from f64 to f32: accumulates in f32, epilogue computed in f32 (1 op(s) were on f64)}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f64) epilogue {
  ^bb0(%acc: f64):
    %t = arith.truncf %acc : f64 to f32
    xpu.yield %t : f32
  } : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// dtype_input_conversion: an f32 GEMM whose epilogue upcasts to f64 to add
// an f64 bias and apply a ReLU (cmpf / select on f64), then truncates. The
// bias is truncated before the GEMM; the epilogue runs in f32.
// CHECK-LABEL: func.func @epilogue_upcast_to_f64
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x4xf32>, %[[W:[a-z0-9]+]]: tensor<6x4xf32>, %[[B:[a-z0-9]+]]: tensor<6xf64>
//       CHECK:   %[[B32:.+]] = linalg.generic {{.*}} ins(%[[B]] : tensor<6xf64>) outs(%{{.+}} : tensor<6xf32>)
//       CHECK:   %[[G:.+]] = xpu.gemm %[[X]], %[[W]] rhs_layout(nk) acc(f32) epilogue(%[[B32]] per_col : tensor<6xf32>) {
//  CHECK-NEXT:   ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f32):
//  CHECK-NEXT:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//  CHECK-NEXT:     %[[S:.+]] = arith.addf %[[ACC]], %[[BIAS]] : f32
//  CHECK-NEXT:     %[[P:.+]] = arith.cmpf ugt, %[[S]], %[[ZERO]] : f32
//  CHECK-NEXT:     %[[R:.+]] = arith.select %[[P]], %[[S]], %[[ZERO]] : f32
//  CHECK-NEXT:     xpu.yield %[[R]] : f32
//  CHECK-NEXT:   } : (tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x6xf32>
//       CHECK:   return %[[G]] : tensor<8x6xf32>
func.func @epilogue_upcast_to_f64(%x: tensor<8x4xf32>, %w: tensor<6x4xf32>, %b: tensor<6xf64>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{GEMM 8x6x4 (m x n x k) demoted from f64 to f32: 1 epilogue operand(s) converted to f32, epilogue computed in f32 (6 op(s) were on f64)}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<6xf64>) {
  ^bb0(%acc: f32, %bias: f64):
    %zero = arith.constant 0.0 : f64
    %a = arith.extf %acc : f32 to f64
    %s = arith.addf %a, %bias : f64
    %p = arith.cmpf ugt, %s, %zero : f64
    %r = arith.select %p, %s, %zero : f64
    %t = arith.truncf %r : f64 to f32
    xpu.yield %t : f32
  } : (tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// Batched, the same f64 tensor as lhs and rhs, a 0-d f64 scale and a second
// user of the result: the shared operand is converted once, the 0-d scale
// by a 0-d generic, and both users read the extended result.
// CHECK-LABEL: func.func @batched_shared_operand_scalar_scale
//  CHECK-SAME:   %[[A:[a-z0-9]+]]: tensor<2x8x8xf64>, %[[S:[a-z0-9]+]]: tensor<f64>
//       CHECK:   %[[A32:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<2x8x8xf64>) outs(%{{.+}} : tensor<2x8x8xf32>)
//       CHECK:   %[[S32:.+]] = linalg.generic {{.*}} iterator_types = []} ins(%[[S]] : tensor<f64>) outs(%{{.+}} : tensor<f32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   %[[G:.+]] = xpu.gemm %[[A32]], %[[A32]] rhs_layout(nk) acc(f32) epilogue(%[[S32]] scalar : tensor<f32>)
//       CHECK:   } : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
//       CHECK:   %[[R:.+]] = linalg.generic {{.*}} ins(%[[G]] : tensor<2x8x8xf32>) outs(%{{.+}} : tensor<2x8x8xf64>)
//       CHECK:   return %[[R]], %[[R]] : tensor<2x8x8xf64>, tensor<2x8x8xf64>
func.func @batched_shared_operand_scalar_scale(%a: tensor<2x8x8xf64>, %s: tensor<f64>) -> (tensor<2x8x8xf64>, tensor<2x8x8xf64>) {
  // expected-remark @+1 {{GEMM 2x(8x8x8) (m x n x k) demoted from f64 to f32: lhs and rhs converted to f32 before it, accumulates in f32, 1 epilogue operand(s) converted to f32, epilogue computed in f32 (1 op(s) were on f64), result extended back to f64}}
  %0 = xpu.gemm %a, %a rhs_layout(nk) acc(f64) epilogue(%s scalar : tensor<f64>) {
  ^bb0(%acc: f64, %scale: f64):
    %r = arith.mulf %acc, %scale : f64
    xpu.yield %r : f64
  } : (tensor<2x8x8xf64>, tensor<2x8x8xf64>) -> tensor<2x8x8xf64>
  return %0, %0 : tensor<2x8x8xf64>, tensor<2x8x8xf64>
}

// -----

// One f64 weight shared by two GEMMs: converted once, at the function entry.
// CHECK-LABEL: func.func @shared_weight_converted_once
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<4x8xf64>, %[[Y:[a-z0-9]+]]: tensor<4x8xf64>, %[[W:[a-z0-9]+]]: tensor<6x8xf64>
//   CHECK-DAG:   %[[X32:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x8xf64>)
//   CHECK-DAG:   %[[W32:.+]] = linalg.generic {{.*}} ins(%[[W]] : tensor<6x8xf64>)
//   CHECK-DAG:   %[[Y32:.+]] = linalg.generic {{.*}} ins(%[[Y]] : tensor<4x8xf64>)
//       CHECK:   xpu.gemm %[[X32]], %[[W32]] rhs_layout(nk) acc(f32)
//       CHECK:   xpu.gemm %[[Y32]], %[[W32]] rhs_layout(nk) acc(f32)
func.func @shared_weight_converted_once(%x: tensor<4x8xf64>, %y: tensor<4x8xf64>, %w: tensor<6x8xf64>) -> (tensor<4x6xf64>, tensor<4x6xf64>) {
  // expected-remark @+1 {{GEMM 4x6x8 (m x n x k) demoted from f64 to f32}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f64) : (tensor<4x8xf64>, tensor<6x8xf64>) -> tensor<4x6xf64>
  // expected-remark @+1 {{GEMM 4x6x8 (m x n x k) demoted from f64 to f32}}
  %1 = xpu.gemm %y, %w rhs_layout(nk) acc(f64) : (tensor<4x8xf64>, tensor<6x8xf64>) -> tensor<4x6xf64>
  return %0, %1 : tensor<4x6xf64>, tensor<4x6xf64>
}

// -----

// The config and other attributes survive the rewrite.
// CHECK-LABEL: func.func @config_is_kept
//       CHECK:   xpu.gemm {{.*}} acc(f32) {config = #xpu.config<tile = [32, 32, 16], group_m = 4, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
func.func @config_is_kept(%x: tensor<64x64xf64>, %w: tensor<64x64xf64>) -> tensor<64x64xf64> {
  // expected-remark @+1 {{GEMM 64x64x64 (m x n x k) demoted from f64 to f32}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f64) {config = #xpu.config<tile = [32, 32, 16], group_m = 4, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  return %0 : tensor<64x64xf64>
}

// -----

// xpu.keep_f64 keeps the GEMM in f64.
// CHECK-LABEL: func.func @marked_keep_f64_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f64) {xpu.keep_f64} : (tensor<8x4xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
func.func @marked_keep_f64_is_untouched(%x: tensor<8x4xf64>, %w: tensor<4x6xf64>) -> tensor<8x6xf64> {
  // expected-remark @+1 {{GEMM 8x6x4 kept in f64: marked xpu.keep_f64}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f64) {xpu.keep_f64} : (tensor<8x4xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
  return %0 : tensor<8x6xf64>
}

// -----

// Functions listed in keep=keep_me,also_kept stay in f64.
// CHECK-LABEL: func.func @keep_me
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f64) : (tensor<8x4xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
// CHECK-LABEL: func.func @also_kept
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f64) : (tensor<8x4xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
func.func @keep_me(%x: tensor<8x4xf64>, %w: tensor<4x6xf64>) -> tensor<8x6xf64> {
  // expected-remark @+1 {{GEMM 8x6x4 kept in f64: function 'keep_me' is listed in keep}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f64) : (tensor<8x4xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
  return %0 : tensor<8x6xf64>
}
func.func @also_kept(%x: tensor<8x4xf64>, %w: tensor<4x6xf64>) -> tensor<8x6xf64> {
  // expected-remark @+1 {{GEMM 8x6x4 kept in f64: function 'also_kept' is listed in keep}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f64) : (tensor<8x4xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
  return %0 : tensor<8x6xf64>
}

// -----

// An epilogue that reads the bits of an f64 cannot be computed in f32.
// CHECK-LABEL: func.func @bitcast_epilogue_is_untouched
//       CHECK:   xpu.gemm {{.*}} acc(f64) epilogue {
//       CHECK:     arith.bitcast %{{.+}} : f64 to i64
func.func @bitcast_epilogue_is_untouched(%x: tensor<8x4xf64>, %w: tensor<4x6xf64>) -> tensor<8x6xi64> {
  // expected-remark @+1 {{GEMM 8x6x4 kept in f64: epilogue op 'arith.bitcast' reinterprets the bits of an f64}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f64) epilogue {
  ^bb0(%acc: f64):
    %i = arith.bitcast %acc : f64 to i64
    %f = arith.sitofp %i : i64 to f64
    xpu.yield %f : f64
  } : (tensor<8x4xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
  %e = tensor.empty() : tensor<8x6xi64>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<8x6xf64>) outs(%e : tensor<8x6xi64>) {
  ^bb0(%in: f64, %out: i64):
    %2 = arith.fptosi %in : f64 to i64
    linalg.yield %2 : i64
  } -> tensor<8x6xi64>
  return %1 : tensor<8x6xi64>
}

// -----

// A constant beyond the f32 range would become infinity.
// CHECK-LABEL: func.func @huge_constant_is_untouched
//       CHECK:   xpu.gemm {{.*}} acc(f64) epilogue {
//       CHECK:     arith.constant 1.000000e+300 : f64
func.func @huge_constant_is_untouched(%x: tensor<8x4xf64>, %w: tensor<4x6xf64>) -> tensor<8x6xf64> {
  // expected-remark @+1 {{GEMM 8x6x4 kept in f64: epilogue constant 1.000000e+300 does not fit in f32}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f64) epilogue {
  ^bb0(%acc: f64):
    %c = arith.constant 1.0e300 : f64
    %r = arith.minimumf %acc, %c : f64
    xpu.yield %r : f64
  } : (tensor<8x4xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
  return %0 : tensor<8x6xf64>
}

// -----

// No f64 anywhere: nothing to do, no remark.
// CHECK-LABEL: func.func @f32_gemm_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) : (tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x6xf32>
func.func @f32_gemm_is_untouched(%x: tensor<8x4xf32>, %w: tensor<6x4xf32>) -> tensor<8x6xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}
