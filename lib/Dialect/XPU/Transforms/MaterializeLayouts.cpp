//===- MaterializeLayouts.cpp - operands in each backend's layout ---------===//
//
// Data tiling before weight packing: each configured xpu.gemm's operands are
// put in the layout its backend reads (GemmBackendAttrInterface::
// materializeLayouts, with the backend), on tensors, so that
// the layout work on weights is weight-only computation that
// xpu-outline-weight-pack moves into <fn>.pack (and constant folding does at
// compile time for constant weights). The GEMM reads each packed operand
// through a view of its logical shape, which xpu-schedule-gemm reads
// through (getPackedOperand).
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUMATERIALIZELAYOUTSPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-materialize-layouts";

namespace {
struct MaterializeLayoutsPass final
    : xpu::impl::XPUMaterializeLayoutsPassBase<MaterializeLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation().walk([&](GemmOp gemm) {
      if (gemm.getConfigAttr())
        gemms.push_back(gemm);
    });
    TargetAttr target = resolveTarget(getOperation());
    auto remark = [&](GemmOp gemm, StringRef name, const Twine &why,
                      bool changed) {
      remark::passed(gemm.getLoc(), remarkOpts(kPassArg, name))
          << remark::reason("{0}: {1}", describeGemmShape(gemm), why.str());
      if (changed)
        ++numChanged;
    };
    for (GemmOp gemm : gemms) {
      FailureOr<GemmBackendAttrInterface> backend =
          lookupGemmBackend(gemm.getConfigAttr(), gemm.getLoc(), kPassArg);
      if (failed(backend))
        return signalPassFailure();
      // The backend rewrites only GEMMs it computes.
      std::string why;
      Operation *where = gemm;
      if (failed(backend->checkGemm(gemm, target, why, where))) {
        where->emitError() << kPassArg << ": " << why;
        return signalPassFailure();
      }
      if (failed(backend->materializeLayouts(gemm, target, kPassArg, remark)))
        return signalPassFailure();
    }
  }
};
} // namespace
