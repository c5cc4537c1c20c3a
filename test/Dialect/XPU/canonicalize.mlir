// RUN: xpu-opt %s --split-input-file --canonicalize | FileCheck %s

// An epilogue operand whose block argument is unused is dropped.
// CHECK-LABEL: func.func @unused_operand_is_dropped
//  CHECK-SAME:   %[[A:[a-z0-9]+]]: tensor<4x8xf32>, %[[B:[a-z0-9]+]]: tensor<8x6xf32>, %[[BIAS:[a-z0-9]+]]: tensor<6xf32>, %[[S:[a-z0-9]+]]: tensor<f32>
//       CHECK:   xpu.gemm %[[A]], %[[B]] rhs_layout(kn) acc(f32) epilogue(%[[BIAS]] per_col : tensor<6xf32>) {
//       CHECK:   ^bb0(%[[ACC:.+]]: f32, %[[V:.+]]: f32):
//       CHECK:     %[[R:.+]] = arith.addf %[[ACC]], %[[V]] : f32
//       CHECK:     xpu.yield %[[R]] : f32
func.func @unused_operand_is_dropped(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %bias: tensor<6xf32>, %s: tensor<f32>) -> tensor<4x6xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%s scalar : tensor<f32>, %bias per_col : tensor<6xf32>) {
  ^bb0(%acc: f32, %vs: f32, %vb: f32):
    %r = arith.addf %acc, %vb : f32
    xpu.yield %r : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// With every operand unused the epilogue is the identity again and is not
// printed.
// CHECK-LABEL: func.func @all_unused_gives_identity
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
func.func @all_unused_gives_identity(%a: tensor<4x8xf32>, %b: tensor<6x8xf32>, %bias: tensor<6xf32>) -> tensor<4x6xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(nk) acc(f32) epilogue(%bias per_col : tensor<6xf32>) {
  ^bb0(%acc: f32, %vb: f32):
    xpu.yield %acc : f32
  } : (tensor<4x8xf32>, tensor<6x8xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// The same value with the same broadcast kind is passed once.
// CHECK-LABEL: func.func @duplicates_are_merged
//  CHECK-SAME:   %{{.+}}: tensor<4x8xf32>, %{{.+}}: tensor<8x6xf32>, %[[BIAS:[a-z0-9]+]]: tensor<6xf32>
//       CHECK:   epilogue(%[[BIAS]] per_col : tensor<6xf32>) {
//       CHECK:   ^bb0(%[[ACC:.+]]: f32, %[[V:.+]]: f32):
//       CHECK:     %[[T:.+]] = arith.addf %[[ACC]], %[[V]] : f32
//       CHECK:     %[[R:.+]] = arith.mulf %[[T]], %[[V]] : f32
//       CHECK:     xpu.yield %[[R]] : f32
func.func @duplicates_are_merged(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %bias: tensor<6xf32>) -> tensor<4x6xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%bias per_col : tensor<6xf32>, %bias per_col : tensor<6xf32>) {
  ^bb0(%acc: f32, %v0: f32, %v1: f32):
    %t = arith.addf %acc, %v0 : f32
    %r = arith.mulf %t, %v1 : f32
    xpu.yield %r : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// A square operand used per_row and per_col is two different operands.
// CHECK-LABEL: func.func @same_value_other_kind_is_kept
//       CHECK:   epilogue(%{{.+}} per_row : tensor<6xf32>, %{{.+}} per_col : tensor<6xf32>)
func.func @same_value_other_kind_is_kept(%a: tensor<6x8xf32>, %b: tensor<8x6xf32>, %v: tensor<6xf32>) -> tensor<6x6xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%v per_row : tensor<6xf32>, %v per_col : tensor<6xf32>) {
  ^bb0(%acc: f32, %r: f32, %c: f32):
    %t = arith.addf %acc, %r : f32
    %u = arith.addf %t, %c : f32
    xpu.yield %u : f32
  } : (tensor<6x8xf32>, tensor<8x6xf32>) -> tensor<6x6xf32>
  return %0 : tensor<6x6xf32>
}

// -----

// A GEMM whose result is unused is removed (it has no side effects).
// CHECK-LABEL: func.func @dead_gemm_is_erased
//   CHECK-NOT:   xpu.gemm
//       CHECK:   return
func.func @dead_gemm_is_erased(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

// xpu.gemm is Pure (its epilogue cannot have memory effects: the verifier
// rejects them, see invalid.mlir), so an unused GEMM goes.
// CHECK-LABEL: func.func @unused_gemm_is_erased
//   CHECK-NOT:   xpu.gemm
//       CHECK:   return
func.func @unused_gemm_is_erased(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %r = math.tanh %acc : f32
    xpu.yield %r : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

