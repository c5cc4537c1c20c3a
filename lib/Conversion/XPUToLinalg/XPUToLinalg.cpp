//===- XPUToLinalg.cpp - xpu.gemm -> linalg on tensors --------------------===//

#include "xpu/Conversion/XPUToLinalg/XPUToLinalg.h"
#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPULOWERTOLINALGPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
/// The matmul indexing maps over (b?, m, n, k) for the rhs layout.
SmallVector<AffineMap> getContractionMaps(bool batched, RhsLayout layout,
                                          MLIRContext *ctx) {
  unsigned b = batched ? 1 : 0, n = 3 + b;
  auto map = [&](std::initializer_list<unsigned> pos) {
    SmallVector<AffineExpr> exprs;
    if (batched)
      exprs.push_back(getAffineDimExpr(0, ctx));
    for (unsigned p : pos)
      exprs.push_back(getAffineDimExpr(p + b, ctx));
    return AffineMap::get(n, 0, exprs, ctx);
  };
  enum { M = 0, N = 1, K = 2 };
  return {map({M, K}), layout == RhsLayout::kn ? map({K, N}) : map({N, K}),
          map({M, N})};
}

struct GemmToLinalg final : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = op.getContext();
    RankedTensorType resType = op.getResultType();
    Type accType = op.getAccType();
    auto accTensorType = RankedTensorType::get(resType.getShape(), accType);

    // A dynamic batch or m dimension is the lhs's.
    SmallVector<OpFoldResult> sizes = op.getMixedResultSizes(rewriter, loc);
    Value empty = tensor::EmptyOp::create(rewriter, loc, sizes, accType);
    Value zero = arith::ConstantOp::create(rewriter, loc, accType,
                                           rewriter.getZeroAttr(accType));
    Value acc = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);

    SmallVector<Attribute> maps;
    for (AffineMap m :
         getContractionMaps(op.isBatched(), op.getRhsLayout(), ctx))
      maps.push_back(AffineMapAttr::get(m));
    NamedAttribute mapsAttr(rewriter.getStringAttr("indexing_maps"),
                            rewriter.getArrayAttr(maps));
    SmallVector<NamedAttribute> attrs{mapsAttr};
    // The CPU tiles of this GEMM (xpu-cpu-apply-tuning-db) go with it to
    // the CPU pipeline's matmul passes.
    if (Attribute tiles = op->getAttr(XPUDialect::getCpuTilesAttrName()))
      attrs.push_back(
          rewriter.getNamedAttr(XPUDialect::getCpuTilesAttrName(), tiles));
    SmallVector<Value> inputs{adaptor.getLhs(), adaptor.getRhs()};
    Value product;
    if (op.isBatched())
      product = linalg::BatchMatmulOp::create(rewriter, loc, accTensorType,
                                              inputs, acc, attrs)
                    .getResult(0);
    else
      product = linalg::MatmulOp::create(rewriter, loc, accTensorType, inputs,
                                         acc, attrs)
                    .getResult(0);

    if (op.hasIdentityEpilogue() && accType == resType.getElementType()) {
      rewriter.replaceOp(op, product);
      return success();
    }

    // The epilogue: one elementwise linalg.generic over (b?, m, n).
    unsigned rank = resType.getRank();
    SmallVector<Value> genericInputs{product};
    SmallVector<AffineMap> genericMaps{
        AffineMap::getMultiDimIdentityMap(rank, ctx)};
    for (auto [i, v] : llvm::enumerate(adaptor.getEpilogueOperands())) {
      genericInputs.push_back(v);
      genericMaps.push_back(
          getEpilogueBroadcastMap(op.getBroadcastKind(i), rank, ctx));
    }
    genericMaps.push_back(AffineMap::getMultiDimIdentityMap(rank, ctx));
    Value out =
        tensor::EmptyOp::create(rewriter, loc, sizes, resType.getElementType());
    SmallVector<utils::IteratorType> iterators(rank,
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(rewriter, loc, TypeRange{resType},
                                             genericInputs, ValueRange{out},
                                             genericMaps, iterators);
    // Move the epilogue block in and add the output element argument that
    // linalg.generic bodies take last.
    Region &body = generic.getRegion();
    rewriter.inlineRegionBefore(op.getEpilogue(), body, body.end());
    Block &block = body.front();
    block.addArgument(resType.getElementType(), loc);
    auto yield = cast<YieldOp>(block.getTerminator());
    rewriter.setInsertionPoint(yield);
    rewriter.replaceOpWithNewOp<linalg::YieldOp>(yield, yield.getValue());
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

struct LowerToLinalgPass final
    : xpu::impl::XPULowerToLinalgPassBase<LowerToLinalgPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    int64_t count = 0;
    getOperation()->walk([&](GemmOp) { ++count; });
    ConversionTarget target(*ctx);
    target.addIllegalDialect<XPUDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateXPUToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    numLowered += count;
  }
};
} // namespace

void mlir::xpu::populateXPUToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<GemmToLinalg>(patterns.getContext());
}
