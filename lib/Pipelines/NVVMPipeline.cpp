//===- NVVMPipeline.cpp - xpu-nvvm-pipeline: NVIDIA GPUs through NVVM -----===//
//
// The NVIDIA path: GEMMs with 16-bit operands (or f32 ones in tf32, when
// asked) become tensor-core kernels (convert-xpu-to-nvgpu), f32 GEMMs SIMT
// kernels (convert-xpu-to-gpu), the other linalg ops one-thread-per-element
// kernels; kernels go through NVVM to a cubin in gpu.binary and the host the
// way of the other GPU pipelines, with CUDA device or managed buffers.
// docs/NVIDIA.md describes it.
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
#include "mlir/Dialect/LLVMIR/Transforms/OptimizeForNVVM.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

#ifndef XPU_CUDA_TOOLKIT_DIR
#define XPU_CUDA_TOOLKIT_DIR ""
#endif

using namespace mlir;
using namespace mlir::xpu;

/// Kernels in gpu.module ops to the NVVM and LLVM dialects.
static void addNVVMKernelLowering(OpPassManager &pm, bool fastMath) {
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Transcendentals on ex2/lg2/tanh.approx where the precision allows it
  // (XPUNVVMPipelineOptions::useFastMath), before libdevice takes them; its
  // remarks still have the kernels' locations.
  if (fastMath)
    kernels.addPass(createXPUNVVMFastMathPass());
  kernels.addPass(createStripDebugInfoPass());
  kernels.addPass(createXPULowerSubgroupReducePass());
  kernels.addPass(createXPUNVGPUBF16MmaToNVVMPass());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  ConvertGpuOpsToNVVMOpsOptions toNVVM;
  toNVVM.useBarePtrCallConv = true;
  kernels.addPass(createConvertGpuOpsToNVVMOps(toNVVM));
  // NVVM ops defined as inline PTX (mbarrier waits, wgmma) to llvm.inline_asm.
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createXPUExternDynamicSharedMemoryPass());
  kernels.addPass(LLVM::createNVVMOptimizeForTargetPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::xpu::addXPUNVVMFrontEnd(OpPassManager &pm,
                                   const XPUNVVMPipelineOptions &options) {
  // Precision (resolvePrecision): tf32 keeps f32 numerics up to the kernel,
  // which rounds the operands; bf16 and f16 convert them at pack time
  // (xpu-prepack-bf16). The backend of each GEMM (xpu-select-strategy,
  // backend=auto): nvgpu configs (#xpu.nvgpu: mma.sync, or wgmma on sm_90a) for
  // the GEMMs the tensor cores take, whose operands xpu-materialize-layouts
  // then pads to the pitch the kernels read (in <fn>.pack for weights); SIMT
  // configs for the f32 (without tf32) and f64 ones.
  detail::GPUFrontEndOptions frontEnd =
      detail::getGPUFrontEndOptions(options, options.chip, "auto");
  // A dynamic batch or m: the SIMT kernels and the generic ones read it at
  // run time (the tensor-core kernels need a static m: the strategy gives
  // such GEMMs SIMT configs).
  frontEnd.dynamicRows = true;
  detail::addGPUFrontEnd(pm, frontEnd);
  if (options.cInterfaces)
    pm.addPass(createXPUExportCInterfacesPass());
}

void mlir::xpu::buildXPUNVVMPipeline(OpPassManager &pm,
                                     const XPUNVVMPipelineOptions &options) {
  addXPUNVVMFrontEnd(pm, options);
  // Every GEMM becomes programs of tiles (data-parallel, persistent or
  // Stream-K); the tensor-core ones become mma.sync / wgmma kernels, the
  // f32 (and f64) ones SIMT kernels.
  pm.addNestedPass<func::FuncOp>(createXPUScheduleGemmPass());
  XPUConvertXPUToNVGPUPassOptions tensorCores;
  tensorCores.tmaStore = options.tmaStore;
  tensorCores.tmaStoreStaged = options.tmaStoreStaged;
  pm.addPass(createXPUConvertXPUToNVGPUPass(tensorCores));
  pm.addNestedPass<func::FuncOp>(createXPUConvertXPUToGPUPass());
  detail::addLowerXPUToLinalg(pm);

  detail::addBufferization(pm);
  detail::addBufferDeallocation(pm);

  // The other statically shaped linalg ops: kernels with full workgroups
  // (elementwise and pack work one thread per element, row reductions one
  // workgroup per row, reduced within each warp by shuffles first).
  XPULinalgToGPULoopsPassOptions loops;
  loops.subgroupSize = 32;
  // The copies of bufferized pads (xpu-materialize-layouts' row pitches)
  // run on the device too, not through the host's memrefCopy.
  loops.stridedCopies = true;
  // Conversions, pads and other elementwise kernels move 16 bytes per
  // access (ld/st.global.v4).
  loops.vectorize = true;
  // Ops over a dynamic batch read their sizes on the host
  // (xpu-bound-dynamic-kernel-memrefs below gives their bare pointers a
  // static shape).
  loops.dynamicShapes = true;
  pm.addPass(createXPULinalgToGPULoopsPass(loops));
  pm.addNestedPass<func::FuncOp>(createXPUSharedAllocsToDynamicPass());
  pm.addPass(createLowerAffinePass());
  // Constants and index arithmetic on them go into the kernels, not through
  // their parameters: the kernels' tile arithmetic folds (divisions by
  // constants become shifts).
  pm.addPass(createGpuLaunchSinkIndexComputationsPass());
  pm.addPass(createGpuKernelOutliningPass());
  // Kernels over a dynamic batch take bare pointers of a static bound.
  pm.addPass(createXPUBoundDynamicKernelMemRefsPass());
  pm.addNestedPass<func::FuncOp>(createXPUAsyncLaunchesPass());
  pm.addPass(createXPUSanitizeKernelNamesPass());

  // Kernels to NVVM, then PTX and a cubin.
  GpuNVVMAttachTargetOptions attach;
  attach.chip = options.chip;
  attach.features = "+ptx80";
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  addNVVMKernelLowering(pm, options.useFastMath());
  if (!options.dumpBinaries.empty()) {
    XPUDumpNVVMBinariesPassOptions dump;
    dump.dir = options.dumpBinaries;
    dump.ptx = true;
    pm.addPass(createXPUDumpNVVMBinariesPass(dump));
  }
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = options.binaryFormat;
  toBinary.toolkitPath = options.toolkit.empty()
                             ? std::string(XPU_CUDA_TOOLKIT_DIR)
                             : options.toolkit.getValue();
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
  if (!options.dumpBinaries.empty()) {
    XPUDumpNVVMBinariesPassOptions dump;
    dump.dir = options.dumpBinaries;
    dump.ptx = false;
    pm.addPass(createXPUDumpNVVMBinariesPass(dump));
  }

  // The host: device memory for buffers only kernels touch, managed memory
  // for the others; bare-pointer kernel arguments.
  XPUCudaBuffersPassOptions buffers;
  buffers.deviceResults = options.deviceResults;
  pm.addPass(createXPUCudaBuffersPass(buffers));
  // TMA descriptors are made on the host (mgpuTensorMapEncodeTiledMemref).
  // On the module, not per function: the conversion declares that runtime
  // function in the module, which functions converted on parallel threads
  // raced for ("redefinition of symbol named
  // 'mgpuTensorMapEncodeTiledMemref'" with two functions using TMA).
  pm.addPass(createConvertNVGPUToNVVMPass());
  detail::addGPUHostToLLVM(pm, options.verifyHostAccess);
}

void mlir::xpu::registerXPUNVVMPipeline() {
  detail::registerPipeline<XPUNVVMPipelineOptions>(
      "NVIDIA chips (chip=): raise to xpu, optimize, select a "
      "strategy, lower GEMMs with 16-bit operands (or tf32 when asked) to "
      "tensor-core kernels (convert-xpu-to-nvgpu: cp.async pipeline, "
      "swizzled shared memory, ldmatrix, mma.sync; TMA and wgmma on the chips "
      "that have them; "
      "fused epilogue on the accumulators) and f32 GEMMs to programs of "
      "SIMT tiles (xpu-schedule-gemm, convert-xpu-to-gpu), the other linalg "
      "ops to kernels with full workgroups, compile the "
      "kernels through NVVM to cubins in gpu.binary ops, and lower the host "
      "to the LLVM dialect with CUDA device or managed buffers (runnable by "
      "xpu-run --target=cuda, or compiled by xpu-compile)",
      buildXPUNVVMPipeline);
}
