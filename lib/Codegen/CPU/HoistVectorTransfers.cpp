//===- HoistVectorTransfers.cpp - accumulator tiles stay in registers -----===//

#include "xpu/Codegen/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Hoisting.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPUHOISTVECTORTRANSFERSPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
/// True for the k loop of a micro-kernel once its accumulator is hoisted:
/// every value it carries is a vector, and its body (not a nested loop)
/// accumulates with vector.contract or vector.outerproduct.
bool isMicroKernelLoop(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() == 0 ||
      !llvm::all_of(loop.getRegionIterArgs(), [](BlockArgument arg) {
        return isa<VectorType>(arg.getType());
      }))
    return false;
  return llvm::any_of(*loop.getBody(), [](Operation &op) {
    return isa<vector::ContractionOp, vector::OuterProductOp>(op);
  });
}

struct HoistVectorTransfersPass final
    : xpu::impl::XPUCPUHoistVectorTransfersPassBase<HoistVectorTransfersPass> {
  using Base::Base;
  void runOnOperation() override {
    if (kUnroll < 1) {
      getOperation().emitError()
          << "xpu-cpu-hoist-vector-transfers: k-unroll must be >= 1, got "
          << kUnroll;
      return signalPassFailure();
    }
    linalg::hoistRedundantVectorTransfers(getOperation(),
                                          /*verifyNonZeroTrip=*/true);
    if (kUnroll == 1)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (isMicroKernelLoop(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops)
      if (failed(loopUnrollByFactor(loop, kUnroll)))
        loop.emitWarning() << "xpu-cpu-hoist-vector-transfers: could not "
                              "unroll the micro-kernel loop by "
                           << kUnroll;
  }
};
} // namespace
