// RUN: xpu-opt %s | FileCheck %s
// Round trip through the generic form too.
// RUN: xpu-opt %s --mlir-print-op-generic | xpu-opt | FileCheck %s

// The ops xpu-schedule-gemm writes for one workgroup's tile (the backends'
// tile emitters lower them; test/Conversion/XPUSchedule has the pass).
// Invalid uses are in invalid.mlir.
// The tile ops of scheduled programs: an output tile with its epilogue, a
// partial tile into a workspace slot, a fix-up of two slots; a pitched
// (40-wide) result buffer.
// CHECK-LABEL: func.func @tile_ops
//       CHECK:   xpu.gemm_tile output %{{.*}}, %{{.*}} into %{{.*}} epilogue(%{{.*}} : memref<36xf32>) at [%{{.*}}, %{{.*}}, %{{.*}}] k [%{{.*}}, %{{.*}}]
//       CHECK:     arith.addf
//       CHECK:   xpu.gemm_tile partial %{{.*}}, %{{.*}} into %{{.*}}[%{{.*}}] at [
//       CHECK:   xpu.gemm_fixup %{{.*}}[%{{.*}}, %{{.*}}] into %{{.*}} epilogue(
func.func @tile_ops(%a: memref<16x32xf32>, %b: memref<36x32xf32>, %c: memref<16x40xf32>, %bias: memref<36xf32>, %ws: memref<4x16x16xf32>, %i: index, %k0: index, %k1: index) {
  xpu.gemm_tile output %a, %b into %c epilogue(%bias : memref<36xf32>) at [%i, %i, %i] k [%k0, %k1] {acc_type = f32, broadcasts = [#xpu<broadcast per_col>], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, 16, 36, 32>, rhs_layout = #xpu<rhs_layout nk>} : memref<16x32xf32>, memref<36x32xf32>, memref<16x40xf32> {
  ^bb0(%acc: f32, %v: f32):
    %s = arith.addf %acc, %v : f32
    xpu.yield %s : f32
  }
  xpu.gemm_tile partial %a, %b into %ws[%i] at [%i, %i, %i] k [%k0, %k1] {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = stream_k<programs = 2>>, dims = array<i64: 1, 16, 36, 32>, rhs_layout = #xpu<rhs_layout nk>} : memref<16x32xf32>, memref<36x32xf32>, memref<4x16x16xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  xpu.gemm_fixup %ws[%i, %k0] into %c epilogue(%bias : memref<36xf32>) at [%i, %i, %i] {acc_type = f32, broadcasts = [#xpu<broadcast per_col>], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = stream_k<programs = 2>>, dims = array<i64: 1, 16, 36, 32>} : memref<4x16x16xf32>, memref<16x40xf32> {
  ^bb0(%acc: f32, %v: f32):
    %s = arith.addf %acc, %v : f32
    xpu.yield %s : f32
  }
  return
}

// Batched buffers whose slabs have padded rows (25 logical rows of A and of
// the result stored in 28, so that each batch starts 64-byte aligned) and
// padded row pitches.
// CHECK-LABEL: func.func @tile_batched_padded_rows
//       CHECK:   xpu.gemm_tile output %{{.*}}, %{{.*}} into %{{.*}} at [{{.*}}] k [{{.*}}] {{.*}} : memref<2x28x40xbf16>, memref<2x40x40xbf16>, memref<2x28x40xf32>
func.func @tile_batched_padded_rows(%a: memref<2x28x40xbf16>, %b: memref<2x40x40xbf16>, %c: memref<2x28x40xf32>, %i: index) {
  xpu.gemm_tile output %a, %b into %c at [%i, %i, %i] k [%i, %i] {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 2, 25, 40, 40>, rhs_layout = #xpu<rhs_layout kn>} : memref<2x28x40xbf16>, memref<2x40x40xbf16>, memref<2x28x40xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}

// A dynamic m (dims[1] = ShapedType::kDynamic, printed as the i64 it is):
// the rows come from `rows`, and lhs, the result and the per_row operand
// have a dynamic first dimension.
// CHECK-LABEL: func.func @tile_dynamic_m
//  CHECK-SAME: %[[M:[a-z0-9]+]]: index
//       CHECK:   xpu.gemm_tile output {{.*}} k [%{{.*}}, %{{.*}}] rows(%[[M]]) {{.*}}dims = array<i64: 1, -9223372036854775808, 36, 32>{{.*}} : memref<?x32xf32>, memref<36x32xf32>, memref<?x36xf32>
func.func @tile_dynamic_m(%a: memref<?x32xf32>, %b: memref<36x32xf32>, %c: memref<?x36xf32>, %r: memref<?xf32>, %m: index, %i: index) {
  xpu.gemm_tile output %a, %b into %c epilogue(%r : memref<?xf32>) at [%i, %i, %i] k [%i, %i] rows(%m) {acc_type = f32, broadcasts = [#xpu<broadcast per_row>], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, -9223372036854775808, 36, 32>, rhs_layout = #xpu<rhs_layout nk>} : memref<?x32xf32>, memref<36x32xf32>, memref<?x36xf32> {
  ^bb0(%acc: f32, %v: f32):
    %s = arith.addf %acc, %v : f32
    xpu.yield %s : f32
  }
  return
}
