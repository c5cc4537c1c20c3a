//===- InitAll.h - register everything xpu provides -------------*- C++ -*-===//

#ifndef XPU_INITALL_H
#define XPU_INITALL_H

#include "mlir/IR/DialectRegistry.h"

namespace mlir::xpu {

/// Adds the xpu dialect to `registry`, with the GEMM backends'
/// implementations of GemmBackendAttrInterface (xpu/Conversion/GemmBackends.h).
void registerXPUDialect(DialectRegistry &registry);

/// Registers every xpu pass (transforms, conversions, code generation).
void registerXPUPasses();

/// Registers the xpu dialect, every xpu pass and pipeline, and the upstream
/// dialects and interface models those passes need.
void registerAllXPU(DialectRegistry &registry);

} // namespace mlir::xpu

#endif // XPU_INITALL_H
