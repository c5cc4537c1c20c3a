// The pass lowers the programs xpu-schedule-gemm builds.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm),convert-xpu-to-nvgpu)' | FileCheck %s
// Remarks (single-threaded: the remark engine drops remarks of split chunks
// processed on other threads).
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm),convert-xpu-to-nvgpu)' '--remarks-filter=.*convert-xpu-to-nvgpu.*' --verify-diagnostics --mlir-disable-threading > /dev/null
// tma-store=false: data-parallel wgmma tiles store C from the registers.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm),convert-xpu-to-nvgpu{tma-store=false})' | FileCheck %s --check-prefix=DIRECT
// tma-store-staged: staged epilogues store with TMA too.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm),convert-xpu-to-nvgpu{tma-store-staged=true})' | FileCheck %s --check-prefix=STAGEDTMA
// A tensor-core GEMM that was not scheduled is an error at the GEMM.
// RUN: not xpu-opt %s --split-input-file --convert-xpu-to-nvgpu 2>&1 | FileCheck %s --check-prefix=UNSCHEDULED
// UNSCHEDULED: convert-xpu-to-nvgpu.mlir:{{[0-9]+}}:{{[0-9]+}}: error: convert-xpu-to-nvgpu: xpu.gemm is not scheduled; run xpu-schedule-gemm first

// sm_90, nn.Linear(128, 512) in bf16 + bias + ReLU on [256, 128], tile
// 128x128x32 on 2x2 warps of 64x64, 3 stages. 2 x 4 = 8 workgroups of 128
// threads; dynamic shared memory 3 * (128 + 128) * 32 * 2 = 49152 bytes
// (A slots at 0, B at 3 * 128 * 32 * 2 = 24576). Per k tile each thread
// copies 128 * 4 / 128 = 4 chunks of A and 4 of B (16 bytes = 8 bf16),
// unmasked (every size divides). Per k-step (32 / 16 = 2 per k tile): 4
// ldmatrix.x4 of A (64 rows / 16), 4 of B ([n, k]: 64 columns / 16, no
// transpose), 4 x 8 mma.sync m16n8k16; all 32 accumulators loop-carried
// with the last commit group's token. Epilogue on the registers: 4 x 8
// tiles x 2 row halves = 64 stores of bf16 pairs. The register budget is
// the model's: 128 accumulators + 2 * (4 * 4 + 2 * 8) fragments + 32 + 2 *
// 1 live value = 226.
module attributes {xpu.target = #xpu.target<"sm_90">} {
// CHECK-LABEL: func.func @linear_bias_relu
//       CHECK:   %[[A:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<256x128xbf16> to memref<256x128xbf16>
//       CHECK:   %[[B:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<512x128xbf16> to memref<512x128xbf16>
//       CHECK:   %[[BIAS:.+]] = bufferization.to_buffer %{{.+}} read_only : tensor<512xf32> to memref<512xf32>
//       CHECK:   %[[C:.+]] = memref.alloc() {alignment = 64 : i64} : memref<256x512xbf16>
//       CHECK:   %[[SMEM:.+]] = arith.constant 49152 : i32
//       CHECK:   %[[THREADS:.+]] = arith.constant 128 : index
//       CHECK:   %[[TILES:.+]] = arith.constant 8 : index
//       CHECK:   gpu.launch_func @linear_bias_relu_mma0::@linear_bias_relu_mma0 blocks in (%[[TILES]], %{{.+}}, %{{.+}}) threads in (%[[THREADS]], %{{.+}}, %{{.+}}) dynamic_shared_memory_size %[[SMEM]] args(%[[A]] : memref<256x128xbf16>, %[[B]] : memref<512x128xbf16>, %[[C]] : memref<256x512xbf16>, %[[BIAS]] : memref<512xf32>)
//       CHECK:   %[[R:.+]] = bufferization.to_tensor %[[C]] restrict writable
//       CHECK:   return %[[R]]
//       CHECK: gpu.module @linear_bias_relu_mma0
//       CHECK:   gpu.func @linear_bias_relu_mma0({{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, known_grid_size = array<i32: 8, 1, 1>, nvvm.maxnreg = 226 : i32}
// The program id walks the 2 x 4 tiles column by column (one GROUP_SIZE_M
// group).
//       CHECK:     %[[PID:.+]] = gpu.block_id  x
//       CHECK:     arith.remui %[[PID]], %c2
//       CHECK:     arith.divui %[[PID]], %c2
//       CHECK:     memref.collapse_shape %{{.+}} {{\[}}[0, 1]] : memref<256x512xbf16> into memref<131072xbf16>
//       CHECK:     gpu.dynamic_shared_memory
//       CHECK:     memref.view %{{.+}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x128x32xbf16, #gpu.address_space<workgroup>>
//       CHECK:     memref.view %{{.+}}[%c24576][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x128x32xbf16, #gpu.address_space<workgroup>>
// Prologue: k tiles 0 and 1.
//       CHECK:     scf.if
// CHECK-COUNT-8:     nvgpu.device_async_copy {{.+}}, 8 {bypassL1} : memref<{{32768|65536}}xbf16> to memref<3x128x32xbf16, #gpu.address_space<workgroup>>
//       CHECK:       nvgpu.device_async_create_group
//       CHECK:     } else {
//       CHECK:       nvgpu.device_async_create_group{{ *$}}
//       CHECK:     scf.if
//       CHECK:     scf.for {{.+}} -> (vector<2x2xf32>, {{.+}}, !nvgpu.device.async.token)
//       CHECK:       nvgpu.device_async_wait %{{.+}} {numGroups = 1 : i32}
//       CHECK:       gpu.barrier
// CHECK-COUNT-8:     nvgpu.device_async_copy
// CHECK-COUNT-8:     nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = false} : memref<3x128x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
//       CHECK:       nvgpu.ldmatrix
// CHECK-COUNT-32:    nvgpu.mma.sync({{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-COUNT-32:    nvgpu.mma.sync
//       CHECK:       scf.yield
//       CHECK:     arith.maximumf
//       CHECK:     arith.truncf
//       CHECK:     vector.store %{{.+}}, %{{.+}}[%{{.+}}] {alignment = 4 : i64} : memref<131072xbf16>, vector<2xbf16>
//   CHECK-NOT:     scf.if
// CHECK-COUNT-63:  vector.store
//   CHECK-NOT:     vector.store
//       CHECK:     gpu.return
func.func @linear_bias_relu(%x: tensor<256x128xbf16>, %w: tensor<512x128xbf16>, %b: tensor<512xf32>) -> tensor<256x512xbf16> {
  // expected-remark @+1 {{linear_bias_relu_mma0: 256x512x128 on tensor cores, mma.sync m16n8k16 bf16, f32 accumulators: 8 program(s), 1 tile op(s) (data_parallel) of 128 threads (2x2 warps of 64x64), tile 128x128x32, 3-stage cp.async pipeline, 49152 bytes of dynamic shared memory, B read as [n, k] (ldmatrix); 128 accumulators and 64 fragment registers per thread, at most 226 registers (.maxnreg: the register model's estimate, 226, at least 96)}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<512xf32>) {
  ^bb0(%acc: f32, %bv: f32):
    %t = arith.addf %acc, %bv : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %t, %z : f32
    %o = arith.truncf %r : f32 to bf16
    xpu.yield %o : bf16
  } {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [2, 2], stages = 3, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<256x128xbf16>, tensor<512x128xbf16>) -> tensor<256x512xbf16>
  return %g : tensor<256x512xbf16>
}
}

// -----

// A [k, n] B of f16 (torch.mm): B slots are tk x tn = 32 x 64, read with
// ldmatrix.x4.trans; one warp of 32x64 holds 2 x 8 tiles. Odd sizes
// 100 x 72 x 40: every M, N and K edge is masked. K = 40 f16 is 80 bytes
// per row, a multiple of 16: no new pitch. The copies of A carry a source
// size (zero-filled past K and past M), those of B a predicate (the k row
// past K, the chunk past N); the stores are guarded on both edges.
module attributes {xpu.target = #xpu.target<"sm_90">} {
// CHECK-LABEL: func.func @f16_kn_masked
//       CHECK:   gpu.launch_func @f16_kn_masked_mma0::@f16_kn_masked_mma0 blocks in (%c8, %{{.+}}, %{{.+}}) threads in (%c32, %{{.+}}, %{{.+}}) dynamic_shared_memory_size %c12288_i32
//       CHECK: gpu.func @f16_kn_masked_mma0
//       CHECK:   nvgpu.device_async_copy %{{.+}}[%{{.+}}], %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}], 8, %{{.+}} {bypassL1} : memref<4000xf16> to memref<2x32x32xf16, #gpu.address_space<workgroup>>
//       CHECK:   nvgpu.device_async_copy %{{.+}}[%{{.+}}], %{{.+}}[%{{.+}}, %{{.+}}, %{{.+}}], 8, %{{.+}} {bypassL1} : memref<2880xf16> to memref<2x32x64xf16, #gpu.address_space<workgroup>>
//       CHECK:   nvgpu.ldmatrix %{{.+}} {numTiles = 4 : i32, transpose = true} : memref<2x32x64xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
//       CHECK:   nvgpu.mma.sync({{.+}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
//       CHECK:   arith.cmpi slt
//       CHECK:   scf.if
//       CHECK:     vector.store %{{.+}} {alignment = 8 : i64} : memref<7200xf32>, vector<2xf32>
func.func @f16_kn_masked(%a: tensor<100x40xf16>, %b: tensor<40x72xf16>) -> tensor<100x72xf32> {
  // expected-remark @+1 {{f16_kn_masked_mma0: 100x72x40 on tensor cores, mma.sync m16n8k16 f16, f32 accumulators: 8 program(s), 1 tile op(s) (data_parallel) of 32 threads (1x1 warps of 32x64), tile 32x64x32, 2-stage cp.async pipeline, 12288 bytes of dynamic shared memory, B read as [k, n] (ldmatrix.trans); 64 accumulators and 48 fragment registers per thread, at most 146 registers (.maxnreg: the register model's estimate, 146, at least 96)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 64, 32], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<100x40xf16>, tensor<40x72xf16>) -> tensor<100x72xf32>
  return %g : tensor<100x72xf32>
}
}

// -----

// Rows that are not 16-byte multiples and were not padded by
// xpu-materialize-layouts (the fallback): K = 97 bf16 (194 bytes) gets a new
// pitch of 104 elements for A and for the [n, k] B, each copied by a
// one-thread-per-element kernel launched before the GEMM, on every call,
// with a missed remark. N = 67 is odd: the results are stored one element
// at a time, each guarded.
module attributes {xpu.target = #xpu.target<"sm_90">} {
// CHECK-LABEL: func.func @repitch_odd
//       CHECK:   %[[AP:.+]] = memref.alloc() {alignment = 128 : i64} : memref<131x104xbf16>
//       CHECK:   gpu.launch_func @repitch_odd_mma0_copy::@repitch_odd_mma0_copy_repitch0 blocks in (%c54, {{.+}}) threads in (%c256, {{.+}}) args(%{{.+}} : memref<12707xbf16>, %{{.+}} : memref<13624xbf16>)
//       CHECK:   %[[BP:.+]] = memref.alloc() {alignment = 128 : i64} : memref<67x104xbf16>
//       CHECK:   gpu.launch_func @repitch_odd_mma0_copy::@repitch_odd_mma0_copy_repitch1
//       CHECK:   gpu.launch_func @repitch_odd_mma0::@repitch_odd_mma0 {{.+}} args(%[[AP]] : memref<131x104xbf16>, %[[BP]] : memref<67x104xbf16>, %{{.+}} : memref<131x67xf32>)
//       CHECK: gpu.func @repitch_odd_mma0_copy_repitch0(%{{.+}}: memref<12707xbf16>, %{{.+}}: memref<13624xbf16>) kernel
//       CHECK: gpu.func @repitch_odd_mma0(
//   CHECK-NOT:   vector.store
//       CHECK:   memref.store
func.func @repitch_odd(%x: tensor<131x97xbf16>, %w: tensor<67x97xbf16>) -> tensor<131x67xf32> {
  // expected-remark @+3 {{A: rows of 97 x 2 bytes are not 16-byte multiples (cp.async and TMA read 16-byte aligned rows): copied by a kernel into rows of 104 elements, zero-filled, before the GEMM on every call (xpu-materialize-layouts pads them once, on tensors)}}
  // expected-remark @+2 {{B: rows of 97 x 2 bytes are not 16-byte multiples (cp.async and TMA read 16-byte aligned rows): copied by a kernel into rows of 104 elements, zero-filled, before the GEMM on every call (xpu-materialize-layouts pads them once, on tensors)}}
  // expected-remark @+1 {{repitch_odd_mma0: 131x67x97 on tensor cores}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [32, 32, 32], group_m = 8, subgroups = [1, 1], stages = 3, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<131x97xbf16>, tensor<67x97xbf16>) -> tensor<131x67xf32>
  return %g : tensor<131x67xf32>
}
}

// -----

// A SIMT config (no #xpu.nvgpu knobs: f32 operands without tf32) is left to
// the SIMT kernels (the tf32 RUN lines of xpu-nvvm-pipeline.mlir cover
// #xpu.nvgpu<mma = mma_sync, precision = tf32>).
module attributes {xpu.target = #xpu.target<"sm_90">} {
// CHECK-LABEL: func.func @f32_left_alone
//       CHECK:   scf.forall
//       CHECK:     xpu.gemm_tile output
//   CHECK-NOT: gpu.module
func.func @f32_left_alone(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{f32 operands with a simt config: left to the simt backend's lowering; xpu-select-strategy gives the GEMMs that the tensor cores take (16-bit operands, or f32 with tf32) an #xpu.nvgpu config}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// sm_90a: TMA and wgmma (#xpu.nvgpu<mma = wgmma>). A batched bf16 GEMM,
// [k, n] B, tile 128x256 (two
// consumer warpgroups of 64 rows and a producer: 384 threads), k tiles of
// 64 (one 128-byte swizzled row), 4 stages of (128 + 256) * 64 * 2 = 49152
// bytes = 196608 bytes; 2 x 2 tiles x 3 batches = 12 programs. The
// descriptors are 3-D (boxes 1 x 128 x 64 and 1 x 64 x 64), made on the
// host and passed as pointers; the buffers follow them so that they
// outlive the launch. Per k tile the producer loads A once and B in
// 256 / 64 = 4 boxes; each consumer runs 64 / 16 = 4 wgmma m64n256k16.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @bmm_wgmma
//       CHECK:   nvgpu.tma.create.descriptor %{{.+}} box[%c1{{.*}}, %c128{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<1x128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
//       CHECK:   nvgpu.tma.create.descriptor %{{.+}} box[%c1{{.*}}, %c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<1x64x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:   gpu.launch_func @bmm_wgmma_mma0::@bmm_wgmma_mma0 blocks in (%c12, %{{.+}}, %{{.+}}) threads in (%c384, {{.+}}) dynamic_shared_memory_size %c196608_i32 args(%{{.+}} : !llvm.ptr, %{{.+}} : !llvm.ptr, %{{.+}} : memref<3x256x128xbf16>, %{{.+}} : memref<3x128x512xbf16>, %{{.+}} : memref<3x256x512xbf16>)
//       CHECK: gpu.func @bmm_wgmma_mma0({{.*}}) kernel attributes {known_block_size = array<i32: 384, 1, 1>, known_grid_size = array<i32: 12, 1, 1>}
//       CHECK:   nvgpu.mbarrier.create
//       CHECK:   nvgpu.mbarrier.create
// CHECK-COUNT-4:   nvgpu.mbarrier.init %{{.+}}[%{{.+}}], %c1
//       CHECK:   gpu.barrier
//       CHECK:   nvvm.setmaxregister decrease 40
//       CHECK:   nvgpu.mbarrier.try_wait.parity
//       CHECK:   nvgpu.mbarrier.arrive.expect_tx %{{.+}}[%{{.+}}], %c49152
// CHECK-COUNT-5:   nvgpu.tma.async.load
//       CHECK:   nvvm.setmaxregister increase 232
//       CHECK:   nvgpu.mbarrier.try_wait.parity
//       CHECK:   nvvm.wgmma.fence.aligned
// CHECK-COUNT-4:   nvvm.wgmma.mma_async {{.+}} <m = 64, n = 256, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
//       CHECK:   nvvm.wgmma.commit.group.sync.aligned
//       CHECK:   nvvm.wgmma.wait.group.sync.aligned 1
//       CHECK:   nvgpu.mbarrier.arrive
//       CHECK:   nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:   llvm.extractvalue
//       CHECK:   vector.store
func.func @bmm_wgmma(%a: tensor<3x256x128xbf16>, %b: tensor<3x128x512xbf16>) -> tensor<3x256x512xbf16> {
  // expected-remark @+1 {{bmm_wgmma_mma0: 3x(256x512x128) on tensor cores, wgmma m64n256k16 bf16, f32 accumulators: 12 program(s), 1 tile op(s) (data_parallel) of 384 threads (1 TMA producer warpgroup, 2 consumer warpgroup(s) of 64 rows), tile 128x256x64, 4-stage TMA/mbarrier ring with 128-byte swizzle, 196608 bytes of dynamic shared memory, B read N-major ([k, n]); 128 accumulators per consumer thread}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %t = arith.truncf %acc : f32 to bf16
    xpu.yield %t : bf16
  } {config = #xpu.config<tile = [128, 256, 64], group_m = 8, subgroups = [2, 4], stages = 4, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<3x256x128xbf16>, tensor<3x128x512xbf16>) -> tensor<3x256x512xbf16>
  return %g : tensor<3x256x512xbf16>
}
}

// -----

// sm_90a, a heavy epilogue (GELU with erf, about 33 instructions an element
// by nvidia::estimateEpilogueInstructions; 128 elements a thread would be
// some 4200 instructions of straight-line code, run cold once per tile):
// each data-parallel workgroup computes one tile, so once both consumers'
// wgmma are done (named barrier 1 over the 256 consumer threads) the ring
// (4 x 49152 bytes) holds the f32 tile, 16 x 256 x 4 = 16384 bytes per warp.
// Each warp stores its 64 pairs of accumulators, then one loop of 16 rows x
// 64 quads / 32 lanes = 32 iterations applies the epilogue (one copy of it:
// 2 pairs of 2 elements) and stores bf16 pairs. The persistent schedule
// (several tiles a workgroup: the producer runs ahead into the ring) keeps
// the epilogue on the registers.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @staged_epilogue
//       CHECK: gpu.func @staged_epilogue_mma0(
//       CHECK:   nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:   nvvm.barrier id = %{{.+}} number_of_threads = %{{.+}}
//   CHECK-NOT:   math.erf
// CHECK-COUNT-64:   vector.store %{{.+}}, %{{.+}}[%{{.+}}] {alignment = 8 : i64} : memref<4096xf32, #gpu.address_space<workgroup>>, vector<2xf32>
//   CHECK-NOT:   math.erf
//       CHECK:   nvvm.bar.warp.sync
//       CHECK:   scf.for %{{.+}} = %c0{{.*}} to %c32{{.*}} step %c1
//       CHECK:     vector.load %{{.+}}[%{{.+}}] {alignment = 16 : i64} : memref<4096xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-COUNT-2:     math.erf
//       CHECK:       vector.store %{{.+}}, %{{.+}}[%{{.+}}] {alignment = 4 : i64} : memref<{{[0-9]+}}xbf16>, vector<2xbf16>
// CHECK-COUNT-2:     math.erf
//       CHECK:       vector.store
//   CHECK-NOT:     math.erf
//   CHECK-NOT:   nvgpu.tma.async.store
//       CHECK:   gpu.return
// With tma-store-staged, the loop writes the 4 bf16 results into its
// warpgroup's TMA boxes after the staged tile (8 bytes in one 16-byte
// chunk), which one thread of the warpgroup stores.
//   STAGEDTMA-LABEL: gpu.func @staged_epilogue_mma0(
//         STAGEDTMA:   nvvm.bar.warp.sync
//         STAGEDTMA:   %[[BOXES:.+]] = memref.view %{{.+}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<98304xbf16, #gpu.address_space<workgroup>>
//         STAGEDTMA:   scf.for %{{.+}} = %c0{{.*}} to %c32{{.*}} step %c1
//         STAGEDTMA:     vector.load %{{.+}}[%{{.+}}] {alignment = 16 : i64} : memref<4096xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// STAGEDTMA-COUNT-4:     math.erf
//         STAGEDTMA:     vector.shuffle %{{.+}}, %{{.+}} [0, 1, 2, 3] : vector<2xbf16>, vector<2xbf16>
//         STAGEDTMA:     vector.store %{{.+}}, %[[BOXES]][%{{.+}}] {alignment = 8 : i64} : memref<98304xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
//     STAGEDTMA-NOT:     math.erf
//         STAGEDTMA:   nvvm.fence.proxy
//         STAGEDTMA:   nvvm.barrier id = %{{.+}} number_of_threads = %c128_i32
// STAGEDTMA-COUNT-4:     nvgpu.tma.async.store %{{.+}} : memref<64x64xbf16, #gpu.address_space<workgroup>>
//         STAGEDTMA:     nvvm.cp.async.bulk.commit.group
//         STAGEDTMA:     nvvm.cp.async.bulk.wait_group 0 {read}
//     STAGEDTMA-NOT:   math.erf
//         STAGEDTMA:   gpu.return
//       CHECK: gpu.func @staged_epilogue_mma1(
//       CHECK:   nvvm.wgmma.wait.group.sync.aligned 0
//   CHECK-NOT:   nvvm.bar.warp.sync
// CHECK-COUNT-128:   math.erf
//   CHECK-NOT:   math.erf
//       CHECK:   gpu.return
func.func @staged_epilogue(%x: tensor<256x512xbf16>, %w: tensor<512x512xbf16>, %bias: tensor<512xf32>) -> (tensor<256x512xbf16>, tensor<256x512xbf16>) {
  // expected-remark @+1 {{staged_epilogue_mma0: 256x512x512 on tensor cores, wgmma m64n256k16 bf16, f32 accumulators: 4 program(s), 1 tile op(s) (data_parallel) of 384 threads (1 TMA producer warpgroup, 2 consumer warpgroup(s) of 64 rows), tile 128x256x64, 4-stage TMA/mbarrier ring with 128-byte swizzle, 196608 bytes of dynamic shared memory, B read K-major ([n, k]); 128 accumulators per consumer thread; epilogue in a loop over the accumulators staged through the ring's shared memory (about 33 instructions an element: straight-line code for 128 elements would pass 2048)}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%bias per_col : tensor<512xf32>) {
  ^bb0(%acc: f32, %b: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.707106769 : f32
    %v = arith.addf %acc, %b : f32
    %s = arith.mulf %v, %rsqrt2 : f32
    %e = math.erf %s : f32
    %p = arith.addf %e, %one : f32
    %h = arith.mulf %v, %half : f32
    %r = arith.mulf %h, %p : f32
    %o = arith.truncf %r : f32 to bf16
    xpu.yield %o : bf16
  } {config = #xpu.config<tile = [128, 256, 64], group_m = 8, subgroups = [2, 4], stages = 4, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<256x512xbf16>, tensor<512x512xbf16>) -> tensor<256x512xbf16>
  // expected-remark @+1 {{staged_epilogue_mma1: 256x512x512 on tensor cores, wgmma m64n256k16 bf16, f32 accumulators: 2 program(s), 1 tile op(s) (persistent) of 384 threads (1 TMA producer warpgroup, 2 consumer warpgroup(s) of 64 rows), tile 128x256x64, 4-stage TMA/mbarrier ring with 128-byte swizzle, 196608 bytes of dynamic shared memory, B read K-major ([n, k]); 128 accumulators per consumer thread; epilogue on the accumulator registers}}
  %k = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%bias per_col : tensor<512xf32>) {
  ^bb0(%acc: f32, %b: f32):
    %half = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %rsqrt2 = arith.constant 0.707106769 : f32
    %v = arith.addf %acc, %b : f32
    %s = arith.mulf %v, %rsqrt2 : f32
    %e = math.erf %s : f32
    %p = arith.addf %e, %one : f32
    %h = arith.mulf %v, %half : f32
    %r = arith.mulf %h, %p : f32
    %o = arith.truncf %r : f32 to bf16
    xpu.yield %o : bf16
  } {config = #xpu.config<tile = [128, 256, 64], group_m = 8, subgroups = [2, 4], stages = 4, schedule = persistent<programs = 2>, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<256x512xbf16>, tensor<512x512xbf16>) -> tensor<256x512xbf16>
  return %g, %k : tensor<256x512xbf16>, tensor<256x512xbf16>
}
}

// -----

// sm_90a, pingpong consumers on 3 persistent programs over the 2 x 4 = 8
// tiles of 128x128: the kernel branches on the warpgroup once, around the
// tile loop; the producer (warpgroup 2) gives registers up and loads every
// tile's k tiles, the consumers take registers and go through every tile
// too (to count the ring's k tiles), and tile i goes to consumer i % 2:
// 2 wgmma m64n128k16 (one per 64-row block) per k-step, 4 k-steps per k
// tile, then, once it has issued its last wgmma, it arrives on named
// barrier 2 + i % 2 (256 threads: both consumers), waits for its wgmma and
// applies the epilogue
// to its 2 x 16 x 2 bf16 pairs; the other one waits on that barrier before
// its next tile. A slot is read by one consumer: every mbarrier counts 1.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @pingpong
//       CHECK: gpu.func @pingpong_mma0(
// CHECK-COUNT-8:   nvgpu.mbarrier.init %{{.+}}[%{{.+}}], %c1{{(_[0-9]+)?}} :
//       CHECK:   scf.if
//  CHECK-NEXT:     nvvm.setmaxregister  decrease 40
//       CHECK:     scf.for %{{.+}} = %block_id_x to %c8{{.*}} step %c3
//       CHECK:       nvgpu.tma.async.load
//   CHECK-NOT:       nvvm.wgmma
//       CHECK:   } else {
//  CHECK-NEXT:     nvvm.setmaxregister  increase 232
//       CHECK:     scf.for %{{.+}} = %block_id_x to %c8{{.*}} step %c3
// The tile's turn: tiles done so far (the second counter, after the k
// tiles') modulo 2.
//       CHECK:       %[[TILE:.+]] = memref.load %[[TILES:alloca_[0-9]+]][%{{.+}}] : memref<1xindex>
//       CHECK:       %[[NEXT:.+]] = arith.addi %[[TILE]], %c1{{.*}} : index
//       CHECK:       memref.store %[[NEXT]], %[[TILES]]
//       CHECK:       %[[TURN:.+]] = arith.remui %[[TILE]], %c2{{.*}} : index
//       CHECK:       %[[ID:.+]] = arith.addi %[[TURN]], %c2{{.*}} : index
//       CHECK:       %[[BAR:.+]] = arith.index_castui %[[ID]] : index to i32
//       CHECK:       %[[MINE:.+]] = arith.cmpi eq, %{{.+}}, %[[TURN]] : index
//       CHECK:       scf.if %[[MINE]]
//       CHECK:         scf.for {{.+}} iter_args(
// CHECK-COUNT-8:         nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 16>
//   CHECK-NOT:           nvvm.wgmma.mma_async
//       CHECK:         nvvm.barrier.arrive id = %[[BAR]] number_of_threads = %c256_i32
//       CHECK:         nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-64:      vector.store %{{.+}}, %{{.+}}[%{{.+}}] {alignment = 4 : i64} : memref<131072xbf16>, vector<2xbf16>
//   CHECK-NOT:         vector.store
//       CHECK:       } else {
//  CHECK-NEXT:         nvvm.barrier id = %[[BAR]] number_of_threads = %c256_i32
//       CHECK:   gpu.return
func.func @pingpong(%x: tensor<256x512xbf16>, %w: tensor<512x512xbf16>, %bias: tensor<512xf32>) -> tensor<256x512xbf16> {
  // expected-remark @+1 {{pingpong_mma0: 256x512x512 on tensor cores, wgmma m64n128k16 bf16, f32 accumulators: 3 program(s), 1 tile op(s) (persistent) of 384 threads (1 TMA producer warpgroup, 2 pingpong consumer warpgroups that take turns at whole tiles, one's epilogue during the other's wgmma), tile 128x128x64, 4-stage TMA/mbarrier ring with 128-byte swizzle, 131072 bytes of dynamic shared memory, B read K-major ([n, k]); 128 accumulators per consumer thread; epilogue on the accumulator registers}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%bias per_col : tensor<512xf32>) {
  ^bb0(%acc: f32, %b: f32):
    %v = arith.addf %acc, %b : f32
    %o = arith.truncf %v : f32 to bf16
    xpu.yield %o : bf16
  } {config = #xpu.config<tile = [128, 128, 64], group_m = 8, subgroups = [2, 2], stages = 4, schedule = persistent<programs = 3>, backend = #xpu.nvgpu<mma = wgmma, consumers = pingpong>>} : (tensor<256x512xbf16>, tensor<512x512xbf16>) -> tensor<256x512xbf16>
  return %g : tensor<256x512xbf16>
}
}

// -----

// sm_90a with an [n, k] B: K-major descriptors (wgmma layout col for B);
// the second GEMM's config asks for mma.sync (a 32-row tile cannot feed a
// 64-row wgmma: xpu-select-strategy would not give it wgmma).
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @linear_wgmma
//       CHECK:   nvgpu.tma.create.descriptor %{{.+}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:   nvgpu.tma.create.descriptor %{{.+}} box[%c128{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<128x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:   threads in (%c256,
//       CHECK: gpu.func @linear_wgmma_mma0
// CHECK-COUNT-4:   nvvm.wgmma.mma_async {{.+}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
//       CHECK: gpu.func @linear_wgmma_mma1
//       CHECK:   nvgpu.mma.sync
func.func @linear_wgmma(%x: tensor<512x256xbf16>, %w: tensor<512x256xbf16>) -> (tensor<512x512xf32>, tensor<512x512xf32>) {
  // expected-remark @+1 {{linear_wgmma_mma0: 512x512x256 on tensor cores, wgmma m64n128k16 bf16, f32 accumulators: 32 program(s), 1 tile op(s) (data_parallel) of 256 threads (1 TMA producer warpgroup, 1 consumer warpgroup(s) of 64 rows), tile 64x128x64, 4-stage TMA/mbarrier ring with 128-byte swizzle, 98304 bytes of dynamic shared memory, B read K-major ([n, k]); 64 accumulators per consumer thread}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 128, 64], group_m = 8, subgroups = [1, 2], stages = 4, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<512x256xbf16>, tensor<512x256xbf16>) -> tensor<512x512xf32>
  // expected-remark @+1 {{linear_wgmma_mma1: 512x512x256 on tensor cores, mma.sync}}
  %h = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [32, 128, 32], group_m = 8, subgroups = [1, 2], stages = 4, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<512x256xbf16>, tensor<512x256xbf16>) -> tensor<512x512xf32>
  return %g, %h : tensor<512x512xf32>, tensor<512x512xf32>
}
}

// -----

// sm_90a, data-parallel: each workgroup computes one tile, so once a
// consumer warpgroup's wgmma are done its rows of the ring's A slots (64
// rows x 128 bytes in each of the 4 slots) are free. 200x320 + bias in
// 128x256 tiles (both edges masked): each warpgroup applies the epilogue
// (zeros outside the 200 x 320, whose bias is not read), writes its 64 x
// 256 bf16 as four 64x64 boxes with the 128-byte swizzle (box q in slot q,
// at byte q * 16384 + 8192 * warpgroup), fences them for the async proxy,
// meets its own named barrier (4 + warpgroup, 128 threads), and thread 0 of
// the warpgroup stores the boxes with TMA at columns n0 + 64 q (TMA leaves
// out what lies outside C), then waits until they are read. No thread
// stores to C itself.
//
// f32 results at 64x128x64 with 2 stages: 4 boxes of 64x32 f32 in 2 slots
// make 2 rounds; the second waits for the first's reads and the barrier.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @tma_store
//       CHECK:   nvgpu.tma.create.descriptor %{{.+}} box[%c128{{.*}}, %c64{{.*}}] : memref<*xbf16>
//       CHECK:   nvgpu.tma.create.descriptor %{{.+}} box[%c256{{.*}}, %c64{{.*}}] : memref<*xbf16>
//       CHECK:   nvgpu.tma.create.descriptor %{{.+}} box[%c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b
//       CHECK:   gpu.launch_func @tma_store_mma0::@tma_store_mma0 blocks in (%c4,
//       CHECK: gpu.func @tma_store_mma0(
//       CHECK:   nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:   %[[SLOTS:.+]] = memref.view %{{.+}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<98304xbf16, #gpu.address_space<workgroup>>
//       CHECK:   %[[IN:.+]] = arith.andi
//       CHECK:   scf.if %[[IN]] -> (vector<2xbf16>) {
//       CHECK:     memref.load %{{.+}}[%{{.+}}] : memref<320xf32>
//       CHECK:     arith.truncf
//       CHECK:   } else {
//       CHECK:     arith.constant dense<0.000000e+00> : vector<2xbf16>
//       CHECK:   vector.store %{{.+}}, %[[SLOTS]][%{{.+}}] {alignment = 4 : i64} : memref<98304xbf16, #gpu.address_space<workgroup>>, vector<2xbf16>
// CHECK-COUNT-63:   vector.store %{{.+}}, %[[SLOTS]]
//   CHECK-NOT:   vector.store
//       CHECK:   nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
//       CHECK:   %[[ID:.+]] = arith.addi %{{.+}}, %c4{{.*}} : index
//       CHECK:   %[[ID32:.+]] = arith.index_castui %[[ID]] : index to i32
//       CHECK:   nvvm.barrier id = %[[ID32]] number_of_threads = %c128_i32
//       CHECK:   scf.if
// CHECK-COUNT-4:     nvgpu.tma.async.store %{{.+}} to %{{.+}}[%{{.+}}, %{{.+}}] : memref<64x64xbf16, #gpu.address_space<workgroup>> -> <tensor = memref<64x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:     nvvm.cp.async.bulk.commit.group
//       CHECK:   scf.if
//       CHECK:     nvvm.cp.async.bulk.wait_group 0 {read}
//   CHECK-NOT:   vector.store
//       CHECK:   gpu.return
// CHECK-LABEL: gpu.func @tma_store_rounds_mma0(
//       CHECK:   memref.view %{{.+}}[%c0{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<12288xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-16:   vector.store %{{.+}} {alignment = 8 : i64} : memref<12288xf32, #gpu.address_space<workgroup>>, vector<2xf32>
//   CHECK-NOT:   vector.store
//       CHECK:   nvvm.fence.proxy
// CHECK-COUNT-2:     nvgpu.tma.async.store %{{.+}} : memref<64x32xf32, #gpu.address_space<workgroup>>
//       CHECK:     nvvm.cp.async.bulk.commit.group
//       CHECK:     nvvm.cp.async.bulk.wait_group 0 {read}
//       CHECK:   nvvm.barrier id
// CHECK-COUNT-16:   vector.store %{{.+}} : memref<12288xf32, #gpu.address_space<workgroup>>, vector<2xf32>
//       CHECK:   nvvm.fence.proxy
// CHECK-COUNT-2:     nvgpu.tma.async.store
//       CHECK:     nvvm.cp.async.bulk.commit.group
//       CHECK:     nvvm.cp.async.bulk.wait_group 0 {read}
//       CHECK:   gpu.return
// DIRECT-LABEL: func.func @tma_store
//   DIRECT-NOT:   nvgpu.tma.async.store
//       DIRECT:   vector.store %{{.+}}, %{{.+}}[%{{.+}}] {alignment = 4 : i64} : memref<64000xbf16>, vector<2xbf16>
//   DIRECT-NOT:   nvgpu.tma.async.store
//       DIRECT:   vector.store %{{.+}}, %{{.+}}[%{{.+}}] {alignment = 8 : i64} : memref<32768xf32>, vector<2xf32>
//   DIRECT-NOT:   nvgpu.tma.async.store
func.func @tma_store(%x: tensor<200x256xbf16>, %w: tensor<320x256xbf16>, %bias: tensor<320xf32>) -> tensor<200x320xbf16> {
  // expected-remark @+1 {{tma_store_mma0: 200x320x256 on tensor cores, wgmma m64n256k16 bf16, f32 accumulators: 4 program(s), 1 tile op(s) (data_parallel) of 384 threads (1 TMA producer warpgroup, 2 consumer warpgroup(s) of 64 rows), tile 128x256x64, 4-stage TMA/mbarrier ring with 128-byte swizzle, 196608 bytes of dynamic shared memory, B read K-major ([n, k]); 128 accumulators per consumer thread; epilogue on the accumulator registers, its results written into the ring's A slots as boxes of 64x64 and stored with TMA by one thread per consumer warpgroup}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%bias per_col : tensor<320xf32>) {
  ^bb0(%acc: f32, %b: f32):
    %v = arith.addf %acc, %b : f32
    %o = arith.truncf %v : f32 to bf16
    xpu.yield %o : bf16
  } {config = #xpu.config<tile = [128, 256, 64], group_m = 8, subgroups = [2, 4], stages = 4, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<200x256xbf16>, tensor<320x256xbf16>) -> tensor<200x320xbf16>
  return %g : tensor<200x320xbf16>
}
func.func @tma_store_rounds(%x: tensor<128x256xbf16>, %w: tensor<256x256xbf16>) -> tensor<128x256xf32> {
  // expected-remark @+1 {{tile 64x128x64, 2-stage TMA/mbarrier ring with 128-byte swizzle, 49152 bytes of dynamic shared memory, B read K-major ([n, k]); 64 accumulators per consumer thread; epilogue on the accumulator registers, its results written into the ring's A slots as boxes of 64x32 and stored with TMA}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 128, 64], group_m = 8, subgroups = [1, 2], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<128x256xbf16>, tensor<256x256xbf16>) -> tensor<128x256xf32>
  return %g : tensor<128x256xf32>
}
}

// -----

// Stream-K on tensor cores: 128x128x256 bf16 in 64x64x32 tiles is 4 tiles
// of 8 K-steps on 6 programs, so every tile is split (no full
// data-parallel wave): the main kernel only stores f32 partial sums into workspace slots
// (the GELU-like tanh of the epilogue must not run there), and the fix-up
// kernel, one workgroup per tile, sums a tile's slots in slot order and
// applies the epilogue once. On sm_90a the pieces are on mma.sync (the
// config's): the wgmma kernel computes whole tiles (its TMA boxes are 64
// wide along K).
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @stream_k
//       CHECK:   %[[WS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<{{[0-9]+}}x64x64xf32>
//       CHECK:   gpu.launch_func @stream_k_mma0::@stream_k_mma0 blocks in (%c6,
//       CHECK:   gpu.launch_func @stream_k_mma0_fixup::@stream_k_mma0_fixup blocks in (%c4,
//       CHECK: gpu.func @stream_k_mma0(
//       CHECK:   scf.for
//       CHECK:     nvgpu.mma.sync
//   CHECK-NOT:   math.tanh
//       CHECK:   vector.store %{{.+}}, %{{.+}}[%{{.+}}] {alignment = 8 : i64} : memref<{{[0-9]+}}xf32>, vector<2xf32>
//   CHECK-NOT:   math.tanh
//       CHECK: gpu.func @stream_k_mma0_fixup(
//   CHECK-NOT:   nvgpu.mma.sync
//       CHECK:   vector.load %{{.+}}[%{{.+}}] {alignment = 8 : i64} : memref<{{[0-9]+}}xf32>, vector<2xf32>
//       CHECK:   scf.for
//       CHECK:     vector.load
//       CHECK:     arith.addf %{{.+}}, %{{.+}} : vector<2x2xf32>
//       CHECK:   math.tanh
//       CHECK:   vector.store %{{.+}} : memref<16384xbf16>, vector<2xbf16>
func.func @stream_k(%a: tensor<128x256xbf16>, %b: tensor<128x256xbf16>) -> tensor<128x128xbf16> {
  // expected-remark @+2 {{stream_k_mma0: 128x128x256 on tensor cores, mma.sync m16n8k16 bf16, f32 accumulators: 6 program(s), 1 tile op(s) (stream_k) of 128 threads}}
  // expected-remark @+1 {{stream_k_mma0_fixup: Stream-K fix-up of 4 tile(s), one workgroup of 128 threads per tile: its workspace slots summed in slot order in the mma.sync register layout, then the epilogue, once}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %t = math.tanh %acc : f32
    %o = arith.truncf %t : f32 to bf16
    xpu.yield %o : bf16
  } {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [2, 2], stages = 3, schedule = stream_k<programs = 6>, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<128x256xbf16>, tensor<128x256xbf16>) -> tensor<128x128xbf16>
  return %g : tensor<128x128xbf16>
}
}

// -----

// Stream-K with atomic fix-up: the pieces add into a zeroed slot per tile
// with float atomics, only inside m x n (streamk_atomic_add_needs_mask:
// 100 x 72 leaves partial tiles at both edges).
module attributes {xpu.target = #xpu.target<"sm_90">} {
// CHECK-LABEL: func.func @stream_k_atomic
//       CHECK:   linalg.fill
//       CHECK: gpu.func @stream_k_atomic_mma0(
//       CHECK:   arith.cmpi ult
//       CHECK:   scf.if
//       CHECK:     memref.atomic_rmw addf
//       CHECK: gpu.func @stream_k_atomic_mma0_fixup(
func.func @stream_k_atomic(%a: tensor<100x256xf16>, %b: tensor<256x72xf16>) -> tensor<100x72xf32> {
  // expected-remark @+2 {{stream_k_atomic_mma0: 100x72x256 on tensor cores, mma.sync m16n8k16 f16, f32 accumulators: 5 program(s)}}
  // expected-remark @+1 {{stream_k_atomic_mma0_fixup: Stream-K fix-up of}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = stream_k<programs = 5, fixup = atomic>, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<100x256xf16>, tensor<256x72xf16>) -> tensor<100x72xf32>
  return %g : tensor<100x72xf32>
}
}

// -----

// Stream-K on wgmma: 200x320x1000 in 128x128 tiles is 6 tiles of 16 k
// tiles each on 4 programs: 4 whole tiles (one per program), then the last
// 2 tiles' 32 k tiles split 8 per program (streamk_two_wave_decomposition).
// A program runs its whole tile and its pieces on one mbarrier ring, with
// the roles split once around them (setmaxnreg): the producer loads each
// piece's k tiles, the consumers store a piece's f32 sums row-major into
// its workspace slot (2 slots a tile: 4 x 128 x 128 f32). The fix-up sums
// a tile's slots in 16 x 64 warp blocks (8 x 2 warps: 512 threads) and
// applies the epilogue.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @stream_k_wgmma
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<4x128x128xf32>
//       CHECK:   gpu.launch_func @stream_k_wgmma_mma0::@stream_k_wgmma_mma0 blocks in (%c4,
//       CHECK:   gpu.launch_func @stream_k_wgmma_mma0_fixup::@stream_k_wgmma_mma0_fixup blocks in (%c2, %{{.+}}, %{{.+}}) threads in (%c512,
//       CHECK: gpu.func @stream_k_wgmma_mma0(
//       CHECK:   nvvm.setmaxregister  decrease 40
//       CHECK:     nvgpu.tma.async.load
//       CHECK:   scf.for
//       CHECK:     nvgpu.tma.async.load
//       CHECK:   nvvm.setmaxregister  increase 232
//       CHECK:   nvvm.wgmma.mma_async
//       CHECK:   math.tanh
//       CHECK:   scf.for
//       CHECK:     nvvm.wgmma.mma_async
//   CHECK-NOT:     math.tanh
//       CHECK:     vector.store %{{.+}}, %{{.+}}[%{{.+}}] {alignment = 8 : i64} : memref<65536xf32>, vector<2xf32>
//       CHECK: gpu.func @stream_k_wgmma_mma0_fixup(
//   CHECK-NOT:   nvvm.wgmma
//       CHECK:   vector.load %{{.+}}[%{{.+}}] {alignment = 8 : i64} : memref<65536xf32>, vector<2xf32>
//       CHECK:   math.tanh
func.func @stream_k_wgmma(%a: tensor<200x1000xbf16>, %b: tensor<320x1000xbf16>) -> tensor<200x320xbf16> {
  // expected-remark @+2 {{stream_k_wgmma_mma0: 200x320x1000 on tensor cores, wgmma m64n128k16 bf16, f32 accumulators: 4 program(s), 2 tile op(s) (stream_k) of 384 threads}}
  // expected-remark @+1 {{stream_k_wgmma_mma0_fixup: Stream-K fix-up of 2 tile(s), one workgroup of 512 threads per tile}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %t = math.tanh %acc : f32
    %o = arith.truncf %t : f32 to bf16
    xpu.yield %o : bf16
  } {config = #xpu.config<tile = [128, 128, 64], group_m = 1, subgroups = [2, 4], stages = 4, schedule = stream_k<programs = 4>, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<200x1000xbf16>, tensor<320x1000xbf16>) -> tensor<200x320xbf16>
  return %g : tensor<200x320xbf16>
}
}

// -----

// Stream-K on wgmma with atomic fix-up: the consumers add a piece's sums
// into the tile's zeroed slot, the whole tile unmasked (100 x 72 leaves
// partial tiles at both edges: the slot holds a whole tile, and the sums
// outside the matrix are zeros the fix-up does not read).
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @stream_k_wgmma_atomic
//       CHECK:   linalg.fill
//       CHECK: gpu.func @stream_k_wgmma_atomic_mma0(
//       CHECK:   nvvm.wgmma.mma_async
//   CHECK-NOT:   arith.cmpi ult
//       CHECK:   memref.atomic_rmw addf %{{.+}}, %{{.+}}[%{{.+}}] : (f32, memref<{{[0-9]+}}xf32>) -> f32
//   CHECK-NOT:   arith.cmpi ult
//       CHECK:   memref.atomic_rmw addf
//       CHECK: gpu.func @stream_k_wgmma_atomic_mma0_fixup(
func.func @stream_k_wgmma_atomic(%a: tensor<100x256xf16>, %b: tensor<72x256xf16>) -> tensor<100x72xf32> {
  // expected-remark @+2 {{stream_k_wgmma_atomic_mma0: 100x72x256 on tensor cores, wgmma m64n64k16 f16, f32 accumulators: 5 program(s)}}
  // expected-remark @+1 {{stream_k_wgmma_atomic_mma0_fixup: Stream-K fix-up of}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 4], stages = 2, schedule = stream_k<programs = 5, fixup = atomic>, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<100x256xf16>, tensor<72x256xf16>) -> tensor<100x72xf32>
  return %g : tensor<100x72xf32>
}
}

// -----

// Persistent: 2 programs loop over the 8 tiles; each tile starts with a
// barrier so that no warp still reads the previous tile's shared stages
// when the prologue refills them.
module attributes {xpu.target = #xpu.target<"sm_90">} {
// CHECK-LABEL: func.func @persistent
//       CHECK:   gpu.launch_func @persistent_mma0::@persistent_mma0 blocks in (%c2,
//       CHECK: gpu.func @persistent_mma0(
//       CHECK:   scf.for %{{.+}} = %{{.+}} to %c8 step %c2
//       CHECK:     gpu.barrier
//       CHECK:     nvgpu.device_async_copy
//       CHECK:     nvgpu.mma.sync
//       CHECK:     vector.store
func.func @persistent(%a: tensor<256x64xbf16>, %b: tensor<128x64xbf16>) -> tensor<256x128xf32> {
  // expected-remark @+1 {{persistent_mma0: 256x128x64 on tensor cores, mma.sync m16n8k16 bf16, f32 accumulators: 2 program(s), 1 tile op(s) (persistent) of 32 threads}}
  %g = xpu.gemm %a, %b rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = persistent<programs = 2>, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<256x64xbf16>, tensor<128x64xbf16>) -> tensor<256x128xf32>
  return %g : tensor<256x128xf32>
}
}

// -----

// Persistent programs on wgmma: 2 programs loop over the 8 tiles of
// 256x256x256 in 64x128 tiles (4 k tiles of 64 each), on one mbarrier ring
// set up once per workgroup. A tile's k tile kt is the ring's k tile
// `done + kt` (done: the k tiles of this workgroup's earlier tiles, a
// private counter); the consumers give the last k tile's slot back after
// the loop, for the next tile. No setmaxnreg: the role branch sits inside
// the tile loop.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: gpu.func @persistent_wgmma_mma0(
//       CHECK:   %[[FULL:.+]] = nvgpu.mbarrier.create
//       CHECK:   %[[EMPTY:.+]] = nvgpu.mbarrier.create
//       CHECK:   %[[DONE:.+]] = memref.alloca() : memref<1xindex>
//       CHECK:   memref.store %{{.+}}, %[[DONE]][%{{.+}}] : memref<1xindex>
//       CHECK:   nvgpu.mbarrier.init %[[FULL]]
//       CHECK:   gpu.barrier
//       CHECK:   scf.for
//       CHECK:     %[[BASE:.+]] = memref.load %[[DONE]]
//       CHECK:     %[[NEXT:.+]] = arith.addi %[[BASE]], %{{.+}} : index
//       CHECK:     memref.store %[[NEXT]], %[[DONE]]
//   CHECK-NOT:     nvvm.setmaxregister
//       CHECK:     nvgpu.tma.async.load
//       CHECK:     nvvm.wgmma.mma_async
//       CHECK:     nvvm.wgmma.wait.group.sync.aligned 0
//       CHECK:     scf.if
//       CHECK:       nvgpu.mbarrier.arrive %[[EMPTY]]
func.func @persistent_wgmma(%a: tensor<256x256xbf16>, %b: tensor<256x256xbf16>) -> tensor<256x256xbf16> {
  // expected-remark @+1 {{persistent_wgmma_mma0: 256x256x256 on tensor cores, wgmma m64n128k16 bf16, f32 accumulators: 2 program(s), 1 tile op(s) (persistent) of 256 threads}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %o = arith.truncf %acc : f32 to bf16
    xpu.yield %o : bf16
  } {config = #xpu.config<tile = [64, 128, 64], group_m = 8, subgroups = [1, 2], stages = 4, schedule = persistent<programs = 2>, backend = #xpu.nvgpu<mma = wgmma>>} : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xbf16>
  return %g : tensor<256x256xbf16>
}
}
