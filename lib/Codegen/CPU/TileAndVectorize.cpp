//===- TileAndVectorize.cpp - CPU GEMM and epilogue tiling ----------------===//
//
// The CPU strategy: pack an [n, k] rhs to [k, n], tile the GEMM for the
// caches and then for registers, and vectorize the register tile; tile and
// vectorize elementwise ops. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Codegen/Passes.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPUTILEANDVECTORIZEPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-cpu-tile-and-vectorize";
static constexpr int64_t kCacheLineBytes = 64;
static constexpr int64_t kPadRowBytes = 1024;
static constexpr int64_t kPackTile = 8;

namespace {
/// Tiles `op` by `sizes` with loops in `interchange` order and replaces it.
/// Returns the tiled op. A size that covers its whole static dimension is
/// not tiled, so that the tile keeps a static shape.
FailureOr<Operation *> tile(RewriterBase &rewriter, TilingInterface op,
                            ArrayRef<int64_t> tileSizes,
                            ArrayRef<int64_t> interchange) {
  SmallVector<int64_t> sizes(tileSizes);
  SmallVector<int64_t> bounds =
      cast<linalg::LinalgOp>(op.getOperation()).getStaticLoopRanges();
  for (auto [size, bound] : llvm::zip(sizes, bounds))
    if (!ShapedType::isDynamic(bound) && size >= bound)
      size = 0;
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  if (!interchange.empty())
    options.setInterchange(interchange);
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, op, options);
  if (failed(result) || result->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(op, result->replacements);
  return result->tiledOps.front();
}

/// Vectorizes `op` with `sizes` (masking partial tiles) and replaces it.
LogicalResult vectorize(RewriterBase &rewriter, Operation *op,
                        ArrayRef<int64_t> sizes) {
  rewriter.setInsertionPoint(op);
  // One flag per vector size: an empty list would be read out of bounds.
  SmallVector<bool> scalableDims(sizes.size(), false);
  FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
      rewriter, op, sizes, scalableDims,
      /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
      /*assumeDynamicDimsMatchVecSizes=*/false,
      /*createNamedContraction=*/true);
  if (failed(result))
    return failure();
  if (op->getNumResults() == 0)
    rewriter.eraseOp(op);
  else
    rewriter.replaceOp(op, result->replacements);
  return success();
}

/// If the rhs of `op` is read as [b?, n, k], packs it into [b?, k, n] with a
/// linalg.transpose and returns the matmul rebuilt with default maps.
/// The packing transpose, if any, is appended to `packs`.
linalg::LinalgOp packTransposedRhs(RewriterBase &rewriter, linalg::LinalgOp op,
                                   SmallVectorImpl<linalg::LinalgOp> &packs) {
  bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
  SmallVector<AffineMap> defaults =
      batched ? linalg::BatchMatmulOp::getDefaultIndexingMaps(op->getContext())
              : linalg::MatmulOp::getDefaultIndexingMaps(op->getContext());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps == defaults)
    return op;
  // Only the transposed-rhs form is packed; other maps keep the op as is.
  if (maps[0] != defaults[0] || maps[2] != defaults[2])
    return op;
  Value rhs = op.getDpsInputOperand(1)->get();
  auto rhsType = cast<RankedTensorType>(rhs.getType());
  int64_t rank = rhsType.getRank();
  // A broadcast rhs ([k] or [b, k, n] read through fewer dims) is not a
  // transposed one.
  if (rank < 2 || rank != defaults[1].getNumResults() ||
      maps[1].getNumResults() != rank)
    return op;
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  SmallVector<int64_t> packedShape = applyPermutation(rhsType.getShape(), perm);
  AffineMap transposedRhs = AffineMap::getPermutationMap(
      SmallVector<unsigned>(perm.begin(), perm.end()), op->getContext());
  if (maps[1] != transposedRhs.compose(defaults[1]))
    return op;
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  // Rows of the packed rhs whose byte stride is a multiple of 1 KiB map to
  // a few L1 sets only, so the k loop of the micro-kernel (one row of B per
  // step) would evict its own B panel; one cache line of padding per row
  // spreads them over all the sets.
  SmallVector<int64_t> allocShape(packedShape);
  int64_t elementBytes =
      llvm::divideCeil(rhsType.getElementTypeBitWidth(), int64_t(8));
  int64_t rowBytes = packedShape.back() * elementBytes;
  if (rowBytes >= kPadRowBytes && rowBytes % kPadRowBytes == 0)
    allocShape.back() += kCacheLineBytes / elementBytes;
  Value empty = tensor::EmptyOp::create(rewriter, loc, allocShape,
                                        rhsType.getElementType());
  if (allocShape != packedShape) {
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes =
        getAsIndexOpFoldResult(rewriter.getContext(), packedShape);
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    empty = tensor::ExtractSliceOp::create(rewriter, loc, empty, offsets, sizes,
                                           strides);
  }
  auto transpose = linalg::TransposeOp::create(rewriter, loc, rhs, empty, perm);
  packs.push_back(cast<linalg::LinalgOp>(transpose.getOperation()));
  Value packed = transpose.getResult()[0];
  Value lhs = op.getDpsInputOperand(0)->get();
  Value init = op.getDpsInitOperand(0)->get();
  Operation *newOp;
  if (batched)
    newOp = linalg::BatchMatmulOp::create(rewriter, loc, init.getType(),
                                          ValueRange{lhs, packed}, init);
  else
    newOp = linalg::MatmulOp::create(rewriter, loc, init.getType(),
                                     ValueRange{lhs, packed}, init);
  rewriter.replaceOp(op, newOp->getResults());
  return cast<linalg::LinalgOp>(newOp);
}

bool hasStaticTensorShapes(linalg::LinalgOp op) {
  return op.hasPureTensorSemantics() &&
         llvm::all_of(op->getOperandTypes(), [](Type t) {
           auto s = dyn_cast<ShapedType>(t);
           return !s || s.hasStaticShape();
         });
}

/// True if a loop of `op` has no iteration: upstream tiling cannot tile it
/// (it crashes computing the tile sizes), and the scalar lowering gives
/// the right empty loop nest.
bool hasZeroTripLoop(linalg::LinalgOp op) {
  return llvm::is_contained(op.getStaticLoopRanges(), 0);
}

struct TileAndVectorizePass final
    : xpu::impl::XPUCPUTileAndVectorizePassBase<TileAndVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<int64_t> cache(cacheTile.begin(), cacheTile.end());
    SmallVector<int64_t> reg(registerTile.begin(), registerTile.end());
    if (cache.empty())
      cache = {64, 256, 256};
    if (reg.empty())
      reg = {4, 16};
    auto positive = [](ArrayRef<int64_t> v) {
      return llvm::all_of(v, [](int64_t x) { return x > 0; });
    };
    if (cache.size() != 3 || !positive(cache) || reg.size() != 2 ||
        !positive(reg) || elementwiseWidth <= 0) {
      getOperation().emitError()
          << kPassArg
          << ": cache-tile needs 3 positive sizes, register-tile 2 and "
             "elementwise-width must be positive";
      return signalPassFailure();
    }

    IRRewriter rewriter(&getContext());
    SmallVector<linalg::LinalgOp> gemms, elementwise;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        gemms.push_back(op);
      else if (isa<linalg::GenericOp, linalg::FillOp>(op.getOperation()) &&
               op.getNumLoops() > 0 &&
               op.getNumParallelLoops() == op.getNumLoops())
        elementwise.push_back(op);
    });

    SmallVector<linalg::LinalgOp> packs;
    for (linalg::LinalgOp op : gemms)
      tileGemm(rewriter, op, cache, reg, packs);
    for (linalg::LinalgOp op : elementwise)
      tileElementwise(rewriter, op);
    for (linalg::LinalgOp op : packs)
      tilePack(rewriter, op);

    // Fold the masks of partial tiles into the transfer ops now, before any
    // canonicalization can move ops into the vector.mask regions.
    RewritePatternSet patterns(&getContext());
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }

  void tileGemm(RewriterBase &rewriter, linalg::LinalgOp op,
                ArrayRef<int64_t> cache, ArrayRef<int64_t> reg,
                SmallVectorImpl<linalg::LinalgOp> &packs) {
    StringRef scalarReason;
    if (!hasStaticTensorShapes(op) || !op.hasPureTensorSemantics())
      scalarReason = "has dynamic shapes or buffer semantics";
    else if (hasZeroTripLoop(op))
      scalarReason = "has a zero-size dimension";
    if (!scalarReason.empty()) {
      ++numScalar;
      remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotVectorized"))
          << remark::reason("{0} {1}; left to the scalar lowering",
                            op->getName().getStringRef(), scalarReason);
      return;
    }
    op = packTransposedRhs(rewriter, op, packs);
    bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
    SmallVector<int64_t> l1, l2, order1, order2;
    if (batched) {
      l1 = {1, cache[0], cache[1], cache[2]};
      order1 = {0, 2, 3, 1};
      l2 = {1, reg[0], reg[1], 1};
      order2 = {0, 2, 1, 3};
    } else {
      l1 = {cache[0], cache[1], cache[2]};
      order1 = {1, 2, 0};
      l2 = {reg[0], reg[1], 1};
      order2 = {1, 0, 2};
    }
    SmallVector<int64_t> vectorSizes = l2;
    auto tiling = cast<TilingInterface>(op.getOperation());
    FailureOr<Operation *> cacheTiled = tile(rewriter, tiling, l1, order1);
    if (failed(cacheTiled)) {
      op.emitError() << "cache tiling failed";
      return signalPassFailure();
    }
    FailureOr<Operation *> regTiled =
        tile(rewriter, cast<TilingInterface>(*cacheTiled), l2, order2);
    if (failed(regTiled)) {
      (*cacheTiled)->emitError() << "register tiling failed";
      return signalPassFailure();
    }
    // vectorize() replaces the tile: its location is taken first.
    Location tileLoc = (*regTiled)->getLoc();
    if (failed(vectorize(rewriter, *regTiled, vectorSizes))) {
      ++numScalar;
      remark::missed(tileLoc, remarkOpts(kPassArg, "NotVectorized"))
          << remark::reason("register tile could not be vectorized");
      return;
    }
    ++numGemms;
    remark::passed(tileLoc, remarkOpts(kPassArg, "Vectorized"))
        << remark::reason("GEMM tiled for caches [{0}, {1}, {2}] and registers "
                          "[{3}, {4}], vectorized",
                          cache[0], cache[1], cache[2], reg[0], reg[1]);
  }

  /// Tiles the rhs packing transpose into kPackTile x kPackTile blocks (a
  /// block of rows is read, transposed in registers and written as rows)
  /// and vectorizes them; it stays a scalar loop nest if that fails.
  void tilePack(RewriterBase &rewriter, linalg::LinalgOp op) {
    SmallVector<int64_t> sizes(op.getNumLoops(), 1);
    sizes[sizes.size() - 1] = kPackTile;
    sizes[sizes.size() - 2] = kPackTile;
    FailureOr<Operation *> tiled =
        tile(rewriter, cast<TilingInterface>(op.getOperation()), sizes, {});
    if (failed(tiled)) {
      op.emitError() << "rhs packing tiling failed";
      return signalPassFailure();
    }
    if (failed(vectorize(rewriter, *tiled, sizes)))
      ++numScalar;
  }

  void tileElementwise(RewriterBase &rewriter, linalg::LinalgOp op) {
    if (!hasStaticTensorShapes(op) || hasZeroTripLoop(op)) {
      ++numScalar;
      return;
    }
    if (failed(linalg::vectorizeOpPrecondition(op))) {
      ++numScalar;
      remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotVectorized"))
          << remark::reason("{0} cannot be vectorized (its body has ops the "
                            "vectorizer does not support); left scalar",
                            op->getName().getStringRef());
      return;
    }
    unsigned rank = op.getNumLoops();
    SmallVector<int64_t> sizes(rank, 1);
    sizes.back() = elementwiseWidth;
    FailureOr<Operation *> tiled =
        tile(rewriter, cast<TilingInterface>(op.getOperation()), sizes, {});
    if (failed(tiled)) {
      op.emitError() << "elementwise tiling failed";
      return signalPassFailure();
    }
    if (failed(vectorize(rewriter, *tiled, sizes))) {
      ++numScalar;
      return;
    }
    ++numElementwise;
  }
};
} // namespace
