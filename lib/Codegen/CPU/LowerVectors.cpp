//===- LowerVectors.cpp - n-D vector ops down to 1-D ----------------------===//
//
// Lowers the n-D vector ops of the CPU micro-kernels (vector.contract,
// n-D transfers, masks, broadcasts, shape casts, transposes) to 1-D vector
// ops in stages, the way upstream's CPU matmul recipes do, so that
// convert-vector-to-llvm only sees 1-D vectors. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Codegen/Passes.h"
#include "xpu/Dialect/XPU/Utils/VectorLimits.h"

#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPULOWERVECTORSPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
/// A transpose of 16-bit values that keeps an innermost dimension of 2 in
/// place (the pair-dot packing of bf16 k pairs) as a transpose of 32-bit
/// words: vector<...xNx2xbf16> cast to vector<...x2Nxbf16>, bitcast to
/// vector<...xNxi32>, the words transposed, and back. The 32-bit transpose
/// is then split into 8 x 8 blocks like the f32 packing's.
struct TransposePairsAsWords final : OpRewritePattern<vector::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    VectorType type = op.getSourceVectorType();
    ArrayRef<int64_t> perm = op.getPermutation();
    int64_t rank = type.getRank();
    if (rank < 3 || type.isScalable() || type.getShape().back() != 2 ||
        type.getElementTypeBitWidth() != 16 || perm.back() != rank - 1)
      return failure();
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type(), elt = type.getElementType();
    // [..., n, 2] x 16 bits <-> [..., n] x 32 bits, through [..., 2 n].
    auto toWords = [&](Value v, ArrayRef<int64_t> shape) -> Value {
      SmallVector<int64_t> merged(shape.drop_back(2));
      merged.push_back(shape[shape.size() - 2] * 2);
      Value flat = vector::ShapeCastOp::create(rewriter, loc,
                                               VectorType::get(merged, elt), v);
      merged.back() /= 2;
      return vector::BitCastOp::create(rewriter, loc,
                                       VectorType::get(merged, i32), flat);
    };
    Value words = toWords(op.getVector(), type.getShape());
    Value transposed =
        vector::TransposeOp::create(rewriter, loc, words, perm.drop_back());
    auto wordsType = cast<VectorType>(transposed.getType());
    SmallVector<int64_t> pairs(wordsType.getShape());
    pairs.back() *= 2;
    Value asPairs = vector::BitCastOp::create(
        rewriter, loc, VectorType::get(pairs, elt), transposed);
    rewriter.replaceOpWithNewOp<vector::ShapeCastOp>(
        op, op.getResultVectorType(), asPairs);
    return success();
  }
};

/// Whether the flatten patterns may look at `transfer`. They reject every
/// transfer that is not a minor identity, but only after
/// vector::isContiguousSlice, which LLVM 22 gets wrong in two cases: a
/// vector of one element (it compares `drop_front()` of the empty shape
/// left after dropping the unit dimensions: a negative-size memcmp) and a
/// broadcast to more dimensions than the memref has (it asks for more
/// trailing strides than there are). Neither is a transfer to flatten.
bool mayFlatten(VectorTransferOpInterface transfer) {
  VectorType type = transfer.getVectorType();
  return type.getRank() > 1 && type.getNumElements() > 1 &&
         transfer.getPermutationMap().isMinorIdentity();
}

struct LowerVectorsPass final
    : xpu::impl::XPUCPULowerVectorsPassBase<LowerVectorsPass> {
  using Base::Base;

  /// Applies the patterns that `populate` adds, plus the vector
  /// canonicalizations, until a fixed point.
  LogicalResult applyStage(function_ref<void(RewritePatternSet &)> populate) {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    populate(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::ContractionOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    vector::BroadcastOp::getCanonicalizationPatterns(patterns, ctx);
    vector::ShapeCastOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransposeOp::getCanonicalizationPatterns(patterns, ctx);
    vector::CreateMaskOp::getCanonicalizationPatterns(patterns, ctx);
    vector::MaskOp::getCanonicalizationPatterns(patterns, ctx);
    return applyPatternsGreedily(getOperation(), std::move(patterns));
  }

  void runOnOperation() override {
    // The stages below unroll n-D vectors into 1-D ones: a vector of 2^40
    // rows (hand-written input) would never finish.
    if (failed(xpu::checkVectorSizes(getOperation(), xpu::kMaxVectorElements,
                                     getArgument())))
      return signalPassFailure();
    // 0. The pair-dot packing's writes of rows of pairs (trailing
    //    dimension 2 x 16 bits) as one contiguous 1-D store instead of a
    //    store per pair, before the unit dimensions go (the stores of
    //    packed panels have a leading unit dimension).
    //    Only the transfers that `mayFlatten` admits are given to the
    //    patterns (docs/KnownIssues.md), and only once: the flattened ones
    //    are 1-D, and the permutation-map lowerings (which make transfers
    //    of one element out of broadcasts) wait for stage 1.
    {
      RewritePatternSet patterns(&getContext());
      vector::populateFlattenVectorTransferPatterns(
          patterns, /*targetVectorBitwidth=*/8192);
      SmallVector<Operation *> transfers;
      getOperation()->walk([&](VectorTransferOpInterface op) {
        if (mayFlatten(op))
          transfers.push_back(op);
      });
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingOps);
      if (failed(
              applyOpPatternsGreedily(transfers, std::move(patterns), config)))
        return signalPassFailure();
    }

    // 1. Masks of transfers folded into them; transfers with permutation
    //    maps turned into minor identities; leading unit dims (the [1, 16]
    //    rows of elementwise tiles, the [4, 1] lhs column) cast away.
    if (failed(applyStage([](RewritePatternSet &patterns) {
          vector::populateVectorMaskLoweringPatternsForSideEffectingOps(
              patterns);
          vector::populateCastAwayVectorLeadingOneDimPatterns(patterns);
          // The unit k0 dimension of the packed GEMM's operands, inside
          // elementwise ops (the extf of 16-bit operands) and transfers.
          vector::populateDropUnitDimWithShapeCastPatterns(patterns);
          vector::populateVectorTransferDropUnitDimsPatterns(patterns);
          // The pair-dot packing's transposes of bf16 pairs as 32-bit words
          // (2-D once the leading unit dimensions are gone, which stage 5
          // splits into 8 x 8 blocks).
          patterns.add<TransposePairsAsWords>(patterns.getContext());
        })))
      return signalPassFailure();

    // 2. vector.contract -> vector.outerproduct, one per k element.
    if (failed(applyStage([](RewritePatternSet &patterns) {
          vector::populateVectorContractLoweringPatterns(
              patterns, vector::VectorContractLowering::OuterProduct);
        })))
      return signalPassFailure();

    // 3. vector.outerproduct -> broadcast + 1-D vector.fma rows; n-D
    //    reductions, broadcasts and masks to 1-D ops.
    if (failed(applyStage([](RewritePatternSet &patterns) {
          vector::populateVectorOuterProductLoweringPatterns(patterns);
          // Elements of a vector read (the lhs panel's mr values) become
          // scalar loads, which the FMAs take as broadcast memory operands.
          vector::populateScalarVectorTransferLoweringPatterns(
              patterns, /*benefit=*/1, /*allowMultipleUses=*/true);
          vector::populateVectorMultiReductionLoweringPatterns(
              patterns, vector::VectorMultiReductionLowering::InnerParallel);
          vector::populateVectorBroadcastLoweringPatterns(patterns);
          vector::populateVectorMaskOpLoweringPatterns(patterns);
        })))
      return signalPassFailure();

    // 4. Transfers unrolled to rank 1, rank-1 transfers to plain or masked
    //    loads and stores.
    if (failed(applyStage([](RewritePatternSet &patterns) {
          populateVectorToSCFConversionPatterns(
              patterns,
              VectorTransferToSCFOptions().enableFullUnroll().setTargetRank(1));
          vector::populateVectorTransferLoweringPatterns(patterns,
                                                         /*maxTransferRank=*/1);
          vector::populateVectorMaskOpLoweringPatterns(patterns);
        })))
      return signalPassFailure();

    // 5. What is left of the n-D shapes: shape casts, transposes,
    //    broadcasts and strided slices, down to 1-D shuffles, extracts and
    //    inserts. The packing transposes (32 x 8 blocks of a weight, 14 x 8
    //    of the lhs) are first split into 8 x 8 blocks, each one shuffle:
    //    one shuffle of the whole block (256 lanes) or a shuffle per
    //    element made LLVM's instruction selection take most of a model's
    //    compile time.
    if (failed(applyStage([](RewritePatternSet &patterns) {
          vector::populateVectorUnrollPatterns(
              patterns,
              vector::UnrollVectorOptions()
                  .setFilterConstraint([](Operation *op) {
                    return success(isa<vector::TransposeOp>(op));
                  })
                  .setNativeShapeFn(
                      [](Operation *op) -> std::optional<SmallVector<int64_t>> {
                        auto type =
                            cast<vector::TransposeOp>(op).getSourceVectorType();
                        if (type.getRank() != 2)
                          return std::nullopt;
                        return SmallVector<int64_t>{
                            std::min<int64_t>(type.getDimSize(0), 8),
                            std::min<int64_t>(type.getDimSize(1), 8)};
                      }));
        })))
      return signalPassFailure();
    if (failed(applyStage([](RewritePatternSet &patterns) {
          vector::populateVectorShapeCastLoweringPatterns(patterns);
          // The pair-dot lhs packing views 16-bit pairs as 32-bit words.
          vector::populateVectorBitCastLoweringPatterns(patterns);
          vector::populateVectorTransposeLoweringPatterns(
              patterns, vector::VectorTransposeLowering::Shuffle1D);
          vector::populateVectorBroadcastLoweringPatterns(patterns);
          vector::populateVectorInsertExtractStridedSliceDecompositionPatterns(
              patterns);
          vector::populateVectorMaskOpLoweringPatterns(patterns);
        })))
      return signalPassFailure();
  }
};
} // namespace
