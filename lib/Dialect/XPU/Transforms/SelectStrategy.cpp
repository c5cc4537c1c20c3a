//===- SelectStrategy.cpp - #xpu.config for every xpu.gemm ----------------===//
//
// Catalog: level_1_baseline_xpu (tiles, GROUP_SIZE_M swizzle), grf_mode and
// fusion_register_pressure_guard. The cost model is described, with its
// formulas and the sources of its numbers, in docs/Strategy.md.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/RegisterPressure.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/Dialect/XPU/Utils/SizeArithmetic.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSELECTSTRATEGYPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-select-strategy";

/// Candidate workgroup tile sizes; a candidate is every (m, n) pair whose
/// sizes are multiples of the target's mma shape.
static constexpr int64_t kTileM[] = {256, 128, 64, 32, 16, 8};
static constexpr int64_t kTileN[] = {256, 128, 64, 32, 16};
/// Work-items per workgroup on Xe (max_work_group_size) and threads per
/// block on sm_90.
static constexpr int64_t kMaxWorkItems = 1024;
/// Hardware threads of one Xe-core (8 vector engines x 8 threads; 4 threads
/// per engine in 256-GRF mode): a workgroup runs on one Xe-core.
static constexpr int64_t kXeThreads128 = 64;
static constexpr int64_t kXeThreads256 = 32;
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

LayoutRules getLayoutRules(TargetAttr target) {
  // Xe: 32x32 blocks, at most 32 subgroups (256x256 -> [8, 4], the
  // playbook's 256x256 tiles with num_warps=32). NVIDIA: 64x64 warp blocks
  // on at most 8 warps, the mma.sync kernels of CUTLASS and Triton.
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

/// Problem and target numbers shared by all candidates of one GEMM.
struct Problem {
  int64_t batch, m, n, k;
  int64_t operandBytes, resultBytes;
  /// Peak rate (GFLOP/s = FLOP/ns) and bandwidth (GB/s = B/ns) of one
  /// compute unit.
  double flopsPerNs, bytesPerNs;
  int64_t computeUnits;
  int64_t slmBytes;
  /// Peak accumulator-dependent values live in the epilogue.
  int64_t liveFragments;
};

/// One scored configuration.
struct Candidate {
  SmallVector<int64_t, 3> tile;
  SmallVector<int64_t, 2> subgroups;
  int64_t stages = 1;
  int64_t groupM = 1;
  int64_t grfMode = 0;
  // Registers.
  int64_t registers = 0, budget = 0;
  /// How the register model got `registers` (RegisterModel::describe).
  std::string registerTerms;
  // SLM.
  int64_t slm = 0;
  // Occupancy and time.
  int64_t tiles = 0, waves = 0;
  double waveFraction = 0, efficiency = 0, useful = 0, time = 0;
  bool computeBound = false;

  ConfigAttr toAttr(MLIRContext *ctx) const {
    return ConfigAttr::get(ctx, tile, groupM, subgroups, stages, grfMode,
                           Schedule::data_parallel);
  }
};

Problem getProblem(GemmOp gemm, TargetAttr target) {
  Problem p;
  p.batch = gemm.getBatchSize();
  p.m = gemm.getM();
  p.n = gemm.getN();
  p.k = gemm.getK();
  p.operandBytes = llvm::divideCeil(
      gemm.getLhsType().getElementType().getIntOrFloatBitWidth(), 8);
  p.resultBytes = llvm::divideCeil(
      gemm.getResultType().getElementType().getIntOrFloatBitWidth(), 8);
  // 16-bit operands run on the matrix engine at the bf16/f16 peak; anything
  // else at the f32 peak (f64 too: an upper bound).
  bool matrixEngine =
      llvm::all_of(target.getMma(), [](int64_t v) { return v > 0; }) &&
      p.operandBytes == 2;
  p.computeUnits = target.getComputeUnits();
  p.flopsPerNs = double(matrixEngine ? target.getPeakBf16Gflops()
                                     : target.getPeakF32Gflops()) /
                 p.computeUnits;
  p.bytesPerNs = double(target.getMemGbps()) / p.computeUnits;
  p.slmBytes = target.getSlmBytes();

  Block &block = gemm.getEpilogueBlock();
  SmallVector<Operation *> ops;
  for (Operation &op : block.without_terminator())
    ops.push_back(&op);
  Value yielded = block.getTerminator()->getOperand(0);
  p.liveFragments = peakLiveFragments(ops, {gemm.getAccArgument()}, yielded);
  return p;
}

/// tile_k: one 64-byte row of each K slice for 16-bit operands (32, the DPAS
/// and mma.sync friendly size, two mma k-steps), 16 for wider ones. SIMT
/// kernels on Xe take 16: the register model counts their K-loop operands
/// per step of a slice (docs/Strategy.md, "Calibration").
int64_t getTileK(const Problem &p, TargetAttr target, KernelKind kind) {
  if (kind == KernelKind::Simt && target.isIntel())
    return 16;
  return p.operandBytes <= 2 ? 32 : 16;
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

int64_t slmBytes(const Problem &p, ArrayRef<int64_t> tile, int64_t stages) {
  return satMul(stages, satAdd(tile[0], tile[1]), tile[2], p.operandBytes);
}

/// Fills the occupancy, padding and time numbers of `c`.
void scoreTime(const Problem &p, Candidate &c) {
  int64_t tm = c.tile[0], tn = c.tile[1], tk = c.tile[2];
  int64_t tilesM = llvm::divideCeil(p.m, tm);
  int64_t tilesN = llvm::divideCeil(p.n, tn);
  // Shapes may be as large as 2^48 bytes per tensor: counts saturate, and
  // the rates and times are computed in double.
  c.tiles = satMul(tilesM, tilesN, p.batch);
  c.waves = llvm::divideCeil(c.tiles, p.computeUnits);
  c.waveFraction = double(c.tiles) / p.computeUnits;
  c.efficiency = double(c.tiles) / (double(c.waves) * p.computeUnits);
  c.useful =
      double(p.m) * double(p.n) / (double(tilesM) * tm * double(tilesN) * tn);
  // One tile on one compute unit: its share of the peak rate and of the
  // memory bandwidth; the A and B slices and the C tile cross memory once.
  double kPadded = double(llvm::divideCeil(p.k, tk)) * tk;
  double compute = 2.0 * tm * tn * kPadded / p.flopsPerNs;
  double memory = (double(tm + tn) * kPadded * p.operandBytes +
                   double(tm) * tn * p.resultBytes) /
                  p.bytesPerNs;
  c.computeBound = compute >= memory;
  c.time = c.waves * std::max(compute, memory);
  c.groupM = tilesM == 1 ? 1 : kGroupM;
}

std::string formatTile(ArrayRef<int64_t> v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(v, os);
  os << "]";
  return s;
}

/// The numbers of a decision, shared by chosen and hand-written configs.
std::string describe(const Candidate &c, const Problem &p) {
  return llvm::formatv(
      "tile {0}, subgroups {1}, group_m {2}, stages {3}, grf_mode {4}: "
      "{5} tiles on {6} compute units = {7:f2} waves, wave efficiency "
      "{8:f2}, useful work {9:f2}, model time {10} ns ({11} bound); "
      "{12} registers per thread (budget {13}); SLM {14} of {15} bytes",
      formatTile(c.tile), formatTile(c.subgroups), c.groupM, c.stages,
      c.grfMode, c.tiles, p.computeUnits, c.waveFraction, c.efficiency,
      c.useful, static_cast<int64_t>(std::llround(c.time)),
      c.computeBound ? "compute" : "memory", c.registers, c.budget, c.slm,
      p.slmBytes);
}

struct SelectStrategyPass final
    : xpu::impl::XPUSelectStrategyPassBase<SelectStrategyPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  KernelKind kernelKind = KernelKind::Matrix;
  /// Chooses and attaches a config; false when no candidate fits.
  bool select(GemmOp gemm, TargetAttr target);
  /// Verifies a hand-written config; false after an error.
  bool verifyHandConfig(GemmOp gemm, TargetAttr target);
  /// The operand type the register model sees: tf32 for f32 GEMMs that
  /// run on tensor cores.
  Type getModelOperandType(GemmOp gemm) {
    Type elt = gemm.getLhsType().getElementType();
    if (tf32 && elt.isF32())
      return FloatTF32Type::get(gemm.getContext());
    return elt;
  }
};

bool SelectStrategyPass::select(GemmOp gemm, TargetAttr target) {
  MLIRContext *ctx = gemm.getContext();
  Problem p = getProblem(gemm, target);
  SmallVector<int64_t, 3> mma = getMmaShape(target);
  LayoutRules rules = getLayoutRules(target);
  int64_t tk = getTileK(p, target, kernelKind);
  int64_t kStages = getStages(llvm::divideCeil(p.k, tk));

  std::optional<Candidate> best;
  int64_t considered = 0, overRegisters = 0, overSlm = 0;
  // sm_90a runs 16-bit GEMMs with wgmma: one or two warpgroups of 64 rows
  // and 64-column TMA boxes (convert-xpu-to-nvgpu), so only such tiles.
  bool wgmma = target.getChip() == "sm_90a" && p.operandBytes == 2;
  for (int64_t tm : kTileM) {
    for (int64_t tn : kTileN) {
      if (tm % mma[0] != 0 || tn % mma[1] != 0)
        continue;
      if (wgmma && ((tm != 64 && tm != 128) || tn % 64 != 0))
        continue;
      Candidate c;
      c.tile = {tm, tn, tk};
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
      ++considered;
      c.subgroups = {rows, cols};

      // SLM: lower the prefetch depth until the slices fit.
      c.stages = kStages;
      while (c.stages > 1 && slmBytes(p, c.tile, c.stages) > p.slmBytes)
        --c.stages;
      c.slm = slmBytes(p, c.tile, c.stages);
      if (c.slm > p.slmBytes) {
        ++overSlm;
        continue;
      }

      // Registers: 128-GRF mode if it fits, else 256 on Xe; the per-thread
      // limit elsewhere.
      c.grfMode = target.isIntel() ? 128 : 0;
      RegisterModel model = RegisterModel::get(
          target, c.toAttr(ctx), kernelKind, getModelOperandType(gemm));
      c.registers = model.estimate(p.liveFragments);
      c.registerTerms = model.describe(p.liveFragments);
      c.budget = model.budget;
      if (c.registers > c.budget && target.isIntel()) {
        c.grfMode = 256;
        c.budget = 256;
      }
      if (c.registers > c.budget) {
        ++overRegisters;
        continue;
      }

      scoreTime(p, c);
      // Fastest wins; candidates come largest-area first, so a tie keeps the
      // larger tile (more reuse per byte, fewer tiles); the grid order
      // then keeps the wider tile for equal areas.
      auto area = [](const Candidate &x) { return x.tile[0] * x.tile[1]; };
      bool better = !best || c.time < best->time * (1 - 1e-9) ||
                    (c.time <= best->time * (1 + 1e-9) &&
                     (area(c) > area(*best) ||
                      (area(c) == area(*best) && c.tile[1] > best->tile[1])));
      if (better)
        best = c;
    }
  }

  if (!best) {
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "NoConfig"))
        << remark::reason(
               "no config fits {0}: {1} candidates, {2} over the register "
               "budget ({3} live accumulator fragments in the epilogue), {4} "
               "over {5} bytes of SLM",
               target.getChip(), considered, overRegisters, p.liveFragments,
               overSlm, p.slmBytes);
    return false;
  }

  gemm.setConfigAttr(best->toAttr(ctx));
  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Selected"))
      << remark::reason("selected for {0}x{1}x{2}{3} (m x n x k) on {4}: {5}; "
                        "{6} of {7} candidates rejected ({8} registers, {9} "
                        "SLM)",
                        p.m, p.n, p.k,
                        p.batch > 1 ? llvm::formatv(" x {0}", p.batch).str()
                                    : std::string(),
                        target.getChip(), describe(*best, p),
                        overRegisters + overSlm, considered, overRegisters,
                        overSlm);
  if (best->grfMode == 256)
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "GRFMode"))
        << remark::reason(
               "256-GRF mode: estimated {0} registers per thread > 128 ({1})",
               best->registers, best->registerTerms);
  return true;
}

bool SelectStrategyPass::verifyHandConfig(GemmOp gemm, TargetAttr target) {
  ConfigAttr config = gemm.getConfigAttr();
  Problem p = getProblem(gemm, target);
  SmallVector<int64_t, 3> mma = getMmaShape(target);
  ArrayRef<int64_t> tile = config.getTile();
  ArrayRef<int64_t> sg = config.getSubgroups();
  int64_t lanes = target.getSubgroupSizes().front();

  auto fail = [&](const Twine &why) {
    gemm.emitError() << kPassArg << ": the config written by hand is invalid "
                     << "on " << target.getChip() << ": " << why;
    return false;
  };
  int64_t grfMode = config.getGrfMode();
  if (target.isIntel() && grfMode != 128 && grfMode != 256)
    return fail(llvm::formatv("grf_mode {0} is not a GRF mode of Xe (128 or "
                              "256)",
                              grfMode));
  if (!target.isIntel() && grfMode != 0)
    return fail(llvm::formatv("grf_mode {0}: the target has no GRF modes "
                              "(grf_mode must be 0)",
                              grfMode));
  int64_t blockM = tile[0] / sg[0], blockN = tile[1] / sg[1];
  if (blockM % mma[0] != 0 || blockN % mma[1] != 0 || tile[2] % mma[2] != 0)
    return fail(llvm::formatv(
        "subgroup block [{0}, {1}] and tile_k {2} are not multiples of the "
        "mma shape {3}",
        blockM, blockN, tile[2], formatTile(target.getMma())));
  int64_t subgroups = sg[0] * sg[1];
  if (subgroups * lanes > kMaxWorkItems)
    return fail(llvm::formatv("{0} subgroups of {1} lanes = {2} work-items > "
                              "{3} per workgroup",
                              subgroups, lanes, subgroups * lanes,
                              kMaxWorkItems));
  if (target.isIntel()) {
    int64_t threads = grfMode == 256 ? kXeThreads256 : kXeThreads128;
    if (subgroups > threads)
      return fail(llvm::formatv("{0} subgroups > {1} hardware threads of an "
                                "Xe-core in {2}-GRF mode",
                                subgroups, threads, grfMode));
  }
  Candidate c;
  c.tile.assign(tile.begin(), tile.end());
  c.subgroups.assign(sg.begin(), sg.end());
  c.stages = config.getStages();
  c.grfMode = grfMode;
  c.slm = slmBytes(p, tile, c.stages);
  if (c.slm > p.slmBytes)
    return fail(llvm::formatv("{0} stages x ({1} + {2}) x {3} x {4} bytes = "
                              "{5} bytes of SLM > {6}",
                              c.stages, tile[0], tile[1], tile[2],
                              p.operandBytes, c.slm, p.slmBytes));

  RegisterModel model =
      RegisterModel::get(target, config, kernelKind, getModelOperandType(gemm));
  c.registers = model.estimate(p.liveFragments);
  c.budget = model.budget;
  scoreTime(p, c);
  c.groupM = config.getGroupM();

  std::string schedule;
  if (config.getSchedule() != Schedule::data_parallel)
    schedule = llvm::formatv("; schedule {0} (the time is the data-parallel "
                             "model's)",
                             stringifySchedule(config.getSchedule()));
  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Kept"))
      << remark::reason("kept the config written by hand on {0}: {1}{2}",
                        target.getChip(), describe(c, p), schedule);
  if (c.registers > c.budget)
    remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "Spills"))
        << remark::reason(
               "the config written by hand needs an estimated {0} registers "
               "per thread > {1} ({2}): expect spills",
               c.registers, c.budget, model.describe(p.liveFragments));
  return true;
}

void SelectStrategyPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (kernel != "matrix" && kernel != "simt") {
    func.emitError() << kPassArg << ": unknown kernel '" << kernel
                     << "' (matrix or simt)";
    return signalPassFailure();
  }
  kernelKind = kernel == "simt" ? KernelKind::Simt : KernelKind::Matrix;
  FailureOr<TargetAttr> resolved = resolveTarget(func, defaultTarget, kPassArg);
  if (failed(resolved))
    return signalPassFailure();
  TargetAttr target = *resolved;

  bool failed = false;
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
        failed = true;
      return;
    }
    if (select(gemm, target))
      ++numSelected;
    else
      ++numSkipped;
  });
  if (failed)
    signalPassFailure();
}

} // namespace
