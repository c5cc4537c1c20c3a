// RUN: xpu-opt %s --split-input-file --xpu-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[MK:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[NK:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[COL:.+]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @linear_bias_relu
//  CHECK-SAME:   %[[X:[a-z0-9]+]]: tensor<16x64xf32>, %[[W:[a-z0-9]+]]: tensor<32x64xf32>, %[[B:[a-z0-9]+]]: tensor<32xf32>
//   CHECK-DAG:   %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
//   CHECK-DAG:   %[[E:.+]] = tensor.empty() : tensor<16x32xf32>
//       CHECK:   %[[F:.+]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[E]] : tensor<16x32xf32>)
//       CHECK:   %[[MM:.+]] = linalg.matmul indexing_maps = [#[[MK]], #[[NK]], #[[MN]]] ins(%[[X]], %[[W]] : tensor<16x64xf32>, tensor<32x64xf32>) outs(%[[F]] : tensor<16x32xf32>)
//       CHECK:   %[[OUT:.+]] = tensor.empty() : tensor<16x32xf32>
//       CHECK:   %[[R:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[COL]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[MM]], %[[B]] : tensor<16x32xf32>, tensor<32xf32>) outs(%[[OUT]] : tensor<16x32xf32>)
//       CHECK:   ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f32, %{{.+}}: f32):
//       CHECK:     %[[T:.+]] = arith.addf %[[ACC]], %[[BIAS]] : f32
//       CHECK:     %[[M:.+]] = arith.maximumf %[[T]], %{{.+}} : f32
//       CHECK:     linalg.yield %[[M]] : f32
//   CHECK-NOT:   xpu.
//       CHECK:   return %[[R]]
func.func @linear_bias_relu(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %t, %z : f32
    xpu.yield %r : f32
  } : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
  return %0 : tensor<16x32xf32>
}

// -----

// The identity epilogue lowers to the matmul alone, with default maps for kn.
// CHECK-LABEL: func.func @identity_epilogue
//       CHECK:   %[[MM:.+]] = linalg.matmul ins(%{{.+}}, %{{.+}} : tensor<8x4xf32>, tensor<4x6xf32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   return %[[MM]]
func.func @identity_epilogue(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>) -> tensor<8x6xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// Batched, every broadcast kind, f16 operands with f32 accumulation and an
// f16 result: the generic reads scalar, per_row, per_col and full operands
// through their maps over (b, m, n).
// CHECK-DAG: #[[ID3:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[SCALAR:.+]] = affine_map<(d0, d1, d2) -> ()>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[COL3:.+]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @batched_all_kinds
//       CHECK:   %[[F:.+]] = linalg.fill {{.*}} -> tensor<4x32x16xf32>
//       CHECK:   %[[MM:.+]] = linalg.batch_matmul ins(%{{.+}}, %{{.+}} : tensor<4x32x8xf16>, tensor<4x8x16xf16>) outs(%[[F]] : tensor<4x32x16xf32>)
//       CHECK:   linalg.generic {indexing_maps = [#[[ID3]], #[[SCALAR]], #[[ROW]], #[[COL3]], #[[ID3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
//  CHECK-SAME:     outs(%{{.+}} : tensor<4x32x16xf16>)
//       CHECK:     arith.truncf
func.func @batched_all_kinds(%a: tensor<4x32x8xf16>, %b: tensor<4x8x16xf16>, %s: tensor<f32>,
                             %r: tensor<32xf32>, %c: tensor<16xf32>, %res: tensor<4x32x16xf16>) -> tensor<4x32x16xf16> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32)
         epilogue(%s scalar : tensor<f32>, %r per_row : tensor<32xf32>, %c per_col : tensor<16xf32>, %res full : tensor<4x32x16xf16>) {
  ^bb0(%acc: f32, %vs: f32, %vr: f32, %vc: f32, %vres: f16):
    %0 = arith.mulf %acc, %vs : f32
    %1 = arith.addf %0, %vr : f32
    %2 = arith.addf %1, %vc : f32
    %3 = arith.truncf %2 : f32 to f16
    %4 = arith.addf %3, %vres : f16
    xpu.yield %4 : f16
  } : (tensor<4x32x8xf16>, tensor<4x8x16xf16>) -> tensor<4x32x16xf16>
  return %0 : tensor<4x32x16xf16>
}

// -----

// A module without xpu ops is left as it is.
// CHECK-LABEL: func.func @nothing_to_lower
//  CHECK-NEXT:   linalg.matmul
func.func @nothing_to_lower(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// A dynamic batch and m: the accumulator and the output take their sizes
// from the lhs at run time.
// CHECK-LABEL: func.func @dynamic_rows
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<?x?x8xf32>
//   CHECK-DAG:   %[[C0:.+]] = arith.constant 0 : index
//   CHECK-DAG:   %[[C1:.+]] = arith.constant 1 : index
//   CHECK-DAG:   %[[B0:.+]] = tensor.dim %[[A]], %[[C0]]
//   CHECK-DAG:   %[[M:.+]] = tensor.dim %[[A]], %[[C1]]
//       CHECK:   %[[E:.+]] = tensor.empty(%[[B0]], %[[M]]) : tensor<?x?x6xf32>
//       CHECK:   %[[F:.+]] = linalg.fill {{.*}} outs(%[[E]] : tensor<?x?x6xf32>)
//       CHECK:   %[[P:.+]] = linalg.batch_matmul{{.*}} ins(%[[A]], %{{.+}} : tensor<?x?x8xf32>, tensor<?x8x6xf32>) outs(%[[F]] : tensor<?x?x6xf32>)
//       CHECK:   %[[O:.+]] = tensor.empty(%[[B0]], %[[M]]) : tensor<?x?x6xf16>
//       CHECK:   linalg.generic {{.*}} ins(%[[P]] : tensor<?x?x6xf32>) outs(%[[O]] : tensor<?x?x6xf16>)
func.func @dynamic_rows(%a: tensor<?x?x8xf32>, %b: tensor<?x8x6xf32>) -> tensor<?x?x6xf16> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %t = arith.truncf %acc : f32 to f16
    xpu.yield %t : f16
  } : (tensor<?x?x8xf32>, tensor<?x8x6xf32>) -> tensor<?x?x6xf16>
  return %0 : tensor<?x?x6xf16>
}
