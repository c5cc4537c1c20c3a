// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops=dynamic-shapes=true --canonicalize --cse | FileCheck %s
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops=dynamic-shapes=true --xpu-remarks --mlir-disable-threading 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// Without dynamic-shapes the ops stay on the host.
// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops | FileCheck %s --check-prefix=HOST
// HOST-NOT: gpu.launch

// A dynamic leading dimension (a batch known at run time): the loop range
// is read on the host (memref.dim), the work-items are counted from it
// (rows x 48), and the workgroups of 256 are ceil(points / 256), at least
// one; the kernel's range check uses the host's count.
// CHECK-LABEL: func.func @elementwise(
// CHECK: %[[ROWS:.*]] = memref.dim %{{.*}}, %c0 : memref<?x48xf32>
// CHECK: %[[POINTS:.*]] = arith.muli %[[ROWS]], %c48
// CHECK: %[[UP:.*]] = arith.addi %[[POINTS]], %c255
// CHECK: %[[GROUPS:.*]] = arith.divui %[[UP]], %c256
// CHECK: %[[ATLEAST:.*]] = arith.maxui %[[GROUPS]], %c1
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ATLEAST]], %{{.*}} = %c1, %{{.*}} = %c1) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c256,
// CHECK: %[[ID:.*]] = arith.addi
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[ID]], %[[POINTS]]
// CHECK: scf.if %[[IN]]
// CHECK: memref.load %{{.*}} : memref<?x48xf32>
// CHECK: math.exp
// CHECK: memref.store %{{.*}} : memref<?x48xf32>
// REMARK: remark: [Passed] Elementwise | Category:xpu-linalg-to-gpu-loops | Reason="linalg.generic over ?x48: one work-item per element, a run-time count of workgroup(s) of 256"
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%x: memref<?x48xf32>, %y: memref<?x48xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<?x48xf32>) outs(%y : memref<?x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A row reduction over dynamic rows: one workgroup per row, the rows read
// on the host (at least one workgroup; a workgroup past the rows does
// nothing, all its work-items alike, so no barrier is left waiting). The
// shared memory is allocated at the top of the kernel.
// CHECK-LABEL: func.func @row_sum(
// CHECK: %[[ROWS:.*]] = memref.dim %{{.*}}, %c0 : memref<?x48xf32>
// CHECK: %[[ATLEAST:.*]] = arith.maxui %[[ROWS]], %c1
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[ATLEAST]], %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c64,
// CHECK-NEXT: memref.alloc() : memref<64xf32, 3>
// CHECK-NEXT: %[[ROW:.*]] = arith.cmpi ult, %[[B]], %[[ROWS]]
// CHECK-NEXT: scf.if %[[ROW]] {
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[B]]] : memref<?xf32>
// REMARK: remark: [Passed] RowReduction | Category:xpu-linalg-to-gpu-loops | Reason="linalg.generic over ?x48: row reduction, one workgroup of 64 work-items per output (a run-time count of workgroups), addf over 48 elements combined in shared local memory"
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%x: memref<?x48xf32>, %s: memref<?xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x48xf32>) outs(%s : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A reduction over the dynamic dimension (column sums): one work-item per
// column, the rows reduced in a loop to the host's count.
// CHECK-LABEL: func.func @column_sum(
// CHECK: %[[ROWS:.*]] = memref.dim %{{.*}}, %c0 : memref<?x48xf32>
// CHECK: gpu.launch
// CHECK: scf.for %{{.*}} = %c0 to %[[ROWS]] step %c1
// REMARK: remark: [Passed] PerOutput | Category:xpu-linalg-to-gpu-loops | Reason="linalg.generic over ?x48: one work-item per output, 1 workgroup(s) of 64, ? elements reduced in a loop (a reduced length known at run time)"
func.func @column_sum(%x: memref<?x48xf32>, %s: memref<48xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<?x48xf32>) outs(%s : memref<48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// A dynamic inner dimension: its strides would be dynamic, which a bare
// pointer cannot address; the op stays on the host.
// CHECK-LABEL: func.func @dynamic_inner(
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
func.func @dynamic_inner(%x: memref<4x?xf32>, %y: memref<4x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x?xf32>) outs(%y : memref<4x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  return
}
