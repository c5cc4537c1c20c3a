// The pass only reports: the IR printed after it is the IR printed without it.
// RUN: xpu-opt %s --split-input-file > %t.before
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-analyze))' > %t.after
// RUN: diff %t.before %t.after
// RUN: FileCheck %s --input-file=%t.after
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-analyze))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null
// An unknown default-target preset is an error.
// RUN: not xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-analyze{default-target=tpu}))' 2>&1 | FileCheck %s --check-prefix=BADTARGET
// BADTARGET: error: xpu-analyze: unknown default-target 'tpu' (presets: pvc, bmg, sm_80, sm_90, sm_90a, cpu)

// A plain GEMM: 2*64*32*128 = 524288 FLOP; (64*128 + 128*32 + 64*32) * 4 =
// 57344 bytes; 9.14 FLOP/byte under pvc's ridge 52400 / 3277 = 15.99.
// CHECK-LABEL: func.func @gemm_memory_bound
//       CHECK:   xpu.gemm
// expected-remark @+4 {{class gemm: 1 GEMM(s), 0 epilogue op(s) per element, 0 elementwise op(s) (0 fed by a GEMM), 0 reduction(s) (0 fed by a GEMM)}}
// expected-remark @+3 {{gemm #0 (xpu.gemm, f32): b=1 m=64 n=32 k=128: 524288 FLOP + 0 epilogue FLOP, 57344 bytes, 9.14 FLOP/byte: memory-bound (ridge 15.99)}}
// expected-remark @+2 {{target pvc: ridge 15.99 FLOP/byte (52400 f32 GFLOP/s / 3277 GB/s); total 524288 FLOP, 57344 bytes, 9.14 FLOP/byte: memory-bound}}
// expected-remark @+1 {{recommend: level_1: xpu-select-strategy (tiling + GROUP_SIZE_M swizzle); level_2: xpu-prepack-bf16 (memory-bound f32 GEMM: bf16 operands halve its operand bytes)}}
func.func @gemm_memory_bound(%a: tensor<64x128xf32>, %b: tensor<128x32xf32>) -> tensor<64x32xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<64x128xf32>, tensor<128x32xf32>) -> tensor<64x32xf32>
  return %0 : tensor<64x32xf32>
}

// -----

// 2*256^3 = 33554432 FLOP over 3 * 256*256*4 = 786432 bytes is 42.67
// FLOP/byte: compute-bound on pvc, so bf16 is recommended for its peak.
// CHECK-LABEL: func.func @gemm_compute_bound
// expected-remark @+4 {{class gemm: 1 GEMM(s)}}
// expected-remark @+3 {{gemm #0 (xpu.gemm, f32): b=1 m=256 n=256 k=256: 33554432 FLOP + 0 epilogue FLOP, 786432 bytes, 42.67 FLOP/byte: compute-bound (ridge 15.99)}}
// expected-remark @+2 {{total 33554432 FLOP, 786432 bytes, 42.67 FLOP/byte: compute-bound}}
// expected-remark @+1 {{recommend: level_1: xpu-select-strategy (tiling + GROUP_SIZE_M swizzle); level_2: xpu-prepack-bf16 (compute-bound f32 GEMM: bf16 peak 838900 vs f32 52400 GFLOP/s)}}
func.func @gemm_compute_bound(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %0 = xpu.gemm %a, %b rhs_layout(nk) acc(f32) : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// nn.Linear + bias + tanh left as a consumer, on an Arc B580 (target
// override): gemm 2*16*32*64 = 65536 FLOP, (16*64 + 32*64 + 16*32) * 4 =
// 14336 bytes (4.57); the consumer 2 ops * 512 = 1024 FLOP, 2048 + 128 + 2048
// = 4224 bytes; total 66560 FLOP / 18560 bytes = 3.59 under bmg's ridge
// 13670 / 456 = 29.98.
// CHECK: module attributes {xpu.target = #xpu.target<"bmg">}
// CHECK-LABEL: func.func @gemm_epilogue_consumer_bmg
//       CHECK:   xpu.gemm
//       CHECK:   linalg.generic
module attributes {xpu.target = #xpu.target<"bmg">} {
  // expected-remark @+4 {{class gemm_epilogue: 1 GEMM(s), 0 epilogue op(s) per element, 1 elementwise op(s) (1 fed by a GEMM), 0 reduction(s) (0 fed by a GEMM)}}
  // expected-remark @+3 {{gemm #0 (xpu.gemm, f32): b=1 m=16 n=32 k=64: 65536 FLOP + 0 epilogue FLOP, 14336 bytes, 4.57 FLOP/byte: memory-bound (ridge 29.98)}}
  // expected-remark @+2 {{target bmg: ridge 29.98 FLOP/byte (13670 f32 GFLOP/s / 456 GB/s); total 66560 FLOP, 18560 bytes, 3.59 FLOP/byte: memory-bound}}
  // expected-remark @+1 {{recommend: level_1: xpu-select-strategy (tiling + GROUP_SIZE_M swizzle); level_2: xpu-prepack-bf16 (memory-bound f32 GEMM: bf16 operands halve its operand bytes); xpu-fuse-epilogue (elementwise consumers of the GEMM)}}
  func.func @gemm_epilogue_consumer_bmg(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
    %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
    %e = tensor.empty() : tensor<16x32xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
        ins(%g, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
    ^bb0(%in: f32, %bias: f32, %out: f32):
      %0 = arith.addf %in, %bias : f32
      %1 = math.tanh %0 : f32
      linalg.yield %1 : f32
    } -> tensor<16x32xf32>
    return %r : tensor<16x32xf32>
  }
}

// -----

// A fused epilogue with a per-channel scale and shift (BatchNorm folded to
// an affine map) on bf16 operands: 2*256^3 = 33554432 FLOP + 2 ops * 65536 =
// 131072 epilogue FLOP; bytes 2 * 256*256*2 + 256*256*4 + 2 * 256*4 =
// 526336; 64.00 FLOP/byte under the bf16 ridge 838900 / 3277 = 256.00.
// CHECK-LABEL: func.func @gemm_epilogue_affine_bf16
// expected-remark @+4 {{class gemm_epilogue: 1 GEMM(s), 2 epilogue op(s) per element, 0 elementwise op(s)}}
// expected-remark @+3 {{gemm #0 (xpu.gemm, bf16): b=1 m=256 n=256 k=256: 33554432 FLOP + 131072 epilogue FLOP, 526336 bytes, 64.00 FLOP/byte: memory-bound (ridge 256.00)}}
// expected-remark @+2 {{target pvc: ridge 256.00 FLOP/byte (838900 bf16 GFLOP/s / 3277 GB/s); total 33685504 FLOP, 526336 bytes, 64.00 FLOP/byte: memory-bound}}
// expected-remark @+1 {{recommend: level_1: xpu-select-strategy (tiling + GROUP_SIZE_M swizzle); level_3: xpu-fold-affine-into-weights (per-channel scale after the GEMM)}}
func.func @gemm_epilogue_affine_bf16(%x: tensor<256x256xbf16>, %w: tensor<256x256xbf16>, %s: tensor<256xf32>, %t: tensor<256xf32>) -> tensor<256x256xf32> {
  %0 = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%s per_col : tensor<256xf32>, %t per_col : tensor<256xf32>) {
  ^bb0(%acc: f32, %scale: f32, %shift: f32):
    %0 = arith.mulf %acc, %scale : f32
    %1 = arith.addf %0, %shift : f32
    xpu.yield %1 : f32
  } : (tensor<256x256xbf16>, tensor<256x256xbf16>) -> tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// A batched GEMM followed by a row sum: gemm 2*2*8*4*16 = 2048 FLOP,
// (2*8*16 + 2*16*4 + 2*8*4) * 4 = 1792 bytes (1.14); the reduction 64 FLOP,
// 256 + 64 = 320 bytes (the zero init is absorbed); total 2112 / 2112 = 1.00.
// CHECK-LABEL: func.func @gemm_reduction_batched
//       CHECK:   xpu.gemm
//       CHECK:   linalg.reduce
// expected-remark @+4 {{class gemm_reduction: 1 GEMM(s), 0 epilogue op(s) per element, 0 elementwise op(s) (0 fed by a GEMM), 1 reduction(s) (1 fed by a GEMM)}}
// expected-remark @+3 {{gemm #0 (xpu.gemm, f32): b=2 m=8 n=4 k=16: 2048 FLOP + 0 epilogue FLOP, 1792 bytes, 1.14 FLOP/byte: memory-bound (ridge 15.99)}}
// expected-remark @+2 {{total 2112 FLOP, 2112 bytes, 1.00 FLOP/byte: memory-bound}}
// expected-remark @+1 {{recommend: level_1: xpu-select-strategy (tiling + GROUP_SIZE_M swizzle); level_2: xpu-prepack-bf16 (memory-bound f32 GEMM: bf16 operands halve its operand bytes); xpu-split-gemm-reduction (a reduction follows the GEMM: keep it out of the epilogue)}}
func.func @gemm_reduction_batched(%a: tensor<2x8x16xf32>, %b: tensor<2x16x4xf32>) -> tensor<2x8xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<2x8x16xf32>, tensor<2x16x4xf32>) -> tensor<2x8x4xf32>
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<2x8xf32>) -> tensor<2x8xf32>
  %r = linalg.reduce ins(%g : tensor<2x8x4xf32>) outs(%z : tensor<2x8xf32>) dimensions = [2]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %r : tensor<2x8xf32>
}

// -----

// A row sum alone: 16*32 = 512 FLOP, 16*32*4 + 16*4 = 2112 bytes, 0.24.
// CHECK-LABEL: func.func @reduction_only
// expected-remark @+3 {{class reduction: 0 GEMM(s), 0 epilogue op(s) per element, 0 elementwise op(s) (0 fed by a GEMM), 1 reduction(s) (0 fed by a GEMM)}}
// expected-remark @+2 {{target pvc: ridge 15.99 FLOP/byte (52400 f32 GFLOP/s / 3277 GB/s); total 512 FLOP, 2112 bytes, 0.24 FLOP/byte: memory-bound}}
// expected-remark @+1 {{recommend: no GEMM level applies: memory-bound reduction, tile several rows per workgroup}}
func.func @reduction_only(%a: tensor<16x32xf32>) -> tensor<16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %r = linalg.reduce ins(%a : tensor<16x32xf32>) outs(%z : tensor<16xf32>) dimensions = [1]
    (%in: f32, %init: f32) {
      %s = arith.addf %in, %init : f32
      linalg.yield %s : f32
    }
  return %r : tensor<16xf32>
}

// -----

// x * 2 + 1 over 4x8 f32 (constants are not FLOPs): 2 * 32 = 64 FLOP,
// 128 + 128 = 256 bytes, 0.25; a tensor-level arith.negf adds 32 FLOP and
// 256 bytes: 96 / 512 = 0.19.
// CHECK-LABEL: func.func @elementwise_only
// expected-remark @+3 {{class elementwise: 0 GEMM(s), 0 epilogue op(s) per element, 2 elementwise op(s) (0 fed by a GEMM), 0 reduction(s) (0 fed by a GEMM)}}
// expected-remark @+2 {{total 96 FLOP, 512 bytes, 0.19 FLOP/byte: memory-bound}}
// expected-remark @+1 {{recommend: no GEMM level applies: memory-bound, fuse the elementwise chain into one kernel}}
func.func @elementwise_only(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%a : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %two = arith.constant 2.0 : f32
    %one = arith.constant 1.0 : f32
    %0 = arith.mulf %in, %two : f32
    %1 = arith.addf %0, %one : f32
    linalg.yield %1 : f32
  } -> tensor<4x8xf32>
  %n = arith.negf %r : tensor<4x8xf32>
  return %n : tensor<4x8xf32>
}

// -----

// An unraised linalg.matmul with a dynamic m: the shape is reported, the
// numbers are not invented.
// CHECK-LABEL: func.func @dynamic_matmul_unraised
//       CHECK:   linalg.matmul
// expected-remark @+4 {{class gemm: 1 GEMM(s), 0 epilogue op(s) per element}}
// expected-remark @+3 {{gemm #0 (linalg.matmul, f32): b=1 m=? n=32 k=128: dynamic shape, FLOPs and bytes not computed}}
// expected-remark @+2 {{target pvc: ridge 15.99 FLOP/byte (52400 f32 GFLOP/s / 3277 GB/s); dynamic shapes: totals and verdict not computed}}
// expected-remark @+1 {{recommend: xpu-raise first (linalg.matmul / batch_matmul left); level_1: xpu-select-strategy (tiling + GROUP_SIZE_M swizzle)}}
func.func @dynamic_matmul_unraised(%a: tensor<?x128xf32>, %b: tensor<128x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %m = tensor.dim %a, %c0 : tensor<?x128xf32>
  %e = tensor.empty(%m) : tensor<?x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<?x128xf32>, tensor<128x32xf32>) outs(%z : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %0 : tensor<?x32xf32>
}

// -----

// torch.addmm before raising: the init is read and added (one epilogue op,
// 8*6 = 48 FLOP and 8*6*4 = 192 bytes more): 2*8*6*4 = 384 + 48 FLOP,
// (8*4 + 4*6 + 8*6) * 4 + 192 = 608 bytes.
// CHECK-LABEL: func.func @addmm_unraised
// expected-remark @+4 {{class gemm_epilogue: 1 GEMM(s), 1 epilogue op(s) per element}}
// expected-remark @+3 {{gemm #0 (linalg.matmul, f32): b=1 m=8 n=6 k=4: 384 FLOP + 48 epilogue FLOP, 608 bytes, 0.71 FLOP/byte: memory-bound (ridge 15.99)}}
// expected-remark @+2 {{total 432 FLOP, 608 bytes, 0.71 FLOP/byte: memory-bound}}
// expected-remark @+1 {{recommend: xpu-raise first}}
func.func @addmm_unraised(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %0 : tensor<8x6xf32>
}

// -----

// No computation at all; declarations are skipped.
// CHECK-LABEL: func.func @nothing
// expected-remark @+3 {{class none: 0 GEMM(s)}}
// expected-remark @+2 {{target pvc: ridge 15.99 FLOP/byte (52400 f32 GFLOP/s / 3277 GB/s); nothing computed}}
// expected-remark @+1 {{recommend: nothing to optimize}}
func.func @nothing(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @declaration(tensor<4xf32>) -> tensor<4xf32>

// -----

// Issue 10 (fuzzer): a scale captured from outside the epilogue (a function
// argument) was taken for an epilogue block argument and read a broadcast
// kind past the end of the list (SIGSEGV). It is not a per-channel factor:
// no weight folding is recommended.
// CHECK-LABEL: func.func @captured_scale_is_not_per_channel
// expected-remark @+4 {{class gemm_epilogue: 1 GEMM(s), 1 epilogue op(s) per element}}
// expected-remark @+3 {{gemm #0 (xpu.gemm, bf16): b=1 m=64 n=64 k=64}}
// expected-remark @+2 {{target pvc}}
// expected-remark @+1 {{recommend: level_1: xpu-select-strategy (tiling + GROUP_SIZE_M swizzle)"}}
func.func @captured_scale_is_not_per_channel(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %s: f32) -> tensor<64x64xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %t = arith.mulf %acc, %s : f32
    xpu.yield %t : f32
  } : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
