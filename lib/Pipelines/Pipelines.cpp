//===- Pipelines.cpp - registered xpu pipelines ---------------------------===//

#include "xpu/Pipelines/Pipelines.h"
#include "PipelineUtils.h"

#include "xpu/Codegen/Passes.h"
#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::xpu;

void mlir::xpu::addTargetIndependentOptimize(
    OpPassManager &pm, const XPUOptimizePipelineOptions &options) {
  // Recognize the GEMMs, then work in f32 unless asked otherwise
  // (precision=f64 keeps f64).
  pm.addNestedPass<func::FuncOp>(createXPUExpandFPowIPass());
  XPURaisePassOptions raise;
  raise.strict = options.strict;
  raise.dynamicRows = options.dynamicRows;
  pm.addNestedPass<func::FuncOp>(createXPURaisePass(raise));
  if (options.precision != "f64") {
    XPUDemoteF64PassOptions demote;
    demote.keep.assign(options.keepF64.begin(), options.keepF64.end());
    pm.addNestedPass<func::FuncOp>(createXPUDemoteF64Pass(demote));
  }
  // Reductions are marked before fusion pulls elementwise work into the
  // epilogue; the epilogue is then complete for the algebra that follows.
  pm.addNestedPass<func::FuncOp>(createXPUSplitGemmReductionPass());
  pm.addNestedPass<func::FuncOp>(createXPUFuseEpiloguePass());
  XPUFoldAffineIntoWeightsPassOptions fold;
  fold.reassociate = options.reassociate;
  pm.addNestedPass<func::FuncOp>(createXPUFoldAffineIntoWeightsPass(fold));
  // A 16-bit epilogue computes in f32 before the exact simplifications,
  // whose range analysis then sees the f32 ops.
  if (!options.roundEachOp)
    pm.addNestedPass<func::FuncOp>(createXPUWidenEpiloguePass());
  pm.addNestedPass<func::FuncOp>(createXPUSimplifyEpiloguePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Precision last among the function passes, so that the conversions of
  // weights (folded ones included) are weight-only computation, which
  // addOutlineWeightPack moves to <fn>.pack.
  if (options.precision != "f32" && options.precision != "f64") {
    XPUPrepackBF16PassOptions prepack;
    prepack.precision = options.precision;
    pm.addNestedPass<func::FuncOp>(createXPUPrepackBF16Pass(prepack));
  }
}

void mlir::xpu::addOutlineWeightPack(OpPassManager &pm) {
  pm.addPass(createXPUOutlineWeightPackPass());
  pm.addPass(createCanonicalizerPass());
}

void mlir::xpu::buildXPUOptimizePipeline(
    OpPassManager &pm, const XPUOptimizePipelineOptions &options) {
  addTargetIndependentOptimize(pm, options);
  addOutlineWeightPack(pm);
}

void mlir::xpu::detail::addGPUFrontEnd(OpPassManager &pm,
                                       const GPUFrontEndOptions &options) {
  // Element types without a lowering and vectors too large for the host
  // lowering to unroll are rejected before any work; then the target: the
  // fusion guard reads it too. GEMMs of two float types run as generic
  // kernels.
  XPUCheckElementTypesPassOptions types;
  types.mixedFloatOperands = true;
  pm.addPass(createXPUCheckElementTypesPass(types));
  pm.addPass(createXPUCheckVectorSizesPass());
  XPUAttachTargetPassOptions attach;
  attach.chip = options.chip;
  pm.addPass(createXPUAttachTargetPass(attach));
  // Contractions with dynamic shapes stay linalg ops (a remark says so) and
  // take the generic, unfused path, except a dynamic batch or m where the
  // pipeline's kernels read it at run time.
  XPUOptimizePipelineOptions optimize;
  optimize.dynamicRows = options.dynamicRows;
  optimize.precision = options.precision.operands;
  optimize.reassociate = options.reassociate;
  optimize.roundEachOp = options.roundEachOp;
  if (options.optimize) {
    addTargetIndependentOptimize(pm, optimize);
  } else {
    pm.addNestedPass<func::FuncOp>(createXPUExpandFPowIPass());
    XPURaisePassOptions raise;
    raise.dynamicRows = options.dynamicRows;
    pm.addNestedPass<func::FuncOp>(createXPURaisePass(raise));
  }
  // Target-dependent: a config per GEMM, then the operands in the layout of
  // its backend, so that the layout work on weights is weight-only
  // computation ...
  if (options.gemmKernels) {
    XPUSelectStrategyPassOptions strategy;
    strategy.backend = options.backend;
    strategy.schedule = options.schedule.schedule;
    strategy.programs = options.schedule.programs;
    strategy.fixup = options.schedule.fixup;
    strategy.tf32 = options.precision.tf32;
    strategy.tuningDb = options.tuningDb;
    strategy.simtVector = options.simtVector;
    pm.addNestedPass<func::FuncOp>(createXPUSelectStrategyPass(strategy));
    if (options.stopAfterStrategy)
      return;
    pm.addNestedPass<func::FuncOp>(createXPUMaterializeLayoutsPass());
  }
  // Constant weights have no argument to outline for: their layout work is
  // evaluated at compile time.
  pm.addNestedPass<func::FuncOp>(createXPUFoldConstantWeightsPass());
  // ... that moves into <fn>.pack here.
  if (options.optimize)
    addOutlineWeightPack(pm);
}

void mlir::xpu::detail::addLowerXPUToLinalg(OpPassManager &pm) {
  pm.addPass(createXPULowerToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::xpu::detail::addBufferization(OpPassManager &pm) {
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  // Entry points get their results computed in the caller's buffers.
  pm.addPass(createXPUWriteResultsInPlacePass());
}

void mlir::xpu::detail::addBufferDeallocation(OpPassManager &pm) {
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
}

/// Loops to branches, memrefs and math to the LLVM dialect: the part of the
/// host lowering that the CPU and GPU pipelines share.
static void addLoopsAndMemRefsToLLVM(OpPassManager &pm) {
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
}

namespace {
/// What the CPU pipeline compiles for: the preset of #xpu.target and the
/// CPU and features LLVM generates code for.
struct CpuTarget {
  const TargetPreset *preset;
  std::string llvmCpu, features;
};
} // namespace

/// The CPU target of `chip` (validated): the host's own name and features,
/// with the preset that has the most of them, for `host`; the preset's
/// otherwise.
static CpuTarget resolveCpuTarget(StringRef chip) {
  if (chip == kHostChip) {
    const HostCpu &host = getHostCpu();
    return {&getHostCpuPreset(), host.name, llvm::join(host.features, ",")};
  }
  const TargetPreset *preset = lookupTargetPreset(chip);
  assert(preset && preset->cpu && "the chip option is validated");
  return {preset, preset->cpu->llvmCpu.str(), preset->cpu->features.str()};
}

void mlir::xpu::detail::addCPUFrontEnd(OpPassManager &pm,
                                       const XPUCPUPipelineOptions &options) {
  CpuTarget cpu = resolveCpuTarget(options.chip);
  // The target-independent catalog. Contractions with a dynamic batch or m
  // dimension (the rows a model is called on) are raised and take the
  // packed path with the row count read at run time; other dynamic
  // contractions stay linalg ops (a remark says so) and take the generic,
  // unfused path.
  pm.addPass(createXPUCheckElementTypesPass());
  pm.addPass(createXPUCheckVectorSizesPass());
  XPUAttachTargetPassOptions attach;
  attach.chip = cpu.preset->chip.str();
  pm.addPass(createXPUAttachTargetPass(attach));
  XPUOptimizePipelineOptions optimize;
  optimize.precision = options.getPrecisionPolicy().operands;
  optimize.reassociate = options.reassociate;
  optimize.roundEachOp = options.roundEachOp;
  optimize.dynamicRows = true;
  if (options.optimize) {
    addTargetIndependentOptimize(pm, optimize);
  } else {
    pm.addNestedPass<func::FuncOp>(createXPUExpandFPowIPass());
    XPURaisePassOptions raise;
    raise.dynamicRows = true;
    pm.addNestedPass<func::FuncOp>(createXPURaisePass(raise));
  }
}

void mlir::xpu::buildXPUCPUPipeline(OpPassManager &pm,
                                    const XPUCPUPipelineOptions &options) {
  CpuTarget cpu = resolveCpuTarget(options.chip);
  // AMX tiles for bf16 GEMMs where the chip has them.
  bool amx = options.amx && cpu.preset->cpu->amx;
  // The front end (xpu-tune's problems are its xpu.gemm ops, and a tuning
  // database gives them their tiles here), then the CPU operand layout
  // (packed panels for the micro-kernel) before the weight-only work is
  // outlined: packing a weight happens once, in <fn>.pack.
  detail::addCPUFrontEnd(pm, options);
  if (!options.tuningDb.empty()) {
    XPUCPUApplyTuningDbPassOptions apply;
    apply.tuningDb = options.tuningDb;
    pm.addPass(createXPUCPUApplyTuningDbPass(apply));
  }
  if (options.vectorize) {
    pm.addPass(createXPULowerToLinalgPass());
    XPUCPUPackOperandsPassOptions packing;
    packing.registerTile.assign(options.registerTile.begin(),
                                options.registerTile.end());
    packing.amx = amx;
    pm.addNestedPass<func::FuncOp>(createXPUCPUPackOperandsPass(packing));
  }
  // Constant weights have no argument to outline for: their packing is
  // evaluated at compile time.
  pm.addNestedPass<func::FuncOp>(createXPUFoldConstantWeightsPass());
  if (options.optimize)
    addOutlineWeightPack(pm);
  // The CPU strategy applies the epilogue per vector tile.
  detail::addLowerXPUToLinalg(pm);

  // CPU strategy on tensors.
  if (options.vectorize) {
    XPUCPUTileAndVectorizePassOptions tiling;
    tiling.cacheTile.assign(options.cacheTile.begin(), options.cacheTile.end());
    tiling.registerTile.assign(options.registerTile.begin(),
                               options.registerTile.end());
    tiling.parallel = options.threads != 1;
    pm.addNestedPass<func::FuncOp>(createXPUCPUTileAndVectorizePass(tiling));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }

  detail::addBufferization(pm);
  if (options.vectorize) {
    // Transfers address the base buffers (no subviews in between, so the
    // hoisting sees that nothing else in the k loop touches the
    // accumulator), the accumulator stays in registers across the k loop,
    // and every n-D vector op becomes 1-D before convert-vector-to-llvm.
    pm.addPass(createCSEPass());
    pm.addNestedPass<func::FuncOp>(memref::createFoldMemRefAliasOpsPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    pm.addNestedPass<func::FuncOp>(createXPUCPUHoistVectorTransfersPass());
    pm.addNestedPass<func::FuncOp>(createXPUCPULowerVectorsPass());
    pm.addPass(createCSEPass());
    // bf16 GEMMs in the AMX form (xpu-cpu-pack-operands) become tile loops.
    if (amx) {
      XPUCPULowerAmxGemmPassOptions lowerAmx;
      lowerAmx.l2Bytes = cpu.preset->cpu->l2Bytes;
      lowerAmx.parallel = options.threads != 1;
      pm.addPass(createXPUCPULowerAmxGemmPass(lowerAmx));
    }
  }
  // Copies into part of a buffer (padded operands) as loops that LLVM
  // vectorizes, not the runtime's element-by-element memrefCopy.
  pm.addNestedPass<func::FuncOp>(createXPUCPULowerStridedCopiesPass());
  // Vector math stays vector math: polynomial approximations instead of
  // one libm call per lane.
  pm.addNestedPass<func::FuncOp>(createXPUCPUApproximateMathPass());
  detail::addBufferDeallocation(pm);
  // Parallel loops become OpenMP regions here only to carry their bodies
  // through the LLVM conversion; xpu-cpu-parallel-to-threads then runs them
  // on POSIX threads.
  bool threaded = options.vectorize && options.threads != 1;
  if (threaded) {
    pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
    pm.addPass(createConvertSCFToOpenMPPass());
    // The memref.alloca_scope around each body (no allocas in it) goes
    // away before scf-to-cf gives the body several blocks.
    pm.addPass(createCanonicalizerPass());
  }

  // Down to the LLVM dialect.
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMaskPass());
  pm.addPass(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll(true)));
  // Math is lowered inside: math-to-libm unrolls vector math without an
  // LLVM intrinsic (math.erf, ...) into vector.extract / vector.insert and
  // scalar calls, which convert-vector-to-llvm then lowers.
  addLoopsAndMemRefsToLLVM(pm);
  // The AMX accumulators are loop-carried: the branches that carry them
  // need the amx type conversion (x86_amx), which only a conversion that
  // also holds the amx patterns has.
  if (amx) {
    ConvertToLLVMPassOptions amxAndBranches;
    amxAndBranches.filterDialects = {"amx", "cf"};
    pm.addPass(createConvertToLLVMPass(amxAndBranches));
  }
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.vectorContractLowering =
      vector::VectorContractLowering::OuterProduct;
  vectorToLLVM.amx = amx;
  // The pair-dot micro-kernel's x86vector.avx512.dot.
  vectorToLLVM.x86Vector = true;
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  if (threaded)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  if (threaded) {
    XPUCPUParallelToThreadsPassOptions threading;
    threading.threads = options.threads;
    pm.addPass(createXPUCPUParallelToThreadsPass(threading));
  }
  pm.addPass(createCanonicalizerPass());
  XPUCPUTargetFeaturesPassOptions features;
  features.cpu = cpu.llvmCpu;
  features.features = cpu.features;
  pm.addPass(createXPUCPUTargetFeaturesPass(features));
  pm.addPass(createXPUDetachTargetPass());
}

void mlir::xpu::detail::addGPUHostToLLVM(OpPassManager &pm,
                                         bool verifyHostAccess,
                                         bool kernelBarePtrCallConv) {
  pm.addPass(createXPUHostBuffersToGPUPass());
  // Every buffer has its place now and every host access is still an op on
  // a memref: the last point where "the host touches no device memory" is
  // decidable. What follows lowers these ops without adding accesses.
  if (verifyHostAccess)
    pm.addPass(createXPUVerifyNoHostDeviceAccessPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  addLoopsAndMemRefsToLLVM(pm);
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  GpuToLLVMConversionPassOptions toLLVM;
  toLLVM.kernelBarePtrCallConv = kernelBarePtrCallConv;
  pm.addPass(createGpuToLLVMConversionPass(toLLVM));
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createXPUDetachTargetPass());
}

void mlir::xpu::buildXPUSPIRVPipeline(OpPassManager &pm,
                                      const XPUSPIRVPipelineOptions &options) {
  detail::GPUFrontEndOptions frontEnd =
      detail::getGPUFrontEndOptions(options, options.getChip(), "simt");
  frontEnd.gemmKernels = options.gemmKernels;
  // The SIMT kernels and the generic ones read a dynamic batch or m at run
  // time.
  frontEnd.dynamicRows = true;
  detail::addGPUFrontEnd(pm, frontEnd);
  // Every GEMM becomes programs of SIMT tiles; the elementwise work left
  // outside them goes the generic way below.
  if (options.gemmKernels) {
    pm.addNestedPass<func::FuncOp>(createXPUScheduleGemmPass());
    XPUConvertXPUToGPUPassOptions toGPU;
    // OpenCL SPIR-V has no bf16 type (upstream stores it in 32-bit words,
    // past the end of 16-bit buffers) and OpenCL 1.2 no float atomics.
    toGPU.allowBF16 = false;
    toGPU.floatAtomics = false;
    pm.addNestedPass<func::FuncOp>(createXPUConvertXPUToGPUPass(toGPU));
  }
  detail::addLowerXPUToLinalg(pm);

  detail::addBufferization(pm);
  detail::addBufferDeallocation(pm);

  // Statically shaped linalg ops become kernels with full workgroups:
  // elementwise and pack work one work-item per element, row reductions one
  // workgroup per row.
  XPULinalgToGPULoopsPassOptions loops;
  loops.allowBF16 = false;
  loops.stridedCopies = true;
  loops.stridedOperands = true;
  loops.dynamicShapes = true;
  pm.addPass(createXPULinalgToGPULoopsPass(loops));
  pm.addPass(createLowerAffinePass());
  pm.addPass(createGpuKernelOutliningPass());
  // The host waits for the kernels only where it touches their results.
  pm.addNestedPass<func::FuncOp>(createXPUAsyncLaunchesPass());

  // The kernels, to OpenCL-flavour SPIR-V. SPIR-V 1.1 and SubgroupDispatch
  // for OpExecutionMode SubgroupSize: the kernels run with the subgroup size
  // their tiles were laid out for, not one the device compiler picks.
  GpuSPIRVAttachTargetOptions attach;
  attach.spirvVersion = "v1.1";
  attach.spirvCapabilities = {"Addresses",    "Float16", "Float16Buffer",
                              "Float64",      "Int8",    "Int16",
                              "Int64",        "Kernel",  "SubgroupDispatch",
                              "DeviceEnqueue"};
  pm.addPass(createGpuSPIRVAttachTarget(attach));
  // The kernels' subgroup size from the target that xpu-attach-target put
  // on the module.
  pm.addNestedPass<gpu::GPUModuleOp>(createXPUSetSPIRVEntryPointABIPass());
  // Buffers of 2^31 elements or more: no array length in the kernels'
  // types (convert-gpu-to-spirv holds it in 32 bits).
  pm.addPass(createXPUSPIRVLegalizeHugeMemRefsPass());
  // Upstream's scf.for lowering loses the init values of a loop that runs
  // zero times: guard such loops.
  pm.addNestedPass<gpu::GPUModuleOp>(createXPUGuardZeroTripLoopsPass());
  // OpenCL implementations need not have the f16 forms of erf, exp, ...
  // (PoCL fails to build them): 16-bit math is computed in f32 and rounded.
  pm.addNestedPass<gpu::GPUModuleOp>(math::createMathExtendToSupportedTypes());
  // convert-gpu-to-spirv has no math patterns: math ops become OpenCL
  // extended instructions first.
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertMathToSPIRVPass());
  // 22.1.8 has no options-taking constructor for convert-gpu-to-spirv.
  std::unique_ptr<Pass> toSPIRV = createConvertGPUToSPIRVPass();
  LogicalResult initialized = toSPIRV->initializeOptions(
      "use-64bit-index=true", [](const Twine &) { return failure(); });
  assert(succeeded(initialized) && "convert-gpu-to-spirv lost its option");
  (void)initialized;
  pm.addPass(std::move(toSPIRV));
  OpPassManager &spirvModule =
      pm.nest<gpu::GPUModuleOp>().nest<spirv::ModuleOp>();
  spirvModule.addPass(spirv::createSPIRVLowerABIAttributesPass());
  spirvModule.addPass(spirv::createSPIRVUpdateVCEPass());
  pm.addPass(createGpuModuleToBinaryPass());
  // The GRF mode planned for the kernels, inside their SPIR-V (the runtimes
  // pass it to the driver).
  pm.addPass(createXPUEmbedXeBuildOptionsPass());
  if (!options.dumpBinaries.empty()) {
    XPUDumpGPUBinariesPassOptions dump;
    dump.dir = options.dumpBinaries;
    pm.addPass(createXPUDumpGPUBinariesPass(dump));
  }

  detail::addGPUHostToLLVM(pm, options.verifyHostAccess);
}

void mlir::xpu::registerXPUPipelines() {
  detail::registerPipeline<XPUOptimizePipelineOptions>(
      "The optimization catalog in a sound order: raise, demote f64, split "
      "GEMM + reduction, fuse epilogues (register guard), fold affine "
      "epilogues into weights, simplify, prepack bf16/f16 when asked, outline "
      "weight packing",
      buildXPUOptimizePipeline);
  detail::registerPipeline<XPUCPUPipelineOptions>(
      "Raise torch-mlir linalg to xpu, then tile, vectorize, bufferize and "
      "lower to the LLVM dialect for the CPU (runnable by mlir-runner and "
      "xpu-run)",
      buildXPUCPUPipeline);
  detail::registerPipeline<XPUSPIRVPipelineOptions>(
      "Raise to xpu, optimize, choose a strategy and a schedule for every "
      "GEMM (data-parallel, persistent or Stream-K; schedule= forces one), "
      "lay out its operands before weight packing, build its programs "
      "(xpu-schedule-gemm) and lower each tile (convert-xpu-to-gpu: SLM "
      "slices, register micro-tiles, masked tails, fused epilogue); lower "
      "the rest to linalg, bufferize, map the other statically shaped linalg "
      "ops to kernels with full workgroups, outline, chain the launches on "
      "one stream, compile the kernels to OpenCL-flavour SPIR-V (v1.1, "
      "Kernel with 64-bit addresses and 16/64-bit types) in gpu.binary ops, "
      "allocate host buffers as shared virtual memory and lower the host to "
      "the LLVM "
      "dialect with bare-pointer kernel arguments (runnable by xpu-run "
      "--target=opencl|levelzero)",
      buildXPUSPIRVPipeline);
  registerXPUXePipeline();
  registerXPUNVVMPipeline();
}
