//===- LinalgToGPULoops.cpp - GPU-mappable linalg ops to scf.parallel -----===//

#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPULINALGTOGPULOOPSPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
/// True if a SPIR-V kernel can run `op`: static identity-layout memrefs only
/// (kernels get bare pointers) and no calls in the payload.
bool isGPUMappable(linalg::LinalgOp op, bool allowBF16) {
  if (!op.hasPureBufferSemantics())
    return false;
  for (Value operand : op->getOperands()) {
    if (!allowBF16 && getElementTypeOrSelf(operand.getType()).isBF16())
      return false;
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type) {
      if (isa<ShapedType>(operand.getType()))
        return false;
      continue;
    }
    if (!type.hasStaticShape() || !type.getLayout().isIdentity())
      return false;
  }
  WalkResult result = op->walk([](Operation *inner) {
    return isa<CallOpInterface>(inner) ? WalkResult::interrupt()
                                       : WalkResult::advance();
  });
  return !result.wasInterrupted();
}

struct XPULinalgToGPULoopsPass
    : xpu::impl::XPULinalgToGPULoopsPassBase<XPULinalgToGPULoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isGPUMappable(op, allowBF16))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op)))
        continue;
      rewriter.eraseOp(op);
      ++numMapped;
    }
  }
};
} // namespace
