//===- Compile.h - targets and compiling a module for one -------*- C++ -*-===//
//
// What xpu-run and xpu-compile share before anything runs: the table of
// targets (each a registered pipeline and, for devices, a runtime library),
// and compiling a module with a target's pipeline, the entry wrappers of
// EntryPoints.h added before bufferization.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_TOOLS_COMMON_COMPILE_H
#define XPU_TOOLS_COMMON_COMPILE_H

#include "EntryPoints.h"

#include "mlir/IR/BuiltinOps.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace mlir::xpu::run {

/// A target the tools compile for: the pipeline registered under
/// `pipeline` and, for devices, the runtime library the code calls. Adding a
/// target is one entry in the table (Compile.cpp); a target whose pipeline
/// is not registered in this build, or whose runtime library was not built,
/// is reported as unavailable.
struct TargetInfo {
  const char *name;
  const char *pipeline;
  /// File name of the runtime library next to the tool's lib/ (or in the
  /// build tree); empty for the host.
  const char *runtimeLibrary;
  const char *description;
};

/// Every target the tools know, available or not.
ArrayRef<TargetInfo> allTargets();
/// The target named `name`, or an error that lists the available ones
/// (`tool` names the tool in the message).
FailureOr<const TargetInfo *> lookupTarget(StringRef name, Location loc,
                                           StringRef tool = "xpu-run");
/// The pipeline that compiles for the target named `targetName`:
/// xpu-xe-pipeline with an `xpuChip` (--xpu-chip), else the target's; empty
/// for an unknown target.
StringRef getTargetPipeline(StringRef targetName, StringRef xpuChip);
/// Checks --xpu-chip: an Intel chip of the #xpu.target presets, with
/// --target=levelzero. The error text (the tool adds its name), or nothing.
std::optional<std::string> checkXeChip(StringRef xpuChip, StringRef targetName);
/// --xpu-chip's help text, from the preset table.
StringRef getXeChipHelp();
/// Checks --precision against the precision policy of the pipeline that
/// compiles for `targetName` (resolvePrecision). The error text, or nothing.
std::optional<std::string>
checkPrecision(StringRef precision, StringRef targetName, StringRef xpuChip);
/// Prints, per target, the precisions its pipeline accepts (the default
/// first), one line each: `<target> <precision>...` (--xpu-list-precisions;
/// the Python package reads it).
void printPrecisions(raw_ostream &os);

/// The directory of the runtime libraries: ../lib next to the running tool
/// (an install or the build tree), else the build tree's.
std::string runtimeLibraryDir();
/// Full path of `target`'s runtime library ("" for the host), or an error.
FailureOr<std::string> runtimeLibraryPath(const TargetInfo &target,
                                          Location loc);

/// How to compile.
struct CompileOptions {
  const TargetInfo *target = nullptr;
  /// Pipeline options ("precision=f64 optimize=false ...").
  std::string pipelineOptions;
  /// Replaces the target's pipeline (--pass-pipeline), if not empty.
  std::string passPipeline;
  /// Runs the registered pipeline named here instead of the target's
  /// (xpu-xe-pipeline for --xpu-chip).
  std::string pipelineOverride;
  /// Print the lowered module to stderr.
  bool printIR = false;
  /// Say what is compiling when it takes longer than a second.
  bool progress = true;
  /// The tool's name, for messages.
  std::string tool = "xpu-run";
};

/// The environment variable that gives every GPU pipeline a tuning database
/// (`tuning-db=`) when the pipeline options name none.
inline constexpr llvm::StringLiteral kTuningDbEnv = "XPU_OPT_TUNING_DB";

/// Compiles `module` to the LLVM dialect for `options.target` (a GPU
/// pipeline gets kTuningDbEnv's database). With a plan,
/// the wrappers of its function (and of the `.pack` / `.packed` parts) are
/// added before bufferization.
LogicalResult compileModule(ModuleOp module, const CompileOptions &options,
                            EntryPlan *plan);

/// Bytes of physical memory of this machine (0 if unknown).
uint64_t physicalMemoryBytes();

/// Prints "<tool>: <what>..." if the step takes longer than a second, and
/// how long it took when it ends, so that a long step is not silent.
class Progress {
public:
  Progress(bool enabled, std::string what, std::string tool = "xpu-run");
  ~Progress();

private:
  std::string what, tool;
  std::thread thread;
  std::mutex mutex;
  std::condition_variable cv;
  bool done = false, printed = false;
  std::chrono::steady_clock::time_point start;
};

} // namespace mlir::xpu::run

#endif // XPU_TOOLS_COMMON_COMPILE_H
