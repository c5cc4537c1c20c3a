//===- Raise.cpp - torch-mlir linalg contractions -> xpu.gemm -------------===//
//
// Recognizes what torch-mlir's TorchToLinalg emits for aten.mm, aten.bmm and
// aten.linear: linalg.matmul / linalg.batch_matmul on a zero linalg.fill,
// with the weight transposed by linalg.transpose (or by a transposing
// linalg.generic), or with MLIR 22's explicit transposed `indexing_maps`.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Transforms/Transforms.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPURAISEPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-raise";

namespace {
/// What the analysis found out about one contraction.
struct RaisePlan {
  Value lhs, rhs, init;
  RhsLayout layout = RhsLayout::kn;
  bool transposeAbsorbed = false;
  bool zeroInit = false;
  Type accType;
  RankedTensorType resultType;
};

/// Result of analysing a contraction: a plan, or the reason it is refused.
struct RaiseAnalysis {
  std::optional<RaisePlan> plan;
  std::string reason;
  bool dynamicShapes = false;

  static RaiseAnalysis refuse(const Twine &why, bool dynamic = false) {
    RaiseAnalysis a;
    a.reason = why.str();
    a.dynamicShapes = dynamic;
    return a;
  }
};

/// Returns the source of `v` if `v` is the transpose of its last two
/// dimensions: a linalg.transpose, or a linalg.generic that only copies its
/// input through a permutation map (what older torch-mlir emits).
Value getLastTwoDimsTransposeSource(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return {};
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<int64_t> swapLast = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(swapLast[rank - 1], swapLast[rank - 2]);
  if (auto t = dyn_cast<linalg::TransposeOp>(def)) {
    if (t.hasPureTensorSemantics() &&
        t.getPermutation() == ArrayRef<int64_t>(swapLast))
      return t.getInput();
    return {};
  }
  auto g = dyn_cast<linalg::GenericOp>(def);
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      !g.hasPureTensorSemantics() || g.getNumParallelLoops() != g.getNumLoops())
    return {};
  Block &body = g.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (!yield || !llvm::hasSingleElement(body) ||
      yield.getValues().size() != 1 ||
      yield.getValues()[0] != body.getArgument(0))
    return {};
  SmallVector<AffineMap> maps = g.getIndexingMapsArray();
  if (!maps[1].isIdentity() || !maps[0].isPermutation())
    return {};
  SmallVector<unsigned> perm;
  // Input map (d0..dn) -> (d_p0, ...): result of the generic at position i is
  // the input at the inverse permutation.
  AffineMap inv = inversePermutation(maps[0]);
  for (unsigned i = 0; i < inv.getNumResults(); ++i)
    perm.push_back(inv.getDimPosition(i));
  if (ArrayRef<unsigned>(perm) != ArrayRef<unsigned>(SmallVector<unsigned>(
                                      swapLast.begin(), swapLast.end())))
    return {};
  return g.getDpsInputOperand(0)->get();
}

/// True if `v` is a linalg.fill of a floating-point zero.
bool isZeroFill(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  if (!fill || !fill.hasPureTensorSemantics())
    return false;
  Value scalar = fill.getDpsInputOperand(0)->get();
  return matchPattern(scalar, m_AnyZeroFloat());
}

/// `d` as IR prints it: `?` when dynamic.
std::string dimString(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

/// The first dimension of `type` that is dynamic and not in `allowed`, or
/// -1.
int64_t firstDynamicDimOutside(RankedTensorType type,
                               ArrayRef<int64_t> allowed) {
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(d) &&
        !llvm::is_contained(allowed, static_cast<int64_t>(i)))
      return i;
  return -1;
}

/// Decides whether `op` (linalg.matmul or linalg.batch_matmul) can become an
/// xpu.gemm and how. With `dynamicRows`, its batch and m dimensions may be
/// dynamic.
RaiseAnalysis analyze(linalg::LinalgOp op, bool dynamicRows = false) {
  StringRef name = op->getName().getStringRef();
  if (!op.hasPureTensorSemantics())
    return RaiseAnalysis::refuse(name + " works on buffers; only tensors are "
                                        "raised");
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return RaiseAnalysis::refuse(name + " does not have two inputs and one "
                                        "init");
  Value lhs = op.getDpsInputOperand(0)->get();
  Value rhs = op.getDpsInputOperand(1)->get();
  Value init = op.getDpsInitOperand(0)->get();
  auto lhsType = dyn_cast<RankedTensorType>(lhs.getType());
  auto rhsType = dyn_cast<RankedTensorType>(rhs.getType());
  auto initType = dyn_cast<RankedTensorType>(init.getType());
  if (!lhsType || !rhsType || !initType)
    return RaiseAnalysis::refuse(name + " has unranked operands");
  int64_t rank = lhsType.getRank();
  // [b?, m] in the lhs and the init, b? in the rhs.
  SmallVector<int64_t> rows = {rank - 2}, batch;
  if (rank == 3) {
    rows.insert(rows.begin(), 0);
    batch.push_back(0);
  }
  for (auto [t, allowed] :
       llvm::zip(SmallVector<RankedTensorType>{lhsType, rhsType, initType},
                 SmallVector<ArrayRef<int64_t>>{rows, batch, rows})) {
    if (t.hasStaticShape())
      continue;
    if (!dynamicRows)
      return RaiseAnalysis::refuse(name + " has dynamic shapes (" +
                                       llvm::formatv("{0}", t).str() +
                                       "); xpu.gemm needs static shapes",
                                   /*dynamic=*/true);
    int64_t d = firstDynamicDimOutside(t, allowed);
    if (d >= 0)
      return RaiseAnalysis::refuse(
          name + " has a dynamic k or n dimension (dimension " + Twine(d) +
              " of " + llvm::formatv("{0}", t).str() +
              "); xpu.gemm takes dynamic batch and m dimensions only",
          /*dynamic=*/true);
  }
  Type lhsElt = lhsType.getElementType(), rhsElt = rhsType.getElementType();
  Type accElt = initType.getElementType();
  if (!isa<FloatType>(lhsElt) || !isa<FloatType>(rhsElt) ||
      !isa<FloatType>(accElt))
    return RaiseAnalysis::refuse(name + " is not a floating-point "
                                        "contraction");
  if (lhsElt != rhsElt)
    return RaiseAnalysis::refuse(
        name + " mixes operand element types (" +
        llvm::formatv("{0} and {1}", lhsElt, rhsElt).str() + ")");
  if (!GemmOp::isValidAccumulatorType(lhsElt, accElt))
    return RaiseAnalysis::refuse(
        name + " accumulates in a type that cannot hold every operand value "
               "(narrower, or f16 with bf16)");
  std::string limit = GemmOp::checkSizeLimits({lhsType, rhsType, initType},
                                              {"lhs", "rhs", "init"});
  if (!limit.empty())
    return RaiseAnalysis::refuse(name + ": " + limit);

  // Indexing maps: (b?, m, n, k). lhs (b?, m, k); rhs (b?, k, n) or
  // (b?, n, k); init (b?, m, n).
  bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
  unsigned b = batched ? 1 : 0;
  MLIRContext *ctx = op->getContext();
  auto dims = [&](ArrayRef<unsigned> pos) {
    SmallVector<AffineExpr> exprs;
    if (batched)
      exprs.push_back(getAffineDimExpr(0, ctx));
    for (unsigned p : pos)
      exprs.push_back(getAffineDimExpr(p + b, ctx));
    return AffineMap::get(3 + b, 0, exprs, ctx);
  };
  enum { M = 0, N = 1, K = 2 };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[2] != dims({M, N}))
    return RaiseAnalysis::refuse(name + " has a non-standard output map");
  if (maps[0] != dims({M, K}))
    return RaiseAnalysis::refuse(
        name + " reads its lhs transposed or broadcast; only [m, k] lhs "
               "operands are raised");
  RaisePlan plan;
  if (maps[1] == dims({K, N}))
    plan.layout = RhsLayout::kn;
  else if (maps[1] == dims({N, K}))
    plan.layout = RhsLayout::nk;
  else
    return RaiseAnalysis::refuse(name + " reads its rhs through a broadcast "
                                        "map");

  // Absorb an explicit transpose of the rhs into the layout.
  if (Value src = getLastTwoDimsTransposeSource(rhs)) {
    rhs = src;
    plan.layout = plan.layout == RhsLayout::kn ? RhsLayout::nk : RhsLayout::kn;
    plan.transposeAbsorbed = true;
  }
  plan.lhs = lhs;
  plan.rhs = rhs;
  plan.init = init;
  plan.zeroInit = isZeroFill(init);
  plan.accType = accElt;
  plan.resultType = initType;
  RaiseAnalysis a;
  a.plan = plan;
  return a;
}

/// Builds the xpu.gemm for `plan` and replaces `op`.
void rewrite(RewriterBase &rewriter, linalg::LinalgOp op,
             const RaisePlan &plan) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  GemmOp gemm;
  if (plan.zeroInit) {
    gemm = GemmOp::create(rewriter, loc, plan.lhs, plan.rhs, plan.layout,
                          plan.accType, plan.resultType);
  } else {
    // out = init + lhs * rhs: the initial value is a full epilogue operand.
    gemm = GemmOp::create(rewriter, loc, plan.lhs, plan.rhs, plan.layout,
                          plan.accType, plan.resultType, ValueRange{plan.init},
                          {BroadcastKind::full});
    Block &block = gemm.getEpilogueBlock();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(&block);
    Value sum = arith::AddFOp::create(rewriter, loc, block.getArgument(0),
                                      block.getArgument(1));
    YieldOp::create(rewriter, loc, sum);
  }
  rewriter.replaceOp(op, gemm.getResult());
}

/// Raises linalg.matmul and linalg.batch_matmul.
template <typename OpTy>
struct RaiseContraction final : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    RaiseAnalysis a = analyze(cast<linalg::LinalgOp>(op.getOperation()));
    if (!a.plan)
      return rewriter.notifyMatchFailure(op, a.reason);
    rewrite(rewriter, cast<linalg::LinalgOp>(op.getOperation()), *a.plan);
    return success();
  }
};

struct RaisePass final : xpu::impl::XPURaisePassBase<RaisePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    bool failedStrict = false;
    SmallVector<linalg::LinalgOp> candidates;
    func.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation())) {
        candidates.push_back(op);
        return;
      }
      // Other contractions are reported, so the user knows why they stay.
      if (isa<linalg::ContractionOpInterface>(op.getOperation()) ||
          (isa<linalg::GenericOp>(op.getOperation()) &&
           linalg::isaContractionOpInterface(op))) {
        ++numRefused;
        remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotRaised"))
            << remark::reason(
                   "{0} is a contraction xpu-raise does not recognize; only "
                   "linalg.matmul and linalg.batch_matmul are raised",
                   op->getName().getStringRef());
      }
    });
    for (linalg::LinalgOp op : candidates) {
      RaiseAnalysis a = analyze(op, dynamicRows);
      if (!a.plan) {
        if (strict && a.dynamicShapes) {
          op.emitError() << a.reason;
          failedStrict = true;
          continue;
        }
        ++numRefused;
        remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotRaised"))
            << remark::reason("{0}", a.reason);
        continue;
      }
      const RaisePlan &plan = *a.plan;
      std::string what = llvm::formatv(
          "raised {0} {1}x{2}x{3} (m x n x k) to xpu.gemm "
          "rhs_layout({4}){5}{6}",
          op->getName().getStringRef(),
          dimString(plan.resultType.getDimSize(plan.resultType.getRank() - 2)),
          plan.resultType.getDimSize(plan.resultType.getRank() - 1),
          cast<RankedTensorType>(plan.lhs.getType()).getShape().back(),
          stringifyRhsLayout(plan.layout),
          plan.transposeAbsorbed ? ", rhs transpose absorbed" : "",
          plan.zeroInit ? ", zero fill absorbed"
                        : ", initial value added in the epilogue");
      remark::passed(op.getLoc(), remarkOpts(kPassArg, "Raised"))
          << remark::reason("{0}", what);
      ++numRaised;
      if (plan.transposeAbsorbed)
        ++numTransposesAbsorbed;
      rewrite(rewriter, op, plan);
    }
    if (failedStrict)
      return signalPassFailure();
    // The transposes and fills that fed the raised ops are now dead.
    RewritePatternSet cleanup(&getContext());
    if (failed(applyPatternsGreedily(func, std::move(cleanup))))
      return signalPassFailure();
  }
};
} // namespace

void mlir::xpu::populateXPURaisePatterns(RewritePatternSet &patterns) {
  patterns.add<RaiseContraction<linalg::MatmulOp>,
               RaiseContraction<linalg::BatchMatmulOp>>(patterns.getContext());
}
