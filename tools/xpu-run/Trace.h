//===- Trace.h - Chrome/Perfetto trace of an xpu-run run --------*- C++ -*-===//
//
// `xpu-run --trace=FILE` records what a run did as Chrome trace event JSON
// (the format Perfetto and chrome://tracing open), with the schema of the
// Python package's traces (python/xpu_opt/_trace.py): {"traceEvents": [...]}
// of complete events ("ph": "X", "ts" and "dur" in microseconds of the
// monotonic clock) with "name", "cat", "pid" and "tid", plus metadata events
// ("ph": "M") naming the process and the device track. Categories: `compile`
// (the target pipeline, the JIT), `pack` (the weight-packing entry point),
// `call` (the per-call entry point, or @main) and `kernel` (each kernel of
// one call on the device track, with the device time the runtime measured;
// the CPU target runs no kernels).
//
//===----------------------------------------------------------------------===//

#ifndef XPU_TOOLS_XPU_RUN_TRACE_H
#define XPU_TOOLS_XPU_RUN_TRACE_H

#include "Runner.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::xpu::run {

/// The events of one run, written to a file at the end.
class Trace {
public:
  /// The pseudo-thread of device kernels (as in python/xpu_opt/_trace.py).
  static constexpr int64_t kDeviceTid = int64_t(1) << 30;

  /// Opens `path` for writing (so that a bad path fails before anything
  /// runs); on failure returns the error message.
  std::optional<std::string> open(StringRef path);
  bool enabled() const { return out_ != nullptr; }

  /// Microseconds on the monotonic clock.
  static double now();

  /// A complete event on the calling thread from `startUs` to now.
  void complete(StringRef name, StringRef cat, double startUs,
                llvm::json::Object args = {});
  /// The kernels of one call as events on the device track, one after the
  /// other from `startUs`, with their device times (none without one).
  void kernels(ArrayRef<KernelStats> stats, double startUs, StringRef device);

  /// Writes the trace and keeps the file; returns the error message when
  /// writing fails.
  std::optional<std::string> write();

private:
  void add(StringRef name, StringRef cat, double startUs, double durUs,
           int64_t tid, llvm::json::Object args);

  std::unique_ptr<llvm::ToolOutputFile> out_;
  std::vector<llvm::json::Value> events_;
};

} // namespace mlir::xpu::run

#endif // XPU_TOOLS_XPU_RUN_TRACE_H
