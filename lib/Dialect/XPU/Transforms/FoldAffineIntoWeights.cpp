//===- FoldAffineIntoWeights.cpp - per-channel affine epilogue -> weights -===//
//
// Catalog: algebraic_weight_folding, level_3_algebraic_fusion.
//
// The epilogue of an xpu.gemm is read symbolically, starting at its
// accumulator argument: every value computed from the accumulator by
// add/sub/mul/div/neg with factors that do not depend on it is
// `coef * acc + offset`, where coef and offset are expressions over per_col
// and scalar epilogue operands and constants. The walk stops at the first op
// that is not linear in the accumulator; what follows (relu, gelu, ...) stays
// in the epilogue. For a GEMM with weights [n, k] (rhs_layout(nk)) or
// [k, n] (rhs_layout(kn)):
//
//   out = f(acc * S[n] + T[n])   ==>   W' = W scaled by S per output channel
//                                      out = f(x W'^T + T)
//
// S and T are computed by linalg.generic ops on the per-channel operands and
// W' by a linalg.generic on the weight, so all three depend only on weights
// and xpu-outline-weight-pack moves them to pack time.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Transforms/Transforms.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUFOLDAFFINEINTOWEIGHTSPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-fold-affine-into-weights";

namespace {
//===----------------------------------------------------------------------===//
// Symbolic factors
//===----------------------------------------------------------------------===//

/// A factor expression: a DAG over epilogue values that do not depend on the
/// accumulator. Terms live in an arena and are referred to by index; 0 is the
/// constant zero and 1 the constant one, and the constructors fold them.
struct Term {
  enum class Kind { Zero, One, Leaf, Add, Sub, Mul, Div, Neg };
  Kind kind;
  Value leaf;
  int lhs = -1, rhs = -1;
};

class TermArena {
public:
  static constexpr int kZero = 0, kOne = 1;

  TermArena() {
    terms.push_back({Term::Kind::Zero, {}});
    terms.push_back({Term::Kind::One, {}});
  }
  const Term &operator[](int i) const { return terms[i]; }
  int leaf(Value v) {
    auto [it, inserted] = leaves.try_emplace(v, terms.size());
    if (inserted)
      terms.push_back({Term::Kind::Leaf, v});
    return it->second;
  }
  int add(int a, int b) {
    if (a == kZero)
      return b;
    if (b == kZero)
      return a;
    if (terms[b].kind == Term::Kind::Neg)
      return sub(a, terms[b].lhs);
    if (terms[a].kind == Term::Kind::Neg)
      return sub(b, terms[a].lhs);
    return make(Term::Kind::Add, a, b);
  }
  int sub(int a, int b) {
    if (b == kZero)
      return a;
    if (a == kZero)
      return neg(b);
    if (terms[b].kind == Term::Kind::Neg)
      return add(a, terms[b].lhs);
    return make(Term::Kind::Sub, a, b);
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
    if (terms[a].kind == Term::Kind::Neg)
      return neg(mul(terms[a].lhs, b));
    if (terms[b].kind == Term::Kind::Neg)
      return neg(mul(a, terms[b].lhs));
    return make(Term::Kind::Mul, a, b);
  }
  int div(int a, int b) {
    if (a == kZero)
      return kZero;
    if (b == kOne)
      return a;
    if (terms[a].kind == Term::Kind::Neg)
      return neg(div(terms[a].lhs, b));
    if (terms[b].kind == Term::Kind::Neg)
      return neg(div(a, terms[b].lhs));
    return make(Term::Kind::Div, a, b);
  }
  int neg(int a) {
    if (a == kZero)
      return kZero;
    if (terms[a].kind == Term::Kind::Neg)
      return terms[a].lhs;
    return make(Term::Kind::Neg, a, -1);
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
      if (terms[t].kind == Term::Kind::Leaf)
        out.push_back(terms[t].leaf);
      stack.push_back(terms[t].rhs);
      stack.push_back(terms[t].lhs);
    }
    return out;
  }

private:
  int make(Term::Kind kind, int a, int b) {
    terms.push_back({kind, {}, a, b});
    return terms.size() - 1;
  }
  SmallVector<Term> terms;
  llvm::DenseMap<Value, int> leaves;
};

/// `coef * acc + offset`, as term indices.
struct Affine {
  int coef = TermArena::kOne;
  int offset = TermArena::kZero;
};

/// The epilogue ops and operands one factor (S or T) is computed from.
struct FactorSlice {
  /// Ops of the epilogue block, in block order.
  SmallVector<Operation *> ops;
  /// Epilogue operand indices read, in increasing order.
  SmallVector<unsigned> operands;
  /// Constants defined outside the epilogue and read by `ops` or the term.
  SmallVector<Value> outsideConstants;
};

/// What the analysis found out about one GEMM.
struct FoldPlan {
  TermArena terms;
  /// The affine value the folded part ends at: `acc * S + T` becomes the
  /// new accumulator plus a shift, and what reads it stays.
  Value escaping;
  Affine affine;
  /// The affine epilogue ops that compute `escaping` (they go).
  llvm::SetVector<Operation *> affineOps;
  FactorSlice scaleSlice, shiftSlice;
  /// First op that is not linear in the accumulator (stays), or null.
  Operation *firstNonLinear = nullptr;
};

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

/// What a value depends on: the ops and the block arguments reached
/// backwards through operands and the values their regions read.
struct Slice {
  llvm::SetVector<Operation *> ops;
  llvm::SetVector<Value> args;
};

Slice computeSlice(Value root) {
  Slice s;
  SmallVector<Value> worklist{root};
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (!def) {
      s.args.insert(v);
      continue;
    }
    if (!s.ops.insert(def))
      continue;
    llvm::append_range(worklist, def->getOperands());
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(def->getRegions(), above);
    llvm::append_range(worklist, above);
  }
  return s;
}

bool isReduction(Operation *op) {
  if (isa<linalg::ReduceOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

/// Reads an xpu.gemm epilogue symbolically from its accumulator argument
/// and decides what folds into the weights.
class EpilogueReader {
public:
  explicit EpilogueReader(GemmOp gemm) : gemm(gemm) {}

  /// Reads the epilogue; returns failure with the reason in `reason`.
  LogicalResult read(FoldPlan &plan, std::string &reason);

private:
  bool dependsOnAcc(Value v) const {
    return affine.contains(v) || tainted.contains(v);
  }
  bool dependsOnAcc(Operation *op) const;
  /// Returns the affine form of `op`'s result, or nullopt if `op` is not
  /// linear in the accumulator.
  std::optional<Affine> tryAffine(Operation *op, TermArena &terms);
  /// True if `op` scales or shifts a value computed by a non-linear op by a
  /// factor that is not a constant (relu(acc) * s).
  bool isScaleOrShiftAfterNonLinear(Operation *op) const;
  LogicalResult collectFactorSlice(int term, StringRef role, FoldPlan &plan,
                                   FactorSlice &slice, std::string &reason);

  GemmOp gemm;
  llvm::DenseMap<Value, Affine> affine;
  llvm::DenseSet<Value> tainted;
};

bool EpilogueReader::dependsOnAcc(Operation *op) const {
  if (llvm::any_of(op->getOperands(), [&](Value v) { return dependsOnAcc(v); }))
    return true;
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  return llvm::any_of(above, [&](Value v) { return dependsOnAcc(v); });
}

std::optional<Affine> EpilogueReader::tryAffine(Operation *op,
                                                TermArena &terms) {
  if (op->getNumRegions() != 0 || op->getNumResults() != 1)
    return std::nullopt;
  // Each operand is affine or a factor (a value that does not depend on the
  // accumulator); a tainted operand makes the op non-linear.
  auto form = [&](Value v) -> std::optional<Affine> {
    if (auto it = affine.find(v); it != affine.end())
      return it->second;
    return std::nullopt;
  };
  auto factor = [&](Value v) { return terms.leaf(v); };
  if (llvm::any_of(op->getOperands(),
                   [&](Value v) { return tainted.contains(v); }))
    return std::nullopt;

  if (auto neg = dyn_cast<arith::NegFOp>(op)) {
    Affine a = *form(neg.getOperand());
    return Affine{terms.neg(a.coef), terms.neg(a.offset)};
  }
  if (op->getNumOperands() != 2 ||
      !isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(op))
    return std::nullopt;
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  std::optional<Affine> a = form(lhs), b = form(rhs);
  return TypeSwitch<Operation *, std::optional<Affine>>(op)
      .Case([&](arith::AddFOp) -> std::optional<Affine> {
        if (a && b)
          return Affine{terms.add(a->coef, b->coef),
                        terms.add(a->offset, b->offset)};
        if (a)
          return Affine{a->coef, terms.add(a->offset, factor(rhs))};
        return Affine{b->coef, terms.add(factor(lhs), b->offset)};
      })
      .Case([&](arith::SubFOp) -> std::optional<Affine> {
        if (a && b)
          return Affine{terms.sub(a->coef, b->coef),
                        terms.sub(a->offset, b->offset)};
        if (a)
          return Affine{a->coef, terms.sub(a->offset, factor(rhs))};
        return Affine{terms.neg(b->coef), terms.sub(factor(lhs), b->offset)};
      })
      .Case([&](arith::MulFOp) -> std::optional<Affine> {
        if (a && b)
          return std::nullopt; // acc * acc
        const Affine &x = a ? *a : *b;
        int f = factor(a ? rhs : lhs);
        return Affine{terms.mul(x.coef, f), terms.mul(x.offset, f)};
      })
      .Case([&](arith::DivFOp) -> std::optional<Affine> {
        if (!a || b)
          return std::nullopt; // f / acc or acc / acc
        int f = factor(rhs);
        return Affine{terms.div(a->coef, f), terms.div(a->offset, f)};
      })
      .Default([](Operation *) { return std::nullopt; });
}

bool EpilogueReader::isScaleOrShiftAfterNonLinear(Operation *op) const {
  if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(op))
    return false;
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  bool l = tainted.contains(lhs), r = tainted.contains(rhs);
  if (l == r || dependsOnAcc(l ? rhs : lhs) || (isa<arith::DivFOp>(op) && r))
    return false;
  // Constants (GELU's + 1, leaky ReLU's slope) belong to the non-linear
  // function; a factor read from an operand is what could have folded.
  return !matchPattern(l ? rhs : lhs, m_Constant());
}

LogicalResult EpilogueReader::collectFactorSlice(int term, StringRef role,
                                                 FoldPlan &plan,
                                                 FactorSlice &slice,
                                                 std::string &reason) {
  Block &block = gemm.getEpilogueBlock();
  llvm::SetVector<Operation *> ops;
  llvm::SetVector<Value> constants;
  llvm::SmallSetVector<unsigned, 4> operands;
  SmallVector<Value> worklist = plan.terms.collectLeaves(term);
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v);
        arg && arg.getOwner() == &block) {
      unsigned i = arg.getArgNumber() - 1;
      BroadcastKind kind = gemm.getBroadcastKind(i);
      if (kind != BroadcastKind::scalar && kind != BroadcastKind::per_col) {
        reason = llvm::formatv(
            "the {0} reads epilogue operand #{1}, which is {2} (it varies "
            "along m); only per_col and scalar factors fold into the weights",
            role, i, stringifyBroadcastKind(kind));
        return failure();
      }
      operands.insert(i);
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!def || !gemm.getEpilogue().isAncestor(def->getParentRegion())) {
      // A value captured from outside the epilogue: only constants, which
      // are cloned next to the factor computation.
      if (!def || !matchPattern(v, m_Constant())) {
        reason = llvm::formatv("the {0} reads a value defined outside the "
                               "epilogue that is not a constant",
                               role);
        return failure();
      }
      constants.insert(v);
      continue;
    }
    if (def->getBlock() != &block || def->getNumRegions() != 0 ||
        !isMemoryEffectFree(def)) {
      reason = llvm::formatv("the {0} is computed by {1}, which has regions "
                             "or side effects",
                             role, def->getName());
      return failure();
    }
    ops.insert(def);
    llvm::append_range(worklist, def->getOperands());
  }
  for (Operation &op : block)
    if (ops.contains(&op))
      slice.ops.push_back(&op);
  slice.operands = llvm::to_vector(operands);
  llvm::sort(slice.operands);
  slice.outsideConstants = llvm::to_vector(constants);
  return success();
}

LogicalResult EpilogueReader::read(FoldPlan &plan, std::string &reason) {
  if (gemm.hasIdentityEpilogue()) {
    reason = "identity epilogue: nothing to fold";
    return failure();
  }
  Block &block = gemm.getEpilogueBlock();
  affine[gemm.getAccArgument()] = Affine{};
  Operation *firstAffineAfter = nullptr;
  for (Operation &op : block.without_terminator()) {
    if (!dependsOnAcc(&op))
      continue; // A factor.
    if (!plan.firstNonLinear) {
      if (std::optional<Affine> a = tryAffine(&op, plan.terms)) {
        affine[op.getResult(0)] = *a;
        plan.affineOps.insert(&op);
        continue;
      }
      plan.firstNonLinear = &op;
    } else if (!firstAffineAfter && isScaleOrShiftAfterNonLinear(&op)) {
      firstAffineAfter = &op;
    }
    for (Value r : op.getResults())
      tainted.insert(r);
  }

  auto yield = cast<YieldOp>(block.getTerminator());
  if (!dependsOnAcc(yield.getValue())) {
    reason = "the epilogue does not use the accumulator";
    return failure();
  }

  // The folded part ends at one affine value V, the new accumulator: V and
  // the affine values it is computed from, none of which (but V) is read by
  // anything else. Affine ops that read V or another affine value outside
  // that set stay in the epilogue (GELU reads y, 0.5 * y and y / sqrt(2)).
  // Take the latest such V; the accumulator itself always qualifies.
  SmallVector<Value> candidates;
  for (Operation &op : llvm::reverse(block))
    if (plan.affineOps.contains(&op))
      candidates.push_back(op.getResult(0));
  candidates.push_back(gemm.getAccArgument());
  llvm::SetVector<Operation *> folded;
  Value chosen;
  for (Value v : candidates) {
    // The affine ops V is computed from.
    folded.clear();
    SmallVector<Value> worklist{v};
    while (!worklist.empty()) {
      Operation *def = worklist.pop_back_val().getDefiningOp();
      if (!def || !plan.affineOps.contains(def) || !folded.insert(def))
        continue;
      for (Value operand : def->getOperands())
        if (affine.contains(operand))
          worklist.push_back(operand);
    }
    auto readOutside = [&](Value u) {
      return llvm::any_of(u.getUsers(), [&](Operation *user) {
        return !folded.contains(block.findAncestorOpInBlock(*user));
      });
    };
    bool closed =
        !(v != gemm.getAccArgument() && readOutside(gemm.getAccArgument()));
    for (Operation *op : folded)
      if (op->getResult(0) != v && readOutside(op->getResult(0)))
        closed = false;
    if (closed) {
      chosen = v;
      break;
    }
  }
  plan.escaping = chosen;
  plan.affine = affine.lookup(chosen);
  plan.affineOps = std::move(folded);
  // Nothing to gain: the affine part is at most one add of an operand or a
  // constant.
  const Term &offset = plan.terms[plan.affine.offset];
  bool trivialOffset = plan.affine.offset == TermArena::kZero ||
                       (offset.kind == Term::Kind::Leaf &&
                        (isa<BlockArgument>(offset.leaf) ||
                         matchPattern(offset.leaf, m_Constant())));
  if (plan.affine.coef == TermArena::kOne && trivialOffset) {
    if (firstAffineAfter)
      reason = llvm::formatv(
          "{0} is not linear in the accumulator and comes before the affine "
          "{1}; only an affine prefix of the epilogue folds into the weights",
          plan.firstNonLinear->getName(), firstAffineAfter->getName());
    else
      reason = "the epilogue has no per-channel scale or shift beyond one "
               "add: nothing to fold";
    return failure();
  }

  if (gemm.isBatched()) {
    reason = llvm::formatv(
        "batched GEMM: the rhs {0} has one matrix per batch, not one weight "
        "matrix to scale per output channel",
        gemm.getRhs().getType());
    return failure();
  }
  if (failed(collectFactorSlice(plan.affine.coef, "scale", plan,
                                plan.scaleSlice, reason)) ||
      failed(collectFactorSlice(plan.affine.offset, "shift", plan,
                                plan.shiftSlice, reason)))
    return failure();

  // Factors and the rhs must not depend on the GEMM input: folding them must
  // be a computation on weights only (inference mode).
  Value lhs = gemm.getLhs();
  Slice lhsSlice = computeSlice(lhs);
  Block *funcEntry = nullptr;
  if (auto fn = gemm->getParentOfType<FunctionOpInterface>())
    funcEntry = &fn.getFunctionBody().front();
  auto dependsOnInput = [&](Value v, const Slice &s) {
    if (v == lhs || s.args.contains(lhs))
      return true;
    if (Operation *def = lhs.getDefiningOp(); def && s.ops.contains(def))
      return true;
    return llvm::any_of(s.args,
                        [&](Value a) { return lhsSlice.args.contains(a); });
  };
  for (auto [role, slice] :
       {std::pair<StringRef, FactorSlice *>{"scale", &plan.scaleSlice},
        {"shift", &plan.shiftSlice}}) {
    for (unsigned i : slice->operands) {
      Value operand = gemm.getEpilogueOperands()[i];
      Slice s = computeSlice(operand);
      // A value carried by an enclosing loop (or another region argument)
      // may be anything, e.g. statistics of an earlier iteration.
      if (llvm::any_of(s.args, [&](Value a) {
            return cast<BlockArgument>(a).getOwner() != funcEntry;
          })) {
        reason = llvm::formatv(
            "the {0} reads epilogue operand #{1}, which depends on an "
            "argument of an enclosing region (a loop-carried value); only "
            "factors computed from weights and constants fold",
            role, i);
        return failure();
      }
      if (!dependsOnInput(operand, s))
        continue;
      auto reduction = llvm::find_if(s.ops, isReduction);
      if (reduction != s.ops.end()) {
        reason = llvm::formatv(
            "the {0} reads epilogue operand #{1}, a statistic that {2} "
            "reduces from the GEMM input (batch statistics, BatchNorm in "
            "training mode); only inference-mode factors fold",
            role, i, (*reduction)->getName());
        return failure();
      }
      reason = llvm::formatv(
          "the {0} reads epilogue operand #{1}, which depends on the GEMM "
          "input (lhs); only factors computed from weights and constants "
          "fold",
          role, i);
      return failure();
    }
  }
  Value rhs = gemm.getRhs();
  if (dependsOnInput(rhs, computeSlice(rhs))) {
    reason = "the rhs depends on the GEMM input (lhs); it is not a weight";
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

/// Emits `term` with arith ops of type `type`; leaves are looked up in `map`.
Value emitTerm(OpBuilder &b, Location loc, const TermArena &terms, int term,
               Type type, IRMapping &map, llvm::DenseMap<int, Value> &memo) {
  if (Value v = memo.lookup(term))
    return v;
  const Term &t = terms[term];
  auto sub = [&](int i) { return emitTerm(b, loc, terms, i, type, map, memo); };
  Value v;
  switch (t.kind) {
  case Term::Kind::Zero:
  case Term::Kind::One:
    v = arith::ConstantOp::create(
        b, loc, type,
        b.getFloatAttr(type, t.kind == Term::Kind::One ? 1.0 : 0.0));
    break;
  case Term::Kind::Leaf:
    v = map.lookupOrDefault(t.leaf);
    break;
  case Term::Kind::Add:
    v = arith::AddFOp::create(b, loc, sub(t.lhs), sub(t.rhs));
    break;
  case Term::Kind::Sub:
    v = arith::SubFOp::create(b, loc, sub(t.lhs), sub(t.rhs));
    break;
  case Term::Kind::Mul:
    v = arith::MulFOp::create(b, loc, sub(t.lhs), sub(t.rhs));
    break;
  case Term::Kind::Div:
    v = arith::DivFOp::create(b, loc, sub(t.lhs), sub(t.rhs));
    break;
  case Term::Kind::Neg:
    v = arith::NegFOp::create(b, loc, sub(t.lhs));
    break;
  }
  memo[term] = v;
  return v;
}

/// Builds the per-channel vector `term[n]` (tensor<N x acc>) as a 1-D
/// linalg.generic over the epilogue operands it reads.
/// True if the factor reads only scalar operands and constants.
bool isScalarFactor(GemmOp gemm, const FactorSlice &slice) {
  return llvm::all_of(slice.operands, [&](unsigned i) {
    return gemm.getBroadcastKind(i) == BroadcastKind::scalar;
  });
}

/// Builds the per-channel vector `term[n]` (tensor<N x acc>, or a 0-d tensor
/// when it reads only scalars) with a linalg.generic over the epilogue
/// operands it reads.
Value buildChannelVector(OpBuilder &b, GemmOp gemm, const FoldPlan &plan,
                         int term, const FactorSlice &slice) {
  Location loc = gemm.getLoc();
  MLIRContext *ctx = b.getContext();
  Type accType = gemm.getAccType();
  unsigned rank = isScalarFactor(gemm, slice) ? 0 : 1;
  auto vecType = rank == 0 ? RankedTensorType::get({}, accType)
                           : RankedTensorType::get({gemm.getN()}, accType);
  // An operand read as it is needs no copy.
  if (const Term &t = plan.terms[term]; t.kind == Term::Kind::Leaf) {
    auto arg = dyn_cast<BlockArgument>(t.leaf);
    if (arg && arg.getOwner() == &gemm.getEpilogueBlock() &&
        arg.getArgNumber() > 0) {
      Value operand = gemm.getEpilogueOperands()[arg.getArgNumber() - 1];
      if (operand.getType() == vecType)
        return operand;
    }
  }
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  AffineMap identity = AffineMap::getMultiDimIdentityMap(rank, ctx);
  for (unsigned i : slice.operands) {
    inputs.push_back(gemm.getEpilogueOperands()[i]);
    maps.push_back(gemm.getBroadcastKind(i) == BroadcastKind::scalar
                       ? AffineMap::get(rank, 0, ctx)
                       : identity);
  }
  maps.push_back(identity);
  Value init = tensor::EmptyOp::create(b, loc, vecType.getShape(), accType);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{vecType}, inputs, ValueRange{init}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        IRMapping map;
        for (auto [pos, i] : llvm::enumerate(slice.operands))
          map.map(gemm.getEpilogueArgument(i), args[pos]);
        for (Value c : slice.outsideConstants)
          map.map(c, nb.clone(*c.getDefiningOp())->getResult(0));
        for (Operation *op : slice.ops)
          nb.clone(*op, map);
        llvm::DenseMap<int, Value> memo;
        Value r = emitTerm(nb, nloc, plan.terms, term, accType, map, memo);
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (cast<FloatType>(from).getWidth() < cast<FloatType>(to).getWidth())
    return arith::ExtFOp::create(b, loc, to, v);
  return arith::TruncFOp::create(b, loc, to, v);
}

/// W' = W scaled by `scale[n]` along its output-channel dimension (or by a
/// 0-d `scale`).
Value buildScaledWeight(OpBuilder &b, GemmOp gemm, Value scale) {
  Location loc = gemm.getLoc();
  MLIRContext *ctx = b.getContext();
  Value rhs = gemm.getRhs();
  RankedTensorType rhsType = gemm.getRhsType();
  unsigned channelDim = gemm.getRhsLayout() == RhsLayout::nk ? 0 : 1;
  SmallVector<AffineMap> maps = {
      AffineMap::getMultiDimIdentityMap(2, ctx),
      cast<RankedTensorType>(scale.getType()).getRank() == 0
          ? AffineMap::get(2, 0, ctx)
          : AffineMap::get(2, 0, {getAffineDimExpr(channelDim, ctx)}, ctx),
      AffineMap::getMultiDimIdentityMap(2, ctx)};
  Value init = tensor::EmptyOp::create(b, loc, rhsType.getShape(),
                                       rhsType.getElementType());
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{rhsType}, ValueRange{rhs, scale}, ValueRange{init},
      maps, {utils::IteratorType::parallel, utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Type accType = args[1].getType();
        Value w = convertFloat(nb, nloc, args[0], accType);
        Value p = arith::MulFOp::create(nb, nloc, w, args[1]);
        linalg::YieldOp::create(
            nb, nloc, convertFloat(nb, nloc, p, rhsType.getElementType()));
      });
  return generic.getResult(0);
}

/// Replaces `gemm` by a GEMM on the scaled weights whose epilogue adds the
/// folded shift and then runs what followed the affine part.
GemmOp applyFold(RewriterBase &rewriter, GemmOp gemm, const FoldPlan &plan) {
  Location loc = gemm.getLoc();
  rewriter.setInsertionPoint(gemm);
  Value rhs = gemm.getRhs();
  if (plan.affine.coef != TermArena::kOne) {
    Value scale = buildChannelVector(rewriter, gemm, plan, plan.affine.coef,
                                     plan.scaleSlice);
    rhs = buildScaledWeight(rewriter, gemm, scale);
  }
  Value shift;
  if (plan.affine.offset != TermArena::kZero)
    shift = buildChannelVector(rewriter, gemm, plan, plan.affine.offset,
                               plan.shiftSlice);

  // What stays in the epilogue: the ops after the affine part and the
  // factors they read (the affine ops and the factors only they read go).
  Block &block = gemm.getEpilogueBlock();
  llvm::DenseSet<Operation *> live;
  for (Operation &op : llvm::reverse(block)) {
    if (plan.affineOps.contains(&op))
      continue;
    bool isLive = op.hasTrait<OpTrait::IsTerminator>() ||
                  !isMemoryEffectFree(&op) ||
                  llvm::any_of(op.getUsers(), [&](Operation *user) {
                    return live.contains(block.findAncestorOpInBlock(*user));
                  });
    if (isLive)
      live.insert(&op);
  }
  llvm::SmallSetVector<unsigned, 4> kept;
  for (Operation &op : block) {
    if (!live.contains(&op))
      continue;
    op.walk([&](Operation *nested) {
      for (Value v : nested->getOperands())
        if (auto arg = dyn_cast<BlockArgument>(v);
            arg && arg.getOwner() == &block && arg.getArgNumber() > 0)
          kept.insert(arg.getArgNumber() - 1);
    });
  }
  SmallVector<unsigned> keptSorted = llvm::to_vector(kept);
  llvm::sort(keptSorted);

  SmallVector<Value> operands;
  SmallVector<BroadcastKind> kinds;
  if (shift) {
    operands.push_back(shift);
    kinds.push_back(cast<RankedTensorType>(shift.getType()).getRank() == 0
                        ? BroadcastKind::scalar
                        : BroadcastKind::per_col);
  }
  for (unsigned i : keptSorted) {
    operands.push_back(gemm.getEpilogueOperands()[i]);
    kinds.push_back(gemm.getBroadcastKind(i));
  }
  auto folded =
      GemmOp::create(rewriter, loc, gemm.getLhs(), rhs, gemm.getRhsLayout(),
                     gemm.getAccType(), gemm.getResultType(), operands, kinds);
  for (NamedAttribute attr : gemm->getDiscardableAttrs())
    folded->setAttr(attr.getName(), attr.getValue());
  if (ConfigAttr config = gemm.getConfigAttr())
    folded.setConfigAttr(config);

  Block &newBlock = folded.getEpilogueBlock();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(&newBlock);
  IRMapping map;
  unsigned next = 1;
  Value acc = newBlock.getArgument(0);
  if (shift)
    acc =
        arith::AddFOp::create(rewriter, loc, acc, newBlock.getArgument(next++));
  for (unsigned i : keptSorted)
    map.map(gemm.getEpilogueArgument(i), newBlock.getArgument(next++));
  map.map(plan.escaping, acc);
  for (Operation &op : block)
    if (live.contains(&op))
      rewriter.clone(op, map);
  rewriter.replaceOp(gemm, folded.getResult());
  return folded;
}

/// Folds the affine prefix of an xpu.gemm epilogue into its weights.
struct FoldAffineEpilogue final : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp gemm,
                                PatternRewriter &rewriter) const override {
    FoldPlan plan;
    std::string reason;
    if (failed(EpilogueReader(gemm).read(plan, reason)))
      return rewriter.notifyMatchFailure(gemm, reason);
    applyFold(rewriter, gemm, plan);
    return success();
  }
};

struct FoldAffineIntoWeightsPass final
    : xpu::impl::XPUFoldAffineIntoWeightsPassBase<FoldAffineIntoWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation().walk([&](GemmOp gemm) { gemms.push_back(gemm); });
    IRRewriter rewriter(&getContext());
    for (GemmOp gemm : gemms) {
      FoldPlan plan;
      std::string reason;
      if (failed(EpilogueReader(gemm).read(plan, reason))) {
        ++numRefused;
        remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "NotFolded"))
            << remark::reason("{0}", reason);
        continue;
      }
      std::string what;
      bool scaled = plan.affine.coef != TermArena::kOne;
      bool shifted = plan.affine.offset != TermArena::kZero;
      const char *shiftKind =
          isScalarFactor(gemm, plan.shiftSlice) ? "scalar" : "per_col";
      if (scaled)
        what = llvm::formatv(
            "folded {0} affine epilogue op(s) into the weights: the rhs {1} "
            "are scaled {2}{3}",
            plan.affineOps.size(),
            gemm.getRhsLayout() == RhsLayout::nk ? "rows (nk)" : "columns (kn)",
            isScalarFactor(gemm, plan.scaleSlice)
                ? std::string("by one scalar")
                : llvm::formatv("per output channel ({0} channels)",
                                gemm.getN())
                      .str(),
            shifted ? llvm::formatv(" and the epilogue adds one {0} shift",
                                    shiftKind)
                          .str()
                    : std::string(", no shift remains"));
      else
        what = llvm::formatv("merged {0} affine epilogue op(s) into one {1} "
                             "shift computed from the weights",
                             plan.affineOps.size(), shiftKind);
      Location loc = gemm.getLoc();
      GemmOp folded = applyFold(rewriter, gemm, plan);
      // What stays after the folded part (constants aside).
      SmallVector<Operation *> kept;
      for (Operation &op : folded.getEpilogueBlock().without_terminator())
        if (!op.hasTrait<OpTrait::ConstantLike>())
          kept.push_back(&op);
      if (kept.size() > (shifted ? 1u : 0u))
        what += llvm::formatv("; {0} op(s) stay in the epilogue, from {1}",
                              kept.size() - (shifted ? 1 : 0),
                              kept[shifted ? 1 : 0]->getName())
                    .str();
      remark::passed(loc, remarkOpts(kPassArg, "Folded"))
          << remark::reason("{0}", what);
      ++numFolded;
    }
  }
};
} // namespace

void mlir::xpu::populateXPUFoldAffineIntoWeightsPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldAffineEpilogue>(patterns.getContext());
}
