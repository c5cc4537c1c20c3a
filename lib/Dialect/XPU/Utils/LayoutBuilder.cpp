//===- LayoutBuilder.cpp - operand layout changes on tensors --------------===//

#include "xpu/Dialect/XPU/Utils/LayoutBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::xpu;

Value LayoutBuilder::transposeLast2(Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  unsigned rank = type.getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  SmallVector<int64_t> shape(type.getShape());
  std::swap(shape[rank - 1], shape[rank - 2]);
  Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(b, loc, t, init, perm).getResult()[0];
}

Value LayoutBuilder::broadcast(Value t, ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(t.getType());
  // A dynamic dimension of the result is one of `t`'s (a dynamic m).
  SmallVector<Value> sizes;
  for (auto [i, d] : llvm::enumerate(shape)) {
    if (!ShapedType::isDynamic(d))
      continue;
    int64_t from = i - llvm::count_if(dims, [&](int64_t a) {
                     return a < static_cast<int64_t>(i);
                   });
    sizes.push_back(tensor::DimOp::create(b, loc, t, from));
  }
  Value init =
      tensor::EmptyOp::create(b, loc, shape, type.getElementType(), sizes);
  return linalg::BroadcastOp::create(b, loc, t, init, dims).getResult()[0];
}

Value LayoutBuilder::padRows(Value t, int64_t pitch,
                             std::optional<int64_t> rows) {
  auto type = cast<RankedTensorType>(t.getType());
  unsigned rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  int64_t cols = shape.back();
  int64_t oldRows = rows ? shape[rank - 2] : 0;
  if (cols == pitch && (!rows || *rows == oldRows))
    return t;
  SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> high(rank, b.getIndexAttr(0));
  shape.back() = pitch;
  high.back() = b.getIndexAttr(pitch - cols);
  if (rows) {
    shape[rank - 2] = *rows;
    high[rank - 2] = b.getIndexAttr(*rows - oldRows);
  }
  Value zero =
      arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return tensor::PadOp::create(b, loc, type.clone(shape), t, low, high, zero);
}

Value LayoutBuilder::view(Value packed, RankedTensorType logical,
                          ArrayRef<int64_t> sizes) {
  if (packed.getType() == logical)
    return packed;
  auto src = cast<RankedTensorType>(packed.getType());
  unsigned rank = src.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sz;
  for (auto [i, s] : llvm::enumerate(sizes))
    sz.push_back(ShapedType::isDynamic(s)
                     ? OpFoldResult(tensor::DimOp::create(b, loc, packed, i))
                     : b.getIndexAttr(s));
  auto slice = tensor::ExtractSliceOp::create(b, loc, logical, packed, offsets,
                                              sz, strides);
  if (logical.getRank() != src.getRank())
    slice->setAttr(XPUDialect::getPanelAttrName(), b.getUnitAttr());
  return slice;
}
