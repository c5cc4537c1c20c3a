//===- GemmUtils.h - small helpers shared by the xpu.gemm passes -*- C++
//-*-===//

#ifndef XPU_DIALECT_XPU_UTILS_GEMMUTILS_H
#define XPU_DIALECT_XPU_UTILS_GEMMUTILS_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::xpu {

/// The #xpu.target of the module enclosing `op`, else the preset named
/// `defaultTarget`; an unknown preset is an error on `op` that names `pass`.
FailureOr<TargetAttr> resolveTarget(Operation *op, StringRef defaultTarget,
                                    StringRef pass);

/// "64x32x128" (m x n x k), "4x(64x32x128)" when batched: how remarks name a
/// GEMM.
std::string describeGemmShape(GemmOp gemm);

/// Converts float tensors to another element type (arith.truncf or
/// arith.extf in an elementwise linalg.generic) placed right after the
/// definition of the value (after the conversions already made of earlier
/// block arguments), so that it dominates every use of the value and a
/// weight's conversion depends only on the weight. Each value is converted
/// once.
class TensorElementTypeConverter {
public:
  explicit TensorElementTypeConverter(MLIRContext *ctx) : builder(ctx) {}

  Value convert(Value value, FloatType eltType);

private:
  OpBuilder builder;
  DenseMap<std::pair<Value, Type>, Value> cache;
  DenseMap<Block *, Operation *> lastArgConversion;
};

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_GEMMUTILS_H
