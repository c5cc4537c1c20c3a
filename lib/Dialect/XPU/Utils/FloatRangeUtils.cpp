//===- FloatRangeUtils.cpp - range analysis of epilogue float values ------===//

#include "xpu/Dialect/XPU/Utils/FloatRangeUtils.h"

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::xpu;

//===----------------------------------------------------------------------===//
// Range analysis
//===----------------------------------------------------------------------===//

static constexpr unsigned kMaxDepth = 12;

static bool ge(const std::optional<APFloat> &a, double b) {
  if (!a)
    return false;
  APFloat v(b);
  bool lost;
  v.convert(a->getSemantics(), APFloat::rmNearestTiesToEven, &lost);
  APFloat::cmpResult c = a->compare(v);
  return c == APFloat::cmpGreaterThan || c == APFloat::cmpEqual;
}
static bool gt(const std::optional<APFloat> &a, double b) {
  return ge(a, b) && !(a->isZero() && b == 0.0) && !a->isExactlyValue(b);
}

/// x >= +0.0 in the order where -0.0 < +0.0: the value is +0.0 or positive.
static bool isNonNegative(const FloatRange &r) {
  return r.noNegZero && ge(r.lo, 0);
}

static std::optional<APFloat> pick(const std::optional<APFloat> &a,
                                   const std::optional<APFloat> &b,
                                   bool larger) {
  APFloat::cmpResult c = a->compare(*b);
  bool aWins =
      larger ? c == APFloat::cmpGreaterThan : c == APFloat::cmpLessThan;
  return aWins ? a : b;
}
/// max(a, b) where knowing either bound is enough (a lower bound of max).
static std::optional<APFloat> maxEither(const std::optional<APFloat> &a,
                                        const std::optional<APFloat> &b) {
  if (!a || !b)
    return a ? a : b;
  return pick(a, b, /*larger=*/true);
}
static std::optional<APFloat> minEither(const std::optional<APFloat> &a,
                                        const std::optional<APFloat> &b) {
  if (!a || !b)
    return a ? a : b;
  return pick(a, b, /*larger=*/false);
}
/// max(a, b) where both bounds are needed (an upper bound of a join).
static std::optional<APFloat> maxBoth(const std::optional<APFloat> &a,
                                      const std::optional<APFloat> &b) {
  if (!a || !b)
    return std::nullopt;
  return pick(a, b, /*larger=*/true);
}
static std::optional<APFloat> minBoth(const std::optional<APFloat> &a,
                                      const std::optional<APFloat> &b) {
  if (!a || !b)
    return std::nullopt;
  return pick(a, b, /*larger=*/false);
}

using APFloatOp = APFloat::opStatus (APFloat::*)(const APFloat &,
                                                 APFloat::roundingMode);
/// `a op b` rounded with `rm`; unknown when an input is or the result is NaN.
static std::optional<APFloat> boundOp(const std::optional<APFloat> &a,
                                      const std::optional<APFloat> &b,
                                      APFloatOp op, APFloat::roundingMode rm) {
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

static bool canBeInf(const std::optional<APFloat> &bound) {
  return !bound || bound->isInfinity();
}

static FloatRange negate(const FloatRange &r) {
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

static FloatRange add(const FloatRange &a, const FloatRange &b) {
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

static FloatRange getRange(Value v, unsigned depth);

/// Range of `pred(x, y) ? x : y`.
static FloatRange clampRange(arith::CmpFPredicate pred, Value x, Value y,
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
static arith::CmpFPredicate swapPredicate(arith::CmpFPredicate pred) {
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

std::optional<SelectClamp> mlir::xpu::matchSelectClamp(arith::SelectOp sel) {
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

static FloatRange getRange(Value v, unsigned depth) {
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

FloatRange mlir::xpu::getFloatRange(Value v) { return getRange(v, 0); }

std::string mlir::xpu::formatFloat(const APFloat &f) {
  bool lost;
  APFloat d = f;
  d.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return llvm::formatv("{0}", llvm::format("%g", d.convertToDouble())).str();
}

std::string mlir::xpu::formatRange(const FloatRange &r) {
  return "[" + (r.lo ? formatFloat(*r.lo) : std::string("-inf")) + ", " +
         (r.hi ? formatFloat(*r.hi) : std::string("inf")) + "]" +
         (r.noNegZero ? ", never -0" : "");
}

//===----------------------------------------------------------------------===//
// When a clamp returns its input
//===----------------------------------------------------------------------===//

namespace {
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
} // namespace

/// Whether the result is x when x and c are zeros: only the sign can differ.
static bool zeroTieReturnsX(const FloatRange &r, const APFloat &c, ZeroTie tie,
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
static bool lowerClampInactive(const FloatRange &r, const APFloat &c,
                               ZeroTie tie) {
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
static bool upperClampInactive(const FloatRange &r, const APFloat &c,
                               ZeroTie tie) {
  if (!r.hi)
    return false;
  APFloat::cmpResult cmp = r.hi->compare(c);
  if (cmp == APFloat::cmpLessThan)
    return true;
  if (cmp != APFloat::cmpEqual)
    return false;
  return !c.isZero() || zeroTieReturnsX(r, c, tie, /*lower=*/false);
}

static ClampVerdict verdict(bool inactive, bool nanSafe) {
  if (!inactive)
    return ClampVerdict::Kept;
  return nanSafe ? ClampVerdict::Redundant : ClampVerdict::NeedsNoNaN;
}

std::optional<MinMaxMatch> mlir::xpu::matchMinMax(Operation *op) {
  if (!isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
           arith::MinNumFOp>(op))
    return std::nullopt;
  APFloat c(0.0);
  for (unsigned i = 0; i < 2; ++i)
    if (matchPattern(op->getOperand(i), m_ConstantFloat(&c)) && !c.isNaN())
      return MinMaxMatch{op->getOperand(1 - i), c};
  return std::nullopt;
}

ClampVerdict mlir::xpu::minMaxVerdict(Operation *op, const MinMaxMatch &m,
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
mlir::xpu::matchConstantSelectClamp(arith::SelectOp sel) {
  std::optional<SelectClamp> clamp = matchSelectClamp(sel);
  APFloat c(0.0);
  if (!clamp || !matchPattern(clamp->y, m_ConstantFloat(&c)) || c.isNaN())
    return std::nullopt;
  return std::make_pair(*clamp, c);
}

ClampVerdict mlir::xpu::selectVerdict(const SelectClamp &clamp,
                                      const APFloat &c, const FloatRange &r) {
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

std::string mlir::xpu::describeSelect(const SelectClamp &clamp,
                                      const APFloat &c) {
  return llvm::formatv("select(cmpf {0}, x, {1})",
                       arith::stringifyCmpFPredicate(clamp.pred),
                       formatFloat(c))
      .str();
}
