//===- DifferentialCheck.h - run a function before and after a pipeline ---===//

#ifndef XPU_TOOLS_XPU_RUN_DIFFERENTIALCHECK_H
#define XPU_TOOLS_XPU_RUN_DIFFERENTIALCHECK_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::xpu {

/// Name of the generated driver that xpu-run calls in compare mode.
inline constexpr llvm::StringLiteral kDriverName = "xpu_compare_main";

struct DifferentialCheckOptions {
  /// Textual pass pipeline applied to the version under test.
  std::string pipeline;
  /// The function compared; its signature must not change.
  std::string function;
  /// Seeds 1..seeds; odd seeds draw from [-1, 1), even from [0.5, 1.5).
  int64_t seeds = 3;
  /// Arguments that always get positive values (e.g. a variance under a
  /// square root guarded by cf.assert).
  llvm::SmallVector<unsigned> positiveArgs;
  /// Bound on max |opt - ref| / max(max |ref|, 1).
  double tolerance = 1e-5;
};

/// Rewrites `module` into a program whose `kDriverName` function compares
/// `function` before and after `pipeline` on random inputs, printing one line
/// per seed and result and exiting with status 1 on a mismatch.
LogicalResult buildDifferentialCheck(ModuleOp module,
                                     const DifferentialCheckOptions &options);

} // namespace mlir::xpu

#endif // XPU_TOOLS_XPU_RUN_DIFFERENTIALCHECK_H
