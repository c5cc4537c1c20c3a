//===- AffineEpilogueUtils.cpp - symbolic affine reading of epilogues -----===//

#include "xpu/Dialect/XPU/Utils/AffineEpilogueUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::xpu;

//===----------------------------------------------------------------------===//
// Analysis
//===----------------------------------------------------------------------===//

namespace {
/// What a value depends on: the ops and the block arguments reached
/// backwards through operands and the values their regions read.
struct Slice {
  llvm::SetVector<Operation *> ops;
  llvm::SetVector<Value> args;
};
} // namespace

static Slice computeSlice(Value root) {
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

static bool isReduction(Operation *op) {
  if (isa<linalg::ReduceOp>(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp && linalgOp.getNumReductionLoops() > 0;
}

namespace {
/// Reads an xpu.gemm epilogue symbolically from its accumulator argument
/// and decides what folds into the weights.
class EpilogueReader {
public:
  explicit EpilogueReader(GemmOp gemm) : gemm(gemm) {}

  /// Reads the epilogue; returns failure with the reason in `reason`.
  LogicalResult read(AffineFoldPlan &plan, std::string &reason);

private:
  bool dependsOnAcc(Value v) const {
    return affine.contains(v) || tainted.contains(v);
  }
  bool dependsOnAcc(Operation *op) const;
  /// Returns the affine form of `op`'s result, or nullopt if `op` is not
  /// linear in the accumulator.
  std::optional<AffineForm> tryAffine(Operation *op, FactorTermArena &terms);
  /// True if `op` scales or shifts a value computed by a non-linear op by a
  /// factor that is not a constant (relu(acc) * s).
  bool isScaleOrShiftAfterNonLinear(Operation *op) const;
  LogicalResult collectFactorSlice(int term, StringRef role,
                                   AffineFoldPlan &plan, FactorSlice &slice,
                                   std::string &reason);

  GemmOp gemm;
  llvm::DenseMap<Value, AffineForm> affine;
  llvm::DenseSet<Value> tainted;
};
} // namespace

bool EpilogueReader::dependsOnAcc(Operation *op) const {
  if (llvm::any_of(op->getOperands(), [&](Value v) { return dependsOnAcc(v); }))
    return true;
  llvm::SetVector<Value> above;
  getUsedValuesDefinedAbove(op->getRegions(), above);
  return llvm::any_of(above, [&](Value v) { return dependsOnAcc(v); });
}

std::optional<AffineForm> EpilogueReader::tryAffine(Operation *op,
                                                    FactorTermArena &terms) {
  if (op->getNumRegions() != 0 || op->getNumResults() != 1)
    return std::nullopt;
  // Each operand is affine or a factor (a value that does not depend on the
  // accumulator); a tainted operand makes the op non-linear.
  auto form = [&](Value v) -> std::optional<AffineForm> {
    if (auto it = affine.find(v); it != affine.end())
      return it->second;
    return std::nullopt;
  };
  auto factor = [&](Value v) { return terms.leaf(v); };
  if (llvm::any_of(op->getOperands(),
                   [&](Value v) { return tainted.contains(v); }))
    return std::nullopt;

  if (auto neg = dyn_cast<arith::NegFOp>(op)) {
    AffineForm a = *form(neg.getOperand());
    return AffineForm{terms.neg(a.coef), terms.neg(a.offset)};
  }
  if (op->getNumOperands() != 2 ||
      !isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp>(op))
    return std::nullopt;
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  std::optional<AffineForm> a = form(lhs), b = form(rhs);
  return TypeSwitch<Operation *, std::optional<AffineForm>>(op)
      .Case([&](arith::AddFOp) -> std::optional<AffineForm> {
        if (a && b)
          return AffineForm{terms.add(a->coef, b->coef),
                            terms.add(a->offset, b->offset)};
        if (a)
          return AffineForm{a->coef, terms.add(a->offset, factor(rhs))};
        return AffineForm{b->coef, terms.add(factor(lhs), b->offset)};
      })
      .Case([&](arith::SubFOp) -> std::optional<AffineForm> {
        if (a && b)
          return AffineForm{terms.sub(a->coef, b->coef),
                            terms.sub(a->offset, b->offset)};
        if (a)
          return AffineForm{a->coef, terms.sub(a->offset, factor(rhs))};
        return AffineForm{terms.neg(b->coef),
                          terms.sub(factor(lhs), b->offset)};
      })
      .Case([&](arith::MulFOp) -> std::optional<AffineForm> {
        if (a && b)
          return std::nullopt; // acc * acc
        const AffineForm &x = a ? *a : *b;
        int f = factor(a ? rhs : lhs);
        return AffineForm{terms.mul(x.coef, f), terms.mul(x.offset, f)};
      })
      .Case([&](arith::DivFOp) -> std::optional<AffineForm> {
        if (!a || b)
          return std::nullopt; // f / acc or acc / acc
        int f = factor(rhs);
        return AffineForm{terms.div(a->coef, f), terms.div(a->offset, f)};
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
                                                 AffineFoldPlan &plan,
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

LogicalResult EpilogueReader::read(AffineFoldPlan &plan, std::string &reason) {
  if (gemm.hasIdentityEpilogue()) {
    reason = "identity epilogue: nothing to fold";
    return failure();
  }
  Block &block = gemm.getEpilogueBlock();
  affine[gemm.getAccArgument()] = AffineForm{};
  Operation *firstAffineAfter = nullptr;
  for (Operation &op : block.without_terminator()) {
    if (!dependsOnAcc(&op))
      continue; // A factor.
    if (!plan.firstNonLinear) {
      if (std::optional<AffineForm> a = tryAffine(&op, plan.terms)) {
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
  // anything else. AffineForm ops that read V or another affine value outside
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
  const FactorTerm &offset = plan.terms[plan.affine.offset];
  bool trivialOffset = plan.affine.offset == FactorTermArena::kZero ||
                       (offset.kind == FactorTerm::Kind::Leaf &&
                        (isa<BlockArgument>(offset.leaf) ||
                         matchPattern(offset.leaf, m_Constant())));
  if (plan.affine.coef == FactorTermArena::kOne && trivialOffset) {
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

LogicalResult mlir::xpu::analyzeAffineEpilogue(GemmOp gemm,
                                               AffineFoldPlan &plan,
                                               std::string &reason) {
  return EpilogueReader(gemm).read(plan, reason);
}
