//===- GemmBackendInterface.h - what a GEMM backend answers -----*- C++ -*-===//
//
// The interface every GEMM code generator implements for the layers above
// it (GemmBackendInterface.td), and how a pass finds the implementation of
// a config's backend.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_IR_GEMMBACKENDINTERFACE_H
#define XPU_DIALECT_XPU_IR_GEMMBACKENDINTERFACE_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>

namespace mlir::xpu {
/// How a backend's layout rewrite reports a decision on a GEMM: a remark
/// `name` with the reason `why`; `changed` when it rewrote something.
using LayoutRemarkFn = llvm::function_ref<void(
    GemmOp gemm, llvm::StringRef name, const llvm::Twine &why, bool changed)>;
} // namespace mlir::xpu

#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h.inc"

namespace mlir::xpu {

/// The attribute that names the backend of `config`: its backend knobs, or
/// #xpu.simt for a config without them.
Attribute getGemmBackendAttr(ConfigAttr config);

/// The `backend` field of a config whose backend is `backend`: null for
/// #xpu.simt (the inverse of getGemmBackendAttr).
Attribute getConfigKnobs(Attribute backend);

/// What an error about a missing backend implementation tells the user.
inline constexpr llvm::StringLiteral kRegisterBackendsHint =
    "register its implementation (xpu::registerAllGemmBackends, "
    "xpu/Conversion/GemmBackends.h, registers the project's)";

/// The implementation of `config`'s backend; an error at `loc` (prefixed
/// with `passArg`) when none is registered for it.
FailureOr<GemmBackendAttrInterface>
lookupGemmBackend(ConfigAttr config, Location loc, StringRef passArg);
/// The implementation of the backend named by `backend` (getGemmBackendAttr);
/// an error at `loc` when none is registered for it.
FailureOr<GemmBackendAttrInterface>
lookupGemmBackend(Attribute backend, Location loc, StringRef passArg);

/// The GEMM backends registered with the xpu dialect
/// (XPUDialect::addGemmBackend, which each register*GemmBackend function
/// calls from the extension that attaches the interface), in decreasing
/// auto rank, then in the order of registration.
SmallVector<GemmBackendAttrInterface>
getRegisteredGemmBackends(MLIRContext *ctx);

/// The registered backend called `name` (getBackendName), or null.
GemmBackendAttrInterface lookupGemmBackend(MLIRContext *ctx, StringRef name);

/// The backend `backend=auto` gives a GEMM of `operandType` operands on
/// `target`: the first registered backend, by rank, that takes it, with the
/// knobs its candidates start from; null when none does. `taken` and
/// `declined` receive the reasons of the backend that took it and of the
/// last one that declined with a reason, for the remarks.
GemmBackendAttrInterface chooseGemmBackend(TargetAttr target, Type operandType,
                                           std::string &taken,
                                           std::string &declined);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_IR_GEMMBACKENDINTERFACE_H
