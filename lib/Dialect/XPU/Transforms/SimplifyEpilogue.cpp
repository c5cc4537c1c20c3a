//===- SimplifyEpilogue.cpp - no-op and redundant epilogue work -----------===//
//
// Catalog: skip_fusion_when_noop_or_redundant,
// fusion_skip_when_dead_or_constant. Removes work from xpu.gemm epilogues
// that cannot change the stored value, with exact IEEE-754 semantics (no
// fast-math assumption unless the op carries the flag):
//
// * x * 1.0, 1.0 * x, x / 1.0, x - (+0.0), x + (-0.0), -(-x): always exact.
// * sqrt of a constant (GELU's sqrt(2.0) in a bf16 model) is folded to the
//   value the kernels compute.
// * x + (+0.0) and x - (-0.0) turn x = -0.0 into +0.0, so they are removed
//   only when x is proven never to be -0.0 (or the op has `nsz`). The
//   accumulator argument is never -0.0: it starts at +0.0 (the zero fill of
//   xpu-lower-to-linalg, the zeroed accumulator of the GPU lowerings) and a
//   round-to-nearest sum is -0.0 only when both addends are -0.0.
// * A clamp (maximumf / minimumf / maxnumf / minnumf against a constant, or
//   torch-mlir's `select(cmpf(pred, x, c), x, c)`) is removed when the range
//   analysis of FloatRangeUtils proves it returns x for every x: signed zeros
//   are compared by their bits (maximumf(-0.0, +0.0) is +0.0), NaN inputs must
//   come out as x (maximumf and unordered predicates propagate NaN;
//   maxnumf and ordered predicates return c, so they need x proven not NaN
//   or the `nnan` flag).
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Transforms/Transforms.h"
#include "xpu/Dialect/XPU/Utils/FloatRangeUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSIMPLIFYEPILOGUEPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-simplify-epilogue";

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

namespace {
bool inEpilogue(Operation *op) {
  return isa_and_nonnull<GemmOp>(op->getParentOp());
}

/// Base of the epilogue patterns: reports each simplification as a remark
/// and counts it for the pass statistic.
template <typename OpTy> struct EpiloguePattern : OpRewritePattern<OpTy> {
  EpiloguePattern(MLIRContext *ctx, unsigned *counter)
      : OpRewritePattern<OpTy>(ctx), counter(counter) {}

  void report(Location loc, const Twine &what) const {
    remark::passed(loc, remarkOpts(kPassArg, "Simplified"))
        << remark::reason("{0}", what.str());
    if (counter)
      ++*counter;
  }

  unsigned *counter;
};

bool hasFlag(Operation *op, arith::FastMathFlags flag) {
  auto iface = dyn_cast<arith::ArithFastMathInterface>(op);
  if (!iface)
    return false;
  arith::FastMathFlagsAttr attr = iface.getFastMathFlagsAttr();
  return attr && bitEnumContainsAll(attr.getValue(), flag);
}

/// x * 1.0, 1.0 * x -> x.
struct RemoveMulByOne final : EpiloguePattern<arith::MulFOp> {
  using EpiloguePattern::EpiloguePattern;
  LogicalResult matchAndRewrite(arith::MulFOp op,
                                PatternRewriter &rewriter) const override {
    if (!inEpilogue(op))
      return rewriter.notifyMatchFailure(op, "not in an xpu.gemm epilogue");
    for (unsigned i = 0; i < 2; ++i) {
      if (!matchPattern(op->getOperand(i), m_OneFloat()))
        continue;
      report(op.getLoc(), "removed multiplication by 1.0");
      rewriter.replaceOp(op, op->getOperand(1 - i));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no operand is 1.0");
  }
};

/// x / 1.0 -> x.
struct RemoveDivByOne final : EpiloguePattern<arith::DivFOp> {
  using EpiloguePattern::EpiloguePattern;
  LogicalResult matchAndRewrite(arith::DivFOp op,
                                PatternRewriter &rewriter) const override {
    if (!inEpilogue(op))
      return rewriter.notifyMatchFailure(op, "not in an xpu.gemm epilogue");
    if (!matchPattern(op.getRhs(), m_OneFloat()))
      return rewriter.notifyMatchFailure(op, "divisor is not 1.0");
    report(op.getLoc(), "removed division by 1.0");
    rewriter.replaceOp(op, op.getLhs());
    return success();
  }
};

/// Why `x + (+0.0)` returns x, or nothing when it may not.
std::optional<std::string> plusZeroIsExact(Operation *op, Value x) {
  if (hasFlag(op, arith::FastMathFlags::nsz))
    return std::string("nsz fast-math flag");
  FloatRange r = getFloatRange(x);
  if (!r.noNegZero)
    return std::nullopt;
  auto arg = dyn_cast<BlockArgument>(x);
  if (arg && arg.getArgNumber() == 0)
    return std::string("the accumulator is never -0.0");
  return "the operand is never -0.0, range " + formatRange(r);
}

/// x + (-0.0), -0.0 + x -> x; x + (+0.0), +0.0 + x -> x when x is not -0.0.
struct RemoveAddZero final : EpiloguePattern<arith::AddFOp> {
  using EpiloguePattern::EpiloguePattern;
  LogicalResult matchAndRewrite(arith::AddFOp op,
                                PatternRewriter &rewriter) const override {
    if (!inEpilogue(op))
      return rewriter.notifyMatchFailure(op, "not in an xpu.gemm epilogue");
    for (unsigned i = 0; i < 2; ++i) {
      Value x = op->getOperand(1 - i);
      if (matchPattern(op->getOperand(i), m_NegZeroFloat())) {
        report(op.getLoc(), "removed addition of -0.0");
        rewriter.replaceOp(op, x);
        return success();
      }
      if (!matchPattern(op->getOperand(i), m_PosZeroFloat()))
        continue;
      if (std::optional<std::string> why = plusZeroIsExact(op, x)) {
        report(op.getLoc(), "removed addition of 0.0 (" + *why + ")");
        rewriter.replaceOp(op, x);
        return success();
      }
    }
    return rewriter.notifyMatchFailure(
        op, "no zero operand, or x + 0.0 with x possibly -0.0");
  }
};

/// x - (+0.0) -> x; x - (-0.0) -> x when x is not -0.0.
struct RemoveSubZero final : EpiloguePattern<arith::SubFOp> {
  using EpiloguePattern::EpiloguePattern;
  LogicalResult matchAndRewrite(arith::SubFOp op,
                                PatternRewriter &rewriter) const override {
    if (!inEpilogue(op))
      return rewriter.notifyMatchFailure(op, "not in an xpu.gemm epilogue");
    if (matchPattern(op.getRhs(), m_PosZeroFloat())) {
      report(op.getLoc(), "removed subtraction of 0.0");
      rewriter.replaceOp(op, op.getLhs());
      return success();
    }
    if (matchPattern(op.getRhs(), m_NegZeroFloat())) {
      if (std::optional<std::string> why = plusZeroIsExact(op, op.getLhs())) {
        report(op.getLoc(), "removed subtraction of -0.0 (" + *why + ")");
        rewriter.replaceOp(op, op.getLhs());
        return success();
      }
    }
    return rewriter.notifyMatchFailure(
        op, "subtrahend is not zero, or x - (-0.0) with x possibly -0.0");
  }
};

/// -(-x) -> x.
struct RemoveDoubleNegation final : EpiloguePattern<arith::NegFOp> {
  using EpiloguePattern::EpiloguePattern;
  LogicalResult matchAndRewrite(arith::NegFOp op,
                                PatternRewriter &rewriter) const override {
    if (!inEpilogue(op))
      return rewriter.notifyMatchFailure(op, "not in an xpu.gemm epilogue");
    auto inner = op.getOperand().getDefiningOp<arith::NegFOp>();
    if (!inner)
      return rewriter.notifyMatchFailure(op, "operand is not a negation");
    report(op.getLoc(), "removed double negation -(-x)");
    rewriter.replaceOp(op, inner.getOperand());
    return success();
  }
};

/// max(x, c) / min(x, c) that never changes x.
template <typename OpTy>
struct RemoveInactiveMinMax final : EpiloguePattern<OpTy> {
  using EpiloguePattern<OpTy>::EpiloguePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!inEpilogue(op))
      return rewriter.notifyMatchFailure(op, "not in an xpu.gemm epilogue");
    std::optional<MinMaxMatch> m = matchMinMax(op);
    if (!m)
      return rewriter.notifyMatchFailure(op, "no constant operand");
    FloatRange r = getFloatRange(m->x);
    if (minMaxVerdict(op, *m, r) != ClampVerdict::Redundant)
      return rewriter.notifyMatchFailure(op, "the clamp may be active");
    this->report(op.getLoc(),
                 llvm::formatv("removed {0}(x, {1}): x is already in {2}",
                               op->getName().getStringRef(), formatFloat(m->c),
                               formatRange(r))
                     .str());
    rewriter.replaceOp(op, m->x);
    return success();
  }
};

/// select(cmpf(pred, x, c), x, c) that always yields x.
struct RemoveInactiveSelectClamp final : EpiloguePattern<arith::SelectOp> {
  using EpiloguePattern::EpiloguePattern;
  LogicalResult matchAndRewrite(arith::SelectOp op,
                                PatternRewriter &rewriter) const override {
    if (!inEpilogue(op))
      return rewriter.notifyMatchFailure(op, "not in an xpu.gemm epilogue");
    auto m = matchConstantSelectClamp(op);
    if (!m)
      return rewriter.notifyMatchFailure(op, "not a cmpf + select clamp");
    FloatRange r = getFloatRange(m->first.x);
    if (selectVerdict(m->first, m->second, r) != ClampVerdict::Redundant)
      return rewriter.notifyMatchFailure(op, "the clamp may be active");
    report(op.getLoc(),
           llvm::formatv("removed {0}: x is already in {1}",
                         describeSelect(m->first, m->second), formatRange(r))
               .str());
    rewriter.replaceOp(op, m->first.x);
    return success();
  }
};

/// The scalar of a splat constant tensor: arith.constant dense<c>,
/// linalg.fill or tensor.splat of a constant.
TypedAttr getSplatScalar(Value v) {
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)) && dense.isSplat())
    return dyn_cast<TypedAttr>(dense.getSplatValue<Attribute>());
  Value scalar;
  if (auto fill = v.getDefiningOp<linalg::FillOp>()) {
    if (!fill.hasPureTensorSemantics())
      return {};
    scalar = fill.getInputs()[0];
  } else if (auto splat = v.getDefiningOp<tensor::SplatOp>()) {
    scalar = splat.getInput();
  } else {
    return {};
  }
  TypedAttr attr;
  if (!matchPattern(scalar, m_Constant(&attr)) ||
      attr.getType() != getElementTypeOrSelf(v.getType()))
    return {};
  return attr;
}

/// Epilogue operands that are splat constants are read as scalar constants,
/// so the operand (a tensor load per element) dies.
struct ScalarizeSplatOperands final : EpiloguePattern<GemmOp> {
  using EpiloguePattern::EpiloguePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    bool changed = false;
    Block &block = op.getEpilogueBlock();
    for (auto [i, operand] : llvm::enumerate(op.getEpilogueOperands())) {
      BlockArgument arg = op.getEpilogueArgument(i);
      if (arg.use_empty())
        continue;
      TypedAttr scalar = getSplatScalar(operand);
      if (!scalar || scalar.getType() != arg.getType())
        continue;
      rewriter.setInsertionPointToStart(&block);
      Value cst = arith::ConstantOp::create(rewriter, op.getLoc(), scalar);
      std::string text;
      if (auto f = dyn_cast<FloatAttr>(scalar)) {
        text = formatFloat(f.getValue());
      } else {
        llvm::raw_string_ostream os(text);
        scalar.print(os);
      }
      report(op.getLoc(),
             llvm::formatv("epilogue operand #{0} ({1}) is the splat constant "
                           "{2}: read as a scalar, the operand is dropped",
                           i, stringifyBroadcastKind(op.getBroadcastKind(i)),
                           text)
                 .str());
      rewriter.replaceAllUsesWith(arg, cst);
      changed = true;
    }
    return success(changed);
  }
};

/// sqrt(c) of a float constant c -> its value, rounded as the kernels
/// compute it: in the constant's type for f32 and f64, through f32 for
/// 16-bit floats (which every lowering promotes to f32). torch-mlir's GELU
/// divides by sqrt(2.0) in the model's type; upstream folds only f32 and
/// f64, so a bf16 model computed the square root for every element.
/// Rounding a double square root to f32 gives the correctly rounded f32
/// square root (53 >= 2 * 24 + 2 bits).
struct FoldSqrtOfConstant final : EpiloguePattern<math::SqrtOp> {
  using EpiloguePattern::EpiloguePattern;
  LogicalResult matchAndRewrite(math::SqrtOp op,
                                PatternRewriter &rewriter) const override {
    if (!inEpilogue(op))
      return rewriter.notifyMatchFailure(op, "not in an xpu.gemm epilogue");
    FloatAttr c;
    if (!matchPattern(op.getOperand(), m_Constant(&c)))
      return rewriter.notifyMatchFailure(op, "operand is not a constant");
    auto type = cast<FloatType>(c.getType());
    if (type.getWidth() > 64)
      return rewriter.notifyMatchFailure(op, "wider than f64");
    bool losesInfo = false;
    APFloat x = c.getValue();
    x.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
    APFloat root(std::sqrt(x.convertToDouble()));
    if (type.getWidth() < 64)
      root.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
    if (type.getWidth() < 32)
      root.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                   &losesInfo);
    report(op.getLoc(),
           llvm::formatv("folded sqrt({0}) to {1} (computed once, not per "
                         "element)",
                         formatFloat(c.getValue()), formatFloat(root)));
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op,
                                                   FloatAttr::get(type, root));
    return success();
  }
};

void addPatterns(RewritePatternSet &patterns, unsigned *counter) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<RemoveMulByOne, RemoveDivByOne, RemoveAddZero, RemoveSubZero,
           RemoveDoubleNegation, RemoveInactiveMinMax<arith::MaximumFOp>,
           RemoveInactiveMinMax<arith::MinimumFOp>,
           RemoveInactiveMinMax<arith::MaxNumFOp>,
           RemoveInactiveMinMax<arith::MinNumFOp>, RemoveInactiveSelectClamp,
           ScalarizeSplatOperands, FoldSqrtOfConstant>(ctx, counter);
  GemmOp::getCanonicalizationPatterns(patterns, ctx);
}

/// Reports what the greedy driver and the xpu.gemm canonicalizer remove
/// without a pattern of this pass: epilogue ops whose results are unused
/// and epilogue operands nothing reads (before any rewrite; operands that
/// die through a rewrite are reported by that rewrite).
unsigned reportDead(GemmOp gemm) {
  Block &block = gemm.getEpilogueBlock();
  DenseSet<Operation *> dead;
  unsigned numDeadOps = 0;
  auto allUsersDead = [&](Value v) {
    return llvm::all_of(v.getUsers(),
                        [&](Operation *user) { return dead.contains(user); });
  };
  for (Operation &op : llvm::reverse(block.without_terminator())) {
    if (!wouldOpBeTriviallyDead(&op) ||
        !llvm::all_of(op.getResults(), allUsersDead))
      continue;
    dead.insert(&op);
    if (!op.hasTrait<OpTrait::ConstantLike>())
      ++numDeadOps;
  }
  unsigned count = 0;
  if (numDeadOps > 0) {
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Simplified"))
        << remark::reason("removed {0} epilogue op(s) whose results are unused",
                          numDeadOps);
    ++count;
  }
  for (unsigned i = 0, e = gemm.getEpilogueOperands().size(); i < e; ++i) {
    if (!allUsersDead(gemm.getEpilogueArgument(i)))
      continue;
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Simplified"))
        << remark::reason("epilogue operand #{0} ({1}) is unused: dropped", i,
                          stringifyBroadcastKind(gemm.getBroadcastKind(i)));
    ++count;
  }
  return count;
}

/// Reports the simplifications that were refused for floating-point
/// reasons (what the patterns above leave behind).
void reportKept(GemmOp gemm) {
  auto missed = [](Operation *op, const Twine &why) {
    remark::missed(op->getLoc(), remarkOpts(kPassArg, "Kept"))
        << remark::reason("{0}", why.str());
  };
  for (Operation &op : gemm.getEpilogueBlock()) {
    if (auto a = dyn_cast<arith::AddFOp>(op)) {
      if (matchPattern(a.getLhs(), m_PosZeroFloat()) ||
          matchPattern(a.getRhs(), m_PosZeroFloat()))
        missed(a, "kept addition of 0.0: the other operand may be -0.0, "
                  "which x + 0.0 turns into +0.0");
      continue;
    }
    if (auto s = dyn_cast<arith::SubFOp>(op)) {
      if (matchPattern(s.getRhs(), m_NegZeroFloat()))
        missed(s, "kept subtraction of -0.0: the other operand may be -0.0, "
                  "which x - (-0.0) turns into +0.0");
      continue;
    }
    if (std::optional<MinMaxMatch> m = matchMinMax(&op)) {
      FloatRange r = getFloatRange(m->x);
      if (minMaxVerdict(&op, *m, r) == ClampVerdict::NeedsNoNaN)
        missed(&op, llvm::formatv("kept {0}(x, {1}): x is in {2} but may be "
                                  "NaN, for which it returns {1}",
                                  op.getName().getStringRef(),
                                  formatFloat(m->c), formatRange(r)));
      continue;
    }
    if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      auto m = matchConstantSelectClamp(sel);
      if (!m)
        continue;
      FloatRange r = getFloatRange(m->first.x);
      if (selectVerdict(m->first, m->second, r) == ClampVerdict::NeedsNoNaN)
        missed(sel, llvm::formatv("kept {0}: x is in {1} but may be NaN, for "
                                  "which the ordered compare picks {2}",
                                  describeSelect(m->first, m->second),
                                  formatRange(r), formatFloat(m->second)));
    }
  }
}

struct SimplifyEpiloguePass final
    : xpu::impl::XPUSimplifyEpiloguePassBase<SimplifyEpiloguePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    unsigned count = 0;
    func.walk([&](GemmOp gemm) { count += reportDead(gemm); });
    RewritePatternSet patterns(&getContext());
    addPatterns(patterns, &count);
    // No folding and no constant hoisting: every removal goes through a
    // pattern (and so has a remark), and constants stay in the epilogue.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.enableConstantCSE(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(func, std::move(patterns), config)))
      return signalPassFailure();
    numSimplified += count;
    func.walk([](GemmOp gemm) { reportKept(gemm); });
  }
};
} // namespace

void mlir::xpu::populateXPUSimplifyEpiloguePatterns(
    RewritePatternSet &patterns) {
  addPatterns(patterns, /*counter=*/nullptr);
}
