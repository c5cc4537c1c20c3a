//===- EpilogueUtils.cpp - reading elementwise ops as GEMM epilogues ------===//

#include "xpu/Dialect/XPU/Utils/EpilogueUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::xpu;

FailureOr<BroadcastKind>
mlir::xpu::classifyBroadcast(AffineMap map, RankedTensorType operandType,
                             std::string &reason) {
  unsigned rank = map.getNumDims();
  if (rank != 2 && rank != 3) {
    reason = "the iteration space is not a rank-2 or rank-3 GEMM result";
    return failure();
  }
  if (!operandType.getElementType().isIntOrFloat()) {
    reason = "the operand does not have integer or float elements";
    return failure();
  }
  // The iteration dimensions the operand varies along, in operand order.
  SmallVector<unsigned> used;
  for (auto [i, expr] : llvm::enumerate(map.getResults())) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      if (c.getValue() != 0 || operandType.getDimSize(i) != 1) {
        reason = "the operand is read at a constant index other than a "
                 "size-1 broadcast";
        return failure();
      }
      continue;
    }
    auto d = dyn_cast<AffineDimExpr>(expr);
    if (!d) {
      reason = "the operand is read through a non-trivial index expression";
      return failure();
    }
    used.push_back(d.getPosition());
  }
  unsigned m = rank - 2, n = rank - 1;
  if (used.empty())
    return BroadcastKind::scalar;
  if (used.size() == 1 && used[0] == n)
    return BroadcastKind::per_col;
  if (used.size() == 1 && used[0] == m)
    return BroadcastKind::per_row;
  if (used.size() == rank && llvm::all_of(llvm::enumerate(used), [](auto it) {
        return it.value() == it.index();
      }))
    return BroadcastKind::full;
  reason = "the operand varies along dimensions a GEMM epilogue cannot "
           "broadcast (only scalar, per-row [m], per-column [n] and full "
           "operands are supported)";
  return failure();
}

Value mlir::xpu::materializeEpilogueOperand(OpBuilder &builder, Location loc,
                                            Value value, BroadcastKind kind,
                                            RankedTensorType resultType) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t wantRank = 0;
  switch (kind) {
  case BroadcastKind::scalar:
    wantRank = 0;
    break;
  case BroadcastKind::per_row:
  case BroadcastKind::per_col:
    wantRank = 1;
    break;
  case BroadcastKind::full:
    wantRank = resultType.getRank();
    break;
  }
  if (type.getRank() == wantRank)
    return value;
  // A tensor.expand_shape that only added unit dimensions: use its source.
  if (auto expand = value.getDefiningOp<tensor::ExpandShapeOp>())
    if (expand.getSrcType().getRank() == wantRank)
      return expand.getSrc();
  // Collapse every dimension into the one that is not a unit (or into none
  // for a scalar).
  SmallVector<ReassociationIndices> reassociation;
  if (wantRank == 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < type.getRank(); ++i)
      all.push_back(i);
    reassociation.push_back(all);
  }
  SmallVector<int64_t> shape;
  for (int64_t d : type.getShape())
    if (d != 1)
      shape.push_back(d);
  if (wantRank == 1 && shape.empty())
    shape.push_back(1);
  auto collapsedType = RankedTensorType::get(shape, type.getElementType());
  return tensor::CollapseShapeOp::create(builder, loc, collapsedType, value,
                                         reassociation);
}

bool mlir::xpu::isElementwiseGeneric(linalg::GenericOp op) {
  return op.hasPureTensorSemantics() && op.getNumDpsInits() == 1 &&
         op->getNumResults() == 1 &&
         op.getNumParallelLoops() == op.getNumLoops() &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity();
}

bool mlir::xpu::isTranscendental(Operation *op) {
  return isa<math::ExpOp, math::Exp2Op, math::ExpM1Op, math::LogOp,
             math::Log2Op, math::Log1pOp, math::TanhOp, math::ErfOp,
             math::SqrtOp, math::RsqrtOp, math::PowFOp, math::SinOp,
             math::CosOp, math::AtanOp, math::Atan2Op, math::TanOp>(op);
}

int64_t mlir::xpu::estimateEpilogueInstructions(Block &epilogue) {
  int64_t count = 0;
  for (Operation &op : epilogue.without_terminator()) {
    if (isa<math::MathDialect>(op.getDialect()))
      count += 24;
    else if (isa<arith::DivFOp, arith::RemFOp>(op))
      count += 8;
    else
      count += 1;
  }
  return count;
}
