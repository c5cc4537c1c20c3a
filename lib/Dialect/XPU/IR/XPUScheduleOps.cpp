//===- XPUScheduleOps.cpp - xpu.gemm_tile and xpu.gemm_fixup -------------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::xpu;

namespace {

/// Checks `type` (a buffer of the tile ops) against a logical shape: same
/// rank, static, the last dimension at least as wide (a row pitch), the one
/// before it at least as tall (rows padded so that each batch's slab starts
/// aligned), the others equal. A dynamic logical dimension (a dynamic m) is
/// dynamic in `type` too, and only it.
LogicalResult verifyPitched(Operation *op, StringRef what, MemRefType type,
                            ArrayRef<int64_t> logical) {
  if (!type.getLayout().isIdentity() ||
      type.getRank() != int64_t(logical.size()) ||
      llvm::any_of(llvm::zip(type.getShape(), logical), [](auto dims) {
        auto [have, want] = dims;
        return ShapedType::isDynamic(have) != ShapedType::isDynamic(want);
      }))
    return op->emitOpError()
           << what << " must be a memref of rank " << logical.size()
           << " with the identity layout, dynamic only where the logical "
              "shape is (m of a dynamic-rows tile), got "
           << type;
  ArrayRef<int64_t> shape = type.getShape();
  for (auto [i, d] : llvm::enumerate(logical)) {
    if (ShapedType::isDynamic(d))
      continue;
    bool padded = i + 2 >= logical.size();
    if (padded ? shape[i] < d : shape[i] != d) {
      InFlightDiagnostic diag = op->emitOpError()
                                << what << " " << type
                                << " does not hold the logical shape [";
      llvm::interleaveComma(logical, diag);
      return diag << "] (only the last two dimensions may be larger: the "
                     "row pitch and padded rows)";
    }
  }
  return success();
}

/// The epilogue operands against their broadcast kinds: `scalar` rank 0,
/// `per_row` [m], `per_col` [n], `full` like the result, or a rank-2 panel
/// for the first three.
LogicalResult verifyEpilogueOperands(Operation *op, ValueRange operands,
                                     ArrayAttr broadcasts,
                                     ArrayRef<int64_t> result, int64_t m,
                                     int64_t n) {
  if (broadcasts.size() != operands.size())
    return op->emitOpError()
           << "has " << operands.size() << " epilogue operands but "
           << broadcasts.size() << " broadcast kinds";
  for (auto [i, v] : llvm::enumerate(operands)) {
    auto type = cast<MemRefType>(v.getType());
    BroadcastKind kind = cast<BroadcastKindAttr>(broadcasts[i]).getValue();
    std::string what = llvm::formatv("epilogue operand #{0}", i).str();
    if (kind == BroadcastKind::full) {
      if (failed(verifyPitched(op, what, type, result)))
        return failure();
      continue;
    }
    if (type.getRank() == 2) {
      // A panel: rows that are all equal.
      int64_t rows = kind == BroadcastKind::per_row ? m : 1;
      int64_t cols = kind == BroadcastKind::per_col ? n : 1;
      bool dynamicRows = ShapedType::isDynamic(rows);
      if (type.isDynamicDim(1) || type.isDynamicDim(0) != dynamicRows ||
          (!dynamicRows && type.getDimSize(0) < rows) ||
          type.getDimSize(1) < cols)
        return op->emitOpError()
               << what << " is a " << stringifyBroadcastKind(kind) << " panel "
               << type << " smaller than [" << rows << ", " << cols << "]";
      continue;
    }
    SmallVector<int64_t> expected;
    if (kind == BroadcastKind::per_row)
      expected = {m};
    else if (kind == BroadcastKind::per_col)
      expected = {n};
    if (type.getShape() != ArrayRef<int64_t>(expected) ||
        !type.getLayout().isIdentity()) {
      InFlightDiagnostic diag =
          op->emitOpError() << what << " is " << stringifyBroadcastKind(kind)
                            << " and must have shape [";
      llvm::interleaveComma(expected, diag);
      return diag << "] (or be a rank-2 panel), got " << type;
    }
  }
  return success();
}

/// The epilogue block: the accumulator, one element per operand, a yield of
/// `yieldType`.
LogicalResult verifyEpilogueRegion(Operation *op, Block &block, Type accType,
                                   ValueRange operands, Type yieldType) {
  unsigned numExpected = operands.size() + 1;
  if (block.getNumArguments() != numExpected)
    return op->emitOpError()
           << "epilogue block must have " << numExpected
           << " arguments (the accumulator, then one per epilogue operand), "
              "got "
           << block.getNumArguments();
  if (block.getArgument(0).getType() != accType)
    return op->emitOpError()
           << "epilogue block argument #0 must have the accumulator type "
           << accType << ", got " << block.getArgument(0).getType();
  for (auto [i, v] : llvm::enumerate(operands)) {
    Type elt = cast<ShapedType>(v.getType()).getElementType();
    if (block.getArgument(i + 1).getType() != elt)
      return op->emitOpError()
             << "epilogue block argument #" << i + 1
             << " must have the element type of epilogue operand #" << i << " ("
             << elt << ")";
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return op->emitOpError() << "epilogue must end with xpu.yield";
  if (yield.getValue().getType() != yieldType)
    return yield.emitOpError()
           << "yields " << yield.getValue().getType()
           << " but the stored element type is " << yieldType;
  return success();
}

/// `dims` is [batch, m, n, k], all positive; m may be dynamic where
/// `dynamicM` allows it.
LogicalResult verifyDims(Operation *op, ArrayRef<int64_t> dims,
                         bool dynamicM = false) {
  if (dims.size() != 4 || llvm::any_of(llvm::enumerate(dims), [&](auto d) {
        return d.value() <= 0 && !(dynamicM && d.index() == 1 &&
                                   ShapedType::isDynamic(d.value()));
      }))
    return op->emitOpError()
           << "dims must be four positive sizes [batch, m, n, k]"
           << (dynamicM ? " (m may be ?)" : "");
  return success();
}

/// A Stream-K workspace: `[slots, tile_m, tile_n]` f32.
LogicalResult verifyWorkspace(Operation *op, MemRefType type,
                              ConfigAttr config) {
  ArrayRef<int64_t> tile = config.getTile();
  if (type.getRank() != 3 || !type.hasStaticShape() ||
      !type.getLayout().isIdentity() || type.getDimSize(1) != tile[0] ||
      type.getDimSize(2) != tile[1] || !type.getElementType().isF32())
    return op->emitOpError() << "the workspace must be memref<S x " << tile[0]
                             << " x " << tile[1] << " x f32>, got " << type;
  return success();
}

SmallVector<int64_t> resultShape(bool batched, ArrayRef<int64_t> dims) {
  if (batched)
    return {dims[0], dims[1], dims[2]};
  return {dims[1], dims[2]};
}

} // namespace

//===----------------------------------------------------------------------===//
// GemmTileOp
//===----------------------------------------------------------------------===//

BroadcastKind GemmTileOp::getBroadcastKind(unsigned i) {
  return cast<BroadcastKindAttr>(getBroadcasts()[i]).getValue();
}

LogicalResult GemmTileOp::verify() {
  if (failed(verifyDims(*this, getDims(), /*dynamicM=*/true)))
    return failure();
  int64_t b = getBatchSize(), m = getM(), n = getN(), k = getK();
  bool batched = getLhsType().getRank() == 3;
  if (hasDynamicM() != bool(getRows()))
    return emitOpError() << "has a `rows` operand exactly when dims has a "
                            "dynamic m (?), got dims m = "
                         << (hasDynamicM() ? "?" : std::to_string(m))
                         << (getRows() ? " with" : " without") << " rows";
  if (hasDynamicM() && (batched || getResult() != TileResult::output))
    return emitOpError() << "a dynamic m is supported for unbatched output "
                            "tiles only";
  SmallVector<int64_t> lead;
  if (batched)
    lead.push_back(b);
  else if (b != 1)
    return emitOpError() << "a rank-2 lhs has batch 1, dims say " << b;
  auto shape = [&](int64_t rows, int64_t cols) {
    SmallVector<int64_t> s(lead);
    s.append({rows, cols});
    return s;
  };
  if (failed(verifyPitched(*this, "lhs", getLhsType(), shape(m, k))))
    return failure();
  bool nk = getRhsLayout() == RhsLayout::nk;
  if (failed(verifyPitched(*this, "rhs", getRhsType(),
                           nk ? shape(n, k) : shape(k, n))))
    return failure();
  if (getLhsType().getElementType() != getRhsType().getElementType())
    return emitOpError() << "lhs and rhs element types differ";
  if (!isa<FloatType>(getAccType()))
    return emitOpError() << "accumulator type must be a float type";
  if (getResult() == TileResult::output) {
    if (getSlot())
      return emitOpError() << "an output tile has no workspace slot";
    if (failed(verifyPitched(*this, "the result", getDestType(),
                             resultShape(batched, getDims()))))
      return failure();
    return verifyEpilogueOperands(*this, getEpilogueOperands(), getBroadcasts(),
                                  resultShape(batched, getDims()), m, n);
  }
  if (!getSlot())
    return emitOpError() << "a " << stringifyTileResult(getResult())
                         << " tile needs a workspace slot";
  if (!getEpilogueOperands().empty())
    return emitOpError() << "partial sums take no epilogue operands (the "
                            "epilogue runs in xpu.gemm_fixup)";
  if (!getAccType().isF32())
    return emitOpError() << "partial sums are f32";
  return verifyWorkspace(*this, getDestType(), getConfig());
}

LogicalResult GemmTileOp::verifyRegions() {
  Type stored = getResult() == TileResult::output
                    ? getDestType().getElementType()
                    : getAccType();
  if (failed(verifyEpilogueRegion(*this, getEpilogueBlock(), getAccType(),
                                  getEpilogueOperands(), stored)))
    return failure();
  if (getResult() != TileResult::output) {
    Block &block = getEpilogueBlock();
    if (!llvm::hasSingleElement(block) ||
        cast<YieldOp>(block.getTerminator()).getValue() != getAccArgument())
      return emitOpError()
             << "partial sums have the identity epilogue (the epilogue runs "
                "once, on the complete sum, in xpu.gemm_fixup)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// GemmFixupOp
//===----------------------------------------------------------------------===//

BroadcastKind GemmFixupOp::getBroadcastKind(unsigned i) {
  return cast<BroadcastKindAttr>(getBroadcasts()[i]).getValue();
}

LogicalResult GemmFixupOp::verify() {
  if (failed(verifyDims(*this, getDims())))
    return failure();
  if (failed(verifyWorkspace(*this, cast<MemRefType>(getWorkspace().getType()),
                             getConfig())))
    return failure();
  if (!getAccType().isF32())
    return emitOpError() << "Stream-K sums are f32";
  bool batched = getDestType().getRank() == 3;
  if (!batched && getBatchSize() != 1)
    return emitOpError() << "a rank-2 result has batch 1, dims say "
                         << getBatchSize();
  SmallVector<int64_t> result = resultShape(batched, getDims());
  if (failed(verifyPitched(*this, "the result", getDestType(), result)))
    return failure();
  return verifyEpilogueOperands(*this, getEpilogueOperands(), getBroadcasts(),
                                result, getM(), getN());
}

LogicalResult GemmFixupOp::verifyRegions() {
  return verifyEpilogueRegion(*this, getEpilogueBlock(), getAccType(),
                              getEpilogueOperands(),
                              getDestType().getElementType());
}
