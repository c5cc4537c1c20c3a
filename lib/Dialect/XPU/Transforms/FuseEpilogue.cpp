//===- FuseEpilogue.cpp - elementwise consumers -> xpu.gemm epilogue ------===//
//
// Catalog: elementwise_chain_fusion, gemm_bias_activation_fusion,
// gemm_activation_fusion, gemm_matrix_add_epilogue and
// fusion_register_pressure_guard. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Transforms/Transforms.h"
#include "xpu/Dialect/XPU/Utils/EpilogueUtils.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/RegisterPressure.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUFUSEEPILOGUEPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-fuse-epilogue";

namespace {

//===----------------------------------------------------------------------===//
// Fusion of one consumer
//===----------------------------------------------------------------------===//

/// What fusing `consumer` into `gemm` looks like.
struct FusionPlan {
  GemmOp gemm;
  linalg::GenericOp consumer;
  /// Kind of each consumer input that is not the GEMM result.
  SmallVector<std::optional<BroadcastKind>> kinds;
  /// Body ops of the consumer, in order.
  SmallVector<Operation *> body;
  /// Number of body ops fused (a prefix of `body`).
  unsigned cut = 0;
  /// The accumulator-dependent value live at the cut.
  Value cutValue;
  int64_t registers = 0;
  /// The budget the fused epilogue fits: the register model's, or the larger
  /// register file of the GEMM's backend (Xe's 256-GRF mode) when the
  /// default one does not hold it.
  int64_t budget = 0;
};

/// The register budgets of the guard for `gemm`: the register model's, and
/// the larger one the backend the strategy would choose offers (Xe's
/// 256-GRF mode, the catalog's grf_mode='large'), which the guard takes
/// before it splits an epilogue. A GEMM with a config keeps the config's
/// register file (its grf_mode).
std::pair<int64_t, int64_t> getGuardBudgets(GemmOp gemm, TargetAttr target,
                                            const RegisterModel &model) {
  int64_t budget = model.budget, large = model.budget;
  if (!model.enabled() || gemm.getConfigAttr())
    return {budget, large};
  std::string taken, declined;
  if (GemmBackendAttrInterface backend = chooseGemmBackend(
          target, gemm.getLhsType().getElementType(), taken, declined))
    if (backend.growRegisterFile(target, large))
      return {budget, large};
  return {budget, budget};
}

std::string describeCut(const FusionPlan &plan) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(ArrayRef<Operation *>(plan.body).take_front(plan.cut),
                        os, [&](Operation *op) { os << op->getName(); });
  return s;
}

class EpilogueFuser {
public:
  EpilogueFuser(TargetAttr target, int64_t &numFused, int64_t &numSplit,
                int64_t &numRefused)
      : target(target), numFused(numFused), numSplit(numSplit),
        numRefused(numRefused) {}

  /// Tries to fuse the consumer of `gemm`; returns the new GEMM on success.
  /// `wholeChain` tells whether the whole consumer was fused.
  FailureOr<GemmOp> fuseConsumer(RewriterBase &rewriter, GemmOp gemm,
                                 bool &wholeChain);

private:
  FailureOr<FusionPlan> plan(GemmOp gemm);
  GemmOp rewrite(RewriterBase &rewriter, const FusionPlan &plan);

  LogicalResult refuse(GemmOp gemm, const Twine &why) {
    ++numRefused;
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "NotFused"))
        << remark::reason("{0}", why.str());
    return failure();
  }

  TargetAttr target;
  int64_t &numFused, &numSplit, &numRefused;
};

FailureOr<FusionPlan> EpilogueFuser::plan(GemmOp gemm) {
  Value result = gemm.getResult();
  if (result.use_empty())
    return failure();
  Operation *user = *result.getUsers().begin();
  if (llvm::any_of(result.getUsers(),
                   [&](Operation *u) { return u != user; })) {
    int64_t users = llvm::range_size(result.getUsers());
    return refuse(gemm, llvm::formatv("the GEMM result has {0} users; fusing "
                                      "would recompute the GEMM",
                                      users)
                            .str());
  }
  // A returned result has nothing to fuse.
  if (user->hasTrait<OpTrait::IsTerminator>())
    return failure();
  auto consumer = dyn_cast<linalg::GenericOp>(user);
  if (!consumer || !isElementwiseGeneric(consumer))
    return refuse(gemm, "its consumer " + user->getName().getStringRef() +
                            " is not an elementwise linalg.generic");
  ArrayRef<int64_t> shape = gemm.getResultType().getShape();
  if (consumer.getStaticLoopRanges() != SmallVector<int64_t>(shape))
    return refuse(gemm, "its consumer does not iterate over the GEMM result "
                        "shape");
  if (consumer.getMatchingBlockArgument(consumer.getDpsInitOperand(0))
          .use_empty() == false)
    return refuse(gemm, "its consumer reads its output tensor");

  FusionPlan plan;
  plan.gemm = gemm;
  plan.consumer = consumer;
  SmallVector<Value> accRoots;
  for (OpOperand *input : consumer.getDpsInputOperands()) {
    AffineMap map = consumer.getMatchingIndexingMap(input);
    if (input->get() == result) {
      if (!map.isIdentity())
        return refuse(gemm, "its consumer reads the GEMM result through a "
                            "non-identity map");
      plan.kinds.push_back(std::nullopt);
      accRoots.push_back(consumer.getMatchingBlockArgument(input));
      continue;
    }
    std::string reason;
    FailureOr<BroadcastKind> kind = classifyBroadcast(
        map, cast<RankedTensorType>(input->get().getType()), reason);
    if (failed(kind))
      return refuse(gemm, llvm::formatv("consumer operand #{0}: {1}",
                                        input->getOperandNumber(), reason)
                              .str());
    plan.kinds.push_back(*kind);
  }
  Block &block = consumer.getRegion().front();
  for (Operation &op : block.without_terminator()) {
    if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op) ||
        isa<linalg::IndexOp>(op))
      return refuse(gemm, llvm::formatv("its consumer computes {0}, which "
                                        "cannot move into an epilogue (side "
                                        "effects, regions or indices)",
                                        op.getName())
                              .str());
    plan.body.push_back(&op);
  }
  Value yielded = block.getTerminator()->getOperand(0);

  // The GEMM's current epilogue runs first; its ops count for the estimate.
  SmallVector<Operation *> existing;
  for (Operation &op : gemm.getEpilogueBlock().without_terminator())
    existing.push_back(&op);

  // Accumulator-dependent values of the consumer body.
  llvm::DenseSet<Value> dependent(accRoots.begin(), accRoots.end());
  for (Operation *op : plan.body)
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return dependent.contains(v); }))
      for (Value r : op->getResults())
        dependent.insert(r);

  // Walk the cuts from the longest: the whole chain, then shorter prefixes
  // that leave exactly one accumulator-dependent value live.
  RegisterModel model = RegisterModel::get(gemm, target);
  auto [budget, largeBudget] = getGuardBudgets(gemm, target, model);
  // The shortest cut rejected so far (the one just longer than a fit).
  std::optional<std::pair<Operation *, int64_t>> lastRejected;
  for (int64_t cut = plan.body.size(); cut >= 1; --cut) {
    // Dependent values defined in the prefix (or roots) used after it.
    SmallVector<Value> crossing;
    auto usedAfter = [&](Value v) {
      if (cut == static_cast<int64_t>(plan.body.size()))
        return v == yielded;
      for (Operation *op : ArrayRef<Operation *>(plan.body).drop_front(cut))
        if (llvm::is_contained(op->getOperands(), v))
          return true;
      return v == yielded;
    };
    for (Value root : accRoots)
      if (usedAfter(root) && !llvm::is_contained(crossing, root))
        crossing.push_back(root);
    for (Operation *op : ArrayRef<Operation *>(plan.body).take_front(cut))
      for (Value r : op->getResults())
        if (dependent.contains(r) && usedAfter(r))
          crossing.push_back(r);
    if (crossing.size() != 1 || !isa<FloatType>(crossing[0].getType()))
      continue;
    Value cutValue = crossing[0];
    // A cut that moves nothing that depends on the accumulator is no fusion.
    if (llvm::is_contained(accRoots, cutValue))
      continue;
    SmallVector<Operation *> ops = existing;
    llvm::append_range(ops, ArrayRef<Operation *>(plan.body).take_front(cut));
    SmallVector<Value> roots{gemm.getAccArgument()};
    llvm::append_range(roots, accRoots);
    int64_t registers =
        model.enabled()
            ? model.estimate(peakLiveFragments(ops, roots, cutValue))
            : 0;
    if (model.enabled() && registers > largeBudget) {
      lastRejected = {plan.body[cut - 1], registers};
      continue;
    }
    plan.cut = cut;
    plan.cutValue = cutValue;
    plan.registers = registers;
    plan.budget = registers > budget ? largeBudget : budget;
    break;
  }
  if (plan.cut == 0) {
    if (lastRejected)
      return refuse(gemm,
                    llvm::formatv("fusion refused: even the shortest chain, "
                                  "up to {0}, needs an estimated {1} "
                                  "registers per thread > {2} on {3}",
                                  lastRejected->first->getName(),
                                  lastRejected->second, largeBudget,
                                  target.getChip())
                        .str());
    return refuse(gemm, "no point in its consumer's body where one "
                        "accumulator-dependent value is live");
  }
  if (plan.cut < plan.body.size()) {
    Operation *stop = plan.body[plan.cut];
    int64_t over = lastRejected ? lastRejected->second : 0;
    ++numSplit;
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "Split"))
        << remark::reason(
               "fusion stopped before {0}: estimated {1} registers per thread "
               "> {2} on {3} ({4} per accumulator fragment, {5} reserved); "
               "the rest stays a separate elementwise kernel",
               stop->getName().getStringRef(), over, largeBudget,
               target.getChip(), model.fragmentRegisters, model.reserved);
  }
  return plan;
}

GemmOp EpilogueFuser::rewrite(RewriterBase &rewriter, const FusionPlan &plan) {
  GemmOp gemm = plan.gemm;
  linalg::GenericOp consumer = plan.consumer;
  Location loc = consumer.getLoc();
  rewriter.setInsertionPoint(consumer);

  // Epilogue operands: the GEMM's, then each consumer input the fused
  // prefix reads.
  SmallVector<Operation *> prefix(plan.body.begin(),
                                  plan.body.begin() + plan.cut);
  auto prefixUses = [&](BlockArgument arg) {
    return llvm::any_of(prefix, [&](Operation *op) {
      return llvm::is_contained(op->getOperands(), arg);
    });
  };
  SmallVector<Value> operands(gemm.getEpilogueOperands());
  SmallVector<BroadcastKind> kinds;
  for (unsigned i = 0, e = operands.size(); i < e; ++i)
    kinds.push_back(gemm.getBroadcastKind(i));
  SmallVector<std::pair<BlockArgument, unsigned>> newArgs;
  for (auto [i, input] : llvm::enumerate(consumer.getDpsInputOperands())) {
    if (!plan.kinds[i])
      continue;
    BlockArgument arg = consumer.getMatchingBlockArgument(input);
    if (!prefixUses(arg))
      continue;
    newArgs.push_back({arg, operands.size()});
    operands.push_back(materializeEpilogueOperand(
        rewriter, loc, input->get(), *plan.kinds[i], gemm.getResultType()));
    kinds.push_back(*plan.kinds[i]);
  }

  auto resultType = RankedTensorType::get(gemm.getResultType().getShape(),
                                          plan.cutValue.getType());
  auto fused = GemmOp::create(rewriter, gemm.getLoc(), gemm.getLhs(),
                              gemm.getRhs(), gemm.getRhsLayout(),
                              gemm.getAccType(), resultType, operands, kinds);
  fused.inheritAttributes(gemm);
  Block &newBlock = fused.getEpilogueBlock();

  // The old epilogue, then the fused prefix.
  IRMapping map;
  Block &oldBlock = gemm.getEpilogueBlock();
  for (unsigned i = 0, e = oldBlock.getNumArguments(); i < e; ++i)
    map.map(oldBlock.getArgument(i), newBlock.getArgument(i));
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPointToEnd(&newBlock);
  for (Operation &op : oldBlock.without_terminator())
    rewriter.clone(op, map);
  Value oldOut = map.lookup(oldBlock.getTerminator()->getOperand(0));
  for (auto [i, input] : llvm::enumerate(consumer.getDpsInputOperands()))
    if (!plan.kinds[i])
      map.map(consumer.getMatchingBlockArgument(input), oldOut);
  for (auto [arg, index] : newArgs)
    map.map(arg, newBlock.getArgument(index + 1));
  for (Operation *op : prefix)
    rewriter.clone(*op, map);
  YieldOp::create(rewriter, loc, map.lookup(plan.cutValue));

  if (plan.cut == plan.body.size()) {
    rewriter.replaceOp(consumer, fused.getResult());
    rewriter.eraseOp(gemm);
    return fused;
  }

  // The rest of the chain: a new elementwise generic on the fused result,
  // reading the consumer inputs that the ops after the cut need (values of
  // the prefix that do not depend on the accumulator are recomputed there).
  Block *body = consumer.getBody();
  SmallVector<Operation *> restOps;
  llvm::SetVector<Operation *> needed;
  std::function<void(Value)> require = [&](Value v) {
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || v == plan.cutValue ||
        needed.contains(def))
      return;
    for (Value operand : def->getOperands())
      require(operand);
    needed.insert(def);
  };
  for (Operation *op : ArrayRef<Operation *>(plan.body).drop_front(plan.cut))
    require(op->getResult(0));
  Value yielded = body->getTerminator()->getOperand(0);
  require(yielded);
  auto restReads = [&](BlockArgument arg) {
    return llvm::any_of(needed,
                        [&](Operation *op) {
                          return llvm::is_contained(op->getOperands(), arg);
                        }) ||
           yielded == arg;
  };

  rewriter.setInsertionPoint(consumer);
  AffineMap identity =
      consumer.getMatchingIndexingMap(consumer.getDpsInitOperand(0));
  SmallVector<Value> inputs{fused.getResult()};
  SmallVector<AffineMap> maps{identity};
  SmallVector<BlockArgument> keptArgs;
  for (auto [i, input] : llvm::enumerate(consumer.getDpsInputOperands())) {
    BlockArgument arg = consumer.getMatchingBlockArgument(input);
    if (!plan.kinds[i] || !restReads(arg))
      continue;
    inputs.push_back(input->get());
    maps.push_back(consumer.getMatchingIndexingMap(input));
    keptArgs.push_back(arg);
  }
  maps.push_back(identity);
  auto rest =
      linalg::GenericOp::create(rewriter, loc, consumer->getResultTypes(),
                                inputs, consumer.getDpsInitOperand(0)->get(),
                                maps, consumer.getIteratorTypesArray());
  Block *restBlock = rewriter.createBlock(&rest.getRegion());
  IRMapping restMap;
  restMap.map(plan.cutValue,
              restBlock->addArgument(plan.cutValue.getType(), loc));
  for (BlockArgument arg : keptArgs)
    restMap.map(arg, restBlock->addArgument(arg.getType(), loc));
  BlockArgument outArg =
      consumer.getMatchingBlockArgument(consumer.getDpsInitOperand(0));
  restMap.map(outArg, restBlock->addArgument(outArg.getType(), loc));
  rewriter.setInsertionPointToEnd(restBlock);
  for (Operation *op : needed)
    rewriter.clone(*op, restMap);
  linalg::YieldOp::create(rewriter, loc, restMap.lookupOrDefault(yielded));
  rewriter.replaceOp(consumer, rest->getResults());
  rewriter.eraseOp(gemm);
  return fused;
}

FailureOr<GemmOp> EpilogueFuser::fuseConsumer(RewriterBase &rewriter,
                                              GemmOp gemm, bool &wholeChain) {
  FailureOr<FusionPlan> p = plan(gemm);
  if (failed(p))
    return failure();
  wholeChain = p->cut == p->body.size();
  std::string ops = describeCut(*p);
  RegisterModel model = RegisterModel::get(gemm, target);
  GemmOp fused = rewrite(rewriter, *p);
  numFused += p->cut;
  if (model.enabled())
    remark::passed(fused.getLoc(), remarkOpts(kPassArg, "Fused"))
        << remark::reason(
               "fused {0} into the xpu.gemm epilogue: estimated {1} registers "
               "per thread <= {2} on {3}{4}",
               ops, p->registers, p->budget, target.getChip(),
               p->budget > model.budget
                   ? llvm::formatv(" with the larger register file (> {0}: "
                                   "xpu-select-strategy gives the GEMM a "
                                   "config that holds it, e.g. grf_mode 256)",
                                   model.budget)
                         .str()
                   : std::string());
  else
    remark::passed(fused.getLoc(), remarkOpts(kPassArg, "Fused"))
        << remark::reason("fused {0} into the xpu.gemm epilogue ({1} target: "
                          "no register guard, the CPU strategy applies the "
                          "epilogue per vector tile)",
                          ops, target.getChip());
  return fused;
}

/// True if `v` is an xpu.gemm result or computed from one by elementwise
/// linalg.generic ops.
bool dependsOnGemm(Value v, llvm::DenseMap<Operation *, bool> &memo) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<GemmOp>(def))
    return true;
  auto generic = dyn_cast<linalg::GenericOp>(def);
  if (!generic || !isElementwiseGeneric(generic))
    return false;
  auto it = memo.find(def);
  if (it != memo.end())
    return it->second;
  memo[def] = false;
  bool result = llvm::any_of(generic.getDpsInputs(),
                             [&](Value in) { return dependsOnGemm(in, memo); });
  memo[def] = result;
  return result;
}

struct FuseEpiloguePass final
    : xpu::impl::XPUFuseEpiloguePassBase<FuseEpiloguePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    TargetAttr target = resolveTarget(func);

    // Merge the elementwise chain that hangs off each GEMM into one generic,
    // leaving computation that does not depend on a GEMM (BatchNorm's
    // 1/sqrt(var + eps), with its cf.assert) as separate operands.
    // A linalg.broadcast feeding elementwise work (torch 2.15 broadcasts
    // nn.Linear's bias to the full [M, N] this way) becomes a generic that
    // the chain fusion folds into its consumer, which then reads the bias
    // per column.
    IRRewriter generalizer(&getContext());
    SmallVector<linalg::BroadcastOp> broadcasts;
    func.walk([&](linalg::BroadcastOp b) {
      if (b.hasPureTensorSemantics() &&
          llvm::all_of(b->getUsers(), llvm::IsaPred<linalg::GenericOp>))
        broadcasts.push_back(b);
    });
    for (linalg::BroadcastOp b : broadcasts) {
      generalizer.setInsertionPoint(b);
      (void)linalg::generalizeNamedOp(generalizer, b);
    }
    RewritePatternSet patterns(&getContext());
    populateXPUElementwiseChainFusionPatterns(patterns);
    // A 3-D input is collapsed to 2-D for the GEMM and the result expanded
    // back (tensor.expand_shape) before the epilogue: the elementwise
    // consumer of such an expand_shape is collapsed to the GEMM's 2-D shape
    // instead, with the expand_shape after it, so that it can fuse.
    linalg::populateFoldReshapeOpsByCollapsingPatterns(
        patterns, [](OpOperand *operand) {
          auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
          if (!expand)
            return false;
          llvm::DenseMap<Operation *, bool> memo;
          return dependsOnGemm(expand.getSrc(), memo);
        });
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();

    int64_t fused = 0, split = 0, refused = 0;
    EpilogueFuser fuser(target, fused, split, refused);
    IRRewriter rewriter(&getContext());
    SmallVector<GemmOp> worklist;
    func.walk([&](GemmOp gemm) { worklist.push_back(gemm); });
    while (!worklist.empty()) {
      GemmOp gemm = worklist.pop_back_val();
      bool wholeChain = false;
      FailureOr<GemmOp> result = fuser.fuseConsumer(rewriter, gemm, wholeChain);
      // A fully fused consumer may expose the next one; after a split the
      // rest has been judged already.
      if (succeeded(result) && wholeChain && !result->getResult().use_empty())
        worklist.push_back(*result);
    }
    numFused += fused;
    numSplit += split;
    numRefused += refused;
  }
};
} // namespace

/// True if `op` only copies its one input to its output through a
/// broadcasting (projected permutation) map.
static bool isBroadcastCopy(Operation *op) {
  auto g = dyn_cast<linalg::GenericOp>(op);
  if (!g || g.getNumDpsInputs() != 1 || g.getNumDpsInits() != 1 ||
      !g.hasPureTensorSemantics() || g.getNumParallelLoops() != g.getNumLoops())
    return false;
  Block &body = g.getRegion().front();
  if (!llvm::hasSingleElement(body) ||
      body.getTerminator()->getNumOperands() != 1 ||
      body.getTerminator()->getOperand(0) != body.getArgument(0))
    return false;
  AffineMap in = g.getMatchingIndexingMap(g.getDpsInputOperand(0));
  AffineMap out = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
  return out.isIdentity() && in.isProjectedPermutation() && !in.isIdentity();
}

void mlir::xpu::populateXPUElementwiseChainFusionPatterns(
    RewritePatternSet &patterns) {
  linalg::ControlFusionFn control = [](OpOperand *fused) {
    Operation *producer = fused->get().getDefiningOp();
    if (!producer || !producer->hasOneUse())
      return false;
    // A broadcast copy (a bias broadcast to [M, N]) folds into the consumer,
    // which then reads the bias through the broadcasting map: a per_col
    // operand instead of a full one, so BatchNorm folding still applies.
    if (isBroadcastCopy(producer))
      return true;
    // Elementwise work before a reduction belongs in the GEMM epilogue, not
    // in the reduction (xpu-split-gemm-reduction).
    auto consumer = dyn_cast<linalg::GenericOp>(fused->getOwner());
    if (consumer && consumer.getNumReductionLoops() > 0)
      return false;
    llvm::DenseMap<Operation *, bool> memo;
    return dependsOnGemm(fused->get(), memo);
  };
  linalg::populateElementwiseOpsFusionPatterns(patterns, control);
}
