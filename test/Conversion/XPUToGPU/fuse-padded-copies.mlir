// A bufferized tensor.pad (a fill of the whole padded buffer, then a copy of
// the source into a box of it) becomes one kernel over the buffer that loads
// the source inside the box and writes the padding outside it: each element
// is written once, and the buffer's aligned rows take 16-byte stores even
// where the source's rows (97 bf16: 194 bytes) are not aligned to them.
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops="strided-copies=true vectorize=true" --canonicalize --cse | FileCheck %s
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops="strided-copies=true vectorize=true" --xpu-remarks --mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// Without strided-copies the copies stay on the host and nothing is fused.
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops --xpu-remarks --mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=HOST
// HOST-NOT: FusedPad

// REMARK: remark: [Passed] FusedPad | Category:xpu-linalg-to-gpu-loops | Reason="a bufferized pad (linalg.map over 67x104, then a copy of 67x97 into it) fused into one kernel that writes each element once"
// REMARK: linalg.generic over 67x104: one work-item per 8 consecutive elements, vectors of 8 where the buffers are aligned to them (element by element otherwise), 4 workgroup(s) of 256
// REMARK: remark: [Passed] FusedPad | Category:xpu-linalg-to-gpu-loops | Reason="a bufferized pad (linalg.fill over 10x20, then a copy of 8x16 into it) fused into one kernel that writes each element once"
// REMARK-NOT: FusedPad

// CHECK-LABEL: func.func @pad_rows
//  CHECK-SAME:   (%[[SRC:.*]]: memref<67x97xbf16>, %[[DST:.*]]: memref<67x104xbf16>)
//   CHECK-NOT:   linalg.map
//   CHECK-NOT:   memref.copy
//       CHECK:   gpu.launch
// Inside the box (column < 97), the source; outside, the padding.
//       CHECK:     %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %c97
//       CHECK:     scf.if %[[IN]] -> (bf16) {
//       CHECK:       %[[V:.*]] = memref.load %[[SRC]]
//       CHECK:       scf.yield %[[V]] : bf16
//       CHECK:     } else {
//       CHECK:       scf.yield %cst : bf16
//       CHECK:     vector.from_elements
//       CHECK:     vector.store %{{.*}}, %[[DST]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<67x104xbf16>, vector<8xbf16>
//   CHECK-NOT:   gpu.launch
//       CHECK:   return
func.func @pad_rows(%src: memref<67x97xbf16>, %dst: memref<67x104xbf16>) {
  %zero = arith.constant 0.0 : bf16
  linalg.map outs(%dst : memref<67x104xbf16>)
    (%init: bf16) {
      linalg.yield %zero : bf16
    }
  %view = memref.subview %dst[0, 0] [67, 97] [1, 1] : memref<67x104xbf16> to memref<67x97xbf16, strided<[104, 1]>>
  memref.copy %src, %view : memref<67x97xbf16> to memref<67x97xbf16, strided<[104, 1]>>
  return
}

// -----

// Padding on both sides (a box at [1, 2]): the index is shifted by the
// offset, and below it wraps to a large unsigned value, outside the box.
// CHECK-LABEL: func.func @pad_both_sides
//  CHECK-SAME:   (%[[SRC:.*]]: memref<8x16xf32>, %[[DST:.*]]: memref<10x20xf32>)
//   CHECK-NOT:   linalg.fill
//       CHECK:   gpu.launch
//   CHECK-DAG:     %[[R:.*]] = arith.subi %{{.*}}, %c1 : index
//   CHECK-DAG:     %[[C:.*]] = arith.subi %{{.*}}, %c2 : index
//   CHECK-DAG:     %[[RIN:.*]] = arith.cmpi ult, %[[R]], %c8 : index
//   CHECK-DAG:     %[[CIN:.*]] = arith.cmpi ult, %[[C]], %c16 : index
//       CHECK:     %[[IN:.*]] = arith.andi
//       CHECK:     scf.if %[[IN]] -> (f32) {
//       CHECK:       memref.load %[[SRC]][%[[R]], %[[C]]] : memref<8x16xf32>
//       CHECK:     } else {
//       CHECK:       scf.yield %cst : f32
//   CHECK-NOT:   gpu.launch
//       CHECK:   return
func.func @pad_both_sides(%src: memref<8x16xf32>, %dst: memref<10x20xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%dst : memref<10x20xf32>)
  %view = memref.subview %dst[1, 2] [8, 16] [1, 1] : memref<10x20xf32> to memref<8x16xf32, strided<[20, 1], offset: 22>>
  memref.copy %src, %view : memref<8x16xf32> to memref<8x16xf32, strided<[20, 1], offset: 22>>
  return
}

// -----

// Not a pad: the buffer is read between the fill and the copy, so both
// keep their kernels (and the read its own).
// CHECK-LABEL: func.func @read_between
//   CHECK-NOT:   scf.if {{.*}} -> (f32)
//       CHECK:   gpu.launch
//       CHECK:   gpu.launch
//       CHECK:   gpu.launch
func.func @read_between(%src: memref<8x16xf32>, %dst: memref<8x20xf32>,
                        %other: memref<8x20xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%dst : memref<8x20xf32>)
  linalg.copy ins(%dst : memref<8x20xf32>) outs(%other : memref<8x20xf32>)
  %view = memref.subview %dst[0, 0] [8, 16] [1, 1] : memref<8x20xf32> to memref<8x16xf32, strided<[20, 1]>>
  memref.copy %src, %view : memref<8x16xf32> to memref<8x16xf32, strided<[20, 1]>>
  return
}

// -----

// Not a pad: the box has a stride of 2.
// CHECK-LABEL: func.func @strided_box
//       CHECK:   gpu.launch
//       CHECK:   gpu.launch
func.func @strided_box(%src: memref<8x8xf32>, %dst: memref<8x16xf32>) {
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%dst : memref<8x16xf32>)
  %view = memref.subview %dst[0, 0] [8, 8] [1, 2] : memref<8x16xf32> to memref<8x8xf32, strided<[16, 2]>>
  memref.copy %src, %view : memref<8x8xf32> to memref<8x8xf32, strided<[16, 2]>>
  return
}

// -----

// The padded operand is a conversion (f32 to bf16, written to a buffer of
// its own that only the pad reads): the kernel converts as it reads the
// f32 input, and the conversion's kernel and buffer are gone.
// CHECK-LABEL: func.func @convert_then_pad
//  CHECK-SAME:   (%[[X:.*]]: memref<67x97xf32>, %[[DST:.*]]: memref<67x104xbf16>)
//   CHECK-NOT:   memref.alloc() : memref<67x97xbf16>
//       CHECK:   gpu.launch
//       CHECK:     scf.if %{{.*}} -> (bf16) {
//       CHECK:       %[[V:.*]] = memref.load %[[X]][%{{.*}}, %{{.*}}] : memref<67x97xf32>
//       CHECK:       %[[T:.*]] = arith.truncf %[[V]] : f32 to bf16
//       CHECK:       scf.yield %[[T]] : bf16
//       CHECK:     vector.store %{{.*}}, %[[DST]]
//   CHECK-NOT:   gpu.launch
//   CHECK-NOT:   memref.dealloc %{{.*}} : memref<67x97xbf16>
//       CHECK:   return
// REMARK: remark: [Passed] FusedPad | Category:xpu-linalg-to-gpu-loops | Reason="a bufferized pad (linalg.map over 67x104, then a copy of 67x97 into it, computed by a linalg.generic whose payload the kernel applies as it reads the generic's inputs) fused into one kernel that writes each element once"
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @convert_then_pad(%x: memref<67x97xf32>, %dst: memref<67x104xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %b = memref.alloc() : memref<67x97xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<67x97xf32>) outs(%b : memref<67x97xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  %other = memref.alloc() : memref<8xf32>
  linalg.map outs(%dst : memref<67x104xbf16>)
    (%init: bf16) {
      linalg.yield %zero : bf16
    }
  %view = memref.subview %dst[0, 0] [67, 97] [1, 1] : memref<67x104xbf16> to memref<67x97xbf16, strided<[104, 1]>>
  memref.copy %b, %view : memref<67x97xbf16> to memref<67x97xbf16, strided<[104, 1]>>
  memref.dealloc %b : memref<67x97xbf16>
  memref.dealloc %other : memref<8xf32>
  return
}

// -----

// The conversion's buffer is read again after the pad: the conversion
// keeps its kernel, and the pad reads its buffer.
// CHECK-LABEL: func.func @converted_twice_read
//       CHECK:   %[[B:.*]] = memref.alloc() : memref<67x97xbf16>
//       CHECK:   gpu.launch
//       CHECK:     arith.truncf
//       CHECK:   gpu.launch
//       CHECK:     scf.if %{{.*}} -> (bf16) {
//       CHECK:       memref.load %[[B]]
//   CHECK-NOT:       arith.truncf
//       CHECK:   return
// REMARK: remark: [Passed] FusedPad | Category:xpu-linalg-to-gpu-loops | Reason="a bufferized pad (linalg.map over 67x104, then a copy of 67x97 into it) fused into one kernel that writes each element once"
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @converted_twice_read(%x: memref<67x97xf32>, %dst: memref<67x104xbf16>,
                                %again: memref<67x97xbf16>) {
  %zero = arith.constant 0.0 : bf16
  %b = memref.alloc() : memref<67x97xbf16>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<67x97xf32>) outs(%b : memref<67x97xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  linalg.map outs(%dst : memref<67x104xbf16>)
    (%init: bf16) {
      linalg.yield %zero : bf16
    }
  %view = memref.subview %dst[0, 0] [67, 97] [1, 1] : memref<67x104xbf16> to memref<67x97xbf16, strided<[104, 1]>>
  memref.copy %b, %view : memref<67x97xbf16> to memref<67x97xbf16, strided<[104, 1]>>
  memref.copy %b, %again : memref<67x97xbf16> to memref<67x97xbf16>
  memref.dealloc %b : memref<67x97xbf16>
  return
}
