//===- WidenEpilogue.cpp - 16-bit epilogue arithmetic computed in f32 -----===//
//
// A bf16 (or f16) model rounds every elementwise result to 16 bits. Inside a
// fused xpu.gemm epilogue those roundings are conversions and nothing else:
// the value stays in registers. This pass recomputes the epilogue's 16-bit
// arith and math ops on f32 values and rounds once, where a 16-bit value
// leaves the widened ops (the xpu.yield, an op it does not widen).
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUWIDENEPILOGUEPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-widen-epilogue";

namespace {

/// A scalar float type narrower than f32 (bf16, f16, ...).
bool isNarrowFloat(Type t) {
  auto f = dyn_cast<FloatType>(t);
  return f && f.getWidth() < 32;
}

/// The narrow type `op` computes in if it computes the same function on f32
/// values, null otherwise: an arith or math op without regions whose float
/// operands and results are all of one narrow type (the condition of a select,
/// the i1 of a compare and the i32 exponent of fpowi stay as they are). Casts
/// are handled by the caller; bit casts and integer conversions are never
/// widened.
Type getWidenableType(Operation &op) {
  if (op.getNumRegions() != 0)
    return {};
  if (isa<arith::ArithDialect>(op.getDialect())) {
    if (!isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
             arith::RemFOp, arith::NegFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp, arith::CmpFOp,
             arith::SelectOp>(op))
      return {};
  } else if (!isa<math::MathDialect>(op.getDialect())) {
    return {};
  }
  Type found;
  for (Type t : llvm::concat<Type>(op.getOperandTypes(), op.getResultTypes())) {
    if (isa<FloatType>(t)) {
      if (!isNarrowFloat(t) || (found && found != t))
        return {};
      found = t;
    } else if (!t.isIntOrIndex()) {
      return {}; // vectors, tensors
    }
  }
  return found;
}

/// Widens the top-level ops of one epilogue block; returns how many ops
/// now compute in f32 and the narrow types they computed in.
int64_t widenBlock(Block &block, llvm::SetVector<Type> &narrowTypes) {
  OpBuilder builder(block.getParentOp()->getContext());
  Type f32 = builder.getF32Type();
  // A narrow value -> the f32 value it stands for.
  DenseMap<Value, Value> wide;
  auto getWide = [&](Value v) -> Value {
    if (Value w = wide.lookup(v))
      return w;
    OpBuilder::InsertionGuard guard(builder);
    if (auto cst = v.getDefiningOp<arith::ConstantOp>()) {
      builder.setInsertionPoint(cst);
      APFloat value = cast<FloatAttr>(cst.getValue()).getValue();
      bool losesInfo = false;
      // Exact: every bf16 and f16 value is an f32 value.
      (void)value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                          &losesInfo);
      Value w = arith::ConstantOp::create(builder, cst.getLoc(), f32,
                                          builder.getFloatAttr(f32, value));
      return wide[v] = w;
    }
    builder.setInsertionPointAfterValue(v);
    return wide[v] = arith::ExtFOp::create(builder, v.getLoc(), f32, v);
  };

  int64_t numWidened = 0;
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
      if (trunc.getIn().getType().isF32() && isNarrowFloat(trunc.getType()))
        wide[trunc.getResult()] = trunc.getIn();
      continue;
    }
    if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
      Value in = ext.getIn();
      if (!ext.getType().isF32() || !isNarrowFloat(in.getType()))
        continue;
      if (Value w = wide.lookup(in)) {
        ext.getResult().replaceAllUsesWith(w);
        ext.erase();
      } else {
        wide[in] = ext.getResult();
      }
      continue;
    }
    Type narrow = getWidenableType(op);
    if (!narrow)
      continue;
    SmallVector<Value> operands;
    for (Value v : op.getOperands())
      operands.push_back(v.getType() == narrow ? getWide(v) : v);
    SmallVector<Type> resultTypes;
    for (Type t : op.getResultTypes())
      resultTypes.push_back(t == narrow ? f32 : t);
    builder.setInsertionPoint(&op);
    OperationState state(op.getLoc(), op.getName(), operands, resultTypes,
                         op.getAttrs());
    Operation *widened = builder.create(state);
    for (auto [before, after] :
         llvm::zip_equal(op.getResults(), widened->getResults())) {
      if (before.getType() != narrow) {
        before.replaceAllUsesWith(after);
        continue;
      }
      // Rounded once, for whatever still reads the narrow value; it goes
      // away below when nothing does.
      Value rounded =
          arith::TruncFOp::create(builder, op.getLoc(), narrow, after);
      wide[rounded] = after;
      before.replaceAllUsesWith(rounded);
    }
    op.erase();
    narrowTypes.insert(narrow);
    ++numWidened;
  }
  // Roundings, extensions and constants nothing reads any more, last to
  // first so that a chain goes at once.
  SmallVector<Operation *> ops = llvm::map_to_vector(
      block.without_terminator(), [](Operation &op) { return &op; });
  for (Operation *op : llvm::reverse(ops))
    if (op->use_empty() &&
        isa<arith::TruncFOp, arith::ExtFOp, arith::ConstantOp>(op))
      op->erase();
  return numWidened;
}

struct WidenEpiloguePass final
    : xpu::impl::XPUWidenEpiloguePassBase<WidenEpiloguePass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([&](GemmOp gemm) {
      llvm::SetVector<Type> narrowTypes;
      int64_t n = widenBlock(gemm.getEpilogueBlock(), narrowTypes);
      if (n == 0)
        return;
      numWidened += n;
      std::string types;
      llvm::raw_string_ostream os(types);
      llvm::interleave(narrowTypes, os, " and ");
      remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "WidenedEpilogue"))
          << remark::reason(
                 "GEMM {0} (m x n x k): {1} {2} epilogue op(s) computed in "
                 "f32 and rounded once, at the store, instead of after each "
                 "op (round-each-op=true keeps the model's rounding)",
                 describeGemmShape(gemm), n, types);
    });
  }
};
} // namespace
