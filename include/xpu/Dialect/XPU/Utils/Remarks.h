//===- Remarks.h - optimization remarks of the xpu passes -------*- C++ -*-===//
//
// Every xpu pass reports what it applied and what it refused through MLIR's
// optimization-remark engine (mlir/IR/Remarks.h). The category is the pass
// argument, so `--xpu-remarks` (xpu-opt, xpu-run) or upstream's
// `--remarks-filter=.*xpu-.*` selects them (xpu-* and convert-xpu-*), and lit
// tests check them with `expected-remark`.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_REMARKS_H
#define XPU_DIALECT_XPU_UTILS_REMARKS_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Remarks.h"

namespace mlir::xpu {

/// Regular expression that selects every xpu remark category.
inline constexpr llvm::StringLiteral kRemarkCategoryFilter = ".*xpu-.*";

/// Remark options for `pass` (a pass argument such as "xpu-raise").
inline remark::RemarkOpts remarkOpts(llvm::StringRef pass,
                                     llvm::StringRef name) {
  return remark::RemarkOpts::name(name).category(pass);
}

/// Turns on printing of every xpu remark as a diagnostic on `ctx`. Tools call
/// this for `--xpu-remarks`; returns failure if a remark engine is already
/// installed with other settings.
LogicalResult enableXPURemarks(MLIRContext &ctx);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_REMARKS_H
