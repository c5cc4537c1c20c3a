// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-widen-epilogue))' | FileCheck %s
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-widen-epilogue))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null
// The pipelines run the pass unless round-each-op=true.
// RUN: xpu-opt %s --split-input-file --xpu-optimize | FileCheck %s --check-prefix=OPT
// RUN: xpu-opt %s --split-input-file --xpu-optimize=round-each-op=true | FileCheck %s --check-prefix=EACH

// A bf16 swish after the bias, as torch-mlir writes a bf16 model: every op
// on bf16. In f32, the only rounding left is the one before the store.
// CHECK-LABEL: func.func @swish_bf16
//       CHECK:   %[[ONE:.+]] = arith.constant 1.000000e+00 : f32
//       CHECK:   xpu.gemm
//  CHECK-NEXT:   ^bb0(%[[ACC:.+]]: f32, %[[B:.+]]: f32):
//  CHECK-NEXT:     %[[T:.+]] = arith.addf %[[ACC]], %[[B]] : f32
//  CHECK-NEXT:     %[[N:.+]] = arith.negf %[[T]] fastmath<afn> : f32
//  CHECK-NEXT:     %[[E:.+]] = math.exp %[[N]] : f32
//  CHECK-NEXT:     %[[D:.+]] = arith.addf %[[E]], %[[ONE]] : f32
//  CHECK-NEXT:     %[[S:.+]] = arith.divf %[[ONE]], %[[D]] : f32
//  CHECK-NEXT:     %[[Y:.+]] = arith.mulf %[[T]], %[[S]] : f32
//  CHECK-NEXT:     %[[R:.+]] = arith.truncf %[[Y]] : f32 to bf16
//  CHECK-NEXT:     xpu.yield %[[R]] : bf16
// OPT-LABEL: func.func @swish_bf16
//   OPT-NOT:   : bf16
//       OPT:   arith.truncf %{{.+}} : f32 to bf16
//  OPT-NEXT:   xpu.yield %{{.+}} : bf16
// EACH-LABEL: func.func @swish_bf16
//       EACH:   math.exp %{{.+}} : bf16
//       EACH:   arith.mulf %{{.+}}, %{{.+}} : bf16
func.func @swish_bf16(%x: tensor<64x128xf32>, %w: tensor<32x128xf32>, %b: tensor<32xf32>) -> tensor<64x32xbf16> {
  %one = arith.constant 1.0 : bf16
  // expected-remark @+1 {{GEMM 64x32x128 (m x n x k): 5 bf16 epilogue op(s) computed in f32 and rounded once, at the store, instead of after each op (round-each-op=true keeps the model's rounding)}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    %h = arith.truncf %t : f32 to bf16
    %n = arith.negf %h fastmath<afn> : bf16
    %e = math.exp %n : bf16
    %d = arith.addf %e, %one : bf16
    %s = arith.divf %one, %d : bf16
    %y = arith.mulf %h, %s : bf16
    xpu.yield %y : bf16
  } : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}

// -----

// An f16 residual read by the epilogue is extended once, at the top of the
// block; a clamp (compare and select) computes on f32 values; an extf of a
// widened value reads the f32 value itself.
// CHECK-LABEL: func.func @residual_clamp_f16
//       CHECK:   %[[SIX:.+]] = arith.constant 6.000000e+00 : f32
//       CHECK:   xpu.gemm
//  CHECK-NEXT:   ^bb0(%[[ACC:.+]]: f32, %[[RES:.+]]: f16):
//  CHECK-NEXT:     %[[RES32:.+]] = arith.extf %[[RES]] : f16 to f32
//  CHECK-NEXT:     %[[S:.+]] = arith.addf %[[ACC]], %[[RES32]] : f32
//  CHECK-NEXT:     %[[C:.+]] = arith.cmpf ugt, %[[S]], %[[SIX]] : f32
//  CHECK-NEXT:     %[[M:.+]] = arith.select %[[C]], %[[SIX]], %[[S]] : f32
//  CHECK-NEXT:     %[[Q:.+]] = arith.mulf %[[M]], %[[ACC]] : f32
//  CHECK-NEXT:     %[[R:.+]] = arith.truncf %[[Q]] : f32 to f16
//  CHECK-NEXT:     xpu.yield %[[R]] : f16
func.func @residual_clamp_f16(%x: tensor<64x128xf32>, %w: tensor<32x128xf32>, %r: tensor<64x32xf16>) -> tensor<64x32xf16> {
  %six = arith.constant 6.0 : f16
  // expected-remark @+1 {{GEMM 64x32x128 (m x n x k): 3 f16 epilogue op(s) computed in f32}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%r full : tensor<64x32xf16>) {
  ^bb0(%acc: f32, %res: f16):
    %h = arith.truncf %acc : f32 to f16
    %s = arith.addf %h, %res : f16
    %c = arith.cmpf ugt, %s, %six : f16
    %m = arith.select %c, %six, %s : f16
    %wide = arith.extf %m : f16 to f32
    %q = arith.mulf %wide, %acc : f32
    %out = arith.truncf %q : f32 to f16
    xpu.yield %out : f16
  } : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xf16>
  return %0 : tensor<64x32xf16>
}

// -----

// A bit cast reads the 16 bits themselves: the value it reads is rounded
// there (once), and what it produces is extended for the f32 ops after it.
// CHECK-LABEL: func.func @bitcast_in_chain
//       CHECK:   ^bb0(%[[ACC:.+]]: f32):
//  CHECK-NEXT:     %[[N:.+]] = arith.negf %[[ACC]] : f32
//  CHECK-NEXT:     %[[NH:.+]] = arith.truncf %[[N]] : f32 to bf16
//  CHECK-NEXT:     %[[I:.+]] = arith.bitcast %[[NH]] : bf16 to i16
//  CHECK-NEXT:     %[[BH:.+]] = arith.bitcast %[[I]] : i16 to bf16
//  CHECK-NEXT:     %[[B:.+]] = arith.extf %[[BH]] : bf16 to f32
//  CHECK-NEXT:     %[[T:.+]] = math.tanh %[[B]] : f32
//  CHECK-NEXT:     %[[R:.+]] = arith.truncf %[[T]] : f32 to bf16
//  CHECK-NEXT:     xpu.yield %[[R]] : bf16
func.func @bitcast_in_chain(%x: tensor<64x128xf32>, %w: tensor<32x128xf32>) -> tensor<64x32xbf16> {
  // expected-remark @+1 {{GEMM 64x32x128 (m x n x k): 2 bf16 epilogue op(s)}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %h = arith.truncf %acc : f32 to bf16
    %n = arith.negf %h : bf16
    %i = arith.bitcast %n : bf16 to i16
    %b = arith.bitcast %i : i16 to bf16
    %t = math.tanh %b : bf16
    xpu.yield %t : bf16
  } : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}

// -----

// Nothing on 16 bits but the final rounding: unchanged, no remark.
// CHECK-LABEL: func.func @f32_epilogue
//       CHECK:   ^bb0(%[[ACC:.+]]: f32):
//  CHECK-NEXT:     %[[T:.+]] = math.tanh %[[ACC]] : f32
//  CHECK-NEXT:     %[[R:.+]] = arith.truncf %[[T]] : f32 to bf16
//  CHECK-NEXT:     xpu.yield %[[R]] : bf16
func.func @f32_epilogue(%x: tensor<64x128xf32>, %w: tensor<32x128xf32>) -> tensor<64x32xbf16> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %t = math.tanh %acc : f32
    %r = arith.truncf %t : f32 to bf16
    xpu.yield %r : bf16
  } : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xbf16>
  return %0 : tensor<64x32xbf16>
}
