//===- HoistVectorTransfers.cpp - accumulator tiles stay in registers -----===//

#include "xpu/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPUHOISTVECTORTRANSFERSPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
struct HoistVectorTransfersPass final
    : xpu::impl::XPUCPUHoistVectorTransfersPassBase<HoistVectorTransfersPass> {
  using Base::Base;
  void runOnOperation() override {
    linalg::hoistRedundantVectorTransfers(getOperation(),
                                          /*verifyNonZeroTrip=*/true);
  }
};
} // namespace
