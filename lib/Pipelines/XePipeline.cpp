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
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/XeGPU/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::xpu;

/// Workgroup-level XeGPU to an LLVM-dialect kernel: subgroup distribution by
/// sg_layout, blocking by inst_data, lane distribution, then XeVM and LLVM.
static void addXeKernelLowering(OpPassManager &pm) {
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
  kernels.addPass(createConvertMathToXeVM());
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
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
}

void mlir::xpu::buildXPUXePipeline(OpPassManager &pm,
                                   const XPUXePipelineOptions &options) {
  // Precision policy: DPAS multiplies bf16 or f16; an f32 model gets bf16
  // operands converted once at pack time (xpu-prepack-bf16 says so in a
  // remark), and accumulates in f32.
  std::string precision = options.precision == "f32"
                              ? std::string("bf16")
                              : options.precision.getValue();
  detail::addGPUFrontEnd(pm, options.optimize, precision, options.chip,
                         options.reassociate, /*gemmKernels=*/true, "xe",
                         options.getScheduleOptions());
  pm.addNestedPass<func::FuncOp>(createXPUScheduleGemmPass());
  pm.addPass(createXPUConvertToXeGPUPass());
  // Host work that is not a GEMM stays as loops on the host.
  pm.addPass(createXPULowerToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  detail::addBufferization(pm);
  bufferization::buildBufferDeallocationPipeline(pm);
  // Clones of buffers a function returns but does not own.
  pm.addPass(createConvertBufferizationToMemRefPass());

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
  detail::addGPUHostToLLVM(pm, /*kernelBarePtrCallConv=*/false);
}

void mlir::xpu::registerXPUXePipeline() {
  detail::registerPipeline<XPUXePipelineOptions>(
      "Intel Xe (pvc, bmg): raise to xpu, optimize with bf16/f16 operands, "
      "select a strategy and a schedule (data-parallel, persistent or "
      "Stream-K; schedule= forces one), lay out the operands before weight "
      "packing, build the programs (xpu-schedule-gemm) and lower each tile "
      "to workgroup-level XeGPU (2D block descriptors, prefetch, DPAS, fused "
      "epilogue; convert-xpu-to-xegpu), bufferize, distribute and lower the "
      "kernels "
      "through XeVM to SPIR-V in a gpu.binary (256-GRF kernels carry "
      "-ze-opt-large-register-file), and lower the host to the LLVM dialect "
      "(runnable by xpu-run --target=levelzero --xpu-chip=pvc|bmg)",
      buildXPUXePipeline);
}
