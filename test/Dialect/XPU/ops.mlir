// RUN: xpu-opt %s --split-input-file | xpu-opt --split-input-file | FileCheck %s
// RUN: xpu-opt %s --split-input-file --mlir-print-op-generic | xpu-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @plain_gemm
//  CHECK-SAME:   %[[A:.+]]: tensor<64x128xf32>, %[[B:.+]]: tensor<128x256xf32>
//       CHECK:   %[[R:.+]] = xpu.gemm %[[A]], %[[B]] rhs_layout(kn) acc(f32) : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
//   CHECK-NOT:   epilogue
//       CHECK:   return %[[R]]
func.func @plain_gemm(%a: tensor<64x128xf32>, %b: tensor<128x256xf32>) -> tensor<64x256xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// A dynamic batch of rows (m) and a residual of the result's shape: the
// dynamic dimension is `?` wherever it appears.
// CHECK-LABEL: func.func @dynamic_rows
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) epilogue(%{{.+}} full : tensor<?x256xf32>, %{{.+}} per_row : tensor<?xf32>) {
//       CHECK:   } : (tensor<?x128xf32>, tensor<256x128xf32>) -> tensor<?x256xf32>
func.func @dynamic_rows(%x: tensor<?x128xf32>, %w: tensor<256x128xf32>, %res: tensor<?x256xf32>, %s: tensor<?xf32>) -> tensor<?x256xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%res full : tensor<?x256xf32>, %s per_row : tensor<?xf32>) {
  ^bb0(%acc: f32, %r: f32, %v: f32):
    %t = arith.addf %acc, %r : f32
    %u = arith.mulf %t, %v : f32
    xpu.yield %u : f32
  } : (tensor<?x128xf32>, tensor<256x128xf32>) -> tensor<?x256xf32>
  return %0 : tensor<?x256xf32>
}

// -----

// A batched GEMM whose batch and m are dynamic.
// CHECK-LABEL: func.func @dynamic_batch
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f32) : (tensor<?x?x32xf32>, tensor<?x32x16xf32>) -> tensor<?x?x16xf32>
func.func @dynamic_batch(%a: tensor<?x?x32xf32>, %b: tensor<?x32x16xf32>) -> tensor<?x?x16xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<?x?x32xf32>, tensor<?x32x16xf32>) -> tensor<?x?x16xf32>
  return %0 : tensor<?x?x16xf32>
}

// -----

// nn.Linear: [n, k] weights, bias per column, tanh.
// CHECK-LABEL: func.func @linear_bias_tanh
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) epilogue(%{{.+}} per_col : tensor<256xf32>) {
//       CHECK:   ^bb0(%[[ACC:.+]]: f32, %[[BIAS:.+]]: f32):
//       CHECK:     %[[T:.+]] = arith.addf %[[ACC]], %[[BIAS]] : f32
//       CHECK:     %[[R:.+]] = math.tanh %[[T]] : f32
//       CHECK:     xpu.yield %[[R]] : f32
//       CHECK:   } : (tensor<64x128xf32>, tensor<256x128xf32>) -> tensor<64x256xf32>
func.func @linear_bias_tanh(%x: tensor<64x128xf32>, %w: tensor<256x128xf32>, %b: tensor<256xf32>) -> tensor<64x256xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<256xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    %r = math.tanh %t : f32
    xpu.yield %r : f32
  } : (tensor<64x128xf32>, tensor<256x128xf32>) -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// Every broadcast kind, a batched GEMM, f16 operands with f32 accumulation
// and an f16 result, and a config.
// CHECK-LABEL: func.func @batched_all_kinds
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f32) epilogue(%{{.+}} scalar : tensor<f32>, %{{.+}} per_row : tensor<32xf32>, %{{.+}} per_col : tensor<16xf32>, %{{.+}} full : tensor<4x32x16xf16>)
//       CHECK:   } {config = #xpu.config<tile = [32, 16, 16], group_m = 4, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<4x32x8xf16>, tensor<4x8x16xf16>) -> tensor<4x32x16xf16>
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
  } {config = #xpu.config<tile = [32, 16, 16], group_m = 4, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>}
    : (tensor<4x32x8xf16>, tensor<4x8x16xf16>) -> tensor<4x32x16xf16>
  return %0 : tensor<4x32x16xf16>
}

// -----

// An epilogue without operands (ReLU on the accumulator).
// CHECK-LABEL: func.func @relu_only
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) epilogue {
//       CHECK:     arith.maximumf
func.func @relu_only(%a: tensor<8x4xf32>, %b: tensor<2x4xf32>) -> tensor<8x2xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(nk) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %acc, %z : f32
    xpu.yield %r : f32
  } : (tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<8x2xf32>
  return %0 : tensor<8x2xf32>
}

// -----

// Targets: presets print by name, overrides print only what differs, a
// custom chip prints every field; xpu.weight marks weight arguments.
// CHECK: module attributes {xpu.target = #xpu.target<"pvc">}
module attributes {xpu.target = #xpu.target<"pvc">} {
  // CHECK-LABEL: func.func @weights
  //  CHECK-SAME:   %{{.+}}: tensor<4x4xf32> {xpu.weight}
  func.func @weights(%x: tensor<4x4xf32>, %w: tensor<4x4xf32> {xpu.weight}) -> tensor<4x4xf32> {
    %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
    return %0 : tensor<4x4xf32>
  }
}

// -----

// CHECK: #xpu.target<"bmg", grf_count = 256>
module attributes {xpu.target = #xpu.target<"bmg", grf_count = 256>} {}

// -----

// CHECK: #xpu.target<"sm_90">
module attributes {xpu.target = #xpu.target<"sm_90">} {}

// -----

// CHECK: #xpu.target<"cpu">
module attributes {xpu.target = #xpu.target<"cpu">} {}

// -----

// CHECK: #xpu.target<"my-chip", vendor = "intel", subgroup_sizes = [16], grf_count = 128, grf_bytes = 64, slm_bytes = 65536, compute_units = 8, mma = [8, 16, 16], vector_bits = 512, peak_f32_gflops = 1000, peak_bf16_gflops = 8000, mem_gbps = 100>
module attributes {xpu.target = #xpu.target<"my-chip", vendor = "intel", subgroup_sizes = [16], grf_count = 128, grf_bytes = 64, slm_bytes = 65536, compute_units = 8, mma = [8, 16, 16], vector_bits = 512, peak_f32_gflops = 1000, peak_bf16_gflops = 8000, mem_gbps = 100>} {}

// -----

// Limits and capabilities: a preset prints those that differ from it; a
// chip of the user's those that differ from its vendor's first preset.
// CHECK: #xpu.target<"pvc", threads_per_unit = 32, large_grf_threads_per_unit = 16, max_workgroup_size = 512>
module attributes {xpu.target = #xpu.target<"pvc", threads_per_unit = 32, large_grf_threads_per_unit = 16, max_workgroup_size = 512>} {}

// -----

// CHECK: #xpu.target<"sm_90", blocks_per_unit = 16, registers_per_unit = 32768, max_block_slm_bytes = 100000, wgmma = true, tma = false>
module attributes {xpu.target = #xpu.target<"sm_90", wgmma = true, tma = false, blocks_per_unit = 16, registers_per_unit = 32768, max_block_slm_bytes = 100000>} {}

// -----

// CHECK: #xpu.target<"my-gpu", vendor = "nvidia", subgroup_sizes = [32], grf_count = 255, grf_bytes = 4, slm_bytes = 65536, compute_units = 4, mma = [16, 8, 16], vector_bits = 1024, peak_f32_gflops = 1000, peak_bf16_gflops = 8000, mem_gbps = 100, threads_per_unit = 48, dpas = true, block_2d = [64, 16, 64, 4, 64]>
module attributes {xpu.target = #xpu.target<"my-gpu", vendor = "nvidia", subgroup_sizes = [32], grf_count = 255, grf_bytes = 4, slm_bytes = 65536, compute_units = 4, mma = [16, 8, 16], vector_bits = 1024, peak_f32_gflops = 1000, peak_bf16_gflops = 8000, mem_gbps = 100, threads_per_unit = 48, dpas = true, block_2d = [64, 16, 64, 4, 64]>} {}

// -----

// The unit marks of xpu-demote-f64 (xpu.keep_f64) and
// xpu-split-gemm-reduction (xpu.reduction_consumer).
// CHECK-LABEL: func.func @gemm_marks
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(kn) acc(f64) {xpu.keep_f64} : (tensor<4x8xf64>, tensor<8x2xf64>) -> tensor<4x2xf64>
//       CHECK:   xpu.gemm %{{.+}}, %{{.+}} rhs_layout(nk) acc(f32) {xpu.reduction_consumer} : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x2xf32>
func.func @gemm_marks(%a: tensor<4x8xf64>, %b: tensor<8x2xf64>, %c: tensor<4x8xf32>, %d: tensor<2x8xf32>) -> (tensor<4x2xf64>, tensor<4x2xf32>) {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f64) {xpu.keep_f64} : (tensor<4x8xf64>, tensor<8x2xf64>) -> tensor<4x2xf64>
  %1 = xpu.gemm %c, %d rhs_layout(nk) acc(f32) {xpu.reduction_consumer} : (tensor<4x8xf32>, tensor<2x8xf32>) -> tensor<4x2xf32>
  return %0, %1 : tensor<4x2xf64>, tensor<4x2xf32>
}

// -----

// The SIMT layout knob round-trips.
// CHECK-LABEL: func.func @simt_knobs
//       CHECK:   backend = #xpu.simt<vector = 4>>}
//       CHECK:   backend = #xpu.simt<vector = 2>>}
func.func @simt_knobs(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 16], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.simt<vector = 4>>} : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  %1 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 16], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.simt<vector = 2>>} : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// The NVIDIA tensor-core knobs round-trip; precision = native is the default
// and is not printed.
// CHECK-LABEL: func.func @nvgpu_knobs
//       CHECK:   backend = #xpu.nvgpu<mma = wgmma>>}
//       CHECK:   backend = #xpu.nvgpu<mma = mma_sync, precision = tf32>>}
//       CHECK:   backend = #xpu.nvgpu<mma = mma_sync>>}
func.func @nvgpu_knobs(%a: tensor<64x32xbf16>, %b: tensor<32x64xbf16>, %c: tensor<64x32xf32>, %d: tensor<32x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<64x32xbf16>, tensor<32x64xbf16>) -> tensor<64x64xf32>
  %1 = xpu.gemm %c, %d rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 16], group_m = 8, subgroups = [2, 2], stages = 3, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync, precision = tf32>>} : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  %2 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 3, schedule = stream_k<programs = 8>, backend = #xpu.nvgpu<mma = mma_sync, precision = native>>} : (tensor<64x32xbf16>, tensor<32x64xbf16>) -> tensor<64x64xf32>
  return %0, %1, %2 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}

// -----

// Schedules with their parameters round-trip; a config without a backend
// sub-attribute is for the SIMT kernels.
// CHECK-LABEL: func.func @schedules
//  CHECK-SAME:   attributes {sched = #xpu.schedule<stream_k<programs = 4>>}
//       CHECK:   schedule = persistent<programs = 256>>}
//       CHECK:   schedule = stream_k<programs = 128>, backend = #xpu.xe<grf_mode = 128>>}
//       CHECK:   schedule = stream_k<fixup = atomic>>}
func.func @schedules(%a: tensor<64x32xf32>, %b: tensor<32x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>) attributes {sched = #xpu.schedule<stream_k<programs = 4>>} {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 32, 16], group_m = 8, subgroups = [2, 2], stages = 2, schedule = persistent<programs = 256>>} : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  %1 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 32, 16], group_m = 8, subgroups = [2, 2], stages = 2, schedule = stream_k<programs = 128, fixup = deterministic>, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  %2 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 32, 16], group_m = 8, subgroups = [2, 2], stages = 2, schedule = stream_k<fixup = atomic>>} : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
  return %0, %1, %2 : tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>
}
