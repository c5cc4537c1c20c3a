//===- Transforms.h - xpu rewrite pattern entry points ----------*- C++ -*-===//

#ifndef XPU_DIALECT_XPU_TRANSFORMS_TRANSFORMS_H
#define XPU_DIALECT_XPU_TRANSFORMS_TRANSFORMS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::xpu {

/// Options of the raising patterns.
struct RaiseOptions {
  /// Report contractions with dynamic shapes as errors.
  bool strict = false;
};

/// Patterns that raise linalg.matmul / linalg.batch_matmul (and the
/// transpose and zero fill around them) to xpu.gemm.
void populateXPURaisePatterns(RewritePatternSet &patterns,
                              const RaiseOptions &options = {});

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_TRANSFORMS_TRANSFORMS_H
