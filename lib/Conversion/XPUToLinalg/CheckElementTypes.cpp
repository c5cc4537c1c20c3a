//===- CheckElementTypes.cpp - element types the pipelines lower ----------===//
//
// Every pipeline starts by rejecting, at the op, the element types it has
// no lowering for, instead of failing deep in a conversion with an LLVM
// verifier error without a location (an i8 x i8 GEMM into an f8 result
// gave "'llvm.sitofp' op result #0 must be floating point" from
// xpu-xe-pipeline). Passes.td states the rules.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCHECKELEMENTTYPESPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
/// Why `type` (an element type) has no lowering, or an empty string.
std::string whyUnsupported(Type type) {
  if (auto f = dyn_cast<FloatType>(type); f && f.getWidth() <= 8)
    return llvm::formatv("{0}: 8-bit and narrower float types have no "
                         "lowering on any target of the pipelines (no f8 "
                         "DPAS, mma or SIMT arithmetic): convert to f16, "
                         "bf16 or f32 first",
                         type)
        .str();
  if (auto i = dyn_cast<IntegerType>(type); i && !i.isSignless())
    return llvm::formatv("{0}: signed and unsigned integer types are not "
                         "lowered (arith takes signless integers; a "
                         "contraction's signedness is its cast attribute)",
                         type)
        .str();
  return "";
}

/// Checks a contraction's operand and result element types; float operands
/// of two types only with `mixedFloats`.
LogicalResult checkContraction(Operation *op, Type lhs, Type rhs, Type out,
                               bool mixedFloats) {
  bool intIn = lhs.isInteger() && rhs.isInteger();
  bool floatIn = isa<FloatType>(lhs) && isa<FloatType>(rhs);
  if (!intIn && !floatIn)
    return op->emitError()
           << "xpu-check-element-types: operands of " << lhs << " and " << rhs
           << ": a contraction multiplies two integer or two float "
              "operands; convert one of them first";
  if (floatIn && lhs != rhs && !mixedFloats)
    return op->emitError()
           << "xpu-check-element-types: operands of " << lhs << " and " << rhs
           << ": this pipeline's GEMM code reads both operands in one float "
              "type; convert one of them first";
  if (intIn && isa<FloatType>(out))
    return op->emitError()
           << "xpu-check-element-types: an integer contraction (" << lhs
           << " x " << rhs << ") into a " << out
           << " result is not lowered: accumulate in an integer type and "
              "convert the result, or convert the operands to float first";
  if (floatIn && out.isInteger())
    return op->emitError()
           << "xpu-check-element-types: a float contraction (" << lhs << " x "
           << rhs << ") into an " << out
           << " result is not lowered: convert the float result instead";
  return success();
}

/// The cast of a named contraction's integer operands, if it says.
std::optional<linalg::TypeFn> getCast(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<linalg::TypeFn>>(op)
      .Case<linalg::MatmulOp, linalg::BatchMatmulOp,
            linalg::BatchReduceMatmulOp, linalg::ContractOp>(
          [](auto named) { return named.getCast(); })
      .Default([](Operation *) { return std::nullopt; });
}

struct CheckElementTypesPass final
    : xpu::impl::XPUCheckElementTypesPassBase<CheckElementTypesPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](Operation *op) {
      if (failed(check(op)))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult check(Operation *op) {
    auto gemm = dyn_cast<GemmOp>(op);
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!gemm && !linalgOp)
      return success();
    // Every shaped operand and result.
    SmallVector<Type> types;
    for (Type t : llvm::concat<Type>(llvm::to_vector(op->getOperandTypes()),
                                     llvm::to_vector(op->getResultTypes())))
      if (auto shaped = dyn_cast<ShapedType>(t))
        types.push_back(shaped.getElementType());
    if (gemm)
      types.push_back(gemm.getAccType());
    for (Type t : types) {
      std::string why = whyUnsupported(t);
      if (!why.empty())
        return op->emitError() << "xpu-check-element-types: '" << op->getName()
                               << "' on " << why;
    }
    if (gemm)
      return checkContraction(op, gemm.getLhsType().getElementType(),
                              gemm.getRhsType().getElementType(),
                              getElementTypeOrSelf(gemm.getType()),
                              mixedFloatOperands);
    if (linalgOp.getNumDpsInputs() != 2 || linalgOp.getNumDpsInits() != 1 ||
        !linalg::isaContractionOpInterface(linalgOp))
      return success();
    Type lhs = getElementTypeOrSelf(linalgOp.getDpsInputs()[0].getType());
    Type rhs = getElementTypeOrSelf(linalgOp.getDpsInputs()[1].getType());
    if (failed(checkContraction(
            op, lhs, rhs,
            getElementTypeOrSelf(linalgOp.getDpsInits()[0].getType()),
            mixedFloatOperands)))
      return failure();
    // Unsigned integer operands of a named contraction: the CPU
    // vectorization extends them as signed (a wrong result), so every
    // pipeline refuses them; a linalg.generic with arith.extui says the same
    // and is lowered faithfully.
    if (lhs.isInteger() && getCast(op) == linalg::TypeFn::cast_unsigned)
      return op->emitError()
             << "xpu-check-element-types: '" << op->getName()
             << "' with cast_unsigned on " << lhs << " x " << rhs
             << " operands is not lowered faithfully by every pipeline (the "
                "CPU vectorization extends them as signed): write the "
                "contraction as a linalg.generic with arith.extui";
    return success();
  }
};
} // namespace
