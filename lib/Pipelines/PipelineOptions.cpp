//===- PipelineOptions.cpp - pipeline options checked when parsed ---------===//
//
// Every value a pipeline option takes is checked once, when the options are
// parsed, and a bad one is reported in the user's words: the pipeline, the
// option, the value given and the values accepted. The passes the pipelines
// build keep their own checks for direct use.
//
//===----------------------------------------------------------------------===//

#include "PipelineUtils.h"
#include "xpu/Pipelines/Pipelines.h"

#include "xpu/Dialect/XPU/IR/XPUAttrs.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::xpu;

namespace {
constexpr StringLiteral kPrecisions[] = {"f32", "bf16", "f16", "f64"};
constexpr StringLiteral kWeights[] = {"auto", "marked"};
constexpr StringLiteral kXeChips[] = {"pvc", "bmg"};
constexpr StringLiteral kSchedules[] = {"auto", "data_parallel", "persistent",
                                        "stream_k"};
constexpr StringLiteral kFixups[] = {"deterministic", "atomic"};

/// "a, b or c".
std::string listValues(ArrayRef<StringRef> values) {
  std::string s;
  for (auto [i, v] : llvm::enumerate(values)) {
    if (i)
      s += i + 1 == values.size() ? " or " : ", ";
    s += v.str();
  }
  return s;
}

LogicalResult checkOneOf(PipelineOptionErrorFn emitError, StringRef option,
                         StringRef value, ArrayRef<StringRef> accepted) {
  if (llvm::is_contained(accepted, value))
    return success();
  return emitError("invalid value '" + value + "' for option '" + option +
                   "' (expected " + listValues(accepted) + ")");
}

LogicalResult checkPrecision(PipelineOptionErrorFn emitError, StringRef value) {
  SmallVector<StringRef> accepted(std::begin(kPrecisions),
                                  std::end(kPrecisions));
  return checkOneOf(emitError, "precision", value, accepted);
}

/// An optional list of `count` sizes, each in [1, max] ('-' when empty).
LogicalResult checkSizes(PipelineOptionErrorFn emitError, StringRef option,
                         ArrayRef<int64_t> sizes, size_t count, int64_t max,
                         StringRef meaning) {
  if (sizes.empty())
    return success();
  if (sizes.size() == count &&
      llvm::all_of(sizes, [&](int64_t s) { return s >= 1 && s <= max; }))
    return success();
  std::string given;
  llvm::raw_string_ostream os(given);
  llvm::interleave(sizes, os, ",");
  return emitError("invalid value '" + given + "' for option '" + option +
                   "' (expected " + Twine(count) + " sizes " + meaning +
                   ", each between 1 and " + Twine(max) + ")");
}
/// The schedule options of the GPU pipelines.
LogicalResult checkSchedule(PipelineOptionErrorFn emitError,
                            const GPUScheduleOptions &options) {
  SmallVector<StringRef> schedules(std::begin(kSchedules),
                                   std::end(kSchedules));
  SmallVector<StringRef> fixups(std::begin(kFixups), std::end(kFixups));
  if (failed(checkOneOf(emitError, "schedule", options.schedule, schedules)) ||
      failed(checkOneOf(emitError, "fixup", options.fixup, fixups)))
    return failure();
  if (options.programs < 0)
    return emitError("invalid value '" + Twine(options.programs) +
                     "' for option 'programs' (expected 0 for the "
                     "workgroups the target runs at once, or a positive "
                     "count)");
  return success();
}
} // namespace

LogicalResult
XPUOptimizePipelineOptions::validate(PipelineOptionErrorFn emitError) const {
  SmallVector<StringRef> weightModes(std::begin(kWeights), std::end(kWeights));
  return success(
      succeeded(checkPrecision(emitError, precision)) &&
      succeeded(checkOneOf(emitError, "weights", weights, weightModes)));
}

LogicalResult
XPUCPUPipelineOptions::validate(PipelineOptionErrorFn emitError) const {
  // The register tile is one vector per row of the micro-kernel: 256 lanes
  // and 4096 elements are far beyond any register file.
  if (failed(checkPrecision(emitError, precision)) ||
      failed(checkSizes(emitError, "cache-tile", cacheTile, 3, int64_t(1) << 30,
                        "[mc, nc, kc]")) ||
      failed(checkSizes(emitError, "register-tile", registerTile, 2, 256,
                        "[mr, nr]")))
    return failure();
  if (threads < 0)
    return emitError("invalid value '" + Twine(threads) +
                     "' for option 'threads' (expected 0 for one per core, "
                     "or a positive count)");
  if (registerTile.size() == 2 && registerTile[0] * registerTile[1] > 4096)
    return emitError("invalid value '" + Twine(registerTile[0]) + "," +
                     Twine(registerTile[1]) +
                     "' for option 'register-tile' (a register tile of at "
                     "most 4096 elements)");
  return success();
}

LogicalResult
XPUSPIRVPipelineOptions::validate(PipelineOptionErrorFn emitError) const {
  // GPU presets only: the strategy gives no config for the cpu target.
  SmallVector<StringRef> gpus;
  for (StringRef name : TargetAttr::getPresetNames())
    if (name != "cpu")
      gpus.push_back(name);
  return success(succeeded(checkPrecision(emitError, precision)) &&
                 succeeded(checkOneOf(emitError, "target", target, gpus)) &&
                 succeeded(checkSchedule(emitError, getScheduleOptions())));
}

LogicalResult
XPUXePipelineOptions::validate(PipelineOptionErrorFn emitError) const {
  SmallVector<StringRef> chips(std::begin(kXeChips), std::end(kXeChips));
  return success(succeeded(checkOneOf(emitError, "chip", chip, chips)) &&
                 succeeded(checkPrecision(emitError, precision)) &&
                 succeeded(checkSchedule(emitError, getScheduleOptions())));
}

LogicalResult
XPUNVVMPipelineOptions::validate(PipelineOptionErrorFn emitError) const {
  return success(succeeded(checkOneOf(emitError, "chip", chip,
                                      {"sm_80", "sm_90", "sm_90a"})) &&
                 succeeded(checkOneOf(emitError, "precision", precision,
                                      {"f32", "tf32", "bf16", "f16"})) &&
                 succeeded(checkOneOf(emitError, "binary-format", binaryFormat,
                                      {"bin", "fatbin", "isa"})) &&
                 succeeded(checkSchedule(emitError, getScheduleOptions())));
}
