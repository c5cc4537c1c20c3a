//===- TileAndVectorize.cpp - CPU GEMM and epilogue tiling ----------------===//
//
// The CPU strategy: tile the GEMM (packed into panels by
// xpu-cpu-pack-operands, or a plain matmul) for the caches and then for
// registers, and vectorize the register tile; tile and vectorize the operand
// packing, the result unpacking and the elementwise ops. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Codegen/AmxLayout.h"
#include "xpu/Codegen/CpuTiles.h"
#include "xpu/Codegen/DotPairLayout.h"
#include "xpu/Codegen/Passes.h"
#include "xpu/Dialect/XPU/IR/XPUAttrs.h"
#include "xpu/Dialect/XPU/Utils/EpilogueUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/IRMapping.h"
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
/// Row blocks a parallel packed-GEMM nest splits its rows into at least
/// (where there are that many register-tile rows): the threads' work.
static constexpr int64_t kMinParallelRowBlocks = 4;
/// Instructions (estimateEpilogueInstructions per element times the tile's
/// rows) up to which an epilogue is applied to the whole register tile as
/// straight-line code. Past it, LLVM's code generation of the unrolled
/// tile dominated the compile time (an f32 GELU or mish chain on a 14 x 32
/// tile: most of a model's 0.5-1 s), so the epilogue loops over the rows.
static constexpr int64_t kStraightTileEpilogue = 256;

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

/// True for the pair-dot contraction xpu-cpu-pack-operands builds
/// (DotPairLayout.h): bf16 operands into f32, or i16 ones into i32.
bool isDotPairGemm(linalg::LinalgOp op) {
  if (!isa<linalg::GenericOp>(op.getOperation()) || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 ||
      !matchDotPairGemmIndexingMaps(op.getIndexingMapsArray()))
    return false;
  auto elementType = [&](Value v) {
    return cast<ShapedType>(v.getType()).getElementType();
  };
  Type lhs = elementType(op.getDpsInputOperand(0)->get());
  Type rhs = elementType(op.getDpsInputOperand(1)->get());
  Type acc = elementType(op.getDpsInitOperand(0)->get());
  return lhs == rhs && ((lhs.isBF16() && acc.isF32()) ||
                        (lhs.isInteger(16) && acc.isInteger(32)));
}

/// True for the contractions xpu-cpu-pack-operands builds: a linalg.generic
/// over (b?, M1, N1, k, mr, nr) reading lhs (b?, M1, k, mr) and rhs
/// (b?, N1, k, nr) into (b?, M1, N1, mr, nr), or the pair-dot one.
bool isPackedGemm(linalg::LinalgOp op) {
  if (isDotPairGemm(op))
    return true;
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

/// A linalg.fill whose only use is the accumulator of an AMX contraction
/// (AmxLayout.h): it stays a fill, which xpu-cpu-lower-amx-gemm folds into
/// its nest as zero tiles.
bool isAmxAccumulatorFill(linalg::LinalgOp op) {
  auto fill = dyn_cast<linalg::FillOp>(op.getOperation());
  if (!fill || !fill->hasOneUse())
    return false;
  OpOperand &use = *fill->use_begin();
  auto gemm = dyn_cast<linalg::GenericOp>(use.getOwner());
  return gemm && gemm.isDpsInit(&use) &&
         matchAmxGemmIndexingMaps(gemm.getIndexingMapsArray());
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

/// True if the loops of `op` from `first` on have static ranges: the
/// leading ones may be dynamic (the batch and rows of a model called on any
/// number of rows), which the tilings here step through one at a time, so
/// that the tiles keep static shapes.
bool hasStaticLoopsFrom(linalg::LinalgOp op, unsigned first) {
  return op.hasPureTensorSemantics() &&
         llvm::none_of(ArrayRef(op.getStaticLoopRanges()).drop_front(first),
                       ShapedType::isDynamic);
}

/// True if the packed GEMM `op` (isPackedGemm) has static loops past its
/// batch and row panels (b?, M1): n, k and the register tile.
bool hasStaticPackedGemmLoops(linalg::LinalgOp op) {
  unsigned innerLoops = isDotPairGemm(op) ? 5 : 4;
  return hasStaticLoopsFrom(op, op.getNumLoops() - innerLoops);
}

/// `d` as IR prints it: `?` when dynamic.
std::string dimString(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

/// True if a loop of `op` has no iteration: upstream tiling cannot tile it
/// (it crashes computing the tile sizes), and the scalar lowering gives
/// the right empty loop nest.
bool hasZeroTripLoop(linalg::LinalgOp op) {
  return llvm::is_contained(op.getStaticLoopRanges(), 0);
}

//===----------------------------------------------------------------------===//
// The packed GEMM as one loop nest
//===----------------------------------------------------------------------===//

/// A packed GEMM (xpu-cpu-pack-operands) with the ops around it that the
/// loop nest absorbs: the lhs packing, the init, the unpacking of the
/// result and the elementwise epilogue that consumes it.
struct PackedGemmNest {
  linalg::GenericOp gemm;
  linalg::UnPackOp unpack;
  /// The elementwise consumer of the unpacked product, applied to each
  /// register tile after its last k block; null if there is none.
  linalg::GenericOp epilogue;
  /// The packing of the lhs, done per row block inside the nest; null when
  /// the lhs comes packed (then `lhs` is the packed [b?, M1, k, mr]).
  linalg::PackOp lhsPack;
  Value lhs;
  Value rhs; // [b?, N1, k, nr]
  /// [b?, m, n] value the product starts from, or null: then `fill`.
  Value init;
  Value fill;
  /// [b?, m, n] tensor the result is written into.
  Value dest;
  bool batched = false;
  /// The pair-dot form (DotPairLayout.h): the operands come in k pairs of
  /// `operandType` (bf16 or i16) and k is consumed two at a time.
  bool pairs = false;
  int64_t batch = 1, m = 0, n = 0, k = 0, mr = 0, nr = 0;
  Type accType, operandType;
};

/// True if every op in the body of `op` is a constant or an elementwise-
/// mappable op with one result and scalar operands: the body can be applied
/// to vectors op by op (applyBodyToVectors).
bool hasVectorizableBody(linalg::GenericOp op) {
  for (Operation &bodyOp : op.getBlock()->without_terminator()) {
    if (isa<arith::ConstantOp>(bodyOp))
      continue;
    if (bodyOp.getNumRegions() != 0 || bodyOp.getNumResults() != 1 ||
        !OpTrait::hasElementwiseMappableTraits(&bodyOp))
      return false;
    if (llvm::any_of(bodyOp.getOperandTypes(),
                     [](Type t) { return isa<ShapedType>(t); }))
      return false;
  }
  return true;
}

/// Applies the body of `op` (hasVectorizableBody) to vectors of `shape`:
/// `mapping` maps its block arguments to vectors; constants become splats
/// and scalars defined outside the body broadcasts. Returns the vector of
/// the yielded value.
Value applyBodyToVectors(RewriterBase &rw, Location loc, linalg::GenericOp op,
                         IRMapping &mapping, ArrayRef<int64_t> shape) {
  auto vectorOf = [&](Type t) { return VectorType::get(shape, t); };
  Block *body = op.getBlock();
  for (Operation &bodyOp : body->without_terminator()) {
    if (auto cst = dyn_cast<arith::ConstantOp>(bodyOp)) {
      auto type = vectorOf(cst.getType());
      mapping.map(
          cst.getResult(),
          arith::ConstantOp::create(
              rw, loc, type, DenseElementsAttr::get(type, cst.getValue())));
      continue;
    }
    SmallVector<Value> operands;
    for (Value operand : bodyOp.getOperands()) {
      if (Value mapped = mapping.lookupOrNull(operand)) {
        operands.push_back(mapped);
        continue;
      }
      operands.push_back(vector::BroadcastOp::create(
          rw, loc, vectorOf(operand.getType()), operand));
    }
    OperationState state(loc, bodyOp.getName(), operands,
                         TypeRange{vectorOf(bodyOp.getResult(0).getType())},
                         bodyOp.getAttrs());
    Operation *vectorOp = rw.create(state);
    mapping.map(bodyOp.getResult(0), vectorOp->getResult(0));
  }
  return mapping.lookup(body->getTerminator()->getOperand(0));
}

/// After the tiles of a linalg.pack were vectorized: every vector read of
/// `producer`'s result (through a tensor.extract_slice or not, masked or
/// not) reads the producer's input instead and applies its body to the
/// vector; lanes outside the read's mask keep the padding value. Returns
/// failure, leaving the IR unchanged, if the result has another kind of use.
LogicalResult fusePackProducer(RewriterBase &rw, linalg::GenericOp producer) {
  Value produced = producer.getResult(0);
  Value input = producer.getDpsInputOperand(0)->get();
  // The reads to rewrite, each with the value it reads (the slice or the
  // producer's result).
  // (The vectorizer sizes its masks with tensor.dim of the slices: those
  // read the input's slice instead.)
  SmallVector<std::pair<vector::TransferReadOp, Value>> reads;
  SmallVector<tensor::DimOp> dims;
  auto collect = [&](Value source) {
    for (Operation *user : source.getUsers()) {
      if (auto dim = dyn_cast<tensor::DimOp>(user)) {
        dims.push_back(dim);
        continue;
      }
      auto read = dyn_cast<vector::TransferReadOp>(user);
      if (!read || read.getBase() != source)
        return false;
      reads.push_back({read, source});
    }
    return true;
  };
  for (Operation *user : produced.getUsers()) {
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user)) {
      if (!collect(slice.getResult()))
        return failure();
    } else if (auto read = dyn_cast<vector::TransferReadOp>(user);
               read && read.getBase() == produced) {
      reads.push_back({read, produced});
    } else {
      return failure();
    }
  }
  // A mask must cover the read vector lane by lane (minor identity reads).
  for (auto [read, source] : reads) {
    Value mask = read.getMask();
    if (auto maskOp = read->getParentOfType<vector::MaskOp>())
      mask = maskOp.getMask();
    if (mask && cast<VectorType>(mask.getType()).getShape() !=
                    read.getVectorType().getShape())
      return failure();
  }
  // The input's slice for each slice of the producer's result.
  DenseMap<Value, Value> inputSlices;
  inputSlices[produced] = input;
  auto inputSlice = [&](Value source) {
    Value &slice = inputSlices[source];
    if (!slice) {
      auto old = source.getDefiningOp<tensor::ExtractSliceOp>();
      rw.setInsertionPoint(old);
      slice = tensor::ExtractSliceOp::create(
          rw, old.getLoc(), input, old.getMixedOffsets(), old.getMixedSizes(),
          old.getMixedStrides());
    }
    return slice;
  };
  for (tensor::DimOp dim : dims)
    rw.modifyOpInPlace(dim, [&] {
      dim.getSourceMutable().assign(inputSlice(dim.getSource()));
    });
  for (auto [read, source] : reads) {
    Location loc = read.getLoc();
    Value newSource = inputSlice(source);
    // The read (or the vector.mask around it), reading the input.
    Operation *top = read;
    Value mask = read.getMask();
    if (auto maskOp = read->getParentOfType<vector::MaskOp>()) {
      top = maskOp;
      mask = maskOp.getMask();
    }
    rw.setInsertionPoint(top);
    IRMapping sourceMap;
    sourceMap.map(source, newSource);
    Operation *cloned = rw.clone(*top, sourceMap);
    Value loaded = cloned->getResult(0);
    auto type = cast<VectorType>(loaded.getType());
    // A producer that converts (f32 -> bf16): the read takes the input's
    // element type and a padding value of it.
    Type inputElt = getElementTypeOrSelf(input.getType());
    if (inputElt != type.getElementType()) {
      auto clonedRead = isa<vector::MaskOp>(cloned)
                            ? cast<vector::TransferReadOp>(
                                  cast<vector::MaskOp>(cloned).getMaskableOp())
                            : cast<vector::TransferReadOp>(cloned);
      rw.modifyOpInPlace(cloned, [&] {
        clonedRead.getPaddingMutable().assign(arith::ConstantOp::create(
            rw, loc, inputElt, rw.getZeroAttr(inputElt)));
        clonedRead.getResult().setType(type.clone(inputElt));
        loaded.setType(type.clone(inputElt));
      });
    }
    IRMapping mapping;
    mapping.map(producer.getBlock()->getArgument(0), loaded);
    Value result =
        applyBodyToVectors(rw, loc, producer, mapping, type.getShape());
    if (mask) {
      Value pad = vector::BroadcastOp::create(rw, loc, type, read.getPadding());
      result = arith::SelectOp::create(rw, loc, mask, result, pad);
    }
    rw.replaceOp(top, result);
  }
  for (Operation *user : llvm::make_early_inc_range(produced.getUsers()))
    if (user->use_empty())
      rw.eraseOp(user);
  if (!produced.use_empty())
    return failure();
  rw.eraseOp(producer);
  return success();
}

/// True if `op` is an elementwise linalg.generic that `xpu-cpu-tile-and-
/// vectorize` can apply to a register tile: one result, all loops parallel,
/// identity output map, projected-permutation input maps, static columns
/// (the batch and rows may be dynamic), an output that the body does not
/// read, and a body of elementwise-mappable ops (and constants).
bool isTileEpilogue(linalg::GenericOp op, Value product) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !hasStaticLoopsFrom(op, op.getNumLoops() - 1))
    return false;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!op.getMatchingIndexingMap(init).isIdentity() ||
      op.payloadUsesValueFromOperand(init))
    return false;
  bool readsProduct = false;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation())
      return false;
    if (input->get() == product) {
      if (!map.isIdentity())
        return false;
      readsProduct = true;
    }
  }
  return readsProduct && hasVectorizableBody(op);
}

/// The elementwise producer of a linalg.pack's source that the pack's
/// vectorized tiles can apply on the fly (fusePackProducer): a
/// linalg.generic used only by the pack, with one input of its result's
/// shape (a conversion such as f32 -> bf16 is applied as the pack reads),
/// identity maps, parallel loops, static shapes, an init its body
/// does not read, and an elementwise body. Null otherwise.
linalg::GenericOp packProducer(linalg::PackOp pack) {
  auto op = pack.getSource().getDefiningOp<linalg::GenericOp>();
  if (!op || !op->hasOneUse() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops() ||
      !hasStaticTensorShapes(op) ||
      cast<ShapedType>(op.getDpsInputOperand(0)->get().getType()).getShape() !=
          cast<ShapedType>(op.getResult(0).getType()).getShape() ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)) ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }) ||
      !hasVectorizableBody(op))
    return {};
  return op;
}

/// Matches the packed GEMM `gemm` and what surrounds it, or fails when the
/// nest does not apply (then the packed GEMM is tiled on its own).
FailureOr<PackedGemmNest> matchPackedGemmNest(linalg::GenericOp gemm) {
  PackedGemmNest g;
  g.gemm = gemm;
  if (!hasStaticPackedGemmLoops(gemm) || !gemm->hasOneUse())
    return failure();
  g.pairs = isDotPairGemm(gemm);
  g.batched = gemm.getNumLoops() == (g.pairs ? 7u : 6u);
  int64_t b = g.batched ? 1 : 0;
  auto unpack = dyn_cast<linalg::UnPackOp>(*gemm->user_begin());
  auto accType = cast<RankedTensorType>(gemm.getResult(0).getType());
  g.mr = accType.getDimSize(b + 2);
  g.nr = accType.getDimSize(b + 3);
  if (!unpack || unpack.getSource() != gemm.getResult(0) ||
      !unpack.getOuterDimsPerm().empty() ||
      unpack.getInnerDimsPos() != ArrayRef<int64_t>{b, b + 1} ||
      unpack.getStaticInnerTiles() != ArrayRef<int64_t>{g.mr, g.nr} ||
      unpack.getDestType().isDynamicDim(b + 1))
    return failure();
  g.unpack = unpack;
  g.accType = accType.getElementType();
  RankedTensorType resultType = unpack.getDestType();
  if (g.batched)
    g.batch = resultType.getDimSize(0);
  g.m = resultType.getDimSize(b);
  g.n = resultType.getDimSize(b + 1);
  // k: the lhs panels' (for pairs, twice their pairs; the lhs packing's
  // source says whether the last pair is half padding).
  g.k = cast<RankedTensorType>(gemm.getDpsInputOperand(0)->get().getType())
            .getDimSize(b + 1) *
        (g.pairs ? kDotPair : 1);
  g.operandType = cast<ShapedType>(gemm.getDpsInputOperand(0)->get().getType())
                      .getElementType();
  if (!g.pairs)
    for (Value operand :
         {gemm.getDpsInputOperand(0)->get(), gemm.getDpsInputOperand(1)->get()})
      if (cast<ShapedType>(operand.getType()).getElementType() != g.accType)
        return failure();

  // The lhs: packed by a linalg.pack into mr-row panels (of k pairs), or
  // packed already.
  Value packedLhs = gemm.getDpsInputOperand(0)->get();
  auto lhsPack = packedLhs.getDefiningOp<linalg::PackOp>();
  SmallVector<int64_t> lhsTiled = {b}, lhsTiles = {g.mr};
  if (g.pairs) {
    lhsTiled.push_back(b + 1);
    lhsTiles.push_back(kDotPair);
  }
  if (lhsPack && lhsPack.getOuterDimsPerm().empty() &&
      lhsPack.getInnerDimsPos() == ArrayRef<int64_t>(lhsTiled) &&
      lhsPack.getStaticInnerTiles() == ArrayRef<int64_t>(lhsTiles) &&
      !lhsPack.getSourceType().isDynamicDim(b + 1)) {
    if (g.pairs)
      g.k = lhsPack.getSourceType().getDimSize(b + 1);
    g.lhsPack = lhsPack;
    g.lhs = lhsPack.getSource();
  } else {
    g.lhs = packedLhs;
  }
  g.rhs = gemm.getDpsInputOperand(1)->get();

  // The init: a fill, or the packed [b?, m, n] init.
  Value init = gemm.getDpsInitOperand(0)->get();
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    g.fill = fill.getInputs()[0];
  } else if (auto initPack = init.getDefiningOp<linalg::PackOp>();
             initPack && initPack.getOuterDimsPerm().empty() &&
             initPack.getInnerDimsPos() == ArrayRef<int64_t>{b, b + 1} &&
             initPack.getStaticInnerTiles() == ArrayRef<int64_t>{g.mr, g.nr} &&
             initPack.getSourceType() == resultType) {
    g.init = initPack.getSource();
  } else {
    return failure();
  }

  // The epilogue: the only user of the unpacked product.
  g.dest = unpack.getDest();
  Value product = unpack.getResult();
  if (product.hasOneUse())
    if (auto epilogue = dyn_cast<linalg::GenericOp>(*product.user_begin());
        epilogue && isTileEpilogue(epilogue, product) &&
        epilogue.getNumLoops() == resultType.getRank()) {
      g.epilogue = epilogue;
      g.dest = epilogue.getDpsInitOperand(0)->get();
    }
  return g;
}

/// Builds the loop nest of a PackedGemmNest.
class PackedGemmNestBuilder {
public:
  PackedGemmNestBuilder(RewriterBase &rewriter, PackedGemmNest g, int64_t mc,
                        int64_t kc, bool parallel)
      : rw(rewriter), g(g), loc(g.gemm.getLoc()),
        parallel(parallel && !g.batched) {
    // Row blocks of whole panels, no more than the rows need (then one
    // block covers them all); k blocks of equal size (a multiple of the
    // packing width when there are several), the last one possibly shorter.
    this->mc = std::max<int64_t>(1, mc / g.mr) * g.mr;
    if (!ShapedType::isDynamic(g.m))
      this->mc = std::min<int64_t>(this->mc, llvm::alignTo(g.m, g.mr));
    // In parallel, the row blocks are the threads' work: at least
    // kMinParallelRowBlocks of them where the rows have that many panels.
    if (this->parallel && !ShapedType::isDynamic(g.m))
      this->mc = std::min<int64_t>(
          this->mc,
          llvm::alignTo(llvm::divideCeil(g.m, kMinParallelRowBlocks), g.mr));
    int64_t blocks = llvm::divideCeil(g.k, kc);
    kb = blocks == 1 ? g.k
                     : llvm::alignTo(llvm::divideCeil(g.k, blocks), packStep());
    numK = llvm::divideCeil(g.k, kb);
  }

  /// The k values of one panel that one step of the lhs packing reads: 8,
  /// or 8 pairs.
  int64_t packStep() const {
    return g.pairs ? kPackTile * kDotPair : kPackTile;
  }

  /// Whether the epilogue is applied to each tile row by row in a loop
  /// rather than to the whole register tile as straight-line code: where
  /// the tile's straight-line code would pass kStraightTileEpilogue and the
  /// result has the accumulator's type (the tile is stored as it is first).
  bool appliesEpilogueByRows() const {
    linalg::GenericOp epilogue = g.epilogue;
    if (!epilogue)
      return false;
    Type destElt = cast<ShapedType>(g.dest.getType()).getElementType();
    return destElt == g.accType &&
           estimateEpilogueInstructions(*epilogue.getBlock()) * g.mr >
               kStraightTileEpilogue;
  }

  int64_t rowBlock() const { return mc; }
  /// After build(): whether the rhs is packed one batch at a time.
  bool packsRhsPerBatch() const { return static_cast<bool>(rhsPack); }
  bool isParallel() const { return parallel; }
  int64_t kBlock() const { return kb; }
  int64_t numKBlocks() const { return numK; }

  /// Emits the nest before the epilogue (or the unpack) and returns the
  /// value that replaces it.
  Value build() {
    Operation *last =
        g.epilogue ? g.epilogue.getOperation() : g.unpack.getOperation();
    rw.setInsertionPoint(last);
    zeroIdx = idx(0);
    oneIdx = idx(1);
    pad = arith::ConstantOp::create(rw, loc, g.accType,
                                    rw.getZeroAttr(g.accType));
    operandPad = arith::ConstantOp::create(rw, loc, g.operandType,
                                           rw.getZeroAttr(g.operandType));
    rhsPack = batchedRhsPack(g);
    if (g.pairs) {
      // The pair operands as 1-D rows: [b?, N1, K2, 2 nr] (and a packed lhs
      // [b?, M1, K2, 2 mr]), so that one k pair of a panel is one vector.
      if (!rhsPack)
        g.rhs = flattenPairs(g.rhs);
      if (!g.lhsPack)
        g.lhs = flattenPairs(g.lhs);
    }
    // Partial sums live in the destination when it has the accumulator's
    // type, else in their own tensor.
    SmallVector<Value> tensors = {g.dest};
    Type destElt = cast<ShapedType>(g.dest.getType()).getElementType();
    separateAcc = numK > 1 && destElt != g.accType;
    epilogueByRows = appliesEpilogueByRows();
    if (separateAcc)
      tensors.push_back(tensor::EmptyOp::create(
          rw, loc, tensor::getMixedSizes(rw, loc, g.dest), g.accType));
    // The rows (and batches) a dynamic dimension has at run time.
    int64_t b = g.batched ? 1 : 0;
    mSize = ShapedType::isDynamic(g.m)
                ? tensor::DimOp::create(rw, loc, g.dest, b).getResult()
                : idx(g.m);
    if (parallel)
      return emitParallelRowBlocks(tensors)[0];
    if (!g.batched)
      return emitRowBlocks(Value(), tensors)[0];
    Value batches = ShapedType::isDynamic(g.batch)
                        ? tensor::DimOp::create(rw, loc, g.dest, 0).getResult()
                        : idx(g.batch);
    auto loop = scf::ForOp::create(
        rw, loc, zeroIdx, batches, oneIdx, tensors,
        [&](OpBuilder &, Location, Value bIdx, ValueRange iterArgs) {
          if (rhsPack) {
            g.rhs = packRhsOfBatch(bIdx);
            if (g.pairs)
              g.rhs = flattenPairs(g.rhs);
          }
          scf::YieldOp::create(rw, loc, emitRowBlocks(bIdx, iterArgs));
        });
    return loop.getResult(0);
  }

  /// The packing of a batched GEMM's rhs, when the nest can do it one
  /// batch at a time: an activation's (a weight's packing is in <fn>.pack)
  /// with static shapes, used by the GEMM alone.
  static linalg::PackOp batchedRhsPack(const PackedGemmNest &g) {
    auto pack = g.batched ? g.rhs.getDefiningOp<linalg::PackOp>() : nullptr;
    if (!pack || !pack->hasOneUse() || !pack.getSourceType().hasStaticShape() ||
        !pack.getDestType().hasStaticShape() ||
        (!pack.getOuterDimsPerm().empty() && pack.getOuterDimsPerm()[0] != 0) ||
        llvm::is_contained(pack.getInnerDimsPos(), 0))
      return {};
    return pack;
  }

  /// The rhs panels of batch `bIdx` ([1, ...]): `rhsPack` applied to that
  /// batch's slice of its source, and the elementwise producer the packing
  /// absorbs (the conversion to bf16) to that batch's slice of its input.
  /// One batch's panels (the next batch reuses their memory) instead of
  /// all batches' up front: for a 16-batch bmm, 256 KB that the GEMM reads
  /// from the cache right after, instead of 4 MB allocated and faulted in
  /// on every call.
  Value packRhsOfBatch(Value bIdx) {
    auto sliceOf = [&](Value v) -> Value {
      auto type = cast<RankedTensorType>(v.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), rw.getIndexAttr(0));
      SmallVector<OpFoldResult> strides(type.getRank(), rw.getIndexAttr(1));
      SmallVector<OpFoldResult> sizes =
          getAsIndexOpFoldResult(rw.getContext(), type.getShape());
      offsets[0] = bIdx;
      sizes[0] = rw.getIndexAttr(1);
      return tensor::ExtractSliceOp::create(rw, loc, v, offsets, sizes,
                                            strides);
    };
    Value source;
    if (linalg::GenericOp producer = packProducer(rhsPack)) {
      Value input = sliceOf(producer.getDpsInputOperand(0)->get());
      auto resultType = cast<RankedTensorType>(producer.getResultTypes()[0]);
      Value init = tensor::EmptyOp::create(
          rw, loc, cast<RankedTensorType>(input.getType()).getShape(),
          resultType.getElementType());
      source = clone(rw, producer, init.getType(), ValueRange{input, init})
                   ->getResult(0);
    } else {
      source = sliceOf(rhsPack.getSource());
    }
    SmallVector<int64_t> destShape(rhsPack.getDestType().getShape());
    destShape[0] = 1;
    Value dest = tensor::EmptyOp::create(
        rw, loc, destShape, rhsPack.getDestType().getElementType());
    return linalg::PackOp::create(
        rw, loc, source, dest, rhsPack.getInnerDimsPos(),
        rhsPack.getMixedTiles(),
        rhsPack.getPaddingValue()
            ? std::optional<Value>(rhsPack.getPaddingValue())
            : std::nullopt,
        rhsPack.getOuterDimsPerm());
  }

private:
  Value idx(int64_t v) { return arith::ConstantIndexOp::create(rw, loc, v); }

  /// [..., panel, 2] collapsed to [..., 2 panel].
  Value flattenPairs(Value pairs) {
    int64_t rank = cast<RankedTensorType>(pairs.getType()).getRank();
    SmallVector<ReassociationIndices> groups;
    for (int64_t i = 0; i < rank - 2; ++i)
      groups.push_back({i});
    groups.push_back({rank - 2, rank - 1});
    return tensor::CollapseShapeOp::create(rw, loc, pairs, groups);
  }

  /// Indices [b?, i, j] of a [b?, m, n] tensor.
  SmallVector<Value> at(Value bIdx, Value i, Value j) {
    SmallVector<Value> r;
    if (bIdx)
      r.push_back(bIdx);
    r.push_back(i);
    r.push_back(j);
    return r;
  }

  /// A loop from 0 to `ub` carrying `iterArgs`; `body` returns the yielded
  /// values.
  scf::ForOp loop(Value ub, int64_t step, ValueRange iterArgs,
                  function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    return scf::ForOp::create(
        rw, loc, zeroIdx, ub, idx(step), iterArgs,
        [&](OpBuilder &, Location, Value iv, ValueRange args) {
          scf::YieldOp::create(rw, loc, body(iv, args));
        });
  }

  /// The number of mr-row panels that `rows` rows take.
  Value panelsOf(Value rows) {
    if (std::optional<int64_t> r = getConstantIntValue(rows))
      return idx(llvm::divideCeil(*r, g.mr));
    return affine::AffineApplyOp::create(
        rw, loc,
        AffineMap::get(1, 0,
                       getAffineDimExpr(0, rw.getContext()).ceilDiv(g.mr)),
        ValueRange{rows});
  }

  /// min(`size`, `bound` - `offset`).
  Value clipped(int64_t size, Value bound, Value offset) {
    Value rest = arith::SubIOp::create(rw, loc, bound, offset);
    return arith::MinSIOp::create(rw, loc, idx(size), rest);
  }
  Value clipped(int64_t size, int64_t bound, Value offset) {
    return clipped(size, idx(bound), offset);
  }

  /// True if every mr-row panel of the rows is full: a static m that mr
  /// divides.
  bool fullRowPanels() const {
    return !ShapedType::isDynamic(g.m) && g.m % g.mr == 0;
  }

  /// Row blocks of `mc` rows, then k blocks, then column panels and row
  /// panels; the lhs block is packed once per row block and k block.
  SmallVector<Value> emitRowBlocks(Value bIdx, ValueRange tensors) {
    SmallVector<Value> init(tensors);
    if (g.lhsPack)
      init.push_back(emptyLhsBlock());
    auto rowLoop = loop(mSize, mc, init, [&](Value ic, ValueRange args) {
      return emitKBlocks(bIdx, ic, rowsFrom(ic), args, tensors.size());
    });
    return SmallVector<Value>(rowLoop.getResults().take_front(tensors.size()));
  }

  /// The row blocks as an scf.forall (non-batched GEMMs with `parallel`):
  /// each iteration computes the rows [ic, ic + mcur) of every tensor in
  /// `tensors` on its own slices of them, with its own lhs block buffer,
  /// and inserts them back.
  SmallVector<Value> emitParallelRowBlocks(ValueRange tensors) {
    slicedRows = true;
    auto forall = scf::ForallOp::create(
        rw, loc, ArrayRef<OpFoldResult>{rw.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{getAsOpFoldResult(mSize)},
        ArrayRef<OpFoldResult>{rw.getIndexAttr(mc)}, tensors, std::nullopt,
        [&](OpBuilder &, Location, ValueRange args) {
          Value ic = args[0];
          ValueRange outs = args.drop_front();
          Value mcur = rowsFrom(ic);
          SmallVector<OpFoldResult> offsets = {ic, rw.getIndexAttr(0)};
          SmallVector<OpFoldResult> sizes = {getAsOpFoldResult(mcur),
                                             rw.getIndexAttr(g.n)};
          SmallVector<OpFoldResult> strides(2, rw.getIndexAttr(1));
          SmallVector<Value> init;
          for (Value out : outs)
            init.push_back(tensor::ExtractSliceOp::create(rw, loc, out, offsets,
                                                          sizes, strides));
          if (g.lhsPack)
            init.push_back(emptyLhsBlock());
          SmallVector<Value> rows =
              emitKBlocks(Value(), ic, mcur, init, tensors.size());
          auto inParallel = scf::InParallelOp::create(rw, loc);
          rw.setInsertionPointToStart(&inParallel.getRegion().front());
          for (auto [part, out] : llvm::zip(rows, outs))
            tensor::ParallelInsertSliceOp::create(rw, loc, part, out, offsets,
                                                  sizes, strides);
        });
    rw.setInsertionPointAfter(forall);
    return SmallVector<Value>(forall.getResults());
  }

  /// The rows of the row block from `ic`.
  Value rowsFrom(Value ic) {
    return ShapedType::isDynamic(g.m) ? clipped(mc, mSize, ic)
           : g.m % mc == 0            ? idx(mc)
           : g.m < mc                 ? idx(g.m)
                                      : clipped(mc, g.m, ic);
  }

  /// The buffer one row block's lhs is packed into: [mc/mr, kb, mr], or
  /// for pairs [mc/mr, kb/2, 2 mr].
  Value emptyLhsBlock() {
    int64_t kbAlloc = llvm::alignTo(kb, packStep());
    if (g.pairs)
      return tensor::EmptyOp::create(
          rw, loc,
          ArrayRef<int64_t>{mc / g.mr, kbAlloc / kDotPair, kDotPair * g.mr},
          g.operandType);
    return tensor::EmptyOp::create(
        rw, loc, ArrayRef<int64_t>{mc / g.mr, kbAlloc, g.mr}, g.accType);
  }

  /// The k blocks of the row block at `ic` (`mcur` rows): `args` are the
  /// first `numTensors` result tensors, then the lhs block buffer where
  /// the lhs is packed here; returns the tensors and the buffer.
  SmallVector<Value> emitKBlocks(Value bIdx, Value ic, Value mcur,
                                 ValueRange args, size_t numTensors) {
    auto kLoop = loop(idx(g.k), kb, args, [&](Value pc, ValueRange kArgs) {
      SmallVector<Value> state(kArgs);
      Value kcur = g.k % kb == 0 ? idx(kb) : clipped(kb, g.k, pc);
      Value block;
      if (g.lhsPack) {
        block = packLhsBlock(bIdx, ic, mcur, pc, kcur, state.back());
        state.back() = block;
      }
      SmallVector<Value> out =
          emitPanels(bIdx, ic, mcur, pc, kcur, block,
                     ValueRange(state).take_front(numTensors));
      if (g.lhsPack)
        out.push_back(block);
      return out;
    });
    return SmallVector<Value>(kLoop.getResults());
  }

  /// Packs rows [ic, ic + mcur) and k values [pc, pc + kcur) of the lhs
  /// into `buffer` [mc/mr, kb, mr]: kPackTile k values of one mr-row panel
  /// per step, read as an mr x kPackTile vector (zero beyond the shape) and
  /// written transposed. For pairs, into [mc/mr, kb/2, 2 mr]: 16 k values
  /// per step, viewed as mr x 8 32-bit pairs, transposed, and written as 8
  /// rows of the mr pairs of one k pair.
  Value packLhsBlock(Value bIdx, Value ic, Value mcur, Value pc, Value kcur,
                     Value buffer) {
    int64_t kt = packStep();
    Value panels = panelsOf(mcur);
    auto lhsType = cast<RankedTensorType>(g.lhs.getType());
    auto tileType = VectorType::get({g.mr, kt}, g.operandType);
    SmallVector<bool> inBounds = {fullRowPanels(),
                                  g.k % kt == 0 && kb % kt == 0};
    auto panelLoop = loop(panels, 1, buffer, [&](Value p, ValueRange pArgs) {
      Value row = arith::AddIOp::create(
          rw, loc, ic, arith::MulIOp::create(rw, loc, p, idx(g.mr)));
      auto kLoop = loop(kcur, kt, pArgs, [&](Value kk, ValueRange kArgs) {
        Value col = arith::AddIOp::create(rw, loc, pc, kk);
        Value tile = vector::TransferReadOp::create(
            rw, loc, tileType, g.lhs, at(bIdx, row, col), operandPad,
            AffineMap::getMinorIdentityMap(lhsType.getRank(), 2,
                                           rw.getContext()),
            inBounds);
        Value kRow = kk;
        if (g.pairs) {
          tile = transposePairs(tile);
          kRow = arith::DivUIOp::create(rw, loc, kk, idx(kDotPair));
        } else {
          tile = vector::TransposeOp::create(rw, loc, tile,
                                             ArrayRef<int64_t>{1, 0});
        }
        Value written =
            vector::TransferWriteOp::create(rw, loc, tile, kArgs[0],
                                            ValueRange{p, kRow, zeroIdx},
                                            ArrayRef<bool>{true, true})
                .getResult();
        return SmallVector<Value>{written};
      });
      return SmallVector<Value>(kLoop.getResults());
    });
    return panelLoop.getResult(0);
  }

  /// [rows, 2 w] 16-bit values -> [w, 2 rows]: the k pairs of each row
  /// transposed as 32-bit words.
  Value transposePairs(Value tile) {
    auto type = cast<VectorType>(tile.getType());
    int64_t rows = type.getDimSize(0), words = type.getDimSize(1) / kDotPair;
    auto i32 = rw.getI32Type();
    Value asWords = vector::BitCastOp::create(
        rw, loc, VectorType::get({rows, words}, i32), tile);
    Value transposed =
        vector::TransposeOp::create(rw, loc, asWords, ArrayRef<int64_t>{1, 0});
    return vector::BitCastOp::create(
        rw, loc,
        VectorType::get({words, kDotPair * rows}, type.getElementType()),
        transposed);
  }

  /// The pair-dot micro-kernel: over the k pairs of [pc, pc + kcur), one
  /// vector of the nr column pairs (two 512-bit halves of 16 columns for
  /// nr = 32), and for each of the mr rows its k pair broadcast as one
  /// 32-bit value and one dot product per half into the row's 16-lane
  /// accumulators of `acc0`.
  Value emitPairProducts(Value bIdx, Value panelRow, Value jr, Value pc,
                         Value kcur, Value block, Value acc0) {
    MLIRContext *ctx = rw.getContext();
    auto i32 = rw.getI32Type();
    int64_t halves = g.nr / kDotLanes;
    auto dotOperandType =
        VectorType::get({kDotPair * kDotLanes}, g.operandType);
    Value pairs = arith::CeilDivUIOp::create(rw, loc, kcur, idx(kDotPair));
    Value pcPairs = arith::DivUIOp::create(rw, loc, pc, idx(kDotPair));
    auto read1d = [&](Value source, ValueRange indices, int64_t size) {
      auto type = cast<ShapedType>(source.getType());
      return vector::TransferReadOp::create(
          rw, loc, VectorType::get({size}, g.operandType), source, indices,
          operandPad, AffineMap::getMinorIdentityMap(type.getRank(), 1, ctx),
          ArrayRef<bool>{true});
    };
    auto kLoop = loop(pairs, 1, acc0, [&](Value kIdx, ValueRange kArgs) {
      Value kAbs = arith::AddIOp::create(rw, loc, pcPairs, kIdx);
      SmallVector<Value> rhsIdx;
      if (bIdx)
        rhsIdx.push_back(rhsPack ? zeroIdx : bIdx);
      rhsIdx.append({jr, kAbs, zeroIdx});
      Value columns = read1d(g.rhs, rhsIdx, kDotPair * g.nr);
      SmallVector<Value> rhsHalves;
      for (int64_t h = 0; h < halves; ++h)
        rhsHalves.push_back(vector::ExtractStridedSliceOp::create(
            rw, loc, columns, ArrayRef<int64_t>{h * kDotPair * kDotLanes},
            ArrayRef<int64_t>{kDotPair * kDotLanes}, ArrayRef<int64_t>{1}));
      Value acc = kArgs[0];
      for (int64_t i = 0; i < g.mr; ++i) {
        SmallVector<Value> lhsIdx;
        if (bIdx && !g.lhsPack)
          lhsIdx.push_back(bIdx);
        lhsIdx.append({panelRow, g.lhsPack ? kIdx : kAbs, idx(kDotPair * i)});
        Value pair = read1d(g.lhsPack ? block : g.lhs, lhsIdx, kDotPair);
        Value word =
            vector::BitCastOp::create(rw, loc, VectorType::get({1}, i32), pair);
        Value splat = vector::BroadcastOp::create(
            rw, loc, VectorType::get({kDotLanes}, i32), word);
        Value lhsPairs =
            vector::BitCastOp::create(rw, loc, dotOperandType, splat);
        Value row = vector::ExtractOp::create(rw, loc, acc, i);
        for (int64_t h = 0; h < halves; ++h) {
          Value part = vector::ExtractStridedSliceOp::create(
              rw, loc, row, ArrayRef<int64_t>{h * kDotLanes},
              ArrayRef<int64_t>{kDotLanes}, ArrayRef<int64_t>{1});
          part = dot(part, lhsPairs, rhsHalves[h]);
          row = vector::InsertStridedSliceOp::create(
              rw, loc, part, row, ArrayRef<int64_t>{h * kDotLanes},
              ArrayRef<int64_t>{1});
        }
        acc = vector::InsertOp::create(rw, loc, row, acc, i);
      }
      return SmallVector<Value>{acc};
    });
    return kLoop.getResult(0);
  }

  /// `acc` plus, lane by lane, the products of the 16-bit pairs of `a` and
  /// `b`: vdpbf16ps (x86vector.avx512.dot) for bf16; vpdpwssd for i16, as
  /// inline assembly without side effects (an llvm.call_intrinsic has
  /// unknown memory effects, which the buffer deallocation after this pass
  /// rejects, and x86vector has no op for it).
  Value dot(Value acc, Value a, Value b) {
    if (g.operandType.isBF16())
      return x86vector::DotBF16Op::create(rw, loc, acc, a, b);
    auto asmDialect =
        LLVM::AsmDialectAttr::get(rw.getContext(), LLVM::AsmDialect::AD_ATT);
    return LLVM::InlineAsmOp::create(
               rw, loc, acc.getType(), ValueRange{a, b, acc},
               "vpdpwssd $2, $1, $0", "=v,v,v,0",
               /*has_side_effects=*/false, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None, asmDialect,
               /*operand_attrs=*/ArrayAttr())
        .getResult(0);
  }

  /// Column panels (all of them), then the row panels of the row block;
  /// one register tile each.
  SmallVector<Value> emitPanels(Value bIdx, Value ic, Value mcur, Value pc,
                                Value kcur, Value block, ValueRange tensors) {
    Value rowPanels = panelsOf(mcur);
    auto colLoop =
        loop(idx(llvm::divideCeil(g.n, g.nr)), 1, tensors,
             [&](Value jr, ValueRange cArgs) {
               auto rowLoop =
                   loop(rowPanels, 1, cArgs, [&](Value ir, ValueRange rArgs) {
                     return emitTile(bIdx, ic, ir, jr, pc, kcur, block, rArgs);
                   });
               return SmallVector<Value>(rowLoop.getResults());
             });
    return SmallVector<Value>(colLoop.getResults());
  }

  /// One mr x nr register tile: the accumulator (the init or fill in the
  /// first k block, the partial sums after), the k loop of outer products,
  /// then the partial sums, or the epilogue's result in the last k block.
  SmallVector<Value> emitTile(Value bIdx, Value ic, Value ir, Value jr,
                              Value pc, Value kcur, Value block,
                              ValueRange tensors) {
    MLIRContext *ctx = rw.getContext();
    auto tileType = VectorType::get({g.mr, g.nr}, g.accType);
    Value rowInBlock = arith::MulIOp::create(rw, loc, ir, idx(g.mr));
    Value row = arith::AddIOp::create(rw, loc, ic, rowInBlock);
    // The result tensors are the row block's slices in a parallel nest.
    Value destRow = slicedRows ? rowInBlock : row;
    Value col = arith::MulIOp::create(rw, loc, jr, idx(g.nr));
    SmallVector<bool> inBounds = {fullRowPanels(), g.n % g.nr == 0};
    Value accTensor = separateAcc ? tensors[1] : tensors[0];
    auto readTile = [&](Value source, Value r) -> Value {
      auto type = cast<ShapedType>(source.getType());
      return vector::TransferReadOp::create(
          rw, loc, tileType, source, at(bIdx, r, col), pad,
          AffineMap::getMinorIdentityMap(type.getRank(), 2, ctx), inBounds);
    };
    auto firstValue = [&]() -> Value {
      if (g.init)
        return readTile(g.init, row);
      return vector::BroadcastOp::create(rw, loc, tileType, g.fill);
    };
    Value acc0;
    if (numK == 1) {
      acc0 = firstValue();
    } else {
      Value first =
          arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq, pc, zeroIdx);
      auto ifOp = scf::IfOp::create(rw, loc, TypeRange{tileType}, first,
                                    /*withElseRegion=*/true);
      rw.setInsertionPointToStart(&ifOp.getThenRegion().front());
      scf::YieldOp::create(rw, loc, firstValue());
      rw.setInsertionPointToStart(&ifOp.getElseRegion().front());
      scf::YieldOp::create(rw, loc, readTile(accTensor, destRow));
      rw.setInsertionPointAfter(ifOp);
      acc0 = ifOp.getResult(0);
    }

    // The micro-kernel: mr lhs values and nr rhs values per k.
    Value panelRow =
        g.lhsPack
            ? ir
            : arith::AddIOp::create(
                  rw, loc, arith::DivUIOp::create(rw, loc, ic, idx(g.mr)), ir);
    Value acc =
        g.pairs ? emitPairProducts(bIdx, panelRow, jr, pc, kcur, block, acc0)
                : emitPanelProducts(bIdx, panelRow, jr, pc, kcur, block, acc0);
    return finishTile(bIdx, row, destRow, col, pc, acc, inBounds, tensors);
  }

  /// The f32 micro-kernel: over k in [pc, pc + kcur), the outer product of
  /// the mr lhs values and the nr rhs values of each k into `acc0`.
  Value emitPanelProducts(Value bIdx, Value panelRow, Value jr, Value pc,
                          Value kcur, Value block, Value acc0) {
    MLIRContext *ctx = rw.getContext();
    auto tileType = VectorType::get({g.mr, g.nr}, g.accType);
    Value lhsSource = g.lhsPack ? block : g.lhs;
    auto kLoop = loop(kcur, 1, acc0, [&](Value kIdx, ValueRange kArgs) {
      Value kAbs = arith::AddIOp::create(rw, loc, pc, kIdx);
      SmallVector<Value> lhsIdx, rhsIdx;
      if (bIdx && !g.lhsPack)
        lhsIdx.push_back(bIdx);
      lhsIdx.append({panelRow, g.lhsPack ? kIdx : kAbs, zeroIdx});
      if (bIdx)
        rhsIdx.push_back(rhsPack ? zeroIdx : bIdx);
      rhsIdx.append({jr, kAbs, zeroIdx});
      auto read = [&](Value source, ValueRange indices, int64_t size) {
        auto type = cast<ShapedType>(source.getType());
        return vector::TransferReadOp::create(
            rw, loc, VectorType::get({size}, g.accType), source, indices, pad,
            AffineMap::getMinorIdentityMap(type.getRank(), 1, ctx),
            ArrayRef<bool>{true});
      };
      Value a = read(lhsSource, lhsIdx, g.mr);
      Value bv = read(g.rhs, rhsIdx, g.nr);
      Value product = vector::OuterProductOp::create(
          rw, loc, tileType, a, bv, kArgs[0], vector::CombiningKind::ADD);
      return SmallVector<Value>{product};
    });
    return kLoop.getResult(0);
  }

  /// After a tile's k block: the partial sums written back, or after the
  /// last k block the tile (through the epilogue) written to the result.
  SmallVector<Value> finishTile(Value bIdx, Value row, Value destRow, Value col,
                                Value pc, Value acc, ArrayRef<bool> inBounds,
                                ValueRange tensors) {
    MLIRContext *ctx = rw.getContext();
    Value accTensor = separateAcc ? tensors[1] : tensors[0];
    auto writeTile = [&](Value value, Value dest, Value r) -> Value {
      auto type = cast<ShapedType>(dest.getType());
      return vector::TransferWriteOp::create(
                 rw, loc, value, dest, at(bIdx, r, col),
                 AffineMap::getMinorIdentityMap(type.getRank(), 2, ctx),
                 inBounds)
          .getResult();
    };
    auto finish = [&]() -> SmallVector<Value> {
      SmallVector<Value> out(tensors);
      if (!g.epilogue) {
        out[0] = writeTile(acc, tensors[0], destRow);
      } else if (!epilogueByRows) {
        out[0] = writeTile(applyEpilogue(acc, bIdx, row, col, inBounds),
                           tensors[0], destRow);
      } else {
        // The tile goes to the result as it is, and a loop applies the
        // epilogue to one row of it at a time (L1-resident): one copy of
        // its code instead of mr. The loop stops at the last row, so each
        // row is in bounds (only its columns may be masked).
        Value stored = writeTile(acc, tensors[0], destRow);
        auto rowType = VectorType::get({1, g.nr}, g.accType);
        SmallVector<bool> rowInBounds = {true, inBounds[1]};
        Value numRows = fullRowPanels()
                            ? idx(g.mr)
                            : arith::MinSIOp::create(
                                  rw, loc, idx(g.mr),
                                  arith::SubIOp::create(rw, loc, mSize, row));
        auto rows = loop(numRows, 1, stored, [&](Value i, ValueRange args) {
          Value r = arith::AddIOp::create(rw, loc, row, i);
          Value dr = arith::AddIOp::create(rw, loc, destRow, i);
          auto type = cast<ShapedType>(args[0].getType());
          AffineMap map =
              AffineMap::getMinorIdentityMap(type.getRank(), 2, ctx);
          Value values = vector::TransferReadOp::create(
              rw, loc, rowType, args[0], at(bIdx, dr, col), pad, map,
              rowInBounds);
          Value result = applyEpilogue(values, bIdx, r, col, rowInBounds);
          return SmallVector<Value>{
              vector::TransferWriteOp::create(
                  rw, loc, result, args[0], at(bIdx, dr, col), map, rowInBounds)
                  .getResult()};
        });
        out[0] = rows.getResult(0);
      }
      return out;
    };
    if (numK == 1)
      return finish();
    Value lastBlock = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::eq,
                                            pc, idx((numK - 1) * kb));
    auto ifOp = scf::IfOp::create(rw, loc, tensors.getTypes(), lastBlock,
                                  /*withElseRegion=*/true);
    rw.setInsertionPointToStart(&ifOp.getThenRegion().front());
    scf::YieldOp::create(rw, loc, finish());
    rw.setInsertionPointToStart(&ifOp.getElseRegion().front());
    SmallVector<Value> partial(tensors);
    partial[separateAcc ? 1 : 0] = writeTile(acc, accTensor, destRow);
    scf::YieldOp::create(rw, loc, partial);
    rw.setInsertionPointAfter(ifOp);
    return SmallVector<Value>(ifOp.getResults());
  }

  /// The epilogue's body on `acc`, the register tile or a row of it at
  /// (b?, row, col): its other inputs read as vectors of that shape through
  /// their indexing maps (a bias along columns is a broadcast row), its ops
  /// applied to vectors.
  Value applyEpilogue(Value acc, Value bIdx, Value row, Value col,
                      ArrayRef<bool> inBounds) {
    MLIRContext *ctx = rw.getContext();
    linalg::GenericOp e = g.epilogue;
    unsigned rank = e.getNumLoops();
    unsigned iDim = rank - 2, jDim = rank - 1;
    IRMapping mapping;
    Block *body = e.getBlock();
    ArrayRef<int64_t> shape = cast<VectorType>(acc.getType()).getShape();
    auto vectorOf = [&](Type t) { return VectorType::get(shape, t); };
    for (OpOperand *input : e.getDpsInputOperands()) {
      BlockArgument arg = body->getArgument(input->getOperandNumber());
      if (input->get() == g.unpack.getResult()) {
        mapping.map(arg, acc);
        continue;
      }
      Type elt = getElementTypeOrSelf(input->get().getType());
      auto shaped = dyn_cast<RankedTensorType>(input->get().getType());
      if (!shaped || shaped.getRank() == 0) {
        Value scalar = input->get();
        if (shaped)
          scalar = tensor::ExtractOp::create(rw, loc, scalar, ValueRange{});
        mapping.map(
            arg, vector::BroadcastOp::create(rw, loc, vectorOf(elt), scalar));
        continue;
      }
      AffineMap map = e.getMatchingIndexingMap(input);
      SmallVector<Value> indices;
      SmallVector<AffineExpr> perm(2, getAffineConstantExpr(0, ctx));
      SmallVector<bool> bounds = {true, true};
      for (auto [pos, expr] : llvm::enumerate(map.getResults())) {
        unsigned d = cast<AffineDimExpr>(expr).getPosition();
        if (d == iDim) {
          indices.push_back(row);
          perm[0] = getAffineDimExpr(pos, ctx);
          bounds[0] = inBounds[0];
        } else if (d == jDim) {
          indices.push_back(col);
          perm[1] = getAffineDimExpr(pos, ctx);
          bounds[1] = inBounds[1];
        } else {
          indices.push_back(bIdx);
        }
      }
      AffineMap permMap = AffineMap::get(map.getNumResults(), 0, perm, ctx);
      Value padValue =
          arith::ConstantOp::create(rw, loc, elt, rw.getZeroAttr(elt));
      mapping.map(arg, vector::TransferReadOp::create(
                           rw, loc, vectorOf(elt), input->get(), indices,
                           padValue, permMap, bounds));
    }
    return applyBodyToVectors(rw, loc, e, mapping, shape);
  }

  RewriterBase &rw;
  PackedGemmNest g;
  Location loc;
  int64_t mc = 0, kb = 0, numK = 0;
  /// The row blocks are an scf.forall.
  bool parallel = false;
  /// The result tensors in emitTile are the row block's slices.
  bool slicedRows = false;
  bool separateAcc = false;
  bool epilogueByRows = false;
  Value zeroIdx, oneIdx, pad, operandPad;
  /// The number of rows, at run time when m is dynamic.
  Value mSize;
  /// The packing of a batched GEMM's rhs that the nest does one batch at a
  /// time (packRhsOfBatch); null otherwise. Then `g.rhs` is the current
  /// batch's [1, ...] panels.
  linalg::PackOp rhsPack;
};

struct TileAndVectorizePass final
    : xpu::impl::XPUCPUTileAndVectorizePassBase<TileAndVectorizePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<int64_t> cache(cacheTile.begin(), cacheTile.end());
    SmallVector<int64_t> reg(registerTile.begin(), registerTile.end());
    // The packed-GEMM nest's blocks: from the CPU target's L2 per GEMM
    // (cpuNestCacheTile); without a CPU target an lhs block of 264 x 640
    // f32 (675 KiB), which stays in a 1 MiB L2 while every column panel
    // streams past it (measured on Zen 4 against [60, -, 256]: 2048^3
    // about 15% faster). Other tilings keep [64, 256, 256].
    SmallVector<int64_t> nestCache =
        cache.empty() ? SmallVector<int64_t>{264, 256, 640} : cache;
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
    TargetAttr target = TargetAttr::lookup(getOperation());
    // Packed GEMMs first: the loop nest of one absorbs the packing of its
    // lhs, its unpacking and its epilogue.
    SmallVector<linalg::LinalgOp> packedGemms;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isPackedGemm(op))
        packedGemms.push_back(op);
    });
    for (linalg::LinalgOp op : packedGemms) {
      // With `parallel`, the nest's row blocks are an scf.forall; a
      // batched GEMM is then tiled on its own, its batches an scf.forall.
      FailureOr<PackedGemmNest> nest =
          matchPackedGemmNest(cast<linalg::GenericOp>(op.getOperation()));
      bool pairs = isDotPairGemm(op);
      if (succeeded(nest) && parallel && nest->batched && !pairs)
        nest = failure();
      // The pair-dot form has no other tiling: its batches run in order.
      if (failed(nest) && pairs) {
        ++numScalar;
        remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotVectorized"))
            << remark::reason(
                   "pair-dot GEMM not in the nest's form (its product has "
                   "other users than the unpack, or a dynamic n or k); left "
                   "to the scalar lowering");
        continue;
      }
      // A tuned cache tile of this GEMM (xpu-cpu-apply-tuning-db) comes
      // first, then the pass's option, then the blocks derived from the
      // CPU target's L2.
      CpuTiles tiles = CpuTiles::get(op);
      if (succeeded(nest)) {
        SmallVector<int64_t> blocks = tiles.cacheTile;
        if (blocks.empty() && cacheTile.empty() && target && target.isCpu())
          blocks = cpuNestCacheTile(target.getSlmBytes(), nest->k, nest->mr);
        buildNest(rewriter, *nest, blocks.empty() ? nestCache : blocks);
      } else {
        tilePackedGemm(rewriter, op,
                       tiles.cacheTile.empty() ? cache : tiles.cacheTile);
      }
    }

    SmallVector<linalg::LinalgOp> gemms, elementwise, reductions;
    SmallVector<Operation *> relayouts;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::PackOp, linalg::UnPackOp>(op))
        relayouts.push_back(op);
    });
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        gemms.push_back(op);
      else if (isPackedGemm(op))
        return;
      else if (isAmxAccumulatorFill(op))
        return;
      else if (isa<linalg::GenericOp, linalg::FillOp>(op.getOperation()) &&
               op.getNumLoops() > 0 &&
               op.getNumParallelLoops() == op.getNumLoops())
        elementwise.push_back(op);
      else if (isRowReduction(op))
        reductions.push_back(op);
    });

    // Packs first: one whose source is an elementwise producer
    // (packProducer) applies the producer's body to the vectors it reads,
    // so the producer's result is never materialized.
    llvm::SmallPtrSet<Operation *, 4> fused;
    for (Operation *op : relayouts) {
      linalg::GenericOp producer;
      if (auto pack = dyn_cast<linalg::PackOp>(op))
        producer = packProducer(pack);
      if (!tileRelayout(rewriter, op) || !producer)
        continue;
      Location loc = producer.getLoc();
      if (succeeded(fusePackProducer(rewriter, producer))) {
        fused.insert(producer);
        remark::passed(loc, remarkOpts(kPassArg, "FusedIntoPack"))
            << remark::reason("elementwise op applied to the vectors the "
                              "linalg.pack of its result reads; its result "
                              "is not materialized");
      }
    }
    for (linalg::LinalgOp op : gemms) {
      CpuTiles tiles = CpuTiles::get(op);
      tileGemm(rewriter, op, tiles.cacheTile.empty() ? cache : tiles.cacheTile,
               tiles.registerTile.empty() ? reg : tiles.registerTile);
    }
    for (linalg::LinalgOp op : elementwise)
      if (!fused.contains(op))
        tileElementwise(rewriter, op);
    for (linalg::LinalgOp op : reductions)
      tileRowReduction(rewriter, op);

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

  /// Replaces a packed GEMM and the ops around it by one loop nest.
  void buildNest(RewriterBase &rewriter, PackedGemmNest g,
                 ArrayRef<int64_t> cache) {
    PackedGemmNestBuilder builder(rewriter, g, cache[0], cache[2], parallel);
    // The GEMM is erased below; the remark keeps its location.
    Location loc = g.gemm.getLoc();
    Operation *last =
        g.epilogue ? g.epilogue.getOperation() : g.unpack.getOperation();
    bool byRows = builder.appliesEpilogueByRows();
    // A batched rhs packed in the nest batch by batch: its packing of all
    // batches (and what that absorbed) goes with the GEMM.
    auto rhsPack = g.rhs.getDefiningOp<linalg::PackOp>();
    linalg::GenericOp rhsProducer = rhsPack ? packProducer(rhsPack) : nullptr;
    Value result = builder.build();
    Operation *initOp = g.gemm.getDpsInitOperand(0)->get().getDefiningOp();
    rewriter.replaceOp(last, result);
    // `last` is gone with the replacement: it must not be read again.
    for (Operation *op : {(Operation *)g.unpack.getOperation(),
                          (Operation *)g.gemm.getOperation(), initOp,
                          (Operation *)g.lhsPack.getOperation(),
                          (Operation *)rhsPack.getOperation(),
                          (Operation *)rhsProducer.getOperation()})
      if (op && op != last && op->use_empty())
        rewriter.eraseOp(op);
    ++numGemms;
    remark::passed(loc, remarkOpts(kPassArg, "Vectorized")) << remark::reason(
        "packed GEMM {0}x{1}x{2} as one loop nest: rows in {11}blocks of "
        "{3}{4}, k in {5} block(s) of {6}, [{7}, {8}] register tiles{12} "
        "written straight into the result{9}{10}{13}",
        dimString(g.m), g.n, g.k, builder.rowBlock(),
        g.lhsPack ? " (lhs packed per block)" : "", builder.numKBlocks(),
        builder.kBlock(), g.mr, g.nr,
        ShapedType::isDynamic(g.m) || g.m % g.mr || g.n % g.nr
            ? " (masked at the edges)"
            : "",
        !g.epilogue ? ""
        : byRows    ? ", epilogue applied to each tile row by row"
                    : ", epilogue applied to each tile in registers",
        builder.isParallel() ? "parallel (scf.forall) " : "",
        !g.pairs                 ? ""
        : g.operandType.isBF16() ? " of bf16 pair dot products (vdpbf16ps)"
                                 : " of i16 pair dot products (vpdpwssd)",
        builder.packsRhsPerBatch()
            ? "; the rhs (an activation) packed one batch at a time"
            : "");
  }

  /// The packed GEMM (xpu-cpu-pack-operands): loops (b?, M1, N1, K, mr,
  /// nr). Cache tiles of [mc/mr, nc/nr, kc] panels in n, k, m order, then
  /// one register tile (one mr-row panel times one nr-column panel) per
  /// step of the n, m and k loops: every tile is full, no masks.
  void tilePackedGemm(RewriterBase &rewriter, linalg::LinalgOp op,
                      ArrayRef<int64_t> cache) {
    if (!hasStaticPackedGemmLoops(op) || hasZeroTripLoop(op)) {
      ++numScalar;
      remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotVectorized"))
          << remark::reason("{0} has a dynamic n or k dimension or a "
                            "zero-size dimension; left to the scalar "
                            "lowering",
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
      if (batched && (ShapedType::isDynamic(bounds[0]) || bounds[0] > 1))
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
  /// nests if that fails. Returns whether the tiles were vectorized.
  bool tileRelayout(RewriterBase &rewriter, Operation *op) {
    auto sourceType = cast<RankedTensorType>(op->getOperand(0).getType());
    auto destType = cast<RankedTensorType>(op->getResult(0).getType());
    // A dynamic dimension (the rows of a dynamic batch) is stepped through
    // one panel or row at a time and masked at its edge, as a static one
    // that the tile does not divide; only the innermost dimension must be
    // static.
    if (!isa<linalg::PackOp, linalg::UnPackOp>(op) ||
        sourceType.isDynamicDim(sourceType.getRank() - 1) ||
        destType.isDynamicDim(destType.getRank() - 1)) {
      ++numScalar;
      return false;
    }
    SmallVector<int64_t> sizes, vectorSizes;
    if (auto packOp = dyn_cast<linalg::PackOp>(op)) {
      ArrayRef<int64_t> inner = packOp.getStaticInnerTiles();
      sizes.assign(sourceType.getRank(), 1);
      // A panel pack (one tiled dimension, k outermost-but-one): a block of
      // kPackTile k values of one panel per step. A pair-dot pack of a
      // source whose k is innermost ([n, k] into [N1, K2, nr, 2]):
      // kPackTile k pairs per step, contiguous rows of the source (the
      // transpose keeps the pairs: 32-bit words in LowerVectors).
      if (inner.size() == 1)
        sizes.back() = kPackTile;
      if (inner.size() == 2 && inner[1] == kDotPair &&
          packOp.getOuterDimsPerm().empty() &&
          packOp.getInnerDimsPos().back() == sourceType.getRank() - 1)
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
      signalPassFailure();
      return false;
    }
    if (failed(vectorize(rewriter, *tiled, vectorSizes))) {
      ++numScalar;
      return false;
    }
    return true;
  }

  /// A row reduction (softmax's max and sum, logsumexp, sums along rows):
  /// one row per step of the parallel loops; a row longer than
  /// elementwise-width is reduced in elementwise-width chunks into a vector
  /// of partial results (upstream's partial-reduction tiling), which one
  /// vector.multi_reduction merges after the row.
  void tileRowReduction(RewriterBase &rewriter, linalg::LinalgOp op) {
    // Rows are reduced one at a time: only the reduced dimension must be
    // static (the vectorizer's precondition is checked on static ops; a
    // dynamic one is checked on its row tile below).
    if (!hasStaticLoopsFrom(op, op.getNumLoops() - 1) ||
        (hasStaticTensorShapes(op) &&
         failed(linalg::vectorizeOpPrecondition(op)))) {
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
    // One row at a time: only the innermost loop must be static.
    if (!hasStaticLoopsFrom(op, op.getNumLoops() - 1) || hasZeroTripLoop(op)) {
      ++numScalar;
      return;
    }
    bool isStatic = hasStaticTensorShapes(op);
    if (isStatic && failed(linalg::vectorizeOpPrecondition(op))) {
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
