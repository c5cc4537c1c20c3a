// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-prepack-bf16))' | FileCheck %s
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-prepack-bf16{precision=f16}))' | FileCheck %s --check-prefix=F16
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-prepack-bf16{precision=bf16}))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// nn.Linear + bias: x and the weight are truncated to bf16 right after the
// function entry (each conversion reads only its argument, so the weight's
// can move to pack time); the accumulator and the bias stay f32.
// CHECK-LABEL: func.func @linear_bias
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<64x128xf32>, %[[W:[a-z0-9]+]]: tensor<32x128xf32> {xpu.weight}, %[[B:[a-z0-9]+]]: tensor<32xf32>
//       CHECK:   %[[XE:.+]] = tensor.empty() : tensor<64x128xbf16>
//       CHECK:   %[[X16:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<64x128xf32>) outs(%[[XE]] : tensor<64x128xbf16>)
//  CHECK-NEXT:   ^bb0(%[[IN:.+]]: f32, %{{.+}}: bf16):
//  CHECK-NEXT:     %[[T:.+]] = arith.truncf %[[IN]] : f32 to bf16
//  CHECK-NEXT:     linalg.yield %[[T]] : bf16
//       CHECK:   %[[WE:.+]] = tensor.empty() : tensor<32x128xbf16>
//       CHECK:   %[[W16:.+]] = linalg.generic {{.*}} ins(%[[W]] : tensor<32x128xf32>) outs(%[[WE]] : tensor<32x128xbf16>)
//       CHECK:     arith.truncf %{{.+}} : f32 to bf16
//       CHECK:   %[[G:.+]] = xpu.gemm %[[X16]], %[[W16]] rhs_layout(nk) acc(f32) epilogue(%[[B]] per_col : tensor<32xf32>) {
//  CHECK-NEXT:   ^bb0(%{{.+}}: f32, %{{.+}}: f32):
//       CHECK:   } : (tensor<64x128xbf16>, tensor<32x128xbf16>) -> tensor<64x32xf32>
//       CHECK:   return %[[G]] : tensor<64x32xf32>
// F16-LABEL: func.func @linear_bias
//       F16:   linalg.generic {{.*}} outs(%{{.+}} : tensor<64x128xf16>)
//       F16:     arith.truncf %{{.+}} : f32 to f16
//       F16:   linalg.generic {{.*}} outs(%{{.+}} : tensor<32x128xf16>)
//       F16:     arith.truncf %{{.+}} : f32 to f16
//       F16:   xpu.gemm {{.*}} acc(f32) epilogue(%{{.+}} per_col : tensor<32xf32>)
//       F16:   } : (tensor<64x128xf16>, tensor<32x128xf16>) -> tensor<64x32xf32>
func.func @linear_bias(%x: tensor<64x128xf32>, %w: tensor<32x128xf32> {xpu.weight}, %b: tensor<32xf32>) -> tensor<64x32xf32> {
  // expected-remark @+1 {{GEMM 64x32x128 (m x n x k) takes bf16 operands (converted once before it), accumulates in f32, 1 epilogue operand(s) stay in their type}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    xpu.yield %t : f32
  } : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// Two layers: the hidden activation, which only the second GEMM reads, is
// rounded to bf16 by the first GEMM's epilogue (what a conversion after it
// would compute, without a pass over the tensor); the weights are converted
// at the function entry.
// CHECK-LABEL: func.func @two_layers
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[W1:[a-z0-9]+]]: tensor<32x16xf32>, %[[W2:[a-z0-9]+]]: tensor<4x32xf32>
//       CHECK:   %[[X16:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8x16xf32>)
//       CHECK:   %[[W116:.+]] = linalg.generic {{.*}} ins(%[[W1]] : tensor<32x16xf32>)
//       CHECK:   %[[W216:.+]] = linalg.generic {{.*}} ins(%[[W2]] : tensor<4x32xf32>)
//       CHECK:   %[[H:.+]] = xpu.gemm %[[X16]], %[[W116]] rhs_layout(nk) acc(f32)
//       CHECK:     %[[R:.+]] = arith.maximumf
//  CHECK-NEXT:     %[[R16:.+]] = arith.truncf %[[R]] : f32 to bf16
//  CHECK-NEXT:     xpu.yield %[[R16]] : bf16
//  CHECK-NEXT:   } : (tensor<8x16xbf16>, tensor<32x16xbf16>) -> tensor<8x32xbf16>
//   CHECK-NOT:   linalg.generic
//       CHECK:   %[[Y:.+]] = xpu.gemm %[[H]], %[[W216]] rhs_layout(nk) acc(f32) : (tensor<8x32xbf16>, tensor<4x32xbf16>) -> tensor<8x4xf32>
//       CHECK:   return %[[Y]]
func.func @two_layers(%x: tensor<8x16xf32>, %w1: tensor<32x16xf32>, %w2: tensor<4x32xf32>) -> tensor<8x4xf32> {
  // expected-remark @+1 {{GEMM 8x32x16 (m x n x k) takes bf16 operands}}
  %h = xpu.gemm %x, %w1 rhs_layout(nk) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %zero = arith.constant 0.0 : f32
    %r = arith.maximumf %acc, %zero : f32
    xpu.yield %r : f32
  } : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  // expected-remark @+2 {{GEMM 8x4x32: the lhs comes from a GEMM whose epilogue now rounds its result to bf16}}
  // expected-remark @+1 {{GEMM 8x4x32 (m x n x k) takes bf16 operands}}
  %y = xpu.gemm %h, %w2 rhs_layout(nk) acc(f32) : (tensor<8x32xf32>, tensor<4x32xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// The hidden activation is also returned: the first GEMM keeps its f32
// result (the caller reads it) and a conversion feeds the second GEMM.
// CHECK-LABEL: func.func @hidden_returned
//       CHECK:   %[[H:.+]] = xpu.gemm {{.*}} -> tensor<8x32xf32>
//       CHECK:   %[[H16:.+]] = linalg.generic {{.*}} ins(%[[H]] : tensor<8x32xf32>) outs(%{{.+}} : tensor<8x32xbf16>)
//       CHECK:   xpu.gemm %[[H16]], %{{.+}} rhs_layout(nk) acc(f32) : (tensor<8x32xbf16>, tensor<4x32xbf16>) -> tensor<8x4xf32>
func.func @hidden_returned(%x: tensor<8x16xf32>, %w1: tensor<32x16xf32>, %w2: tensor<4x32xf32>) -> (tensor<8x32xf32>, tensor<8x4xf32>) {
  // expected-remark @+1 {{GEMM 8x32x16 (m x n x k) takes bf16 operands}}
  %h = xpu.gemm %x, %w1 rhs_layout(nk) acc(f32) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  // expected-remark @+1 {{GEMM 8x4x32 (m x n x k) takes bf16 operands}}
  %y = xpu.gemm %h, %w2 rhs_layout(nk) acc(f32) : (tensor<8x32xf32>, tensor<4x32xf32>) -> tensor<8x4xf32>
  return %h, %y : tensor<8x32xf32>, tensor<8x4xf32>
}

// -----

// A bf16 model's activation reaches the f32 GEMM widened by an elementwise
// extf (torch-mlir's lowering): the GEMM reads the bf16 tensor itself
// instead of rounding the widened one back (an exact round trip over the
// whole tensor). The weight is f32 and is converted.
// CHECK-LABEL: func.func @widened_bf16
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<8x16xbf16>, %[[W:[a-z0-9]+]]: tensor<32x16xf32>
//       CHECK:   %[[W16:.+]] = linalg.generic {{.*}} ins(%[[W]] : tensor<32x16xf32>)
//       CHECK:   xpu.gemm %[[X]], %[[W16]] rhs_layout(nk) acc(f32) : (tensor<8x16xbf16>, tensor<32x16xbf16>) -> tensor<8x32xf32>
// F16-LABEL: func.func @widened_bf16
//       F16:   linalg.generic {{.*}} outs(%{{.+}} : tensor<8x16xf16>)
//       F16:     arith.truncf %{{.+}} : f32 to f16
func.func @widened_bf16(%x: tensor<8x16xbf16>, %w: tensor<32x16xf32>) -> tensor<8x32xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %xf = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<8x16xbf16>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %v = arith.extf %in : bf16 to f32
    linalg.yield %v : f32
  } -> tensor<8x16xf32>
  // expected-remark @+2 {{GEMM 8x32x16: the lhs is a bf16 tensor widened to f32; the GEMM reads the bf16 tensor}}
  // expected-remark @+1 {{GEMM 8x32x16 (m x n x k) takes bf16 operands}}
  %y = xpu.gemm %xf, %w rhs_layout(nk) acc(f32) : (tensor<8x16xf32>, tensor<32x16xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// Batched, the same tensor as lhs and rhs, and a weight shared by a second
// GEMM: every tensor is converted once.
// CHECK-LABEL: func.func @shared_operands_converted_once
//  CHECK-SAME:   %[[A:[a-z0-9]+]]: tensor<2x8x8xf32>, %[[W:[a-z0-9]+]]: tensor<2x8x8xf32>
//       CHECK:   %[[A16:.+]] = linalg.generic {{.*}} ins(%[[A]] : tensor<2x8x8xf32>)
//       CHECK:   %[[W16:.+]] = linalg.generic {{.*}} ins(%[[W]] : tensor<2x8x8xf32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %[[A16]], %[[A16]] rhs_layout(kn) acc(f32) : (tensor<2x8x8xbf16>, tensor<2x8x8xbf16>) -> tensor<2x8x8xf32>
//       CHECK:   xpu.gemm %[[A16]], %[[W16]] rhs_layout(kn) acc(f32) : (tensor<2x8x8xbf16>, tensor<2x8x8xbf16>) -> tensor<2x8x8xf32>
func.func @shared_operands_converted_once(%a: tensor<2x8x8xf32>, %w: tensor<2x8x8xf32>) -> (tensor<2x8x8xf32>, tensor<2x8x8xf32>) {
  // expected-remark @+1 {{GEMM 2x(8x8x8) (m x n x k) takes bf16 operands}}
  %0 = xpu.gemm %a, %a rhs_layout(kn) acc(f32) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  // expected-remark @+1 {{GEMM 2x(8x8x8) (m x n x k) takes bf16 operands}}
  %1 = xpu.gemm %a, %w rhs_layout(kn) acc(f32) : (tensor<2x8x8xf32>, tensor<2x8x8xf32>) -> tensor<2x8x8xf32>
  return %0, %1 : tensor<2x8x8xf32>, tensor<2x8x8xf32>
}

// -----

// Already 16-bit: left as it is.
// CHECK-LABEL: func.func @bf16_gemm_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) : (tensor<8x4xbf16>, tensor<6x4xbf16>) -> tensor<8x6xf32>
func.func @bf16_gemm_is_untouched(%x: tensor<8x4xbf16>, %w: tensor<6x4xbf16>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{GEMM 8x6x4 operands unchanged: operands are already 16-bit (bf16)}}
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<8x4xbf16>, tensor<6x4xbf16>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// CHECK-LABEL: func.func @f16_gemm_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f32) : (tensor<8x4xf16>, tensor<4x6xf16>) -> tensor<8x6xf32>
func.func @f16_gemm_is_untouched(%x: tensor<8x4xf16>, %w: tensor<4x6xf16>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{GEMM 8x6x4 operands unchanged: operands are already 16-bit (f16)}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f32) : (tensor<8x4xf16>, tensor<4x6xf16>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// f64 operands are xpu-demote-f64's business.
// CHECK-LABEL: func.func @f64_gemm_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f64) : (tensor<8x4xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
func.func @f64_gemm_is_untouched(%x: tensor<8x4xf64>, %w: tensor<4x6xf64>) -> tensor<8x6xf64> {
  // expected-remark @+1 {{GEMM 8x6x4 operands unchanged: operands are f64; only f32 operands are converted (run xpu-demote-f64 first)}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f64) : (tensor<8x4xf64>, tensor<4x6xf64>) -> tensor<8x6xf64>
  return %0 : tensor<8x6xf64>
}

// -----

// CHECK-LABEL: func.func @fp8_gemm_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f32) : (tensor<8x4xf8E4M3FN>, tensor<4x6xf8E4M3FN>) -> tensor<8x6xf32>
func.func @fp8_gemm_is_untouched(%x: tensor<8x4xf8E4M3FN>, %w: tensor<4x6xf8E4M3FN>) -> tensor<8x6xf32> {
  // expected-remark @+1 {{GEMM 8x6x4 operands unchanged: operands are f8E4M3FN; only f32 operands are converted}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f32) : (tensor<8x4xf8E4M3FN>, tensor<4x6xf8E4M3FN>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// f32 operands accumulated in f64: not this pattern.
// CHECK-LABEL: func.func @f64_accumulator_is_untouched
//   CHECK-NOT:   linalg.generic
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f64) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf64>
func.func @f64_accumulator_is_untouched(%x: tensor<8x4xf32>, %w: tensor<4x6xf32>) -> tensor<8x6xf64> {
  // expected-remark @+1 {{GEMM 8x6x4 operands unchanged: it accumulates in f64; only GEMMs that accumulate in f32 are converted}}
  %0 = xpu.gemm %x, %w rhs_layout(kn) acc(f64) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf64>
  return %0 : tensor<8x6xf64>
}
