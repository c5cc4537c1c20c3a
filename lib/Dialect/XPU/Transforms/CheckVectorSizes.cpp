//===- CheckVectorSizes.cpp - reject vectors the lowerings would unroll ---===//
//
// See Passes.td and VectorLimits.h.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/VectorLimits.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCHECKVECTORSIZESPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
struct CheckVectorSizesPass final
    : xpu::impl::XPUCheckVectorSizesPassBase<CheckVectorSizesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (maxElements < 1) {
      getOperation()->emitError()
          << getArgument() << ": max-elements must be positive, not "
          << static_cast<int64_t>(maxElements);
      return signalPassFailure();
    }
    if (failed(xpu::checkVectorSizes(getOperation(), maxElements.getValue(),
                                     getArgument())))
      signalPassFailure();
  }
};
} // namespace
