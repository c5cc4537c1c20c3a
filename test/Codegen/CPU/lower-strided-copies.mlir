// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-cpu-lower-strided-copies))' | FileCheck %s

// A bufferized padded operand: the value copied into the corner of a
// larger buffer (a strided destination) becomes linalg.copy.
// CHECK-LABEL: func.func @into_corner
//  CHECK-SAME:   %[[SRC:.*]]: memref<741x737xbf16>, %[[DST:.*]]: memref<768x768xbf16>
//       CHECK:   %[[SUB:.*]] = memref.subview %[[DST]][0, 0] [741, 737] [1, 1]
//       CHECK:   linalg.copy ins(%[[SRC]] : memref<741x737xbf16>) outs(%[[SUB]] : memref<741x737xbf16, strided<[768, 1]>>)
//   CHECK-NOT:   memref.copy
func.func @into_corner(%src: memref<741x737xbf16>, %dst: memref<768x768xbf16>) {
  %sub = memref.subview %dst[0, 0] [741, 737] [1, 1] : memref<768x768xbf16> to memref<741x737xbf16, strided<[768, 1]>>
  memref.copy %src, %sub : memref<741x737xbf16> to memref<741x737xbf16, strided<[768, 1]>>
  return
}

// -----

// A strided source at a static offset (the interior of a padded result).
// CHECK-LABEL: func.func @out_of_interior
//       CHECK:   linalg.copy ins(%{{.*}} : memref<4x6xf32, strided<[8, 1], offset: 9>>) outs(%{{.*}} : memref<4x6xf32>)
func.func @out_of_interior(%src: memref<6x8xf32>, %dst: memref<4x6xf32>) {
  %sub = memref.subview %src[1, 1] [4, 6] [1, 1] : memref<6x8xf32> to memref<4x6xf32, strided<[8, 1], offset: 9>>
  memref.copy %sub, %dst : memref<4x6xf32, strided<[8, 1], offset: 9>> to memref<4x6xf32>
  return
}

// -----

// Left to memcpy: both sides contiguous (a full-row subview too). Left to
// the runtime: a dynamic offset or shape.
// CHECK-LABEL: func.func @left_alone
//   CHECK-NOT:   linalg.copy
//       CHECK:   memref.copy
//       CHECK:   memref.copy
//       CHECK:   memref.copy
//   CHECK-NOT:   linalg.copy
func.func @left_alone(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<6x8xf32>, %d: memref<?x8xf32>, %e: memref<?x8xf32>, %i: index) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  %rows = memref.subview %c[2, 0] [4, 8] [1, 1] : memref<6x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 16>>
  memref.copy %a, %rows : memref<4x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 16>>
  memref.copy %d, %e : memref<?x8xf32> to memref<?x8xf32>
  return
}
