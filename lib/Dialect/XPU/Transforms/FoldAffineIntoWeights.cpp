//===- FoldAffineIntoWeights.cpp - per-channel affine epilogue -> weights -===//
//
// Catalog: algebraic_weight_folding, level_3_algebraic_fusion.
//
// The epilogue of an xpu.gemm is read symbolically (analyzeAffineEpilogue,
// AffineEpilogueUtils.h), starting at its accumulator argument: every value
// computed from the accumulator by add/sub/mul/div/neg with factors that do
// not depend on it is `coef * acc + offset`, where coef and offset are
// expressions over per_col and scalar epilogue operands and constants. The
// walk stops at the first op that is not linear in the accumulator; what
// follows (relu, gelu, ...) stays in the epilogue. For a GEMM with weights [n,
// k] (rhs_layout(nk)) or [k, n] (rhs_layout(kn)):
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
#include "xpu/Dialect/XPU/Utils/AffineEpilogueUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUFOLDAFFINEINTOWEIGHTSPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-fold-affine-into-weights";

namespace {
//===----------------------------------------------------------------------===//
// Rewrite
//===----------------------------------------------------------------------===//

/// Emits `term` with arith ops of type `type`; leaves are looked up in `map`.
Value emitTerm(OpBuilder &b, Location loc, const FactorTermArena &terms,
               int term, Type type, IRMapping &map,
               llvm::DenseMap<int, Value> &memo) {
  if (Value v = memo.lookup(term))
    return v;
  const FactorTerm &t = terms[term];
  auto sub = [&](int i) { return emitTerm(b, loc, terms, i, type, map, memo); };
  Value v;
  switch (t.kind) {
  case FactorTerm::Kind::Zero:
  case FactorTerm::Kind::One:
    v = arith::ConstantOp::create(
        b, loc, type,
        b.getFloatAttr(type, t.kind == FactorTerm::Kind::One ? 1.0 : 0.0));
    break;
  case FactorTerm::Kind::Leaf:
    v = map.lookupOrDefault(t.leaf);
    break;
  case FactorTerm::Kind::Add:
    v = arith::AddFOp::create(b, loc, sub(t.lhs), sub(t.rhs));
    break;
  case FactorTerm::Kind::Sub:
    v = arith::SubFOp::create(b, loc, sub(t.lhs), sub(t.rhs));
    break;
  case FactorTerm::Kind::Mul:
    v = arith::MulFOp::create(b, loc, sub(t.lhs), sub(t.rhs));
    break;
  case FactorTerm::Kind::Div:
    v = arith::DivFOp::create(b, loc, sub(t.lhs), sub(t.rhs));
    break;
  case FactorTerm::Kind::Neg:
    v = arith::NegFOp::create(b, loc, sub(t.lhs));
    break;
  }
  memo[term] = v;
  return v;
}

/// True if the factor reads only scalar operands and constants.
bool isScalarFactor(GemmOp gemm, const FactorSlice &slice) {
  return llvm::all_of(slice.operands, [&](unsigned i) {
    return gemm.getBroadcastKind(i) == BroadcastKind::scalar;
  });
}

/// Builds the per-channel vector `term[n]` (tensor<N x acc>, or a 0-d tensor
/// when it reads only scalars) with a linalg.generic over the epilogue
/// operands it reads.
Value buildChannelVector(OpBuilder &b, GemmOp gemm, const AffineFoldPlan &plan,
                         int term, const FactorSlice &slice) {
  Location loc = gemm.getLoc();
  MLIRContext *ctx = b.getContext();
  Type accType = gemm.getAccType();
  unsigned rank = isScalarFactor(gemm, slice) ? 0 : 1;
  auto vecType = rank == 0 ? RankedTensorType::get({}, accType)
                           : RankedTensorType::get({gemm.getN()}, accType);
  // An operand read as it is needs no copy.
  if (const FactorTerm &t = plan.terms[term];
      t.kind == FactorTerm::Kind::Leaf) {
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
GemmOp applyFold(RewriterBase &rewriter, GemmOp gemm,
                 const AffineFoldPlan &plan) {
  Location loc = gemm.getLoc();
  rewriter.setInsertionPoint(gemm);
  Value rhs = gemm.getRhs();
  if (plan.affine.coef != FactorTermArena::kOne) {
    Value scale = buildChannelVector(rewriter, gemm, plan, plan.affine.coef,
                                     plan.scaleSlice);
    rhs = buildScaledWeight(rewriter, gemm, scale);
  }
  Value shift;
  if (plan.affine.offset != FactorTermArena::kZero)
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

/// True if `op` allows reassociation: fastmath<reassoc> (or fast).
bool hasReassocFlag(Operation *op) {
  auto fmf = dyn_cast<arith::ArithFastMathInterface>(op);
  return fmf && arith::bitEnumContainsAll(fmf.getFastMathFlagsAttr().getValue(),
                                          arith::FastMathFlags::reassoc);
}

/// Whether the fold of `plan` may reassociate: the option, or the flag on
/// every affine op it folds. Fails with the reason otherwise.
LogicalResult checkReassociation(const AffineFoldPlan &plan, bool option,
                                 std::string &reason) {
  if (option || llvm::all_of(plan.affineOps, hasReassocFlag))
    return success();
  Operation *first = *llvm::find_if(
      plan.affineOps, [](Operation *op) { return !hasReassocFlag(op); });
  reason = llvm::formatv(
      "folding {0} affine epilogue op(s) into the weights reassociates f32 "
      "arithmetic ((x W^T + b) * s + t becomes x (W * s)^T + (b * s + t), "
      "rounded differently) and {1} has no fastmath<reassoc>; pass "
      "reassociate=true (xpu-optimize{{reassociate=true}) to allow it",
      plan.affineOps.size(), first->getName());
  return failure();
}

/// Folds the affine prefix of an xpu.gemm epilogue into its weights.
struct FoldAffineEpilogue final : OpRewritePattern<GemmOp> {
  FoldAffineEpilogue(MLIRContext *ctx, bool reassociate)
      : OpRewritePattern(ctx), reassociate(reassociate) {}
  LogicalResult matchAndRewrite(GemmOp gemm,
                                PatternRewriter &rewriter) const override {
    AffineFoldPlan plan;
    std::string reason;
    if (failed(analyzeAffineEpilogue(gemm, plan, reason)) ||
        failed(checkReassociation(plan, reassociate, reason)))
      return rewriter.notifyMatchFailure(gemm, reason);
    applyFold(rewriter, gemm, plan);
    return success();
  }

private:
  bool reassociate;
};

struct FoldAffineIntoWeightsPass final
    : xpu::impl::XPUFoldAffineIntoWeightsPassBase<FoldAffineIntoWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation().walk([&](GemmOp gemm) { gemms.push_back(gemm); });
    IRRewriter rewriter(&getContext());
    for (GemmOp gemm : gemms) {
      AffineFoldPlan plan;
      std::string reason;
      if (failed(analyzeAffineEpilogue(gemm, plan, reason)) ||
          failed(checkReassociation(plan, reassociate, reason))) {
        ++numRefused;
        remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "NotFolded"))
            << remark::reason("{0}", reason);
        continue;
      }
      std::string what;
      bool scaled = plan.affine.coef != FactorTermArena::kOne;
      bool shifted = plan.affine.offset != FactorTermArena::kZero;
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
    RewritePatternSet &patterns, bool reassociate) {
  patterns.add<FoldAffineEpilogue>(patterns.getContext(), reassociate);
}
