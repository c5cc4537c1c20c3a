// xpu-xe-pipeline on every GEMM + epilogue workload of the CPU integration
// tests (Linear + bias, BatchNorm folded, GELU / sigmoid / tanh / clamp /
// leaky ReLU / min chains, residual add, batched and transposed batched,
// odd 131x67x97, skinny M = 1, f64 demoted, 0-d scale, non-zero init), for
// pvc and bmg: each GEMM kernel binary passes spirv-val (SPIR-V 1.4) and
// calls the 2D block read, the packed (transform) block read for B, DPAS and
// the 2D block write builtins (test/lib/xecheck.py). Nothing runs here: no
// Intel GPU.
// REQUIRES: spirv-tools
// RUN: %python %xpu_src_root/test/lib/xecheck.py --opt xpu-opt \
// RUN:   --inputs %S/../Integration/CPU/Inputs/gen.mlir \
// RUN:   %S/../Integration/CPU/*.mlir > %t.models
// RUN: grep _xe_gemm %t.models | FileCheck %s --check-prefix=MODELS
// RUN: grep -v _xe_gemm %t.models | FileCheck %s --check-prefix=SIMT
// The batched models have nothing to pack (their operands are not marked
// xpu.weight, so they are activations), so their kernel is @forward's own.
// MODELS-COUNT-38: {{^[a-z0-9-]+ (pvc|bmg) forward(.packed)?_xe_gemm0.0.spv: spirv-val ok block-read read-transform dpas block-write}}
// MODELS-NOT: {{.}}
// The rest of each model (the operands converted to bf16 and laid out for
// the GEMM, in <fn>.pack for weights; unfused epilogues) runs in SIMT
// kernels, never on the host (the host must not read the caller's device
// memory: xpu-verify-no-host-device-access), all in one module per binary
// (xpu-merge-kernel-modules): valid SPIR-V without the GEMM builtins.
// SIMT-COUNT-38: {{^[a-z0-9-]+ (pvc|bmg) forward(.pack)?_kernel.0.spv: spirv-val ok simt$}}
// SIMT-NOT: {{.}}

// The three schedules forced on every GEMM (schedule=, programs= of the
// pipeline) compile to the same kind of binaries. Under stream_k each GEMM
// whose tiles leave a partial last wave on 5 programs has a fix-up kernel
// (*_fixup: block reads of the workspace, block writes of the tile); two
// models have a multiple of 5 tiles (odd-shapes: 85, matmul-transposed-maps)
// and no split tile.
// RUN: %python %xpu_src_root/test/lib/xecheck.py --opt xpu-opt \
// RUN:   --options "schedule=data_parallel" --inputs %S/../Integration/CPU/Inputs/gen.mlir \
// RUN:   %S/../Integration/CPU/*.mlir > %t.dp
// RUN: grep _xe_gemm %t.dp | FileCheck %s --check-prefix=MODELS
// RUN: grep -v _xe_gemm %t.dp | FileCheck %s --check-prefix=SIMT
// RUN: %python %xpu_src_root/test/lib/xecheck.py --opt xpu-opt \
// RUN:   --options "schedule=persistent programs=5" --inputs %S/../Integration/CPU/Inputs/gen.mlir \
// RUN:   %S/../Integration/CPU/*.mlir > %t.pers
// RUN: grep _xe_gemm %t.pers | FileCheck %s --check-prefix=MODELS
// RUN: grep -v _xe_gemm %t.pers | FileCheck %s --check-prefix=SIMT
// RUN: %python %xpu_src_root/test/lib/xecheck.py --opt xpu-opt \
// RUN:   --options "schedule=stream_k programs=5" --inputs %S/../Integration/CPU/Inputs/gen.mlir \
// RUN:   %S/../Integration/CPU/*.mlir > %t.sk
// RUN: grep _xe_gemm %t.sk | grep -v _fixup | FileCheck %s --check-prefix=MODELS
// RUN: grep -v _xe_gemm %t.sk | FileCheck %s --check-prefix=SIMT
// RUN: grep _fixup %t.sk | FileCheck %s --check-prefix=FIXUP
// FIXUP-COUNT-34: {{^[a-z0-9-]+ (pvc|bmg) forward(.packed)?_xe_gemm0_fixup.0.spv: spirv-val ok block-read block-write$}}
// FIXUP-NOT: {{.}}

// Full-size shapes from real models compile to valid binaries with the
// strategy's 256x256 tiles (256-GRF mode, so the binaries carry
// -ze-opt-large-register-file) and prefetches.
// RUN: %python %xpu_src_root/test/lib/xecheck.py --opt xpu-opt --prefetch \
// RUN:   %S/Inputs/xe-linear-bn-16384x4096x4096.mlir \
// RUN:   %S/Inputs/xe-linear-gelu-1024x8192x8192.mlir \
// RUN:   %S/Inputs/xe-matmul-8205x5921x2949.mlir | FileCheck %s --check-prefix=FULL
// FULL: xe-linear-bn-16384x4096x4096 pvc forward_packed_xe_gemm0.0.spv: spirv-val ok block-read read-transform dpas block-write prefetch large-grf
// FULL: xe-linear-bn-16384x4096x4096 bmg forward_packed_xe_gemm0.0.spv: spirv-val ok block-read read-transform dpas block-write prefetch large-grf
// FULL: xe-linear-gelu-1024x8192x8192 pvc forward_packed_xe_gemm0.0.spv: spirv-val ok block-read read-transform dpas block-write prefetch large-grf
// FULL: xe-linear-gelu-1024x8192x8192 bmg forward_packed_xe_gemm0.0.spv: spirv-val ok block-read read-transform dpas block-write prefetch large-grf
// FULL: xe-matmul-8205x5921x2949 pvc forward_packed_xe_gemm0.0.spv: spirv-val ok block-read read-transform dpas block-write prefetch large-grf
// FULL: xe-matmul-8205x5921x2949 bmg forward_packed_xe_gemm0.0.spv: spirv-val ok block-read read-transform dpas block-write prefetch large-grf

// A bf16 result (issue 10: it stopped XeVM's SPIR-V serializer) compiles to
// a valid kernel that stores the f32 accumulator; a SIMT kernel rounds it to
// bf16 with integer operations (SPIR-V for Intel GPUs has no bfloat type:
// xpu-xevm-legalize-bf16).
// RUN: %python %xpu_src_root/test/lib/xecheck.py --opt xpu-opt \
// RUN:   %S/Inputs/xe-bf16-result.mlir | FileCheck %s --check-prefix=BF16OUT
// BF16OUT: xe-bf16-result pvc {{.*}}_kernel.0.spv: spirv-val ok simt
// BF16OUT: xe-bf16-result pvc forward{{(_packed)?}}_xe_gemm0.0.spv: spirv-val ok block-read read-transform dpas block-write
// BF16OUT: xe-bf16-result bmg {{.*}}_kernel.0.spv: spirv-val ok simt
// BF16OUT: xe-bf16-result bmg forward{{(_packed)?}}_xe_gemm0.0.spv: spirv-val ok block-read read-transform dpas block-write

// The lowered module: the host calls the kernel through gpu.launch_func and the kernel
// is a gpu.binary of SPIR-V for the chip; an f32 model gets bf16 operands
// once at pack time (the remark of xpu-prepack-bf16) and DPAS takes them.
// RUN: cat %S/../Integration/CPU/linear-bias-gelu.mlir %S/../Integration/CPU/Inputs/gen.mlir \
// RUN:   | xpu-opt --xpu-xe-pipeline="chip=pvc" --xpu-remarks --mlir-disable-threading 2>%t.remarks | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=REMARKS < %t.remarks
// IR: llvm.func @forward.packed(
// IR: gpu.launch_func {{.*}}@forward_packed_xe_gemm0::@forward_packed_xe_gemm0
// IR: gpu.binary @forward_packed_xe_gemm0 [#gpu.object<#xevm.target<chip = "pvc">, bin = "\03\02#\07
// REMARKS-DAG: Category:xpu-prepack-bf16 | Reason="GEMM 32x48x16 (m x n x k) takes bf16 operands (converted once before it), accumulates in f32
// REMARKS-DAG: Category:xpu-select-strategy | Reason="selected for 32x48x16 (m x n x k) on pvc
// REMARKS-DAG: Category:xpu-select-strategy | Reason="schedule data_parallel (the last wave leaves 0.91 of the machine idle, but a tile has one K-step (nothing to split))
// REMARKS-DAG: Category:xpu-materialize-layouts | Reason="32x48x16: rhs [n, k] transposed to [k, n]
// REMARKS-DAG: Category:xpu-materialize-layouts | Reason="32x48x16: epilogue operand #0 (per_col) read as it is: 3 whole 16-column tiles of a row vector"
// REMARKS-DAG: Category:xpu-outline-weight-pack | Reason="@forward: moved 2 op(s) that depend only on the weights (args #1, #2) into @forward.pack
// REMARKS-DAG: Category:convert-xpu-to-xegpu | Reason="kernel forward_packed_xe_gemm0: 12 workgroups of 16 work-items

// No weight layout work per call: xpu-materialize-layouts runs before
// xpu-outline-weight-pack, so the weight's bf16 conversion, [n, k] -> [k, n]
// transpose and pitch padding and the bias padded to whole tiles (67 -> 80
// columns of 16-column tiles) are all in @forward.pack;
// @forward.packed only reads them through views (the input x is converted
// and padded per call, as it must be).
// RUN: cat %S/../Integration/CPU/odd-shapes.mlir %S/../Integration/CPU/Inputs/gen.mlir \
// RUN:   | xpu-opt --xpu-xe-pipeline="chip=pvc" --mlir-print-ir-after=xpu-outline-weight-pack \
// RUN:     --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=PACKED
// PACKED-LABEL: func.func @forward.pack(%{{.+}}: tensor<67x97xf32>, %{{.+}}: tensor<67xf32>) -> (tensor<97x72xbf16>, tensor<1x80xf32>) attributes {llvm.emit_c_interface, xpu.pack_part = "pack"}
// PACKED:         arith.truncf %{{.+}} : f32 to bf16
// PACKED:         linalg.transpose
// PACKED:         tensor.pad
// PACKED:         linalg.broadcast
// PACKED:         tensor.pad
// PACKED-LABEL: func.func @forward.packed(
// PACKED-SAME:    %[[X:[^:]+]]: tensor<131x97xf32>, %[[W:[^:]+]]: tensor<97x72xbf16>, %[[B:[^:]+]]: tensor<1x80xf32>) -> tensor<131x67xf32> attributes {llvm.emit_c_interface, xpu.pack_part = "packed"}
// PACKED-NOT:     linalg.transpose
// PACKED-NOT:     linalg.broadcast
// PACKED:         %[[XB:.+]] = linalg.generic {{.*}} ins(%[[X]] : tensor<131x97xf32>)
// PACKED-NOT:     linalg.transpose
// PACKED-NOT:     linalg.broadcast
// PACKED:         tensor.pad %[[XB]]
// PACKED-NOT:     tensor.pad
// PACKED:         %[[WV:.+]] = tensor.extract_slice %[[W]][0, 0] [97, 67] [1, 1]
// PACKED:         %[[BV:.+]] = tensor.extract_slice %[[B]][0, 0] [1, 67] [1, 1] {xpu.panel}
// PACKED:         xpu.gemm %{{.+}}, %[[WV]] rhs_layout(kn) acc(f32) epilogue(%[[BV]] per_col
// PACKED:         return

// A chip that is not an Xe preset is an error when the options are parsed,
// before anything runs.
// RUN: cat %S/../Integration/CPU/linear-bias.mlir %S/../Integration/CPU/Inputs/gen.mlir \
// RUN:   | not xpu-opt --xpu-xe-pipeline="chip=sm_90" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: error: xpu-xe-pipeline: invalid value 'sm_90' for option 'chip' (expected pvc or bmg)
