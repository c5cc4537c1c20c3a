//===- XePipeline.cpp - xpu-xe-pipeline: XeGPU, XeVM, SPIR-V --------------===//
//
// The Intel-native path: each xpu.gemm becomes a workgroup-level XeGPU
// kernel (convert-xpu-to-xegpu), which upstream distributes to subgroups and
// lanes and lowers through XeVM to SPIR-V (the stages of upstream's
// gpu-lower-to-xevm-pipeline for the kernels of 22.1.8); the host goes the
// way of the other GPU pipelines. docs/Intel.md describes it.
//
//===----------------------------------------------------------------------===//

#include "PipelineUtils.h"
#include "xpu/Pipelines/Pipelines.h"

#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/XeGPU/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::xpu;

/// Workgroup-level XeGPU kernels to subgroup- and lane-level XeGPU:
/// subgroup distribution by sg_layout, blocking by inst_data, lane
/// distribution. Only the GEMM kernels exist at this point: the SIMT kernels
/// (xpu-linalg-to-gpu-loops) are outlined after it, which lane distribution
/// would reject.
static void addXeGPUDistribution(OpPassManager &pm) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(xegpu::createXeGPUWgToSgDistribute());
  kernels.addPass(createCSEPass());
  xegpu::XeGPUPropagateLayoutOptions inst;
  inst.layoutKind = "inst";
  kernels.addPass(xegpu::createXeGPUPropagateLayout(inst));
  kernels.addPass(xegpu::createXeGPUBlocking());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  // What blocking leaves of the row vectors of per_col epilogue operands
  // that lane distribution cannot take.
  kernels.addPass(createXPUXeGPULegalizeSlicedVectorsPass());
  xegpu::XeGPUPropagateLayoutOptions lane;
  lane.layoutKind = "lane";
  kernels.addPass(xegpu::createXeGPUPropagateLayout(lane));
  kernels.addPass(xegpu::createXeGPUSubgroupDistribute());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createLoopInvariantCodeMotionPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(xegpu::createXeGPUVectorLinearize());
}

/// Every kernel (lane-level XeGPU or SIMT) through XeVM to the LLVM dialect.
static void addXeKernelLowering(OpPassManager &pm) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // bf16 math and arithmetic (none in the GEMM kernels) in f32; the loads,
  // stores and conversions that remain get their integer form below.
  kernels.addPass(math::createMathExtendToSupportedTypes());
  kernels.addPass(createXPUXeApproximateMathPass());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  emulate.targetTypeStr = "f32";
  kernels.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  kernels.addPass(createConvertMathToXeVM());
  // Index arithmetic (64-bit) in 32 bits wherever integer range analysis
  // proves it fits: tile coordinates come from 32-bit hardware ids and go to
  // the 32-bit 2D block coordinates, and LLVM 22.1.8's SPIR-V backend
  // miscompiles what its loop strength reduction makes of 64-bit
  // arithmetic truncated to 32 bits (zext(trunc i64 to i3) as a 32-bit AND
  // of a 64-bit value: an invalid Stream-K fix-up kernel at 8205x5921x2949).
  // Offsets that can pass 2^31 stay 64-bit.
  arith::ArithIntRangeNarrowingOptions narrow;
  narrow.bitwidthsSupported = {32};
  kernels.addPass(arith::createArithIntRangeNarrowing(narrow));
  kernels.addPass(createConvertXeGPUToXeVMPass());
  ConvertGpuOpsToLLVMSPVOpsOptions toLLVMSPV;
  toLLVMSPV.use64bitIndex = true;
  kernels.addPass(createConvertGpuOpsToLLVMSPVOps(toLLVMSPV));
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  // What is left (scf, memref descriptors, arith, math, vector) to LLVM.
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createConvertVectorToLLVMPass());
  kernels.addPass(createConvertToLLVMPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  // SPIR-V for Intel GPUs has no bfloat type.
  kernels.addPass(createXPUXeVMLegalizeBF16Pass());
  kernels.addPass(createXPUXeVMKernelSubgroupSizePass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
}

void mlir::xpu::buildXPUXePipeline(OpPassManager &pm,
                                   const XPUXePipelineOptions &options) {
  // Precision (resolvePrecision): DPAS multiplies bf16 or f16, so an f32
  // model gets bf16 operands converted once at pack time.
  detail::GPUFrontEndOptions frontEnd =
      detail::getGPUFrontEndOptions(options, options.chip, "xe");
  // A dynamic batch or m: the 2D block descriptors take the rows at run
  // time, and so do the generic kernels.
  frontEnd.dynamicRows = true;
  detail::addGPUFrontEnd(pm, frontEnd);
  pm.addNestedPass<func::FuncOp>(createXPUScheduleGemmPass());
  pm.addPass(createXPUConvertXPUToXeGPUPass());
  // The rest of the work (weight layouts and conversions in <fn>.pack,
  // unfused epilogues, reductions) becomes SIMT kernels below.
  pm.addPass(createXPULowerToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  detail::addBufferization(pm);
  detail::addBufferDeallocation(pm);
  addXeGPUDistribution(pm);

  // Every other statically shaped linalg op becomes a kernel with full
  // workgroups, so that the host never reads the caller's buffers (device
  // memory on Level Zero): their shared local memory as __local arrays
  // (xpu-workgroup-allocs-to-globals), and ops on strided views and strided
  // copies as kernels too (XeVM kernels take whole memref descriptors).
  XPULinalgToGPULoopsPassOptions loops;
  loops.stridedCopies = true;
  loops.stridedOperands = true;
  // Ops over a dynamic batch (XeVM kernels take whole descriptors).
  loops.dynamicShapes = true;
  pm.addPass(createXPULinalgToGPULoopsPass(loops));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createXPUWorkgroupAllocsToGlobalsPass());
  pm.addNestedPass<func::FuncOp>(createXPUAsyncLaunchesPass());
  // The outlined modules (gpu-kernel-outlining names them <fn>_kernel[_N])
  // compile for the chip like the GEMM kernels, which have their target.
  GpuXeVMAttachTargetOptions attach;
  attach.moduleMatcher = "_kernel(_[0-9]+)?$";
  attach.chip = options.chip;
  pm.addPass(createGpuXeVMAttachTarget(attach));
  // ... and are serialized as one module (the SPIR-V backend of LLVM
  // 22.1.8 corrupts ids when it translates many modules in a process).
  XPUMergeKernelModulesPassOptions merge;
  merge.moduleMatcher = attach.moduleMatcher;
  pm.addPass(createXPUMergeKernelModulesPass(merge));

  addXeKernelLowering(pm);
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "bin";
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
  pm.addPass(createXPUEmbedXeBuildOptionsPass());
  if (!options.dumpBinaries.empty()) {
    XPUDumpGPUBinariesPassOptions dump;
    dump.dir = options.dumpBinaries;
    pm.addPass(createXPUDumpGPUBinariesPass(dump));
  }

  // XeVM kernels take whole memref descriptors.
  detail::addGPUHostToLLVM(pm, options.verifyHostAccess,
                           /*kernelBarePtrCallConv=*/false);
}

void mlir::xpu::registerXPUXePipeline() {
  detail::registerPipeline<XPUXePipelineOptions>(
      "Intel Xe chips (chip=): raise to xpu, optimize with bf16/f16 operands, "
      "select a strategy and a schedule (data-parallel, persistent or "
      "Stream-K; schedule= forces one), lay out the operands before weight "
      "packing, build the programs (xpu-schedule-gemm) and lower each tile "
      "to workgroup-level XeGPU (2D block descriptors, prefetch, DPAS, fused "
      "epilogue; convert-xpu-to-xegpu), bufferize, distribute and lower the "
      "kernels "
      "through XeVM to SPIR-V in a gpu.binary (256-GRF kernels carry "
      "-ze-opt-large-register-file), and lower the host to the LLVM dialect "
      "(runnable by xpu-run --target=levelzero --xpu-chip=<chip>)",
      buildXPUXePipeline);
}
