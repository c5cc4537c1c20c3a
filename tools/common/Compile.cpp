//===- Compile.cpp - targets and compiling a module for one ---------------===//

#include "Compile.h"

#include "xpu/Config/BuildPaths.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

using namespace mlir;
using namespace mlir::xpu::run;

//===----------------------------------------------------------------------===//
// Targets
//===----------------------------------------------------------------------===//

static const TargetInfo kTargets[] = {
    {"cpu", "xpu-cpu-pipeline", "", "the host CPU (xpu-cpu-pipeline)"},
    {"opencl", "xpu-spirv-pipeline", "libxpu_opencl_runtime.so",
     "any OpenCL 2.0 device with SVM (xpu-spirv-pipeline, SPIR-V kernels)"},
    {"levelzero", "xpu-spirv-pipeline", "libxpu_levelzero_runtime.so",
     "Intel GPUs through Level Zero (xpu-spirv-pipeline; xpu-xe-pipeline "
     "with --xpu-chip)"},
    {"cuda", "xpu-nvvm-pipeline", "libxpu_cuda_runtime.so",
     "NVIDIA GPUs through the CUDA driver (xpu-nvvm-pipeline)"},
};

ArrayRef<TargetInfo> mlir::xpu::run::allTargets() { return kTargets; }

std::string mlir::xpu::run::runtimeLibraryDir() {
  std::string exe = llvm::sys::fs::getMainExecutable(
      nullptr, reinterpret_cast<void *>(&mlir::xpu::run::runtimeLibraryDir));
  llvm::SmallString<256> dir(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(dir, "lib");
  llvm::SmallString<256> probe(dir);
  llvm::sys::path::append(probe, "libxpu_opencl_runtime.so");
  if (!exe.empty() && llvm::sys::fs::exists(probe))
    return std::string(dir);
  return XPU_RUNTIME_LIBRARY_DIR;
}

/// Why `target` cannot be used in this build, or nothing.
static std::optional<std::string> unavailable(const TargetInfo &target) {
  if (!PassPipelineInfo::lookup(target.pipeline))
    return llvm::formatv("its pipeline {0} is not part of this build",
                         target.pipeline)
        .str();
  if (*target.runtimeLibrary) {
    llvm::SmallString<256> path(runtimeLibraryDir());
    llvm::sys::path::append(path, target.runtimeLibrary);
    if (!llvm::sys::fs::exists(path))
      return llvm::formatv("its runtime library {0} was not built",
                           target.runtimeLibrary)
          .str();
  }
  return std::nullopt;
}

FailureOr<const TargetInfo *>
mlir::xpu::run::lookupTarget(StringRef name, Location loc, StringRef tool) {
  std::string available;
  const TargetInfo *found = nullptr;
  for (const TargetInfo &t : kTargets) {
    if (!unavailable(t))
      available += (available.empty() ? "" : ", ") + std::string(t.name);
    if (name == t.name)
      found = &t;
  }
  if (!found)
    return emitError(loc) << tool << ": unknown target '" << name
                          << "' (available: " << available << ")";
  if (std::optional<std::string> why = unavailable(*found))
    return emitError(loc) << tool << ": target '" << name
                          << "' is not available in this build: " << *why
                          << " (available: " << available << ")";
  return found;
}

StringRef mlir::xpu::run::getTargetPipeline(StringRef targetName,
                                            StringRef xpuChip) {
  if (!xpuChip.empty())
    return XPUXePipelineOptions::kPipelineName;
  for (const TargetInfo &t : kTargets)
    if (targetName == t.name)
      return t.pipeline;
  return {};
}

std::optional<std::string> mlir::xpu::run::checkXeChip(StringRef xpuChip,
                                                       StringRef targetName) {
  ArrayRef<StringRef> chips = getPipelineChips(PipelineKind::Xe);
  if (xpuChip.empty() ||
      (targetName == "levelzero" && llvm::is_contained(chips, xpuChip)))
    return std::nullopt;
  return ("--xpu-chip must be " + listAlternatives(chips) +
          ", with --target=levelzero (got --xpu-chip=" + xpuChip +
          " --target=" + targetName + ")")
      .str();
}

StringRef mlir::xpu::run::getXeChipHelp() {
  static const std::string help =
      "With --target=levelzero: compile with xpu-xe-pipeline (XeGPU, DPAS) "
      "for this Intel chip, " +
      listAlternatives(getPipelineChips(PipelineKind::Xe));
  return help;
}

std::optional<std::string> mlir::xpu::run::checkPrecision(StringRef precision,
                                                          StringRef targetName,
                                                          StringRef xpuChip) {
  std::optional<PipelineKind> kind =
      lookupPipelineKind(getTargetPipeline(targetName, xpuChip));
  // An unknown target is reported on its own.
  if (precision.empty() || !kind)
    return std::nullopt;
  if (succeeded(resolvePrecision(*kind, precision,
                                 [](const Twine &) { return failure(); })))
    return std::nullopt;
  return ("--precision must be " + listAlternatives(getPrecisions(*kind)) +
          " for --target=" + targetName + ", got '" + precision + "'")
      .str();
}

void mlir::xpu::run::printPrecisions(raw_ostream &os) {
  for (const TargetInfo &t : kTargets) {
    std::optional<PipelineKind> kind = lookupPipelineKind(t.pipeline);
    if (!kind)
      continue;
    os << t.name;
    for (StringRef precision : getPrecisions(*kind))
      os << " " << precision;
    os << "\n";
  }
}

FailureOr<std::string>
mlir::xpu::run::runtimeLibraryPath(const TargetInfo &target, Location loc) {
  if (!*target.runtimeLibrary)
    return std::string();
  llvm::SmallString<256> path(runtimeLibraryDir());
  llvm::sys::path::append(path, target.runtimeLibrary);
  if (!llvm::sys::fs::exists(path))
    return emitError(loc) << "the runtime library '" << path
                          << "' does not exist";
  return std::string(path);
}

uint64_t mlir::xpu::run::physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return uint64_t(pages) * uint64_t(pageSize);
}

//===----------------------------------------------------------------------===//
// Progress
//===----------------------------------------------------------------------===//

Progress::Progress(bool enabled, std::string what, std::string tool)
    : what(std::move(what)), tool(std::move(tool)) {
  if (!enabled)
    return;
  start = std::chrono::steady_clock::now();
  thread = std::thread([this] {
    std::unique_lock<std::mutex> lock(mutex);
    if (!cv.wait_for(lock, std::chrono::seconds(1), [this] { return done; })) {
      llvm::errs() << this->tool << ": " << this->what << "...\n";
      llvm::errs().flush();
      printed = true;
    }
  });
}

Progress::~Progress() {
  if (!thread.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
  }
  cv.notify_all();
  thread.join();
  if (printed) {
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    llvm::errs() << llvm::formatv("{0}: {1}: done in {2:f1} s\n", tool, what,
                                  s);
  }
}

namespace {
/// Adds the entry wrappers right before the first bufferization.
struct EntryInstrumentation : PassInstrumentation {
  EntryPlan *plan;
  bool added = false;
  bool failed = false;
  explicit EntryInstrumentation(EntryPlan *plan) : plan(plan) {}
  void runBeforePass(Pass *pass, Operation *op) override {
    if (added || pass->getArgument() != "one-shot-bufferize")
      return;
    auto module = dyn_cast<ModuleOp>(op);
    if (!module)
      return;
    added = true;
    failed = mlir::failed(addEntryWrappers(module, *plan));
  }
};
} // namespace

/// `options` with `tuning-db=$XPU_OPT_TUNING_DB` for a pipeline that reads
/// one (the GPU pipelines and the CPU's) when the variable is set and the
/// options name no database (docs/Tuning.md).
static std::string withTuningDatabase(StringRef pipelineName,
                                      StringRef options) {
  std::optional<std::string> db = llvm::sys::Process::GetEnv(kTuningDbEnv);
  std::optional<xpu::PipelineKind> kind = xpu::lookupPipelineKind(pipelineName);
  if (!db || db->empty() || options.contains("tuning-db=") ||
      (kind != xpu::PipelineKind::SPIRV && kind != xpu::PipelineKind::Xe &&
       kind != xpu::PipelineKind::NVVM && kind != xpu::PipelineKind::CPU))
    return options.str();
  return (options + " tuning-db=" + *db).str();
}

LogicalResult mlir::xpu::run::compileModule(ModuleOp module,
                                            const CompileOptions &options,
                                            EntryPlan *plan) {
  MLIRContext *ctx = module.getContext();
  std::string pipelineName = options.pipelineOverride.empty()
                                 ? options.target->pipeline
                                 : options.pipelineOverride;
  std::string text;
  if (!options.passPipeline.empty()) {
    text = options.passPipeline;
    if (!StringRef(text).trim().starts_with("builtin.module("))
      text = "builtin.module(" + text + ")";
  } else {
    text = "builtin.module(" + pipelineName + "{" +
           withTuningDatabase(pipelineName, options.pipelineOptions) + "})";
  }
  std::string parseErrors;
  llvm::raw_string_ostream errs(parseErrors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(text, errs);
  if (failed(parsed)) {
    // The parser's first line says which option (or pass) it stopped at.
    StringRef first = StringRef(parseErrors).trim().split('\n').first;
    InFlightDiagnostic diag = module.emitError();
    if (options.passPipeline.empty())
      diag << options.tool << ": invalid --xpu-pipeline-options '"
           << options.pipelineOptions << "' for " << pipelineName;
    else
      diag << options.tool << ": cannot parse --pass-pipeline '"
           << options.passPipeline << "'";
    if (!first.empty())
      diag << ": " << first;
    return failure();
  }
  PassManager pm(ctx);
  static_cast<OpPassManager &>(pm) = *parsed;
  if (failed(applyPassManagerCLOptions(pm)))
    return module.emitError() << options.tool << ": bad pass manager options";
  applyDefaultTimingPassManagerCLOptions(pm);
  auto *instrumentation = plan ? new EntryInstrumentation(plan) : nullptr;
  if (instrumentation)
    pm.addInstrumentation(
        std::unique_ptr<PassInstrumentation>(instrumentation));
  {
    Progress progress(
        options.progress,
        llvm::formatv("compiling for {0} ({1})", options.target->name,
                      options.passPipeline.empty() ? pipelineName
                                                   : "--pass-pipeline")
            .str(),
        options.tool);
    if (failed(pm.run(module)))
      return failure();
  }
  if (instrumentation && instrumentation->failed)
    return failure();
  if (instrumentation && !instrumentation->added)
    return module.emitError()
           << options.tool
           << ": the pipeline has no one-shot-bufferize, before which the "
              "wrapper that calls @"
           << plan->function << " is added";
  if (options.printIR)
    module->print(llvm::errs());
  return success();
}
