//===- StrategyPrefix.cpp - a GPU pipeline up to its strategy -------------===//
//
// What xpu-tune compiles to find a function's GEMMs: the front end of the
// target's GPU pipeline, built from the pipeline's own options, ending
// after xpu-select-strategy (on the CPU: the target and the catalog).
//
//===----------------------------------------------------------------------===//

#include "PipelineUtils.h"
#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace mlir::xpu;

namespace {
/// Parses `options` for the pipeline of `Options` and adds its front end;
/// `adjust` sets what the pipeline sets beyond getGPUFrontEndOptions.
template <typename Options>
LogicalResult addPrefix(
    OpPassManager &pm, StringRef options, StringRef backend,
    llvm::function_ref<StringRef(const Options &)> getChip,
    llvm::function_ref<void(const Options &, xpu::detail::GPUFrontEndOptions &)>
        adjust = nullptr) {
  std::unique_ptr<Options> parsed = Options::createFromString(options);
  if (!parsed)
    return failure();
  xpu::detail::GPUFrontEndOptions frontEnd =
      xpu::detail::getGPUFrontEndOptions(*parsed, getChip(*parsed), backend);
  if (adjust)
    adjust(*parsed, frontEnd);
  frontEnd.stopAfterStrategy = true;
  xpu::detail::addGPUFrontEnd(pm, frontEnd);
  return success();
}
} // namespace

LogicalResult mlir::xpu::buildXPUStrategyPrefix(OpPassManager &pm,
                                                StringRef pipelineName,
                                                StringRef options) {
  // The backends and chips as the pipelines pass them (Pipelines.cpp,
  // XePipeline.cpp, NVVMPipeline.cpp).
  std::optional<PipelineKind> kind = lookupPipelineKind(pipelineName);
  if (kind == PipelineKind::SPIRV)
    return addPrefix<XPUSPIRVPipelineOptions>(
        pm, options, "simt",
        [](const XPUSPIRVPipelineOptions &o) { return o.getChip(); },
        [](const XPUSPIRVPipelineOptions &o,
           xpu::detail::GPUFrontEndOptions &frontEnd) {
          frontEnd.gemmKernels = o.gemmKernels;
        });
  if (kind == PipelineKind::Xe)
    return addPrefix<XPUXePipelineOptions>(
        pm, options, "xe",
        [](const XPUXePipelineOptions &o) { return StringRef(o.chip); });
  if (kind == PipelineKind::NVVM)
    return addPrefix<XPUNVVMPipelineOptions>(
        pm, options, "auto",
        [](const XPUNVVMPipelineOptions &o) { return StringRef(o.chip); });
  if (kind == PipelineKind::CPU) {
    // The front end of buildXPUCPUPipeline: the CPU has no strategy pass,
    // its tiles are pipeline options or come from a tuning database.
    std::unique_ptr<XPUCPUPipelineOptions> parsed =
        XPUCPUPipelineOptions::createFromString(options);
    if (!parsed)
      return failure();
    xpu::detail::addCPUFrontEnd(pm, *parsed);
    return success();
  }
  llvm::errs() << "error: " << pipelineName
               << " is not a pipeline that compiles GEMMs\n";
  return failure();
}
