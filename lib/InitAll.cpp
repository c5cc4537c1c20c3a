//===- InitAll.cpp - register everything xpu provides ---------------------===//

#include "xpu/InitAll.h"

#include "xpu/Codegen/Passes.h"
#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUToGPU/XPUToGPU.h"
#include "xpu/Conversion/XPUToNVGPU/XPUToNVGPU.h"
#include "xpu/Conversion/XPUToXeGPU/XPUToXeGPU.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVM/XeVM/Target.h"

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
  // gpu-module-to-binary on #xevm.target modules (xpu-xe-pipeline).
  xevm::registerXeVMTargetInterfaceExternalModels(registry);
  // ... and on #nvvm.target modules (xpu-nvvm-pipeline).
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerXPUGPULaunchMemoryEffects(registry);
  registerXPUNVGPUMemoryEffects(registry);
  registerXPUPasses();
  registerXPUPipelines();
}
