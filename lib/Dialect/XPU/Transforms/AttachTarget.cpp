//===- AttachTarget.cpp - the #xpu.target a module is compiled for --------===//

#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUATTACHTARGETPASS
#define GEN_PASS_DEF_XPUDETACHTARGETPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
struct AttachTargetPass final
    : xpu::impl::XPUAttachTargetPassBase<AttachTargetPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr preset = TargetAttr::getPreset(&getContext(), chip);
    if (!preset) {
      module.emitError() << "xpu-attach-target: unknown chip '" << chip
                         << "' (presets: "
                         << llvm::join(TargetAttr::getPresetNames(), ", ")
                         << ")";
      return signalPassFailure();
    }
    StringRef name = XPUDialect::getTargetAttrName();
    if (auto existing = module->getAttrOfType<TargetAttr>(name)) {
      if (existing.getChip() != chip)
        remark::missed(module.getLoc(),
                       remarkOpts("xpu-attach-target", "KeptTarget"))
            << remark::reason("the module's own target '{0}' is kept (not "
                              "replaced by '{1}')",
                              existing.getChip(), chip.getValue());
      return;
    }
    module->setAttr(name, preset);
  }
};

struct DetachTargetPass final
    : xpu::impl::XPUDetachTargetPassBase<DetachTargetPass> {
  void runOnOperation() override {
    getOperation()->removeAttr(XPUDialect::getTargetAttrName());
  }
};
} // namespace
