// RUN: xpu-opt %s --split-input-file --convert-xpu-to-nvgpu | FileCheck %s
// Remarks (single-threaded: the remark engine drops remarks of split chunks
// processed on other threads).
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(convert-xpu-to-nvgpu)' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

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
//       CHECK:   %[[C:.+]] = memref.alloc() {alignment = 128 : i64} : memref<256x512xbf16>
//       CHECK:   %[[SMEM:.+]] = arith.constant 49152 : i32
//       CHECK:   %[[TILES:.+]] = arith.constant 8 : index
//       CHECK:   gpu.launch_func @linear_bias_relu_mma0::@linear_bias_relu_mma0 blocks in (%[[TILES]], %{{.+}}, %{{.+}}) threads in (%c128, %{{.+}}, %{{.+}}) dynamic_shared_memory_size %[[SMEM]] args(%{{.+}} : memref<32768xbf16>, %{{.+}} : memref<65536xbf16>, %{{.+}} : memref<131072xbf16>, %{{.+}} : memref<512xf32>)
//       CHECK:   %[[R:.+]] = bufferization.to_tensor %[[C]] restrict writable
//       CHECK:   return %[[R]]
//       CHECK: gpu.module @linear_bias_relu_mma0
//       CHECK:   gpu.func @linear_bias_relu_mma0({{.*}}) kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.maxnreg = 226 : i32}
//       CHECK:     gpu.dynamic_shared_memory
//       CHECK:     memref.view %{{.+}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<3x128x32xbf16, #gpu.address_space<workgroup>>
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
  // expected-remark @+1 {{linear_bias_relu_mma0: 256x512x128 on tensor cores, mma.sync m16n8k16 bf16, f32 accumulators: 8 workgroups of 128 threads (2x2 warps of 64x64), tile 128x128x32, 3-stage cp.async pipeline, 49152 bytes of dynamic shared memory, B read as [n, k] (ldmatrix); 128 accumulators and 64 fragment registers per thread, at most 226 registers (the register model's estimate)}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<512xf32>) {
  ^bb0(%acc: f32, %bv: f32):
    %t = arith.addf %acc, %bv : f32
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %t, %z : f32
    %o = arith.truncf %r : f32 to bf16
    xpu.yield %o : bf16
  } {config = #xpu.config<tile = [128, 128, 32], group_m = 8, subgroups = [2, 2], stages = 3, schedule = data_parallel>} : (tensor<256x128xbf16>, tensor<512x128xbf16>) -> tensor<256x512xbf16>
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
  // expected-remark @+1 {{f16_kn_masked_mma0: 100x72x40 on tensor cores, mma.sync m16n8k16 f16, f32 accumulators: 8 workgroups of 32 threads (1x1 warps of 32x64), tile 32x64x32, 2-stage cp.async pipeline, 12288 bytes of dynamic shared memory, B read as [k, n] (ldmatrix.trans); 64 accumulators and 48 fragment registers per thread, at most 146 registers (the register model's estimate)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 64, 32], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<100x40xf16>, tensor<40x72xf16>) -> tensor<100x72xf32>
  return %g : tensor<100x72xf32>
}
}

// -----

// Rows that are not 16-byte multiples: K = 97 bf16 (194 bytes) gets a new
// pitch of 104 elements for A and for the [n, k] B, each copied by a
// one-thread-per-element kernel launched before the GEMM. N = 67 is odd:
// the results are stored one element at a time, each guarded.
module attributes {xpu.target = #xpu.target<"sm_90">} {
// CHECK-LABEL: func.func @repitch_odd
//       CHECK:   %[[AP:.+]] = memref.alloc() {alignment = 128 : i64} : memref<131x104xbf16>
//       CHECK:   gpu.launch_func @repitch_odd_mma0::@repitch_odd_mma0_repitch0 blocks in (%c54, {{.+}}) threads in (%c256, {{.+}}) args(%{{.+}} : memref<12707xbf16>, %{{.+}} : memref<13624xbf16>)
//       CHECK:   %[[BP:.+]] = memref.alloc() {alignment = 128 : i64} : memref<67x104xbf16>
//       CHECK:   gpu.launch_func @repitch_odd_mma0::@repitch_odd_mma0_repitch1
//       CHECK:   gpu.launch_func @repitch_odd_mma0::@repitch_odd_mma0 {{.+}} args(%{{.+}} : memref<13624xbf16>, %{{.+}} : memref<6968xbf16>, %{{.+}} : memref<8777xf32>)
//       CHECK: gpu.func @repitch_odd_mma0_repitch0(%{{.+}}: memref<12707xbf16>, %{{.+}}: memref<13624xbf16>) kernel
//       CHECK: gpu.func @repitch_odd_mma0(
//   CHECK-NOT:   vector.store
//       CHECK:   memref.store
func.func @repitch_odd(%x: tensor<131x97xbf16>, %w: tensor<67x97xbf16>) -> tensor<131x67xf32> {
  // expected-remark @+3 {{A: rows of 97 x 2 bytes are not 16-byte multiples (cp.async and TMA read 16-byte aligned rows): copied by a kernel into rows of 104 elements, zero-filled, before the GEMM}}
  // expected-remark @+2 {{B: rows of 97 x 2 bytes are not 16-byte multiples (cp.async and TMA read 16-byte aligned rows): copied by a kernel into rows of 104 elements, zero-filled, before the GEMM}}
  // expected-remark @+1 {{repitch_odd_mma0: 131x67x97 on tensor cores}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [32, 32, 32], group_m = 8, subgroups = [1, 1], stages = 3, schedule = data_parallel>} : (tensor<131x97xbf16>, tensor<67x97xbf16>) -> tensor<131x67xf32>
  return %g : tensor<131x67xf32>
}
}

// -----

// f32 operands: left to the SIMT kernels unless tf32 is asked for (the
// tf32 RUN lines of xpu-nvvm-pipeline.mlir cover that case).
module attributes {xpu.target = #xpu.target<"sm_90">} {
// CHECK-LABEL: func.func @f32_left_alone
//       CHECK:   xpu.gemm
//   CHECK-NOT: gpu.module
func.func @f32_left_alone(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{f32 operands without tf32: left to the f32 SIMT kernels (convert-xpu-to-gpu); precision=tf32 or bf16 runs f32 models on tensor cores}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// sm_90a: TMA and wgmma. A batched bf16 GEMM, [k, n] B, tile 128x256 (two
// consumer warpgroups of 64 rows and a producer: 384 threads), k tiles of
// 64 (one 128-byte swizzled row), 4 stages of (128 + 256) * 64 * 2 = 49152
// bytes = 196608 bytes. The descriptors are 3-D (boxes 1 x 128 x 64 and
// 1 x 64 x 64), made on the host; the buffers follow them so that they
// outlive the launch. Per k tile the producer loads A once and B in
// 256 / 64 = 4 boxes; each consumer runs 64 / 16 = 4 wgmma m64n256k16.
module attributes {xpu.target = #xpu.target<"sm_90a">} {
// CHECK-LABEL: func.func @bmm_wgmma
//       CHECK:   nvgpu.tma.create.descriptor %{{.+}} box[%c1{{.*}}, %c128{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<1x128x64xbf16, #gpu.address_space<workgroup>>, swizzle = swizzle_128b, l2promo = l2promo_256b, oob = zero, interleave = none>
//       CHECK:   nvgpu.tma.create.descriptor %{{.+}} box[%c1{{.*}}, %c64{{.*}}, %c64{{.*}}] : memref<*xbf16> -> <tensor = memref<1x64x64xbf16, #gpu.address_space<workgroup>>
//       CHECK:   gpu.launch_func @bmm_wgmma_mma0::@bmm_wgmma_mma0 blocks in (%c4, %c3, %{{.+}}) threads in (%c384, {{.+}}) dynamic_shared_memory_size %c196608_i32 args(%{{.+}} : !llvm.ptr, %{{.+}} : !llvm.ptr, %{{.+}} : memref<393216xbf16>, %{{.+}} : memref<98304xbf16>, %{{.+}} : memref<196608xbf16>)
//       CHECK: gpu.func @bmm_wgmma_mma0({{.*}}) kernel attributes {known_block_size = array<i32: 384, 1, 1>}
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
  // expected-remark @+1 {{bmm_wgmma_mma0: 3x(256x512x128) on tensor cores, wgmma m64n256k16 bf16, f32 accumulators: 4 workgroups x 3 batches of 384 threads (1 TMA producer warpgroup, 2 consumer warpgroup(s) of 64 rows), tile 128x256x64, 4-stage TMA/mbarrier ring with 128-byte swizzle, 196608 bytes of dynamic shared memory, B read N-major ([k, n]); 128 accumulators per consumer thread}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %t = arith.truncf %acc : f32 to bf16
    xpu.yield %t : bf16
  } {config = #xpu.config<tile = [128, 256, 32], group_m = 8, subgroups = [2, 4], stages = 4, schedule = data_parallel>} : (tensor<3x256x128xbf16>, tensor<3x128x512xbf16>) -> tensor<3x256x512xbf16>
  return %g : tensor<3x256x512xbf16>
}
}

// -----

// sm_90a with an [n, k] B: K-major descriptors (wgmma layout col for B);
// a 32-row tile cannot feed a 64-row wgmma, so that GEMM stays on
// mma.sync with a remark.
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
  // expected-remark @+1 {{linear_wgmma_mma0: 512x512x256 on tensor cores, wgmma m64n128k16 bf16, f32 accumulators: 32 workgroups of 256 threads (1 TMA producer warpgroup, 1 consumer warpgroup(s) of 64 rows), tile 64x128x64, 4-stage TMA/mbarrier ring with 128-byte swizzle, 98304 bytes of dynamic shared memory, B read K-major ([n, k]); 64 accumulators per consumer thread}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [64, 128, 32], group_m = 8, subgroups = [1, 2], stages = 4, schedule = data_parallel>} : (tensor<512x256xbf16>, tensor<512x256xbf16>) -> tensor<512x512xf32>
  // expected-remark @+2 {{512x512x256: mma.sync instead of wgmma on sm_90a: tile_m 32: one or two consumer warpgroups of 64 rows (tile_m 64 or 128)}}
  // expected-remark @+1 {{linear_wgmma_mma1: 512x512x256 on tensor cores, mma.sync}}
  %h = xpu.gemm %x, %w rhs_layout(nk) acc(f32) {config = #xpu.config<tile = [32, 128, 32], group_m = 8, subgroups = [1, 2], stages = 4, schedule = data_parallel>} : (tensor<512x256xbf16>, tensor<512x256xbf16>) -> tensor<512x512xf32>
  return %g, %h : tensor<512x512xf32>, tensor<512x512xf32>
}
}
