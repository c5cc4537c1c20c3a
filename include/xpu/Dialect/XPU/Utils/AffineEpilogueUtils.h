//===- AffineEpilogueUtils.h - symbolic affine reading of epilogues -*- C++
//-*-===//
//
// Reads an xpu.gemm epilogue symbolically, starting at its accumulator
// argument: every value computed from the accumulator by add/sub/mul/div/neg
// with factors that do not depend on it is `coef * acc + offset`, where coef
// and offset are expressions over per_col and scalar epilogue operands and
// constants. The walk stops at the first op that is not linear in the
// accumulator. Used by xpu-fold-affine-into-weights, which folds the affine
// part into the weights (W' = W * coef per output channel, shift = offset).
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_AFFINEEPILOGUEUTILS_H
#define XPU_DIALECT_XPU_UTILS_AFFINEEPILOGUEUTILS_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::xpu {

/// A node of a factor expression: a DAG over epilogue values that do not
/// depend on the accumulator. `lhs` and `rhs` are indices into the
/// FactorTermArena that owns the node (-1 when unused).
struct FactorTerm {
  enum class Kind { Zero, One, Leaf, Add, Sub, Mul, Div, Neg };
  Kind kind;
  /// The value of a Leaf.
  Value leaf;
  int lhs = -1, rhs = -1;
};

/// Owns factor expressions; they are referred to by index. Index kZero is
/// the constant zero and kOne the constant one. The constructors fold zeros,
/// ones and negations (x + 0 = x, 0 * x = 0, x * 1 = x, (-a) * b = -(a * b),
/// -(-a) = a, ...), so that negations cancel, and each leaf value is one
/// node.
class FactorTermArena {
public:
  static constexpr int kZero = 0, kOne = 1;

  FactorTermArena() {
    terms.push_back({FactorTerm::Kind::Zero, {}});
    terms.push_back({FactorTerm::Kind::One, {}});
  }
  const FactorTerm &operator[](int i) const { return terms[i]; }
  /// The node of value `v` (one per value).
  int leaf(Value v) {
    auto [it, inserted] = leaves.try_emplace(v, terms.size());
    if (inserted)
      terms.push_back({FactorTerm::Kind::Leaf, v});
    return it->second;
  }
  int add(int a, int b) {
    if (a == kZero)
      return b;
    if (b == kZero)
      return a;
    if (terms[b].kind == FactorTerm::Kind::Neg)
      return sub(a, terms[b].lhs);
    if (terms[a].kind == FactorTerm::Kind::Neg)
      return sub(b, terms[a].lhs);
    return make(FactorTerm::Kind::Add, a, b);
  }
  int sub(int a, int b) {
    if (b == kZero)
      return a;
    if (a == kZero)
      return neg(b);
    if (terms[b].kind == FactorTerm::Kind::Neg)
      return add(a, terms[b].lhs);
    return make(FactorTerm::Kind::Sub, a, b);
  }
  // Negations move out of products and quotients ((-a) * b = -(a * b)
  // exactly), so that they cancel.
  int mul(int a, int b) {
    if (a == kZero || b == kZero)
      return kZero;
    if (a == kOne)
      return b;
    if (b == kOne)
      return a;
    if (terms[a].kind == FactorTerm::Kind::Neg)
      return neg(mul(terms[a].lhs, b));
    if (terms[b].kind == FactorTerm::Kind::Neg)
      return neg(mul(a, terms[b].lhs));
    return make(FactorTerm::Kind::Mul, a, b);
  }
  int div(int a, int b) {
    if (a == kZero)
      return kZero;
    if (b == kOne)
      return a;
    if (terms[a].kind == FactorTerm::Kind::Neg)
      return neg(div(terms[a].lhs, b));
    if (terms[b].kind == FactorTerm::Kind::Neg)
      return neg(div(a, terms[b].lhs));
    return make(FactorTerm::Kind::Div, a, b);
  }
  int neg(int a) {
    if (a == kZero)
      return kZero;
    if (terms[a].kind == FactorTerm::Kind::Neg)
      return terms[a].lhs;
    return make(FactorTerm::Kind::Neg, a, -1);
  }
  /// The leaf values of `root`, in first-visit order.
  SmallVector<Value> collectLeaves(int root) const {
    SmallVector<Value> out;
    llvm::DenseSet<int> seen;
    SmallVector<int> stack{root};
    while (!stack.empty()) {
      int t = stack.pop_back_val();
      if (t < 0 || !seen.insert(t).second)
        continue;
      if (terms[t].kind == FactorTerm::Kind::Leaf)
        out.push_back(terms[t].leaf);
      stack.push_back(terms[t].rhs);
      stack.push_back(terms[t].lhs);
    }
    return out;
  }

private:
  int make(FactorTerm::Kind kind, int a, int b) {
    terms.push_back({kind, {}, a, b});
    return terms.size() - 1;
  }
  SmallVector<FactorTerm> terms;
  llvm::DenseMap<Value, int> leaves;
};

/// `coef * acc + offset`, as FactorTermArena indices.
struct AffineForm {
  int coef = FactorTermArena::kOne;
  int offset = FactorTermArena::kZero;
};

/// The epilogue ops and operands one factor (the scale or the shift) is
/// computed from.
struct FactorSlice {
  /// Ops of the epilogue block, in block order.
  SmallVector<Operation *> ops;
  /// Epilogue operand indices read, in increasing order.
  SmallVector<unsigned> operands;
  /// Constants defined outside the epilogue and read by `ops` or the term.
  SmallVector<Value> outsideConstants;
};

/// What the analysis found out about one GEMM: its epilogue computes
/// `escaping = acc * S + T` (S = `affine.coef`, T = `affine.offset`) with
/// `affineOps`, and the rest of the epilogue reads only `escaping`.
struct AffineFoldPlan {
  FactorTermArena terms;
  /// The affine value the folded part ends at: `acc * S + T` becomes the
  /// new accumulator plus a shift, and what reads it stays.
  Value escaping;
  AffineForm affine;
  /// The affine epilogue ops that compute `escaping` (they go).
  llvm::SetVector<Operation *> affineOps;
  FactorSlice scaleSlice, shiftSlice;
  /// First op that is not linear in the accumulator (stays), or null.
  Operation *firstNonLinear = nullptr;
};

/// Reads the epilogue of `gemm` and decides which affine part of it folds
/// into the weights: the latest affine value that only the non-folded rest
/// of the epilogue reads, whose scale and shift read only scalar and
/// per_col operands, constants and pure epilogue ops, and depend on neither
/// the GEMM input (lhs) nor a loop-carried value (inference-mode factors).
/// Fails, with a human-readable reason in `reason`, for identity
/// epilogues, epilogues that do not use the accumulator or have nothing
/// worth folding (at most one add of an operand or a constant), batched
/// GEMMs, factors that cannot be computed from weights, and an rhs that
/// depends on the lhs.
LogicalResult analyzeAffineEpilogue(GemmOp gemm, AffineFoldPlan &plan,
                                    std::string &reason);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_AFFINEEPILOGUEUTILS_H
