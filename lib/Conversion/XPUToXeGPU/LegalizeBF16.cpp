//===- LegalizeBF16.cpp - bf16 in XeVM kernels as 16-bit integers ---------===//
//
// The SPIR-V that gpu-module-to-binary emits for XeVM kernels (LLVM's SPIR-V
// backend) has no bfloat type without SPV_KHR_bfloat16, which the drivers
// we target do not take: LLVM stops with a fatal error on the first bfloat
// in a kernel. bf16 data only moves through the SIMT kernels of
// xpu-linalg-to-gpu-loops (weights converted at pack time, bf16 results),
// so this pass gives every kernel of a gpu.module (LLVM dialect) 16-bit
// integer loads and stores for bf16 and integer conversions to and from
// f32 (round to nearest even, NaN kept quiet), and rejects, at its
// location, any bf16 value it cannot remove.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUToXeGPU/XPUToXeGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUXEVMLEGALIZEBF16PASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
bool isBF16OrVector(Type type) { return getElementTypeOrSelf(type).isBF16(); }

/// `type` with its bf16 elements replaced by `elt`.
Type withElement(Type type, Type elt) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.clone(elt);
  return elt;
}

/// An integer constant of `type` (a scalar or a splat vector).
Value intConstant(OpBuilder &b, Location loc, Type type, int64_t value) {
  auto elt = cast<IntegerType>(getElementTypeOrSelf(type));
  auto attr = b.getIntegerAttr(elt, value);
  if (auto vector = dyn_cast<VectorType>(type))
    return LLVM::ConstantOp::create(b, loc, type,
                                    SplatElementsAttr::get(vector, attr));
  return LLVM::ConstantOp::create(b, loc, type, attr);
}

/// The value of a bf16 constant (scalar or splat), if `value` is one.
std::optional<APFloat> getConstantBF16(Value value) {
  auto cst = value.getDefiningOp<LLVM::ConstantOp>();
  if (!cst)
    return std::nullopt;
  if (auto f = dyn_cast<FloatAttr>(cst.getValue()))
    return f.getValue();
  if (auto splat = dyn_cast<SplatElementsAttr>(cst.getValue()))
    return splat.getSplatValue<APFloat>();
  return std::nullopt;
}

/// The 16 bits of a bf16 value: a constant's bits directly, else a bitcast.
Value toBits(OpBuilder &b, Location loc, Value value) {
  Type bits = withElement(value.getType(), b.getI16Type());
  if (std::optional<APFloat> f = getConstantBF16(value))
    return intConstant(b, loc, bits, f->bitcastToAPInt().getZExtValue());
  return LLVM::BitcastOp::create(b, loc, bits, value);
}

/// load bf16 -> load i16 + bitcast (folded away by the users below).
struct LoadAsBits final : OpRewritePattern<LLVM::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::LoadOp load,
                                PatternRewriter &rewriter) const override {
    Type type = load.getResult().getType();
    if (!isBF16OrVector(type))
      return rewriter.notifyMatchFailure(load, "not a bf16 load");
    Type bits = withElement(type, rewriter.getI16Type());
    rewriter.modifyOpInPlace(load, [&] { load.getResult().setType(bits); });
    rewriter.setInsertionPointAfter(load);
    auto cast = LLVM::BitcastOp::create(rewriter, load.getLoc(), type,
                                        load.getResult());
    rewriter.replaceAllUsesExcept(load.getResult(), cast.getResult(), cast);
    return success();
  }
};

/// store bf16 -> store of its bits.
struct StoreAsBits final : OpRewritePattern<LLVM::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::StoreOp store,
                                PatternRewriter &rewriter) const override {
    Value value = store.getValue();
    if (!isBF16OrVector(value.getType()))
      return rewriter.notifyMatchFailure(store, "not a bf16 store");
    Value bits = toBits(rewriter, store.getLoc(), value);
    rewriter.modifyOpInPlace(store,
                             [&] { store.getValueMutable().assign(bits); });
    return success();
  }
};

/// fpext bf16 -> f32: the bits in the high half of a 32-bit word.
struct ExtendBits final : OpRewritePattern<LLVM::FPExtOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::FPExtOp ext,
                                PatternRewriter &rewriter) const override {
    Value in = ext.getArg();
    Type out = ext.getResult().getType();
    if (!isBF16OrVector(in.getType()) || !getElementTypeOrSelf(out).isF32())
      return rewriter.notifyMatchFailure(ext, "not bf16 -> f32");
    Location loc = ext.getLoc();
    // A constant is extended exactly at compile time.
    if (std::optional<APFloat> f = getConstantBF16(in)) {
      bool lost = false;
      f->convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
      auto attr = rewriter.getF32FloatAttr(f->convertToFloat());
      if (auto vector = dyn_cast<VectorType>(out))
        rewriter.replaceOpWithNewOp<LLVM::ConstantOp>(
            ext, out, SplatElementsAttr::get(vector, attr));
      else
        rewriter.replaceOpWithNewOp<LLVM::ConstantOp>(ext, out, attr);
      return success();
    }
    Type word = withElement(out, rewriter.getI32Type());
    Value wide =
        LLVM::ZExtOp::create(rewriter, loc, word, toBits(rewriter, loc, in));
    Value shifted = LLVM::ShlOp::create(rewriter, loc, wide,
                                        intConstant(rewriter, loc, word, 16));
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(ext, out, shifted);
    return success();
  }
};

/// fptrunc f32 -> bf16, rounding to nearest even: add 0x7fff plus the
/// lowest kept bit, keep the high half; NaNs become the quiet NaN 0x7fc0
/// (the addition could carry a NaN's payload into infinity).
struct TruncateBits final : OpRewritePattern<LLVM::FPTruncOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::FPTruncOp trunc,
                                PatternRewriter &rewriter) const override {
    Value in = trunc.getArg();
    Type out = trunc.getResult().getType();
    if (!isBF16OrVector(out) || !getElementTypeOrSelf(in.getType()).isF32())
      return rewriter.notifyMatchFailure(trunc, "not f32 -> bf16");
    Location loc = trunc.getLoc();
    Type word = withElement(in.getType(), rewriter.getI32Type());
    Type half = withElement(in.getType(), rewriter.getI16Type());
    auto k = [&](int64_t v) { return intConstant(rewriter, loc, word, v); };
    Value bits = LLVM::BitcastOp::create(rewriter, loc, word, in);
    Value lowestKept = LLVM::AndOp::create(
        rewriter, loc, LLVM::LShrOp::create(rewriter, loc, bits, k(16)), k(1));
    Value bias = LLVM::AddOp::create(rewriter, loc, lowestKept, k(0x7fff));
    Value rounded = LLVM::LShrOp::create(
        rewriter, loc, LLVM::AddOp::create(rewriter, loc, bits, bias), k(16));
    Value isNaN =
        LLVM::FCmpOp::create(rewriter, loc, LLVM::FCmpPredicate::uno, in, in);
    Value result =
        LLVM::SelectOp::create(rewriter, loc, isNaN, k(0x7fc0), rounded);
    Value truncated = LLVM::TruncOp::create(rewriter, loc, half, result);
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(trunc, out, truncated);
    return success();
  }
};

/// select on bf16 -> select on the bits.
struct SelectBits final : OpRewritePattern<LLVM::SelectOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::SelectOp select,
                                PatternRewriter &rewriter) const override {
    Type type = select.getResult().getType();
    if (!isBF16OrVector(type))
      return rewriter.notifyMatchFailure(select, "not a bf16 select");
    Location loc = select.getLoc();
    Value bits =
        LLVM::SelectOp::create(rewriter, loc, select.getCondition(),
                               toBits(rewriter, loc, select.getTrueValue()),
                               toBits(rewriter, loc, select.getFalseValue()));
    rewriter.replaceOpWithNewOp<LLVM::BitcastOp>(select, type, bits);
    return success();
  }
};

/// Addresses of bf16 elements computed as addresses of i16 (same size).
struct GEPOnBits final : OpRewritePattern<LLVM::GEPOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::GEPOp gep,
                                PatternRewriter &rewriter) const override {
    Type elt = gep.getElemType();
    if (!isBF16OrVector(elt))
      return rewriter.notifyMatchFailure(gep, "not a bf16 element");
    rewriter.modifyOpInPlace(
        gep, [&] { gep.setElemType(withElement(elt, rewriter.getI16Type())); });
    return success();
  }
};

/// bitcast(bitcast(x)) -> x for the pairs the patterns above leave.
struct FoldBitcastPair final : OpRewritePattern<LLVM::BitcastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::BitcastOp cast,
                                PatternRewriter &rewriter) const override {
    auto inner = cast.getArg().getDefiningOp<LLVM::BitcastOp>();
    if (!inner || inner.getArg().getType() != cast.getResult().getType())
      return rewriter.notifyMatchFailure(cast, "not a round trip");
    rewriter.replaceOp(cast, inner.getArg());
    return success();
  }
};

/// bf16 block arguments (values carried by branches: loop accumulators)
/// become i16, with bitcasts where the branches pass them and where the
/// block uses them.
void carryBitsThroughBranches(Operation *root) {
  SmallVector<BlockArgument> args;
  root->walk([&](Block *block) {
    if (block->isEntryBlock())
      return;
    for (BlockArgument arg : block->getArguments())
      if (isBF16OrVector(arg.getType()))
        args.push_back(arg);
  });
  OpBuilder b(root->getContext());
  for (BlockArgument arg : args) {
    Block *block = arg.getOwner();
    Type type = arg.getType();
    for (Block *pred : block->getPredecessors()) {
      auto branch = dyn_cast<BranchOpInterface>(pred->getTerminator());
      if (!branch)
        continue;
      for (auto [i, succ] : llvm::enumerate(branch->getSuccessors())) {
        if (succ != block)
          continue;
        SuccessorOperands operands = branch.getSuccessorOperands(i);
        unsigned produced = operands.getProducedOperandCount();
        if (arg.getArgNumber() < produced)
          continue;
        OpOperand &operand =
            operands
                .getMutableForwardedOperands()[arg.getArgNumber() - produced];
        b.setInsertionPoint(branch);
        operand.set(toBits(b, branch.getLoc(), operand.get()));
      }
    }
    arg.setType(withElement(type, b.getI16Type()));
    b.setInsertionPointToStart(block);
    auto cast = LLVM::BitcastOp::create(b, arg.getLoc(), type, arg);
    arg.replaceAllUsesExcept(cast.getResult(), cast);
  }
}

struct XeVMLegalizeBF16Pass final
    : xpu::impl::XPUXeVMLegalizeBF16PassBase<XeVMLegalizeBF16Pass> {
  void runOnOperation() override {
    carryBitsThroughBranches(getOperation());
    RewritePatternSet patterns(&getContext());
    mlir::xpu::populateXPUXeVMLegalizeBF16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // What is left would stop LLVM's SPIR-V backend without a location.
    WalkResult left = getOperation()->walk([&](Operation *op) {
      auto hasBF16 = [](Type t) { return isBF16OrVector(t); };
      if (auto func = dyn_cast<LLVM::LLVMFuncOp>(op)) {
        if (llvm::none_of(func.getArgumentTypes(), hasBF16) &&
            llvm::none_of(func.getResultTypes(), hasBF16))
          return WalkResult::advance();
        func.emitError() << "xpu-xevm-legalize-bf16: @" << func.getName()
                         << " takes or returns bf16 values: SPIR-V for "
                            "Intel GPUs has no bfloat type";
        return WalkResult::interrupt();
      }
      auto gep = dyn_cast<LLVM::GEPOp>(op);
      if (llvm::none_of(op->getResultTypes(), hasBF16) &&
          llvm::none_of(op->getOperandTypes(), hasBF16) &&
          !(gep && hasBF16(gep.getElemType())))
        return WalkResult::advance();
      // Casts between bits and bf16 are only bridges: what remains is the
      // op that uses their bf16 value (dead constants go with their users).
      if (isa<LLVM::BitcastOp>(op) ||
          (isa<LLVM::ConstantOp>(op) && op->use_empty()))
        return WalkResult::advance();
      op->emitError() << "xpu-xevm-legalize-bf16: '" << op->getName()
                      << "' on bf16 in an XeVM kernel: only bf16 loads, "
                         "stores and conversions from and to f32 have a "
                         "16-bit integer form (SPIR-V for Intel GPUs has no "
                         "bfloat type)";
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

void mlir::xpu::populateXPUXeVMLegalizeBF16Patterns(
    RewritePatternSet &patterns) {
  patterns.add<LoadAsBits, StoreAsBits, ExtendBits, TruncateBits, SelectBits,
               GEPOnBits, FoldBitcastPair>(patterns.getContext());
}
