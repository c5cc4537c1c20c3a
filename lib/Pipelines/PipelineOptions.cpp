//===- PipelineOptions.cpp - pipeline options checked when parsed ---------===//
//
// Every value a pipeline option takes is checked once, when the options are
// parsed, and a bad one is reported in the user's words: the pipeline, the
// option, the value given and the values accepted. The precision policy and
// the chips of each pipeline live here, once, for the pipelines, the tools
// and the Python package; the chips come from #xpu.target's preset table.
// The passes the pipelines build keep their own checks for direct use.
//
//===----------------------------------------------------------------------===//

#include "PipelineUtils.h"
#include "xpu/Pipelines/Pipelines.h"

#include "xpu/Dialect/XPU/IR/TargetPresets.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace mlir::xpu;

namespace {
constexpr StringLiteral kModelPrecisions[] = {"f32", "bf16", "f16", "f64"};
/// NVIDIA: no f64 GEMM kernels; tf32 tensor cores for f32 models.
constexpr StringLiteral kNVVMPrecisions[] = {"f32", "tf32", "bf16", "f16"};
constexpr StringLiteral kWeights[] = {"auto", "marked"};
constexpr StringLiteral kSchedules[] = {"auto", "data_parallel", "persistent",
                                        "stream_k"};
constexpr StringLiteral kFixups[] = {"deterministic", "atomic"};

template <size_t N>
SmallVector<StringRef> toRefs(const StringLiteral (&values)[N]) {
  return SmallVector<StringRef>(std::begin(values), std::end(values));
}

LogicalResult checkOneOf(PipelineOptionErrorFn emitError, StringRef option,
                         StringRef value, ArrayRef<StringRef> accepted) {
  if (llvm::is_contained(accepted, value))
    return success();
  return emitError("invalid value '" + value + "' for option '" + option +
                   "' (expected " + listAlternatives(accepted) + ")");
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

/// The chips each pipeline takes, from the preset table (TargetPresets.h).
struct PresetChips {
  SmallVector<StringRef> xe, nvidia, gpus, cpu;

  static const PresetChips &get() {
    static const PresetChips chips = [] {
      PresetChips c;
      // xpu-xe-pipeline emits DPAS kernels; xpu-nvvm-pipeline takes every
      // NVIDIA chip; the SIMT pipeline every GPU.
      c.xe = listPresets([](const TargetPreset &p) { return p.dpas; });
      c.nvidia = listPresets("nvidia");
      c.gpus = listPresets([](const TargetPreset &p) { return !p.isCpu(); });
      // The CPU pipeline: the host (detected when the pipeline is built)
      // or any CPU preset, for cross-compiling.
      c.cpu.push_back(kHostChip);
      llvm::append_range(c.cpu, listPresets("cpu"));
      return c;
    }();
    return chips;
  }
};

/// Help texts built once from the tables (cl::desc keeps a StringRef).
struct HelpTexts {
  std::string precision[5], chip[5];

  static const HelpTexts &get() {
    static const HelpTexts texts = [] {
      HelpTexts t;
      for (auto kind :
           {PipelineKind::Optimize, PipelineKind::CPU, PipelineKind::SPIRV,
            PipelineKind::Xe, PipelineKind::NVVM}) {
        auto i = static_cast<size_t>(kind);
        t.precision[i] =
            "Precision of the model's GEMMs: " +
            listAlternatives(getPrecisions(kind)) + " (default " +
            getPrecisions(kind).front().str() +
            "). f32 keeps f32 numerics (f64 GEMMs are demoted by "
            "xpu-demote-f64, with a remark), f64 keeps f64 GEMMs, bf16 and "
            "f16 convert the operands once at pack time (xpu-prepack-bf16) "
            "and accumulate in f32";
        if (kind == PipelineKind::Xe)
          t.precision[i] += "; DPAS multiplies bf16 or f16, so f32 models "
                            "get bf16 operands (f64 GEMMs stay f64 SIMT work)";
        if (kind == PipelineKind::NVVM)
          t.precision[i] += "; f32 GEMMs run as SIMT kernels, tf32 ones on "
                            "tensor cores with tf32 operands, 16-bit models "
                            "always on tensor cores";
        if (kind == PipelineKind::Optimize)
          continue;
        if (kind == PipelineKind::CPU) {
          t.chip[i] =
              "CPU to compile for: host (default: the CPU this "
              "process runs on, detected through LLVM's host CPU "
              "queries, as the preset with the most of its features "
              "and its own LLVM name and features) or a preset to "
              "cross-compile for (" +
              listAlternatives(ArrayRef(getPipelineChips(kind)).drop_front()) +
              "); it sets the #xpu.target, the register tile and "
              "the instructions the code may use";
          continue;
        }
        t.chip[i] = "Chip: " + listAlternatives(getPipelineChips(kind)) +
                    " (default " + getDefaultChip(kind).str() +
                    "); the #xpu.target preset when the module has none, and "
                    "the chip the kernels are compiled for";
      }
      return t;
    }();
    return texts;
  }
};
} // namespace

std::string mlir::xpu::listAlternatives(ArrayRef<StringRef> values) {
  std::string s;
  for (auto [i, v] : llvm::enumerate(values)) {
    if (i)
      s += i + 1 == values.size() ? " or " : ", ";
    s += v.str();
  }
  return s;
}

std::optional<PipelineKind> mlir::xpu::lookupPipelineKind(StringRef name) {
  return llvm::StringSwitch<std::optional<PipelineKind>>(name)
      .Case(XPUOptimizePipelineOptions::kPipelineName, PipelineKind::Optimize)
      .Case(XPUCPUPipelineOptions::kPipelineName, PipelineKind::CPU)
      .Case(XPUSPIRVPipelineOptions::kPipelineName, PipelineKind::SPIRV)
      .Case(XPUXePipelineOptions::kPipelineName, PipelineKind::Xe)
      .Case(XPUNVVMPipelineOptions::kPipelineName, PipelineKind::NVVM)
      .Default(std::nullopt);
}

ArrayRef<StringRef> mlir::xpu::getPrecisions(PipelineKind kind) {
  static const SmallVector<StringRef> model = toRefs(kModelPrecisions);
  static const SmallVector<StringRef> nvvm = toRefs(kNVVMPrecisions);
  return kind == PipelineKind::NVVM ? nvvm : model;
}

FailureOr<PrecisionPolicy>
mlir::xpu::resolvePrecision(PipelineKind kind, StringRef requested,
                            PipelineOptionErrorFn emitError) {
  if (failed(checkOneOf(emitError, kPrecisionOption, requested,
                        getPrecisions(kind))))
    return failure();
  PrecisionPolicy policy;
  policy.operands = requested.str();
  if (kind == PipelineKind::Xe && requested == "f32") {
    // DPAS multiplies bf16 or f16: an f32 model gets bf16 operands converted
    // once at pack time (xpu-prepack-bf16 says so in a remark), and
    // accumulates in f32.
    policy.operands = "bf16";
  } else if (kind == PipelineKind::NVVM && requested == "tf32") {
    // tf32 keeps f32 numerics up to the kernel, which reads the operands as
    // tf32.
    policy.operands = "f32";
    policy.tf32 = true;
  }
  return policy;
}

ArrayRef<StringRef> mlir::xpu::getPipelineChips(PipelineKind kind) {
  const PresetChips &chips = PresetChips::get();
  switch (kind) {
  case PipelineKind::Xe:
    return chips.xe;
  case PipelineKind::NVVM:
    return chips.nvidia;
  case PipelineKind::SPIRV:
    // GPU presets only: the strategy gives no config for the cpu target.
    return chips.gpus;
  case PipelineKind::CPU:
    return chips.cpu;
  case PipelineKind::Optimize:
    return {};
  }
  llvm_unreachable("unknown pipeline kind");
}

StringRef mlir::xpu::getDefaultChip(PipelineKind kind) {
  if (kind == PipelineKind::NVVM)
    return getPipelineDefaultPreset("nvidia")->chip;
  ArrayRef<StringRef> chips = getPipelineChips(kind);
  return chips.empty() ? StringRef() : chips.front();
}

LogicalResult mlir::xpu::checkPipelineChip(PipelineKind kind, StringRef option,
                                           StringRef chip,
                                           PipelineOptionErrorFn emitError) {
  return checkOneOf(emitError, option, chip, getPipelineChips(kind));
}

StringRef mlir::xpu::detail::getPrecisionHelp(PipelineKind kind) {
  return HelpTexts::get().precision[static_cast<size_t>(kind)];
}

StringRef mlir::xpu::detail::getChipHelp(PipelineKind kind) {
  return HelpTexts::get().chip[static_cast<size_t>(kind)];
}

LogicalResult mlir::xpu::checkScheduleOptions(const GPUScheduleOptions &options,
                                              PipelineOptionErrorFn emitError) {
  if (failed(checkOneOf(emitError, "schedule", options.schedule,
                        toRefs(kSchedules))) ||
      failed(checkOneOf(emitError, "fixup", options.fixup, toRefs(kFixups))))
    return failure();
  if (options.programs < 0)
    return emitError("invalid value '" + Twine(options.programs) +
                     "' for option 'programs' (expected 0 for the "
                     "workgroups the target runs at once, or a positive "
                     "count)");
  return success();
}

LogicalResult mlir::xpu::checkSimtVectorOption(int64_t simtVector,
                                               PipelineOptionErrorFn emitError) {
  if (simtVector == 0 || simtVector == 1 || simtVector == 2 ||
      simtVector == 4)
    return success();
  return emitError("invalid value '" + Twine(simtVector) +
                   "' for option 'simt-vector' (expected 0 for the "
                   "backend's choice, 1, 2 or 4)");
}

LogicalResult
XPUOptimizePipelineOptions::validate(PipelineOptionErrorFn emitError) const {
  if (failed(validateCommon(emitError)) ||
      failed(checkOneOf(emitError, "weights", weights, toRefs(kWeights))))
    return failure();
  if (weights.hasValue())
    warnDeprecated("option 'weights' is deprecated and has no effect: the "
                   "weights are always the arguments marked xpu.weight");
  return success();
}

LogicalResult
XPUCPUPipelineOptions::validate(PipelineOptionErrorFn emitError) const {
  // The register tile is one vector per row of the micro-kernel: 256 lanes
  // and 4096 elements are far beyond any register file.
  if (failed(validateCommon(emitError)) ||
      failed(checkSizes(emitError, "cache-tile", cacheTile, 3, int64_t(1) << 30,
                        "[mc, nc, kc]")) ||
      failed(checkSizes(emitError, "register-tile", registerTile, 2, 256,
                        "[mr, nr]")))
    return failure();
  if (failed(checkPipelineChip(kKind, "chip", chip, emitError)))
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
  if (!target.hasValue())
    return validateGPU(emitError);
  // The deprecated spelling of chip: checked like it, and it wins.
  if (failed(validateCommon(emitError)) ||
      failed(checkPipelineChip(kKind, "target", target, emitError)) ||
      failed(checkScheduleOptions(getScheduleOptions(), emitError)))
    return failure();
  warnDeprecated("option 'target' is deprecated, use 'chip' (chip=" + target +
                 ")");
  return success();
}

LogicalResult
XPUXePipelineOptions::validate(PipelineOptionErrorFn emitError) const {
  return validateGPU(emitError);
}

LogicalResult
XPUNVVMPipelineOptions::validate(PipelineOptionErrorFn emitError) const {
  return success(succeeded(validateGPU(emitError)) &&
                 succeeded(checkOneOf(emitError, "binary-format", binaryFormat,
                                      {"bin", "fatbin", "isa"})) &&
                 succeeded(checkOneOf(emitError, "fast-math", fastMath,
                                      {"auto", "on", "off"})));
}

bool XPUNVVMPipelineOptions::useFastMath() const {
  if (fastMath != "auto")
    return fastMath == "on";
  // A bf16 (f16) GEMM's operands are rounded to 8 (11) significant bits;
  // f32 and tf32 models keep libdevice's correctly rounded functions.
  PrecisionPolicy policy = getPrecisionPolicy();
  return !policy.tf32 &&
         (policy.operands == "bf16" || policy.operands == "f16");
}
