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

// The option's default, written out in Passes.td (the installed pass
// headers do not include the utilities).
static_assert(xpu::kMaxVectorElements == 65536,
              "xpu-check-vector-sizes' max-elements default is 2^16");

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
