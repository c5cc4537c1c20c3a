// xpu-optimize on the models of test/Integration/Differential/catalog-passes.mlir
// (where the same pipeline is checked by execution).
// BatchNorm folding reassociates f32 arithmetic: it happens with
// reassociate=true only (the CHECK and BF16 runs); by default the BatchNorm
// stays in the epilogue (DEFAULT).
// RUN: xpu-opt %S/../Integration/Differential/catalog-passes.mlir --xpu-optimize=reassociate=true | FileCheck %s
// RUN: xpu-opt %S/../Integration/Differential/catalog-passes.mlir --xpu-optimize="precision=bf16 reassociate=true" | FileCheck %s --check-prefix=BF16
// RUN: xpu-opt %S/../Integration/Differential/catalog-passes.mlir --xpu-optimize --xpu-remarks --mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: xpu-opt %S/../Integration/Differential/catalog-passes.mlir --xpu-optimize | FileCheck %s --check-prefix=DEFAULT

// DEFAULT-LABEL: func.func @gemm_scale_batchnorm(
//       DEFAULT:   xpu.gemm
//       DEFAULT:     arith.mulf
//       DEFAULT:     math.rsqrt
//       DEFAULT:     xpu.yield
// REMARK: remark: [Missed] NotFolded | Category:xpu-fold-affine-into-weights | Reason="folding {{[0-9]+}} affine epilogue op(s) into the weights reassociates f32 arithmetic

// Linear + BatchNorm + GELU + ReLU: the public function keeps its signature
// and calls the pack and packed parts; BatchNorm is folded into the weights
// at pack time and the packed part is one GEMM whose epilogue is the bias,
// GELU and ReLU.
// CHECK-LABEL: func.func @linear_bn_gelu_relu(
//  CHECK-SAME:     tensor<16x64xf32>, {{.*}}) -> tensor<16x32xf32>
//       CHECK:   %[[P:.+]]:2 = call @linear_bn_gelu_relu.pack(
//       CHECK:   %[[R:.+]] = call @linear_bn_gelu_relu.packed(%{{.+}}, %[[P]]#0, %[[P]]#1)
//       CHECK:   return %[[R]]
// CHECK-LABEL: func.func @linear_bn_gelu_relu.pack(
//       CHECK:   cf.assert
// CHECK-LABEL: func.func @linear_bn_gelu_relu.packed(
//  CHECK-SAME:     %[[X:[a-z0-9]+]]: tensor<16x64xf32>, %[[W:[a-z0-9]+]]: tensor<32x64xf32>, %[[B:[a-z0-9]+]]: tensor<32xf32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   %[[G:.+]] = xpu.gemm %[[X]], %[[W]] rhs_layout(nk) acc(f32) epilogue(%[[B]] per_col : tensor<32xf32>) {
//       CHECK:     %[[Y:.+]] = arith.addf %{{.+}}, %{{.+}} : f32
//       CHECK:     math.erf
//       CHECK:     arith.cmpf ugt
//       CHECK:     arith.select
//       CHECK:     xpu.yield
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[G]]

// KernelBench 39 (scale, then BatchNorm in the rsqrt / expand_shape form):
// the packed part is one GEMM whose epilogue is only the bias add.
// CHECK-LABEL: func.func @gemm_scale_batchnorm.packed(
//  CHECK-SAME:     %[[X:[a-z0-9]+]]: tensor<24x48xf32>, %[[W:[a-z0-9]+]]: tensor<40x48xf32>, %[[B:[a-z0-9]+]]: tensor<40xf32>)
//  CHECK-NEXT:   %[[G:.+]] = xpu.gemm %[[X]], %[[W]] rhs_layout(nk) acc(f32) epilogue(%[[B]] per_col : tensor<40xf32>) {
//  CHECK-NEXT:   ^bb0(%[[ACC:.+]]: f32, %[[V:.+]]: f32):
//  CHECK-NEXT:     %[[S:.+]] = arith.addf %[[ACC]], %[[V]] : f32
//  CHECK-NEXT:     xpu.yield %[[S]] : f32
//  CHECK-NEXT:   } : (tensor<24x48xf32>, tensor<40x48xf32>) -> tensor<24x40xf32>
//  CHECK-NEXT:   return %[[G]]

// The heavy chain needs more than pvc's 128 GRFs (default target): the
// register guard takes the Xe backend's 256-GRF mode before it splits, and
// the whole chain fuses.
// CHECK-LABEL: func.func @heavy_chain(
//       CHECK:   %[[G:.+]] = xpu.gemm
//       CHECK:     arith.addf
//       CHECK:     math.tanh
//       CHECK:     math.exp
//       CHECK:     xpu.yield
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[G]]
// REMARK: remark: [Passed] Fused | Category:xpu-fuse-epilogue | Reason="fused arith.addf, math.tanh, math.exp, arith.mulf, arith.mulf, arith.addf into the xpu.gemm epilogue: estimated 176 registers per thread <= 256 on pvc with the larger register file

// f64 is computed in f32 and converted back.
// CHECK-LABEL: func.func @linear_f64(
// CHECK-LABEL: func.func @linear_f64.packed(
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32)
//       CHECK:   arith.extf %{{.+}} : f32 to f64

// precision=bf16: the weight is converted at pack time, the activation once
// before the GEMM; the accumulator and the bias stay f32.
// BF16-LABEL: func.func @linear_bn_gelu_relu.pack(
//       BF16:   arith.truncf %{{.+}} : f32 to bf16
//       BF16:   return %{{.+}}, %{{.+}} : tensor<32x64xbf16>, tensor<32xf32>
// BF16-LABEL: func.func @linear_bn_gelu_relu.packed(
//  BF16-SAME:     %{{.+}}: tensor<16x64xf32>, %[[W:[a-z0-9]+]]: tensor<32x64xbf16>, %{{.+}}: tensor<32xf32>)
//       BF16:   arith.truncf %{{.+}} : f32 to bf16
//       BF16:   xpu.gemm %{{.+}}, %[[W]] rhs_layout(nk) acc(f32) epilogue(%{{.+}} per_col : tensor<32xf32>)
