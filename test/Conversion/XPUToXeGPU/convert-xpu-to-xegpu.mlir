// convert-xpu-to-xegpu is the Xe tile emitter: it lowers the programs
// xpu-schedule-gemm makes (scf.forall over #gpu.block<x> with xpu.gemm_tile
// / xpu.gemm_fixup) to one XeGPU kernel each. The operands come from
// xpu-materialize-layouts, which these RUN lines run first.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-materialize-layouts,xpu-schedule-gemm),convert-xpu-to-xegpu,canonicalize,cse)' | FileCheck %s
// Remarks (single-threaded: the remark engine drops remarks of split chunks
// processed on other threads).
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-materialize-layouts,xpu-schedule-gemm),convert-xpu-to-xegpu)' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// pvc, bf16 4096^3 with the strategy's 256x256x32 tile on [8, 4] subgroups,
// 4 stages, 256-GRF mode. Descriptors: A 256x32 in 32x32 subgroup blocks of
// 8x16 DPAS pieces, B 32x256 in 32x64 blocks of 16x16, C 256x256 in 32x64
// blocks of 8x16; no padding (4096 * 2 bytes is a legal pitch). Prefetch
// distance stages - 1 = 3 K-steps: steps 0, 1, 2 before the loop, k + 96 in
// it. 16 x 16 tiles = 256 workgroups of 32 x 16 lanes; the program id
// becomes the tile origin through the GROUP_SIZE_M swizzle (group_m = 8:
// 128 tiles per group of 8 tile rows).
module attributes {xpu.target = #xpu.target<"pvc">} {
// CHECK-LABEL: func.func @bf16_256x256_tile
//  CHECK-SAME:   %[[A:[a-zA-Z0-9]+]]: tensor<4096x4096xbf16>, %[[B:[a-zA-Z0-9]+]]: tensor<4096x4096xbf16>
//       CHECK:   %[[AB:.+]] = bufferization.to_buffer %[[A]] read_only
//       CHECK:   %[[BB:.+]] = bufferization.to_buffer %[[B]] read_only
//       CHECK:   %[[C:.+]] = memref.alloc() {alignment = 64 : i64} : memref<4096x4096xf32>
//       CHECK:   gpu.launch_func @bf16_256x256_tile_xe_gemm0::@bf16_256x256_tile_xe_gemm0 blocks in (%c256, %c1, %c1) threads in (%c512, %c1, %c1) args(%[[AB]] : memref<4096x4096xbf16>, %[[BB]] : memref<4096x4096xbf16>, %[[C]] : memref<4096x4096xf32>)
//       CHECK:   %[[R:.+]] = bufferization.to_tensor %[[C]] restrict writable
//       CHECK:   return %[[R]]
//       CHECK: gpu.module @bf16_256x256_tile_xe_gemm0 [#xevm.target<chip = "pvc", flags = {"cmd-options" = ["-ze-opt-large-register-file"]}>]
//       CHECK:   gpu.func @bf16_256x256_tile_xe_gemm0({{.*}}) kernel attributes {known_block_size = array<i32: 512, 1, 1>, known_grid_size = array<i32: 256, 1, 1>}
//       CHECK:     %[[PID:.+]] = gpu.block_id x
//       CHECK:     %[[GROUP:.+]] = arith.divui %[[PID]], %c128
//       CHECK:     %[[ROW0:.+]] = arith.muli %[[GROUP]], %c8
//       CHECK:     arith.subi %c16, %[[ROW0]]
//       CHECK:     xegpu.create_nd_tdesc %{{.+}}, shape : [4096, 4096], strides : [4096, 1] : i64 -> !xegpu.tensor_desc<256x32xbf16, #xegpu.layout<sg_layout = [8, 4], sg_data = [32, 32], inst_data = [8, 16]>>
//       CHECK:     xegpu.create_nd_tdesc %{{.+}}, shape : [4096, 4096], strides : [4096, 1] : i64 -> !xegpu.tensor_desc<32x256xbf16, #xegpu.layout<sg_layout = [8, 4], sg_data = [32, 64], inst_data = [16, 16]>>
// Prefetches in 32-row pieces (one 32r16x1c message each).
//       CHECK:     xegpu.create_nd_tdesc %{{.+}} -> !xegpu.tensor_desc<256x32xbf16, #xegpu.layout<sg_layout = [8, 4], sg_data = [32, 32], inst_data = [32, 16]>>
//       CHECK:     xegpu.create_nd_tdesc %{{.+}} -> !xegpu.tensor_desc<32x256xbf16, #xegpu.layout<sg_layout = [8, 4], sg_data = [32, 64], inst_data = [32, 16]>>
// CHECK-COUNT-6:     xegpu.prefetch_nd
//   CHECK-NOT:     xegpu.prefetch_nd
//       CHECK:     scf.for %[[K:.+]] = %c0 to %c4096 step %c32 iter_args
//       CHECK:       xegpu.load_nd {{.*}} -> vector<256x32xbf16>
//       CHECK:       xegpu.load_nd {{.*}} -> vector<32x256xbf16>
//       CHECK:       %[[AHEAD:.+]] = arith.addi %[[K]], %c96
//       CHECK:       xegpu.prefetch_nd %{{.+}}[%{{.+}}, %[[AHEAD]]]
//       CHECK:       xegpu.prefetch_nd %{{.+}}[%[[AHEAD]], %{{.+}}]
//       CHECK:       xegpu.dpas {{.*}} : vector<256x32xbf16>, vector<32x256xbf16>, vector<256x256xf32> -> vector<256x256xf32>
//       CHECK:     %[[CD:.+]] = xegpu.create_nd_tdesc %{{.+}}, shape : [4096, 4096], strides : [4096, 1] : i64 -> !xegpu.tensor_desc<256x256xf32, #xegpu.layout<sg_layout = [8, 4], sg_data = [32, 64], inst_data = [8, 16]>>
//       CHECK:     xegpu.store_nd %{{.+}}, %[[CD]]
//       CHECK:     gpu.return
func.func @bf16_256x256_tile(%a: tensor<4096x4096xbf16>, %b: tensor<4096x4096xbf16>) -> tensor<4096x4096xf32> {
  // expected-remark @+3 {{4096x4096x4096 for the xe backend: data_parallel: 256 tiles, one program each}}
  // expected-remark @+2 {{kernel bf16_256x256_tile_xe_gemm0 compiled in 256-GRF mode (-ze-opt-large-register-file), as the config asks}}
  // expected-remark @+1 {{kernel bf16_256x256_tile_xe_gemm0: 256 workgroups of 512 work-items (8x4 subgroups of 16 lanes), tile 256x256x32, DPAS 8x16x16, prefetch 3 K-step(s) ahead}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 4], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
  return %g : tensor<4096x4096xf32>
}
}

// -----

// nn.Linear(97, 67) + bias + tanh + ReLU on x: [131, 97] in f32 with the
// strategy's 8x16x16 tile: operands to bf16, the [n, k] weight transposed,
// rows padded to legal pitches (97 bf16 -> 104 = 208 bytes, 67 -> 72, the
// f32 result 67 -> 68, by xpu-schedule-gemm), the bias padded with zeros
// to whole 16-column tiles (a 1 x 80 row). Descriptors keep the logical
// rows and widen the logical columns to the narrowest legal 2D block width
// (>= 64 bytes, a multiple of 4): A [131, 98] (97 bf16 = 194 bytes -> 196;
// column 97 is the zero padding), B [97, 68] (67 bf16 = 134 bytes -> 136),
// C [131, 67] (268 bytes, legal as it is). The bias is no 2D block read:
// each tile gathers its 16 columns of the row (4 bytes each from n0) with
// the accumulator's layout less its row dimension and broadcasts them to
// the accumulator. So the M, N and K tails read zeros
// (padding or past the descriptor) and the stores drop rows past M; the K
// loop runs [0, 97) in steps of 16. The epilogue runs on the accumulator
// after the loop and before store_nd; the result is sliced back to
// [131, 67].
// CHECK-LABEL: func.func @odd_f32_linear_bias_tanh_relu
//       CHECK:   arith.truncf %{{.+}} : f32 to bf16
//       CHECK:   arith.truncf %{{.+}} : f32 to bf16
//       CHECK:   linalg.transpose ins(%{{.+}} : tensor<67x97xbf16>) outs(%{{.+}} : tensor<97x67xbf16>) permutation = [1, 0]
//       CHECK:   tensor.pad %{{.+}} low[0, 0] high[0, 7]
//       CHECK:   } : tensor<131x97xbf16> to tensor<131x104xbf16>
//       CHECK:   tensor.pad %{{.+}} low[0, 0] high[0, 5]
//       CHECK:   } : tensor<97x67xbf16> to tensor<97x72xbf16>
//       CHECK:   linalg.broadcast ins(%{{.+}} : tensor<67xf32>) outs(%{{.+}} : tensor<1x67xf32>) dimensions = [0]
//       CHECK:   } : tensor<1x67xf32> to tensor<1x80xf32>
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<131x68xf32>
//       CHECK:   gpu.launch_func @odd_f32_linear_bias_tanh_relu_xe_gemm0::@odd_f32_linear_bias_tanh_relu_xe_gemm0 blocks in (%c85, {{.*}} threads in (%c16,
//       CHECK:   tensor.extract_slice %{{.+}}[0, 0] [131, 67] [1, 1] : tensor<131x68xf32> to tensor<131x67xf32>
//       CHECK: gpu.module @odd_f32_linear_bias_tanh_relu_xe_gemm0 [#xevm.target<chip = "pvc">]
//   CHECK-DAG:   %[[ZERO:.+]] = arith.constant {layout_result_0 = {{.*}}} dense<0.000000e+00> : vector<8x16xf32>
//   CHECK-DAG:   %[[COLS:.+]] = arith.constant {layout_result_0 = #xegpu.slice<#xegpu.layout<sg_layout = [1, 1], sg_data = [8, 16], inst_data = [8, 16]>, dims = [0]>} dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]> : vector<16xindex>
//   CHECK-DAG:   %[[ALL:.+]] = arith.constant {layout_result_0 = #xegpu.slice<#xegpu.layout<sg_layout = [1, 1], sg_data = [8, 16], inst_data = [8, 16]>, dims = [0]>} dense<true> : vector<16xi1>
//       CHECK:   xegpu.create_nd_tdesc %{{.+}}, shape : [131, 98], strides : [104, 1] : i64 -> !xegpu.tensor_desc<8x16xbf16
//       CHECK:   xegpu.create_nd_tdesc %{{.+}}, shape : [97, 68], strides : [72, 1] : i64 -> !xegpu.tensor_desc<16x16xbf16
//       CHECK:   %[[ACC:.+]] = scf.for %{{.+}} = %c0 to %c97 step %c16
//       CHECK:     xegpu.dpas
//       CHECK:   }
//   CHECK-NOT:   xegpu.load_nd
//       CHECK:   %[[BOFF:.+]] = arith.muli %{{.+}}, %c4_i64 : i64
//       CHECK:   memref.extract_aligned_pointer_as_index %{{.+}} : memref<1x80xf32>
//       CHECK:   %[[BADDR:.+]] = arith.addi %{{.+}}, %[[BOFF]] : i64
//   CHECK-NOT:   xegpu.load_nd
//       CHECK:   %[[ROW:.+]] = xegpu.load %[[BADDR]][%[[COLS]]], %[[ALL]] <{layout = #xegpu.slice<#xegpu.layout<sg_layout = [1, 1], sg_data = [8, 16], inst_data = [8, 16]>, dims = [0]>}> : i64, vector<16xindex>, vector<16xi1> -> vector<16xf32>
//       CHECK:   %[[BIAS:.+]] = vector.broadcast %[[ROW]] {layout_result_0 = #xegpu.layout<sg_layout = [1, 1], sg_data = [8, 16], inst_data = [8, 16]>} : vector<16xf32> to vector<8x16xf32>
//       CHECK:   %[[T:.+]] = arith.addf %[[ACC]], %[[BIAS]] {layout_result_0 = #xegpu.layout<sg_layout = [1, 1], sg_data = [8, 16], inst_data = [8, 16]>} : vector<8x16xf32>
//       CHECK:   %[[TANH:.+]] = math.tanh %[[T]] {{.*}} : vector<8x16xf32>
//       CHECK:   %[[RELU:.+]] = arith.maximumf %[[TANH]], %[[ZERO]]
//       CHECK:   %[[CD:.+]] = xegpu.create_nd_tdesc %{{.+}}, shape : [131, 67], strides : [68, 1] : i64 -> !xegpu.tensor_desc<8x16xf32
//       CHECK:   xegpu.store_nd %[[RELU]], %[[CD]]
func.func @odd_f32_linear_bias_tanh_relu(%x: tensor<131x97xf32>, %w: tensor<67x97xf32>, %b: tensor<67xf32>) -> tensor<131x67xf32> {
  %zero = arith.constant 0.0 : f32
  // expected-remark @+7 {{f32 operands converted to bf16 for DPAS}}
  // expected-remark @+6 {{rhs [n, k] transposed to [k, n]}}
  // expected-remark @+5 {{A: rows of 97 x 2 bytes padded with zeros to 104 elements}}
  // expected-remark @+4 {{B: rows of 67 x 2 bytes padded with zeros to 72 elements}}
  // expected-remark @+3 {{epilogue operand #0 (per_col) padded with zeros to 80 columns, whole 16-column tiles of a row vector}}
  // expected-remark @+2 {{131x67x97 for the xe backend: data_parallel: 85 tiles, one program each}}
  // expected-remark @+1 {{kernel odd_f32_linear_bias_tanh_relu_xe_gemm0: 85 workgroups of 16 work-items}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<67xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    %r = math.tanh %t : f32
    %m = arith.maximumf %r, %zero : f32
    xpu.yield %m : f32
  } {config = #xpu.config<tile = [8, 16, 16], group_m = 8, subgroups = [1, 1], stages = 3, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<131x97xf32>, tensor<67x97xf32>) -> tensor<131x67xf32>
  return %g : tensor<131x67xf32>
}

// -----

// Batched (8 x 512^3) with a residual (full) operand and erf: programs run
// over all batches' tiles (16 per batch: the batch is the program id / 16)
// and every per-batch base address moves by
// batch * rows * pitch * bytes computed in i64 (A: 512 * 512 * 2 = 524288,
// the residual and C: 512 * 512 * 4 = 1048576). math.erf has no Xe lowering
// and becomes its polynomial approximation before vectorization.
// CHECK-LABEL: func.func @batched_residual_erf
//       CHECK:   gpu.launch_func {{.*}} blocks in (%c128, %c1, %c1) threads in (%c256,
//       CHECK: gpu.module @batched_residual_erf_xe_gemm0
//   CHECK-DAG:   %[[SC:.+]] = arith.constant 1048576 : i64
//   CHECK-DAG:   %[[SA:.+]] = arith.constant 524288 : i64
//       CHECK:   %[[PID:.+]] = gpu.block_id x
//       CHECK:   %[[BATCH:.+]] = arith.divui %[[PID]], %c16
//       CHECK:   %[[B64:.+]] = arith.index_castui %[[BATCH]] : index to i64
//       CHECK:   arith.muli %[[B64]], %[[SA]] : i64
//       CHECK:   arith.muli %[[B64]], %[[SC]] : i64
//   CHECK-NOT:   math.erf
//       CHECK:   xegpu.store_nd
func.func @batched_residual_erf(%a: tensor<8x512x512xbf16>, %b: tensor<8x512x512xbf16>, %r: tensor<8x512x512xf32>) -> tensor<8x512x512xf32> {
  // expected-remark @+2 {{8x(512x512x512) for the xe backend: data_parallel: 128 tiles, one program each}}
  // expected-remark @+1 {{kernel batched_residual_erf_xe_gemm0: 128 workgroups of 256 work-items}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%r full : tensor<8x512x512xf32>) {
  ^bb0(%acc: f32, %res: f32):
    %t = arith.addf %acc, %res : f32
    %e = math.erf %t : f32
    xpu.yield %e : f32
  } {config = #xpu.config<tile = [64, 256, 32], group_m = 8, subgroups = [2, 8], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<8x512x512xbf16>, tensor<8x512x512xbf16>) -> tensor<8x512x512xf32>
  return %g : tensor<8x512x512xf32>
}

// -----

// Batched 2 x (25x20x40) with a residual, shapes that break the 2D block
// rules unless padded: a batch of A (25 rows of 40 bf16 = 2000 bytes), of
// the residual and of the result (25 rows of 20 f32 = 2000 bytes) is not a
// multiple of 64 bytes, so their slabs get 28 rows (2240 bytes) and every
// batch's base address stays 64-byte aligned; B's rows of 20 bf16 (40
// bytes) get the pitch 32 and a descriptor 32 wide (64 bytes, the narrowest
// legal width; columns 20..31 are zeros). The result is allocated with the
// padded slabs and sliced back to [2, 25, 20].
// CHECK-LABEL: func.func @batched_unaligned_slabs
//       CHECK:   tensor.pad %{{.+}} low[0, 0, 0] high[0, 3, 0]
//       CHECK:   } : tensor<2x25x40xbf16> to tensor<2x28x40xbf16>
//       CHECK:   tensor.pad %{{.+}} low[0, 0, 0] high[0, 0, 12]
//       CHECK:   } : tensor<2x40x20xbf16> to tensor<2x40x32xbf16>
//       CHECK:   tensor.pad %{{.+}} low[0, 0, 0] high[0, 3, 0]
//       CHECK:   } : tensor<2x25x20xf32> to tensor<2x28x20xf32>
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<2x28x20xf32>
//       CHECK:   gpu.launch_func @batched_unaligned_slabs_xe_gemm0::@batched_unaligned_slabs_xe_gemm0 {{.*}} args(%{{.+}} : memref<2x28x40xbf16>, %{{.+}} : memref<2x40x32xbf16>, %{{.+}} : memref<2x28x20xf32>, %{{.+}} : memref<2x28x20xf32>)
//       CHECK:   tensor.extract_slice %{{.+}}[0, 0, 0] [2, 25, 20] [1, 1, 1] : tensor<2x28x20xf32> to tensor<2x25x20xf32>
//       CHECK: gpu.module @batched_unaligned_slabs_xe_gemm0
//   CHECK-DAG:   %[[SAC:.+]] = arith.constant 2240 : i64
//   CHECK-DAG:   %[[SB:.+]] = arith.constant 2560 : i64
//       CHECK:   %[[BATCH:.+]] = arith.divui %{{.+}}, %c4
//       CHECK:   %[[B64:.+]] = arith.index_castui %[[BATCH]] : index to i64
//       CHECK:   arith.muli %[[B64]], %[[SAC]] : i64
//       CHECK:   arith.muli %[[B64]], %[[SB]] : i64
//       CHECK:   xegpu.create_nd_tdesc %{{.+}}, shape : [25, 40], strides : [40, 1] : i64 -> !xegpu.tensor_desc<16x32xbf16
//       CHECK:   xegpu.create_nd_tdesc %{{.+}}, shape : [40, 32], strides : [32, 1] : i64 -> !xegpu.tensor_desc<32x16xbf16
//       CHECK:   scf.for %{{.+}} = %c0 to %c40 step %c32
//       CHECK:     xegpu.dpas
//       CHECK:   xegpu.create_nd_tdesc %{{.+}}, shape : [25, 20], strides : [20, 1] : i64 -> !xegpu.tensor_desc<16x16xf32
//       CHECK:   xegpu.create_nd_tdesc %{{.+}}, shape : [25, 20], strides : [20, 1] : i64 -> !xegpu.tensor_desc<16x16xf32
//       CHECK:   xegpu.store_nd
func.func @batched_unaligned_slabs(%a: tensor<2x25x40xbf16>, %b: tensor<2x40x20xbf16>, %r: tensor<2x25x20xf32>) -> tensor<2x25x20xf32> {
  // expected-remark @+5 {{A: each batch's 25 rows of 80 bytes padded with zero rows to 28, so that every batch starts 64-byte aligned (2D block I/O)}}
  // expected-remark @+4 {{B: rows of 20 x 2 bytes padded with zeros to 32 elements}}
  // expected-remark @+3 {{epilogue operand #0: each batch's 25 rows of 80 bytes padded with zero rows to 28}}
  // expected-remark @+2 {{2x(25x20x40) for the xe backend: data_parallel: 8 tiles, one program each}}
  // expected-remark @+1 {{kernel batched_unaligned_slabs_xe_gemm0: 8 workgroups of 32 work-items}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%r full : tensor<2x25x20xf32>) {
  ^bb0(%acc: f32, %res: f32):
    %t = arith.addf %acc, %res : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [16, 16, 32], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<2x25x40xbf16>, tensor<2x40x20xbf16>) -> tensor<2x25x20xf32>
  return %g : tensor<2x25x20xf32>
}

// -----

// An f64 epilogue (xpu-demote-f64 keeps f64 math after its extf): the kernel
// stores the f32 accumulator and the epilogue runs on the host as a
// linalg.generic.
// CHECK-LABEL: func.func @f64_epilogue_on_host
//       CHECK:   gpu.launch_func
//       CHECK:   %[[ACC:.+]] = bufferization.to_tensor {{.*}} : memref<16x32xf32> to tensor<16x32xf32>
//       CHECK:   linalg.generic {{.*}} ins(%[[ACC]], %{{.+}} : tensor<16x32xf32>, tensor<32xf64>)
//       CHECK:     arith.extf
//       CHECK:     math.tanh %{{.+}} : f64
//       CHECK: gpu.module @f64_epilogue_on_host_xe_gemm0
//   CHECK-NOT:   {{xf64|: f64}}
//       CHECK:   gpu.return
func.func @f64_epilogue_on_host(%x: tensor<16x64xbf16>, %w: tensor<32x64xbf16>, %b: tensor<32xf64>) -> tensor<16x32xf64> {
  // expected-remark @+4 {{the epilogue computes in a type the kernel does not (f64, or bf16 results): the kernel stores the f32 accumulator and the epilogue runs on the host}}
  // expected-remark @+3 {{rhs [n, k] transposed}}
  // expected-remark @+2 {{data_parallel: 4 tiles}}
  // expected-remark @+1 {{kernel f64_epilogue_on_host_xe_gemm0: 4 workgroups}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<32xf64>) {
  ^bb0(%acc: f32, %bias: f64):
    %e = arith.extf %acc : f32 to f64
    %t = arith.addf %e, %bias : f64
    %r = math.tanh %t : f64
    xpu.yield %r : f64
  } {config = #xpu.config<tile = [8, 16, 32], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<16x64xbf16>, tensor<32x64xbf16>) -> tensor<16x32xf64>
  return %g : tensor<16x32xf64>
}

// -----

// persistent<programs = 3>: 4 tiles of 32x32 on 3 workgroups; each loops
// over tiles pid, pid + 3, ... and emits the whole tile (K range [0, 256))
// with its epilogue.
module attributes {xpu.target = #xpu.target<"pvc">} {
// CHECK-LABEL: func.func @persistent_sigmoid
//       CHECK:   gpu.launch_func @persistent_sigmoid_xe_gemm0::@persistent_sigmoid_xe_gemm0 blocks in (%c3, %c1, %c1) threads in (%c64,
//   CHECK-NOT:   gpu.launch_func
//       CHECK: gpu.func @persistent_sigmoid_xe_gemm0
//       CHECK:   %[[PID:.+]] = gpu.block_id x
//       CHECK:   scf.for %[[T:.+]] = %[[PID]] to %c4 step %c3 {
//       CHECK:     arith.remui %[[T]], %c2
//       CHECK:     scf.for %{{.+}} = %c0 to %c256 step %c32
//       CHECK:       xegpu.dpas
//       CHECK:     math.exp
//       CHECK:     xegpu.store_nd
//       CHECK:   }
//       CHECK:   gpu.return
func.func @persistent_sigmoid(%a: tensor<64x256xbf16>, %b: tensor<256x64xbf16>) -> tensor<64x64xf32> {
  // expected-remark @+2 {{64x64x256 for the xe backend: persistent: 4 tiles on 3 programs (1 or 2 tiles per program)}}
  // expected-remark @+1 {{kernel persistent_sigmoid_xe_gemm0: 3 workgroups of 64 work-items (2x2 subgroups of 16 lanes), tile 32x32x32}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue() {
  ^bb0(%acc: f32):
    %n = arith.negf %acc : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %one, %d : f32
    xpu.yield %s : f32
  } {config = #xpu.config<tile = [32, 32, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = persistent<programs = 3>, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x256xbf16>, tensor<256x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// stream_k<programs = 3>: 4 tiles on 3 programs: one full wave of 3 tiles
// data-parallel (with the sigmoid epilogue), the last tile's 8 K-steps
// split 3 + 3 + 2 over the 3 programs. Each program stores its partial
// 32x32 f32 sum with 2D block writes into its own workspace slot (slots
// [3 x 32 x 32], no atomics, no epilogue); a second kernel, launched after
// the first on the same queue, sums the tile's slots in slot order, applies
// the epilogue once and stores the tile.
module attributes {xpu.target = #xpu.target<"pvc">} {
// CHECK-LABEL: func.func @stream_k_sigmoid
//       CHECK:   %[[C:.+]] = memref.alloc() {alignment = 64 : i64} : memref<64x64xf32>
//       CHECK:   %[[WS:.+]] = memref.alloc() {alignment = 64 : i64} : memref<3x32x32xf32>
//       CHECK:   gpu.launch_func @stream_k_sigmoid_xe_gemm0::@stream_k_sigmoid_xe_gemm0 blocks in (%c3, %c1, %c1) threads in (%c64, %c1, %c1) args({{.*}}, %[[C]] : memref<64x64xf32>, %[[WS]] : memref<3x32x32xf32>)
//       CHECK:   gpu.launch_func @stream_k_sigmoid_xe_gemm0_fixup::@stream_k_sigmoid_xe_gemm0_fixup blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) args(%[[WS]] : memref<3x32x32xf32>, %[[C]] : memref<64x64xf32>)
//       CHECK: gpu.func @stream_k_sigmoid_xe_gemm0(
//       CHECK:   scf.for %{{.+}} = %c0 to %c256 step %c32
//       CHECK:     xegpu.dpas
//       CHECK:   math.exp
//       CHECK:   xegpu.store_nd
//       CHECK:   scf.for
//       CHECK:     %[[ACC:.+]] = scf.for %{{.+}} = %[[K0:.+]] to %[[K1:.+]] step %c32
//       CHECK:       xegpu.dpas
//   CHECK-NOT:     math.exp
//       CHECK:     %[[WSD:.+]] = xegpu.create_nd_tdesc %{{.+}}, shape : [96, 32], strides : [32, 1]
//       CHECK:     xegpu.store_nd %[[ACC]], %[[WSD]]
//       CHECK:   }
//       CHECK:   gpu.return
//       CHECK: gpu.func @stream_k_sigmoid_xe_gemm0_fixup(
//       CHECK:   %[[SLOTS:.+]] = xegpu.create_nd_tdesc %{{.+}}, shape : [96, 32], strides : [32, 1]
//       CHECK:   %[[FIRST:.+]] = xegpu.load_nd %[[SLOTS]]
//       CHECK:   %[[SUM:.+]] = scf.for %{{.+}} = %c1 to %{{.+}} step %c1 iter_args(%[[S:.+]] = %[[FIRST]])
//       CHECK:     %[[NEXT:.+]] = xegpu.load_nd %[[SLOTS]]
//       CHECK:     arith.addf %[[S]], %[[NEXT]]
//       CHECK:   arith.negf %[[SUM]]
//       CHECK:   math.exp
//       CHECK:   xegpu.store_nd
//   CHECK-NOT:   xegpu.dpas
//       CHECK:   gpu.return
func.func @stream_k_sigmoid(%a: tensor<64x256xbf16>, %b: tensor<256x64xbf16>) -> tensor<64x64xf32> {
  // expected-remark @+3 {{64x64x256 for the xe backend: stream_k: 4 tiles on 3 programs: 3 data-parallel, 1 split into 8 K-steps of 8 (2 or 3 K-steps per program)}}
  // expected-remark @+2 {{kernel stream_k_sigmoid_xe_gemm0: 3 workgroups of 64 work-items (2x2 subgroups of 16 lanes), tile 32x32x32}}
  // expected-remark @+1 {{kernel stream_k_sigmoid_xe_gemm0_fixup: 1 workgroups of 64 work-items (2x2 subgroups of 16 lanes), each sums the 32x32 partial tiles of one split tile in slot order (2D block reads) and applies the epilogue}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue() {
  ^bb0(%acc: f32):
    %n = arith.negf %acc : f32
    %e = math.exp %n : f32
    %one = arith.constant 1.0 : f32
    %d = arith.addf %e, %one : f32
    %s = arith.divf %one, %d : f32
    xpu.yield %s : f32
  } {config = #xpu.config<tile = [32, 32, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = stream_k<programs = 3>, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x256xbf16>, tensor<256x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// Issue 10 (fuzzer): a bf16 result reached XeVM's SPIR-V serializer, which
// stopped with "OpTypeFloat type with bfloat requires ... SPV_KHR_bfloat16".
// The kernel stores the f32 accumulator and the host rounds it to bf16; a
// bf16 epilogue operand read through extf stays a kernel load.
// CHECK-LABEL: func.func @bf16_result_on_host
//       CHECK:   gpu.launch_func
//       CHECK:   %[[ACC:.+]] = bufferization.to_tensor {{.*}} : memref<16x32xf32> to tensor<16x32xf32>
//       CHECK:   linalg.generic {{.*}} ins(%[[ACC]], %{{.+}} : tensor<16x32xf32>, tensor<32xbf16>)
//       CHECK:     arith.truncf %{{.+}} : f32 to bf16
//       CHECK: gpu.module @bf16_result_on_host_xe_gemm0
//   CHECK-NOT:   arith.truncf
//       CHECK:   gpu.return
func.func @bf16_result_on_host(%x: tensor<16x64xbf16>, %w: tensor<32x64xbf16>, %b: tensor<32xbf16>) -> tensor<16x32xbf16> {
  // expected-remark @+4 {{the epilogue computes in a type the kernel does not (f64, or bf16 results)}}
  // expected-remark @+3 {{rhs [n, k] transposed}}
  // expected-remark @+2 {{data_parallel: 4 tiles}}
  // expected-remark @+1 {{kernel bf16_result_on_host_xe_gemm0: 4 workgroups}}
  %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<32xbf16>) {
  ^bb0(%acc: f32, %bias: bf16):
    %e = arith.extf %bias : bf16 to f32
    %t = arith.addf %acc, %e : f32
    %r = arith.truncf %t : f32 to bf16
    xpu.yield %r : bf16
  } {config = #xpu.config<tile = [8, 16, 32], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<16x64xbf16>, tensor<32x64xbf16>) -> tensor<16x32xbf16>
  return %g : tensor<16x32xbf16>
}

// -----

// Two per_col operands (bias and scale, as an unfolded BatchNorm has them)
// on a 4x8 subgroup grid with 32x32 subgroup blocks: N = 512 is two whole
// 256-column tiles, so the vectors go to the kernel as they are (no panel,
// no copy). Each is gathered as a 256-column row vector whose layout is the
// accumulator's without its row dimension (the 4 subgroups of a grid column
// read the same 32 columns) and broadcast to the accumulator; no tile-sized
// 128x256 f32 read (2D block or otherwise) holds their values per row.
// CHECK-LABEL: func.func @per_col_row_vectors_4x8
//  CHECK-SAME:   %{{.+}}: tensor<512xf32>, %{{.+}}: tensor<512xf32>
//   CHECK-NOT:   linalg.broadcast
//       CHECK:   gpu.launch_func {{.*}} memref<512xf32>, %{{.+}} : memref<512xf32>)
//       CHECK: gpu.module @per_col_row_vectors_4x8_xe_gemm0
//   CHECK-DAG:   %[[COLS:.+]] = arith.constant {layout_result_0 = #xegpu.slice<#xegpu.layout<sg_layout = [4, 8], sg_data = [32, 32], inst_data = [8, 16]>, dims = [0]>} dense<"0x{{(0000000000000000)(0100000000000000)(0200000000000000)[0-9A-F]*}}FF00000000000000"> : vector<256xindex>
//   CHECK-DAG:   %[[ALL:.+]] = arith.constant {layout_result_0 = #xegpu.slice<{{.+}}, dims = [0]>} dense<true> : vector<256xi1>
//       CHECK:   %[[ACC:.+]] = scf.for
//       CHECK:     xegpu.dpas
//       CHECK:     scf.yield
//   CHECK-NOT:   -> vector<128x256xf32>
//       CHECK:   %[[B:.+]] = xegpu.load %{{.+}}[%[[COLS]]], %[[ALL]] <{layout = #xegpu.slice<#xegpu.layout<sg_layout = [4, 8], sg_data = [32, 32], inst_data = [8, 16]>, dims = [0]>}> : i64, vector<256xindex>, vector<256xi1> -> vector<256xf32>
//       CHECK:   %[[BT:.+]] = vector.broadcast %[[B]] {layout_result_0 = #xegpu.layout<sg_layout = [4, 8], sg_data = [32, 32], inst_data = [8, 16]>} : vector<256xf32> to vector<128x256xf32>
//       CHECK:   %[[T:.+]] = arith.addf %[[ACC]], %[[BT]]
//   CHECK-NOT:   xegpu.load_nd
//       CHECK:   %[[S:.+]] = xegpu.load %{{.+}}[%[[COLS]]], %[[ALL]] {{.*}} -> vector<256xf32>
//       CHECK:   %[[ST:.+]] = vector.broadcast %[[S]] {{.*}} : vector<256xf32> to vector<128x256xf32>
//       CHECK:   arith.mulf %[[T]], %[[ST]]
//   CHECK-NOT:   -> vector<128x256xf32>
//       CHECK:   xegpu.store_nd
func.func @per_col_row_vectors_4x8(%x: tensor<256x64xbf16>, %w: tensor<64x512xbf16>, %b: tensor<512xf32>, %s: tensor<512xf32>) -> tensor<256x512xf32> {
  // expected-remark @+5 {{epilogue operand #0 (per_col) read as it is: 2 whole 256-column tiles of a row vector}}
  // expected-remark @+4 {{epilogue operand #1 (per_col) read as it is: 2 whole 256-column tiles of a row vector}}
  // expected-remark @+3 {{kernel per_col_row_vectors_4x8_xe_gemm0 compiled in 256-GRF mode}}
  // expected-remark @+2 {{data_parallel: 4 tiles}}
  // expected-remark @+1 {{kernel per_col_row_vectors_4x8_xe_gemm0: 4 workgroups of 512 work-items (4x8 subgroups of 16 lanes), tile 128x256x32}}
  %g = xpu.gemm %x, %w rhs_layout(kn) acc(f32) epilogue(%b per_col : tensor<512xf32>, %s per_col : tensor<512xf32>) {
  ^bb0(%acc: f32, %bias: f32, %scale: f32):
    %t = arith.addf %acc, %bias : f32
    %r = arith.mulf %t, %scale : f32
    xpu.yield %r : f32
  } {config = #xpu.config<tile = [128, 256, 32], group_m = 8, subgroups = [4, 8], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<256x64xbf16>, tensor<64x512xbf16>) -> tensor<256x512xf32>
  return %g : tensor<256x512xf32>
}

// -----

// A module without xpu.gemm is left as it is (no container attribute).
// CHECK-LABEL: func.func @no_gemm_is_untouched
//   CHECK-NOT:   gpu
//       CHECK:   linalg.matmul
func.func @no_gemm_is_untouched(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// A dynamic m: the rows are read on the host and passed to the kernel,
// whose 2D block descriptors of A and of the result take them as their
// height, so the hardware's boundary check masks the last row of tiles as
// it masks a static edge; B's descriptor stays static. The grid is the
// program count computed on the host.
// CHECK-LABEL: func.func @dynamic_m(
// CHECK: %[[ROWS:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x64xbf16>
// CHECK: memref.alloc(%[[ROWS]]) {alignment = 64 : i64} : memref<?x32xf32>
// CHECK: gpu.launch_func @dynamic_m_xe_gemm0::@dynamic_m_xe_gemm0 blocks in (%[[COUNT:.*]], %c1, %c1) {{.*}}args({{.*}}%[[ROWS]] : index)
// CHECK: gpu.func @dynamic_m_xe_gemm0({{.*}}%[[KROWS:[a-z0-9]+]]: index) kernel
// CHECK-NOT: known_grid_size
// CHECK: xegpu.create_nd_tdesc %{{.*}}, shape : [%[[KROWS]], 64], strides : [64, 1]
// CHECK: xegpu.create_nd_tdesc %{{.*}}, shape : [64, 32], strides : [32, 1]
// CHECK: xegpu.create_nd_tdesc %{{.*}}, shape : [%[[KROWS]], 32], strides : [32, 1] : i64 -> !xegpu.tensor_desc<16x16xf32
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @dynamic_m(%x: tensor<?x64xbf16>, %w: tensor<64x32xbf16>, %b: tensor<32xf32>) -> tensor<?x32xf32> {
  // expected-remark @below {{read as it is}}
  // expected-remark @below {{?x32x64 for the xe backend: data_parallel, ceil(m / 16) x 2 programs counted at run time (m is dynamic)}}
  // expected-remark @below {{kernel dynamic_m_xe_gemm0: (counted at run time) workgroups of 16 work-items}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) epilogue(%b per_col : tensor<32xf32>) {
  ^bb0(%acc: f32, %bias: f32):
    %t = arith.addf %acc, %bias : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [16, 16, 32], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<?x64xbf16>, tensor<64x32xbf16>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}
}
