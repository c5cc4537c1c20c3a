//===- SelectStrategy.cpp - #xpu.config for every xpu.gemm ----------------===//
//
// Catalog: level_1_baseline_xpu (tiles, GROUP_SIZE_M swizzle), grf_mode,
// fusion_register_pressure_guard and level_4 (the Stream-K and persistent
// schedules). The model (candidates, validity per backend, scoring) is in
// StrategyModel.h so that a tuner can call it; docs/Strategy.md gives its
// formulas and the sources of its numbers.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/Dialect/XPU/Utils/StrategyModel.h"
#include "xpu/Dialect/XPU/Utils/TuningDatabase.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <memory>

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSELECTSTRATEGYPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-select-strategy";

namespace {

int64_t rounded(double v) { return static_cast<int64_t>(std::llround(v)); }

struct SelectStrategyPass final
    : xpu::impl::XPUSelectStrategyPassBase<SelectStrategyPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override;
  void runOnOperation() override;

private:
  /// The tuning database of `tuning-db`, read once (initialize) and shared
  /// by the copies of the pass that run on other threads.
  struct LoadedDatabase {
    TuningDatabase db;
    struct ParsedConfig {
      ConfigAttr config;
      std::string error;
    };
    /// Each entry's best config, parsed.
    llvm::StringMap<ParsedConfig> configs;
  };
  std::shared_ptr<const LoadedDatabase> database;
  /// A config that checkConfig accepted, with its numbers.
  struct CheckedConfig {
    TileCandidate candidate;
    GemmProblem problem;
    /// The schedule's plan and score, for a remark ("" when data-parallel).
    std::string schedule;
  };
  /// Whether `config` is valid for `gemm` on `target` (the checks of a hand
  /// config); `why` says why not.
  FailureOr<CheckedConfig> checkConfig(GemmOp gemm, TargetAttr target,
                                       ConfigAttr config, std::string &why);
  /// Attaches the config of the tuning database's entry for `gemm`, when
  /// there is one and it is valid (a remark with the measured gain), else
  /// warns that the entry is ignored; true when it attached one.
  bool applyTuningDatabase(GemmOp gemm, TargetAttr target);
  /// Chooses and attaches a config: true when it did, false when no
  /// candidate fits, failure after an error.
  FailureOr<bool> select(GemmOp gemm, TargetAttr target,
                         GemmBackendAttrInterface knobs);
  /// Verifies a hand-written config; false after an error.
  bool verifyHandConfig(GemmOp gemm, TargetAttr target);
  /// The operand type the backends are asked about: the lhs type, or tf32
  /// for f32 operands when the tensor cores may read them so (`tf32`).
  Type getOperandType(GemmOp gemm) {
    Type t = gemm.getLhsType().getElementType();
    if (tf32 && t.isF32())
      return FloatTF32Type::get(gemm.getContext());
    return t;
  }
  /// The problem's numbers for `backend`'s candidates, with the operand
  /// type of getOperandType.
  GemmProblem getProblem(GemmOp gemm, TargetAttr target,
                         GemmBackendAttrInterface backend) {
    GemmProblem p = GemmProblem::get(gemm, target, backend);
    p.operandType = getOperandType(gemm);
    return p;
  }
  /// The backend `backend=` names, else the first registered one, by auto
  /// rank, that takes the GEMM (chooseGemmBackend: xe on Intel targets,
  /// nvgpu for what NVIDIA's tensor cores take, simt for the rest), with a
  /// remark; its knobs are those the candidates start from (with the
  /// simt-vector option's layout for the SIMT kernels).
  FailureOr<GemmBackendAttrInterface> chooseBackend(GemmOp gemm,
                                                    TargetAttr target);
  /// chooseBackend before the simt-vector option.
  FailureOr<GemmBackendAttrInterface> chooseBackendKnobs(GemmOp gemm,
                                                         TargetAttr target);
  /// Knobs that do not run a schedule (nvgpu's wgmma computes whole tiles,
  /// not Stream-K's K pieces): the candidate takes the knobs the backend
  /// offers for it instead (mma.sync, its tile_k, stages fitted and scored
  /// again), with a remark; false (and a missed remark) when they do not
  /// fit.
  bool changeKnobsForSchedule(GemmOp gemm, TargetAttr target,
                              const GemmProblem &p, Schedule kind,
                              TileCandidate &c);
  /// The schedule of `c` (forced or chosen), with its remark.
  ScheduleAttr decideSchedule(GemmOp gemm, TargetAttr target,
                              const GemmProblem &p, const TileCandidate &c);

  /// The backend `backend=` names; null for auto.
  GemmBackendAttrInterface named;
  std::optional<Schedule> forced;
  Fixup fixupKind = Fixup::deterministic;
  CostParams params;
};

ScheduleAttr SelectStrategyPass::decideSchedule(GemmOp gemm, TargetAttr target,
                                                const GemmProblem &p,
                                                const TileCandidate &c) {
  MLIRContext *ctx = gemm.getContext();
  if (ShapedType::isDynamic(gemm.getM())) {
    // One program per tile, counted at run time: the other schedules
    // divide a tile count known at compile time.
    if (forced && *forced != Schedule::data_parallel) {
      gemm.emitError() << kPassArg << ": the schedule option asks for "
                       << stringifySchedule(*forced)
                       << ", but the GEMM's m is dynamic, and only "
                          "data_parallel counts its programs at run time";
      return {};
    }
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Schedule"))
        << remark::reason("schedule data_parallel (m is dynamic: one "
                          "program per tile, counted at run time)");
    return ScheduleAttr::get(ctx, Schedule::data_parallel, 0,
                             Fixup::deterministic);
  }
  // The knobs' own word on Stream-K (a measurement the model misses).
  CostParams candidateParams = params;
  if (c.knobs.choosesStreamK(target, candidateParams.streamKVeto))
    candidateParams.streamKVeto.clear();
  ScheduleChoice choice =
      chooseSchedule(p, target, c, programs, fixupKind, candidateParams);
  if (forced) {
    auto schedule = ScheduleAttr::get(
        ctx, *forced, *forced == Schedule::data_parallel ? 0 : programs,
        *forced == Schedule::stream_k ? fixupKind : Fixup::deterministic);
    std::string why;
    FailureOr<ScheduleScore> score =
        scoreScheduleWithBestPrograms(p, target, c, schedule, params, why);
    if (failed(score)) {
      gemm.emitError() << kPassArg << ": cannot plan the schedule "
                       << formatSchedule(schedule) << ": " << why;
      return {};
    }
    choice.chosen = *score;
    choice.schedule =
        *forced == Schedule::data_parallel
            ? schedule
            : ScheduleAttr::get(ctx, *forced, score->plan.programs,
                                schedule.getFixup());
    choice.reason = "the schedule option asks for it";
  }
  const ScheduleScore &dp = choice.dataParallel, &chosen = choice.chosen;
  std::string numbers = llvm::formatv(
      "{0} tiles, {1} workgroups at once; data_parallel: {2:f2} waves, "
      "efficiency {3:f2}, {4} ns",
      dp.plan.tiles, dp.resident, c.waveFraction, dp.efficiency,
      rounded(dp.time));
  if (choice.schedule.getKind() == Schedule::data_parallel) {
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Schedule"))
        << remark::reason("schedule data_parallel ({0}): {1}", choice.reason,
                          numbers);
    return choice.schedule;
  }
  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Schedule"))
      << remark::reason("schedule {0}{1}: {2}; {3}: efficiency {4:f2}, {5} "
                        "ns",
                        formatSchedule(choice.schedule),
                        forced ? " (" + choice.reason + ")" : std::string(),
                        numbers, describeSchedulePlan(chosen.plan),
                        chosen.efficiency, rounded(chosen.time));
  return choice.schedule;
}

FailureOr<GemmBackendAttrInterface>
SelectStrategyPass::chooseBackend(GemmOp gemm, TargetAttr target) {
  FailureOr<GemmBackendAttrInterface> backend =
      chooseBackendKnobs(gemm, target);
  // simt-vector: the SIMT kernels' layout, whichever way they were chosen.
  if (succeeded(backend) && simtVector != 0 && isa<SimtConfigAttr>(*backend))
    return cast<GemmBackendAttrInterface>(
        SimtConfigAttr::get(gemm.getContext(), simtVector));
  return backend;
}

FailureOr<GemmBackendAttrInterface>
SelectStrategyPass::chooseBackendKnobs(GemmOp gemm, TargetAttr target) {
  Type operandType = getOperandType(gemm);
  if (named) {
    // backend=<name>: the named backend with the knobs it starts from.
    return cast<GemmBackendAttrInterface>(
        named.getCandidateKnobs(target, operandType));
  }
  std::string taken, declined;
  GemmBackendAttrInterface backend =
      chooseGemmBackend(target, operandType, taken, declined);
  if (!backend)
    return gemm.emitError()
           << kPassArg << ": no GEMM backend takes this GEMM "
           << "on " << target.getChip() << "; " << kRegisterBackendsHint;
  if (!taken.empty())
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Backend"))
        << remark::reason("{0} backend on {1}: {2}", backend.getBackendName(),
                          target.getChip(), taken);
  else if (!declined.empty())
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "Backend"))
        << remark::reason("{0} backend on {1}: {2}", backend.getBackendName(),
                          target.getChip(), declined);
  return backend;
}

bool SelectStrategyPass::changeKnobsForSchedule(GemmOp gemm, TargetAttr target,
                                                const GemmProblem &p,
                                                Schedule kind,
                                                TileCandidate &c) {
  std::string change, why;
  Attribute other = c.knobs.getKnobsForSchedule(kind, change, why);
  if (!other) {
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "NoKnobsForSchedule"))
        << remark::reason("the {0} backend runs no {1} schedule: "
                          "data_parallel",
                          c.knobs.getBackendName(), stringifySchedule(kind));
    return false;
  }
  TileCandidate m = c;
  m.knobs = cast<GemmBackendAttrInterface>(other);
  m.tile[2] = m.knobs.getCandidateTileK(target, p.operandBytes);
  std::string reason;
  if (checkTileCandidate(p, target, m, /*keepStagesAndGrf=*/false, reason) !=
      Rejection::none) {
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "NoKnobsForSchedule"))
        << remark::reason("{0} for a {1} schedule ({2}), but {3}: "
                          "data_parallel as selected",
                          change, stringifySchedule(kind), why, reason);
    return false;
  }
  scoreDataParallel(p, m);
  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "KnobsForSchedule"))
      << remark::reason("{0} on {1}: {2}; tile [{3}, {4}, {5}], {6} stages, "
                        "model time {7} ns",
                        change, target.getChip(), why, m.tile[0], m.tile[1],
                        m.tile[2], m.stages, rounded(m.time));
  c = m;
  return true;
}

FailureOr<bool> SelectStrategyPass::select(GemmOp gemm, TargetAttr target,
                                           GemmBackendAttrInterface knobs) {
  MLIRContext *ctx = gemm.getContext();
  std::string why;
  Operation *where = gemm;
  if (failed(knobs.checkGemm(gemm, target, why, where))) {
    where->emitError() << kPassArg << ": the " << knobs.getBackendName()
                       << " backend cannot compute this GEMM: " << why;
    return failure();
  }
  GemmProblem p = getProblem(gemm, target, knobs);
  std::optional<TileCandidate> best;
  int64_t considered = 0, overRegisters = 0, overSlm = 0, refused = 0;
  for (TileCandidate &c : enumerateTileCandidates(p, target, knobs)) {
    ++considered;
    std::string reason;
    switch (
        checkTileCandidate(p, target, c, /*keepStagesAndGrf=*/false, reason)) {
    case Rejection::slm:
      ++overSlm;
      continue;
    case Rejection::registers:
      ++overRegisters;
      continue;
    case Rejection::backend:
      ++refused;
      continue;
    case Rejection::none:
      break;
    }
    scoreDataParallel(p, c);
    // Fastest wins; candidates come largest-area first, so a tie keeps the
    // larger tile (more reuse per byte, fewer tiles); the grid order then
    // keeps the wider tile for equal areas.
    auto area = [](const TileCandidate &x) { return x.tile[0] * x.tile[1]; };
    bool better = !best || c.time < best->time * (1 - 1e-9) ||
                  (c.time <= best->time * (1 + 1e-9) &&
                   (area(c) > area(*best) ||
                    (area(c) == area(*best) && c.tile[1] > best->tile[1])));
    if (better)
      best = c;
  }

  if (!best) {
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "NoConfig"))
        << remark::reason(
               "no config fits {0}: {1} candidates, {2} over the register "
               "budget ({3} live accumulator fragments in the epilogue), {4} "
               "over {5} bytes of SLM, {6} refused by the {7} backend",
               target.getChip(), considered, overRegisters, p.liveFragments,
               overSlm, p.slmBytes, refused, knobs.getBackendName());
    return false;
  }

  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Selected"))
      << remark::reason("selected for {0}x{1}x{2}{3} (m x n x k) on {4}: {5}; "
                        "{6} of {7} candidates rejected ({8} registers, {9} "
                        "SLM, {10} backend rules)",
                        ShapedType::isDynamic(gemm.getM())
                            ? llvm::formatv("?(modeled as {0})", p.m).str()
                            : std::to_string(p.m),
                        p.n, p.k,
                        p.batch > 1 ? llvm::formatv(" x {0}", p.batch).str()
                                    : std::string(),
                        target.getChip(), describeCandidate(*best, p),
                        overRegisters + overSlm + refused, considered,
                        overRegisters, overSlm, refused);
  // Xe kernels carry their GRF mode in the config; SIMT kernels on an Xe
  // target get 256-GRF mode as generic kernels (getGenericKernelGrfMode).
  if (target.isIntel() && best->registers > 128)
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "GRFMode"))
        << remark::reason(
               "256-GRF mode: estimated {0} registers per thread > 128 ({1})",
               best->registers, best->registerTerms);
  // Knobs that do not run a schedule (nvgpu's wgmma computes whole tiles,
  // not Stream-K's K pieces): a forced schedule runs on the knobs the
  // backend offers for it (mma.sync), or stays data-parallel when those do
  // not fit.
  auto runsSchedule = [&](Schedule kind) {
    std::string change, why;
    return best->knobs.getKnobsForSchedule(kind, change, why) == best->knobs;
  };
  bool keptKnobs = false;
  if (forced && !runsSchedule(*forced))
    keptKnobs = !changeKnobsForSchedule(gemm, target, p, *forced, *best);
  if (keptKnobs) {
    best->schedule = ScheduleAttr::getDataParallel(ctx);
  } else {
    best->schedule = decideSchedule(gemm, target, p, *best);
    if (!best->schedule)
      return failure();
  }
  // A schedule the model chose that the knobs do not run (Stream-K on
  // wgmma): scored again on the knobs that do (mma.sync); if the model then
  // prefers data-parallel, the first knobs stay.
  if (!runsSchedule(best->schedule.getKind())) {
    TileCandidate first = *best;
    if (!changeKnobsForSchedule(gemm, target, p, best->schedule.getKind(),
                                *best)) {
      best->schedule = ScheduleAttr::getDataParallel(ctx);
    } else {
      best->schedule = decideSchedule(gemm, target, p, *best);
      if (!best->schedule)
        return failure();
      if (best->schedule.getKind() == Schedule::data_parallel) {
        *best = first;
        best->schedule = ScheduleAttr::getDataParallel(ctx);
      }
    }
  }
  gemm.setConfigAttr(best->toAttr(ctx));
  return true;
}

FailureOr<SelectStrategyPass::CheckedConfig>
SelectStrategyPass::checkConfig(GemmOp gemm, TargetAttr target,
                                ConfigAttr config, std::string &why) {
  auto impl = dyn_cast<GemmBackendAttrInterface>(getGemmBackendAttr(config));
  if (!impl) {
    why = llvm::formatv("no GEMM backend registered for {0}; {1}",
                        getGemmBackendAttr(config), kRegisterBackendsHint);
    return failure();
  }
  CheckedConfig checked;
  checked.candidate = TileCandidate::fromAttr(config);
  TileCandidate &c = checked.candidate;
  Operation *where = gemm;
  if (failed(impl.checkGemm(gemm, target, why, where))) {
    why = llvm::formatv("the {0} backend cannot compute this GEMM: {1}",
                        impl.getBackendName(), why);
    return failure();
  }
  checked.problem = getProblem(gemm, target, c.knobs);
  GemmProblem &p = checked.problem;
  // The config's knobs say how the kernels read the operands (nvgpu: f32
  // as tf32); the register model sees that type.
  if (Type read = impl.getOperandType(gemm); read.isTF32())
    p.operandType = read;
  if (checkTileCandidate(p, target, c, /*keepStagesAndGrf=*/true, why) !=
      Rejection::none)
    return failure();
  // The rule on tile_n that depends on the layout of B.
  if (failed(impl.checkConfig(target, config, p.operandBytes, why,
                              gemm.getRhsLayout())))
    return failure();
  // And those that depend on the shape (nvgpu: thread block clusters).
  SmallVector<int64_t> dims = {gemm.getBatchSize(), gemm.getM(), gemm.getN(),
                               gemm.getK()};
  if (failed(impl.checkConfigForShape(config, dims, why)))
    return failure();
  scoreDataParallel(p, c);
  c.groupM = config.getGroupM();
  FailureOr<ScheduleScore> score =
      scoreSchedule(p, target, c, config.getSchedule(), params, why);
  if (failed(score))
    return failure();
  if (config.getSchedule().getKind() != Schedule::data_parallel)
    checked.schedule = llvm::formatv("; {0}: efficiency {1:f2}, {2} ns",
                                     describeSchedulePlan(score->plan),
                                     score->efficiency, rounded(score->time));
  return checked;
}

bool SelectStrategyPass::verifyHandConfig(GemmOp gemm, TargetAttr target) {
  ConfigAttr config = gemm.getConfigAttr();
  // An unregistered backend is its own error (lookupGemmBackend's).
  if (failed(lookupGemmBackend(config, gemm.getLoc(), kPassArg)))
    return false;
  std::string why;
  FailureOr<CheckedConfig> checked = checkConfig(gemm, target, config, why);
  if (failed(checked)) {
    gemm.emitError() << kPassArg << ": the config written by hand is invalid "
                     << "on " << target.getChip() << ": " << why;
    return false;
  }
  const TileCandidate &c = checked->candidate;
  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Kept")) << remark::reason(
      "kept the config written by hand on {0}: {1}{2}", target.getChip(),
      describeCandidate(c, checked->problem), checked->schedule);
  if (c.registers > c.budget)
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "Spills"))
        << remark::reason(
               "the config written by hand needs an estimated {0} registers "
               "per thread > {1} ({2}): expect spills",
               c.registers, c.budget, c.registerTerms);
  return true;
}

bool SelectStrategyPass::applyTuningDatabase(GemmOp gemm, TargetAttr target) {
  if (!database)
    return false;
  GemmSignature signature = GemmSignature::get(gemm);
  const TuningDatabase &db = database->db;
  const TuningEntry *entry = db.lookup(target.getChip(), signature);
  if (!entry)
    return false;
  auto ignore = [&](const Twine &why) {
    gemm.emitWarning() << kPassArg << ": ignoring the entry of tuning "
                       << "database '" << tuningDb << "' for this GEMM on "
                       << target.getChip() << ": " << why
                       << "; the cost model chooses";
    ++numStale;
    return false;
  };
  if (entry->bestConfig.empty())
    return ignore("no trial of it succeeded");
  auto parsed = database->configs.find(entry->bestConfig);
  if (parsed == database->configs.end() || !parsed->second.config)
    return ignore("its config '" + entry->bestConfig + "' does not parse" +
                  (parsed == database->configs.end()
                       ? std::string()
                       : ": " + parsed->second.error));
  ConfigAttr config = parsed->second.config;
  auto entryBackend =
      dyn_cast<GemmBackendAttrInterface>(getGemmBackendAttr(config));
  if (named && entryBackend &&
      entryBackend.getBackendName() != named.getBackendName())
    return ignore("its config is for the " + entryBackend.getBackendName() +
                  " backend, but GEMMs are lowered with the " +
                  named.getBackendName() + " backend here");
  std::string why;
  FailureOr<CheckedConfig> checked = checkConfig(gemm, target, config, why);
  if (failed(checked))
    return ignore("its config is invalid: " + why);
  std::string gain = "no measured default";
  if (entry->defaultNs > 0 && entry->bestNs > 0)
    gain = llvm::formatv("{0:f2}x the default config ({1} ns vs {2} ns)",
                         entry->defaultNs / entry->bestNs,
                         rounded(entry->bestNs), rounded(entry->defaultNs));
  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "TuningDatabase"))
      << remark::reason("config from tuning database '{0}' on {1}, measured "
                        "{2}: {3}{4}",
                        tuningDb.getValue(), target.getChip(), gain,
                        describeCandidate(checked->candidate, checked->problem),
                        checked->schedule);
  gemm.setConfigAttr(config);
  return true;
}

LogicalResult SelectStrategyPass::initialize(MLIRContext *ctx) {
  database.reset();
  if (tuningDb.empty())
    return success();
  auto loaded = std::make_shared<LoadedDatabase>();
  std::string error;
  std::optional<TuningDatabase> db = TuningDatabase::read(tuningDb, error);
  if (!db)
    return emitError(UnknownLoc::get(ctx)) << kPassArg << ": " << error;
  loaded->db = std::move(*db);
  // The configs are parsed here, once and on one thread; a config that does
  // not parse is reported when a GEMM would use it (a stale entry).
  for (const TuningEntry &e : loaded->db.getEntries()) {
    if (loaded->configs.count(e.bestConfig) ||
        !StringRef(e.bestConfig).starts_with("#xpu.config"))
      continue;
    LoadedDatabase::ParsedConfig &parsed = loaded->configs[e.bestConfig];
    std::string errors;
    {
      ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
        if (errors.empty())
          errors = d.str();
        return success();
      });
      parsed.config =
          dyn_cast_or_null<ConfigAttr>(parseAttribute(e.bestConfig, ctx));
    }
    parsed.error = errors.empty() ? "not an #xpu.config" : errors;
  }
  database = std::move(loaded);
  return success();
}

void SelectStrategyPass::runOnOperation() {
  func::FuncOp func = getOperation();
  TargetAttr target = resolveTarget(func);
  auto fail = [&](const Twine &why) {
    func.emitError() << kPassArg << ": " << why;
    signalPassFailure();
  };
  named = {};
  if (backend != "auto") {
    named = lookupGemmBackend(&getContext(), backend);
    if (!named) {
      SmallVector<std::string> names = {"auto"};
      for (GemmBackendAttrInterface b :
           getRegisteredGemmBackends(&getContext()))
        names.push_back(b.getBackendName().str());
      return fail("unknown backend '" + backend + "' (" +
                  llvm::join(names, ", ") + ")");
    }
  }
  if (schedule != "auto") {
    forced = symbolizeSchedule(schedule);
    if (!forced)
      return fail("unknown schedule '" + schedule +
                  "' (auto, data_parallel, persistent, stream_k)");
  }
  std::optional<Fixup> f = symbolizeFixup(fixup);
  if (!f)
    return fail("unknown fixup '" + fixup + "' (deterministic, atomic)");
  fixupKind = *f;
  if (programs < 0 || programs > std::numeric_limits<int32_t>::max())
    return fail(llvm::formatv("programs must be in [0, 2^31), got {0}",
                              programs.getValue()));
  if (streamKThreshold < 0 || streamKThreshold > 1)
    return fail("stream-k-threshold must be in [0, 1]");
  params.streamKThreshold = streamKThreshold;
  if (simtVector != 0 && simtVector != 1 && simtVector != 2 && simtVector != 4)
    return fail(llvm::formatv("simt-vector must be 0 (the backend's "
                              "choice), 1, 2 or 4, got {0}",
                              simtVector.getValue())
                    .str());
  if (persistentGain < 0 || persistentGain > 1)
    return fail("persistent-gain must be in [0, 1]");
  params.persistentGain = persistentGain;

  bool hadError = false;
  func.walk([&](GemmOp gemm) {
    if (target.isCpu()) {
      ++numSkipped;
      remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "CpuTarget"))
          << remark::reason(
                 "no #xpu.config on the cpu target {0}: the CPU tiles ([mc, "
                 "nc, kc], [mr, nr]) are options of "
                 "xpu-cpu-tile-and-vectorize, which does not read it{1}",
                 target.getChip(),
                 gemm.getConfigAttr() ? "; the config written by hand is left "
                                        "as it is"
                                      : "");
      return;
    }
    // A dynamic m: the SIMT kernels read the rows at run time, the matrix
    // backends size their grids and descriptors from static shapes.
    bool dynamic = gemm.hasDynamicShape();
    if (dynamic && gemm.isBatched()) {
      gemm.emitError() << kPassArg << ": the GEMM " << describeGemmShape(gemm)
                       << " has a dynamic batched shape, which the kernels for "
                       << target.getChip()
                       << " do not take; a dynamic m of an unbatched GEMM "
                          "compiles for every target";
      hadError = true;
      return;
    }
    if (!dynamic && !gemm.getConfigAttr() &&
        applyTuningDatabase(gemm, target)) {
      ++numTuned;
      return;
    }
    if (gemm.getConfigAttr()) {
      Attribute handKnobs = gemm.getConfigAttr().getBackend();
      if (dynamic && handKnobs &&
          !isa<SimtConfigAttr, XeConfigAttr>(handKnobs)) {
        auto named = dyn_cast<GemmBackendAttrInterface>(handKnobs);
        gemm.emitError()
            << kPassArg << ": the config written by hand is for the "
            << (named ? named.getBackendName() : StringRef("unknown"))
            << " backend, whose kernels size grids and TMA descriptors from "
               "static shapes, but the GEMM "
            << describeGemmShape(gemm)
            << " has a dynamic m; the simt and xe backends take it";
        hadError = true;
        return;
      }
      if (verifyHandConfig(gemm, target))
        ++numKept;
      else
        hadError = true;
      return;
    }
    FailureOr<GemmBackendAttrInterface> knobs = chooseBackend(gemm, target);
    if (succeeded(knobs) && dynamic && !isa<SimtConfigAttr>(*knobs) && !named &&
        target.isNvidia()) {
      // The NVVM pipeline lowers SIMT configs too: a dynamic m runs there.
      remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "DynamicRows"))
          << remark::reason(
                 "simt backend, not {0}: the GEMM {1} has a dynamic m, which "
                 "the tensor-core kernels do not take (they size grids and "
                 "TMA descriptors from static shapes); the SIMT kernels read "
                 "it at run time",
                 knobs->getBackendName(), describeGemmShape(gemm));
      knobs = cast<GemmBackendAttrInterface>(
          cast<GemmBackendAttrInterface>(
              SimtConfigAttr::get(gemm.getContext(), /*vector=*/1))
              .getCandidateKnobs(target, getOperandType(gemm)));
    }
    if (succeeded(knobs) && dynamic &&
        !isa<SimtConfigAttr, XeConfigAttr>(*knobs)) {
      gemm.emitError() << kPassArg << ": the GEMM " << describeGemmShape(gemm)
                       << " has a dynamic m, which the "
                       << knobs->getBackendName()
                       << " backend does not take (its kernels size grids "
                          "and TMA descriptors from static shapes); the simt "
                          "backend does (backend=simt)";
      hadError = true;
      return;
    }
    FailureOr<bool> selected = failure();
    if (succeeded(knobs))
      selected = select(gemm, target, *knobs);
    if (mlir::failed(selected))
      hadError = true;
    else if (*selected)
      ++numSelected;
    else
      ++numSkipped;
  });
  if (hadError)
    signalPassFailure();
}

} // namespace
