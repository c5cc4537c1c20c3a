//===- SelectStrategy.cpp - #xpu.config for every xpu.gemm ----------------===//
//
// Catalog: level_1_baseline_xpu (tiles, GROUP_SIZE_M swizzle), grf_mode,
// fusion_register_pressure_guard and level_4 (the Stream-K and persistent
// schedules). The model (candidates, validity per backend, scoring) is in
// StrategyModel.h so that a tuner can call it; docs/Strategy.md gives its
// formulas and the sources of its numbers.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/Dialect/XPU/Utils/StrategyModel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

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

  void runOnOperation() override;

private:
  /// Chooses and attaches a config: true when it did, false when no
  /// candidate fits, failure after an error.
  FailureOr<bool> select(GemmOp gemm, TargetAttr target, GemmBackend backend);
  /// Verifies a hand-written config; false after an error.
  bool verifyHandConfig(GemmOp gemm, TargetAttr target);
  /// The problem's numbers; f32 operands are tf32 for the register model
  /// when the GEMMs run on NVIDIA tensor cores (`tf32`).
  GemmProblem getProblem(GemmOp gemm, TargetAttr target, GemmBackend backend) {
    GemmProblem p = GemmProblem::get(gemm, target, backend);
    if (tf32 && p.operandType.isF32())
      p.operandType = FloatTF32Type::get(gemm.getContext());
    return p;
  }
  /// backend=auto: xe on Intel targets; on NVIDIA targets nvgpu for the
  /// GEMMs the tensor cores take (16-bit operands, or f32 with `tf32`) and
  /// simt for the others, with a remark; simt elsewhere.
  GemmBackend getAutoBackend(GemmOp gemm, TargetAttr target);
  /// The nvgpu backend runs wgmma on whole tiles only (data-parallel or
  /// persistent programs), not on Stream-K's K pieces: a wgmma candidate
  /// for the stream_k schedule becomes an mma.sync one (tile_k 32, stages
  /// fitted again, scored again), with a remark; false (and a missed
  /// remark) when it does not fit.
  bool fallBackToMmaSync(GemmOp gemm, TargetAttr target, const GemmProblem &p,
                         Schedule kind, TileCandidate &c);
  /// The schedule of `c` (forced or chosen), with its remark.
  ScheduleAttr decideSchedule(GemmOp gemm, TargetAttr target,
                              const GemmProblem &p, const TileCandidate &c);

  std::optional<Schedule> forced;
  Fixup fixupKind = Fixup::deterministic;
  CostParams params;
};

ScheduleAttr SelectStrategyPass::decideSchedule(GemmOp gemm, TargetAttr target,
                                                const GemmProblem &p,
                                                const TileCandidate &c) {
  MLIRContext *ctx = gemm.getContext();
  ScheduleChoice choice =
      chooseSchedule(p, target, c, programs, fixupKind, params);
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

GemmBackend SelectStrategyPass::getAutoBackend(GemmOp gemm, TargetAttr target) {
  if (target.isIntel())
    return GemmBackend::xe;
  if (!target.isNvidia())
    return GemmBackend::simt;
  Type elt = gemm.getLhsType().getElementType();
  if (nvidia::isTensorCoreType(elt) || (tf32 && elt.isF32())) {
    int64_t bytes = xe::getElementBytes(elt);
    NVGPUMma mma = nvidia::getPreferredMma(target, bytes);
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Backend"))
        << remark::reason(
               "nvgpu backend on {0}: {1} operands run on tensor cores{2} "
               "with {3}{4}",
               target.getChip(), elt, elt.isF32() ? " as tf32" : "",
               stringifyNVGPUMma(mma),
               mma == NVGPUMma::wgmma
                   ? llvm::formatv(" ({0}: TMA and warpgroup MMA, tile_k 64)",
                                   target.getChip())
                         .str()
                   : (target.hasWgmma()
                          ? std::string(" (wgmma takes 16-bit operands only)")
                          : llvm::formatv(" (wgmma needs {0})",
                                          llvm::join(listPresets([](auto &p) {
                                                       return p.wgmma;
                                                     }),
                                                     " or "))
                                .str()));
    return GemmBackend::nvgpu;
  }
  remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "Backend"))
      << remark::reason("simt backend on {0}: {1} operands{2} do not run on "
                        "tensor cores",
                        target.getChip(), elt,
                        elt.isF32() ? " without tf32" : "");
  return GemmBackend::simt;
}

bool SelectStrategyPass::fallBackToMmaSync(GemmOp gemm, TargetAttr target,
                                           const GemmProblem &p, Schedule kind,
                                           TileCandidate &c) {
  TileCandidate m = c;
  m.mma = NVGPUMma::mma_sync;
  // mma.sync's tile_k for 16-bit operands: two k-steps, one 64-byte row.
  m.tile[2] = 32;
  std::string why;
  if (checkTileCandidate(p, target, m, /*keepStagesAndGrf=*/false, why) !=
      Rejection::none) {
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "NoMmaSync"))
        << remark::reason("a {0} schedule needs mma.sync (the wgmma kernel "
                          "computes whole tiles over all of K), but {1}: "
                          "data_parallel on wgmma",
                          stringifySchedule(kind), why);
    return false;
  }
  scoreDataParallel(p, m);
  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "MmaSync"))
      << remark::reason("mma.sync instead of wgmma on {0}: a {1} schedule "
                        "splits tiles along K, and the wgmma kernel computes "
                        "whole tiles; tile [{2}, {3}, {4}], {5} stages, model "
                        "time {6} ns",
                        target.getChip(), stringifySchedule(kind), m.tile[0],
                        m.tile[1], m.tile[2], m.stages, rounded(m.time));
  c = m;
  return true;
}

FailureOr<bool> SelectStrategyPass::select(GemmOp gemm, TargetAttr target,
                                           GemmBackend backend) {
  MLIRContext *ctx = gemm.getContext();
  // The backend's attribute with the knobs the candidates start from.
  TileCandidate knobs;
  knobs.backend = backend;
  knobs.grfMode = 128;
  FailureOr<GemmBackendAttrInterface> impl =
      lookupGemmBackend(knobs.getBackendAttr(ctx), gemm.getLoc(), kPassArg);
  if (failed(impl))
    return failure();
  std::string why;
  Operation *where = gemm;
  if (failed(impl->checkGemm(gemm, target, why, where))) {
    where->emitError() << kPassArg << ": the " << impl->getBackendName()
                       << " backend cannot compute this GEMM: " << why;
    return failure();
  }
  GemmProblem p = getProblem(gemm, target, backend);
  std::optional<TileCandidate> best;
  int64_t considered = 0, overRegisters = 0, overSlm = 0, refused = 0;
  for (TileCandidate &c : enumerateTileCandidates(p, target, backend)) {
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
               overSlm, p.slmBytes, refused, impl->getBackendName());
    return false;
  }

  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Selected"))
      << remark::reason("selected for {0}x{1}x{2}{3} (m x n x k) on {4}: {5}; "
                        "{6} of {7} candidates rejected ({8} registers, {9} "
                        "SLM, {10} backend rules)",
                        p.m, p.n, p.k,
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
  // wgmma computes whole tiles (data-parallel or persistent programs): a
  // forced Stream-K schedule runs on mma.sync (or stays data-parallel when
  // that does not fit).
  auto isWgmma = [&] {
    return best->backend == GemmBackend::nvgpu && best->mma == NVGPUMma::wgmma;
  };
  bool wgmmaOnly = false;
  if (isWgmma() && forced && *forced == Schedule::stream_k)
    wgmmaOnly = !fallBackToMmaSync(gemm, target, p, *forced, *best);
  if (wgmmaOnly) {
    best->schedule = ScheduleAttr::getDataParallel(ctx);
  } else {
    best->schedule = decideSchedule(gemm, target, p, *best);
    if (!best->schedule)
      return failure();
  }
  // Stream-K chosen by the model on the wgmma candidate: scored again on
  // mma.sync; if the model then prefers data-parallel, wgmma stays.
  if (isWgmma() && best->schedule.getKind() == Schedule::stream_k) {
    TileCandidate wgmma = *best;
    if (!fallBackToMmaSync(gemm, target, p, best->schedule.getKind(), *best)) {
      best->schedule = ScheduleAttr::getDataParallel(ctx);
    } else {
      best->schedule = decideSchedule(gemm, target, p, *best);
      if (!best->schedule)
        return failure();
      if (best->schedule.getKind() == Schedule::data_parallel) {
        *best = wgmma;
        best->schedule = ScheduleAttr::getDataParallel(ctx);
      }
    }
  }
  gemm.setConfigAttr(best->toAttr(ctx));
  return true;
}

bool SelectStrategyPass::verifyHandConfig(GemmOp gemm, TargetAttr target) {
  ConfigAttr config = gemm.getConfigAttr();
  TileCandidate c = TileCandidate::fromAttr(config);
  auto fail = [&](const Twine &why) {
    gemm.emitError() << kPassArg << ": the config written by hand is invalid "
                     << "on " << target.getChip() << ": " << why;
    return false;
  };
  FailureOr<GemmBackendAttrInterface> impl =
      lookupGemmBackend(config, gemm.getLoc(), kPassArg);
  if (failed(impl))
    return false;
  std::string why;
  Operation *where = gemm;
  if (failed(impl->checkGemm(gemm, target, why, where)))
    return fail(llvm::formatv("the {0} backend cannot compute this GEMM: {1}",
                              impl->getBackendName(), why));
  GemmProblem p = getProblem(gemm, target, c.backend);
  // The hand config says how the tensor cores read f32 operands.
  if (c.backend == GemmBackend::nvgpu && p.operandType.isF32() &&
      c.precision == NVGPUPrecision::tf32)
    p.operandType = FloatTF32Type::get(gemm.getContext());
  if (checkTileCandidate(p, target, c, /*keepStagesAndGrf=*/true, why) !=
      Rejection::none)
    return fail(why);
  // The rule on tile_n that depends on the layout of B.
  if (failed(impl->checkConfig(target, config, p.operandBytes, why,
                               gemm.getRhsLayout())))
    return fail(why);
  scoreDataParallel(p, c);
  c.groupM = config.getGroupM();
  FailureOr<ScheduleScore> score =
      scoreSchedule(p, target, c, config.getSchedule(), params, why);
  if (failed(score))
    return fail(why);
  std::string schedule;
  if (config.getSchedule().getKind() != Schedule::data_parallel)
    schedule = llvm::formatv("; {0}: efficiency {1:f2}, {2} ns",
                             describeSchedulePlan(score->plan),
                             score->efficiency, rounded(score->time));
  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Kept"))
      << remark::reason("kept the config written by hand on {0}: {1}{2}",
                        target.getChip(), describeCandidate(c, p), schedule);
  if (c.registers > c.budget)
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "Spills"))
        << remark::reason(
               "the config written by hand needs an estimated {0} registers "
               "per thread > {1} ({2}): expect spills",
               c.registers, c.budget, c.registerTerms);
  return true;
}

void SelectStrategyPass::runOnOperation() {
  func::FuncOp func = getOperation();
  TargetAttr target = resolveTarget(func);
  auto fail = [&](const Twine &why) {
    func.emitError() << kPassArg << ": " << why;
    signalPassFailure();
  };
  std::optional<GemmBackend> chosenBackend;
  if (backend != "auto") {
    chosenBackend = symbolizeGemmBackend(backend);
    if (!chosenBackend)
      return fail("unknown backend '" + backend + "' (auto, simt, xe, nvgpu)");
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
    if (gemm.getConfigAttr()) {
      if (verifyHandConfig(gemm, target))
        ++numKept;
      else
        hadError = true;
      return;
    }
    FailureOr<bool> selected =
        select(gemm, target,
               chosenBackend ? *chosenBackend : getAutoBackend(gemm, target));
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
