// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-simplify-epilogue))' | FileCheck %s
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-simplify-epilogue))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// x * 1, 1 * x, x / 1, x - 0.0, x + (-0.0) and -(-x) are exact identities.
// CHECK-LABEL: func.func @exact_identities
//       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_col : tensor<2xf32>) {
//       CHECK:   ^bb0(%[[ACC:.+]]: f32, %[[B:.+]]: f32):
//  CHECK-NEXT:     %[[T:.+]] = arith.addf %[[ACC]], %[[B]] : f32
//  CHECK-NEXT:     %[[R:.+]] = math.tanh %[[T]] : f32
//  CHECK-NEXT:     xpu.yield %[[R]] : f32
func.func @exact_identities(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>, %b: tensor<2xf32>) -> tensor<8x2xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<2xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %nzero = arith.constant -0.0 : f32
    // expected-remark @+1 {{removed multiplication by 1.0}}
    %0 = arith.mulf %acc, %one : f32
    // expected-remark @+1 {{removed multiplication by 1.0}}
    %1 = arith.mulf %one, %0 : f32
    // expected-remark @+1 {{removed division by 1.0}}
    %2 = arith.divf %1, %one : f32
    // expected-remark @+1 {{removed subtraction of 0.0}}
    %3 = arith.subf %2, %zero : f32
    // expected-remark @+1 {{removed addition of -0.0}}
    %4 = arith.addf %nzero, %3 : f32
    %5 = arith.addf %4, %bias : f32
    %6 = arith.negf %5 : f32
    // expected-remark @+1 {{removed double negation -(-x)}}
    %7 = arith.negf %6 : f32
    %8 = math.tanh %7 : f32
    xpu.yield %8 : f32
  } : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// x + 0.0 turns -0.0 into +0.0: it is removed when x is the accumulator
// (which starts at +0.0 and never becomes -0.0), a sum involving it, or the
// op has `nsz`; on a bias that may be -0.0 it is kept.
// CHECK-LABEL: func.func @plus_zero_needs_no_negative_zero
//       CHECK:   ^bb0(%[[ACC:.+]]: f32, %[[B:.+]]: f32):
//       CHECK:     %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//       CHECK:     %[[T:.+]] = arith.addf %[[ACC]], %[[B]] : f32
//       CHECK:     %[[U:.+]] = arith.addf %[[B]], %[[ZERO]] : f32
//       CHECK:     %[[V:.+]] = arith.subf %[[B]], %{{.+}} : f32
//       CHECK:     %[[W:.+]] = arith.mulf %[[T]], %[[U]] : f32
//       CHECK:     %[[Y:.+]] = arith.mulf %[[W]], %[[V]] : f32
//       CHECK:     xpu.yield %[[Y]] : f32
func.func @plus_zero_needs_no_negative_zero(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>, %b: tensor<2xf32>) -> tensor<8x2xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<2xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %zero = arith.constant 0.0 : f32
    %nzero = arith.constant -0.0 : f32
    // expected-remark @+1 {{removed addition of 0.0 (the accumulator is never -0.0)}}
    %0 = arith.addf %zero, %acc : f32
    %1 = arith.addf %0, %bias : f32
    // expected-remark @+1 {{removed subtraction of -0.0 (the operand is never -0.0, range [-inf, inf], never -0)}}
    %2 = arith.subf %1, %nzero : f32
    // expected-remark @+1 {{removed addition of 0.0 (nsz fast-math flag)}}
    %3 = arith.addf %2, %zero fastmath<nsz> : f32
    // expected-remark @+1 {{kept addition of 0.0: the other operand may be -0.0, which x + 0.0 turns into +0.0}}
    %4 = arith.addf %bias, %zero : f32
    // expected-remark @+1 {{kept subtraction of -0.0: the other operand may be -0.0, which x - (-0.0) turns into +0.0}}
    %5 = arith.subf %bias, %nzero : f32
    %6 = arith.mulf %3, %4 : f32
    %7 = arith.mulf %6, %5 : f32
    xpu.yield %7 : f32
  } : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// torch-mlir's relu (cmpf ugt + select) followed by a second relu, a
// maximumf against 0 and against -1, and a maxnumf with `nnan`: all inactive.
// CHECK-LABEL: func.func @relu_makes_later_clamps_inactive
//       CHECK:   ^bb0(%[[ACC:.+]]: f32, %[[B:.+]]: f32):
//       CHECK:     %[[T:.+]] = arith.addf %[[ACC]], %[[B]] : f32
//       CHECK:     %[[C:.+]] = arith.cmpf ugt, %[[T]], %{{.+}} : f32
//       CHECK:     %[[R:.+]] = arith.select %[[C]], %[[T]], %{{.+}} : f32
//   CHECK-NOT:     arith.select
//   CHECK-NOT:     arith.max
//       CHECK:     xpu.yield %[[R]] : f32
func.func @relu_makes_later_clamps_inactive(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>, %b: tensor<2xf32>) -> tensor<8x2xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<2xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %zero = arith.constant 0.0 : f32
    %m1 = arith.constant -1.0 : f32
    %t = arith.addf %acc, %bias : f32
    %c = arith.cmpf ugt, %t, %zero : f32
    %r = arith.select %c, %t, %zero : f32
    %c2 = arith.cmpf ugt, %r, %zero : f32
    // expected-remark @+1 {{removed select(cmpf ugt, x, 0): x is already in [0, inf], never -0}}
    %r2 = arith.select %c2, %r, %zero : f32
    // expected-remark @+1 {{removed arith.maximumf(x, 0): x is already in [0, inf], never -0}}
    %r3 = arith.maximumf %zero, %r2 : f32
    // expected-remark @+1 {{removed arith.maximumf(x, -1): x is already in [0, inf], never -0}}
    %r4 = arith.maximumf %r3, %m1 : f32
    // expected-remark @+1 {{removed arith.maxnumf(x, 0): x is already in [0, inf], never -0}}
    %r5 = arith.maxnumf %r4, %zero fastmath<nnan> : f32
    xpu.yield %r5 : f32
  } : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// sigmoid(x) = 1 / (1 + exp(-x)) is in [0, 1]: min(sigmoid, 1), a
// `select(x < 1, x, 1)` clamp (unordered compare: a NaN stays NaN) and max(sigmoid, 0) are inactive.
// CHECK-LABEL: func.func @sigmoid_clamps_inactive
//       CHECK:   %[[S:.+]] = arith.divf
//   CHECK-NOT:   arith.minimumf
//   CHECK-NOT:   arith.select
//   CHECK-NOT:   arith.maximumf
//       CHECK:   xpu.yield %[[S]] : f32
func.func @sigmoid_clamps_inactive(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>) -> tensor<8x2xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %one = arith.constant 1.0 : f32
    %zero = arith.constant 0.0 : f32
    %n = arith.negf %acc : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %one, %d : f32
    // expected-remark @+1 {{removed arith.minimumf(x, 1): x is already in [0, 1], never -0}}
    %m = arith.minimumf %s, %one : f32
    %c = arith.cmpf ult, %m, %one : f32
    // expected-remark @+1 {{removed select(cmpf ult, x, 1): x is already in [0, 1], never -0}}
    %k = arith.select %c, %m, %one : f32
    // expected-remark @+1 {{removed arith.maximumf(x, 0): x is already in [0, 1], never -0}}
    %r = arith.maximumf %k, %zero : f32
    xpu.yield %r : f32
  } : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// A relu in f32 narrowed to f16 is still >= +0.0; the batched GEMM's f16
// epilogue max against 0 is inactive.
// CHECK-LABEL: func.func @batched_f16_relu_after_truncf
//       CHECK:   %[[T:.+]] = arith.truncf %{{.+}} : f32 to f16
//  CHECK-NEXT:   xpu.yield %[[T]] : f16
func.func @batched_f16_relu_after_truncf(%a: tensor<2x8x4xf16>, %b: tensor<2x4x6xf16>) -> tensor<2x8x6xf16> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %zero = arith.constant 0.0 : f32
    %hzero = arith.constant 0.0 : f16
    %r = arith.maximumf %acc, %zero : f32
    %t = arith.truncf %r : f32 to f16
    // expected-remark @+1 {{removed arith.maximumf(x, 0): x is already in [0, inf], never -0}}
    %m = arith.maximumf %t, %hzero : f16
    xpu.yield %m : f16
  } : (tensor<2x8x4xf16>, tensor<2x4x6xf16>) -> tensor<2x8x6xf16>
  return %0 : tensor<2x8x6xf16>
}

// -----

// Splat-constant epilogue operands: a dense<1.0> scale and a linalg.fill of
// 0.0 are read as scalars, then the multiply and the add fold and both
// operands are dropped; the identity epilogue is left.
// CHECK-LABEL: func.func @splat_operands_dropped
//       CHECK:   %[[R:.+]] = xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
//       CHECK:   return %[[R]]
func.func @splat_operands_dropped(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>) -> tensor<8x2xf32> {
  %ones = arith.constant dense<1.0> : tensor<2xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x2xf32>
  %zeros = linalg.fill ins(%cst : f32) outs(%e : tensor<8x2xf32>) -> tensor<8x2xf32>
  // expected-remark @+2 {{epilogue operand #0 (per_col) is the splat constant 1: read as a scalar, the operand is dropped}}
  // expected-remark @+1 {{epilogue operand #1 (full) is the splat constant 0: read as a scalar, the operand is dropped}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%ones per_col : tensor<2xf32>, %zeros full : tensor<8x2xf32>) {
  ^bb0(%acc: f32, %s: f32, %r: f32):
    // expected-remark @+1 {{removed multiplication by 1.0}}
    %0 = arith.mulf %acc, %s : f32
    // expected-remark @+1 {{removed addition of 0.0 (the accumulator is never -0.0)}}
    %1 = arith.addf %0, %r : f32
    xpu.yield %1 : f32
  } : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// A splat of 2.0 is read as a scalar too (the load goes), the multiply stays.
// An operand nothing reads and a dead epilogue op are dropped.
// CHECK-LABEL: func.func @splat_two_scalarized_dead_operand_dropped
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) epilogue {
//       CHECK:   ^bb0(%[[ACC:.+]]: f32):
//       CHECK:     %[[TWO:.+]] = arith.constant 2.000000e+00 : f32
//       CHECK:     %[[M:.+]] = arith.mulf %[[ACC]], %[[TWO]] : f32
//   CHECK-NOT:     math.exp
//       CHECK:     xpu.yield %[[M]] : f32
func.func @splat_two_scalarized_dead_operand_dropped(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>, %u: tensor<8xf32>) -> tensor<8x2xf32> {
  %twos = arith.constant dense<2.0> : tensor<f32>
  // expected-remark @+3 {{removed 1 epilogue op(s) whose results are unused}}
  // expected-remark @+2 {{epilogue operand #1 (per_row) is unused: dropped}}
  // expected-remark @+1 {{epilogue operand #0 (scalar) is the splat constant 2: read as a scalar, the operand is dropped}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%twos scalar : tensor<f32>, %u per_row : tensor<8xf32>) {
  ^bb0(%acc: f32, %s: f32, %unused: f32):
    %dead = math.exp %unused : f32
    %0 = arith.mulf %acc, %s : f32
    xpu.yield %0 : f32
  } : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// Nothing to remove: x * 2, relu of an unknown value (the accumulator can
// be negative), min against a value the range does not cover, maximumf
// against a bias (not a constant), and a non-splat constant operand.
// CHECK-LABEL: func.func @real_work_is_untouched
//       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_col : tensor<2xf32>, %{{.+}} per_col : tensor<2xf32>) {
//       CHECK:     arith.mulf
//       CHECK:     arith.maximumf
//       CHECK:     arith.minimumf
//       CHECK:     arith.cmpf ugt
//       CHECK:     arith.select
//       CHECK:     arith.maximumf
//       CHECK:     arith.addf
func.func @real_work_is_untouched(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>, %b: tensor<2xf32>) -> tensor<8x2xf32> {
  %v = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<2xf32>, %v per_col : tensor<2xf32>) {
  ^bb0(%acc: f32, %bias: f32, %vv: f32):
    %two = arith.constant 2.0 : f32
    %zero = arith.constant 0.0 : f32
    %half = arith.constant 0.5 : f32
    %0 = arith.mulf %acc, %two : f32
    %1 = arith.maximumf %0, %zero : f32
    %2 = arith.minimumf %1, %half : f32
    %c = arith.cmpf ugt, %bias, %zero : f32
    %3 = arith.select %c, %bias, %zero : f32
    %4 = arith.maximumf %2, %3 : f32
    %5 = arith.addf %4, %vv : f32
    xpu.yield %5 : f32
  } : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// Signed zeros and NaN: maximumf(relu(x), -0.0) returns a zero x unchanged
// (removed); maximumf(x, +0.0) on an x that may be -0.0 is kept; the
// ordered `select(x > 0, x, 0)` and maxnumf return 0 for a NaN x, so on a
// maximumf relu (which propagates NaN) they are kept with a remark.
// CHECK-LABEL: func.func @signed_zero_and_nan_are_respected
//       CHECK:   %[[R:.+]] = arith.maximumf %{{.+}}, %{{.+}} : f32
//       CHECK:   %[[N:.+]] = arith.negf %[[R]] : f32
//       CHECK:   %[[M:.+]] = arith.maximumf %[[N]], %{{.+}} : f32
//       CHECK:   %[[C:.+]] = arith.cmpf ogt, %[[R]], %{{.+}} : f32
//       CHECK:   %[[S:.+]] = arith.select %[[C]], %[[R]], %{{.+}} : f32
//       CHECK:   %[[X:.+]] = arith.maxnumf %[[R]], %{{.+}} : f32
func.func @signed_zero_and_nan_are_respected(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>) -> tensor<8x2xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %zero = arith.constant 0.0 : f32
    %nzero = arith.constant -0.0 : f32
    %r = arith.maximumf %acc, %zero : f32
    // expected-remark @+1 {{removed arith.maximumf(x, -0): x is already in [0, inf], never -0}}
    %r1 = arith.maximumf %r, %nzero : f32
    %n = arith.negf %r1 : f32
    %m = arith.maximumf %n, %zero : f32
    %c = arith.cmpf ogt, %r1, %zero : f32
    // expected-remark @+1 {{kept select(cmpf ogt, x, 0): x is in [0, inf], never -0 but may be NaN, for which the ordered compare picks 0}}
    %s = arith.select %c, %r1, %zero : f32
    // expected-remark @+1 {{kept arith.maxnumf(x, 0): x is in [0, inf], never -0 but may be NaN, for which it returns 0}}
    %x2 = arith.maxnumf %r1, %zero : f32
    %a = arith.mulf %m, %s : f32
    %b = arith.mulf %a, %x2 : f32
    xpu.yield %b : f32
  } : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// Only xpu.gemm epilogues are simplified; the same ops elsewhere stay (no
// folding either).
// CHECK-LABEL: func.func @outside_epilogue_is_untouched
//       CHECK:   arith.mulf
//       CHECK:   arith.addf
//       CHECK:   arith.maximumf
func.func @outside_epilogue_is_untouched(%a: f32) -> f32 {
  %one = arith.constant 1.0 : f32
  %nzero = arith.constant -0.0 : f32
  %0 = arith.mulf %a, %one : f32
  %1 = arith.addf %0, %nzero : f32
  %2 = arith.maximumf %1, %1 : f32
  return %2 : f32
}

// -----

// GELU's x / sqrt(2.0) as torch-mlir emits it for a bf16 model: the square
// root of the constant is folded to what the kernels compute, sqrt in f32
// rounded to the 16-bit type: sqrt(2) = 1.41421356... is 1.4140625 in bf16
// (8 significant bits: 1.0110101b) and in f16 (11 bits: 1.0110101000b), and
// 1.41421354 in f32. The square root of a non-constant stays.
// CHECK-LABEL: func.func @sqrt_of_constants
//       CHECK:   ^bb0(%[[ACC:.+]]: f32):
//       CHECK:     %[[B:.+]] = arith.constant 1.414060e+00 : bf16
//  CHECK-NEXT:     arith.divf %{{.+}}, %[[B]] : bf16
//       CHECK:     %[[H:.+]] = arith.constant 1.414060e+00 : f16
//  CHECK-NEXT:     arith.divf %{{.+}}, %[[H]] : f16
//       CHECK:     %[[F:.+]] = arith.constant 1.41421354 : f32
//  CHECK-NEXT:     arith.divf %[[ACC]], %[[F]] : f32
//  CHECK-NEXT:     math.sqrt %[[ACC]] : f32
func.func @sqrt_of_constants(%x: tensor<8x4xf32>, %w: tensor<2x4xf32>) -> tensor<8x2xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %two_b = arith.constant 2.0 : bf16
    %two_h = arith.constant 2.0 : f16
    %two_f = arith.constant 2.0 : f32
    %xb = arith.truncf %acc : f32 to bf16
    // expected-remark @+1 {{folded sqrt(2) to 1.41406 (computed once, not per element)}}
    %sb = math.sqrt %two_b : bf16
    %db = arith.divf %xb, %sb : bf16
    %xh = arith.truncf %acc : f32 to f16
    // expected-remark @+1 {{folded sqrt(2) to 1.41406 (computed once, not per element)}}
    %sh = math.sqrt %two_h : f16
    %dh = arith.divf %xh, %sh : f16
    // expected-remark @+1 {{folded sqrt(2) to 1.41421 (computed once, not per element)}}
    %sf = math.sqrt %two_f : f32
    %df = arith.divf %acc, %sf : f32
    %r = math.sqrt %acc : f32
    %eb = arith.extf %db : bf16 to f32
    %eh = arith.extf %dh : f16 to f32
    %s1 = arith.addf %eb, %eh : f32
    %s2 = arith.addf %s1, %df : f32
    %s3 = arith.addf %s2, %r : f32
    xpu.yield %s3 : f32
  } : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}
