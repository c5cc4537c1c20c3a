//===- StrategyModel.h - candidates, validity and cost of configs -*- C++ -*-=//
//
// The cost model of xpu-select-strategy as three steps a tuner can call on
// its own (docs/Strategy.md gives every formula and constant):
//
//   1. enumerateTileCandidates: the workgroup tiles, subgroup layouts,
//      tile_k and prefetch depth the strategy considers for a GEMM;
//   2. checkTileCandidate: whether a backend can run one (shared memory,
//      the register estimate and register file, then the backend's own
//      rules, asked through GemmBackendAttrInterface);
//   3. scoreDataParallel / scoreSchedule: the modeled time of a candidate
//      under the data-parallel, persistent or Stream-K schedule
//      (SchedulePlan.h), and chooseSchedule, the schedule the model
//      prefers.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_STRATEGYMODEL_H
#define XPU_DIALECT_XPU_UTILS_STRATEGYMODEL_H

#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Utils/SchedulePlan.h"

#include <string>

namespace mlir::xpu {

/// Problem and target numbers shared by every candidate of one GEMM.
struct GemmProblem {
  /// The rows a dynamic m is modeled with: a batch of that many rows is
  /// where the tile choice matters (the kernels read the real m at run
  /// time).
  static constexpr int64_t kDynamicRowsModel = 1024;

  int64_t batch = 1, m = 0, n = 0, k = 0;
  /// Bytes of the operands as the backend reads them, and of the result.
  int64_t operandBytes = 4, resultBytes = 4;
  /// The operand element type the register model sees: the lhs type, or
  /// tf32 for f32 GEMMs that NVIDIA runs on tensor cores (the caller sets
  /// it; RegisterModel::get).
  Type operandType;
  /// Peak rate (GFLOP/s = FLOP/ns) and bandwidth (GB/s = B/ns) of one
  /// compute unit.
  double flopsPerNs = 0, bytesPerNs = 0;
  int64_t computeUnits = 1;
  int64_t slmBytes = 0;
  /// Peak accumulator-dependent values live in the epilogue.
  int64_t liveFragments = 1;

  /// The numbers of `gemm` for the candidates of `backend` (which says
  /// how its kernels read the epilogue operands).
  static GemmProblem get(GemmOp gemm, TargetAttr target,
                         GemmBackendAttrInterface backend);
};

/// Constants of the time model a tuner may change (docs/Strategy.md).
struct CostParams {
  /// One kernel launch, host to device (ns).
  double launchNs = 5000;
  /// Starting one workgroup: dispatch, prologue and the epilogue operand
  /// loads a persistent program does once (ns). An assumption to calibrate
  /// on the device.
  double workgroupNs = 1000;
  /// Stream-K is considered when the last data-parallel wave leaves more
  /// than this fraction of the machine idle.
  double streamKThreshold = 0.2;
  /// Why Stream-K is not chosen for the candidate's knobs even where it
  /// models faster (GemmBackendAttrInterface::choosesStreamK); empty when
  /// it may be.
  std::string streamKVeto;
  /// Persistent is chosen when it models at least this much faster and the
  /// grid has at least `persistentMinWaves` waves.
  double persistentGain = 0.1;
  int64_t persistentMinWaves = 4;
};

/// One configuration with its numbers.
struct TileCandidate {
  SmallVector<int64_t, 3> tile;
  SmallVector<int64_t, 2> subgroups;
  int64_t stages = 1;
  int64_t groupM = 1;
  /// The backend and its knobs (#xpu.simt, #xpu.xe<grf_mode = 128>,
  /// #xpu.nvgpu<...>, ...): the attribute the backend's answers come from.
  GemmBackendAttrInterface knobs;
  ScheduleAttr schedule;
  // Registers.
  int64_t registers = 0, budget = 0;
  /// How the register model got `registers` (RegisterModel::describe).
  std::string registerTerms;
  // Shared memory (the model's: stages slices).
  int64_t slm = 0;
  // Data-parallel occupancy and time.
  int64_t tiles = 0, waves = 0;
  double waveFraction = 0, efficiency = 0, useful = 0, time = 0;
  /// Time of one whole tile on one compute unit (ns).
  double tileTime = 0;
  bool computeBound = false;

  /// The config this candidate stands for.
  ConfigAttr toAttr(MLIRContext *ctx) const;
  /// The candidate of a config (tile, subgroups, stages, schedule, backend
  /// knobs); the config's backend must be registered (lookupGemmBackend).
  static TileCandidate fromAttr(ConfigAttr config);
};

/// Step 1: the candidates of the tile grid `{256, ..., 8} x {256, ..., 16}`
/// whose sizes and subgroup blocks are multiples of the target's mma shape.
/// `knobs` are the backend's knobs the candidates start from
/// (GemmBackendAttrInterface::getCandidateKnobs): they say tile_k, the
/// tiles the backend computes and its fewest stages.
SmallVector<TileCandidate>
enumerateTileCandidates(const GemmProblem &problem, TargetAttr target,
                        GemmBackendAttrInterface knobs);

/// Why a candidate was rejected.
enum class Rejection { none, slm, registers, backend };

/// Step 2: fits the candidate's stages into shared memory (lowering them),
/// grows the register file when the estimate needs it and the backend has
/// a larger one (Xe's 256-GRF mode), and applies the backend's rules. `why`
/// says why not. With `keepStagesAndGrf` (a config written by hand) nothing is
/// changed, the register estimate is only reported.
Rejection checkTileCandidate(const GemmProblem &problem, TargetAttr target,
                             TileCandidate &c, bool keepStagesAndGrf,
                             std::string &why);

/// Step 3: occupancy, padding and the data-parallel time of `c`.
void scoreDataParallel(const GemmProblem &problem, TileCandidate &c);

/// The modeled time of `c` under a schedule.
struct ScheduleScore {
  SchedulePlan plan;
  /// Workgroups the target runs at once (the default program count).
  int64_t resident = 0;
  double time = 0, efficiency = 0;
};
FailureOr<ScheduleScore>
scoreSchedule(const GemmProblem &problem, TargetAttr target,
              const TileCandidate &c, ScheduleAttr schedule,
              const CostParams &params, std::string &why);

/// scoreSchedule, and when `schedule` has no program count (0), the count
/// the model finds fastest among 1, 2, 4 and 8 workgroups per compute unit
/// and all the workgroups the target runs at once (a tuned count,
/// persistent_kernel_autotuned_num_progs; never simply the core count).
FailureOr<ScheduleScore>
scoreScheduleWithBestPrograms(const GemmProblem &problem, TargetAttr target,
                              const TileCandidate &c, ScheduleAttr schedule,
                              const CostParams &params, std::string &why);

/// The schedule the model prefers for `c` (data-parallel unless Stream-K or
/// persistent pass the thresholds of `params` and model faster), with the
/// score of the data-parallel schedule and of the chosen one. `programs`
/// (0: resident workgroups) and `fixup` parameterize the others.
struct ScheduleChoice {
  ScheduleAttr schedule;
  ScheduleScore dataParallel, chosen;
  /// Why the data-parallel schedule was kept, when it was.
  std::string reason;
};
ScheduleChoice chooseSchedule(const GemmProblem &problem, TargetAttr target,
                              const TileCandidate &c, int64_t programs,
                              Fixup fixup, const CostParams &params);

/// "tile [..], subgroups [..], group_m G, stages S[, grf_mode R]: T tiles on
/// C compute units = W waves, ...": the numbers of a decision.
std::string describeCandidate(const TileCandidate &c,
                              const GemmProblem &problem);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_STRATEGYMODEL_H
