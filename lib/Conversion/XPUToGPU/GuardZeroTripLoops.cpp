//===- GuardZeroTripLoops.cpp - scf.for results that survive SPIR-V -------===//
//
// Upstream's scf.for -> SPIR-V lowering (MLIR 22.1.8) returns a loop's
// results through a function variable that only the loop body stores: a
// loop that runs zero times returns an uninitialized value instead of its
// init values. This pass puts every scf.for with results whose trip count
// is not provably positive under an scf.if on `lb < ub` that yields the
// init values otherwise, so the SPIR-V loop always runs at least once.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUGUARDZEROTRIPLOOPSPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
/// True when `loop` provably runs at least once.
bool runsAtLeastOnce(scf::ForOp loop) {
  APInt lb, ub;
  return matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) &&
         matchPattern(loop.getUpperBound(), m_ConstantInt(&ub)) &&
         (loop.getUnsignedCmp() ? lb.ult(ub) : lb.slt(ub));
}

struct GuardZeroTripLoopsPass final
    : xpu::impl::XPUGuardZeroTripLoopsPassBase<GuardZeroTripLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop.getNumResults() > 0 && !runsAtLeastOnce(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      OpBuilder b(loop);
      Location loc = loop.getLoc();
      Value runs = arith::CmpIOp::create(
          b, loc,
          loop.getUnsignedCmp() ? arith::CmpIPredicate::ult
                                : arith::CmpIPredicate::slt,
          loop.getLowerBound(), loop.getUpperBound());
      auto ifOp = scf::IfOp::create(b, loc, loop.getResultTypes(), runs,
                                    /*withElseRegion=*/true);
      loop->replaceAllUsesWith(ifOp.getResults());
      b.setInsertionPointToStart(ifOp.thenBlock());
      loop->moveBefore(ifOp.thenBlock(), ifOp.thenBlock()->end());
      b.setInsertionPointToEnd(ifOp.thenBlock());
      scf::YieldOp::create(b, loc, loop.getResults());
      b.setInsertionPointToStart(ifOp.elseBlock());
      scf::YieldOp::create(b, loc, loop.getInitArgs());
      ++numGuarded;
    }
  }
};
} // namespace
