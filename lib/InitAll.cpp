//===- InitAll.cpp - register everything xpu provides ---------------------===//

#include "xpu/InitAll.h"

#include "xpu/Codegen/Passes.h"
#include "xpu/Conversion/GemmBackends.h"
#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

void mlir::xpu::registerXPUDialect(DialectRegistry &registry) {
  // Only the dialect and the GEMM backends' models of its own attributes:
  // interface models of upstream ops (gpu.barrier and gpu.launch_func
  // effects, the XeVM target) come with the passes that need them (their
  // getDependentDialects), so loading xpu changes nothing for the rest of a
  // host's pipelines.
  registry.insert<XPUDialect>();
  registerAllGemmBackends(registry);
}

void mlir::xpu::registerAllGemmBackends(DialectRegistry &registry) {
  registerXeGemmBackend(registry);
  registerNVGPUGemmBackend(registry);
  registerSimtGemmBackend(registry);
}

void mlir::xpu::registerXPUPasses() {
  registerXPUTransformsPasses();
  registerXPUConversionPasses();
  registerXPUCodegenPasses();
}

void mlir::xpu::registerAllXPU(DialectRegistry &registry) {
  registerXPUDialect(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerXPUPasses();
  registerXPUPipelines();
}
