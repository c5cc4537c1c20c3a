//===- TileAndVectorize.cpp - CPU GEMM and epilogue tiling ----------------===//
//
// The CPU strategy: tile the GEMM (packed into panels by
// xpu-cpu-pack-operands, or a plain matmul) for the caches and then for
// registers, and vectorize the register tile; tile and vectorize the operand
// packing, the result unpacking and the elementwise ops. See Passes.td.
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
/// Columns of the source that one vectorized pack tile reads per row.
static constexpr int64_t kPackTile = 8;

namespace {
/// Tiles `op` by `sizes` with loops in `interchange` order and replaces it.
/// Returns the tiled op. A size that covers its whole static dimension is
/// not tiled, so that the tile keeps a static shape.
FailureOr<Operation *> tile(RewriterBase &rewriter, TilingInterface op,
                            ArrayRef<int64_t> tileSizes,
                            ArrayRef<int64_t> interchange,
                            scf::SCFTilingOptions::LoopType loopType =
                                scf::SCFTilingOptions::LoopType::ForOp) {
  SmallVector<int64_t> sizes(tileSizes);
  rewriter.setInsertionPoint(op);
  SmallVector<Range> domain = op.getIterationDomain(rewriter);
  for (auto [size, range] : llvm::zip(sizes, domain)) {
    std::optional<int64_t> bound = getConstantIntValue(range.size);
    if (bound && size >= *bound)
      size = 0;
  }
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  if (!interchange.empty())
    options.setInterchange(interchange);
  options.setLoopType(loopType);
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

/// True for the contraction xpu-cpu-pack-operands builds: a linalg.generic
/// over (b?, M1, N1, k, mr, nr) reading lhs (b?, M1, k, mr) and rhs
/// (b?, N1, k, nr) into (b?, M1, N1, mr, nr).
bool isPackedGemm(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp>(op.getOperation()) ||
      !linalg::isaContractionOpInterface(op) || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1)
    return false;
  unsigned n = op.getNumLoops();
  if (n != 5 && n != 6)
    return false;
  unsigned b = n - 5;
  MLIRContext *ctx = op->getContext();
  auto map = [&](ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> exprs;
    for (unsigned i = 0; i < b; ++i)
      exprs.push_back(getAffineDimExpr(i, ctx));
    for (unsigned d : dims)
      exprs.push_back(getAffineDimExpr(d + b, ctx));
    return AffineMap::get(n, 0, exprs, ctx);
  };
  SmallVector<AffineMap> expected = {map({0, 2, 3}), map({1, 2, 4}),
                                     map({0, 1, 3, 4})};
  return op.getIndexingMapsArray() == expected;
}

/// One register tile of the packed GEMM, (b?, M1, N1, k) = 1 and static
/// [mr, nr]: the mr values of the lhs panel and the nr values of the rhs
/// panel at this k, read as vectors, and their vector.outerproduct
/// accumulated into the [mr, nr] tile (mr rows of nr-lane FMAs once
/// lowered). The generic vectorizer would express the same product as
/// broadcasts of the whole iteration space.
LogicalResult vectorizePanelTile(RewriterBase &rewriter, linalg::LinalgOp op) {
  SmallVector<int64_t> bounds = op.getStaticLoopRanges();
  unsigned n = bounds.size();
  if (!op.hasPureTensorSemantics() ||
      llvm::any_of(ArrayRef(bounds).drop_back(2),
                   [](int64_t d) { return d != 1; }) ||
      ShapedType::isDynamic(bounds[n - 2]) ||
      ShapedType::isDynamic(bounds[n - 1]))
    return failure();
  int64_t mr = bounds[n - 2], nr = bounds[n - 1];
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value lhs = op.getDpsInputOperand(0)->get();
  Value rhs = op.getDpsInputOperand(1)->get();
  Value acc = op.getDpsInitOperand(0)->get();
  auto elementType = cast<ShapedType>(acc.getType()).getElementType();
  Value pad = arith::ConstantOp::create(rewriter, loc, elementType,
                                        rewriter.getZeroAttr(elementType));
  auto read = [&](Value source, ArrayRef<int64_t> shape) {
    auto type = cast<ShapedType>(source.getType());
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    SmallVector<Value> indices(type.getRank(), zero);
    auto vectorType = VectorType::get(shape, elementType);
    AffineMap map = AffineMap::getMinorIdentityMap(type.getRank(), shape.size(),
                                                   rewriter.getContext());
    SmallVector<bool> inBounds(shape.size(), true);
    return vector::TransferReadOp::create(rewriter, loc, vectorType, source,
                                          indices, pad, map, inBounds);
  };
  Value a = read(lhs, {mr});
  Value b = read(rhs, {nr});
  auto c = read(acc, {mr, nr});
  Value product = vector::OuterProductOp::create(
      rewriter, loc, c.getType(), a, b, c, vector::CombiningKind::ADD);
  Value written = vector::TransferWriteOp::create(
                      rewriter, loc, product, acc, c.getIndices(),
                      c.getPermutationMapAttr(), c.getInBoundsAttr())
                      .getResult();
  rewriter.replaceOp(op, written);
  return success();
}

/// A linalg.generic with one result whose only reduction loop is the
/// innermost one: a reduction along rows.
bool isRowReduction(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp>(op.getOperation()) || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 1)
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  return iterators.back() == utils::IteratorType::reduction;
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
    SmallVector<linalg::LinalgOp> gemms, packedGemms, elementwise, reductions;
    SmallVector<Operation *> relayouts;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        relayouts.push_back(op);
    });
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        gemms.push_back(op);
      else if (isPackedGemm(op))
        packedGemms.push_back(op);
      else if (isa<linalg::GenericOp, linalg::FillOp>(op.getOperation()) &&
               op.getNumLoops() > 0 &&
               op.getNumParallelLoops() == op.getNumLoops())
        elementwise.push_back(op);
      else if (isRowReduction(op))
        reductions.push_back(op);
    });

    for (linalg::LinalgOp op : gemms)
      tileGemm(rewriter, op, cache, reg);
    for (linalg::LinalgOp op : packedGemms)
      tilePackedGemm(rewriter, op, cache);
    for (linalg::LinalgOp op : elementwise)
      tileElementwise(rewriter, op);
    for (linalg::LinalgOp op : reductions)
      tileRowReduction(rewriter, op);
    for (Operation *op : relayouts)
      tileRelayout(rewriter, op);

    // Fold the masks of partial tiles into the transfer ops now, before any
    // canonicalization can move ops into the vector.mask regions.
    RewritePatternSet patterns(&getContext());
    vector::populateVectorMaskLoweringPatternsForSideEffectingOps(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }

  /// Tiles `op` for the caches (`cacheSizes` in `cacheOrder`), then the
  /// cache tile for registers; returns the register tile, or failure with
  /// an error on the op that could not be tiled.
  FailureOr<Operation *> tileForCachesAndRegisters(
      RewriterBase &rewriter, Operation *op, ArrayRef<int64_t> cacheSizes,
      ArrayRef<int64_t> cacheOrder, ArrayRef<int64_t> registerSizes,
      ArrayRef<int64_t> registerOrder) {
    FailureOr<Operation *> cacheTiled =
        tile(rewriter, cast<TilingInterface>(op), cacheSizes, cacheOrder);
    if (failed(cacheTiled)) {
      op->emitError() << "cache tiling failed";
      return failure();
    }
    FailureOr<Operation *> regTiled =
        tile(rewriter, cast<TilingInterface>(*cacheTiled), registerSizes,
             registerOrder);
    if (failed(regTiled)) {
      (*cacheTiled)->emitError() << "register tiling failed";
      return failure();
    }
    return regTiled;
  }

  void tileGemm(RewriterBase &rewriter, linalg::LinalgOp op,
                ArrayRef<int64_t> cache, ArrayRef<int64_t> reg) {
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
    FailureOr<Operation *> regTiled =
        tileForCachesAndRegisters(rewriter, op, l1, order1, l2, order2);
    if (failed(regTiled))
      return signalPassFailure();
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

  /// The packed GEMM (xpu-cpu-pack-operands): loops (b?, M1, N1, K, mr,
  /// nr). Cache tiles of [mc/mr, nc/nr, kc] panels in n, k, m order, then
  /// one register tile (one mr-row panel times one nr-column panel) per
  /// step of the n, m and k loops: every tile is full, no masks.
  void tilePackedGemm(RewriterBase &rewriter, linalg::LinalgOp op,
                      ArrayRef<int64_t> cache) {
    if (!hasStaticTensorShapes(op) || hasZeroTripLoop(op)) {
      ++numScalar;
      remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotVectorized"))
          << remark::reason("{0} has dynamic shapes or a zero-size "
                            "dimension; left to the scalar lowering",
                            op->getName().getStringRef());
      return;
    }
    // The k remainder that kc does not divide is peeled into a second op,
    // so that every k loop has a static trip count (the accumulator is then
    // hoisted out of it) and no tile is partial in k.
    unsigned kDim = op.getNumLoops() - 3;
    int64_t k = op.getStaticLoopRanges()[kDim];
    if (k > cache[2] && k % cache[2] != 0) {
      rewriter.setInsertionPoint(op);
      auto [main, rest] =
          linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()),
                          kDim, rewriter.getIndexAttr(k / cache[2] * cache[2]));
      if (!main || !rest) {
        op.emitError() << "splitting the k remainder failed";
        return signalPassFailure();
      }
      tilePackedGemmBody(rewriter, cast<linalg::LinalgOp>(main.getOperation()),
                         cache);
      tilePackedGemmBody(rewriter, cast<linalg::LinalgOp>(rest.getOperation()),
                         cache);
      return;
    }
    tilePackedGemmBody(rewriter, op, cache);
  }

  void tilePackedGemmBody(RewriterBase &rewriter, linalg::LinalgOp op,
                          ArrayRef<int64_t> cache) {
    bool batched = op.getNumLoops() == 6;
    SmallVector<int64_t> bounds = op.getStaticLoopRanges();
    int64_t b = batched ? 1 : 0;
    int64_t mr = bounds[b + 3], nr = bounds[b + 4];
    SmallVector<int64_t> l1(bounds.size(), 0), l2(bounds.size(), 0);
    l1[b + 0] = std::max<int64_t>(1, cache[0] / mr);
    l1[b + 1] = std::max<int64_t>(1, cache[1] / nr);
    l1[b + 2] = cache[2];
    l2[b + 0] = l2[b + 1] = l2[b + 2] = 1;
    SmallVector<int64_t> order1 = {1, 2, 0}, order2 = {1, 0, 2};
    if (batched) {
      l1[0] = l2[0] = 1;
      order1 = {0, 2, 3, 1};
      order2 = {0, 2, 1, 3};
    }
    // With `parallel`, the outermost loop (batches, else column blocks) is
    // an scf.forall: its iterations write disjoint parts of the result.
    Operation *toTile = op.getOperation();
    int64_t parallelDim = -1;
    if (parallel) {
      if (batched && bounds[0] > 1)
        parallelDim = 0;
      else if (bounds[b + 1] > l1[b + 1])
        parallelDim = b + 1;
    }
    if (parallelDim >= 0) {
      SmallVector<int64_t> sizes(bounds.size(), 0);
      sizes[parallelDim] = parallelDim == 0 ? 1 : l1[b + 1];
      FailureOr<Operation *> distributed =
          tile(rewriter, cast<TilingInterface>(toTile), sizes, {},
               scf::SCFTilingOptions::LoopType::ForallOp);
      if (failed(distributed)) {
        op.emitError() << "parallel tiling failed";
        return signalPassFailure();
      }
      toTile = *distributed;
    }
    SmallVector<int64_t> cacheSizes(l1);
    if (parallelDim >= 0)
      cacheSizes[parallelDim] = 0;
    FailureOr<Operation *> regTiled = tileForCachesAndRegisters(
        rewriter, toTile, cacheSizes, order1, l2, order2);
    if (failed(regTiled))
      return signalPassFailure();
    Location loc = (*regTiled)->getLoc();
    if (failed(
            vectorizePanelTile(rewriter, cast<linalg::LinalgOp>(*regTiled)))) {
      ++numScalar;
      remark::missed(loc, remarkOpts(kPassArg, "NotVectorized"))
          << remark::reason("register tile could not be vectorized");
      return;
    }
    ++numGemms;
    remark::passed(loc, remarkOpts(kPassArg, "Vectorized")) << remark::reason(
        "packed GEMM (k = {5}) tiled for caches [{0}, {1}, "
        "{2}] (rows, columns, k) and registers [{3}, {4}], "
        "vectorized without masks",
        l1[b] * mr, l1[b + 1] * nr, l1[b + 2], mr, nr, bounds[b + 2]);
  }

  /// Tiles a linalg.pack into blocks of kPackTile source columns of one
  /// panel (or one whole panel) and a linalg.unpack into one panel tile per
  /// step, and vectorizes the tiles (masked where the shape's edge cuts
  /// them: this is O(size of the operand) work); they stay scalar loop
  /// nests if that fails.
  void tileRelayout(RewriterBase &rewriter, Operation *op) {
    auto sourceType = cast<RankedTensorType>(op->getOperand(0).getType());
    auto destType = cast<RankedTensorType>(op->getResult(0).getType());
    if (!sourceType.hasStaticShape() || !destType.hasStaticShape()) {
      ++numScalar;
      return;
    }
    SmallVector<int64_t> sizes, vectorSizes;
    if (auto packOp = dyn_cast<linalg::PackOp>(op)) {
      ArrayRef<int64_t> inner = packOp.getStaticInnerTiles();
      sizes.assign(sourceType.getRank(), 1);
      // A panel pack (one tiled dimension, k outermost-but-one): a block of
      // kPackTile k values of one panel per step.
      if (inner.size() == 1)
        sizes.back() = kPackTile;
      vectorSizes = sizes;
      llvm::append_range(vectorSizes, inner);
    } else {
      auto unpackOp = cast<linalg::UnPackOp>(op);
      ArrayRef<int64_t> inner = unpackOp.getStaticInnerTiles();
      sizes.assign(destType.getRank(), 1);
      for (auto [pos, size] : llvm::zip(unpackOp.getInnerDimsPos(), inner))
        sizes[pos] = size;
      vectorSizes.assign(destType.getRank(), 1);
      llvm::append_range(vectorSizes, inner);
    }
    FailureOr<Operation *> tiled =
        tile(rewriter, cast<TilingInterface>(op), sizes, {});
    if (failed(tiled)) {
      op->emitError() << "tiling " << op->getName() << " failed";
      return signalPassFailure();
    }
    if (failed(vectorize(rewriter, *tiled, vectorSizes)))
      ++numScalar;
  }

  /// A row reduction (softmax's max and sum, logsumexp, sums along rows):
  /// one row per step of the parallel loops; a row longer than
  /// elementwise-width is reduced in elementwise-width chunks into a vector
  /// of partial results (upstream's partial-reduction tiling), which one
  /// vector.multi_reduction merges after the row.
  void tileRowReduction(RewriterBase &rewriter, linalg::LinalgOp op) {
    if (!hasStaticTensorShapes(op) ||
        failed(linalg::vectorizeOpPrecondition(op))) {
      ++numScalar;
      remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotVectorized"))
          << remark::reason("reduction {0} has dynamic shapes or ops the "
                            "vectorizer does not support; left scalar",
                            op->getName().getStringRef());
      return;
    }
    // Upstream's partial-reduction tiling reads every init map as a
    // projected permutation; a keepdim reduction as torch-mlir emits it,
    // `(d0, d1) -> (d0, 0)`, is not one (its constant result is read as a
    // dimension: uninitialised memory, a crash on some machines). Its unit
    // dimensions are dropped first (upstream's dropUnitDims: the init
    // becomes `(d0, d1) -> (d0)` behind a reshape).
    auto isPermutation = [](linalg::LinalgOp linalgOp) {
      return llvm::all_of(linalgOp.getDpsInitsMutable(), [&](OpOperand &init) {
        return linalgOp.getMatchingIndexingMap(&init).isProjectedPermutation();
      });
    };
    if (!isPermutation(op)) {
      FailureOr<linalg::DropUnitDimsResult> dropped = failure();
      rewriter.setInsertionPoint(op);
      if (auto generic = dyn_cast<linalg::GenericOp>(op.getOperation()))
        dropped = linalg::dropUnitDims(rewriter, generic,
                                       linalg::ControlDropUnitDims());
      auto reduced =
          succeeded(dropped)
              ? dyn_cast<linalg::LinalgOp>(dropped->resultOp.getOperation())
              : linalg::LinalgOp();
      if (!reduced || !isPermutation(reduced)) {
        ++numScalar;
        remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotVectorized"))
            << remark::reason("reduction {0} writes through a map with "
                              "constant results that are not unit "
                              "dimensions; left scalar",
                              op->getName().getStringRef());
        return;
      }
      rewriter.replaceOp(op, dropped->replacements);
      op = reduced;
    }
    unsigned rank = op.getNumLoops();
    int64_t extent = op.getStaticLoopRanges().back();
    SmallVector<int64_t> rows(rank, 1);
    rows.back() = 0;
    FailureOr<Operation *> row =
        tile(rewriter, cast<TilingInterface>(op.getOperation()), rows, {});
    if (failed(row)) {
      op.emitError() << "reduction tiling failed";
      return signalPassFailure();
    }
    SmallVector<int64_t> vectorSizes(rank, 1);
    if (extent <= elementwiseWidth) {
      vectorSizes.back() = extent;
      if (failed(vectorize(rewriter, *row, vectorSizes)))
        ++numScalar;
      else
        ++numReductions;
      return;
    }
    SmallVector<OpFoldResult> chunk(rank, rewriter.getIndexAttr(0));
    chunk.back() = rewriter.getIndexAttr(elementwiseWidth);
    rewriter.setInsertionPoint(*row);
    FailureOr<scf::SCFTilingResult> partial = scf::tileReductionUsingScf(
        rewriter, cast<PartialReductionOpInterface>(*row), chunk);
    if (failed(partial)) {
      ++numScalar;
      return;
    }
    rewriter.replaceOp(*row, partial->replacements);
    // The partial ops are elementwise over [1, ..., chunk]; the merge and
    // the fills of the partial accumulators are vectorized likewise.
    vectorSizes.back() = elementwiseWidth;
    bool ok = true;
    for (Operation *tiled : partial->tiledOps)
      ok &= succeeded(vectorize(rewriter, tiled, vectorSizes));
    for (Operation *merge : partial->mergeOps)
      ok &= succeeded(vectorize(rewriter, merge, vectorSizes));
    for (Value init : partial->initialValues)
      if (auto fill = init.getDefiningOp<linalg::FillOp>())
        ok &= succeeded(vectorize(rewriter, fill.getOperation(), vectorSizes));
    if (ok)
      ++numReductions;
    else
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
