//===- StrategyModel.cpp - candidates, validity and cost of configs -------===//
//
// docs/Strategy.md describes every formula and constant.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/Utils/StrategyModel.h"
#include "xpu/Dialect/XPU/Utils/RegisterPressure.h"
#include "xpu/Dialect/XPU/Utils/SizeArithmetic.h"

#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::xpu;

/// Candidate workgroup tile sizes; a candidate is every (m, n) pair whose
/// sizes are multiples of the target's mma shape.
static constexpr int64_t kTileM[] = {256, 128, 64, 32, 16, 8};
static constexpr int64_t kTileN[] = {256, 128, 64, 32, 16};
/// Triton's GROUP_SIZE_M.
static constexpr int64_t kGroupM = 8;

namespace {
/// How a vendor splits a workgroup tile into subgroups (warps).
struct LayoutRules {
  /// Smallest block a subgroup owns before the count is capped.
  int64_t blockM, blockN;
  /// Subgroups per workgroup the strategy uses at most.
  int64_t maxSubgroups;
};

LayoutRules getLayoutRules(TargetAttr target, GemmBackendAttrInterface knobs) {
  // Xe: 32x32 blocks, at most 32 subgroups (256x256 -> [8, 4], the
  // playbook's 256x256 tiles with num_warps=32). NVIDIA: 64x64 warp blocks
  // on at most 8 warps, the mma.sync kernels of CUTLASS and Triton; SIMT
  // kernels 32x64 (8x8 accumulators a thread: 128x128 tiles on 8 warps).
  if (target.isNvidia() && !knobs.usesMatrixUnits())
    return {32, 64, 8};
  if (target.isNvidia())
    return {64, 64, 8};
  return {32, 32, 32};
}

/// The mma shape, [1, 1, 1] when the target has no matrix engine.
SmallVector<int64_t, 3> getMmaShape(TargetAttr target) {
  ArrayRef<int64_t> mma = target.getMma();
  if (llvm::all_of(mma, [](int64_t v) { return v > 0; }))
    return SmallVector<int64_t, 3>(mma);
  return {1, 1, 1};
}

/// The register model's kind of kernel for a backend.
KernelKind getKernelKind(GemmBackendAttrInterface backend) {
  return backend.usesMatrixUnits() ? KernelKind::Matrix : KernelKind::Simt;
}

/// K-steps prefetched: nothing to prefetch for one step, then 2, 3, 4 as the
/// K loop gets long enough to hide the latency of more slices.
int64_t getStages(int64_t kIters) {
  if (kIters <= 1)
    return 1;
  if (kIters < 4)
    return 2;
  if (kIters < 16)
    return 3;
  return 4;
}

int64_t modelSlmBytes(const GemmProblem &p, ArrayRef<int64_t> tile,
                      int64_t stages) {
  return satMul(stages, satAdd(tile[0], tile[1]), tile[2], p.operandBytes);
}

std::string formatList(ArrayRef<int64_t> v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(v, os);
  os << "]";
  return s;
}
} // namespace

GemmProblem GemmProblem::get(GemmOp gemm, TargetAttr target,
                             GemmBackendAttrInterface backend) {
  GemmProblem p;
  p.batch = gemm.getBatchSize();
  p.m = ShapedType::isDynamic(gemm.getM()) ? GemmProblem::kDynamicRowsModel
                                           : gemm.getM();
  p.n = gemm.getN();
  p.k = gemm.getK();
  // The operands as the GEMM has them: in the Xe pipeline they are bf16 or
  // f16 by now (xpu-prepack-bf16); an f32 GEMM given to the Xe backend on
  // its own is modeled at the f32 rates.
  Type operand = gemm.getLhsType().getElementType();
  p.operandType = operand;
  p.operandBytes = llvm::divideCeil(operand.getIntOrFloatBitWidth(), 8);
  p.resultBytes = llvm::divideCeil(
      gemm.getResultType().getElementType().getIntOrFloatBitWidth(), 8);
  // 16-bit operands run on the matrix engine at the bf16/f16 peak, f32 ones
  // that the backend's knobs read as tf32 (nvgpu) at half of it (Ampere's
  // and Hopper's tensor cores); anything else at the f32 peak (f64 too: an
  // upper bound).
  bool matrix = llvm::all_of(target.getMma(), [](int64_t v) { return v > 0; });
  bool tf32 = matrix && backend && backend.getOperandType(gemm).isTF32();
  double peak = matrix && p.operandBytes == 2 ? target.getPeakBf16Gflops()
                : tf32                        ? target.getPeakBf16Gflops() / 2.0
                                              : target.getPeakF32Gflops();
  p.computeUnits = target.getComputeUnits();
  p.flopsPerNs = peak / p.computeUnits;
  p.bytesPerNs = double(target.getMemGbps()) / p.computeUnits;
  p.slmBytes = target.getSlmBytes();
  Block &block = gemm.getEpilogueBlock();
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  Value yielded = block.getTerminator()->getOperand(0);
  // Epilogue operands the backend reads as tiles in the accumulator's
  // layout (the Xe kernel's full, per_row and scalar ones) are fragments
  // from where the epilogue first needs them, as is what the epilogue
  // computes from them.
  SmallVector<Value> panels;
  for (unsigned i = 0, e = gemm.getEpilogueOperands().size(); i < e; ++i)
    if (backend.readsEpilogueOperandAsFragment(gemm.getBroadcastKind(i)))
      panels.push_back(gemm.getEpilogueArgument(i));
  p.liveFragments =
      peakLiveFragments(ops, {gemm.getAccArgument()}, yielded, panels);
  return p;
}

ConfigAttr TileCandidate::toAttr(MLIRContext *ctx) const {
  ScheduleAttr s = schedule ? schedule : ScheduleAttr::getDataParallel(ctx);
  return ConfigAttr::get(ctx, tile, groupM, subgroups, stages, s,
                         getConfigKnobs(knobs));
}

TileCandidate TileCandidate::fromAttr(ConfigAttr config) {
  TileCandidate c;
  c.tile.assign(config.getTile().begin(), config.getTile().end());
  c.subgroups.assign(config.getSubgroups().begin(),
                     config.getSubgroups().end());
  c.stages = config.getStages();
  c.groupM = config.getGroupM();
  c.knobs = cast<GemmBackendAttrInterface>(getGemmBackendAttr(config));
  c.schedule = config.getSchedule();
  return c;
}

SmallVector<TileCandidate>
mlir::xpu::enumerateTileCandidates(const GemmProblem &p, TargetAttr target,
                                   GemmBackendAttrInterface knobs) {
  SmallVector<int64_t, 3> mma = getMmaShape(target);
  LayoutRules rules = getLayoutRules(target, knobs);
  int64_t tk = knobs.getCandidateTileK(target, p.operandBytes);
  int64_t stages =
      std::max(getStages(llvm::divideCeil(p.k, tk)), knobs.getMinStages());
  SmallVector<TileCandidate> result;
  for (int64_t tm : kTileM) {
    for (int64_t tn : kTileN) {
      if (tm % mma[0] != 0 || tn % mma[1] != 0)
        continue;
      if (!knobs.isCandidateTile(tm, tn))
        continue;
      // Subgroup layout: blocks of at least blockM x blockN, halved (columns
      // first) down to the subgroup cap.
      int64_t rows = std::clamp<int64_t>(tm / rules.blockM, 1, 8);
      int64_t cols = std::clamp<int64_t>(tn / rules.blockN, 1, 8);
      while (rows * cols > rules.maxSubgroups) {
        if (cols >= rows)
          cols /= 2;
        else
          rows /= 2;
      }
      if ((tm / rows) % mma[0] != 0 || (tn / cols) % mma[1] != 0)
        continue;
      TileCandidate c;
      c.knobs = knobs;
      c.tile = {tm, tn, tk};
      c.subgroups = {rows, cols};
      c.stages = stages;
      result.push_back(c);
    }
  }
  return result;
}

Rejection mlir::xpu::checkTileCandidate(const GemmProblem &p, TargetAttr target,
                                        TileCandidate &c, bool keepStagesAndGrf,
                                        std::string &why) {
  MLIRContext *ctx = target.getContext();
  // SLM: lower the prefetch depth until the slices fit.
  if (!keepStagesAndGrf)
    while (c.stages > 1 && modelSlmBytes(p, c.tile, c.stages) > p.slmBytes)
      --c.stages;
  c.slm = modelSlmBytes(p, c.tile, c.stages);
  if (c.slm > p.slmBytes) {
    why = llvm::formatv("{0} stages x ({1} + {2}) x {3} x {4} bytes = {5} "
                        "bytes of SLM > {6}",
                        c.stages, c.tile[0], c.tile[1], c.tile[2],
                        p.operandBytes, c.slm, p.slmBytes);
    return Rejection::slm;
  }
  // Registers: the backend's register file if the estimate fits (Xe:
  // 128-GRF mode), else a larger one where the backend has it (Xe: 256).
  RegisterModel model = RegisterModel::get(
      target, c.toAttr(ctx), getKernelKind(c.knobs), p.operandType);
  c.registers = model.estimate(p.liveFragments);
  c.registerTerms = model.describe(p.liveFragments);
  c.budget = c.knobs.getRegisterBudget(target, model.budget);
  if (!keepStagesAndGrf && c.registers > c.budget)
    if (Attribute grown = c.knobs.growRegisterFile(target, c.budget))
      c.knobs = cast<GemmBackendAttrInterface>(grown);
  if (!keepStagesAndGrf && c.registers > c.budget) {
    why = llvm::formatv("an estimated {0} registers per thread > {1}",
                        c.registers, c.budget);
    return Rejection::registers;
  }
  if (failed(c.knobs.checkConfig(target, c.toAttr(ctx), p.operandBytes, why,
                                 RhsLayout::nk)))
    return Rejection::backend;
  return Rejection::none;
}

void mlir::xpu::scoreDataParallel(const GemmProblem &p, TileCandidate &c) {
  int64_t tm = c.tile[0], tn = c.tile[1], tk = c.tile[2];
  int64_t tilesM = llvm::divideCeil(p.m, tm);
  int64_t tilesN = llvm::divideCeil(p.n, tn);
  // Checked: a 2^40-element shape must not wrap (the time is a double).
  std::optional<int64_t> tiles = llvm::checkedMul(tilesM, tilesN);
  if (tiles)
    tiles = llvm::checkedMul(*tiles, p.batch);
  c.tiles = tiles.value_or(std::numeric_limits<int64_t>::max());
  c.waves = llvm::divideCeil(c.tiles, p.computeUnits);
  c.waveFraction = double(c.tiles) / p.computeUnits;
  c.efficiency = double(c.tiles) / (double(c.waves) * p.computeUnits);
  c.useful =
      (double(p.m) / double(tilesM * tm)) * (double(p.n) / double(tilesN * tn));
  // One tile on one compute unit: its share of the peak rate and of the
  // memory bandwidth; the A and B slices and the C tile cross memory once.
  double kPadded = double(llvm::divideCeil(p.k, tk)) * tk;
  double compute = 2.0 * tm * tn * kPadded / p.flopsPerNs;
  double memory = (double(tm + tn) * kPadded * p.operandBytes +
                   double(tm) * tn * p.resultBytes) /
                  p.bytesPerNs;
  c.computeBound = compute >= memory;
  c.tileTime = std::max(compute, memory);
  c.time = double(c.waves) * c.tileTime;
  c.groupM = tilesM == 1 ? 1 : kGroupM;
}

FailureOr<ScheduleScore>
mlir::xpu::scoreSchedule(const GemmProblem &p, TargetAttr target,
                         const TileCandidate &c, ScheduleAttr schedule,
                         const CostParams &params, std::string &why) {
  MLIRContext *ctx = target.getContext();
  ScheduleScore s;
  s.resident =
      c.knobs.getResidentWorkgroups(target, c.toAttr(ctx), p.operandBytes);
  FailureOr<SchedulePlan> plan =
      planSchedule(schedule, {p.batch, p.m, p.n, p.k}, c.tile, s.resident, why);
  if (failed(plan))
    return failure();
  s.plan = *plan;
  double cu = double(p.computeUnits);
  double tiles = double(plan->tiles);
  // Programs beyond the compute units share them: each runs at cu / P of a
  // compute unit's rate.
  double programs = double(plan->programs);
  double share = std::max(1.0, programs / cu);
  auto rounds = [&](double work, double workers) {
    return std::ceil(work / workers);
  };
  switch (plan->kind) {
  case Schedule::data_parallel:
    s.time = rounds(tiles, cu) * (c.tileTime + params.workgroupNs);
    break;
  case Schedule::persistent:
    s.time = rounds(tiles, programs) * share * c.tileTime +
             rounds(programs, cu) * params.workgroupNs;
    break;
  case Schedule::stream_k: {
    double tm = c.tile[0], tn = c.tile[1];
    double iters = double(plan->itersPerTile);
    double dp = double(plan->dpTiles) / programs * share * c.tileTime;
    double sk = 0, fixup = 0;
    if (plan->skTiles > 0) {
      // The split K-steps, plus writing each program's partial tiles (at
      // most two that it shares with others).
      double partial = tm * tn * 4 / p.bytesPerNs;
      sk = (rounds(double(plan->skIters), programs) * c.tileTime / iters +
            2 * partial) *
           share;
      // The fix-up kernel: a launch, then per split tile its slots read
      // and the tile stored.
      double slots =
          double(plan->fixup == Fixup::atomic ? 1 : plan->slotsPerTile);
      fixup =
          params.launchNs +
          rounds(double(plan->skTiles), cu) *
              ((slots * tm * tn * 4 + tm * tn * p.resultBytes) / p.bytesPerNs +
               params.workgroupNs);
    }
    s.time = dp + sk + fixup + rounds(programs, cu) * params.workgroupNs;
    break;
  }
  }
  // The busy time of the ideal machine over the modeled time.
  s.efficiency = tiles * c.tileTime / cu / s.time;
  return s;
}

/// The program counts the model tries when none is given: 1, 2, 4 and 8
/// workgroups per compute unit, and every workgroup the target runs at once
/// (persistent_kernel_autotuned_num_progs: a tuned count, not the number
/// of cores).
static SmallVector<int64_t>
getProgramCandidates(int64_t programs, int64_t computeUnits, int64_t resident) {
  if (programs > 0)
    return {programs};
  SmallVector<int64_t> counts;
  for (int64_t perUnit : {1, 2, 4, 8})
    if (computeUnits * perUnit <= resident)
      counts.push_back(computeUnits * perUnit);
  if (!llvm::is_contained(counts, resident))
    counts.push_back(resident);
  return counts;
}

FailureOr<ScheduleScore> mlir::xpu::scoreScheduleWithBestPrograms(
    const GemmProblem &p, TargetAttr target, const TileCandidate &c,
    ScheduleAttr schedule, const CostParams &params, std::string &why) {
  MLIRContext *ctx = target.getContext();
  if (schedule.getKind() == Schedule::data_parallel)
    return scoreSchedule(p, target, c, schedule, params, why);
  int64_t resident =
      c.knobs.getResidentWorkgroups(target, c.toAttr(ctx), p.operandBytes);
  std::optional<ScheduleScore> best;
  for (int64_t count :
       getProgramCandidates(schedule.getPrograms(), p.computeUnits, resident)) {
    auto candidate =
        ScheduleAttr::get(ctx, schedule.getKind(), count, schedule.getFixup());
    FailureOr<ScheduleScore> score =
        scoreSchedule(p, target, c, candidate, params, why);
    if (failed(score))
      return failure();
    if (!best || score->time < best->time * (1 - 1e-9))
      best = *score;
  }
  return *best;
}

ScheduleChoice mlir::xpu::chooseSchedule(const GemmProblem &p,
                                         TargetAttr target,
                                         const TileCandidate &c,
                                         int64_t programs, Fixup fixup,
                                         const CostParams &params) {
  MLIRContext *ctx = target.getContext();
  ScheduleChoice choice;
  choice.schedule = ScheduleAttr::getDataParallel(ctx);
  std::string why;
  FailureOr<ScheduleScore> dp =
      scoreSchedule(p, target, c, choice.schedule, params, why);
  if (failed(dp)) {
    choice.reason = why;
    return choice;
  }
  choice.dataParallel = choice.chosen = *dp;
  int64_t iters = llvm::divideCeil(p.k, c.tile[2]);
  double waste = 1 - c.efficiency;
  auto ns = [](double t) { return int64_t(std::llround(t)); };
  if (waste > params.streamKThreshold) {
    if (iters < 2) {
      choice.reason = llvm::formatv("the last wave leaves {0:f2} of the "
                                    "machine idle, but a tile has one K-step "
                                    "(nothing to split)",
                                    waste);
      return choice;
    }
    FailureOr<ScheduleScore> sk = scoreScheduleWithBestPrograms(
        p, target, c,
        ScheduleAttr::get(ctx, Schedule::stream_k, programs, fixup), params,
        why);
    if (failed(sk)) {
      choice.reason = why;
      return choice;
    }
    if (sk->time < dp->time && !params.streamKVeto.empty()) {
      choice.reason =
          llvm::formatv("the last wave leaves {0:f2} of the "
                        "machine idle and Stream-K models "
                        "faster ({1} ns vs {2} ns), but {3}",
                        waste, ns(sk->time), ns(dp->time), params.streamKVeto);
      return choice;
    }
    if (sk->time < dp->time) {
      choice.schedule =
          ScheduleAttr::get(ctx, Schedule::stream_k, sk->plan.programs, fixup);
      choice.chosen = *sk;
      return choice;
    }
    choice.reason = llvm::formatv("the last wave leaves {0:f2} of the "
                                  "machine idle, but Stream-K models slower "
                                  "({1} ns vs {2} ns)",
                                  waste, ns(sk->time), ns(dp->time));
    return choice;
  }
  if (c.waves >= params.persistentMinWaves) {
    FailureOr<ScheduleScore> pers = scoreScheduleWithBestPrograms(
        p, target, c,
        ScheduleAttr::get(ctx, Schedule::persistent, programs,
                          Fixup::deterministic),
        params, why);
    if (failed(pers)) {
      choice.reason = why;
      return choice;
    }
    double gain = 1 - pers->time / dp->time;
    if (gain >= params.persistentGain) {
      choice.schedule = ScheduleAttr::get(
          ctx, Schedule::persistent, pers->plan.programs, Fixup::deterministic);
      choice.chosen = *pers;
      return choice;
    }
    choice.reason = llvm::formatv(
        "wave efficiency {0:f2} over {1} waves; persistent programs model "
        "{2:f2} faster, less than {3:f2}",
        c.efficiency, c.waves, gain, params.persistentGain);
    return choice;
  }
  choice.reason = llvm::formatv("wave efficiency {0:f2} over {1} wave(s): no "
                                "tail or launch cost worth removing",
                                c.efficiency, c.waves);
  return choice;
}

std::string mlir::xpu::describeCandidate(const TileCandidate &c,
                                         const GemmProblem &p) {
  std::string knobs = c.knobs.describeKnobs();
  return llvm::formatv(
      "tile {0}, subgroups {1}, group_m {2}, stages {3}{4}: {5} tiles on {6} "
      "compute units = {7:f2} waves, wave efficiency {8:f2}, useful work "
      "{9:f2}, model time {10} ns ({11} bound); {12} registers per thread "
      "(budget {13}); SLM {14} of {15} bytes",
      formatList(c.tile), formatList(c.subgroups), c.groupM, c.stages, knobs,
      c.tiles, p.computeUnits, c.waveFraction, c.efficiency, c.useful,
      static_cast<int64_t>(std::llround(c.time)),
      c.computeBound ? "compute" : "memory", c.registers, c.budget, c.slm,
      p.slmBytes);
}
