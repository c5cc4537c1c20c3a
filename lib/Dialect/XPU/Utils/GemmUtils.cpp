//===- GemmUtils.cpp - small helpers shared by the xpu.gemm passes --------===//

#include "xpu/Dialect/XPU/Utils/GemmUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::xpu;

int64_t mlir::xpu::getElementBytes(Type t) {
  return llvm::divideCeil(t.getIntOrFloatBitWidth(), 8);
}

bool mlir::xpu::isScalarConstant(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  return cst && cst.getType().isIntOrIndexOrFloat();
}

SimtMicroTile mlir::xpu::getSimtMicroTile(int64_t blockM, int64_t blockN,
                                          int64_t lanes) {
  SimtMicroTile t;
  t.lanesN = std::max<int64_t>(1, std::min(lanes, blockN));
  t.lanesM = std::max<int64_t>(1, lanes / t.lanesN);
  t.rm = llvm::divideCeil(blockM, t.lanesM);
  t.rn = llvm::divideCeil(blockN, t.lanesN);
  return t;
}

TargetAttr mlir::xpu::resolveTarget(Operation *op) {
  if (TargetAttr target = TargetAttr::lookup(op))
    return target;
  return TargetAttr::getDefault(op->getContext());
}

std::string mlir::xpu::describeGemmShape(GemmOp gemm) {
  return describeGemmShape(gemm.getBatchSize(), gemm.getM(), gemm.getN(),
                           gemm.getK(), gemm.isBatched());
}

std::string mlir::xpu::describeGemmShape(int64_t batch, int64_t m, int64_t n,
                                         int64_t k, bool batched) {
  auto str = [](int64_t d) {
    return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  };
  std::string mnk = llvm::formatv("{0}x{1}x{2}", str(m), n, k);
  if (!batched)
    return mnk;
  return llvm::formatv("{0}x({1})", str(batch), mnk).str();
}

AffineMap mlir::xpu::getEpilogueBroadcastMap(BroadcastKind kind, unsigned rank,
                                             MLIRContext *ctx) {
  switch (kind) {
  case BroadcastKind::scalar:
    return AffineMap::get(rank, 0, {}, ctx);
  case BroadcastKind::per_row:
    return AffineMap::get(rank, 0, getAffineDimExpr(rank - 2, ctx));
  case BroadcastKind::per_col:
    return AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx));
  case BroadcastKind::full:
    return AffineMap::getMultiDimIdentityMap(rank, ctx);
  }
  llvm_unreachable("unknown broadcast kind");
}

Value mlir::xpu::cloneEpilogue(OpBuilder &builder, Block &epilogue, Value acc,
                               ValueRange operands) {
  IRMapping map;
  map.map(epilogue.getArgument(0), acc);
  for (auto [arg, v] :
       llvm::zip(epilogue.getArguments().drop_front(), operands))
    map.map(arg, v);
  for (Operation &op : epilogue.without_terminator())
    builder.clone(op, map);
  return map.lookupOrDefault(epilogue.getTerminator()->getOperand(0));
}

Value mlir::xpu::buildEpilogueGeneric(OpBuilder &builder, GemmOp gemm,
                                      Value acc) {
  Location loc = gemm.getLoc();
  RankedTensorType resultType = gemm.getResultType();
  unsigned rank = resultType.getRank();
  MLIRContext *ctx = gemm.getContext();
  AffineMap identity = builder.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps = {identity};
  SmallVector<Value> inputs = {acc};
  for (auto [i, operand] : llvm::enumerate(gemm.getEpilogueOperands())) {
    inputs.push_back(operand);
    maps.push_back(
        getEpilogueBroadcastMap(gemm.getBroadcastKind(i), rank, ctx));
  }
  maps.push_back(identity);
  Value init = tensor::EmptyOp::create(builder, loc,
                                       gemm.getMixedResultSizes(builder, loc),
                                       resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Block &block = gemm.getEpilogueBlock();
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        Value r =
            cloneEpilogue(b, block, args[0], args.drop_front().drop_back());
        linalg::YieldOp::create(b, l, r);
      });
  return generic.getResult(0);
}

Value mlir::xpu::getPackedOperand(Value value) {
  auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || !slice.hasZeroOffset() || !slice.hasUnitStride())
    return value;
  // A dynamic dimension (a dynamic m) is taken whole: its size is the
  // source's own (LayoutBuilder::view), at the same position.
  for (auto [i, size] : llvm::enumerate(slice.getMixedSizes())) {
    auto v = dyn_cast<Value>(size);
    if (!v)
      continue;
    auto dim = v.getDefiningOp<tensor::DimOp>();
    std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
    if (!dim || dim.getSource() != slice.getSource() || index != int64_t(i) ||
        !slice.getSourceType().isDynamicDim(i))
      return value;
  }
  ArrayRef<int64_t> src = slice.getSourceType().getShape();
  ArrayRef<int64_t> dst = slice.getResultType().getShape();
  if (src.size() == dst.size()) {
    // A row pitch (the last dimension narrowed) and padded rows (the one
    // before it: batches that start aligned); leading dimensions equal.
    if (src.empty() || src.drop_back(std::min<size_t>(src.size(), 2)) !=
                           dst.drop_back(std::min<size_t>(dst.size(), 2)))
      return value;
    return slice.getSource();
  }
  // Row 0 ([n] of [r, p]), column 0 ([m] of [m, p]) or element (0, 0) of a
  // rank-2 panel whose rows (columns) xpu-materialize-layouts made equal.
  if (src.size() == 2 && dst.size() <= 1 &&
      slice->hasAttr(XPUDialect::getPanelAttrName()))
    return slice.getSource();
  return value;
}

Value TensorElementTypeConverter::convert(Value value, FloatType eltType) {
  auto key = std::make_pair(value, Type(eltType));
  if (Value cached = cache.lookup(key))
    return cached;
  OpBuilder::InsertionGuard guard(builder);
  auto arg = dyn_cast<BlockArgument>(value);
  Operation *&last = lastArgConversion[arg ? arg.getOwner() : nullptr];
  if (arg && last)
    builder.setInsertionPointAfter(last);
  else
    builder.setInsertionPointAfterValue(value);
  Location loc = value.getLoc();
  auto type = cast<RankedTensorType>(value.getType());
  auto srcElt = cast<FloatType>(type.getElementType());
  Value empty = tensor::EmptyOp::create(
      builder, loc, tensor::getMixedSizes(builder, loc, value), eltType);
  unsigned rank = type.getRank();
  SmallVector<AffineMap> maps(2, builder.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, TypeRange{type.clone(eltType)}, ValueRange{value},
      ValueRange{empty}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value converted =
            srcElt.getWidth() > eltType.getWidth()
                ? arith::TruncFOp::create(b, l, eltType, args[0]).getResult()
                : arith::ExtFOp::create(b, l, eltType, args[0]).getResult();
        linalg::YieldOp::create(b, l, converted);
      });
  if (arg)
    last = generic;
  Value result = generic.getResult(0);
  cache[key] = result;
  return result;
}
