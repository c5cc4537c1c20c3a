// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops --canonicalize --cse | FileCheck %s
// Each kernel's shape, as a remark.
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops --xpu-remarks --mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// REMARK: linalg.generic over 8x40: one work-item per element, 2 workgroup(s) of 256
// REMARK: linalg.generic over 8x64: row reduction, one workgroup of 64 work-items per output (8 workgroups), maximumf over 64 elements combined in shared local memory
// REMARK: linalg.generic over 4x100: row reduction, one workgroup of 128 work-items per output (4 workgroups), addf over 100 elements combined in shared local memory
// REMARK: linalg.matmul over 8x6x40: one work-item per output, 1 workgroup(s) of 64, 40 elements reduced in a loop (a contraction)
// REMARK: linalg.reduce over 32x4: one work-item per output, 1 workgroup(s) of 32, 4 elements reduced in a loop (fewer reduced elements than a workgroup)
// With subgroups of 32 lanes (the NVVM pipeline): each warp reduces its
// lanes' partials with gpu.subgroup_reduce, lane 0 writes one value per
// warp, one barrier, then the first warp reduces those (2 warps of 32 for
// @row_max's 64 work-items) and its lane 0, work-item 0, leaves the total
// in slm[0] for itself.
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops=subgroup-size=32 --canonicalize --cse | FileCheck %s --check-prefix=SUBGROUP
// SUBGROUP-LABEL: func.func @row_max
//       SUBGROUP:   %[[NEG:.*]] = arith.constant 0xFF800000 : f32
//       SUBGROUP:   threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64,
//       SUBGROUP:     %[[SLM:.*]] = memref.alloc() : memref<64xf32, 3>
//       SUBGROUP:     %[[PART:.*]] = scf.for
//       SUBGROUP:     %[[LANE:.*]] = arith.remui %[[TX]], %c32
//       SUBGROUP:     %[[WARP:.*]] = arith.divui %[[TX]], %c32
//       SUBGROUP:     %[[WSUM:.*]] = gpu.subgroup_reduce maximumf %[[PART]] uniform : (f32) -> f32
//       SUBGROUP:     %[[LEAD:.*]] = arith.cmpi eq, %[[LANE]], %c0
//       SUBGROUP:     scf.if %[[LEAD]] {
//       SUBGROUP:       memref.store %[[WSUM]], %[[SLM]][%[[WARP]]]
//       SUBGROUP:     gpu.barrier
//   SUBGROUP-NOT:     gpu.barrier
//       SUBGROUP:     scf.if
//       SUBGROUP:       %[[IN:.*]] = arith.cmpi ult, %[[LANE]], %c2
//       SUBGROUP:       %[[X:.*]] = scf.if %[[IN]] -> (f32) {
//       SUBGROUP:       } else {
//       SUBGROUP:         scf.yield %[[NEG]]
//       SUBGROUP:       %[[TOTAL:.*]] = gpu.subgroup_reduce maximumf %[[X]] uniform : (f32) -> f32
//       SUBGROUP:       memref.store %[[TOTAL]], %[[SLM]][%c0]
// Work-item 0 wrote the total itself: no second barrier.
//   SUBGROUP-NOT:     gpu.barrier
//       SUBGROUP:     scf.if
//       SUBGROUP:       memref.load %[[SLM]][%c0]
// With strided-copies (the NVVM pipeline), the host copy a bufferized
// tensor.pad leaves (into the interior of the padded buffer: rows of 104
// elements) becomes a kernel, one work-item per element; without it the
// copy stays on the host (the CHECK lines of @pad_copy below).
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops=strided-copies=true --canonicalize --cse | FileCheck %s --check-prefix=STRIDED
// STRIDED-LABEL: func.func @pad_copy
//   STRIDED-NOT:   memref.copy
//       STRIDED:   gpu.launch
//       STRIDED:     %[[V:.*]] = memref.load %{{.*}} : memref<67x97xbf16>
//       STRIDED:     memref.store %[[V]], %{{.*}} : memref<67x97xbf16, strided<[104, 1]>>
// With vectorize (the NVVM pipeline): the 8x40 elementwise op reads and
// writes 16-byte vectors, 4 f32 a work-item (40 and the row pitch are
// multiples of 4), 80 work-items; the bias, indexed by the innermost loop
// too, is a vector as well. Whether all three buffers are 16-byte aligned
// is checked in the kernel: if not, the 4 elements are computed one by one.
// The transpose (the innermost loop indexes the input's first dimension)
// and the 1-D fill of 4 elements (vectorized: 1 work-item) follow.
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops=vectorize=true --canonicalize --cse | FileCheck %s --check-prefix=VECTOR
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops=vectorize=true --xpu-remarks --mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=VECTOR-REMARK
// VECTOR-REMARK: linalg.generic over 8x40: one work-item per 4 consecutive elements, vectors of 4 where the buffers are aligned to them (element by element otherwise), 1 workgroup(s) of 128
// VECTOR-REMARK: linalg.transpose over 16x24: one work-item per element, 2 workgroup(s) of 256
// VECTOR-LABEL: func.func @elementwise_full_workgroups
//       VECTOR:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
//       VECTOR:     scf.if
//       VECTOR:       %[[Q:.*]] = arith.remui %{{.*}}, %c10
//       VECTOR:       %[[I:.*]] = arith.divui %{{.*}}, %c10
//       VECTOR:       %[[J:.*]] = arith.muli %[[Q]], %c4
// VECTOR-COUNT-3:      memref.extract_aligned_pointer_as_index
//       VECTOR:       scf.if %{{.*}} {
//       VECTOR:         %[[A:.*]] = vector.load %{{.*}}[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<8x40xf32>, vector<4xf32>
//       VECTOR:         %[[B:.*]] = vector.load %{{.*}}[%[[J]]] {alignment = 16 : i64} : memref<40xf32>, vector<4xf32>
// VECTOR-COUNT-4:       arith.addf
//       VECTOR:         %[[S:.*]] = vector.from_elements
//       VECTOR:         vector.store %[[S]], %{{.*}}[%[[I]], %[[J]]] {alignment = 16 : i64} : memref<8x40xf32>, vector<4xf32>
//       VECTOR:       } else {
// VECTOR-COUNT-4:         memref.store %{{.*}} : memref<8x40xf32>
// VECTOR-LABEL: func.func @pack_kernels
//       VECTOR:     memref.load %{{.*}} : memref<24x16xf32>
//       VECTOR:     memref.store %{{.*}} : memref<16x24xf32>
//       VECTOR:     vector.store %{{.*}} {alignment = 16 : i64} : memref<4xf32>, vector<4xf32>
// Constants a body captures are cloned into its kernel.
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops | FileCheck %s --check-prefix=SINK
// A bad subgroup size is an error that names the option.
// RUN: not xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops=subgroup-size=48 2>&1 | FileCheck %s --check-prefix=BADSIZE
// BADSIZE: error: xpu-linalg-to-gpu-loops: subgroup-size must be 0 or a power of two from 2 to 32, got 48

// An elementwise op: one work-item per element of the flattened 8x40
// iteration space, 256-work-item workgroups (never one work-item), the
// innermost dimension fastest (coalesced), the tail masked.
// CHECK-LABEL: func.func @elementwise_full_workgroups
//   CHECK-NOT:   linalg.generic
//       CHECK:   gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
//       CHECK:     %[[BASE:.*]] = arith.muli %[[BX]], %c256
//       CHECK:     %[[ID:.*]] = arith.addi %[[BASE]], %[[TX]]
//       CHECK:     %[[OK:.*]] = arith.cmpi ult, %[[ID]], %c320
//       CHECK:     scf.if %[[OK]] {
//       CHECK:       %[[J:.*]] = arith.remui %[[ID]], %c40
//       CHECK:       %[[I:.*]] = arith.divui %[[ID]], %c40
//       CHECK:       %[[A:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]] : memref<8x40xf32>
//       CHECK:       %[[B:.*]] = memref.load %{{.*}}[%[[J]]] : memref<40xf32>
//       CHECK:       %[[S:.*]] = arith.addf %[[A]], %[[B]]
//       CHECK:       memref.store %[[S]], %{{.*}}[%[[I]], %[[J]]] : memref<8x40xf32>
func.func @elementwise_full_workgroups(%a: memref<8x40xf32>, %b: memref<40xf32>, %c: memref<8x40xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : memref<8x40xf32>, memref<40xf32>) outs(%c : memref<8x40xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A transpose (a pack kernel): full workgroups too; a 1-D op of 4 elements
// still gets 32 work-items.
// CHECK-LABEL: func.func @pack_kernels
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c2, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
//       CHECK:     memref.load %{{.*}} : memref<24x16xf32>
//       CHECK:     memref.store %{{.*}} : memref<16x24xf32>
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c32, %{{.*}} = %c1, %{{.*}} = %c1)
func.func @pack_kernels(%w: memref<24x16xf32>, %wt: memref<16x24xf32>, %v: memref<4xf32>) {
  linalg.transpose ins(%w : memref<24x16xf32>) outs(%wt : memref<16x24xf32>) permutation = [1, 0]
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%v : memref<4xf32>)
  return
}

// -----

// A transpose of a batch of matrices at least 32 on both sides: one
// workgroup of 32 x 4 work-items per 32x32 tile of the output (2 x 40 x 70
// output: 2 x 2 x 3 tiles = 12 workgroups), the input's rows read into a
// 32x33 shared buffer of i32 (the elements' bits: no bf16 in SPIR-V
// workgroup memory; work-item tx takes element r0 + tx of input rows
// c0 + ty, c0 + ty + 4, ...), one barrier, then the output's rows written
// from the buffer's columns; both guarded at the edges (40 and 70 are not
// multiples of 32).
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops --xpu-remarks --mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=TRANSPOSE-REMARK
// TRANSPOSE-REMARK: linalg.transpose over 16x24: one work-item per element
// TRANSPOSE-REMARK: linalg.transpose over 2x40x70: transposed through shared local memory in 32x32 tiles (rows read and written whole: coalesced on both sides), 12 workgroup(s) of 128
// CHECK-LABEL: func.func @tiled_transpose
//  CHECK-SAME:   %[[IN:.*]]: memref<2x70x40xf32>, %[[OUT:.*]]: memref<2x40x70xf32>
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c12, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128, %{{.*}} = %c1, %{{.*}} = %c1)
//       CHECK:     %[[TX:.*]] = arith.remui %[[T]], %c32
//       CHECK:     %[[TY:.*]] = arith.divui %[[T]], %c32
//       CHECK:     %[[SLM:.*]] = memref.alloc() : memref<32x33xi32, 3>
//       CHECK:     scf.if
//       CHECK:       %[[V:.*]] = memref.load %[[IN]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x70x40xf32>
//       CHECK:       %[[VI:.*]] = arith.bitcast %[[V]] : f32 to i32
//       CHECK:       memref.store %[[VI]], %[[SLM]][%[[TY]], %[[TX]]] : memref<32x33xi32, 3>
//       CHECK:     gpu.barrier
//   CHECK-NOT:     gpu.barrier
//       CHECK:     scf.if
//       CHECK:       %[[WI:.*]] = memref.load %[[SLM]][%[[TX]], %[[TY]]] : memref<32x33xi32, 3>
//       CHECK:       %[[W:.*]] = arith.bitcast %[[WI]] : i32 to f32
//       CHECK:       memref.store %[[W]], %[[OUT]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<2x40x70xf32>
func.func @tiled_transpose(%in: memref<2x70x40xf32>, %out: memref<2x40x70xf32>) {
  linalg.transpose ins(%in : memref<2x70x40xf32>) outs(%out : memref<2x40x70xf32>) permutation = [0, 2, 1]
  return
}

// -----

// A row reduction (softmax's max over 64 columns of 8 rows): one workgroup
// per row, 64 work-items striding over the row from the identity (-inf),
// then a tree of halvings in shared memory (6 levels, one barrier each),
// and the first work-item combines the total with the output's initial
// value.
// CHECK-LABEL: func.func @row_max
//       CHECK:   %[[NEG:.*]] = arith.constant 0xFF800000 : f32
//       CHECK:   gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c64, %{{.*}} = %c1, %{{.*}} = %c1)
//       CHECK:     %[[SLM:.*]] = memref.alloc() : memref<64xf32, 3>
//       CHECK:     %[[PART:.*]] = scf.for %[[R:.*]] = %[[TX]] to %c64 step %c64 iter_args(%[[ACC:.*]] = %[[NEG]]) -> (f32) {
//       CHECK:       %[[V:.*]] = memref.load %{{.*}}[%[[BX]], %{{.*}}] : memref<8x64xf32>
//       CHECK:       %[[M:.*]] = arith.maximumf %[[ACC]], %[[V]]
//       CHECK:       scf.yield %[[M]]
//       CHECK:     memref.store %[[PART]], %[[SLM]][%[[TX]]]
//       CHECK:     gpu.barrier
// CHECK-COUNT-6:     gpu.barrier
//       CHECK:     %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %c0
//       CHECK:     scf.if %[[FIRST]] {
//       CHECK:       %[[TOTAL:.*]] = memref.load %[[SLM]][%c0]
//       CHECK:       %[[OLD:.*]] = memref.load %{{.*}}[%[[BX]]] : memref<8xf32>
//       CHECK:       %[[RES:.*]] = arith.maximumf %[[TOTAL]], %[[OLD]]
//       CHECK:       memref.store %[[RES]], %{{.*}}[%[[BX]]] : memref<8xf32>
func.func @row_max(%x: memref<8x64xf32>, %m: memref<8xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%m : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.maximumf %v, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A keepdim row sum as torch-mlir writes it, through `(d0, d1) -> (d0, 0)`:
// the output's column is the constant 0, not an affine.apply over the loop
// indices (where the output is addressed, the reduction's index does not
// exist: building the apply over it crashed the pass).
// CHECK-LABEL: func.func @row_sum_keepdim
//       CHECK:   gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c8, %{{.*}} = %c1, %{{.*}} = %c1)
//       CHECK:     scf.if
//       CHECK:       %[[OLD:.*]] = memref.load %{{.*}}[%[[BX]], %c0] : memref<8x1xf32>
//       CHECK:       %[[RES:.*]] = arith.addf %{{.*}}, %[[OLD]]
//       CHECK:       memref.store %[[RES]], %{{.*}}[%[[BX]], %c0] : memref<8x1xf32>
func.func @row_sum_keepdim(%x: memref<8x64xf32>, %s: memref<8x1xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s : memref<8x1xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = arith.addf %v, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A row sum of exp(x - max) (softmax's denominator): the body before the
// combiner (sub, exp) runs per element, the sum in the tree.
// CHECK-LABEL: func.func @row_sum_of_exp
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c4, {{.*}}) threads({{.*}}) in (%{{.*}} = %c128,
//       CHECK:     scf.for
//       CHECK:       arith.subf
//       CHECK:       math.exp
//       CHECK:       arith.addf
//   CHECK-NOT:       linalg.yield
func.func @row_sum_of_exp(%x: memref<4x100xf32>, %mx: memref<4xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mx : memref<4x100xf32>, memref<4xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%v: f32, %m: f32, %acc: f32):
    %d = arith.subf %v, %m : f32
    %e = math.exp %d : f32
    %r = arith.addf %e, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A contraction (the gemm-kernels=false baseline) keeps one work-item per
// output element with the reduction loop inside, in full workgroups.
// CHECK-LABEL: func.func @matmul_per_element
//   CHECK-NOT:   linalg.matmul
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, {{.*}}) threads({{.*}}) in (%{{.*}} = %c64,
//       CHECK:     scf.if
//       CHECK:       scf.for %{{.*}} = %c0 to %c40 step %c1 {
//       CHECK:         arith.mulf
//       CHECK:         arith.addf
//       CHECK:         memref.store
func.func @matmul_per_element(%a: memref<8x40xf32>, %b: memref<40x6xf32>, %c: memref<8x6xf32>) {
  linalg.matmul ins(%a, %b : memref<8x40xf32>, memref<40x6xf32>) outs(%c : memref<8x6xf32>)
  return
}

// -----

// A short reduction (4 per output) stays in the work-item of its output.
// CHECK-LABEL: func.func @short_reduction
//       CHECK:   gpu.launch
//   CHECK-NOT:     gpu.barrier
//       CHECK:     scf.for %{{.*}} = %c0 to %c4
func.func @short_reduction(%x: memref<32x4xf32>, %s: memref<32xf32>) {
  linalg.reduce ins(%x : memref<32x4xf32>) outs(%s : memref<32xf32>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %r = arith.addf %v, %acc : f32
      linalg.yield %r : f32
    }
  return
}

// -----

// Dynamic shapes stay on the host (they cannot be bare-pointer kernel args).
// CHECK-LABEL: func.func @dynamic_stays_on_host
//       CHECK:   linalg.fill
//   CHECK-NOT:   gpu.launch
func.func @dynamic_stays_on_host(%c: memref<?x6xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<?x6xf32>)
  return
}

// -----

// A body that calls a function cannot become a kernel.
func.func private @value(%i: index) -> f32
// CHECK-LABEL: func.func @call_in_body_stays_on_host
//       CHECK:   linalg.generic
//   CHECK-NOT:   gpu.launch
func.func @call_in_body_stays_on_host(%c: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%c : memref<4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %v = func.call @value(%i) : (index) -> f32
    linalg.yield %v : f32
  }
  return
}

// -----

// torch-mlir's cf.assert guard (BatchNorm's "tensor with zero element"
// check) runs in the kernel: a zeroed device flag per guard, set where the
// condition fails; after the kernel the host copies the flags back and
// asserts on them with the guard's message. The host reads no operand.
// CHECK-LABEL: func.func @assert_becomes_device_flag
//  CHECK-SAME:   (%[[V:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   %[[FLAGS:.*]] = memref.alloc() : memref<1xi32>
//       CHECK:   %[[T0:.*]] = gpu.wait async
//       CHECK:   %[[T1:.*]] = gpu.memset async [%[[T0]]] %[[FLAGS]], %c0_i32 : memref<1xi32>, i32
//       CHECK:   gpu.wait [%[[T1]]]
//       CHECK:   gpu.launch
//       CHECK:     %[[X:.*]] = memref.load %[[V]]
//       CHECK:     %[[OK:.*]] = arith.cmpf one, %[[X]]
//       CHECK:     %[[BAD:.*]] = arith.xori %[[OK]], %true
//       CHECK:     scf.if %[[BAD]] {
//       CHECK:       memref.store %c1_i32, %[[FLAGS]][%c0] : memref<1xi32>
//       CHECK:     memref.store %[[X]], %[[C]]
//       CHECK:   %[[HOST:.*]] = memref.alloc() : memref<1xi32>
//       CHECK:   %[[T2:.*]] = gpu.wait async
//       CHECK:   %[[T3:.*]] = gpu.memcpy async [%[[T2]]] %[[HOST]], %[[FLAGS]]
//       CHECK:   gpu.wait [%[[T3]]]
//       CHECK:   %[[F:.*]] = memref.load %[[HOST]][%c0]
//       CHECK:   %[[PASS:.*]] = arith.cmpi eq, %[[F]], %c0_i32
//       CHECK:   cf.assert %[[PASS]], "zero"
//       CHECK:   memref.dealloc %[[HOST]]
//       CHECK:   memref.dealloc %[[FLAGS]]
func.func @assert_becomes_device_flag(%v: memref<4xf32>, %c: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %out: f32):
    %z = arith.constant 0.0 : f32
    %ok = arith.cmpf one, %x, %z : f32
    cf.assert %ok, "zero"
    linalg.yield %x : f32
  }
  return
}

// -----

// A guard nested in a region of the body has no flag form: the op stays on
// the host.
// CHECK-LABEL: func.func @nested_assert_stays_on_host
//       CHECK:   linalg.generic
//   CHECK-NOT:   gpu.launch
func.func @nested_assert_stays_on_host(%v: memref<4xf32>, %c: memref<4xf32>, %p: i1) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%v : memref<4xf32>) outs(%c : memref<4xf32>) {
  ^bb0(%x: f32, %out: f32):
    scf.if %p {
      cf.assert %p, "nested"
    }
    linalg.yield %x : f32
  }
  return
}

// -----

// 0-d ops (a scalar weight, torch-mlir's 0-d tensors) are kernels of one
// workgroup too, and constants the body captures are cloned into the
// kernel instead of becoming kernel arguments.
// CHECK-LABEL: func.func @zero_d_is_a_kernel
//  CHECK-SAME:   (%[[S:.*]]: memref<f32>, %[[R:.*]]: memref<f32>)
//   CHECK-NOT:   linalg.generic
//       CHECK:   gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c1, %{{.*}} = %c1) threads({{.*}}) in (%{{.*}} = %c32,
//       CHECK:     %[[X:.*]] = memref.load %[[S]][] : memref<f32>
//       CHECK:     %[[Y:.*]] = arith.mulf %[[X]], %{{.*}}
//       CHECK:     memref.store %[[Y]], %[[R]][] : memref<f32>
// Without canonicalization (which hoists constants out of the launch
// again; the pipelines outline the kernels first):
// SINK-LABEL: func.func @zero_d_is_a_kernel
//       SINK:   gpu.launch
//       SINK:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
//       SINK:     arith.mulf %{{.*}}, %[[TWO]]
func.func @zero_d_is_a_kernel(%s: memref<f32>, %r: memref<f32>) {
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []} ins(%s : memref<f32>) outs(%r : memref<f32>) {
  ^bb0(%x: f32, %out: f32):
    %y = arith.mulf %x, %two : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// A host copy between contiguous buffers is a gpu.memcpy: the runtime
// copies, whichever side is device memory.
// CHECK-LABEL: func.func @contiguous_copy_is_memcpy
//  CHECK-SAME:   (%[[SRC:.*]]: memref<4x8xf32>, %[[DST:.*]]: memref<4x8xf32>)
//   CHECK-NOT:   memref.copy
//       CHECK:   %[[T0:.*]] = gpu.wait async
//       CHECK:   %[[T1:.*]] = gpu.memcpy async [%[[T0]]] %[[DST]], %[[SRC]] : memref<4x8xf32>, memref<4x8xf32>
//       CHECK:   gpu.wait [%[[T1]]]
func.func @contiguous_copy_is_memcpy(%src: memref<4x8xf32>, %dst: memref<4x8xf32>) {
  memref.copy %src, %dst : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// A strided copy is left on the host unless strided-copies is set.
// CHECK-LABEL: func.func @pad_copy
//       CHECK:   memref.copy
func.func @pad_copy(%src: memref<67x97xbf16>, %dst: memref<67x104xbf16>) {
  %view = memref.subview %dst[0, 0] [67, 97] [1, 1] : memref<67x104xbf16> to memref<67x97xbf16, strided<[104, 1]>>
  memref.copy %src, %view : memref<67x97xbf16> to memref<67x97xbf16, strided<[104, 1]>>
  return
}
