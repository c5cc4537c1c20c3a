//===- XPUToLinalg.h - xpu.gemm to linalg on tensors ------------*- C++ -*-===//

#ifndef XPU_CONVERSION_XPUTOLINALG_XPUTOLINALG_H
#define XPU_CONVERSION_XPUTOLINALG_XPUTOLINALG_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::xpu {
/// Patterns that lower xpu.gemm (and its epilogue) to linalg on tensors.
void populateXPUToLinalgConversionPatterns(RewritePatternSet &patterns);
} // namespace mlir::xpu

#endif // XPU_CONVERSION_XPUTOLINALG_XPUTOLINALG_H
