//===- MemRefUtils.h - memref layout queries --------------------*- C++ -*-===//
//
// Layout queries that the CPU and GPU lowerings of copies both make.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_MEMREFUTILS_H
#define XPU_DIALECT_XPU_UTILS_MEMREFUTILS_H

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::xpu {

/// True if `type` has a static shape, static strides and a static offset
/// (a view whose every address is known at compile time up to its base).
bool isStaticStrided(MemRefType type);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_MEMREFUTILS_H
