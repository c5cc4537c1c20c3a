//===- Trials.cpp - one measured trial through xpu-run --------------------===//
//
// Each trial runs xpu-run in its own process: a config that crashes the
// compiler or the device program costs that trial, not the search. xpu-run
// packs the weights once, calls the function --repeat times on its seeded
// random inputs and prints the median wall time of a call; the outputs of
// the last call come back as .npy files.
//
//===----------------------------------------------------------------------===//

#include "Tune.h"

#include "Compile.h"
#include "HostTensor.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <cmath>

#include <unistd.h>

using namespace mlir;
using namespace mlir::xpu;
using namespace mlir::xpu::tune;

static std::string readText(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> b =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  return b ? (*b)->getBuffer().str() : std::string();
}

/// The first line of `text` that says `error`, else its last non-empty line.
static std::string firstError(StringRef text) {
  SmallVector<StringRef> lines;
  text.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (StringRef l : lines)
    if (l.contains("error"))
      return l.trim().str();
  return lines.empty() ? std::string("no output") : lines.back().trim().str();
}

namespace {
/// What one xpu-run process printed, and how it ended.
struct XpuRunResult {
  std::string status = "ok", message, stdoutText, stderrText;
};
} // namespace

/// The pipeline options of a trial of `config` for `problem`: the CPU's
/// options, or a one-entry database written to `prefix`.db.json.
static FailureOr<std::string>
trialOptions(const TuneOptions &options, const Problem &problem,
             const std::string &config, StringRef prefix, std::string &error) {
  std::string pipelineOptions = options.pipelineOptions;
  if (config.empty())
    return StringRef(pipelineOptions).trim().str();
  // A database of one entry: xpu-select-strategy (on the CPU
  // xpu-cpu-apply-tuning-db) gives this GEMM the config after checking it,
  // as it would a tuned one.
  TuningDatabase db;
  TuningEntry e;
  e.target = problem.chip;
  e.signature = problem.signature;
  e.bestConfig = config;
  db.insert(std::move(e));
  std::string path = (prefix + ".db.json").str();
  if (!db.write(path, error))
    return failure();
  return StringRef(pipelineOptions + " tuning-db=" + path).trim().str();
}

/// Runs xpu-run with `extra` arguments after the common ones; its output
/// goes to `prefix`.stdout and .stderr.
static XpuRunResult runXpuRun(const TuneOptions &options,
                              StringRef pipelineOptions,
                              ArrayRef<std::string> extra, StringRef prefix) {
  std::vector<std::string> args = {options.xpuRun,
                                   options.input,
                                   "--target=" + options.target,
                                   "--function=" + options.function,
                                   "--xpu-pipeline-options=" +
                                       pipelineOptions.str(),
                                   "--progress=false"};
  args.insert(args.end(), extra.begin(), extra.end());
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::string out = (prefix + ".stdout").str(),
              err = (prefix + ".stderr").str();
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(out),
                                          StringRef(err)};
  // The trial's database alone: the environment's (kTuningDbEnv) would
  // give the default run tuned configs.
  std::vector<std::string> env;
  for (char **e = environ; *e; ++e)
    if (!StringRef(*e).starts_with((run::kTuningDbEnv + "=").str()))
      env.push_back(*e);
  SmallVector<StringRef> envRefs(env.begin(), env.end());
  std::string execError;
  bool failedToRun = false;
  int rc = llvm::sys::ExecuteAndWait(
      options.xpuRun, argRefs, ArrayRef<StringRef>(envRefs), redirects,
      options.trialTimeout,
      /*MemoryLimit=*/0, &execError, &failedToRun);
  XpuRunResult result;
  result.stdoutText = readText(out);
  result.stderrText = readText(err);
  if (failedToRun || rc != 0) {
    result.status = "failed";
    result.message = failedToRun ? execError
                     : rc == -2  ? "timed out"
                     : rc < 0    ? "crashed: " + execError
                                 : firstError(result.stderrText);
  } else if (StringRef(result.stderrText)
                 .contains("ignoring the entry of tuning database")) {
    // The database's entry was refused (xpu-select-strategy's warning):
    // the run measured the model's config, not this one.
    result.status = "refused";
    result.message = firstError(result.stderrText);
  }
  return result;
}

std::string mlir::xpu::tune::emitTrial(const TuneOptions &options,
                                       const Problem &problem,
                                       const std::string &config,
                                       StringRef packageDir,
                                       std::string &message) {
  std::string error;
  FailureOr<std::string> pipelineOptions =
      trialOptions(options, problem, config, packageDir, error);
  if (failed(pipelineOptions)) {
    message = error;
    return "failed";
  }
  XpuRunResult r =
      runXpuRun(options, *pipelineOptions,
                {"--emit-package=" + packageDir.str()}, packageDir);
  message = r.message;
  return r.status;
}

TrialResult mlir::xpu::tune::runTrial(const TuneOptions &options,
                                      const Problem &problem,
                                      const std::string &config,
                                      unsigned numResults,
                                      unsigned trialIndex) {
  TrialResult result;
  std::string prefix = (options.workDir + "/trial" + Twine(trialIndex)).str();
  std::string error;
  FailureOr<std::string> pipelineOptions =
      trialOptions(options, problem, config, prefix, error);
  if (failed(pipelineOptions)) {
    result.status = "failed";
    result.message = error;
    return result;
  }
  std::vector<std::string> extra = {
      "--repeat=" + std::to_string(options.repeat),
      "--seed=" + std::to_string(options.seed), "--time"};
  for (unsigned i = 0; i < numResults; ++i)
    extra.push_back("--output=@" + prefix + ".out" + std::to_string(i) +
                    ".npy");
  XpuRunResult r = runXpuRun(options, *pipelineOptions, extra, prefix);
  if (r.status != "ok") {
    result.status = r.status;
    result.message = r.message;
    return result;
  }
  const std::string &stdoutText = r.stdoutText;
  SmallVector<StringRef> match;
  llvm::Regex median("median ([0-9.]+) ms");
  if (!median.match(stdoutText, &match)) {
    result.status = "failed";
    result.message = "xpu-run printed no time";
    return result;
  }
  double ms = 0;
  match[1].getAsDouble(ms);
  result.timeNs = ms * 1e6;
  for (unsigned i = 0; i < numResults; ++i) {
    std::string path = prefix + ".out" + std::to_string(i) + ".npy";
    llvm::Expected<run::HostTensor> t = run::readNpy(path);
    if (!t) {
      result.status = "failed";
      result.message = llvm::toString(t.takeError());
      return result;
    }
    std::vector<double> values(t->numElements());
    for (int64_t e = 0, n = t->numElements(); e < n; ++e)
      values[e] = t->get(e);
    result.outputs.values.push_back(std::move(values));
  }
  return result;
}

double mlir::xpu::tune::relativeL2(const RunOutputs &got,
                                   const RunOutputs &reference) {
  if (got.values.size() != reference.values.size())
    return -1;
  double diff = 0, norm = 0;
  for (auto [g, r] : llvm::zip_equal(got.values, reference.values)) {
    if (g.size() != r.size())
      return -1;
    for (auto [a, b] : llvm::zip_equal(g, r)) {
      // A NaN anywhere is a mismatch.
      if (std::isnan(a) != std::isnan(b))
        return INFINITY;
      if (std::isnan(a))
        continue;
      diff += (a - b) * (a - b);
      norm += b * b;
    }
  }
  if (norm == 0)
    return diff == 0 ? 0 : INFINITY;
  return std::sqrt(diff / norm);
}
