// Every fold reassociates f32 arithmetic: the cases below run with
// reassociate=true; the DEFAULT runs check that without it only ops marked
// fastmath<reassoc> fold, and that the others say why they stay.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-fold-affine-into-weights{reassociate=true}))' | FileCheck %s
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-fold-affine-into-weights{reassociate=true}))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-fold-affine-into-weights))' | FileCheck %s --check-prefix=DEFAULT
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-fold-affine-into-weights))' --xpu-remarks --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=DEFAULT-REMARK

// KernelBench 39 after fusion: bn(scale * (x W^T + b)) with the decomposed
// BatchNorm's precomputed inv_std operand. S = s * inv_std * gamma scales
// the rows of W ([n, k]); T = (b * s - mean) * inv_std * gamma + beta is the
// new bias.
// CHECK-DAG: #[[$ID1:.+]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$ID2:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @linear_scale_bn_folds
// Without reassociate=true, the same epilogue stays as it is.
// DEFAULT-LABEL: func.func @linear_scale_bn_folds
//   DEFAULT-NOT:   linalg.generic
//       DEFAULT:   xpu.gemm
//       DEFAULT:     arith.mulf
// DEFAULT-REMARK: remark: [Missed] NotFolded | Category:xpu-fold-affine-into-weights | Reason="folding 6 affine epilogue op(s) into the weights reassociates f32 arithmetic ((x W^T + b) * s + t becomes x (W * s)^T + (b * s + t), rounded differently) and arith.addf has no fastmath<reassoc>; pass reassociate=true (xpu-optimize{reassociate=true}) to allow it"
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<16x64xf32>, %[[W:[a-z0-9]+]]: tensor<32x64xf32>, %[[B:[a-z0-9]+]]: tensor<32xf32>, %[[S:[a-z0-9]+]]: tensor<32xf32>, %[[MEAN:[a-z0-9]+]]: tensor<32xf32>, %[[INV:[a-z0-9]+]]: tensor<32xf32>, %[[G:[a-z0-9]+]]: tensor<32xf32>, %[[BETA:[a-z0-9]+]]: tensor<32xf32>
//       CHECK:   %[[SCALE:.+]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]} ins(%[[S]], %[[INV]], %[[G]] : {{.*}}) outs(%{{.+}} : tensor<32xf32>)
//  CHECK-NEXT:   ^bb0(%[[s:.+]]: f32, %[[i:.+]]: f32, %[[g:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[P:.+]] = arith.mulf %[[s]], %[[i]] : f32
//  CHECK-NEXT:     %[[Q:.+]] = arith.mulf %[[P]], %[[g]] : f32
//  CHECK-NEXT:     linalg.yield %[[Q]] : f32
//       CHECK:   %[[W2:.+]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[W]], %[[SCALE]] : tensor<32x64xf32>, tensor<32xf32>) outs(%{{.+}} : tensor<32x64xf32>)
//  CHECK-NEXT:   ^bb0(%[[w:.+]]: f32, %[[f:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[M:.+]] = arith.mulf %[[w]], %[[f]] : f32
//  CHECK-NEXT:     linalg.yield %[[M]] : f32
//       CHECK:   %[[SHIFT:.+]] = linalg.generic {{.*}} ins(%[[B]], %[[S]], %[[MEAN]], %[[INV]], %[[G]], %[[BETA]] : {{.*}}) outs(%{{.+}} : tensor<32xf32>)
//  CHECK-NEXT:   ^bb0(%[[b:.+]]: f32, %[[s:.+]]: f32, %[[m:.+]]: f32, %[[i:.+]]: f32, %[[g:.+]]: f32, %[[bt:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[T0:.+]] = arith.mulf %[[b]], %[[s]] : f32
//  CHECK-NEXT:     %[[T1:.+]] = arith.subf %[[T0]], %[[m]] : f32
//  CHECK-NEXT:     %[[T2:.+]] = arith.mulf %[[T1]], %[[i]] : f32
//  CHECK-NEXT:     %[[T3:.+]] = arith.mulf %[[T2]], %[[g]] : f32
//  CHECK-NEXT:     %[[T4:.+]] = arith.addf %[[T3]], %[[bt]] : f32
//  CHECK-NEXT:     linalg.yield %[[T4]] : f32
//       CHECK:   %[[R:.+]] = xpu.gemm %[[X]], %[[W2]] rhs_layout(nk) acc(f32) epilogue(%[[SHIFT]] per_col : tensor<32xf32>) {
//  CHECK-NEXT:   ^bb0(%[[A:.+]]: f32, %[[T:.+]]: f32):
//  CHECK-NEXT:     %[[Y:.+]] = arith.addf %[[A]], %[[T]] : f32
//  CHECK-NEXT:     xpu.yield %[[Y]] : f32
//  CHECK-NEXT:   } : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
//  CHECK-NEXT:   return %[[R]]
func.func @linear_scale_bn_folds(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>,
    %s: tensor<32xf32>, %mean: tensor<32xf32>, %invstd: tensor<32xf32>,
    %gamma: tensor<32xf32>, %beta: tensor<32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+1 {{folded 6 affine epilogue op(s) into the weights: the rhs rows (nk) are scaled per output channel (32 channels) and the epilogue adds one per_col shift}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
      epilogue(%b per_col : tensor<32xf32>, %s per_col : tensor<32xf32>, %mean per_col : tensor<32xf32>,
               %invstd per_col : tensor<32xf32>, %gamma per_col : tensor<32xf32>, %beta per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %vb: f32, %vs: f32, %vm: f32, %vi: f32, %vg: f32, %vbt: f32):
    %0 = arith.addf %acc, %vb : f32
    %1 = arith.mulf %0, %vs : f32
    %2 = arith.subf %1, %vm : f32
    %3 = arith.mulf %2, %vi : f32
    %4 = arith.mulf %3, %vg : f32
    %5 = arith.addf %4, %vbt : f32
    xpu.yield %5 : f32
  } : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

// The expand_shape [1, C] BatchNorm form after fusion: rsqrt(var + eps) is
// computed in the epilogue and moves into S and T; the ReLU after the affine
// part stays. The config is kept.
// CHECK-LABEL: func.func @bn_rsqrt_relu_folds
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<16x64xf32>, %[[W:[a-z0-9]+]]: tensor<32x64xf32>, %[[MEAN:[a-z0-9]+]]: tensor<32xf32>, %[[VAR:[a-z0-9]+]]: tensor<32xf32>, %[[G:[a-z0-9]+]]: tensor<32xf32>, %[[BETA:[a-z0-9]+]]: tensor<32xf32>
//       CHECK:   %[[SCALE:.+]] = linalg.generic {{.*}} ins(%[[VAR]], %[[G]] : {{.*}})
//  CHECK-NEXT:   ^bb0(%[[v:.+]]: f32, %[[g:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
//  CHECK-NEXT:     %[[VE:.+]] = arith.addf %[[v]], %[[EPS]] : f32
//  CHECK-NEXT:     %[[RS:.+]] = math.rsqrt %[[VE]] : f32
//  CHECK-NEXT:     %[[SC:.+]] = arith.mulf %[[RS]], %[[g]] : f32
//  CHECK-NEXT:     linalg.yield %[[SC]] : f32
//       CHECK:   %[[W2:.+]] = linalg.generic {{.*}} ins(%[[W]], %[[SCALE]] : tensor<32x64xf32>, tensor<32xf32>)
//       CHECK:   %[[SHIFT:.+]] = linalg.generic {{.*}} ins(%[[MEAN]], %[[VAR]], %[[G]], %[[BETA]] : {{.*}})
//  CHECK-NEXT:   ^bb0(%[[m:.+]]: f32, %[[v:.+]]: f32, %[[g:.+]]: f32, %[[bt:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[EPS:.+]] = arith.constant 9.99999974E-6 : f32
//  CHECK-NEXT:     %[[VE:.+]] = arith.addf %[[v]], %[[EPS]] : f32
//  CHECK-NEXT:     %[[RS:.+]] = math.rsqrt %[[VE]] : f32
//  CHECK-NEXT:     %[[T0:.+]] = arith.mulf %[[m]], %[[RS]] : f32
//  CHECK-NEXT:     %[[T1:.+]] = arith.mulf %[[T0]], %[[g]] : f32
//  CHECK-NEXT:     %[[T2:.+]] = arith.subf %[[bt]], %[[T1]] : f32
//  CHECK-NEXT:     linalg.yield %[[T2]] : f32
//       CHECK:   xpu.gemm %[[X]], %[[W2]] rhs_layout(nk) acc(f32) epilogue(%[[SHIFT]] per_col : tensor<32xf32>) {
//  CHECK-NEXT:   ^bb0(%[[A:.+]]: f32, %[[T:.+]]: f32):
//  CHECK-NEXT:     %[[Y:.+]] = arith.addf %[[A]], %[[T]] : f32
//  CHECK-NEXT:     %[[Z:.+]] = arith.constant 0.000000e+00 : f32
//  CHECK-NEXT:     %[[RELU:.+]] = arith.maximumf %[[Y]], %[[Z]] : f32
//  CHECK-NEXT:     xpu.yield %[[RELU]] : f32
//  CHECK-NEXT:   } {config = #xpu.config<tile = [16, 32, 32], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>}
func.func @bn_rsqrt_relu_folds(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>,
    %mean: tensor<32xf32>, %var: tensor<32xf32>, %gamma: tensor<32xf32>, %beta: tensor<32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+1 {{folded 4 affine epilogue op(s) into the weights: the rhs rows (nk) are scaled per output channel (32 channels) and the epilogue adds one per_col shift; 1 op(s) stay in the epilogue, from arith.maximumf}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
      epilogue(%mean per_col : tensor<32xf32>, %var per_col : tensor<32xf32>, %gamma per_col : tensor<32xf32>, %beta per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %m: f32, %v: f32, %g: f32, %bt: f32):
    %eps = arith.constant 1.000000e-05 : f32
    %zero = arith.constant 0.000000e+00 : f32
    %0 = arith.subf %acc, %m : f32
    %1 = arith.addf %v, %eps : f32
    %2 = math.rsqrt %1 : f32
    %3 = arith.mulf %0, %2 : f32
    %4 = arith.mulf %3, %g : f32
    %5 = arith.addf %4, %bt : f32
    %6 = arith.maximumf %5, %zero : f32
    xpu.yield %6 : f32
  } {config = #xpu.config<tile = [16, 32, 32], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>}
    : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

// (acc + b - mean) * gamma / sqrt(var + eps) + beta, then GELU (erf form):
// the division by a factor folds; eps is a constant captured from outside
// the epilogue and is cloned next to the factors.
// CHECK-LABEL: func.func @bn_div_sqrt_gelu_folds
//       CHECK:   %[[SCALE:.+]] = linalg.generic
//       CHECK:     arith.constant 9.99999974E-6 : f32
//       CHECK:     math.sqrt
//       CHECK:     %[[D:.+]] = arith.divf
//       CHECK:     linalg.yield %[[D]] : f32
//       CHECK:   %[[W2:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[SCALE]] : tensor<4x16xf32>, tensor<4xf32>)
//       CHECK:   %[[SHIFT:.+]] = linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %[[W2]] rhs_layout(nk) acc(f32) epilogue(%[[SHIFT]] per_col : tensor<4xf32>) {
//  CHECK-NEXT:   ^bb0(%[[A:.+]]: f32, %[[T:.+]]: f32):
//  CHECK-NEXT:     %[[Y:.+]] = arith.addf %[[A]], %[[T]] : f32
//  CHECK-NEXT:     %[[E:.+]] = math.erf %[[Y]] : f32
//  CHECK-NEXT:     %[[R:.+]] = arith.mulf %[[Y]], %[[E]] : f32
//  CHECK-NEXT:     xpu.yield %[[R]] : f32
func.func @bn_div_sqrt_gelu_folds(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %b: tensor<4xf32>,
    %mean: tensor<4xf32>, %var: tensor<4xf32>, %gamma: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<8x4xf32> {
  %eps = arith.constant 1.000000e-05 : f32
  // expected-remark @+1 {{folded 5 affine epilogue op(s) into the weights: the rhs rows (nk) are scaled per output channel (4 channels) and the epilogue adds one per_col shift; 2 op(s) stay in the epilogue, from math.erf}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
      epilogue(%b per_col : tensor<4xf32>, %mean per_col : tensor<4xf32>, %var per_col : tensor<4xf32>, %gamma per_col : tensor<4xf32>, %beta per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vb: f32, %m: f32, %v: f32, %g: f32, %bt: f32):
    %0 = arith.addf %acc, %vb : f32
    %1 = arith.subf %0, %m : f32
    %2 = arith.mulf %1, %g : f32
    %3 = arith.addf %v, %eps : f32
    %4 = math.sqrt %3 : f32
    %5 = arith.divf %2, %4 : f32
    %6 = arith.addf %5, %bt : f32
    %7 = math.erf %6 : f32
    %8 = arith.mulf %6, %7 : f32
    xpu.yield %8 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A 0-d scale on [k, n] weights is read as it is by the generic that
// scales the weight; the per_col shift read as it is becomes the bias
// operand without a copy.
// CHECK-DAG: #[[$ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$SCAL:.+]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @kn_scalar_scale_folds
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<16x64xf32>, %[[W:[a-z0-9]+]]: tensor<64x32xf32>, %[[S:[a-z0-9]+]]: tensor<f32>, %[[T:[a-z0-9]+]]: tensor<32xf32>
//       CHECK:   %[[W2:.+]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$SCAL]], #[[$ID]]], {{.*}} ins(%[[W]], %[[S]] : tensor<64x32xf32>, tensor<f32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %[[X]], %[[W2]] rhs_layout(kn) acc(f32) epilogue(%[[T]] per_col : tensor<32xf32>) {
//  CHECK-NEXT:   ^bb0(%[[A:.+]]: f32, %[[B:.+]]: f32):
//  CHECK-NEXT:     %[[Y:.+]] = arith.addf %[[A]], %[[B]] : f32
//  CHECK-NEXT:     xpu.yield %[[Y]] : f32
func.func @kn_scalar_scale_folds(%x: tensor<16x64xf32>, %w: tensor<64x32xf32>, %s: tensor<f32>, %t: tensor<32xf32>) -> tensor<16x32xf32> {
  // expected-remark @+1 {{folded 2 affine epilogue op(s) into the weights: the rhs columns (kn) are scaled by one scalar and the epilogue adds one per_col shift}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32)
      epilogue(%s scalar : tensor<f32>, %t per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %vs: f32, %vt: f32):
    %0 = arith.mulf %vs, %acc : f32
    %1 = arith.addf %vt, %0 : f32
    xpu.yield %1 : f32
  } : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %y : tensor<16x32xf32>
}

// -----

// (acc + t) * s with 0-d t and s: the shift t * s is computed once by a
// 0-d generic and stays a scalar epilogue operand.
// CHECK-LABEL: func.func @scalar_shift_folds
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[W:[a-z0-9]+]]: tensor<4x16xf32>, %[[S:[a-z0-9]+]]: tensor<f32>, %[[T:[a-z0-9]+]]: tensor<f32>
//       CHECK:   %[[W2:.+]] = linalg.generic {{.*}} ins(%[[W]], %[[S]] : tensor<4x16xf32>, tensor<f32>)
//       CHECK:   %[[E:.+]] = tensor.empty() : tensor<f32>
//       CHECK:   %[[SHIFT:.+]] = linalg.generic {indexing_maps = [#[[$M0:.+]], #[[$M0]], #[[$M0]]], iterator_types = []} ins(%[[S]], %[[T]] : tensor<f32>, tensor<f32>) outs(%[[E]] : tensor<f32>)
//  CHECK-NEXT:   ^bb0(%[[s:.+]]: f32, %[[t:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[P:.+]] = arith.mulf %[[t]], %[[s]] : f32
//  CHECK-NEXT:     linalg.yield %[[P]] : f32
//       CHECK:   xpu.gemm %[[X]], %[[W2]] rhs_layout(nk) acc(f32) epilogue(%[[SHIFT]] scalar : tensor<f32>)
func.func @scalar_shift_folds(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %s: tensor<f32>, %t: tensor<f32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{folded 2 affine epilogue op(s) into the weights: the rhs rows (nk) are scaled by one scalar and the epilogue adds one scalar shift}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%s scalar : tensor<f32>, %t scalar : tensor<f32>) {
  ^bb0(%acc: f32, %vs: f32, %vt: f32):
    %0 = arith.addf %acc, %vt : f32
    %1 = arith.mulf %0, %vs : f32
    xpu.yield %1 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A plain per-channel scale: the weights take it and the epilogue becomes
// the identity.
// CHECK-LABEL: func.func @per_channel_scale_folds
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[W:[a-z0-9]+]]: tensor<4x16xf32>, %[[S:[a-z0-9]+]]: tensor<4xf32>
//       CHECK:   %[[W2:.+]] = linalg.generic {{.*}} ins(%[[W]], %[[S]] : tensor<4x16xf32>, tensor<4xf32>)
//       CHECK:   %[[R:.+]] = xpu.gemm %[[X]], %[[W2]] rhs_layout(nk) acc(f32) : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
//  CHECK-NEXT:   return %[[R]]
func.func @per_channel_scale_folds(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %s: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{folded 1 affine epilogue op(s) into the weights: the rhs rows (nk) are scaled per output channel (4 channels), no shift remains}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%s per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vs: f32):
    %0 = arith.mulf %acc, %vs : f32
    xpu.yield %0 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// bf16 weights with f32 accumulation: the scaled weight is computed in f32
// and stored back in bf16; the f16 scale operand is extended in the factor
// computation. Negation and subtraction from a factor fold too:
// t - (-acc * s) = acc * s + t.
// CHECK-LABEL: func.func @bf16_weights_neg_sub_folds
//       CHECK:   %[[SCALE:.+]] = linalg.generic {{.*}} ins(%{{.+}} : tensor<4xf16>) outs(%{{.+}} : tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%[[s:.+]]: f16, %{{.+}}: f32):
//  CHECK-NEXT:     %[[E:.+]] = arith.extf %[[s]] : f16 to f32
//  CHECK-NEXT:     linalg.yield %[[E]] : f32
//       CHECK:   %[[W2:.+]] = linalg.generic {{.*}} ins(%{{.+}}, %[[SCALE]] : tensor<4x16xbf16>, tensor<4xf32>) outs(%{{.+}} : tensor<4x16xbf16>)
//  CHECK-NEXT:   ^bb0(%[[w:.+]]: bf16, %[[f:.+]]: f32, %{{.+}}: bf16):
//  CHECK-NEXT:     %[[WE:.+]] = arith.extf %[[w]] : bf16 to f32
//  CHECK-NEXT:     %[[M:.+]] = arith.mulf %[[WE]], %[[f]] : f32
//  CHECK-NEXT:     %[[MT:.+]] = arith.truncf %[[M]] : f32 to bf16
//  CHECK-NEXT:     linalg.yield %[[MT]] : bf16
//       CHECK:   xpu.gemm %{{.+}}, %[[W2]] rhs_layout(nk) acc(f32) epilogue(%{{.+}} per_col : tensor<4xf32>)
func.func @bf16_weights_neg_sub_folds(%x: tensor<8x16xbf16>, %w: tensor<4x16xbf16>, %s: tensor<4xf16>, %t: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{folded 3 affine epilogue op(s)}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%s per_col : tensor<4xf16>, %t per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vs: f16, %vt: f32):
    %se = arith.extf %vs : f16 to f32
    %0 = arith.negf %acc : f32
    %1 = arith.mulf %0, %se : f32
    %2 = arith.subf %vt, %1 : f32
    xpu.yield %2 : f32
  } : (tensor<8x16xbf16>, tensor<4x16xbf16>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// Two bias adds merge into one shift computed from the weights; the
// weights stay as they are.
// CHECK-LABEL: func.func @two_biases_merge
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[W:[a-z0-9]+]]: tensor<4x16xf32>, %[[B1:[a-z0-9]+]]: tensor<4xf32>, %[[B2:[a-z0-9]+]]: tensor<4xf32>
//       CHECK:   %[[SHIFT:.+]] = linalg.generic {{.*}} ins(%[[B1]], %[[B2]] : tensor<4xf32>, tensor<4xf32>)
//  CHECK-NEXT:   ^bb0(%[[a:.+]]: f32, %[[b:.+]]: f32, %{{.+}}: f32):
//  CHECK-NEXT:     %[[S:.+]] = arith.addf %[[a]], %[[b]] : f32
//  CHECK-NEXT:     linalg.yield %[[S]] : f32
//       CHECK:   xpu.gemm %[[X]], %[[W]] rhs_layout(nk) acc(f32) epilogue(%[[SHIFT]] per_col : tensor<4xf32>)
func.func @two_biases_merge(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %b1: tensor<4xf32>, %b2: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{merged 2 affine epilogue op(s) into one per_col shift computed from the weights}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b1 per_col : tensor<4xf32>, %b2 per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %v1: f32, %v2: f32):
    %0 = arith.addf %acc, %v1 : f32
    %1 = arith.addf %0, %v2 : f32
    xpu.yield %1 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// Operands the non-linear part reads stay epilogue operands (the residual
// after the ReLU); the ones only the affine part read go.
// CHECK-LABEL: func.func @residual_after_relu_kept
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[W:[a-z0-9]+]]: tensor<4x16xf32>, %[[S:[a-z0-9]+]]: tensor<4xf32>, %[[RES:[a-z0-9]+]]: tensor<8x4xf32>
//       CHECK:   %[[W2:.+]] = linalg.generic {{.*}} ins(%[[W]], %[[S]]
//       CHECK:   xpu.gemm %[[X]], %[[W2]] rhs_layout(nk) acc(f32) epilogue(%[[RES]] full : tensor<8x4xf32>) {
//  CHECK-NEXT:   ^bb0(%[[A:.+]]: f32, %[[R:.+]]: f32):
//  CHECK-NEXT:     %[[Z:.+]] = arith.constant 0.000000e+00 : f32
//  CHECK-NEXT:     %[[M:.+]] = arith.maximumf %[[A]], %[[Z]] : f32
//  CHECK-NEXT:     %[[O:.+]] = arith.addf %[[M]], %[[R]] : f32
//  CHECK-NEXT:     xpu.yield %[[O]] : f32
func.func @residual_after_relu_kept(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %s: tensor<4xf32>, %res: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{folded 1 affine epilogue op(s) into the weights: the rhs rows (nk) are scaled per output channel (4 channels), no shift remains; 2 op(s) stay in the epilogue, from arith.maximumf}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%s per_col : tensor<4xf32>, %res full : tensor<8x4xf32>) {
  ^bb0(%acc: f32, %vs: f32, %vr: f32):
    %z = arith.constant 0.000000e+00 : f32
    %0 = arith.mulf %acc, %vs : f32
    %1 = arith.maximumf %0, %z : f32
    %2 = arith.addf %1, %vr : f32
    xpu.yield %2 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @identity_epilogue_is_untouched
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
func.func @identity_epilogue_is_untouched(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{identity epilogue: nothing to fold}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A single bias add is already what the fold would produce.
// CHECK-LABEL: func.func @bias_relu_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) epilogue(%{{.+}} per_col : tensor<4xf32>)
func.func @bias_relu_is_untouched(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{the epilogue has no per-channel scale or shift beyond one add: nothing to fold}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vb: f32):
    %z = arith.constant 0.000000e+00 : f32
    %0 = arith.addf %acc, %vb : f32
    %1 = arith.maximumf %0, %z : f32
    xpu.yield %1 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// relu(acc) * s + t: the scale comes after a non-linear op.
// CHECK-LABEL: func.func @relu_before_scale_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm
//       CHECK:     arith.maximumf
//       CHECK:     arith.mulf
//       CHECK:     arith.addf
func.func @relu_before_scale_is_untouched(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %s: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{arith.maximumf is not linear in the accumulator and comes before the affine arith.mulf; only an affine prefix of the epilogue folds into the weights}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%s per_col : tensor<4xf32>, %t per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vs: f32, %vt: f32):
    %z = arith.constant 0.000000e+00 : f32
    %0 = arith.maximumf %acc, %z : f32
    %1 = arith.mulf %0, %vs : f32
    %2 = arith.addf %1, %vt : f32
    xpu.yield %2 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A per-row scale varies along m: it cannot go into the weights.
// CHECK-LABEL: func.func @per_row_scale_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_row : tensor<8xf32>)
func.func @per_row_scale_is_untouched(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %r: tensor<8xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{the scale reads epilogue operand #0, which is per_row (it varies along m); only per_col and scalar factors fold into the weights}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%r per_row : tensor<8xf32>) {
  ^bb0(%acc: f32, %vr: f32):
    %0 = arith.mulf %acc, %vr : f32
    xpu.yield %0 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A residual added inside the affine part is a full (m-dependent) shift.
// CHECK-LABEL: func.func @full_shift_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_col : tensor<4xf32>, %{{.+}} full : tensor<8x4xf32>)
func.func @full_shift_is_untouched(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %s: tensor<4xf32>, %res: tensor<8x4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{the shift reads epilogue operand #1, which is full (it varies along m)}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%s per_col : tensor<4xf32>, %res full : tensor<8x4xf32>) {
  ^bb0(%acc: f32, %vs: f32, %vr: f32):
    %0 = arith.mulf %acc, %vs : f32
    %1 = arith.addf %0, %vr : f32
    xpu.yield %1 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// Training-mode BatchNorm: the mean is reduced over the batch from the GEMM
// result (here a first GEMM on the same input).
// CHECK-LABEL: func.func @batch_statistics_are_untouched
//       CHECK:   xpu.gemm
//       CHECK:   linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) epilogue(%{{.+}} per_col : tensor<4xf32>, %{{.+}} per_col : tensor<4xf32>)
func.func @batch_statistics_are_untouched(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %g: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{identity epilogue: nothing to fold}}
  %mm = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  %z = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %mean = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%mm : tensor<8x4xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  // expected-remark @+1 {{the shift reads epilogue operand #0, a statistic that linalg.generic reduces from the GEMM input (batch statistics, BatchNorm in training mode); only inference-mode factors fold}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%mean per_col : tensor<4xf32>, %g per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vm: f32, %vg: f32):
    %0 = arith.subf %acc, %vm : f32
    %1 = arith.mulf %0, %vg : f32
    xpu.yield %1 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A scale sliced out of the input: not a weight.
// CHECK-LABEL: func.func @input_dependent_scale_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_col : tensor<16xf32>)
func.func @input_dependent_scale_is_untouched(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %row = tensor.extract_slice %x[0, 0] [1, 16] [1, 1] : tensor<8x16xf32> to tensor<16xf32>
  // expected-remark @+1 {{the scale reads epilogue operand #0, which depends on the GEMM input (lhs); only factors computed from weights and constants fold}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%row per_col : tensor<16xf32>) {
  ^bb0(%acc: f32, %vs: f32):
    %0 = arith.mulf %acc, %vs : f32
    xpu.yield %0 : f32
  } : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// A shift carried by a loop may be anything (here: recomputed each
// iteration from the previous output), so it is not provably a weight.
// CHECK-LABEL: func.func @loop_carried_shift_is_untouched
//   CHECK-NOT:   linalg.generic {{.*}}iterator_types = ["parallel"]}
//       CHECK:   xpu.gemm {{.*}} epilogue(%{{.+}} per_col : tensor<4xf32>, %{{.+}} per_col : tensor<4xf32>)
func.func @loop_carried_shift_is_untouched(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %g: tensor<4xf32>, %m0: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%m = %m0) -> tensor<4xf32> {
    // expected-remark @+1 {{the shift reads epilogue operand #0, which depends on an argument of an enclosing region (a loop-carried value); only factors computed from weights and constants fold}}
    %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%m per_col : tensor<4xf32>, %g per_col : tensor<4xf32>) {
    ^bb0(%acc: f32, %vm: f32, %vg: f32):
      %0 = arith.subf %acc, %vm : f32
      %1 = arith.mulf %0, %vg : f32
      xpu.yield %1 : f32
    } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
    %next = tensor.extract_slice %y[0, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// x x^T: the rhs is the input itself.
// CHECK-LABEL: func.func @activation_rhs_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %[[X:.+]], %[[X]] rhs_layout(nk)
func.func @activation_rhs_is_untouched(%x: tensor<8x16xf32>, %s: tensor<8xf32>) -> tensor<8x8xf32> {
  // expected-remark @+1 {{the rhs depends on the GEMM input (lhs); it is not a weight}}
  %y = xpu.gemm %x, %x rhs_layout(nk) acc(f32) epilogue(%s per_col : tensor<8xf32>) {
  ^bb0(%acc: f32, %vs: f32):
    %0 = arith.mulf %acc, %vs : f32
    xpu.yield %0 : f32
  } : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x8xf32>
  return %y : tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func.func @batched_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm
func.func @batched_is_untouched(%a: tensor<2x8x16xf32>, %b: tensor<2x16x4xf32>, %s: tensor<4xf32>) -> tensor<2x8x4xf32> {
  // expected-remark @+1 {{batched GEMM: the rhs tensor<2x16x4xf32> has one matrix per batch, not one weight matrix to scale per output channel}}
  %y = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%s per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vs: f32):
    %0 = arith.mulf %acc, %vs : f32
    xpu.yield %0 : f32
  } : (tensor<2x8x16xf32>, tensor<2x16x4xf32>) -> tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}

// -----

// max(acc * s, acc * s + t): the folded part ends at acc * s, which both
// operands of the max read; the shift after it stays in the epilogue.
// CHECK-LABEL: func.func @shared_affine_value_cut
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[W:[a-z0-9]+]]: tensor<4x16xf32>, %[[S:[a-z0-9]+]]: tensor<4xf32>, %[[T:[a-z0-9]+]]: tensor<4xf32>
//       CHECK:   %[[W2:.+]] = linalg.generic {{.*}} ins(%[[W]], %[[S]]
//       CHECK:   xpu.gemm %[[X]], %[[W2]] rhs_layout(nk) acc(f32) epilogue(%[[T]] per_col : tensor<4xf32>) {
//  CHECK-NEXT:   ^bb0(%[[A:.+]]: f32, %[[t:.+]]: f32):
//  CHECK-NEXT:     %[[Y:.+]] = arith.addf %[[A]], %[[t]] : f32
//  CHECK-NEXT:     %[[M:.+]] = arith.maximumf %[[A]], %[[Y]] : f32
//  CHECK-NEXT:     xpu.yield %[[M]] : f32
func.func @shared_affine_value_cut(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %s: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{folded 1 affine epilogue op(s) into the weights: the rhs rows (nk) are scaled per output channel (4 channels), no shift remains; 2 op(s) stay in the epilogue, from arith.addf}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%s per_col : tensor<4xf32>, %t per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vs: f32, %vt: f32):
    %0 = arith.mulf %acc, %vs : f32
    %1 = arith.addf %0, %vt : f32
    %2 = arith.maximumf %0, %1 : f32
    xpu.yield %2 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// BatchNorm then GELU (tanh form): GELU reads y, 0.5 * y and y^3, so the
// folded part ends at y = bn(acc) and 0.5 * y stays.
// CHECK-LABEL: func.func @bn_gelu_tanh_cut
//       CHECK:   %[[W2:.+]] = linalg.generic
//       CHECK:   %[[SHIFT:.+]] = linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %[[W2]] rhs_layout(nk) acc(f32) epilogue(%[[SHIFT]] per_col : tensor<4xf32>) {
//  CHECK-NEXT:   ^bb0(%[[A:.+]]: f32, %[[T:.+]]: f32):
//  CHECK-NEXT:     %[[Y:.+]] = arith.addf %[[A]], %[[T]] : f32
//  CHECK-NEXT:     %[[H:.+]] = arith.constant 5.000000e-01 : f32
//       CHECK:     %[[HALF:.+]] = arith.mulf %[[Y]], %[[H]] : f32
//  CHECK-NEXT:     %[[Y2:.+]] = arith.mulf %[[Y]], %[[Y]] : f32
//       CHECK:     math.tanh
//       CHECK:     arith.mulf %[[HALF]]
func.func @bn_gelu_tanh_cut(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %mean: tensor<4xf32>, %inv: tensor<4xf32>, %beta: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{folded 3 affine epilogue op(s) into the weights: the rhs rows (nk) are scaled per output channel (4 channels) and the epilogue adds one per_col shift; 9 op(s) stay in the epilogue, from arith.mulf}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%mean per_col : tensor<4xf32>, %inv per_col : tensor<4xf32>, %beta per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %m: f32, %i: f32, %b: f32):
    %half = arith.constant 5.000000e-01 : f32
    %one = arith.constant 1.000000e+00 : f32
    %c = arith.constant 4.471500e-02 : f32
    %k = arith.constant 0.797884583 : f32
    %0 = arith.subf %acc, %m : f32
    %1 = arith.mulf %0, %i : f32
    %2 = arith.addf %1, %b : f32
    %3 = arith.mulf %2, %half : f32
    %4 = arith.mulf %2, %2 : f32
    %5 = arith.mulf %4, %2 : f32
    %6 = arith.mulf %5, %c : f32
    %7 = arith.addf %2, %6 : f32
    %8 = arith.mulf %7, %k : f32
    %9 = math.tanh %8 : f32
    %10 = arith.addf %9, %one : f32
    %11 = arith.mulf %3, %10 : f32
    xpu.yield %11 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @accumulator_unused_is_untouched
//       CHECK:   xpu.gemm
func.func @accumulator_unused_is_untouched(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %t: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{the epilogue does not use the accumulator}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%t per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vt: f32):
    xpu.yield %vt : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// A scale read from outside the epilogue that is not a constant.
// CHECK-LABEL: func.func @captured_scale_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm
func.func @captured_scale_is_untouched(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %s: f32) -> tensor<8x4xf32> {
  // expected-remark @+1 {{the scale reads a value defined outside the epilogue that is not a constant}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %0 = arith.mulf %acc, %s : f32
    xpu.yield %0 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// Ops that allow reassociation (fastmath<reassoc>, or fast) fold without the
// option.
// CHECK-LABEL: func.func @fastmath_reassoc_folds
// DEFAULT-LABEL: func.func @fastmath_reassoc_folds
//  DEFAULT-SAME:   %[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[W:[a-z0-9]+]]: tensor<4x16xf32>, %[[S:[a-z0-9]+]]: tensor<4xf32>, %[[T:[a-z0-9]+]]: tensor<4xf32>
//       DEFAULT:   %[[W2:.+]] = linalg.generic {{.*}} ins(%[[W]], %[[S]] :
//       DEFAULT:   xpu.gemm %[[X]], %[[W2]] rhs_layout(nk) acc(f32) epilogue(%[[T]] per_col : tensor<4xf32>)
//   DEFAULT-NOT:   arith.mulf
//       DEFAULT:   xpu.yield
// DEFAULT-REMARK: remark: [Passed] Folded | Category:xpu-fold-affine-into-weights | Reason="folded 2 affine epilogue op(s) into the weights: the rhs rows (nk) are scaled per output channel (4 channels) and the epilogue adds one per_col shift"
func.func @fastmath_reassoc_folds(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %s: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{folded 2 affine epilogue op(s) into the weights}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%s per_col : tensor<4xf32>, %t per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vs: f32, %vt: f32):
    %0 = arith.mulf %acc, %vs fastmath<reassoc> : f32
    %1 = arith.addf %0, %vt fastmath<fast> : f32
    xpu.yield %1 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// One affine op without the flag: without the option nothing folds.
// CHECK-LABEL: func.func @partly_reassoc
// DEFAULT-LABEL: func.func @partly_reassoc
//   DEFAULT-NOT:   linalg.generic
//       DEFAULT:   xpu.gemm
//       DEFAULT:     arith.mulf
// DEFAULT-REMARK: remark: [Missed] NotFolded | Category:xpu-fold-affine-into-weights | Reason="folding 2 affine epilogue op(s) into the weights reassociates f32 arithmetic {{.*}} and arith.addf has no fastmath<reassoc>
func.func @partly_reassoc(%x: tensor<8x16xf32>, %w: tensor<4x16xf32>, %s: tensor<4xf32>, %t: tensor<4xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{folded 2 affine epilogue op(s) into the weights}}
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%s per_col : tensor<4xf32>, %t per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vs: f32, %vt: f32):
    %0 = arith.mulf %acc, %vs fastmath<reassoc> : f32
    %1 = arith.addf %0, %vt : f32
    xpu.yield %1 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
