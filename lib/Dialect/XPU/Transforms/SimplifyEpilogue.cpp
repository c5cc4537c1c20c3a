//===- SimplifyEpilogue.cpp - no-op and redundant epilogue work -----------===//
//
// Catalog: skip_fusion_when_noop_or_redundant,
// fusion_skip_when_dead_or_constant. Removes work from xpu.gemm epilogues
// that cannot change the stored value, with exact IEEE-754 semantics (no
// fast-math assumption unless the op carries the flag):
//
// * x * 1.0, 1.0 * x, x / 1.0, x - (+0.0), x + (-0.0), -(-x): always exact.
// * x + (+0.0) and x - (-0.0) turn x = -0.0 into +0.0, so they are removed
//   only when x is proven never to be -0.0 (or the op has `nsz`). The
//   accumulator argument is never -0.0: it starts at +0.0 (the zero fill of
//   xpu-lower-to-linalg, the zeroed accumulator of the GPU lowerings) and a
//   round-to-nearest sum is -0.0 only when both addends are -0.0.
// * A clamp (maximumf / minimumf / maxnumf / minnumf against a constant, or
//   torch-mlir's `select(cmpf(pred, x, c), x, c)`) is removed when the range
//   analysis below proves it returns x for every x: signed zeros are
//   compared by their bits (maximumf(-0.0, +0.0) is +0.0), NaN inputs must
//   come out as x (maximumf and unordered predicates propagate NaN;
//   maxnumf and ordered predicates return c, so they need x proven not NaN
//   or the `nnan` flag).
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Transforms/Transforms.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/Format.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSIMPLIFYEPILOGUEPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-simplify-epilogue";

//===----------------------------------------------------------------------===//
// Range analysis of epilogue values
//===----------------------------------------------------------------------===//

namespace {
/// What is known about a floating-point value: bounds on its non-NaN values
/// (-0.0 and +0.0 compare equal), whether it can be -0.0 and whether it can
/// be NaN. Bounds are in the value's own semantics and rounded outwards.
struct FloatRange {
  std::optional<APFloat> lo, hi;
  bool noNegZero = false;
  bool noNaN = false;
};

constexpr unsigned kMaxDepth = 12;

bool ge(const std::optional<APFloat> &a, double b) {
  if (!a)
    return false;
  APFloat v(b);
  bool lost;
  v.convert(a->getSemantics(), APFloat::rmNearestTiesToEven, &lost);
  APFloat::cmpResult c = a->compare(v);
  return c == APFloat::cmpGreaterThan || c == APFloat::cmpEqual;
}
bool gt(const std::optional<APFloat> &a, double b) {
  return ge(a, b) && !(a->isZero() && b == 0.0) && !a->isExactlyValue(b);
}

/// x >= +0.0 in the order where -0.0 < +0.0: the value is +0.0 or positive.
bool isNonNegative(const FloatRange &r) { return r.noNegZero && ge(r.lo, 0); }

std::optional<APFloat> pick(const std::optional<APFloat> &a,
                            const std::optional<APFloat> &b, bool larger) {
  APFloat::cmpResult c = a->compare(*b);
  bool aWins =
      larger ? c == APFloat::cmpGreaterThan : c == APFloat::cmpLessThan;
  return aWins ? a : b;
}
/// max(a, b) where knowing either bound is enough (a lower bound of max).
std::optional<APFloat> maxEither(const std::optional<APFloat> &a,
                                 const std::optional<APFloat> &b) {
  if (!a || !b)
    return a ? a : b;
  return pick(a, b, /*larger=*/true);
}
std::optional<APFloat> minEither(const std::optional<APFloat> &a,
                                 const std::optional<APFloat> &b) {
  if (!a || !b)
    return a ? a : b;
  return pick(a, b, /*larger=*/false);
}
/// max(a, b) where both bounds are needed (an upper bound of a join).
std::optional<APFloat> maxBoth(const std::optional<APFloat> &a,
                               const std::optional<APFloat> &b) {
  if (!a || !b)
    return std::nullopt;
  return pick(a, b, /*larger=*/true);
}
std::optional<APFloat> minBoth(const std::optional<APFloat> &a,
                               const std::optional<APFloat> &b) {
  if (!a || !b)
    return std::nullopt;
  return pick(a, b, /*larger=*/false);
}

using APFloatOp = APFloat::opStatus (APFloat::*)(const APFloat &,
                                                 APFloat::roundingMode);
/// `a op b` rounded with `rm`; unknown when an input is or the result is NaN.
std::optional<APFloat> boundOp(const std::optional<APFloat> &a,
                               const std::optional<APFloat> &b, APFloatOp op,
                               APFloat::roundingMode rm) {
  if (!a || !b)
    return std::nullopt;
  APFloat r = *a;
  (r.*op)(*b, rm);
  if (r.isNaN())
    return std::nullopt;
  // Bounds are numeric: a zero bound is +0.0 (noNegZero tracks the sign).
  if (r.isZero())
    return APFloat::getZero(r.getSemantics());
  return r;
}

bool canBeInf(const std::optional<APFloat> &bound) {
  return !bound || bound->isInfinity();
}

FloatRange negate(const FloatRange &r) {
  FloatRange n;
  if (r.hi)
    n.lo = neg(*r.hi);
  if (r.lo)
    n.hi = neg(*r.lo);
  // -x is -0.0 exactly when x is +0.0.
  n.noNegZero = gt(r.lo, 0) || (r.hi && r.hi->isNegative() && !r.hi->isZero());
  n.noNaN = r.noNaN;
  return n;
}

FloatRange add(const FloatRange &a, const FloatRange &b) {
  FloatRange r;
  r.lo = boundOp(a.lo, b.lo, &APFloat::add, APFloat::rmTowardNegative);
  r.hi = boundOp(a.hi, b.hi, &APFloat::add, APFloat::rmTowardPositive);
  // A round-to-nearest sum is -0.0 only when both addends are -0.0.
  r.noNegZero = a.noNegZero || b.noNegZero;
  // inf + -inf is NaN.
  bool infMinusInf =
      (canBeInf(a.hi) && canBeInf(b.lo)) || (canBeInf(a.lo) && canBeInf(b.hi));
  r.noNaN = a.noNaN && b.noNaN && !infMinusInf;
  return r;
}

FloatRange getRange(Value v, unsigned depth);

/// Range of `pred(x, y) ? x : y`.
FloatRange clampRange(arith::CmpFPredicate pred, Value x, Value y,
                      unsigned depth) {
  using P = arith::CmpFPredicate;
  bool maxLike = llvm::is_contained({P::OGT, P::OGE, P::UGT, P::UGE}, pred);
  bool minLike = llvm::is_contained({P::OLT, P::OLE, P::ULT, P::ULE}, pred);
  FloatRange rx = getRange(x, depth + 1), ry = getRange(y, depth + 1);
  FloatRange r;
  // The result is x or y.
  r.lo = minBoth(rx.lo, ry.lo);
  r.hi = maxBoth(rx.hi, ry.hi);
  r.noNegZero = rx.noNegZero && ry.noNegZero;
  if (!maxLike && !minLike) {
    r.noNaN = rx.noNaN && ry.noNaN;
    return r;
  }
  bool unordered = llvm::is_contained({P::UGT, P::UGE, P::ULT, P::ULE}, pred);
  bool strict = llvm::is_contained({P::OGT, P::UGT, P::OLT, P::ULT}, pred);
  // Unordered predicates pick x when either is NaN, ordered ones pick y.
  r.noNaN = unordered ? rx.noNaN : ry.noNaN;
  if (maxLike) {
    r.lo = maxEither(rx.lo, ry.lo);
    if (unordered && !ry.noNaN)
      r.lo = minBoth(r.lo, rx.lo);
    if (!unordered && !rx.noNaN)
      r.lo = minBoth(r.lo, ry.lo);
    // x > y >= +0.0 means x is not a zero.
    if (strict && isNonNegative(ry) && ry.noNaN)
      r.noNegZero = true;
  } else {
    r.hi = minEither(rx.hi, ry.hi);
    if (unordered && !ry.noNaN)
      r.hi = maxBoth(r.hi, rx.hi);
    if (!unordered && !rx.noNaN)
      r.hi = maxBoth(r.hi, ry.hi);
  }
  return r;
}

/// Swaps the operands of a comparison: pred(a, b) == swapped(pred)(b, a).
arith::CmpFPredicate swapPredicate(arith::CmpFPredicate pred) {
  using P = arith::CmpFPredicate;
  switch (pred) {
  case P::OGT:
    return P::OLT;
  case P::OGE:
    return P::OLE;
  case P::OLT:
    return P::OGT;
  case P::OLE:
    return P::OGE;
  case P::UGT:
    return P::ULT;
  case P::UGE:
    return P::ULE;
  case P::ULT:
    return P::UGT;
  case P::ULE:
    return P::UGE;
  default:
    return pred;
  }
}

/// Reads `select(cmpf(pred, l, r), t, f)` as `pred'(x, y) ? x : y`.
struct SelectClamp {
  arith::CmpFPredicate pred;
  Value x, y;
};
std::optional<SelectClamp> matchSelectClamp(arith::SelectOp sel) {
  auto cmp = sel.getCondition().getDefiningOp<arith::CmpFOp>();
  if (!cmp)
    return std::nullopt;
  Value l = cmp.getLhs(), r = cmp.getRhs();
  if (sel.getTrueValue() == l && sel.getFalseValue() == r)
    return SelectClamp{cmp.getPredicate(), l, r};
  if (sel.getTrueValue() == r && sel.getFalseValue() == l)
    return SelectClamp{swapPredicate(cmp.getPredicate()), r, l};
  return std::nullopt;
}

FloatRange getRange(Value v, unsigned depth) {
  FloatRange r;
  auto type = dyn_cast<FloatType>(v.getType());
  if (!type || depth > kMaxDepth)
    return r;
  APFloat c(0.0);
  if (matchPattern(v, m_ConstantFloat(&c))) {
    if (c.isNaN())
      return r;
    r.lo = c;
    r.hi = c;
    r.noNegZero = !(c.isZero() && c.isNegative());
    r.noNaN = true;
    return r;
  }
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto gemm = dyn_cast_or_null<GemmOp>(arg.getOwner()->getParentOp());
    // The accumulator starts at +0.0 and round-to-nearest sums never give
    // -0.0 from it.
    if (gemm && arg == gemm.getAccArgument())
      r.noNegZero = true;
    return r;
  }
  Operation *op = v.getDefiningOp();
  auto sub = [&](Value x) { return getRange(x, depth + 1); };
  if (auto m = dyn_cast<arith::MaximumFOp>(op)) {
    FloatRange a = sub(m.getLhs()), b = sub(m.getRhs());
    r.lo = maxEither(a.lo, b.lo);
    r.hi = maxBoth(a.hi, b.hi);
    r.noNegZero =
        (a.noNegZero && b.noNegZero) || isNonNegative(a) || isNonNegative(b);
    r.noNaN = a.noNaN && b.noNaN;
    return r;
  }
  if (auto m = dyn_cast<arith::MinimumFOp>(op)) {
    FloatRange a = sub(m.getLhs()), b = sub(m.getRhs());
    r.lo = minBoth(a.lo, b.lo);
    r.hi = minEither(a.hi, b.hi);
    r.noNegZero = a.noNegZero && b.noNegZero;
    r.noNaN = a.noNaN && b.noNaN;
    return r;
  }
  if (isa<arith::MaxNumFOp, arith::MinNumFOp>(op)) {
    // maxnumf(NaN, y) is y: with a NaN operand the bound of the other one
    // is all that is left.
    bool isMax = isa<arith::MaxNumFOp>(op);
    FloatRange a = sub(op->getOperand(0)), b = sub(op->getOperand(1));
    if (isMax) {
      r.lo = maxEither(a.lo, b.lo);
      if (!a.noNaN || !b.noNaN)
        r.lo = minBoth(a.lo, b.lo);
      r.hi = maxBoth(a.hi, b.hi);
    } else {
      r.hi = minEither(a.hi, b.hi);
      if (!a.noNaN || !b.noNaN)
        r.hi = maxBoth(a.hi, b.hi);
      r.lo = minBoth(a.lo, b.lo);
    }
    r.noNegZero = a.noNegZero && b.noNegZero;
    r.noNaN = a.noNaN || b.noNaN;
    return r;
  }
  if (auto sel = dyn_cast<arith::SelectOp>(op)) {
    if (std::optional<SelectClamp> clamp = matchSelectClamp(sel))
      return clampRange(clamp->pred, clamp->x, clamp->y, depth);
    FloatRange a = sub(sel.getTrueValue()), b = sub(sel.getFalseValue());
    r.lo = minBoth(a.lo, b.lo);
    r.hi = maxBoth(a.hi, b.hi);
    r.noNegZero = a.noNegZero && b.noNegZero;
    r.noNaN = a.noNaN && b.noNaN;
    return r;
  }
  if (auto n = dyn_cast<arith::NegFOp>(op))
    return negate(sub(n.getOperand()));
  if (auto a = dyn_cast<arith::AddFOp>(op))
    return add(sub(a.getLhs()), sub(a.getRhs()));
  if (auto s = dyn_cast<arith::SubFOp>(op)) {
    // a - b == a + (-b), bit for bit.
    return add(sub(s.getLhs()), negate(sub(s.getRhs())));
  }
  if (auto m = dyn_cast<arith::MulFOp>(op)) {
    FloatRange a = sub(m.getLhs()), b = sub(m.getRhs());
    // Only products of two values >= +0.0 are bounded here.
    if (!isNonNegative(a) || !isNonNegative(b))
      return r;
    r.lo = boundOp(a.lo, b.lo, &APFloat::multiply, APFloat::rmTowardNegative);
    r.hi = boundOp(a.hi, b.hi, &APFloat::multiply, APFloat::rmTowardPositive);
    r.noNegZero = true;
    r.noNaN = a.noNaN && b.noNaN && !canBeInf(a.hi) && !canBeInf(b.hi);
    return r;
  }
  if (auto d = dyn_cast<arith::DivFOp>(op)) {
    FloatRange a = sub(d.getLhs()), b = sub(d.getRhs());
    // Only a >= +0.0 divided by b > 0 is bounded here (e.g. a sigmoid).
    if (!isNonNegative(a) || !gt(b.lo, 0))
      return r;
    r.lo = boundOp(a.lo, b.hi, &APFloat::divide, APFloat::rmTowardNegative);
    if (!r.lo)
      r.lo = APFloat::getZero(type.getFloatSemantics());
    r.hi = boundOp(a.hi, b.lo, &APFloat::divide, APFloat::rmTowardPositive);
    r.noNegZero = true;
    r.noNaN = a.noNaN && b.noNaN && (!canBeInf(a.hi) || !canBeInf(b.hi));
    return r;
  }
  if (auto e = dyn_cast<math::ExpOp>(op)) {
    r.lo = APFloat::getZero(type.getFloatSemantics());
    r.noNegZero = true;
    r.noNaN = sub(e.getOperand()).noNaN;
    return r;
  }
  if (auto a = dyn_cast<math::AbsFOp>(op)) {
    FloatRange x = sub(a.getOperand());
    r.lo = APFloat::getZero(type.getFloatSemantics());
    if (x.lo && x.hi)
      r.hi = maxBoth(abs(*x.lo), abs(*x.hi));
    r.noNegZero = true;
    r.noNaN = x.noNaN;
    return r;
  }
  if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
    FloatRange x = sub(op->getOperand(0));
    const llvm::fltSemantics &sem = type.getFloatSemantics();
    bool lost;
    if (x.lo) {
      r.lo = *x.lo;
      r.lo->convert(sem, APFloat::rmTowardNegative, &lost);
    }
    if (x.hi) {
      r.hi = *x.hi;
      r.hi->convert(sem, APFloat::rmTowardPositive, &lost);
    }
    // Narrowing can round a tiny negative value to -0.0.
    r.noNegZero = isa<arith::ExtFOp>(op) ? x.noNegZero : isNonNegative(x);
    r.noNaN = x.noNaN;
    return r;
  }
  return r;
}

std::string formatFloat(const APFloat &f) {
  bool lost;
  APFloat d = f;
  d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return llvm::formatv("{0}", llvm::format("%g", d.convertToDouble())).str();
}

std::string formatRange(const FloatRange &r) {
  return "[" + (r.lo ? formatFloat(*r.lo) : std::string("-inf")) + ", " +
         (r.hi ? formatFloat(*r.hi) : std::string("inf")) + "]" +
         (r.noNegZero ? ", never -0" : "");
}

//===----------------------------------------------------------------------===//
// When a clamp returns its input
//===----------------------------------------------------------------------===//

enum class ClampVerdict { Redundant, NeedsNoNaN, Kept };

/// How a clamp orders -0.0 and +0.0 when x and c are zeros of either sign.
enum class ZeroTie {
  /// IEEE comparison (-0.0 == +0.0): the tie picks c (select with a strict
  /// predicate; maxnumf/minnumf may pick either operand).
  PicksC,
  /// The tie picks x (select with a non-strict predicate).
  PicksX,
  /// maximumf / minimumf: -0.0 < +0.0.
  Signed,
};

/// Whether the result is x when x and c are zeros: only the sign can differ.
bool zeroTieReturnsX(const FloatRange &r, const APFloat &c, ZeroTie tie,
                     bool lower) {
  switch (tie) {
  case ZeroTie::PicksX:
    return true;
  case ZeroTie::PicksC:
    // c = +0.0 is x's bits when x is never -0.0; nothing proves x != +0.0.
    return !c.isNegative() && r.noNegZero;
  case ZeroTie::Signed:
    // maximumf(x, -0.0) and minimumf(x, +0.0) return a zero x unchanged;
    // maximumf(-0.0, +0.0) is +0.0, so x must not be -0.0.
    if (lower)
      return c.isNegative() || r.noNegZero;
    return !c.isNegative();
  }
  llvm_unreachable("unknown tie");
}

/// Does a lower clamp `max(x, c)` return x for every non-NaN x in `r`?
bool lowerClampInactive(const FloatRange &r, const APFloat &c, ZeroTie tie) {
  if (!r.lo)
    return false;
  APFloat::cmpResult cmp = r.lo->compare(c);
  if (cmp == APFloat::cmpGreaterThan)
    return true;
  if (cmp != APFloat::cmpEqual)
    return false;
  // A tie on a nonzero c means x == c, bit for bit.
  return !c.isZero() || zeroTieReturnsX(r, c, tie, /*lower=*/true);
}

/// Same for an upper clamp `min(x, c)`.
bool upperClampInactive(const FloatRange &r, const APFloat &c, ZeroTie tie) {
  if (!r.hi)
    return false;
  APFloat::cmpResult cmp = r.hi->compare(c);
  if (cmp == APFloat::cmpLessThan)
    return true;
  if (cmp != APFloat::cmpEqual)
    return false;
  return !c.isZero() || zeroTieReturnsX(r, c, tie, /*lower=*/false);
}

ClampVerdict verdict(bool inactive, bool nanSafe) {
  if (!inactive)
    return ClampVerdict::Kept;
  return nanSafe ? ClampVerdict::Redundant : ClampVerdict::NeedsNoNaN;
}

/// `maximumf/minimumf/maxnumf/minnumf(x, c)` with a constant `c`.
struct MinMaxMatch {
  Value x;
  APFloat c;
};
std::optional<MinMaxMatch> matchMinMax(Operation *op) {
  if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp>(op))
    return std::nullopt;
  APFloat c(0.0);
  for (unsigned i = 0; i < 2; ++i)
    if (matchPattern(op->getOperand(i), m_ConstantFloat(&c)) && !c.isNaN())
      return MinMaxMatch{op->getOperand(1 - i), c};
  return std::nullopt;
}

ClampVerdict minMaxVerdict(Operation *op, const MinMaxMatch &m,
                           const FloatRange &r) {
  auto fmf = cast<arith::ArithFastMathInterface>(op).getFastMathFlagsAttr();
  bool nnan =
      fmf && bitEnumContainsAll(fmf.getValue(), arith::FastMathFlags::nnan);
  // maximumf/minimumf propagate NaN; maxnumf/minnumf return c for a NaN x
  // and either operand on a +-0.0 tie.
  if (isa<arith::MaximumFOp>(op))
    return verdict(lowerClampInactive(r, m.c, ZeroTie::Signed), true);
  if (isa<arith::MinimumFOp>(op))
    return verdict(upperClampInactive(r, m.c, ZeroTie::Signed), true);
  if (isa<arith::MaxNumFOp>(op))
    return verdict(lowerClampInactive(r, m.c, ZeroTie::PicksC),
                   r.noNaN || nnan);
  return verdict(upperClampInactive(r, m.c, ZeroTie::PicksC), r.noNaN || nnan);
}

/// `pred(x, c) ? x : c` (a relu / clamp as torch-mlir emits it).
std::optional<std::pair<SelectClamp, APFloat>>
matchConstantSelectClamp(arith::SelectOp sel) {
  std::optional<SelectClamp> clamp = matchSelectClamp(sel);
  APFloat c(0.0);
  if (!clamp || !matchPattern(clamp->y, m_ConstantFloat(&c)) || c.isNaN())
    return std::nullopt;
  return std::make_pair(*clamp, c);
}

ClampVerdict selectVerdict(const SelectClamp &clamp, const APFloat &c,
                           const FloatRange &r) {
  using P = arith::CmpFPredicate;
  P p = clamp.pred;
  bool unordered = llvm::is_contained({P::UGT, P::UGE, P::ULT, P::ULE}, p);
  // x > c ? x : c picks c on a tie; x >= c ? x : c picks x.
  ZeroTie tie = llvm::is_contained({P::OGT, P::UGT, P::OLT, P::ULT}, p)
                    ? ZeroTie::PicksC
                    : ZeroTie::PicksX;
  bool inactive;
  if (llvm::is_contained({P::OGT, P::OGE, P::UGT, P::UGE}, p))
    inactive = lowerClampInactive(r, c, tie);
  else if (llvm::is_contained({P::OLT, P::OLE, P::ULT, P::ULE}, p))
    inactive = upperClampInactive(r, c, tie);
  else
    return ClampVerdict::Kept;
  // Unordered predicates pick x for a NaN x; ordered ones pick c.
  return verdict(inactive, unordered || r.noNaN);
}

std::string describeSelect(const SelectClamp &clamp, const APFloat &c) {
  return llvm::formatv("select(cmpf {0}, x, {1})",
                       arith::stringifyCmpFPredicate(clamp.pred),
                       formatFloat(c))
      .str();
}

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

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
  FloatRange r = getRange(x, 0);
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
    FloatRange r = getRange(m->x, 0);
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
    FloatRange r = getRange(m->first.x, 0);
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

void addPatterns(RewritePatternSet &patterns, unsigned *counter) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<RemoveMulByOne, RemoveDivByOne, RemoveAddZero, RemoveSubZero,
               RemoveDoubleNegation, RemoveInactiveMinMax<arith::MaximumFOp>,
               RemoveInactiveMinMax<arith::MinimumFOp>,
               RemoveInactiveMinMax<arith::MaxNumFOp>,
               RemoveInactiveMinMax<arith::MinNumFOp>,
               RemoveInactiveSelectClamp, ScalarizeSplatOperands>(ctx, counter);
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
      FloatRange r = getRange(m->x, 0);
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
      FloatRange r = getRange(m->first.x, 0);
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
