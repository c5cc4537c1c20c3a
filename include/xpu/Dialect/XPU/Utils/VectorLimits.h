//===- VectorLimits.h - vector sizes the lowerings can unroll ---*- C++ -*-===//
//
// Several lowerings unroll a vector value element by element or row by row:
// upstream's convert-math-to-libm scalarizes vector math into one call per
// element, and the CPU's n-D vector lowering unrolls rows. A hand-written
// vector of 2^31 elements would make them run for hours and exhaust memory,
// so the pipelines reject such vectors first, with a located error.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_VECTORLIMITS_H
#define XPU_DIALECT_XPU_UTILS_VECTORLIMITS_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir::xpu {

/// The most elements a vector value may have: 2^16, far above the GEMM
/// kernels' own tiles and micro-kernels (a few thousand elements).
inline constexpr int64_t kMaxVectorElements = int64_t(1) << 16;

/// Emits an error at the first operation under `root` (itself included)
/// with an operand or result vector of more than `maxElements` elements,
/// prefixed by `passArg`, and fails; succeeds when there is none.
LogicalResult checkVectorSizes(Operation *root, int64_t maxElements,
                               StringRef passArg);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_VECTORLIMITS_H
