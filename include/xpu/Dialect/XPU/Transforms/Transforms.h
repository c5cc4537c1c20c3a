//===- Transforms.h - xpu rewrite pattern entry points ----------*- C++ -*-===//

#ifndef XPU_DIALECT_XPU_TRANSFORMS_TRANSFORMS_H
#define XPU_DIALECT_XPU_TRANSFORMS_TRANSFORMS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::xpu {

/// Patterns that raise linalg.matmul / linalg.batch_matmul (and the
/// transpose and zero fill around them) to xpu.gemm. What they refuse is
/// reported through notifyMatchFailure; the xpu-raise pass also reports it
/// as remarks and, with `strict`, makes dynamic shapes an error.
void populateXPURaisePatterns(RewritePatternSet &patterns);

/// Upstream elementwise fusion restricted to the chains that hang off an
/// xpu.gemm: a producer is merged into its consumer when it has one use and
/// depends on a GEMM result, so weight-only computation (BatchNorm's
/// 1/sqrt(var + eps)) stays a separate epilogue operand.
void populateXPUElementwiseChainFusionPatterns(RewritePatternSet &patterns);

/// Pattern that folds the per-channel affine prefix of an xpu.gemm epilogue
/// (scale, shift, BatchNorm in inference form) into the GEMM's weights and a
/// single per_col shift (xpu-fold-affine-into-weights, without remarks).
/// The fold reassociates floating-point arithmetic: it applies when
/// `reassociate` is set or every folded op carries fastmath<reassoc>.
void populateXPUFoldAffineIntoWeightsPatterns(RewritePatternSet &patterns,
                                              bool reassociate = false);

/// Patterns that remove no-op and redundant work from xpu.gemm epilogues
/// (x * 1, x + -0.0, -(-x), clamps proven inactive, splat-constant epilogue
/// operands), plus the xpu.gemm canonicalizations that drop the operands
/// left unused.
void populateXPUSimplifyEpiloguePatterns(RewritePatternSet &patterns);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_TRANSFORMS_TRANSFORMS_H
