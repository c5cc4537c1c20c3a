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

/// Declares the memory effects of gpu.launch_func (an external model of
/// MemoryEffectOpInterface): it reads and writes every memref it passes, and
/// writes the default resource so that it is never dead. Buffer deallocation
/// then frees a kernel's buffers after the launch instead of refusing the
/// launch (convert-xpu-to-xegpu launches before bufferization, and
/// registers it in its getDependentDialects; loading xpu does not).
void registerXPUGPULaunchMemoryEffects(DialectRegistry &registry);

} // namespace mlir::xpu

#endif // XPU_CONVERSION_XPUTOXEGPU_XPUTOXEGPU_H
