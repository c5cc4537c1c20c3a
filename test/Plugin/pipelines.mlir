// The main xpu pipelines run in stock mlir-opt with the xpu plugin and give
// exactly the IR that xpu-opt gives; the CPU result also runs on stock
// mlir-runner against a float64 NumPy reference. mlir-opt reads its
// `--<pass>` flags before it loads plugins, so plugin passes and pipelines
// go through --pass-pipeline.
// REQUIRES: xpu-plugin, spirv-tools
// DEFINE: %{plugin} = --load-dialect-plugin=%xpu_plugin --load-pass-plugin=%xpu_plugin
// The model of Integration/CPU/linear-bn-relu.mlir and its input generator.
// RUN: cat %S/../Integration/CPU/linear-bn-relu.mlir \
// RUN:   %S/../Integration/CPU/Inputs/gen.mlir > %t.model.mlir
// DEFINE: %{model} = %t.model.mlir

// xpu-optimize{reassociate=true}: Linear + BatchNorm + ReLU becomes one
// xpu.gemm with the BatchNorm folded into the weights.
// RUN: xpu-opt %{model} --xpu-optimize=reassociate=true -o %t.opt.xpu-opt
// RUN: mlir-opt %{plugin} %{model} --pass-pipeline='builtin.module(xpu-optimize{reassociate=true})' -o %t.opt.mlir-opt
// RUN: diff %t.opt.xpu-opt %t.opt.mlir-opt
// RUN: FileCheck %s --check-prefix=OPT < %t.opt.mlir-opt
// OPT-LABEL: func.func @forward(
// OPT-LABEL: func.func @forward.pack(
// OPT-LABEL: func.func @forward.packed(
// OPT:         xpu.gemm {{.*}} rhs_layout(nk) acc(f32) epilogue({{.*}} per_col
// OPT-NOT:     linalg.matmul
// OPT-LABEL: func.func @main(

// With options, through --pass-pipeline.
// RUN: xpu-opt %{model} --pass-pipeline='builtin.module(xpu-optimize{precision=bf16})' -o %t.bf16.xpu-opt
// RUN: mlir-opt %{plugin} %{model} --pass-pipeline='builtin.module(xpu-optimize{precision=bf16})' -o %t.bf16.mlir-opt
// RUN: diff %t.bf16.xpu-opt %t.bf16.mlir-opt
// RUN: FileCheck %s --check-prefix=BF16 < %t.bf16.mlir-opt
// BF16: xpu.gemm
// BF16: } : (tensor<16x64xbf16>, tensor<32x64xbf16>) -> tensor<16x32xf32>

// The pass plugin alone is enough for IR that has no xpu op yet: the passes
// load the dialects they create.
// RUN: mlir-opt --load-pass-plugin=%xpu_plugin %{model} --pass-pipeline='builtin.module(xpu-optimize{reassociate=true})' -o %t.opt.pass-only
// RUN: diff %t.opt.xpu-opt %t.opt.pass-only

// xpu-cpu-pipeline, then stock mlir-runner.
// RUN: xpu-opt %{model} --xpu-cpu-pipeline -o %t.cpu.xpu-opt
// RUN: mlir-opt %{plugin} %{model} --pass-pipeline='builtin.module(xpu-cpu-pipeline)' -o %t.cpu.mlir-opt
// RUN: diff %t.cpu.xpu-opt %t.cpu.mlir-opt
// RUN: mlir-runner %t.cpu.mlir-opt -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN:   | %refcheck --input x=16x64@1 --input w=32x64@2 --input b=32@3 \
// RUN:       --input gamma=32@4 --input beta=32@5 --input mean=32@6 --input var=32@7:pos \
// RUN:       --expr "np.maximum((x @ w.T + b - mean) / np.sqrt(var + 1e-5) * gamma + beta, 0)" --tol 1e-5

// xpu-spirv-pipeline: kernels serialized to SPIR-V in the same gpu.binary.
// RUN: xpu-opt %{model} --xpu-spirv-pipeline -o %t.spirv.xpu-opt
// RUN: mlir-opt %{plugin} %{model} --pass-pipeline='builtin.module(xpu-spirv-pipeline)' -o %t.spirv.mlir-opt
// RUN: diff %t.spirv.xpu-opt %t.spirv.mlir-opt
// RUN: FileCheck %s --check-prefix=SPIRV < %t.spirv.mlir-opt
// SPIRV: gpu.binary @forward.packed_kernel {{.*}}#spirv.target_env<#spirv.vce<v1.1, [Addresses, Float16, Float16Buffer, Float64, Int8, Int16, Int64, Kernel, SubgroupDispatch, DeviceEnqueue]

// xpu-xe-pipeline: XeGPU kernels through XeVM to SPIR-V in a gpu.binary.
// The models it needs (gpu.launch_func effects for buffer deallocation, the
// XeVM target for gpu-module-to-binary) come with convert-xpu-to-xegpu, so
// the pass plugin alone is enough here too. The IR must be the same; the
// SPIR-V of a module translated after another one may number its labels
// differently from run to run (LLVM 22.1.8's shared module analysis,
// docs/KnownIssues.md), so the binaries must be valid and equal up to id
// numbering (%same-binaries).
// RUN: xpu-opt %{model} --xpu-xe-pipeline -o %t.xe.xpu-opt
// RUN: mlir-opt %{plugin} %{model} --pass-pipeline='builtin.module(xpu-xe-pipeline)' -o %t.xe.mlir-opt
// RUN: %same-binaries %t.xe.xpu-opt %t.xe.mlir-opt
// RUN: mlir-opt --load-pass-plugin=%xpu_plugin %{model} --pass-pipeline='builtin.module(xpu-xe-pipeline{chip=bmg})' -o %t.xe-bmg.pass-only
// RUN: xpu-opt %{model} --xpu-xe-pipeline=chip=bmg -o %t.xe-bmg.xpu-opt
// RUN: %same-binaries %t.xe-bmg.xpu-opt %t.xe-bmg.pass-only
// RUN: FileCheck %s --check-prefix=XE < %t.xe.mlir-opt
// XE: gpu.launch_func {{.*}}@forward_packed_xe_gemm0::@forward_packed_xe_gemm0
// XE: gpu.binary @forward_packed_xe_gemm0 [#gpu.object<#xevm.target<chip = "pvc">, bin =

// Remarks come through upstream's remark filter (xpu-opt's --xpu-remarks is
// a spelling of it).
// RUN: xpu-opt %{model} --xpu-optimize=reassociate=true --xpu-remarks --mlir-disable-threading -o /dev/null 2> %t.remarks.xpu-opt
// RUN: mlir-opt %{plugin} %{model} --pass-pipeline='builtin.module(xpu-optimize{reassociate=true})' --remarks-filter='xpu-.*' --mlir-disable-threading -o /dev/null 2> %t.remarks.mlir-opt
// RUN: diff %t.remarks.xpu-opt %t.remarks.mlir-opt
// RUN: FileCheck %s --check-prefix=REMARK < %t.remarks.mlir-opt
// REMARK: remark: [Passed] Raised | Category:xpu-raise
// REMARK: remark: [Passed] Folded | Category:xpu-fold-affine-into-weights
