//===- Candidates.cpp - the GEMMs of a function and their candidates ------===//

#include "Tune.h"

#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/StrategyModel.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::xpu;
using namespace mlir::xpu::tune;

namespace {

std::string attrText(Attribute a) {
  std::string s;
  llvm::raw_string_ostream os(s);
  a.print(os);
  return s;
}

std::string joinInts(ArrayRef<int64_t> v, StringRef sep) {
  std::string s;
  for (auto [i, x] : llvm::enumerate(v))
    s += (i ? sep.str() : std::string()) + std::to_string(x);
  return s;
}

/// "64x128x32 sg 2x4 s3 grf_mode = 128": the table's form of a config.
std::string displayConfig(ConfigAttr config) {
  TileCandidate c = TileCandidate::fromAttr(config);
  std::string s = llvm::formatv("{0} sg {1} s{2}", joinInts(c.tile, "x"),
                                joinInts(c.subgroups, "x"), c.stages);
  ScheduleAttr schedule = config.getSchedule();
  if (schedule.getKind() != Schedule::data_parallel)
    s += llvm::formatv(" {0}/{1}", stringifySchedule(schedule.getKind()),
                       schedule.getPrograms())
             .str();
  if (Attribute knobs = getConfigKnobs(getGemmBackendAttr(config))) {
    std::string k = attrText(knobs);
    // #xpu.xe<grf_mode = 128> -> xe<grf_mode = 128>
    s += " " + StringRef(k)
                   .drop_front(StringRef(k).starts_with("#xpu.") ? 5 : 0)
                   .str();
  }
  return s;
}

/// How many of the best data-parallel tiles also get a persistent and a
/// Stream-K candidate.
constexpr size_t kScheduledTiles = 3;

/// The candidates the backend of `def` offers for `gemm`, ranked by the
/// cost model's time under their schedule (scoreSchedule, the time
/// xpu-select-strategy compares schedules by): every tile data-parallel,
/// and the best kScheduledTiles tiles also persistent and Stream-K (with the
/// program count the model finds fastest) where their knobs run those
/// schedules. The default's rank and time are set when it is one of them.
std::vector<Candidate> rankCandidates(GemmOp gemm, TargetAttr target,
                                      ConfigAttr def, Candidate &defCandidate) {
  MLIRContext *ctx = gemm.getContext();
  TileCandidate d = TileCandidate::fromAttr(def);
  auto start = cast<GemmBackendAttrInterface>(
      d.knobs.getCandidateKnobs(target, gemm.getLhsType().getElementType()));
  // The operand type as the config's kernels read it (tf32 under nvgpu's
  // precision = tf32), as xpu-select-strategy models it.
  GemmProblem p = GemmProblem::get(gemm, target, start);
  if (Type read = d.knobs.getOperandType(gemm); read.isTF32())
    p.operandType = read;
  CostParams params;
  std::vector<std::pair<TileCandidate, double>> tiles;
  for (TileCandidate &c : enumerateTileCandidates(p, target, start)) {
    std::string why;
    if (checkTileCandidate(p, target, c, /*keepStagesAndGrf=*/false, why) !=
        Rejection::none)
      continue;
    scoreDataParallel(p, c);
    c.schedule = ScheduleAttr::getDataParallel(ctx);
    FailureOr<ScheduleScore> score =
        scoreSchedule(p, target, c, c.schedule, params, why);
    if (failed(score))
      continue;
    tiles.push_back({c, score->time});
  }
  std::stable_sort(tiles.begin(), tiles.end(),
                   [](auto &a, auto &b) { return a.second < b.second; });
  std::vector<std::pair<ConfigAttr, double>> scored;
  for (auto [i, t] : llvm::enumerate(tiles)) {
    scored.push_back({t.first.toAttr(ctx), t.second});
    if (i >= kScheduledTiles)
      continue;
    for (Schedule kind : {Schedule::persistent, Schedule::stream_k}) {
      std::string change, why;
      if (t.first.knobs.getKnobsForSchedule(kind, change, why) != t.first.knobs)
        continue;
      TileCandidate c = t.first;
      c.schedule = ScheduleAttr::get(ctx, kind, 0, Fixup::deterministic);
      FailureOr<ScheduleScore> score =
          scoreScheduleWithBestPrograms(p, target, c, c.schedule, params, why);
      if (failed(score))
        continue;
      c.schedule = ScheduleAttr::get(ctx, kind, score->plan.programs,
                                     Fixup::deterministic);
      scored.push_back({c.toAttr(ctx), score->time});
    }
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](auto &a, auto &b) { return a.second < b.second; });
  std::vector<Candidate> result;
  for (auto [i, s] : llvm::enumerate(scored)) {
    Candidate c;
    c.config = attrText(s.first);
    c.display = displayConfig(s.first);
    c.modelRank = i + 1;
    c.modelNs = s.second;
    if (s.first == def) {
      defCandidate.modelRank = c.modelRank;
      defCandidate.modelNs = c.modelNs;
      continue;
    }
    result.push_back(std::move(c));
  }
  return result;
}

/// The CPU pipeline's tile and thread options to try, most promising first
/// by rule of thumb (there is no CPU cost model): register tiles of one to
/// two 512-bit vectors per row, then cache tiles around the default, then
/// one thread.
std::vector<Candidate> cpuCandidates() {
  std::vector<Candidate> result;
  auto add = [&](StringRef options) {
    Candidate c;
    c.config = options.str();
    c.display = options.str();
    result.push_back(std::move(c));
  };
  for (StringRef rt :
       {"register-tile=4,16", "register-tile=8,16", "register-tile=4,32",
        "register-tile=12,16", "register-tile=2,32"})
    add(rt);
  for (StringRef ct : {"cache-tile=64,256,256", "cache-tile=128,256,256",
                       "cache-tile=96,512,128", "cache-tile=48,128,512"})
    add(ct);
  add("threads=1");
  for (StringRef rt : {"register-tile=4,16", "register-tile=8,16"})
    for (StringRef ct : {"cache-tile=64,256,256", "cache-tile=128,256,256"})
      add((rt + " " + ct).str());
  return result;
}

} // namespace

FailureOr<std::vector<Problem>>
mlir::xpu::tune::findProblems(ModuleOp module, const TuneOptions &options) {
  MLIRContext *ctx = module.getContext();
  OwningOpRef<ModuleOp> copy(cast<ModuleOp>(module->clone()));
  PassManager pm(ctx);
  if (failed(buildXPUStrategyPrefix(pm, options.pipeline,
                                    options.pipelineOptions)))
    return failure();
  if (failed(pm.run(*copy)))
    return failure();
  bool cpu = options.target == "cpu";
  std::vector<Problem> problems;
  bool missingConfig = false;
  auto func = copy->lookupSymbol<func::FuncOp>(options.function);
  if (!func) {
    llvm::errs() << "xpu-tune: no function @" << options.function
                 << " after the pipeline's front end\n";
    return failure();
  }
  func.walk([&](GemmOp gemm) {
    TargetAttr target = resolveTarget(gemm);
    Problem p;
    p.chip = target.getChip().str();
    p.signature = GemmSignature::get(gemm);
    for (const Problem &seen : problems)
      if (seen.chip == p.chip && seen.signature == p.signature)
        return;
    if (cpu) {
      p.defaultConfig.display = "default";
      p.candidates = cpuCandidates();
    } else {
      ConfigAttr def = gemm.getConfigAttr();
      if (!def) {
        gemm.emitError() << "xpu-tune: this GEMM has no config after "
                         << options.pipeline << "'s strategy; nothing to tune";
        missingConfig = true;
        return;
      }
      p.defaultConfig.config = attrText(def);
      p.defaultConfig.display = displayConfig(def);
      p.candidates = rankCandidates(gemm, target, def, p.defaultConfig);
    }
    problems.push_back(std::move(p));
  });
  if (missingConfig)
    return failure();
  return problems;
}
