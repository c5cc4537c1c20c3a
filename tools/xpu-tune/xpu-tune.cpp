//===- xpu-tune.cpp - measured tuning of the GEMMs of a function ----------===//
//
//   xpu-tune model.mlir --target=cpu|opencl|levelzero|cuda --db=tuning.json
//       [--function=forward] [--max-trials=10] [--max-seconds=S]
//       [--xpu-pipeline-options=...] [--resume]
//   xpu-tune merge a.json b.json ... -o all.json
//
// For each GEMM of the function (GEMMs of one signature are one problem)
// the default config is measured first, then up to --max-trials candidates:
// the cost model's best-ranked ones and a few spread over the rest of its
// ranking. A trial compiles and runs the whole function (Trials.cpp); its
// outputs must match the default config's within the tolerance, else it is
// recorded as a mismatch and never chosen. The database gets the fastest
// correct config after every trial, so an interrupted run continues with
// --resume. docs/Tuning.md describes the database and the search.
//
//===----------------------------------------------------------------------===//

#include "Tune.h"

#include "Compile.h"
#include "EntryPoints.h"
#include "HostTensor.h"
#include "xpu/Config/Version.h"
#include "xpu/InitAll.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <chrono>
#include <cmath>

using namespace mlir;
using namespace mlir::xpu;
using namespace mlir::xpu::tune;
namespace cl = llvm::cl;

static cl::OptionCategory tuneCategory("xpu-tune options");
static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<input .mlir file>"),
                                      cl::cat(tuneCategory));
static cl::opt<std::string>
    targetName("target",
               cl::desc("Device to tune for: cpu (default), opencl, "
                        "levelzero or cuda (as xpu-run's --target)"),
               cl::init("cpu"), cl::cat(tuneCategory));
static cl::opt<std::string> function("function",
                                     cl::desc("Function to tune (default "
                                              "forward)"),
                                     cl::init("forward"),
                                     cl::cat(tuneCategory));
static cl::opt<int64_t>
    maxTrials("max-trials",
              cl::desc("Candidates measured per GEMM, besides the default "
                       "config (default 10)"),
              cl::init(10), cl::cat(tuneCategory));
static cl::opt<double>
    maxSeconds("max-seconds",
               cl::desc("Start no trial after this many seconds (default 0: "
                        "no limit)"),
               cl::init(0), cl::cat(tuneCategory));
static cl::opt<std::string>
    dbPath("db",
           cl::desc("Tuning database to write (read first with "
                    "--resume)"),
           cl::cat(tuneCategory));
static cl::opt<bool>
    resume("resume",
           cl::desc("Keep the trials the database has for these GEMMs: they "
                    "count toward --max-trials and are not measured again"),
           cl::init(false), cl::cat(tuneCategory));
static cl::opt<std::string> pipelineOptions(
    "xpu-pipeline-options",
    cl::desc("Options of the target pipeline, as xpu-run takes them (on the "
             "CPU without cache-tile, register-tile and threads, which are "
             "tuned)"),
    cl::init(""), cl::cat(tuneCategory));
static cl::opt<int64_t> repeat("repeat",
                               cl::desc("Calls per trial, the median timed "
                                        "(default 5)"),
                               cl::init(5), cl::cat(tuneCategory));
static cl::opt<int64_t> seed("seed",
                             cl::desc("Seed of the random inputs (default 1)"),
                             cl::init(1), cl::cat(tuneCategory));
static cl::opt<double> tolerance(
    "tolerance",
    cl::desc("Largest relative L2 distance of a trial's outputs from the "
             "default config's (default: 1e-4 for f32 results, 1e-2 for "
             "16-bit ones, 1e-10 for f64)"),
    cl::init(0), cl::cat(tuneCategory));

static cl::opt<std::string>
    shard("shard",
          cl::desc("i/n: measure only the candidates i, i + n, i + 2n, ... "
                   "of the ones chosen (0 <= i < n), so that n runs on n "
                   "machines share one search; combine their databases with "
                   "xpu-tune merge"),
          cl::init(""), cl::cat(tuneCategory));

static cl::opt<std::string> emitTrialsDir(
    "emit-trials",
    cl::desc("Compile the default and the chosen candidates into packages "
             "in this directory instead of measuring them (for a machine "
             "without the compiler: python -m xpu_opt.tune_run DIR there, "
             "then --collect)"),
    cl::init(""), cl::cat(tuneCategory));
static cl::opt<std::string> collectPath(
    "collect",
    cl::desc("Record DIR/results.json, the runner's measurements of the "
             "trials --emit-trials wrote to DIR, in --db"),
    cl::init(""), cl::cat(tuneCategory));

static int fail(const Twine &message) {
  llvm::errs() << "error: xpu-tune: " << message << "\n";
  return 1;
}

//===----------------------------------------------------------------------===//
// merge
//===----------------------------------------------------------------------===//

static int runMerge(int argc, char **argv) {
  std::vector<std::string> inputs;
  std::string output;
  for (int i = 2; i < argc; ++i) {
    StringRef a = argv[i];
    if (a == "-o" && i + 1 < argc)
      output = argv[++i];
    else if (a.starts_with("-o="))
      output = a.drop_front(3).str();
    else if (a.starts_with("-"))
      return fail("merge: unknown option '" + a +
                  "' (usage: xpu-tune merge a.json b.json ... -o all.json)");
    else
      inputs.push_back(a.str());
  }
  if (inputs.empty() || output.empty())
    return fail("merge: usage: xpu-tune merge a.json b.json ... -o all.json");
  TuningDatabase merged;
  for (const std::string &path : inputs) {
    std::string error;
    std::optional<TuningDatabase> db = TuningDatabase::read(path, error);
    if (!db)
      return fail(error);
    merged.merge(*db);
  }
  std::string error;
  if (!merged.write(output, error))
    return fail(error);
  llvm::outs() << llvm::formatv("xpu-tune: merged {0} database(s) into {1}: "
                                "{2} entries\n",
                                inputs.size(), output,
                                merged.getEntries().size());
  return 0;
}

//===----------------------------------------------------------------------===//
// Tuning
//===----------------------------------------------------------------------===//

/// The tolerance for the function's results: the relative L2 distance two
/// correct summation orders can have.
static double defaultTolerance(ArrayRef<Type> results) {
  double tol = 1e-10;
  for (Type t : results) {
    Type e = getElementTypeOrSelf(t);
    unsigned bits = e.isIntOrFloat() ? e.getIntOrFloatBitWidth() : 64;
    tol = std::max(tol, bits <= 16 ? 1e-2 : bits <= 32 ? 1e-4 : 1e-10);
  }
  return tol;
}

/// The candidates to measure: the `budget` best-ranked ones not measured
/// yet, a quarter of them (from 4 on) traded for candidates spread evenly
/// over the rest of the ranking, so that a model that is wrong about a
/// whole region of configs is found out.
static std::vector<const Candidate *>
chooseTrials(const Problem &p, const TuningEntry &entry, int64_t budget) {
  std::vector<const Candidate *> open;
  for (const Candidate &c : p.candidates)
    if (llvm::none_of(entry.trials, [&](const TuningTrial &t) {
          return t.config == c.config;
        }))
      open.push_back(&c);
  if (budget <= 0)
    return {};
  size_t n = std::min<size_t>(budget, open.size());
  size_t diverse = n >= 4 ? n / 4 : 0, top = n - diverse;
  std::vector<const Candidate *> chosen(open.begin(), open.begin() + top);
  size_t rest = open.size() - top;
  for (size_t i = 0; i < diverse; ++i)
    chosen.push_back(open[top + (i + 1) * rest / (diverse + 1)]);
  return chosen;
}

static void printTable(const TuningEntry &entry, int64_t numCandidates,
                       ArrayRef<std::string> displays) {
  llvm::outs() << llvm::formatv("\nxpu-tune: {0} on {1}\n",
                                entry.signature.key(), entry.target);
  llvm::outs() << llvm::formatv("{0,5}  {1,-44} {2,12} {3,10} {4,6}  {5}\n",
                                "trial", "config", "time (ms)", "vs default",
                                "model", "status");
  for (auto [i, t] : llvm::enumerate(entry.trials)) {
    std::string time = "-", ratio = "-", rank = "-";
    if (t.timeNs >= 0)
      time = llvm::formatv("{0:f4}", t.timeNs * 1e-6).str();
    if (t.timeNs > 0 && entry.defaultNs > 0)
      ratio = llvm::formatv("{0:f2}x", entry.defaultNs / t.timeNs).str();
    if (t.modelRank > 0)
      rank = std::to_string(t.modelRank);
    std::string status = t.status;
    if (!t.message.empty())
      status += ": " + t.message;
    if (t.config == entry.bestConfig)
      status += " (best)";
    llvm::outs() << llvm::formatv("{0,5}  {1,-44} {2,12} {3,10} {4,6}  {5}\n",
                                  i, displays[i], time, ratio, rank, status);
  }
  if (entry.bestNs > 0 && entry.defaultNs > 0)
    llvm::outs() << llvm::formatv("best: {0:f2}x the default config",
                                  entry.defaultNs / entry.bestNs);
  if (entry.modelRankOfBest)
    llvm::outs() << llvm::formatv("; the model ranked it {0} of {1}",
                                  *entry.modelRankOfBest, numCandidates);
  if (entry.rankCorrelation)
    llvm::outs() << llvm::formatv("; rank correlation of model and "
                                  "measurement {0:f2}",
                                  *entry.rankCorrelation);
  llvm::outs() << "\n";
}

/// --collect: the runner's measurements into the database.
static int collectMain() {
  if (dbPath.empty())
    return fail("--db=PATH is required: the tuning database to write");
  std::string error;
  std::optional<TuningDatabase> db = TuningDatabase::readOrEmpty(dbPath, error);
  if (!db)
    return fail(error);
  FailureOr<std::vector<CollectedProblem>> problems =
      collectTrials(collectPath, error);
  if (failed(problems))
    return fail(error);
  for (CollectedProblem &p : *problems) {
    TuningEntry *existing = db->lookup(p.entry.target, p.entry.signature);
    if (resume && existing) {
      // The new measurements replace the old ones of the same configs.
      for (const TuningTrial &t : existing->trials)
        if (llvm::none_of(p.entry.trials, [&](const TuningTrial &n) {
              return n.config == t.config;
            })) {
          p.entry.trials.push_back(t);
          p.displays.push_back(t.config);
        }
    }
    p.entry.recomputeBest();
    db->insert(p.entry);
    if (p.missing)
      llvm::errs() << llvm::formatv("warning: xpu-tune: {0} compiled "
                                    "trial(s) of {1} have no result\n",
                                    p.missing, p.entry.signature.key());
    printTable(p.entry, p.numCandidates, p.displays);
  }
  if (!db->write(dbPath, error))
    return fail(error);
  llvm::outs() << llvm::formatv("xpu-tune: wrote {0}\n", dbPath);
  return 0;
}

static int tuneMain(MLIRContext &ctx) {
  if (!collectPath.empty())
    return collectMain();
  if (inputFile.empty())
    return fail("no input file (usage: xpu-tune model.mlir --target=T "
                "--db=tuning.json)");
  if (maxTrials <= 0)
    return fail("--max-trials must be at least 1, got " + Twine(maxTrials));
  if (maxSeconds < 0)
    return fail(llvm::formatv("--max-seconds must be positive (0: no "
                              "limit), got {0}",
                              double(maxSeconds)));
  if (repeat <= 0)
    return fail("--repeat must be at least 1, got " + Twine(repeat));
  if (tolerance < 0)
    return fail(llvm::formatv("--tolerance must be positive, got {0}",
                              double(tolerance)));
  if (dbPath.empty() && emitTrialsDir.empty())
    return fail("--db=PATH is required: the tuning database to write");
  unsigned shardIndex = 0, shardCount = 1;
  if (!shard.empty()) {
    auto [i, n] = StringRef(shard).split('/');
    if (i.getAsInteger(10, shardIndex) || n.getAsInteger(10, shardCount) ||
        shardCount == 0 || shardIndex >= shardCount)
      return fail("--shard must be i/n with 0 <= i < n, got '" + shard + "'");
  }
  FailureOr<const run::TargetInfo *> target =
      run::lookupTarget(targetName, UnknownLoc::get(&ctx), "xpu-tune");
  if (failed(target))
    return 1;
  if (StringRef(pipelineOptions).contains("tuning-db"))
    return fail("--xpu-pipeline-options sets tuning-db, which xpu-tune sets "
                "for each trial");
  if (targetName == "cpu")
    for (StringRef tuned : {"cache-tile", "register-tile"})
      if (StringRef(pipelineOptions).contains(tuned))
        return fail("--xpu-pipeline-options sets " + tuned +
                    ", which xpu-tune tunes on the CPU");

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(inputFile, &error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &ctx);
  if (!module)
    return 1;
  FailureOr<run::EntryPlan> plan =
      run::checkEntry(*module, function, {}, "xpu-tune");
  if (failed(plan))
    return 1;

  // The database: read (its errors are one line) and written back at once,
  // so that an unwritable path fails before any trial.
  std::optional<TuningDatabase> db =
      dbPath.empty() ? TuningDatabase()
                     : TuningDatabase::readOrEmpty(dbPath, error);
  if (!db)
    return fail(error);
  if (!dbPath.empty() && !db->write(dbPath, error))
    return fail(error);

  TuneOptions options;
  options.target = targetName;
  options.pipeline = (*target)->pipeline;
  options.input = inputFile;
  options.function = function;
  options.pipelineOptions = pipelineOptions;
  options.maxTrials = maxTrials;
  options.maxSeconds = maxSeconds;
  options.repeat = repeat;
  options.seed = seed;
  options.tolerance =
      tolerance > 0 ? double(tolerance) : defaultTolerance(plan->results);
  std::string self = llvm::sys::fs::getMainExecutable(
      "xpu-tune", reinterpret_cast<void *>(&fail));
  SmallString<256> xpuRun(llvm::sys::path::parent_path(self));
  llvm::sys::path::append(xpuRun, "xpu-run");
  if (!llvm::sys::fs::can_execute(xpuRun))
    return fail("cannot find xpu-run next to xpu-tune (" + xpuRun + ")");
  options.xpuRun = xpuRun.str().str();
  SmallString<256> workDir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("xpu-tune", workDir))
    return fail("cannot create a directory for the trials: " + ec.message());
  options.workDir = workDir.str().str();
  llvm::scope_exit cleanUp(
      [&] { llvm::sys::fs::remove_directories(options.workDir); });

  FailureOr<std::vector<Problem>> problems = findProblems(*module, options);
  if (failed(problems))
    return 1;
  if (problems->empty())
    return fail("@" + function + " has no GEMM to tune on " + targetName);

  // The candidates to measure for `p`: the budget left after the trials
  // `entry` has, this shard's share of them.
  auto choose = [&](const Problem &p, const TuningEntry &entry,
                    StringRef defaultConfig) {
    int64_t done = llvm::count_if(entry.trials, [&](const TuningTrial &t) {
      return t.config != defaultConfig;
    });
    std::vector<const Candidate *> chosen =
        chooseTrials(p, entry, maxTrials - done);
    std::vector<const Candidate *> mine;
    for (auto [i, c] : llvm::enumerate(chosen))
      if (i % shardCount == shardIndex)
        mine.push_back(c);
    return std::make_pair(done, mine);
  };
  auto entryFor = [&](const Problem &p) {
    TuningEntry fresh;
    fresh.target = p.chip;
    fresh.signature = p.signature;
    TuningEntry *existing = db->lookup(p.chip, p.signature);
    return resume && existing ? *existing : fresh;
  };
  auto defaultConfigOf = [](const Problem &p) {
    return p.defaultConfig.config.empty() ? std::string("default")
                                          : p.defaultConfig.config;
  };

  if (!emitTrialsDir.empty()) {
    std::vector<std::vector<const Candidate *>> chosen;
    for (const Problem &p : *problems)
      chosen.push_back(choose(p, entryFor(p), defaultConfigOf(p)).second);
    std::vector<std::pair<std::string, SmallVector<int64_t>>> inputs;
    for (Type t : plan->inputs) {
      auto shaped = dyn_cast<ShapedType>(t);
      std::optional<run::ElemKind> kind =
          run::elemKindOf(getElementTypeOrSelf(t));
      inputs.push_back({kind ? run::elemName(*kind).str() : std::string("?"),
                        shaped ? SmallVector<int64_t>(shaped.getShape())
                               : SmallVector<int64_t>()});
    }
    if (failed(emitTrials(options, *problems, chosen, inputs, emitTrialsDir,
                          error)))
      return fail(error);
    return 0;
  }

  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  unsigned trialIndex = 0;
  unsigned numResults = plan->results.size();
  for (const Problem &p : *problems) {
    TuningEntry entry = entryFor(p);
    std::string defaultConfig = defaultConfigOf(p);
    // --resume with the budget spent (or every candidate measured): the
    // entry stays as it is, and nothing runs.
    if (resume && db->lookup(p.chip, p.signature) &&
        choose(p, entry, defaultConfig).second.empty()) {
      llvm::errs() << llvm::formatv("xpu-tune: {0} on {1}: nothing left to "
                                    "measure within --max-trials={2}\n",
                                    p.signature.key(), p.chip,
                                    int64_t(maxTrials));
      continue;
    }
    entry.defaultConfig = defaultConfig;

    // The default config: the reference outputs and time.
    llvm::errs() << llvm::formatv("xpu-tune: {0} on {1}: {2} candidates, "
                                  "measuring the default ({3})\n",
                                  p.signature.key(), p.chip,
                                  p.candidates.size(), p.defaultConfig.display);
    TrialResult reference = runTrial(options, p, "", numResults, trialIndex++);
    if (reference.status != "ok")
      return fail("the default config fails on " + targetName + ": " +
                  reference.message);
    entry.defaultNs = reference.timeNs;
    llvm::erase_if(entry.trials, [&](const TuningTrial &t) {
      return t.config == defaultConfig;
    });
    TuningTrial def;
    def.config = defaultConfig;
    def.timeNs = reference.timeNs;
    def.relError = 0;
    def.modelRank = p.defaultConfig.modelRank;
    def.modelNs = p.defaultConfig.modelNs;
    entry.trials.insert(entry.trials.begin(), def);
    entry.recomputeBest();
    db->insert(entry);
    if (!db->write(dbPath, error))
      return fail(error);

    auto [done, chosen] = choose(p, entry, defaultConfig);
    for (auto [i, c] : llvm::enumerate(chosen)) {
      if (maxSeconds > 0 && elapsed() > maxSeconds) {
        llvm::errs() << llvm::formatv(
            "xpu-tune: --max-seconds reached after {0:f1} s; "
            "{1} trial(s) not run\n",
            elapsed(), chosen.size() - i);
        break;
      }
      TrialResult r = runTrial(options, p, c->config, numResults, trialIndex++);
      TuningTrial t;
      t.config = c->config;
      t.modelRank = c->modelRank;
      t.modelNs = c->modelNs;
      t.status = r.status;
      t.message = r.message;
      if (r.status == "ok") {
        t.timeNs = r.timeNs;
        t.relError = relativeL2(r.outputs, reference.outputs);
        if (t.relError < 0 || !(t.relError <= options.tolerance)) {
          t.status = "mismatch";
          t.message = llvm::formatv("relative L2 error {0:e} > {1:e}",
                                    t.relError, options.tolerance);
        }
      }
      entry.trials.push_back(t);
      entry.recomputeBest();
      db->insert(entry);
      if (!db->write(dbPath, error))
        return fail(error);
      std::string ratio =
          t.timeNs > 0 ? llvm::formatv("{0:f4} ms, {1:f2}x", t.timeNs * 1e-6,
                                       entry.defaultNs / t.timeNs)
                             .str()
                       : std::string("-");
      llvm::errs() << llvm::formatv("xpu-tune: [{0}/{1}] {2}: {3}, {4}{5}\n",
                                    done + i + 1, maxTrials, c->display, ratio,
                                    t.status,
                                    t.message.empty() ? "" : ": " + t.message);
    }
    // The default once more, after the trials: a machine busy during its
    // first measurement would otherwise flatter every candidate. The
    // faster of its two times is the reference for the ratios.
    if (entry.trials.size() > 1) {
      TrialResult again = runTrial(options, p, "", numResults, trialIndex++);
      if (again.status == "ok" && again.timeNs < entry.defaultNs) {
        entry.defaultNs = again.timeNs;
        for (TuningTrial &t : entry.trials)
          if (t.config == defaultConfig)
            t.timeNs = again.timeNs;
        entry.recomputeBest();
        db->insert(entry);
        if (!db->write(dbPath, error))
          return fail(error);
      }
    }
    std::vector<std::string> displays;
    for (const TuningTrial &t : entry.trials) {
      std::string d = t.config;
      if (t.config == defaultConfig)
        d = defaultConfig == "default" ? defaultConfig
                                       : "default: " + p.defaultConfig.display;
      for (const Candidate &c : p.candidates)
        if (c.config == t.config)
          d = c.display;
      displays.push_back(d);
    }
    printTable(entry, p.candidates.size() + 1, displays);
  }
  llvm::outs() << llvm::formatv("xpu-tune: wrote {0} ({1:f1} s)\n", dbPath,
                                elapsed());
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  if (argc > 1 && StringRef(argv[1]) == "merge")
    return runMerge(argc, argv);

  DialectRegistry registry;
  xpu::registerAllXPU(registry);
  cl::HideUnrelatedOptions(tuneCategory);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "xpu-tune " << XPU_VERSION_STRING << " (built against LLVM/MLIR "
       << XPU_LLVM_VERSION_STRING << ")\n";
  });
  cl::ParseCommandLineOptions(
      argc, argv,
      "xpu-tune: measure the configs of the GEMMs of a function and record "
      "the fastest in a tuning database\n\n"
      "  xpu-tune model.mlir --target=opencl --db=tuning.json "
      "[--max-trials=10] [--resume]\n"
      "  xpu-tune merge a.json b.json -o all.json\n");

  MLIRContext ctx(registry);
  ctx.printOpOnDiagnostic(false);
  // Errors without a location are one line: "error: <text>".
  ScopedDiagnosticHandler handler(&ctx, [](Diagnostic &diag) {
    if (auto loc = dyn_cast<FileLineColLoc>(diag.getLocation()))
      llvm::errs() << loc.getFilename().getValue() << ":" << loc.getLine()
                   << ":" << loc.getColumn() << ": ";
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      llvm::errs() << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      llvm::errs() << "warning: ";
      break;
    case DiagnosticSeverity::Remark:
      llvm::errs() << "remark: ";
      break;
    case DiagnosticSeverity::Note:
      llvm::errs() << "note: ";
      break;
    }
    llvm::errs() << diag << "\n";
    return success();
  });
  return tuneMain(ctx);
}
