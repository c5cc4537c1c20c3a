//===- XPUToXeGPU.h - xpu.gemm to XeGPU kernels -----------------*- C++ -*-===//

#ifndef XPU_CONVERSION_XPUTOXEGPU_XPUTOXEGPU_H
#define XPU_CONVERSION_XPUTOXEGPU_XPUTOXEGPU_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::xpu {

/// Checks that `gemm` can become an XeGPU kernel on `target` (an Intel
/// target with 16-lane subgroups and an 8x16x16 DPAS, a `#xpu.config` whose
/// subgroup blocks and tile_k are multiples of the DPAS shape, f16 / bf16 /
/// f32 operands, an f32 accumulator, an elementwise epilogue). Emits an
/// error at the GEMM and fails otherwise.
LogicalResult checkXeGPULowerable(GemmOp gemm, TargetAttr target);

/// Replaces `gemm` (on tensors, checked by checkXeGPULowerable) by the host
/// side of a kernel launch and appends the kernel, in its own gpu.module, to
/// `module`. `index` makes the kernel's symbol unique within the function.
void lowerGemmToXeGPU(RewriterBase &rewriter, GemmOp gemm, TargetAttr target,
                      ModuleOp module, unsigned index);

/// Adds the patterns that rewrite scalar math without a native Xe lowering
/// (math.erf, math.erfc) into polynomial approximations; the conversion
/// applies them to each epilogue before it is vectorized.
void populateXPUXeEpilogueMathPatterns(RewritePatternSet &patterns);

/// Declares the memory effects of gpu.launch_func (an external model of
/// MemoryEffectOpInterface): it reads and writes every memref it passes, and
/// writes the default resource so that it is never dead. Buffer deallocation
/// then frees a kernel's buffers after the launch instead of refusing the
/// launch (convert-xpu-to-xegpu launches before bufferization, and
/// registers it in its getDependentDialects; loading xpu does not).
void registerXPUGPULaunchMemoryEffects(DialectRegistry &registry);

} // namespace mlir::xpu

#endif // XPU_CONVERSION_XPUTOXEGPU_XPUTOXEGPU_H
