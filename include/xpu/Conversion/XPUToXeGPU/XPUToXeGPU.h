//===- XPUToXeGPU.h - xpu.gemm to XeGPU kernels -----------------*- C++ -*-===//

#ifndef XPU_CONVERSION_XPUTOXEGPU_XPUTOXEGPU_H
#define XPU_CONVERSION_XPUTOXEGPU_XPUTOXEGPU_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::xpu {

/// Adds the patterns that rewrite scalar math without a native Xe lowering
/// (math.erf, math.erfc) into polynomial approximations; the conversion
/// applies them to each epilogue before it is vectorized.
void populateXPUXeEpilogueMathPatterns(RewritePatternSet &patterns);

/// Adds the patterns of xpu-xevm-legalize-bf16: bf16 loads, stores and
/// conversions from and to f32 in LLVM-dialect kernels as 16-bit integer
/// operations.
void populateXPUXeVMLegalizeBF16Patterns(RewritePatternSet &patterns);

} // namespace mlir::xpu

#endif // XPU_CONVERSION_XPUTOXEGPU_XPUTOXEGPU_H
