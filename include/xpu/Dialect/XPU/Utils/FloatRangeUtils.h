//===- FloatRangeUtils.h - range analysis of epilogue float values -*- C++
//-*-===//
//
// What is known about a floating-point value of an xpu.gemm epilogue
// (bounds, -0.0, NaN), with exact IEEE-754 semantics, and when a clamp
// (maximumf / minimumf / maxnumf / minnumf against a constant, or
// torch-mlir's `select(cmpf(pred, x, c), x, c)`) returns its input unchanged.
// Used by xpu-simplify-epilogue to remove inactive clamps; meant for any
// pass that must reason about clamps (e.g. clamp-aware fusion).
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_FLOATRANGEUTILS_H
#define XPU_DIALECT_XPU_UTILS_FLOATRANGEUTILS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/APFloat.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir::xpu {

//===----------------------------------------------------------------------===//
// Range analysis
//===----------------------------------------------------------------------===//

/// What is known about a floating-point value: bounds on its non-NaN values
/// (-0.0 and +0.0 compare equal), whether it can be -0.0 and whether it can
/// be NaN. Bounds are in the value's own semantics and rounded outwards; a
/// missing bound means unbounded (-inf / +inf).
struct FloatRange {
  std::optional<APFloat> lo, hi;
  bool noNegZero = false;
  bool noNaN = false;
};

/// Computes the range of the float value `v` by walking its definition
/// backwards (through a bounded number of ops): constants, arith
/// add/sub/mul/div/neg, min/max/select clamps, extf/truncf, math.exp and
/// math.absf are understood. The accumulator argument of an xpu.gemm
/// epilogue is known never to be -0.0 (it starts at +0.0, and a
/// round-to-nearest sum is -0.0 only when both addends are). Anything else,
/// including non-float values, gives the unknown range.
FloatRange getFloatRange(Value v);

/// Formats a float for diagnostics, as printf's `%g` of its double value.
std::string formatFloat(const APFloat &f);

/// Formats a range for diagnostics: `[lo, hi]`, with `-inf` / `inf` for a
/// missing bound and a `, never -0` suffix when the value is not -0.0.
std::string formatRange(const FloatRange &r);

//===----------------------------------------------------------------------===//
// Clamps
//===----------------------------------------------------------------------===//

/// `select(cmpf(pred, l, r), t, f)` read as `pred(x, y) ? x : y`.
struct SelectClamp {
  arith::CmpFPredicate pred;
  Value x, y;
};

/// Matches `select(cmpf(pred, l, r), l, r)` and `select(cmpf(pred, l, r), r,
/// l)` (the latter with the predicate swapped); nullopt for any other select.
std::optional<SelectClamp> matchSelectClamp(arith::SelectOp sel);

/// Matches `pred(x, c) ? x : c` with a non-NaN constant `c` (a relu / clamp
/// as torch-mlir emits it); returns the clamp and `c`.
std::optional<std::pair<SelectClamp, APFloat>>
matchConstantSelectClamp(arith::SelectOp sel);

/// `maximumf/minimumf/maxnumf/minnumf(x, c)` with a non-NaN constant `c`
/// (either operand).
struct MinMaxMatch {
  Value x;
  APFloat c;
};

/// Matches a min/max op (maximumf, minimumf, maxnumf, minnumf) with a
/// non-NaN constant operand; nullopt for anything else.
std::optional<MinMaxMatch> matchMinMax(Operation *op);

/// Whether a clamp returns its input x unchanged, bit for bit.
enum class ClampVerdict {
  /// The clamp returns x for every x in the range (NaN included).
  Redundant,
  /// The clamp returns x for every non-NaN x in the range, but x may be NaN,
  /// for which it returns the constant.
  NeedsNoNaN,
  /// The clamp may change x.
  Kept,
};

/// The verdict for the min/max clamp `op` matched as `m` when x is in `r`.
/// maximumf/minimumf propagate NaN and order -0.0 < +0.0; maxnumf/minnumf
/// return c for a NaN x (unless `op` has the `nnan` flag) and either operand
/// on a +-0.0 tie.
ClampVerdict minMaxVerdict(Operation *op, const MinMaxMatch &m,
                           const FloatRange &r);

/// The verdict for the select clamp `pred(x, c) ? x : c` when x is in `r`.
/// Unordered predicates pick x for a NaN x, ordered ones pick c; strict
/// predicates pick c on a tie, non-strict ones x. Predicates that are not
/// orderings (oeq, one, ...) are always Kept.
ClampVerdict selectVerdict(const SelectClamp &clamp, const APFloat &c,
                           const FloatRange &r);

/// Formats a select clamp for diagnostics: `select(cmpf ogt, x, 0)`.
std::string describeSelect(const SelectClamp &clamp, const APFloat &c);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_FLOATRANGEUTILS_H
