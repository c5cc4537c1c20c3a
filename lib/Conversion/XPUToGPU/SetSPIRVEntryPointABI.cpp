//===- SetSPIRVEntryPointABI.cpp - spirv.entry_point_abi on kernels -------===//

#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSETSPIRVENTRYPOINTABIPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
struct XPUSetSPIRVEntryPointABIPass
    : xpu::impl::XPUSetSPIRVEntryPointABIPassBase<
          XPUSetSPIRVEntryPointABIPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Passes run on the kernels before convert-gpu-to-spirv (math to SPIR-V)
    // find the target environment only as spirv.target_env.
    gpu::GPUModuleOp module = getOperation();
    StringRef envName = spirv::getTargetEnvAttrName();
    if (!module->hasAttr(envName))
      if (ArrayAttr targets = module.getTargetsAttr())
        for (Attribute target : targets)
          if (auto env = dyn_cast<spirv::TargetEnvAttr>(target)) {
            module->setAttr(envName, env);
            break;
          }
    StringRef abiName = spirv::getEntryPointABIAttrName();
    getOperation().walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel() || func->hasAttr(abiName))
        return;
      DenseI32ArrayAttr workgroupSize = func.getKnownBlockSizeAttr();
      func->setAttr(
          abiName, spirv::EntryPointABIAttr::get(ctx, workgroupSize,
                                                 /*subgroupSize=*/std::nullopt,
                                                 /*targetWidth=*/std::nullopt));
    });
  }
};
} // namespace
