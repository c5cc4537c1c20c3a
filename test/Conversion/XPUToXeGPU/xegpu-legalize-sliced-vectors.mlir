// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(xpu-xegpu-legalize-sliced-vectors))' | FileCheck %s
// What it is for: after it, upstream's lane propagation and distribution
// take the gathered row vector (one element per lane, no
// gpu.warp_execute_on_lane_0 left); without it they leave the kernel in one.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(xpu-xegpu-legalize-sliced-vectors,xegpu-propagate-layout{layout-kind=lane},xegpu-subgroup-distribute,canonicalize,cse))' | FileCheck %s --check-prefix=LANES
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(xegpu-propagate-layout{layout-kind=lane},xegpu-subgroup-distribute,canonicalize,cse))' | FileCheck %s --check-prefix=WITHOUT

// A per_col row vector as xegpu-blocking leaves it (convert-xpu-to-xegpu's
// gather of 32 columns for one subgroup, blocked into two 16-lane pieces):
// the instruction-level slice layouts go, the offsets [0..15] become
// vector.step and [16..31] vector.step + 16; the anchors (the loads' and
// the store's layouts) and the accumulator's plain layout stay.
// CHECK-LABEL: gpu.func @blocked_row_vector
//   CHECK-NOT:   #xegpu.slice
//   CHECK-NOT:   dense<[
//       CHECK:   %[[HS:.+]] = vector.step : vector<16xindex>
//       CHECK:   %[[C16:.+]] = arith.constant dense<16> : vector<16xindex>
//       CHECK:   %[[HI:.+]] = arith.addi %[[HS]], %[[C16]] : vector<16xindex>
//       CHECK:   %[[LO:.+]] = vector.step : vector<16xindex>
//       CHECK:   %[[O0:.+]] = arith.addi %[[SG:.+]], %[[LO]] : vector<16xindex>
//       CHECK:   %[[O1:.+]] = arith.addi %[[SG]], %[[HI]] : vector<16xindex>
//       CHECK:   xegpu.load %{{.+}}[%[[O0]]]
//       CHECK:   xegpu.load %{{.+}}[%[[O1]]]
//       CHECK:   vector.broadcast %{{.+}} : vector<16xf32> to vector<8x16xf32>
//       CHECK:   xegpu.store_nd
// LANES-LABEL: gpu.func @blocked_row_vector
//   LANES-NOT:   gpu.warp_execute_on_lane_0
//       LANES:   xegpu.load {{.*}} -> vector<1xf32>
//       LANES:   xegpu.load {{.*}} -> vector<1xf32>
//       LANES:   vector.broadcast %{{.+}} : vector<1xf32> to vector<8xf32>
// WITHOUT-LABEL: gpu.func @blocked_row_vector
//       WITHOUT:   gpu.warp_execute_on_lane_0
gpu.module @k {
  gpu.func @blocked_row_vector(%out: memref<64x256xf32>, %bias: memref<256xf32>) kernel {
    %c0 = arith.constant 0 : index
    %mask = arith.constant dense<true> : vector<16xi1>
    %hi = arith.constant {layout_result_0 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>} dense<[16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]> : vector<16xindex>
    %lo = arith.constant {layout_result_0 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>} dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
    %sg = gpu.subgroup_id : index
    %c32 = arith.constant 32 : index
    %col = arith.muli %sg, %c32 : index
    %cols = vector.broadcast %col {layout_result_0 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>} : index to vector<16xindex>
    %o0 = arith.addi %cols, %lo {layout_operand_0 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>, layout_operand_1 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>, layout_result_0 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>} : vector<16xindex>
    %o1 = arith.addi %cols, %hi {layout_operand_0 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>, layout_operand_1 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>, layout_result_0 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>} : vector<16xindex>
    %r0 = xegpu.load %bias[%o0], %mask <{chunk_size = 1 : i64}> : memref<256xf32>, vector<16xindex>, vector<16xi1> -> vector<16xf32>
    %r1 = xegpu.load %bias[%o1], %mask <{chunk_size = 1 : i64}> : memref<256xf32>, vector<16xindex>, vector<16xi1> -> vector<16xf32>
    %b0 = vector.broadcast %r0 {layout_operand_0 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>} : vector<16xf32> to vector<8x16xf32>
    %b1 = vector.broadcast %r1 {layout_operand_0 = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>} : vector<16xf32> to vector<8x16xf32>
    %po = memref.extract_aligned_pointer_as_index %out : memref<64x256xf32> -> index
    %poi = arith.index_castui %po : index to i64
    %d = xegpu.create_nd_tdesc %poi, shape : [64, 256], strides : [256, 1] : i64 -> !xegpu.tensor_desc<8x16xf32>
    %c16 = arith.constant 16 : index
    %col1 = arith.addi %col, %c16 : index
    xegpu.store_nd %b0, %d[%c0, %col] : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    xegpu.store_nd %b1, %d[%c0, %col1] : vector<8x16xf32>, !xegpu.tensor_desc<8x16xf32>
    gpu.return
  }
}

// -----

// Left alone: lane-level slice layouts, anchor layouts, and index
// constants that are no unit-stride sequence (splats, strides of 2).
// CHECK-LABEL: gpu.func @others_are_untouched
//       CHECK:   arith.constant dense<[0, 2, 4, {{.*}}, 28, 30]> : vector<16xindex>
//       CHECK:   arith.constant dense<3> : vector<16xindex>
//       CHECK:   arith.addi {{.*}} {layout_result_0 = #xegpu.slice<#xegpu.layout<lane_layout = [1, 16], lane_data = [1, 1]>, dims = [0]>}
//       CHECK:   xegpu.load {{.*}} <{chunk_size = 1 : i64, layout = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>}>
//   CHECK-NOT:   vector.step
gpu.module @k {
  gpu.func @others_are_untouched(%bias: memref<256xf32>) -> vector<16xf32> {
    %even = arith.constant dense<[0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30]> : vector<16xindex>
    %three = arith.constant dense<3> : vector<16xindex>
    %a = arith.addi %even, %three {layout_result_0 = #xegpu.slice<#xegpu.layout<lane_layout = [1, 16], lane_data = [1, 1]>, dims = [0]>} : vector<16xindex>
    %mask = arith.constant dense<true> : vector<16xi1>
    %r = xegpu.load %bias[%a], %mask <{chunk_size = 1 : i64, layout = #xegpu.slice<#xegpu.layout<inst_data = [8, 16]>, dims = [0]>}> : memref<256xf32>, vector<16xindex>, vector<16xi1> -> vector<16xf32>
    gpu.return %r : vector<16xf32>
  }
}
