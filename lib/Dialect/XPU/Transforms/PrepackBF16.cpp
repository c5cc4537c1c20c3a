//===- PrepackBF16.cpp - Catalog: bf16/f16 GEMM operands, f32 accumulation ===//
//
// Catalog: dtype_prepack_bf16. The f32 operands of an xpu.gemm are converted
// to bf16 (or f16) by an elementwise linalg.generic placed right after their
// definition, so the GEMM's K loop reads 2 bytes per element instead of 4.
// The conversion of a weight argument depends only on that argument, so
// xpu-outline-weight-pack moves it to pack time; the accumulator and the
// epilogue (bias, scales, residuals) stay in f32.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUPREPACKBF16PASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-prepack-bf16";

/// The `target` tensor that `value` widens exactly: `value` is an
/// elementwise linalg.generic whose body only extends its one input of
/// element type `target` to f32 (a bf16 model's activations reach its f32
/// GEMMs this way). Converting it back would round-trip every element.
static Value getExactlyWidened(Value value, FloatType target) {
  auto generic = value.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return Value();
  Block &body = *generic.getBlock();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto ext = yield.getOperand(0).getDefiningOp<arith::ExtFOp>();
  if (!ext || &body.front() != ext.getOperation() ||
      ext.getIn() != body.getArgument(0) || ext.getIn().getType() != target)
    return Value();
  Value input = generic.getDpsInputOperand(0)->get();
  if (input.getType() != cast<ShapedType>(value.getType()).clone(target))
    return Value();
  return input;
}

/// Makes the GEMM that produces `value` (f32, read only as one operand of
/// the GEMM being converted) write `target` itself: its epilogue ends with
/// the rounding that a conversion after it would do, so the chain between
/// two GEMMs is the first one's epilogue and no kernel converts its result.
/// Returns the producer's result, or null where another op defines `value`
/// or something else reads it.
static Value convertInProducer(Value value, FloatType target) {
  auto producer = value.getDefiningOp<GemmOp>();
  if (!producer || !value.hasOneUse())
    return Value();
  Operation *yield = producer.getEpilogueBlock().getTerminator();
  OpBuilder b(yield);
  Value rounded =
      arith::TruncFOp::create(b, yield->getLoc(), target, yield->getOperand(0));
  yield->setOperand(0, rounded);
  value.setType(cast<ShapedType>(value.getType()).clone(target));
  return value;
}

namespace {

struct PrepackBF16Pass final
    : xpu::impl::XPUPrepackBF16PassBase<PrepackBF16Pass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    FloatType target;
    if (precision == "bf16") {
      target = BFloat16Type::get(ctx);
    } else if (precision == "f16") {
      target = Float16Type::get(ctx);
    } else if (precision != "f32") {
      func.emitError() << kPassArg << ": invalid precision '" << precision
                       << "'; expected f32, bf16 or f16";
      return signalPassFailure();
    }

    SmallVector<GemmOp> gemms;
    func.walk([&](GemmOp gemm) { gemms.push_back(gemm); });
    TensorElementTypeConverter converter(ctx);
    for (GemmOp gemm : gemms) {
      std::string shape = describeGemmShape(gemm);
      auto unchanged = [&](const Twine &why) {
        remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "Unchanged"))
            << remark::reason("GEMM {0} operands unchanged: {1}", shape,
                              why.str());
      };
      Type operandType = gemm.getLhsType().getElementType();
      if (!target) {
        unchanged("precision=f32 keeps f32 operands");
        continue;
      }
      if (operandType.isBF16() || operandType.isF16()) {
        unchanged(
            llvm::formatv("operands are already 16-bit ({0})", operandType)
                .str());
        continue;
      }
      if (!operandType.isF32()) {
        unchanged(llvm::formatv(
                      "operands are {0}; only f32 operands are "
                      "converted{1}",
                      operandType,
                      operandType.isF64() ? " (run xpu-demote-f64 first)" : "")
                      .str());
        continue;
      }
      if (!gemm.getAccType().isF32()) {
        unchanged(llvm::formatv("it accumulates in {0}; only GEMMs that "
                                "accumulate in f32 are converted",
                                gemm.getAccType())
                      .str());
        continue;
      }
      // An operand that is the exact widening of a `target` tensor is that
      // tensor; one that another GEMM computes is written in `target` by
      // that GEMM's epilogue; the others are converted after their
      // definition.
      auto convert = [&](Value operand, StringRef which) -> Value {
        if (Value narrow = getExactlyWidened(operand, target)) {
          remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Unwidened"))
              << remark::reason("GEMM {0}: the {1} is a {2} tensor widened "
                                "to f32; the GEMM reads the {2} tensor",
                                shape, which, target);
          return narrow;
        }
        if (convertInProducer(operand, target)) {
          remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "InProducer"))
              << remark::reason("GEMM {0}: the {1} comes from a GEMM whose "
                                "epilogue now rounds its result to {2}",
                                shape, which, target);
          return operand;
        }
        return converter.convert(operand, target);
      };
      Value lhs = convert(gemm.getLhs(), "lhs");
      Value rhs = convert(gemm.getRhs(), "rhs");
      gemm.getLhsMutable().assign(lhs);
      gemm.getRhsMutable().assign(rhs);
      ++numConverted;
      remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Converted"))
          << remark::reason(
                 "GEMM {0} (m x n x k) takes {1} operands (converted once "
                 "before it), accumulates in f32, {2} epilogue operand(s) "
                 "stay in their type",
                 shape, target, gemm.getEpilogueOperands().size());
    }
  }
};
} // namespace
