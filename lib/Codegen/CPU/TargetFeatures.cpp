//===- TargetFeatures.cpp - target-cpu / target-features on llvm.func -----===//
//
// Marks every LLVM function of the lowered CPU module with the CPU and the
// features it is compiled for. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPUTARGETFEATURESPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
struct TargetFeaturesPass final
    : xpu::impl::XPUCPUTargetFeaturesPassBase<TargetFeaturesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (StringRef(cpu).trim().empty()) {
      getOperation().emitError()
          << "xpu-cpu-target-features: option 'cpu' must name an LLVM CPU "
             "(x86-64-v3, sapphirerapids, ...)";
      return signalPassFailure();
    }
    // LLVM's spelling: "+name" per feature.
    SmallVector<std::string> list;
    SmallVector<StringRef> names;
    StringRef(features).split(names, ',', -1, /*KeepEmpty=*/false);
    for (StringRef name : names) {
      name = name.trim();
      if (name.empty())
        continue;
      if (name.starts_with("+") || name.starts_with("-"))
        list.push_back(name.str());
      else
        list.push_back("+" + name.str());
    }
    SmallVector<StringRef> refs(list.begin(), list.end());
    MLIRContext *ctx = &getContext();
    auto cpuAttr = StringAttr::get(ctx, StringRef(cpu).trim());
    auto featuresAttr = LLVM::TargetFeaturesAttr::get(ctx, refs);
    getOperation().walk([&](LLVM::LLVMFuncOp fn) {
      if (fn.isExternal())
        return;
      if (!fn.getTargetCpuAttr())
        fn.setTargetCpuAttr(cpuAttr);
      if (!fn.getTargetFeaturesAttr() && !refs.empty())
        fn.setTargetFeaturesAttr(featuresAttr);
      ++numMarked;
    });
  }
};
} // namespace
