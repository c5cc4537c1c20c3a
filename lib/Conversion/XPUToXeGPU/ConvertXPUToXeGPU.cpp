//===- ConvertXPUToXeGPU.cpp - GEMM tiles -> workgroup-level XeGPU --------===//
//
// The Intel Xe (DPAS) backend of the schedule layer (GemmPrograms.h): every
// scf.forall of GEMM programs that xpu-schedule-gemm made becomes a kernel in
// its own gpu.module (so that it gets its own compiler options: the GRF
// mode), and every xpu.gemm_tile / xpu.gemm_fixup in it becomes
// workgroup-level XeGPU: 2D block descriptors, prefetch, DPAS, the fused
// epilogue. The operands arrive in the layout the kernel reads
// (xpu-materialize-layouts: bf16/f16, [k, n] rhs, legal pitches, per_col
// vectors of whole tiles, per_row / scalar panels), so the kernel does no
// layout work and the host none per call for weights.
//
// Catalog: mem_block_pointers / descriptor patterns (boundaries handled by
// the descriptor: descriptor_no_boundary_check_arg), grf_mode and
// int64_cast_for_large_batch_offsets. docs/Intel.md describes the kernels.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"
#include "xpu/Conversion/GemmBackends.h"
#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUSchedule/GemmPrograms.h"
#include "xpu/Conversion/XPUToXeGPU/XPUToXeGPU.h"
#include "xpu/Conversion/XPUToXeGPU/XeBackend.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/XeVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/XeGPU/IR/XeGPU.h"
#include "mlir/Dialect/XeGPU/Utils/XeGPUUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Target/LLVM/XeVM/Target.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCONVERTXPUTOXEGPUPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;
using namespace mlir::xpu::xe;

static constexpr StringLiteral kPassArg = "convert-xpu-to-xegpu";
/// The large register file option of IGC (ocloc -options, zeModuleCreate
/// build flags).
static constexpr StringLiteral kLargeGRFOption = "-ze-opt-large-register-file";
/// The tallest 2D block prefetch of 16-bit data (cl_intel_subgroup_2d_block_io:
/// 1 to 32 rows of 16 elements).
static constexpr int32_t kMaxPrefetchRows = 32;

namespace {

/// The kernel's view of one tile: the config's shapes.
struct TilePlan {
  int64_t tm, tn, tk, sgRows, sgCols, stages;
};

/// One buffer the kernel reads or writes, as a 2D surface per batch.
struct Surface {
  Value memref;
  Type elt;
  /// Logical rows and columns, and the row pitch in elements.
  int64_t rows, cols, pitch;
  /// True when every batch has its own slab of `batchStride` elements
  /// (rows of `pitch`; at least `rows` of them).
  bool perBatch;
  int64_t batchStride = 0;
  /// How an epilogue operand broadcasts over the tile (full for the GEMM's
  /// own operands and result).
  BroadcastKind kind = BroadcastKind::full;

  /// The width of the surface's descriptors on `target`: the logical
  /// columns widened to the narrowest width 2D block I/O accepts (>= 64
  /// bytes, a multiple of 4). The columns in between are padding of each row
  /// (zeros in operands, xpu-materialize-layouts; sliced off the result). A
  /// legal pitch (checked) of at least `cols` elements (the tile ops'
  /// verifiers) holds it.
  int64_t getWidth(TargetAttr target) const {
    return getBlockWidth(target, cols, elt);
  }
};

/// The surface of `memref` (rows of its last dimension, batch slabs of its
/// last two when `perBatch`) with the logical size `rows` x `cols`.
Surface makeSurface(Value memref, Type elt, int64_t rows, int64_t cols,
                    bool perBatch) {
  auto type = cast<MemRefType>(memref.getType());
  ArrayRef<int64_t> shape = type.getShape();
  Surface s{memref,  elt, rows, cols, shape.empty() ? 1 : shape.back(),
            perBatch};
  if (perBatch && shape.size() >= 2)
    s.batchStride = shape[shape.size() - 2] * s.pitch;
  return s;
}

xegpu::LayoutAttr makeLayout(MLIRContext *ctx, ArrayRef<int32_t> sgLayout,
                             ArrayRef<int32_t> sgData,
                             ArrayRef<int32_t> instData) {
  auto arr = [&](ArrayRef<int32_t> v) {
    return DenseI32ArrayAttr::get(ctx, v);
  };
  return xegpu::LayoutAttr::get(ctx, arr(sgLayout), arr(sgData), arr(instData),
                                nullptr, nullptr, nullptr);
}

/// The layouts of one kernel, from its config.
struct Layouts {
  xegpu::LayoutAttr a, b, c, prefetchA, prefetchB;
};

Layouts getLayouts(MLIRContext *ctx, const TilePlan &p) {
  int32_t rows = p.sgRows, cols = p.sgCols;
  int32_t blockM = p.tm / rows, blockN = p.tn / cols, tk = p.tk;
  Layouts l;
  // Every subgroup of a row reads the same A block and every subgroup of a
  // column the same B block; DPAS takes A as 8x16 and B as 16x16 pieces.
  l.a = makeLayout(ctx, {rows, cols}, {blockM, tk}, {kDpasM, kDpasK});
  l.b = makeLayout(ctx, {rows, cols}, {tk, blockN}, {kDpasK, kDpasN});
  l.c = makeLayout(ctx, {rows, cols}, {blockM, blockN}, {kDpasM, kDpasN});
  // Prefetches use the loads' subgroup layout (subgroups that share a
  // block prefetch it alike) with pieces as tall as the block allows: 2D
  // block prefetches of 16-bit data take up to 32 rows of 16 elements
  // (XeVM lowers wider pieces only as one 16-wide block), so a 32-row
  // piece is one message where 8-row pieces were four. Splitting the slices
  // among all subgroups without overlap (sg_layout [S, 1]) would prefetch less,
  // but its index arithmetic meets an LLVM 22.1.8 SPIR-V backend bug (an
  // OpBitwiseAnd of a 64-bit operand into a 32-bit result, rejected by
  // spirv-val; docs/Intel.md). B's prefetch layout must differ from B's own
  // anyway: CSE would merge equal descriptors, and a descriptor shared by a
  // prefetch and a load loses the load's packed lane layout.
  auto prefetchRows = [](int32_t rows) -> int32_t {
    for (int32_t r : {kMaxPrefetchRows, 16})
      if (rows % r == 0)
        return r;
    return kDpasM;
  };
  l.prefetchA = makeLayout(ctx, {rows, cols}, {blockM, tk},
                           {prefetchRows(blockM), kDpasK});
  // 16 rows would make B's prefetch layout B's own.
  int32_t bRows = tk % kMaxPrefetchRows == 0 ? kMaxPrefetchRows : kDpasM;
  l.prefetchB = makeLayout(ctx, {rows, cols}, {tk, blockN}, {bRows, kDpasN});
  return l;
}

/// The Xe tile emitter of one kernel.
class XeTileEmitter final : public GemmTileEmitter {
public:
  XeTileEmitter(TargetAttr target, const TilePlan &p, const Layouts &layouts)
      : target(target), p(p), layouts(layouts) {}

  LogicalResult emitTile(RewriterBase &rewriter, GemmTileOp op) override;
  LogicalResult emitFixup(RewriterBase &rewriter, GemmFixupOp op) override;

private:
  Value indexConst(OpBuilder &b, Location loc, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  /// The byte address of the surface's current batch, in i64.
  Value getBase(OpBuilder &b, Location loc, const Surface &s, Value batch);
  Value createDesc(OpBuilder &b, Location loc, Value base, const Surface &s,
                   ArrayRef<int64_t> block, xegpu::LayoutAttr layout);
  /// Checks that `s` is a legal 2D block surface; an error at `op` naming
  /// `what` otherwise.
  LogicalResult checkSurface(Operation *op, StringRef what, const Surface &s);
  /// Surfaces of the epilogue operands: full ones as they are, per_col ones
  /// as a row of whole tiles, per_row and scalar ones as panels.
  LogicalResult getEpilogueSurfaces(Operation *op, ValueRange operands,
                                    ArrayAttr broadcasts, int64_t m, int64_t n,
                                    bool batched,
                                    SmallVectorImpl<Surface> &surfaces);
  /// The tile's `p.tn` columns of the row vector `s` from column `n0`, each
  /// subgroup reading its own columns, broadcast to the accumulator's shape
  /// and layout.
  Value loadRowVector(OpBuilder &b, Location loc, const Surface &s, Value n0);
  /// Applies `epilogue` (vectorized op by op) to `acc` and stores the tile
  /// at (batch, m0, n0) of `c`.
  void storeOutput(OpBuilder &b, Location loc, Block &epilogue, Value acc,
                   ArrayRef<Surface> operands, const Surface &c, Value batch,
                   Value m0, Value n0);
  /// Vectorizes the epilogue over the accumulator tile; epilogue operand `i`
  /// is `loadOperand(i)`, called where the epilogue first reads it.
  Value applyEpilogue(OpBuilder &b, Location loc, Block &block, Value acc,
                      function_ref<Value(unsigned)> loadOperand);
  void setLayout(Operation *op, xegpu::DistributeLayoutAttr layout) {
    xegpu::setDistributeLayoutAttr(op->getResult(0), layout);
  }

  TargetAttr target;
  const TilePlan &p;
  const Layouts &layouts;
  /// The rows of the tile being emitted when its m is dynamic.
  Value dynamicRows;
};

Value XeTileEmitter::getBase(OpBuilder &b, Location loc, const Surface &s,
                             Value batch) {
  Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, s.memref);
  Value base = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), ptr);
  if (!s.perBatch)
    return base;
  // int64_cast_for_large_batch_offsets: batch * rows * pitch * bytes can
  // pass 2^31.
  Value batchI64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), batch);
  Value stride = arith::ConstantIntOp::create(
      b, loc, b.getI64Type(), s.batchStride * getElementBytes(s.elt));
  Value offset = arith::MulIOp::create(b, loc, batchI64, stride);
  return arith::AddIOp::create(b, loc, base, offset);
}

Value XeTileEmitter::createDesc(OpBuilder &b, Location loc, Value base,
                                const Surface &s, ArrayRef<int64_t> block,
                                xegpu::LayoutAttr layout) {
  auto type = xegpu::TensorDescType::get(block, s.elt, /*array_length=*/1,
                                         /*boundary_check=*/true,
                                         xegpu::MemorySpace::Global, layout);
  // A dynamic m: the rows the tile op reads at run time; the hardware's
  // boundary check then masks the last row of tiles as a static edge.
  SmallVector<OpFoldResult> shape = {ShapedType::isDynamic(s.rows)
                                         ? OpFoldResult(dynamicRows)
                                         : b.getIndexAttr(s.rows),
                                     b.getIndexAttr(s.getWidth(target))};
  SmallVector<OpFoldResult> strides = {b.getIndexAttr(s.pitch),
                                       b.getIndexAttr(1)};
  return xegpu::CreateNdDescOp::create(b, loc, type, base, shape, strides);
}

LogicalResult XeTileEmitter::checkSurface(Operation *op, StringRef what,
                                          const Surface &s) {
  int64_t bytes = getElementBytes(s.elt);
  int64_t minPitch = target.getBlock2dMinPitch();
  int64_t pitchAlign = target.getBlock2dPitchAlign();
  int64_t baseAlign = target.getBlock2dBaseAlign();
  if (s.pitch * bytes < minPitch || (s.pitch * bytes) % pitchAlign)
    return op->emitError() << kPassArg << ": " << what << " rows of " << s.pitch
                           << " x " << bytes
                           << " bytes are not a 2D block pitch (>= " << minPitch
                           << " bytes, a multiple of " << pitchAlign
                           << "); run xpu-materialize-layouts first";
  if (s.perBatch && (s.batchStride * bytes) % baseAlign)
    return op->emitError() << kPassArg << ": " << what << " batches of "
                           << s.batchStride * bytes << " bytes do not start "
                           << baseAlign
                           << "-byte aligned (2D block base addresses); run "
                              "xpu-materialize-layouts first";
  return success();
}

LogicalResult XeTileEmitter::getEpilogueSurfaces(
    Operation *op, ValueRange operands, ArrayAttr broadcasts, int64_t m,
    int64_t n, bool batched, SmallVectorImpl<Surface> &surfaces) {
  for (auto [i, v] : llvm::enumerate(operands)) {
    auto type = cast<MemRefType>(v.getType());
    BroadcastKind kind = cast<BroadcastKindAttr>(broadcasts[i]).getValue();
    Surface s = makeSurface(v, type.getElementType(), 0, 0,
                            kind == BroadcastKind::full && batched);
    s.kind = kind;
    std::string what = llvm::formatv("epilogue operand #{0}", i).str();
    if (kind == BroadcastKind::per_col) {
      // A row vector ([n], or row 0 of a rank-2 panel) of whole tiles: every
      // tile reads its tn columns without a bounds check.
      int64_t cols = type.getRank() ? type.getShape().back() : 0;
      int64_t tiles = llvm::alignTo(n, p.tn);
      if (!type.hasStaticShape() || type.getRank() > 2 || cols < tiles)
        return op->emitError()
               << kPassArg << ": " << what << " (per_col) " << type
               << " does not hold the " << tiles << " columns of whole " << p.tn
               << "-column tiles that the kernel reads; run "
                  "xpu-materialize-layouts first";
      s.rows = 1;
      s.cols = n;
      surfaces.push_back(s);
      continue;
    }
    if (kind != BroadcastKind::full && type.getRank() != 2)
      return op->emitError()
             << kPassArg << ": " << what << " (" << stringifyBroadcastKind(kind)
             << ") is not a panel the kernel can read with the accumulator's "
                "layout; run xpu-materialize-layouts first";
    switch (kind) {
    case BroadcastKind::full:
      s.rows = m;
      s.cols = n;
      break;
    case BroadcastKind::per_row:
      // A tile-wide panel of equal columns, read at the tile's rows.
      s.rows = m;
      s.cols = type.getDimSize(1);
      break;
    case BroadcastKind::scalar:
    case BroadcastKind::per_col:
      s.rows = type.getDimSize(0);
      s.cols = type.getDimSize(1);
      break;
    }
    if (kind == BroadcastKind::scalar && s.rows < p.tm)
      return op->emitError()
             << kPassArg << ": " << what << " panel has " << s.rows
             << " rows, fewer than the tile's " << p.tm;
    if ((kind == BroadcastKind::per_row || kind == BroadcastKind::scalar) &&
        s.cols < p.tn)
      return op->emitError()
             << kPassArg << ": " << what << " panel has " << s.cols
             << " columns, fewer than the tile's " << p.tn;
    if (failed(checkSurface(op, what, s)))
      return failure();
    surfaces.push_back(s);
  }
  return success();
}

Value XeTileEmitter::loadRowVector(OpBuilder &b, Location loc, const Surface &s,
                                   Value n0) {
  // Upstream 22.1.8 distributes no 2D block load of 1 x tn under a layout
  // of the accumulator's subgroup grid (1 row cannot be split among its
  // subgroup rows) and parses no descriptor with a slice layout, but it
  // distributes a gather whose layout is the accumulator's without its row
  // dimension (#xegpu.slice<c, dims = [0]>: the subgroups of one grid column
  // read the same tn / sg_cols columns, each lane one column per 16) and the
  // vector.broadcast of it to the accumulator's layout. Each lane then
  // holds its columns' values once, not once per accumulator row as a
  // tile-sized panel did (64 registers per operand at 32x32 blocks). The
  // stale inst-level slice layouts this leaves on the offsets are dropped
  // after xegpu-blocking (xpu-xegpu-drop-stale-slice-layouts).
  MLIRContext *ctx = b.getContext();
  auto layout =
      xegpu::SliceAttr::get(ctx, layouts.c, DenseI64ArrayAttr::get(ctx, {0}));
  Type i64 = b.getI64Type();
  Value col = arith::IndexCastUIOp::create(b, loc, i64, n0);
  Value bytes =
      arith::ConstantIntOp::create(b, loc, i64, getElementBytes(s.elt));
  Value addr = arith::AddIOp::create(b, loc, getBase(b, loc, s, Value()),
                                     arith::MulIOp::create(b, loc, col, bytes));
  Operation *offsets = arith::ConstantOp::create(
      b, loc,
      b.getIndexVectorAttr(llvm::to_vector(llvm::seq<int64_t>(0, p.tn))));
  setLayout(offsets, layout);
  Operation *mask = arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(VectorType::get({p.tn}, b.getI1Type()), true));
  setLayout(mask, layout);
  Value row = xegpu::LoadGatherOp::create(
      b, loc, VectorType::get({p.tn}, s.elt), addr, offsets->getResult(0),
      mask->getResult(0), IntegerAttr(), nullptr, nullptr, nullptr, layout);
  Operation *tile = vector::BroadcastOp::create(
      b, loc, VectorType::get({p.tm, p.tn}, s.elt), row);
  setLayout(tile, layouts.c);
  return tile->getResult(0);
}

Value XeTileEmitter::applyEpilogue(OpBuilder &b, Location loc, Block &block,
                                   Value acc,
                                   function_ref<Value(unsigned)> loadOperand) {
  IRMapping map;
  map.map(block.getArgument(0), acc);
  auto vectorOf = [&](Type t) { return VectorType::get({p.tm, p.tn}, t); };
  // Scalar constants (inside the region or captured) become splats.
  auto splat = [&](arith::ConstantOp cst) {
    auto attr = DenseElementsAttr::get(vectorOf(cst.getType()), cst.getValue());
    Operation *op = arith::ConstantOp::create(b, loc, attr);
    setLayout(op, layouts.c);
    return op->getResult(0);
  };
  auto lookup = [&](Value v) {
    if (Value mapped = map.lookupOrNull(v))
      return mapped;
    // An epilogue operand is read where the epilogue first needs it, so
    // that its tile (or broadcast row vector) is not live across the ops
    // before.
    if (auto arg = dyn_cast<BlockArgument>(v);
        arg && arg.getOwner() == &block) {
      Value loaded = loadOperand(arg.getArgNumber() - 1);
      map.map(v, loaded);
      return loaded;
    }
    Value s = splat(v.getDefiningOp<arith::ConstantOp>());
    map.map(v, s);
    return s;
  };
  for (Operation &op : block.without_terminator()) {
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      map.map(cst.getResult(), splat(cst));
      continue;
    }
    OperationState state(op.getLoc(), op.getName());
    for (Value v : op.getOperands())
      state.addOperands(lookup(v));
    state.addAttributes(op.getAttrs());
    state.addTypes(vectorOf(op.getResult(0).getType()));
    Operation *vec = b.create(state);
    setLayout(vec, layouts.c);
    map.map(op.getResult(0), vec->getResult(0));
  }
  return lookup(block.getTerminator()->getOperand(0));
}

void XeTileEmitter::storeOutput(OpBuilder &b, Location loc, Block &epilogue,
                                Value acc, ArrayRef<Surface> operands,
                                const Surface &c, Value batch, Value m0,
                                Value n0) {
  // The epilogue operands in the accumulator's layout: per_col ones from a
  // row vector, the others read as tiles of a matrix or a panel.
  Value zero = indexConst(b, loc, 0);
  auto loadOperand = [&](unsigned i) -> Value {
    const Surface &s = operands[i];
    if (s.kind == BroadcastKind::per_col)
      return loadRowVector(b, loc, s, n0);
    Value desc = createDesc(b, loc, getBase(b, loc, s, batch), s, {p.tm, p.tn},
                            layouts.c);
    bool full = s.kind == BroadcastKind::full;
    Value row = full || s.kind == BroadcastKind::per_row ? m0 : zero;
    Value col = full ? n0 : zero;
    return xegpu::LoadNdOp::create(b, loc, VectorType::get({p.tm, p.tn}, s.elt),
                                   desc, ArrayRef<OpFoldResult>{row, col},
                                   nullptr, nullptr, nullptr, nullptr, nullptr,
                                   layouts.c);
  };
  Value result = applyEpilogue(b, loc, epilogue, acc, loadOperand);
  Value cDesc =
      createDesc(b, loc, getBase(b, loc, c, batch), c, {p.tm, p.tn}, layouts.c);
  xegpu::StoreNdOp::create(b, loc, result, cDesc,
                           ArrayRef<OpFoldResult>{m0, n0}, nullptr, nullptr,
                           nullptr, layouts.c);
}

LogicalResult XeTileEmitter::emitTile(RewriterBase &rewriter, GemmTileOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  bool batched = op.isBatched();
  int64_t m = op.getM(), n = op.getN(), k = op.getK();
  if (op.getResult() == TileResult::atomic_add)
    return op.emitError() << kPassArg
                          << ": the Xe kernels have no atomic Stream-K fix-up "
                             "(2D block stores are not atomic); use "
                             "fixup=deterministic";
  if (op.getRhsLayout() != RhsLayout::kn)
    return op.emitError() << kPassArg
                          << ": the DPAS kernels read a [k, n] rhs; run "
                             "xpu-materialize-layouts first";
  Type inElt = op.getLhsType().getElementType();
  if (!isDpasOperandType(inElt))
    return op.emitError() << kPassArg << ": " << inElt
                          << " operands: DPAS takes f16 or bf16; run "
                             "xpu-materialize-layouts first";
  dynamicRows = op.getRows();
  Surface a = makeSurface(op.getLhs(), inElt, m, k, batched);
  Surface bs = makeSurface(op.getRhs(), inElt, k, n, batched);
  if (failed(checkSurface(op, "A", a)) || failed(checkSurface(op, "B", bs)))
    return failure();
  bool output = op.getResult() == TileResult::output;
  Surface c;
  if (output) {
    c = makeSurface(op.getDest(), op.getDestType().getElementType(), m, n,
                    batched);
    if (failed(checkSurface(op, "the result", c)))
      return failure();
    if (!isKernelType(c.elt))
      return op.emitError() << kPassArg << ": the kernel cannot store " << c.elt
                            << "; run xpu-materialize-layouts first";
  } else {
    // The workspace as one surface of slots * tm rows of tn f32.
    c = {op.getDest(), b.getF32Type(), op.getDestType().getDimSize(0) * p.tm,
         p.tn,         p.tn,           false};
  }
  SmallVector<Surface> operands;
  if (failed(getEpilogueSurfaces(op, op.getEpilogueOperands(),
                                 op.getBroadcasts(), m, n, batched, operands)))
    return failure();

  Value batch = op.getBatch(), m0 = op.getM0(), n0 = op.getN0();
  Value aBase = getBase(b, loc, a, batch), bBase = getBase(b, loc, bs, batch);
  Value aDesc = createDesc(b, loc, aBase, a, {p.tm, p.tk}, layouts.a);
  Value bDesc = createDesc(b, loc, bBase, bs, {p.tk, p.tn}, layouts.b);

  // Prefetch `distance` K-steps ahead: stages - 1, at most the K-steps of
  // the whole K after the first.
  int64_t distance =
      std::min<int64_t>(p.stages - 1, llvm::divideCeil(k, p.tk) - 1);
  Value aPrefetch, bPrefetch;
  auto prefetch = [&](Value kOffset) {
    xegpu::PrefetchNdOp::create(b, loc, aPrefetch,
                                ArrayRef<OpFoldResult>{m0, kOffset}, nullptr,
                                nullptr, nullptr, layouts.prefetchA);
    xegpu::PrefetchNdOp::create(b, loc, bPrefetch,
                                ArrayRef<OpFoldResult>{kOffset, n0}, nullptr,
                                nullptr, nullptr, layouts.prefetchB);
  };
  Value kBegin = op.getKBegin(), kEnd = op.getKEnd();
  if (distance > 0) {
    aPrefetch = createDesc(b, loc, aBase, a, {p.tm, p.tk}, layouts.prefetchA);
    bPrefetch = createDesc(b, loc, bBase, bs, {p.tk, p.tn}, layouts.prefetchB);
    for (int64_t i = 0; i < distance; ++i)
      prefetch(
          arith::AddIOp::create(b, loc, kBegin, indexConst(b, loc, i * p.tk)));
  }

  // The K loop: one A and one B block per step into DPAS. Descriptors read
  // zeros past K, so a tail step adds nothing from outside the matrix.
  Type f32 = b.getF32Type();
  auto accType = VectorType::get({p.tm, p.tn}, f32);
  Operation *init = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  setLayout(init, layouts.c);
  auto loop = scf::ForOp::create(
      b, loc, kBegin, kEnd, indexConst(b, loc, p.tk),
      ValueRange{init->getResult(0)},
      [&](OpBuilder &lb, Location l, Value kk, ValueRange iterArgs) {
        Value av = xegpu::LoadNdOp::create(
            lb, l, VectorType::get({p.tm, p.tk}, inElt), aDesc,
            ArrayRef<OpFoldResult>{m0, kk}, nullptr, nullptr, nullptr, nullptr,
            nullptr, layouts.a);
        Value bv = xegpu::LoadNdOp::create(
            lb, l, VectorType::get({p.tk, p.tn}, inElt), bDesc,
            ArrayRef<OpFoldResult>{kk, n0}, nullptr, nullptr, nullptr, nullptr,
            nullptr, layouts.b);
        if (distance > 0) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointAfterValue(bv);
          Value ahead = arith::AddIOp::create(
              lb, l, kk, indexConst(lb, l, distance * p.tk));
          prefetch(ahead);
        }
        Value d = xegpu::DpasOp::create(lb, l, accType, av, bv, iterArgs[0],
                                        layouts.a, layouts.b, layouts.c);
        scf::YieldOp::create(lb, l, d);
      });
  Value acc = loop.getResult(0);

  if (output) {
    storeOutput(b, loc, op.getEpilogueBlock(), acc, operands, c, batch, m0, n0);
  } else {
    // The partial sums, every element of slot `slot`.
    Value cDesc = createDesc(b, loc, getBase(b, loc, c, Value()), c,
                             {p.tm, p.tn}, layouts.c);
    Value row =
        arith::MulIOp::create(b, loc, op.getSlot(), indexConst(b, loc, p.tm));
    xegpu::StoreNdOp::create(b, loc, acc, cDesc,
                             ArrayRef<OpFoldResult>{row, indexConst(b, loc, 0)},
                             nullptr, nullptr, nullptr, layouts.c);
  }
  rewriter.eraseOp(op);
  return success();
}

LogicalResult XeTileEmitter::emitFixup(RewriterBase &rewriter, GemmFixupOp op) {
  OpBuilder &b = rewriter;
  Location loc = op.getLoc();
  bool batched = op.getDestType().getRank() == 3;
  int64_t m = op.getM(), n = op.getN();
  Surface c = makeSurface(op.getDest(), op.getDestType().getElementType(), m, n,
                          batched);
  if (failed(checkSurface(op, "the result", c)))
    return failure();
  auto wsType = cast<MemRefType>(op.getWorkspace().getType());
  Surface ws{op.getWorkspace(),
             b.getF32Type(),
             wsType.getDimSize(0) * p.tm,
             p.tn,
             p.tn,
             false};
  SmallVector<Surface> operands;
  if (failed(getEpilogueSurfaces(op, op.getEpilogueOperands(),
                                 op.getBroadcasts(), m, n, batched, operands)))
    return failure();
  Value wsDesc = createDesc(b, loc, getBase(b, loc, ws, Value()), ws,
                            {p.tm, p.tn}, layouts.c);
  auto accType = VectorType::get({p.tm, p.tn}, b.getF32Type());
  Value tm = indexConst(b, loc, p.tm), zero = indexConst(b, loc, 0);
  auto loadSlot = [&](OpBuilder &lb, Location l, Value slot) -> Value {
    Value row = arith::MulIOp::create(lb, l, slot, tm);
    return xegpu::LoadNdOp::create(
        lb, l, accType, wsDesc, ArrayRef<OpFoldResult>{row, zero}, nullptr,
        nullptr, nullptr, nullptr, nullptr, layouts.c);
  };
  // The first slot, then the others in slot order: a fixed summation order.
  Value first = op.getFirstSlot();
  Value init = loadSlot(b, loc, first);
  auto loop = scf::ForOp::create(
      b, loc, indexConst(b, loc, 1), op.getNumSlots(), indexConst(b, loc, 1),
      ValueRange{init},
      [&](OpBuilder &lb, Location l, Value s, ValueRange iterArgs) {
        Value slot = arith::AddIOp::create(lb, l, first, s);
        Operation *sum =
            arith::AddFOp::create(lb, l, iterArgs[0], loadSlot(lb, l, slot));
        setLayout(sum, layouts.c);
        scf::YieldOp::create(lb, l, sum->getResult(0));
      });
  storeOutput(b, loc, op.getEpilogueBlock(), loop.getResult(0), operands, c,
              op.getBatch(), op.getM0(), op.getN0());
  rewriter.eraseOp(op);
  return success();
}

} // namespace

void mlir::xpu::populateXPUXeEpilogueMathPatterns(RewritePatternSet &patterns) {
  populatePolynomialApproximateErfPattern(patterns);
  populatePolynomialApproximateErfcPattern(patterns);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertXPUToXeGPUPass final
    : xpu::impl::XPUConvertXPUToXeGPUPassBase<ConvertXPUToXeGPUPass> {
  using Base::Base;

  /// The launches it creates exist before bufferization (their effects let
  /// buffer deallocation place frees after them), and its kernels carry an
  /// #xevm.target that gpu-module-to-binary serializes: both models come
  /// with this pass, not with loading the xpu dialect.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerGPULaunchMemoryEffectsModel(registry);
    xevm::registerXeVMTargetInterfaceExternalModels(registry);
    // For the earlier passes of a pipeline run without registerXPUDialect
    // (a pass plugin alone): xpu-materialize-layouts, xpu-schedule-gemm.
    registerXeGemmBackend(registry);
  }

  void runOnOperation() override;
  LogicalResult convert(RewriterBase &rewriter, scf::ForallOp programs,
                        TargetAttr target, StringRef name);
};

LogicalResult ConvertXPUToXeGPUPass::convert(RewriterBase &rewriter,
                                             scf::ForallOp programs,
                                             TargetAttr target,
                                             StringRef name) {
  MLIRContext *ctx = &getContext();
  Location loc = programs.getLoc();
  FailureOr<ConfigAttr> config = getProgramsConfig(programs);
  if (failed(config))
    return failure();
  if (!config->getXe())
    return emitError(loc) << kPassArg << ": the config " << *config
                          << " is not for the Xe backend (no #xpu.xe knobs)";
  std::string why;
  if (failed(xe::checkConfig(target, *config, why)))
    return emitError(loc) << kPassArg << ": " << why;
  // Scalar math without a native Xe lowering (erf, erfc) becomes
  // polynomials before the epilogue is vectorized.
  RewritePatternSet mathPatterns(ctx);
  populateXPUXeEpilogueMathPatterns(mathPatterns);
  FrozenRewritePatternSet frozenMath(std::move(mathPatterns));
  SmallVector<Region *> epilogues;
  programs.getBody()->walk([&](Operation *op) {
    if (auto tile = dyn_cast<GemmTileOp>(op))
      epilogues.push_back(&tile.getEpilogue());
    else if (auto fixup = dyn_cast<GemmFixupOp>(op))
      epilogues.push_back(&fixup.getEpilogue());
  });
  for (Region *r : epilogues)
    (void)applyPatternsGreedily(*r, frozenMath);

  ArrayRef<int64_t> tile = config->getTile();
  TilePlan p{tile[0],
             tile[1],
             tile[2],
             config->getSubgroups()[0],
             config->getSubgroups()[1],
             config->getStages()};
  Layouts layouts = getLayouts(ctx, p);
  DictionaryAttr flags;
  if (config->getGrfMode() == 256) {
    flags = rewriter.getDictionaryAttr(rewriter.getNamedAttr(
        "cmd-options",
        rewriter.getArrayAttr({rewriter.getStringAttr(kLargeGRFOption)})));
    remark::passed(loc, remarkOpts(kPassArg, "GRFMode"))
        << remark::reason("kernel {0} compiled in 256-GRF mode ({1}), as "
                          "the config asks",
                          name, kLargeGRFOption);
  }
  auto xevmTarget = xevm::XeVMTargetAttr::get(
      ctx, /*optLevel=*/2, "spirv64-unknown-unknown", target.getChip(), flags);
  int64_t threads = p.sgRows * p.sgCols * kLanes;
  XeTileEmitter emitter(target, p, layouts);
  int64_t count = getProgramCount(programs);
  bool fixup = false;
  programs.getBody()->walk([&](GemmFixupOp) { fixup = true; });
  FailureOr<gpu::GPUFuncOp> kernel = lowerProgramsToKernel(
      rewriter, programs, getOperation(), name,
      rewriter.getArrayAttr({xevmTarget}), threads, emitter);
  if (failed(kernel))
    return failure();
  std::string countText = ShapedType::isDynamic(count)
                              ? std::string("(counted at run time)")
                              : std::to_string(count);
  if (fixup)
    remark::passed(loc, remarkOpts(kPassArg, "Kernel")) << remark::reason(
        "kernel {0}: {1} workgroups of {2} work-items "
        "({3}x{4} subgroups of 16 lanes), each sums the "
        "{5}x{6} partial tiles of one split tile in slot "
        "order (2D block reads) and applies the epilogue",
        name, countText, threads, p.sgRows, p.sgCols, p.tm, p.tn);
  else
    remark::passed(loc, remarkOpts(kPassArg, "Kernel"))
        << remark::reason("kernel {0}: {1} workgroups of {2} work-items "
                          "({3}x{4} subgroups of 16 lanes), tile {5}x{6}x{7}, "
                          "DPAS 8x16x16, prefetch {8} K-step(s) ahead",
                          name, countText, threads, p.sgRows, p.sgCols, p.tm,
                          p.tn, p.tk, p.stages - 1);
  ++numKernels;
  return success();
}

void ConvertXPUToXeGPUPass::runOnOperation() {
  ModuleOp module = getOperation();
  WalkResult unscheduled = module.walk([&](GemmOp gemm) {
    gemm.emitError() << kPassArg
                     << ": xpu.gemm is not scheduled; run xpu-select-strategy, "
                        "xpu-materialize-layouts and xpu-schedule-gemm first";
    return WalkResult::interrupt();
  });
  if (unscheduled.wasInterrupted())
    return signalPassFailure();
  SmallVector<scf::ForallOp> programs = collectGemmPrograms(module);
  if (programs.empty())
    return;
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  UnitAttr::get(&getContext()));
  TargetAttr target = resolveTarget(module);
  IRRewriter rewriter(&getContext());
  DenseMap<Operation *, unsigned> counters;
  for (scf::ForallOp forall : programs) {
    auto func = forall->getParentOfType<func::FuncOp>();
    unsigned &counter = counters[func];
    // A Stream-K fix-up kernel follows its GEMM's main kernel and is named
    // after it. Kernel names are identifiers for every driver: no dots
    // (from <fn>.packed).
    bool fixup = false;
    forall.getBody()->walk([&](GemmFixupOp) { fixup = true; });
    std::string name =
        fixup ? llvm::formatv("{0}_xe_gemm{1}_fixup",
                              func ? func.getSymName() : "gemm", counter - 1)
                    .str()
              : llvm::formatv("{0}_xe_gemm{1}",
                              func ? func.getSymName() : "gemm", counter++)
                    .str();
    std::replace(name.begin(), name.end(), '.', '_');
    if (failed(convert(rewriter, forall, target, name)))
      return signalPassFailure();
  }
}
} // namespace
