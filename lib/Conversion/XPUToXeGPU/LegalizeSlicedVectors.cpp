//===- LegalizeSlicedVectors.cpp - sliced vectors after xegpu-blocking ----===//
//
// The row vectors of per_col epilogue operands (convert-xpu-to-xegpu) carry a
// slice of the accumulator's layout. Upstream 22.1.8 distributes them to
// subgroups and blocks them, but leaves two things that its lane
// distribution cannot take: instruction-level slice layouts on the ops
// (blocking drops only plain layouts) and the gather offsets as constants
// [k, k + 1, ...] (distributed only as vector.step, which blocking does not
// unroll). This pass fixes both; Passes.td says where it runs.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/XeGPU/IR/XeGPU.h"
#include "mlir/Dialect/XeGPU/Utils/XeGPUUtils.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUXEGPULEGALIZESLICEDVECTORSPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
/// True for a slice layout at instruction level: inst_data, no lanes.
bool isStaleSlice(Attribute attr) {
  auto slice = dyn_cast_or_null<xegpu::SliceAttr>(attr);
  return slice && !slice.getEffectiveInstDataAsInt().empty() &&
         slice.getEffectiveLaneLayoutAsInt().empty();
}

/// The first element of a 1-D index constant [k, k + 1, ..., k + n - 1]
/// (n > 1), if `op` is one.
std::optional<int64_t> getStepStart(arith::ConstantOp op) {
  auto type = dyn_cast<VectorType>(op.getType());
  auto values = dyn_cast<DenseIntElementsAttr>(op.getValue());
  if (!type || type.getRank() != 1 || type.getNumElements() < 2 ||
      !type.getElementType().isIndex() || !values || values.isSplat())
    return std::nullopt;
  int64_t start = 0, i = 0;
  for (const APInt &v : values) {
    int64_t x = v.getSExtValue();
    if (i == 0)
      start = x;
    else if (x != start + i)
      return std::nullopt;
    ++i;
  }
  return start;
}

struct LegalizeSlicedVectorsPass final
    : xpu::impl::XPUXeGPULegalizeSlicedVectorsPassBase<
          LegalizeSlicedVectorsPass> {
  using Base::Base;

  void runOnOperation() override {
    auto drop = [&](Operation *op, const std::string &name) {
      if (!isStaleSlice(op->getAttr(name)))
        return;
      op->removeAttr(name);
      ++numLayoutsDropped;
    };
    SmallVector<arith::ConstantOp> steps;
    getOperation()->walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands())
        drop(op, xegpu::getTemporaryLayoutName(operand));
      for (OpResult result : op->getOpResults())
        drop(op, xegpu::getTemporaryLayoutName(result));
      if (auto cst = dyn_cast<arith::ConstantOp>(op); cst && getStepStart(cst))
        steps.push_back(cst);
    });
    for (arith::ConstantOp cst : steps) {
      OpBuilder b(cst);
      auto type = cast<VectorType>(cst.getType());
      Value step = vector::StepOp::create(b, cst.getLoc(), type);
      if (int64_t start = *getStepStart(cst)) {
        Value offset = arith::ConstantOp::create(
            b, cst.getLoc(),
            DenseElementsAttr::get(type, b.getIndexAttr(start).getValue()));
        step = arith::AddIOp::create(b, cst.getLoc(), step, offset);
      }
      cst.replaceAllUsesWith(step);
      cst.erase();
      ++numStepsRebuilt;
    }
  }
};
} // namespace
