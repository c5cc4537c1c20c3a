//===- InitAll.cpp - register everything xpu provides ---------------------===//

#include "xpu/InitAll.h"

#include "xpu/Codegen/Passes.h"
#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUToGPU/XPUToGPU.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"

void mlir::xpu::registerXPUDialect(DialectRegistry &registry) {
  registry.insert<XPUDialect>();
  registerGPUBarrierMemoryEffectsModel(registry);
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
