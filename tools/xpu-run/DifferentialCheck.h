//===- DifferentialCheck.h - run a function before and after a pipeline ---===//
//
// `xpu-run --compare-pipeline=P --compare-function=F [--target=T]`: the module
// as given is compiled for the CPU without xpu-optimize (the reference); a
// copy goes through P and then the pipeline of T, also without
// xpu-optimize (the version under test). Both are called on the same seeded
// random inputs and each result is compared by its error relative to the
// reference's scale, max |opt - ref| / max(max |ref|, 1), against the
// tolerance; NaNs must agree in position. So `--target=opencl` with an empty
// P checks the OpenCL code against the CPU, and P = xpu-optimize checks the
// catalog on any target.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_TOOLS_XPU_RUN_DIFFERENTIALCHECK_H
#define XPU_TOOLS_XPU_RUN_DIFFERENTIALCHECK_H

#include "Runner.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::xpu {

struct DifferentialCheckOptions {
  /// Textual pass pipeline applied to the version under test.
  std::string pipeline;
  /// The function compared; its signature must not change.
  std::string function;
  /// Seeds 1..seeds; odd seeds draw from [-1, 1), even from [0.5, 1.5).
  int64_t seeds = 3;
  /// Arguments that always get positive values (e.g. a variance under a
  /// square root guarded by cf.assert). Arguments that reach a cf.assert of
  /// the model are added to these automatically.
  llvm::SmallVector<unsigned> positiveArgs;
  /// Bound on max |opt - ref| / max(max |ref|, 1).
  double tolerance = 1e-5;
  /// Target and pipeline options of the version under test.
  run::CompileOptions compile;
  std::vector<std::string> sharedLibs;
  unsigned optLevel = 2;
};

/// Runs the check on `module`, printing one line per seed and result and a
/// final PASS or FAIL line. Returns the exit status (0 on PASS, 1 on FAIL)
/// or failure on an error (reported as a diagnostic).
FailureOr<int> runDifferentialCheck(ModuleOp module,
                                    const DifferentialCheckOptions &options);

/// Arguments of `fn` whose values reach a `cf.assert` (torch-mlir guards
/// 1/sqrt(var + eps) with one): random values for them are drawn positive.
llvm::SmallVector<unsigned> assertGuardedArguments(Operation *fn);

} // namespace mlir::xpu

#endif // XPU_TOOLS_XPU_RUN_DIFFERENTIALCHECK_H
