//===- DemoteF64.cpp - Catalog: f64 GEMMs and epilogues computed in f32 ---===//
//
// Catalog: dtype_float64_to_float32, dtype_input_conversion. Xe GPUs run f64
// at a fraction of the f32 rate (or not at all), so an xpu.gemm that touches
// f64 anywhere (operands, accumulator, epilogue operands, epilogue values,
// result) is rewritten to compute in f32: f64 operands are converted once
// before it, and an f64 result is extended back to f64 after it, so the
// function's signature and its callers do not change.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUDEMOTEF64PASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-demote-f64";

namespace {

bool isF64(Type t) { return t.isF64(); }
bool isF64Tensor(Value v) {
  return cast<ShapedType>(v.getType()).getElementType().isF64();
}

/// True if `op` has an operand or a result of type f64.
bool touchesF64(Operation *op) {
  return llvm::any_of(op->getOperandTypes(), isF64) ||
         llvm::any_of(op->getResultTypes(), isF64);
}

/// True if the GEMM has anything in f64.
bool usesF64(GemmOp gemm) {
  if (isF64Tensor(gemm.getLhs()) || gemm.getAccType().isF64() ||
      isF64Tensor(gemm.getResult()) ||
      llvm::any_of(gemm.getEpilogueOperands(), isF64Tensor))
    return true;
  WalkResult walk = gemm.getEpilogue().walk([](Operation *op) {
    return touchesF64(op) ? WalkResult::interrupt() : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

/// Checks that every f64 computation of the epilogue can be retyped to f32:
/// only scalar arith and math ops (no bit casts, no nested regions) and f64
/// constants that fit in f32. Returns the reason when it cannot.
std::optional<std::string> checkEpilogue(GemmOp gemm) {
  for (Operation &op : gemm.getEpilogueBlock()) {
    auto hasF64Aggregate = [](Type t) {
      return !t.isF64() && getElementTypeOrSelf(t).isF64();
    };
    if (llvm::any_of(op.getOperandTypes(), hasF64Aggregate) ||
        llvm::any_of(op.getResultTypes(), hasF64Aggregate))
      return llvm::formatv("epilogue op '{0}' works on a vector or tensor of "
                           "f64",
                           op.getName())
          .str();
    if (op.getNumRegions() != 0) {
      WalkResult walk = op.walk([](Operation *nested) {
        bool argF64 = llvm::any_of(nested->getRegions(), [](Region &r) {
          return llvm::any_of(r.getArguments(), [](BlockArgument a) {
            return getElementTypeOrSelf(a.getType()).isF64();
          });
        });
        return touchesF64(nested) || argF64 ? WalkResult::interrupt()
                                            : WalkResult::advance();
      });
      if (walk.wasInterrupted())
        return llvm::formatv("epilogue op '{0}' has f64 values in a nested "
                             "region",
                             op.getName())
            .str();
      continue;
    }
    if (!touchesF64(&op) || isa<YieldOp>(op))
      continue;
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()))
      return llvm::formatv("epilogue op '{0}' on f64 is not an arith or math "
                           "op",
                           op.getName())
          .str();
    if (isa<arith::BitcastOp>(op))
      return std::string("epilogue op 'arith.bitcast' reinterprets the bits "
                         "of an f64");
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto attr = dyn_cast<FloatAttr>(cst.getValue());
      if (!attr)
        return std::string("epilogue has a non-scalar f64 constant");
      APFloat value = attr.getValue();
      bool losesInfo = false;
      APFloat::opStatus status = value.convert(
          APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &losesInfo);
      if (status & APFloat::opOverflow)
        return llvm::formatv("epilogue constant {0:e} does not fit in f32",
                             attr.getValueAsDouble())
            .str();
    }
  }
  return std::nullopt;
}

/// Retypes every f64 value of the epilogue block to f32: block arguments,
/// op results and constants; conversions that become f32 -> f32 are
/// removed. Returns the number of ops that computed on f64.
int64_t retypeEpilogue(OpBuilder &builder, Block &block) {
  int64_t numF64Ops =
      llvm::count_if(block.without_terminator(),
                     [](Operation &op) { return touchesF64(&op); });
  Type f32 = builder.getF32Type();
  for (BlockArgument arg : block.getArguments())
    if (arg.getType().isF64())
      arg.setType(f32);
  for (Operation &op : llvm::make_early_inc_range(block.without_terminator())) {
    if (auto cst = dyn_cast<arith::ConstantOp>(op);
        cst && cst.getType().isF64()) {
      APFloat value = cast<FloatAttr>(cst.getValue()).getValue();
      bool losesInfo = false;
      (void)value.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                          &losesInfo);
      builder.setInsertionPoint(cst);
      Value replacement = arith::ConstantOp::create(
          builder, cst.getLoc(), f32, builder.getFloatAttr(f32, value));
      cst.getResult().replaceAllUsesWith(replacement);
      cst.erase();
      continue;
    }
    for (OpResult r : op.getResults())
      if (r.getType().isF64())
        r.setType(f32);
    // extf f32 -> f64 and truncf f64 -> f32 are now f32 -> f32.
    if (isa<arith::ExtFOp, arith::TruncFOp>(op) &&
        op.getOperand(0).getType() == op.getResult(0).getType()) {
      op.getResult(0).replaceAllUsesWith(op.getOperand(0));
      op.erase();
    }
  }
  return numF64Ops;
}

struct DemoteF64Pass final : xpu::impl::XPUDemoteF64PassBase<DemoteF64Pass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    bool keepFunction = llvm::is_contained(keep, func.getSymName().str());
    SmallVector<GemmOp> gemms;
    func.walk([&](GemmOp gemm) {
      if (usesF64(gemm))
        gemms.push_back(gemm);
    });
    TensorElementTypeConverter converter(&getContext());
    OpBuilder builder(&getContext());
    for (GemmOp gemm : gemms) {
      std::string shape = describeGemmShape(gemm);
      auto keptRemark = [&](const std::string &why) {
        remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "KeptF64"))
            << remark::reason("GEMM {0} kept in f64: {1}", shape, why);
      };
      if (keepFunction) {
        keptRemark(
            llvm::formatv("function '{0}' is listed in keep", func.getSymName())
                .str());
        continue;
      }
      if (gemm->hasAttr(XPUDialect::getKeepF64AttrName())) {
        keptRemark(llvm::formatv("marked {0}", XPUDialect::getKeepF64AttrName())
                       .str());
        continue;
      }
      if (std::optional<std::string> why = checkEpilogue(gemm)) {
        keptRemark(*why);
        continue;
      }
      demote(builder, converter, gemm, shape);
    }
  }

  void demote(OpBuilder &builder, TensorElementTypeConverter &converter,
              GemmOp gemm, StringRef shape) {
    FloatType f32 = builder.getF32Type(), f64 = builder.getF64Type();
    SmallVector<std::string> what;
    Value lhs = gemm.getLhs(), rhs = gemm.getRhs();
    if (isF64Tensor(lhs)) {
      lhs = converter.convert(lhs, f32);
      rhs = converter.convert(rhs, f32);
      what.push_back("lhs and rhs converted to f32 before it");
    }
    Type accType = gemm.getAccType();
    if (accType.isF64()) {
      accType = f32;
      what.push_back("accumulates in f32");
    }
    SmallVector<Value> epilogueOperands;
    SmallVector<BroadcastKind> kinds;
    int64_t numConvertedOperands = 0;
    for (auto [i, v] : llvm::enumerate(gemm.getEpilogueOperands())) {
      if (isF64Tensor(v)) {
        v = converter.convert(v, f32);
        ++numConvertedOperands;
      }
      epilogueOperands.push_back(v);
      kinds.push_back(gemm.getBroadcastKind(i));
    }
    if (numConvertedOperands)
      what.push_back(llvm::formatv("{0} epilogue operand(s) converted to f32",
                                   numConvertedOperands)
                         .str());
    RankedTensorType resultType = gemm.getResultType();
    bool extendResult = resultType.getElementType().isF64();
    if (extendResult)
      resultType = resultType.clone(f32);

    builder.setInsertionPoint(gemm);
    auto demoted =
        GemmOp::create(builder, gemm.getLoc(), lhs, rhs, gemm.getRhsLayout(),
                       accType, resultType, epilogueOperands, kinds);
    demoted.inheritAttributes(gemm);
    demoted.getEpilogue().takeBody(gemm.getEpilogue());
    if (int64_t retyped = retypeEpilogue(builder, demoted.getEpilogueBlock()))
      what.push_back(
          llvm::formatv("epilogue computed in f32 ({0} op(s) were on f64)",
                        retyped)
              .str());

    Value result = demoted.getResult();
    if (extendResult) {
      result = converter.convert(result, f64);
      what.push_back("result extended back to f64");
    }
    gemm.getResult().replaceAllUsesWith(result);
    gemm.erase();
    ++numDemoted;
    remark::passed(demoted.getLoc(), remarkOpts(kPassArg, "DemotedF64"))
        << remark::reason("GEMM {0} (m x n x k) demoted from f64 to f32: {1}",
                          shape, llvm::join(what, ", "));
  }
};
} // namespace
