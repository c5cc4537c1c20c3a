//===- GemmUtils.cpp - small helpers shared by the xpu.gemm passes --------===//

#include "xpu/Dialect/XPU/Utils/GemmUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::xpu;

FailureOr<TargetAttr> mlir::xpu::resolveTarget(Operation *op,
                                               StringRef defaultTarget,
                                               StringRef pass) {
  if (TargetAttr target = TargetAttr::lookup(op))
    return target;
  if (TargetAttr preset =
          TargetAttr::getPreset(op->getContext(), defaultTarget))
    return preset;
  return op->emitError() << pass << ": unknown default-target '"
                         << defaultTarget << "' (presets: "
                         << llvm::join(TargetAttr::getPresetNames(), ", ")
                         << ")";
}

std::string mlir::xpu::describeGemmShape(GemmOp gemm) {
  std::string mnk =
      llvm::formatv("{0}x{1}x{2}", gemm.getM(), gemm.getN(), gemm.getK());
  if (!gemm.isBatched())
    return mnk;
  return llvm::formatv("{0}x({1})", gemm.getBatchSize(), mnk).str();
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
