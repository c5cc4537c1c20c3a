//===- OutlineWeightPack.cpp - weight-only computation -> <fn>.pack -------===//
//
// Catalog: dtype_prepack_bf16 (pack time), model_class_pattern
// (`_pack_weights`), mem_wrapper_one_time_device_moves.
//
// A model's forward function takes its inputs and its parameters, the
// latter marked `xpu.weight`. Whatever depends only on parameters
// (transposes, bf16 conversions, BatchNorm folded into the weights, ...) is
// the same for every call: it moves into `@fn.pack(weights) -> packed`,
// which a runtime calls once per weight set, and the rest into
// `@fn.packed(inputs, weights read as they are, packed) -> results`. `@fn`
// keeps its signature and calls both, so it still computes the same thing.
//
// Packing is a promise about weights only: a runtime that packs once and
// then feeds new inputs must never find an activation in `.pack`. So only
// marked arguments are weights; a function without marks (`a @ b` exported
// from a module without parameters: both operands are inputs) is left
// whole. Callers still repack when any operand of `.pack` changes.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUOUTLINEWEIGHTPACKPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-outline-weight-pack";

namespace {
/// What a value depends on, ordered so that the maximum of the operands'
/// classes is the class of an op's results.
enum class Dep { Constant = 0, Weight = 1, Input = 2 };

/// True if `op` can run at pack time: no side effects, or a linalg op on
/// tensors whose body only asserts (torch-mlir guards 1/sqrt(var + eps) with
/// cf.assert; checking it once at pack time is as good).
bool isMovable(Operation *op) {
  if (isMemoryEffectFree(op))
    return true;
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || !linalgOp.hasPureTensorSemantics())
    return false;
  WalkResult r = op->walk([&](Operation *nested) {
    if (nested == op || isa<cf::AssertOp>(nested) ||
        nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        isMemoryEffectFree(nested))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !r.wasInterrupted();
}

std::string joinIndices(ArrayRef<unsigned> indices) {
  if (indices.empty())
    return "none";
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleaveComma(indices, os, [&](unsigned i) { os << "#" << i; });
  return s;
}

struct OutlineWeightPackPass final
    : xpu::impl::XPUOutlineWeightPackPassBase<OutlineWeightPackPass> {
  using Base::Base;

  void runOnOperation() override {
    if (weights != "auto" && weights != "marked") {
      getOperation().emitError()
          << "xpu-outline-weight-pack: weights must be 'auto' or 'marked' "
             "(both: the arguments marked xpu.weight), got '"
          << weights << "'";
      return signalPassFailure();
    }
    if (weights == "auto")
      getOperation().emitWarning()
          << "xpu-outline-weight-pack: weights=auto is deprecated, it means "
             "weights=marked (the arguments marked xpu.weight)";
    SymbolTable symbols(getOperation());
    SmallVector<func::FuncOp> funcs;
    for (auto fn : getOperation().getOps<func::FuncOp>()) {
      // Private functions are helpers, and the .pack/.packed parts of an
      // earlier run are already split: their callers decide what is a
      // weight.
      if (fn.isDeclaration() || !fn.isPublic() ||
          fn->hasAttr(XPUDialect::getPackPartAttrName()))
        continue;
      if (llvm::none_of(fn.getArgumentTypes(), llvm::IsaPred<TensorType>))
        continue;
      funcs.push_back(fn);
    }
    for (func::FuncOp fn : funcs)
      outline(fn, symbols);
  }

  /// Indices of the weight arguments of `fn`: the marked ones (auto and
  /// marked alike; an unmarked argument may be an activation).
  SmallVector<unsigned> weightArgs(func::FuncOp fn) {
    SmallVector<unsigned> marked;
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      if (fn.getArgAttr(i, XPUDialect::getWeightAttrName()))
        marked.push_back(i);
    return marked;
  }

  void missed(func::FuncOp fn, const Twine &why) {
    remark::missed(fn.getLoc(), remarkOpts(kPassArg, "NotOutlined"))
        << remark::reason("@{0}: {1}", fn.getSymName(), why.str());
  }

  void outline(func::FuncOp fn, SymbolTable &symbols);
};

void OutlineWeightPackPass::outline(func::FuncOp fn, SymbolTable &symbols) {
  MLIRContext *ctx = &getContext();
  SmallVector<unsigned> weightIdx = weightArgs(fn);
  if (weightIdx.empty()) {
    missed(fn, "the function has no weights (no argument is marked "
               "xpu.weight; an unmarked argument may be an activation)");
    return;
  }
  if (!fn.getBody().hasOneBlock()) {
    missed(fn, llvm::formatv("the body has {0} blocks; only single-block "
                             "functions are outlined",
                             llvm::range_size(fn.getBody())));
    return;
  }
  Block &body = fn.getBody().front();
  llvm::DenseSet<unsigned> isWeight(weightIdx.begin(), weightIdx.end());
  SmallVector<unsigned> inputIdx;
  for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
    if (!isWeight.contains(i))
      inputIdx.push_back(i);

  // Classify every value of the body.
  llvm::DenseMap<Value, Dep> dep;
  for (BlockArgument arg : body.getArguments())
    dep[arg] = isWeight.contains(arg.getArgNumber()) ? Dep::Weight : Dep::Input;
  llvm::DenseMap<Operation *, Dep> opDep;
  for (Operation &op : body.without_terminator()) {
    Dep d = Dep::Constant;
    llvm::SetVector<Value> used(op.getOperands().begin(),
                                op.getOperands().end());
    getUsedValuesDefinedAbove(op.getRegions(), used);
    for (Value v : used)
      d = std::max(d, dep.lookup(v));
    if (d != Dep::Input && !isMovable(&op))
      d = Dep::Input;
    opDep[&op] = d;
    for (Value r : op.getResults())
      dep[r] = d;
  }

  // Views (reshapes, casts, slices) of weights compute nothing. Returning
  // such a view from pack would return an alias of an argument, or a copy
  // that loses what the view hides (the row pitch and the panels of
  // xpu-materialize-layouts). Like constants, they are cloned where they are
  // read, and pack returns what they view.
  llvm::DenseSet<Operation *> argViews;
  for (Operation &op : body.without_terminator()) {
    if (opDep[&op] != Dep::Weight ||
        !isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::CastOp,
             tensor::ExtractSliceOp, tensor::ReshapeOp>(op))
      continue;
    argViews.insert(&op);
  }

  // What stays in packed: the ops on inputs, the terminator, and the
  // constants and views they read.
  llvm::DenseSet<Operation *> needed;
  for (Operation &op : llvm::reverse(body)) {
    Dep d = opDep.lookup(&op);
    bool cloneable = d == Dep::Constant || argViews.contains(&op);
    if (op.hasTrait<OpTrait::IsTerminator>() || d == Dep::Input ||
        (cloneable && llvm::any_of(op.getUsers(), [&](Operation *user) {
           return needed.contains(body.findAncestorOpInBlock(*user));
         })))
      needed.insert(&op);
  }
  auto readByRest = [&](Value v) {
    return llvm::any_of(v.getUsers(), [&](Operation *user) {
      return needed.contains(body.findAncestorOpInBlock(*user));
    });
  };

  // The weight-only ops and what packed reads: the results of weight-only
  // ops (returned by pack) and weight arguments as they are (passed to
  // packed directly).
  SmallVector<Operation *> weightOps;
  llvm::SetVector<Value> packResults;
  SmallVector<unsigned> passthroughIdx;
  for (unsigned i : weightIdx)
    if (readByRest(body.getArgument(i)))
      passthroughIdx.push_back(i);
  for (Operation &op : body.without_terminator()) {
    if (opDep[&op] != Dep::Weight || argViews.contains(&op))
      continue;
    weightOps.push_back(&op);
    for (Value r : op.getResults())
      if (readByRest(r))
        packResults.insert(r);
  }
  if (weightOps.empty()) {
    missed(fn, llvm::formatv("no computation depends only on the weights "
                             "(args {0})",
                             joinIndices(weightIdx)));
    return;
  }
  if (packResults.empty()) {
    missed(fn, "the computation on the weights is not used");
    return;
  }
  std::string packName = (fn.getSymName() + ".pack").str();
  std::string packedName = (fn.getSymName() + ".packed").str();
  for (StringRef name : {StringRef(packName), StringRef(packedName)}) {
    if (symbols.lookup(name)) {
      missed(fn, llvm::formatv("the symbol @{0} already exists", name));
      return;
    }
  }

  // The constants and views the weight-only ops read (transitively) are
  // cloned into pack.
  llvm::DenseSet<Operation *> toPack(weightOps.begin(), weightOps.end());
  SmallVector<Operation *> worklist(weightOps.begin(), weightOps.end());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    llvm::SetVector<Value> used(op->getOperands().begin(),
                                op->getOperands().end());
    getUsedValuesDefinedAbove(op->getRegions(), used);
    for (Value v : used) {
      Operation *def = v.getDefiningOp();
      if (def && def->getBlock() == &body && toPack.insert(def).second)
        worklist.push_back(def);
    }
  }

  Location loc = fn.getLoc();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(fn);
  auto argTypes = [&](ArrayRef<unsigned> indices) {
    return llvm::map_to_vector(
        indices, [&](unsigned i) { return fn.getArgumentTypes()[i]; });
  };
  SmallVector<Type> resultTypes =
      llvm::map_to_vector(packResults, [](Value v) { return v.getType(); });

  // The parts keep the arguments' attributes but not the weight marks: the
  // parts are split already, and their C wrappers (llvm.emit_c_interface)
  // would carry the marks onto pointers, which are no weights.
  auto partArgAttrs = [&](unsigned i) {
    NamedAttrList attrs(fn.getArgAttrDict(i));
    attrs.erase(XPUDialect::getWeightAttrName());
    return attrs.getDictionary(ctx);
  };

  // @fn.pack(weights) -> packed.
  auto packFn = func::FuncOp::create(
      b, loc, packName,
      FunctionType::get(ctx, argTypes(weightIdx), resultTypes));
  // Public, with a C interface: a runtime calls pack once per weight set
  // and packed for every input.
  packFn->setAttr(XPUDialect::getPackPartAttrName(), b.getStringAttr("pack"));
  packFn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                  b.getUnitAttr());
  for (auto [pos, i] : llvm::enumerate(weightIdx))
    packFn.setArgAttrs(pos, partArgAttrs(i));
  {
    Block *entry = packFn.addEntryBlock();
    OpBuilder pb = OpBuilder::atBlockEnd(entry);
    IRMapping map;
    for (auto [pos, i] : llvm::enumerate(weightIdx))
      map.map(body.getArgument(i), entry->getArgument(pos));
    for (Operation &op : body.without_terminator())
      if (toPack.contains(&op))
        pb.clone(op, map);
    SmallVector<Value> results = llvm::map_to_vector(
        packResults, [&](Value v) { return map.lookup(v); });
    func::ReturnOp::create(pb, loc, results);
  }
  symbols.insert(packFn);

  // @fn.packed(inputs, weights read as they are, packed) -> results.
  SmallVector<unsigned> packedArgIdx(inputIdx);
  llvm::append_range(packedArgIdx, passthroughIdx);
  SmallVector<Type> packedArgTypes = argTypes(packedArgIdx);
  llvm::append_range(packedArgTypes, resultTypes);
  b.setInsertionPointAfter(packFn);
  auto packedFn = func::FuncOp::create(
      b, loc, packedName,
      FunctionType::get(ctx, packedArgTypes, fn.getResultTypes()));
  packedFn->setAttr(XPUDialect::getPackPartAttrName(),
                    b.getStringAttr("packed"));
  packedFn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    b.getUnitAttr());
  for (auto [pos, i] : llvm::enumerate(packedArgIdx))
    packedFn.setArgAttrs(pos, partArgAttrs(i));
  {
    Block *entry = packedFn.addEntryBlock();
    OpBuilder pb = OpBuilder::atBlockEnd(entry);
    IRMapping map;
    for (auto [pos, i] : llvm::enumerate(packedArgIdx))
      map.map(body.getArgument(i), entry->getArgument(pos));
    for (auto [pos, v] : llvm::enumerate(packResults))
      map.map(v, entry->getArgument(packedArgIdx.size() + pos));
    for (Operation &op : body)
      if (needed.contains(&op))
        pb.clone(op, map);
  }
  symbols.insert(packedFn);

  // @fn calls both and keeps its signature.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body))) {
    op.dropAllUses();
    op.erase();
  }
  OpBuilder fb = OpBuilder::atBlockEnd(&body);
  auto args = [&](ArrayRef<unsigned> indices) {
    return llvm::map_to_vector(
        indices, [&](unsigned i) -> Value { return body.getArgument(i); });
  };
  auto packCall = func::CallOp::create(fb, loc, packFn, args(weightIdx));
  SmallVector<Value> packedArgs = args(packedArgIdx);
  llvm::append_range(packedArgs, packCall.getResults());
  auto packedCall = func::CallOp::create(fb, loc, packedFn, packedArgs);
  func::ReturnOp::create(fb, loc, packedCall.getResults());

  ++numOutlined;
  std::string passthrough =
      passthroughIdx.empty()
          ? std::string()
          : llvm::formatv(", the weights it reads as they are (args {0})",
                          joinIndices(passthroughIdx))
                .str();
  remark::passed(loc, remarkOpts(kPassArg, "Outlined")) << remark::reason(
      "@{0}: moved {1} op(s) that depend only on the weights (args "
      "{2}) into @{3}, which returns {4} packed value(s); @{5} takes "
      "the inputs (args {6}){7} and the packed values",
      fn.getSymName(), weightOps.size(), joinIndices(weightIdx), packName,
      packResults.size(), packedName, joinIndices(inputIdx), passthrough);
}
} // namespace
