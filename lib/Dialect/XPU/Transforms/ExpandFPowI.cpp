//===- ExpandFPowI.cpp - math.fpowi to multiplications or math.powf -------===//
//
// No backend of MLIR 22.1.8 lowers torch-mlir's `math.fpowi` in all its
// forms: convert-math-to-llvm rejects the vector form (llvm.intr.powi wants a
// scalar exponent) and convert-math-to-spirv has no pattern. Constant
// exponents become multiplications (upstream's expansion), the rest
// math.powf on |x| with the sign of x copied for odd exponents.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUEXPANDFPOWIPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
/// x ** n = copysign(powf(|x|, n), x) for odd n, powf(|x|, n) for even n.
struct FPowIToPowF final : OpRewritePattern<math::FPowIOp> {
  FPowIToPowF(MLIRContext *ctx, llvm::Statistic &count)
      : OpRewritePattern(ctx, /*benefit=*/2), count(count) {}

  LogicalResult matchAndRewrite(math::FPowIOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = op.getLhs(), n = op.getRhs();
    // Constant exponents are upstream's (multiplications); its rewrite of
    // the others, powf(x, n) on x itself, leaves the sign to powf.
    if (matchPattern(n, m_Constant()))
      return rewriter.notifyMatchFailure(op, "constant exponent");
    Type type = x.getType(), intType = n.getType();
    Value exponent = arith::SIToFPOp::create(rewriter, loc, type, n);
    Value magnitude = math::AbsFOp::create(rewriter, loc, x);
    Value pow = math::PowFOp::create(rewriter, loc, magnitude, exponent);
    Value signed_ = math::CopySignOp::create(rewriter, loc, pow, x);
    auto one = rewriter.getIntegerAttr(getElementTypeOrSelf(intType), 1);
    Value oneValue =
        isa<ShapedType>(intType)
            ? arith::ConstantOp::create(
                  rewriter, loc,
                  DenseElementsAttr::get(cast<ShapedType>(intType),
                                         cast<Attribute>(one)))
                  .getResult()
            : arith::ConstantOp::create(rewriter, loc, one).getResult();
    Value low = arith::AndIOp::create(rewriter, loc, n, oneValue);
    Value odd = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                      low, oneValue);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, odd, signed_, pow);
    ++count;
    return success();
  }

  llvm::Statistic &count;
};

struct ExpandFPowIPass final
    : xpu::impl::XPUExpandFPowIPassBase<ExpandFPowIPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // Constant exponents: multiplications (upstream's expansion).
    math::populateExpansionPatterns(patterns, {"fpowi"});
    patterns.add<FPowIToPowF>(&getContext(), numGeneral);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
