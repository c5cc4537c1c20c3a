//===- SetSPIRVEntryPointABI.cpp - spirv.entry_point_abi on kernels -------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSETSPIRVENTRYPOINTABIPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-set-spirv-entry-point-abi";

namespace {
struct XPUSetSPIRVEntryPointABIPass
    : xpu::impl::XPUSetSPIRVEntryPointABIPassBase<
          XPUSetSPIRVEntryPointABIPass> {
  using Base::Base;

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

    std::optional<int> subgroupSize;
    if (failed(getSubgroupSize(subgroupSize)))
      return signalPassFailure();

    StringRef abiName = spirv::getEntryPointABIAttrName();
    module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel() || func->hasAttr(abiName))
        return;
      DenseI32ArrayAttr workgroupSize = func.getKnownBlockSizeAttr();
      func->setAttr(abiName, spirv::EntryPointABIAttr::get(
                                 ctx, workgroupSize, subgroupSize,
                                 /*targetWidth=*/std::nullopt));
    });
  }

private:
  /// The first subgroup size of the module's target, if there is a target
  /// and the SPIR-V environment can state it (SubgroupDispatch, SPIR-V 1.1).
  LogicalResult getSubgroupSize(std::optional<int> &size) {
    gpu::GPUModuleOp module = getOperation();
    TargetAttr target = TargetAttr::lookup(module);
    if (!target || target.getSubgroupSizes().empty())
      return success();
    int lanes = static_cast<int>(target.getSubgroupSizes().front());
    spirv::TargetEnvAttr envAttr = spirv::lookupTargetEnv(module);
    if (!envAttr)
      return success();
    spirv::TargetEnv env(envAttr);
    if (env.getVersion() < spirv::Version::V_1_1 ||
        !env.allows(spirv::Capability::SubgroupDispatch)) {
      remark::missed(module.getLoc(), remarkOpts(kPassArg, "NoSubgroupSize"))
          << remark::reason(
                 "the kernels of '{0}' get no subgroup size: {1} plans {2} "
                 "lanes, but OpExecutionMode SubgroupSize needs SPIR-V 1.1 "
                 "and the SubgroupDispatch capability, which the target "
                 "environment does not have; the device compiler picks the "
                 "SIMD width",
                 module.getName(), target.getChip(), lanes);
      return success();
    }
    size = lanes;
    return success();
  }
};
} // namespace
