//===- PipelineUtils.h - pieces shared by the xpu pipelines -----*- C++ -*-===//
//
// Private to lib/Pipelines: the stages every code generation pipeline
// shares, so that the CPU, generic SPIR-V and Xe pipelines stay in step.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_LIB_PIPELINES_PIPELINEUTILS_H
#define XPU_LIB_PIPELINES_PIPELINEUTILS_H

#include "xpu/Pipelines/Pipelines.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::xpu {

/// xpu-optimize up to, not including, the outlining of weight-only work:
/// raise, demote f64, split GEMM + reduction, fuse, fold, simplify, prepack
/// 16-bit operands when asked. A target pipeline puts its operand-layout
/// passes between this and addOutlineWeightPack, so that the packing of
/// weights is outlined (and folded for constant weights) with the rest.
void addTargetIndependentOptimize(OpPassManager &pm,
                                  const XPUOptimizePipelineOptions &options);

/// xpu-outline-weight-pack (its weights: the arguments marked xpu.weight)
/// and a cleanup.
void addOutlineWeightPack(OpPassManager &pm);
} // namespace mlir::xpu

namespace mlir::xpu::detail {

/// Registers the pipeline `Options::kPipelineName`. Its options are parsed
/// and validated (Options::validate) when the pipeline is added to a pass
/// manager, so that a bad value is one error, in the user's words, before
/// anything runs.
template <typename Options>
void registerPipeline(StringRef description,
                      void (*build)(OpPassManager &, const Options &)) {
  registerPassPipeline(
      Options::kPipelineName, description,
      [build](OpPassManager &pm, StringRef text,
              function_ref<LogicalResult(const Twine &)> errorHandler) {
        Options options;
        std::string problems;
        llvm::raw_string_ostream os(problems);
        if (failed(options.parseFromString(text, os))) {
          StringRef why = StringRef(problems).trim();
          return errorHandler(Twine(Options::kPipelineName) +
                              ": invalid options '" + text + "'" +
                              (why.empty() ? "" : ": ") + why);
        }
        if (failed(options.validate([&](const Twine &message) {
              return errorHandler(Twine(Options::kPipelineName) + ": " +
                                  message);
            })))
          return failure();
        build(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(Options());
      });
}

/// What the start of a GPU pipeline needs to know.
struct GPUFrontEndOptions {
  /// Run the target-independent catalog (or only raise to xpu).
  bool optimize = true;
  /// The pipeline's precision policy (resolvePrecision).
  PrecisionPolicy precision;
  /// xpu-fold-affine-into-weights' reassociate.
  bool reassociate = false;
  /// Keep a 16-bit epilogue's rounding after every op (no
  /// xpu-widen-epilogue).
  bool roundEachOp = false;
  /// The #xpu.target preset when the module has none.
  std::string chip;
  /// Choose a strategy and lay out the operands of every GEMM.
  bool gemmKernels = true;
  /// Raise contractions with a dynamic batch or m too (xpu-raise
  /// dynamic-rows): the pipelines whose kernels read them at run time.
  bool dynamicRows = false;
  /// xpu-select-strategy's backend.
  std::string backend = "auto";
  GPUScheduleOptions schedule;
  /// xpu-select-strategy's tuning-db.
  std::string tuningDb;
  /// xpu-select-strategy's simt-vector.
  int64_t simtVector = 0;
  /// End the front end right after xpu-select-strategy
  /// (buildXPUStrategyPrefix: a tuner reads the GEMMs and their configs).
  bool stopAfterStrategy = false;
};

/// The front end of xpu-cpu-pipeline: the element-type checks, its
/// #xpu.target and the target-independent catalog (or only the raise with
/// optimize=false). xpu-tune's problems are the xpu.gemm ops it leaves.
void addCPUFrontEnd(OpPassManager &pm, const XPUCPUPipelineOptions &options);

/// The front-end options of a GPU pipeline's options, with `backend`.
template <typename Options>
GPUFrontEndOptions getGPUFrontEndOptions(const Options &options, StringRef chip,
                                         StringRef backend) {
  GPUFrontEndOptions frontEnd;
  frontEnd.optimize = options.optimize;
  frontEnd.precision = options.getPrecisionPolicy();
  frontEnd.reassociate = options.reassociate;
  frontEnd.roundEachOp = options.roundEachOp;
  frontEnd.chip = chip.str();
  frontEnd.backend = backend.str();
  frontEnd.schedule = options.getScheduleOptions();
  frontEnd.tuningDb = options.tuningDb;
  frontEnd.simtVector = options.simtVector;
  return frontEnd;
}

/// The start of a GPU pipeline up to and including weight-pack outlining:
/// the target, the target-independent catalog (or the raise alone), then,
/// for every GEMM the backend lowers, the strategy (with the schedule
/// options) and the backend's operand layouts, so that the weight layout
/// work is outlined into <fn>.pack with the rest.
void addGPUFrontEnd(OpPassManager &pm, const GPUFrontEndOptions &options);

/// Lowers the xpu ops left back to linalg on tensors and merges the
/// elementwise ops.
void addLowerXPUToLinalg(OpPassManager &pm);

/// One-shot bufferization across function boundaries with identity layouts,
/// so that @main can pass its buffers to @forward and to printMemrefF32, and
/// kernels can take bare pointers.
void addBufferization(OpPassManager &pm);

/// The ownership-based deallocation of every pipeline, after bufferization
/// (and after whatever the pipeline does on buffers before freeing them):
/// upstream's buffer deallocation pipeline, then the clones of buffers a
/// function returns but does not own lowered to an allocation and a copy
/// (left alone, bufferization.clone reaches the LLVM dialect unlowered; a
/// GPU pipeline's xpu-linalg-to-gpu-loops makes the copy a gpu.memcpy).
void addBufferDeallocation(OpPassManager &pm);

/// The host side of a GPU pipeline, after gpu-module-to-binary: every buffer
/// the host allocates becomes shared virtual memory (the NVVM pipeline has
/// placed its buffers already), the host is checked for accesses of device
/// memory (`verifyHostAccess`: xpu-verify-no-host-device-access) and lowered
/// to the LLVM dialect with bare-pointer kernel arguments (or whole memref
/// descriptors, for kernels lowered through XeVM).
void addGPUHostToLLVM(OpPassManager &pm, bool verifyHostAccess,
                      bool kernelBarePtrCallConv = true);

} // namespace mlir::xpu::detail

#endif // XPU_LIB_PIPELINES_PIPELINEUTILS_H
