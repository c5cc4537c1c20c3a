//===- Tune.h - xpu-tune's problems, candidates and trials ------*- C++ -*-===//
//
// xpu-tune measures the configs the backends offer for each GEMM of a
// function and records the fastest correct one in a tuning database
// (docs/Tuning.md):
//
//   Candidates.cpp  the GEMMs of the function as the target's pipeline sees
//                   them, and the candidates of each, ranked by the cost
//                   model (StrategyModel.h) on GPU targets;
//   Trials.cpp      one trial: xpu-run compiles and times the whole function
//                   with one config, and its outputs are compared with the
//                   default config's;
//   xpu-tune.cpp    the command line, the budget, the table and the
//                   database.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_TOOLS_XPU_TUNE_TUNE_H
#define XPU_TOOLS_XPU_TUNE_TUNE_H

#include "xpu/Dialect/XPU/Utils/TuningDatabase.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mlir::xpu::tune {

/// One candidate of a GEMM.
struct Candidate {
  /// What goes into the database: the #xpu.config text on GPU targets, the
  /// CPU pipeline's options on the CPU.
  std::string config;
  /// A short form for the table.
  std::string display;
  /// The cost model's rank (1 = predicted fastest) and time (ns); 0 when
  /// the target has no model.
  int64_t modelRank = 0;
  double modelNs = 0;
};

/// One GEMM of the function to tune (GEMMs of the same signature are one
/// problem: they share the database entry).
struct Problem {
  /// The chip the database keys the entry by.
  std::string chip;
  GemmSignature signature;
  /// The default config (what the pipeline compiles without a database).
  Candidate defaultConfig;
  /// Every other candidate, best-ranked first.
  std::vector<Candidate> candidates;
};

/// How the tool was asked to tune.
struct TuneOptions {
  /// cpu, opencl, levelzero or cuda, and its pipeline.
  std::string target, pipeline;
  std::string input, function;
  /// The user's pipeline options (without tuning-db).
  std::string pipelineOptions;
  int64_t maxTrials = 10;
  double maxSeconds = 0;
  int64_t repeat = 5;
  int64_t seed = 1;
  double tolerance = 0;
  /// The xpu-run next to xpu-tune.
  std::string xpuRun;
  /// Where trials write their files.
  std::string workDir;
  /// Seconds one trial may take.
  unsigned trialTimeout = 600;
};

/// The GEMMs of `options.function` in `module` and their candidates; errors
/// are printed (with the tool's name).
FailureOr<std::vector<Problem>> findProblems(ModuleOp module,
                                             const TuneOptions &options);

/// The outputs of one run of the function.
struct RunOutputs {
  std::vector<std::vector<double>> values;
};

/// What one trial measured.
struct TrialResult {
  std::string status = "ok";
  double timeNs = -1;
  std::string message;
  RunOutputs outputs;
};

/// Compiles and runs the function with `config` for `problem` (empty: the
/// default config) through xpu-run, `numResults` outputs read back.
TrialResult runTrial(const TuneOptions &options, const Problem &problem,
                     const std::string &config, unsigned numResults,
                     unsigned trialIndex);

/// Compiles the function with `config` for `problem` into a package in
/// `packageDir` (xpu-run --emit-package); the status ("ok", "failed" or
/// "refused") and, when not ok, `message`.
std::string emitTrial(const TuneOptions &options, const Problem &problem,
                      const std::string &config, StringRef packageDir,
                      std::string &message);

/// --emit-trials: compiles the default and the `chosen` candidates of each
/// problem into packages under `dir` and writes `dir`/trials.json, which
/// also lists the function's `inputs` (element type and shape) for the
/// runner (python -m xpu_opt.tune_run). Fails with `error` when the
/// directory cannot be written or a default config does not compile.
LogicalResult
emitTrials(const TuneOptions &options, ArrayRef<Problem> problems,
           ArrayRef<std::vector<const Candidate *>> chosen,
           ArrayRef<std::pair<std::string, SmallVector<int64_t>>> inputs,
           StringRef dir, std::string &error);

/// A problem of trials.json with the runner's measurements.
struct CollectedProblem {
  /// The entry the trials make (best not chosen yet).
  TuningEntry entry;
  /// The table's form of each trial's config.
  std::vector<std::string> displays;
  int64_t numCandidates = 0;
  /// Compiled trials the results do not have (a runner stopped early).
  unsigned missing = 0;
};

/// --collect: the trials of `resultsPath`'s directory (trials.json) with
/// the times and statuses of `resultsPath`.
FailureOr<std::vector<CollectedProblem>> collectTrials(StringRef resultsPath,
                                                       std::string &error);

/// The relative L2 distance of `got` from `reference` over all outputs; -1
/// when their shapes differ.
double relativeL2(const RunOutputs &got, const RunOutputs &reference);

} // namespace mlir::xpu::tune

#endif // XPU_TOOLS_XPU_TUNE_TUNE_H
