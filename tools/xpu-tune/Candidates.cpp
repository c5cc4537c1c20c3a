//===- Candidates.cpp - the GEMMs of a function and their candidates ------===//

#include "Tune.h"

#include "xpu/Codegen/CpuTiles.h"

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
/// schedules. A tile that can also run with other knobs at this shape and
/// schedule (getAlternativeKnobs: nvgpu's thread block clusters for
/// data-parallel programs, pingpong consumers for persistent ones) is
/// offered with both, its own first: the model scores them alike, the
/// measurement tells them apart. The default's rank and time are set when
/// it is one of them.
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
  SmallVector<int64_t> dims = {gemm.getBatchSize(), gemm.getM(), gemm.getN(),
                               gemm.getK()};
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
    std::string alternativeWhy;
    Attribute alternative = c.knobs.getAlternativeKnobs(
        target, c.toAttr(ctx), dims, gemm.getRhsLayout(), alternativeWhy);
    if (alternative && alternative != c.knobs) {
      TileCandidate other = c;
      other.knobs = cast<GemmBackendAttrInterface>(alternative);
      tiles.push_back({other, score->time});
    }
  }
  std::stable_sort(tiles.begin(), tiles.end(),
                   [](auto &a, auto &b) { return a.second < b.second; });
  std::vector<std::pair<ConfigAttr, double>> scored;
  size_t withSchedules = 0;
  for (auto &t : tiles) {
    scored.push_back({t.first.toAttr(ctx), t.second});
    // Other schedules for the first kScheduledTiles tiles, on their own
    // knobs (the alternatives may not run them).
    std::string change, why;
    if (t.first.knobs.getKnobsForSchedule(Schedule::persistent, change, why) !=
            t.first.knobs ||
        withSchedules++ >= kScheduledTiles)
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
      // The same schedule with the knobs' alternative for it (nvgpu's
      // pingpong consumers for persistent programs), scored alike.
      std::string alternativeWhy;
      Attribute alternative = c.knobs.getAlternativeKnobs(
          target, c.toAttr(ctx), dims, gemm.getRhsLayout(), alternativeWhy);
      if (alternative && alternative != c.knobs) {
        c.knobs = cast<GemmBackendAttrInterface>(alternative);
        scored.push_back({c.toAttr(ctx), score->time});
      }
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

/// The CPU tiles to try for `signature` on `target`, most promising first
/// by rule of thumb (the CPU has no cost model), as the text that
/// xpu-cpu-apply-tuning-db reads (CpuTiles.h):
/// - register tiles of the target's register model with 1 and 4 vectors
///   per row instead of the default's 2 (rows: the registers left after
///   `vectors` rhs vectors and one broadcast, divided by `vectors`), and
///   the default's width with two rows fewer (3 vectors per row, 9 x 48 on
///   32 zmm registers, measured 10x slower than the default: left out);
/// - cache tiles whose packed lhs block (mc x kc f32) takes half or a
///   quarter of the L2 (the target's slm_bytes on a CPU), with k whole (up
///   to 2048) or in blocks of 512 and 256, mc a multiple of the default
///   tile's rows, and the fixed [264, 256, 640] of earlier versions, each
///   unless it blocks the loop nest as the default does;
/// interleaved, then the two first of each combined.
std::vector<Candidate> cpuCandidates(TargetAttr target,
                                     const GemmSignature &signature) {
  int64_t lanes = std::max<int64_t>(1, target.getVectorBits() / 32);
  int64_t registers = std::max<int64_t>(4, target.getGrfCount());
  int64_t mr = std::max<int64_t>(1, (registers - 3) / 2);
  int64_t l2 = std::max<int64_t>(64 * 1024, target.getSlmBytes());
  std::vector<CpuTiles> registerTiles, cacheTiles;
  auto addRegister = [&](int64_t rows, int64_t vectors) {
    CpuTiles t;
    t.registerTile = {rows, vectors * lanes};
    if (rows >= 1 && !(rows == mr && vectors == 2) &&
        llvm::none_of(registerTiles, [&](const CpuTiles &o) {
          return o.registerTile == t.registerTile;
        }))
      registerTiles.push_back(t);
  };
  for (int64_t vectors : {1, 4})
    addRegister((registers - vectors - 1) / vectors, vectors);
  addRegister(mr - 2, 2);
  // Two cache tiles block the nest the same way when they give the same
  // row block (at most the problem's rows) and the same number of k blocks;
  // the default is cpuNestCacheTile's (xpu-cpu-tile-and-vectorize).
  int64_t k = std::max<int64_t>(1, signature.k);
  int64_t m = signature.m > 0 ? llvm::alignTo(signature.m, mr) : 1 << 30;
  auto blocking = [&](int64_t rows, int64_t kc) {
    return std::make_pair(std::min(rows, m),
                          static_cast<int64_t>(llvm::divideCeil(k, kc)));
  };
  SmallVector<int64_t> byDefault = cpuNestCacheTile(l2, k, mr);
  SmallVector<std::pair<int64_t, int64_t>> seen = {
      blocking(byDefault[0], byDefault[2])};
  auto addCache = [&](int64_t rows, int64_t kc) {
    rows = std::min(std::max<int64_t>(mr, rows / mr * mr), m);
    if (kc > k || llvm::is_contained(seen, blocking(rows, kc)))
      return;
    seen.push_back(blocking(rows, kc));
    CpuTiles t;
    t.cacheTile = {rows, 256, kc};
    cacheTiles.push_back(t);
  };
  for (int64_t share : {2, 4})
    for (int64_t kc : {std::min<int64_t>(k, 2048), int64_t(512), int64_t(256)})
      addCache(l2 / share / (kc * 4), kc);
  // The nest's fixed blocks before they were derived from the L2 (the best
  // measured on Zen 4 then).
  addCache(264, 640);
  std::vector<Candidate> result;
  auto add = [&](const CpuTiles &t) {
    Candidate c;
    c.config = t.str();
    c.display = c.config;
    result.push_back(std::move(c));
  };
  for (size_t i = 0; i < std::max(registerTiles.size(), cacheTiles.size());
       ++i) {
    if (i < registerTiles.size())
      add(registerTiles[i]);
    if (i < cacheTiles.size())
      add(cacheTiles[i]);
  }
  for (size_t r = 0; r < std::min<size_t>(2, registerTiles.size()); ++r)
    for (size_t c = 0; c < std::min<size_t>(2, cacheTiles.size()); ++c)
      add({registerTiles[r].registerTile, cacheTiles[c].cacheTile});
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
      p.candidates = cpuCandidates(target, p.signature);
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
