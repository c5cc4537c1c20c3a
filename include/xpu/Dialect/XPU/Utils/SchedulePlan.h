//===- SchedulePlan.h - programs, tiles and K ranges of a schedule -*- C++ -*-//
//
// The arithmetic of the GEMM schedules (catalog: persistent_kernel_patterns),
// shared by the strategy's cost model (which scores it) and
// xpu-schedule-gemm (which builds it in IR), so that both agree on every
// count. docs/Strategy.md gives the formulas.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_SCHEDULEPLAN_H
#define XPU_DIALECT_XPU_UTILS_SCHEDULEPLAN_H

#include "xpu/Dialect/XPU/IR/XPUAttrs.h"

#include "mlir/Support/LLVM.h"

#include <string>

namespace mlir::xpu {

/// How the tiles of one GEMM map to programs.
///
/// Tiles are numbered `t in [0, tiles)` over (batch, tile row, tile column)
/// in the GROUP_SIZE_M order; a tile has `itersPerTile` K-steps.
///
/// * data_parallel: `programs = tiles`, program `p` computes tile `p`.
/// * persistent: `programs = min(P, tiles)`, program `p` computes tiles
///   `p, p + programs, ...`.
/// * stream_k (streamk_two_wave_decomposition): with `rem = tiles mod P`,
///   the last `skTiles` tiles are split (`rem`, plus one more wave of `P`
///   tiles when at least two full waves precede them; none when `rem` is 0)
///   and the first `dpTiles` are data-parallel over the `P` programs as in
///   the persistent schedule. The `skIters = skTiles * itersPerTile` K-steps
///   of the split tiles are dealt out evenly (streamk_iteration_distribution):
///   program `p` takes `q = skIters / P` of them, one more when `p < r =
///   skIters mod P`, starting at `p * q + min(p, r)`. A split tile's pieces
///   go to workspace slots and `skTiles` fix-up programs complete them.
struct SchedulePlan {
  Schedule kind = Schedule::data_parallel;
  Fixup fixup = Fixup::deterministic;
  int64_t tilesM = 0, tilesN = 0, tiles = 0;
  int64_t itersPerTile = 0;
  /// Programs (workgroups) of the main kernel.
  int64_t programs = 0;
  /// Stream-K: tiles computed whole, tiles split, and the split K-steps.
  int64_t dpTiles = 0, skTiles = 0, skIters = 0;
  /// K-steps per program (`q`) and programs with one more (`r`).
  int64_t itersPerProgram = 0, extraIters = 0;
  /// Pieces one split tile can have at most: workspace slots per split tile
  /// in the deterministic fix-up (1 with atomics).
  int64_t slotsPerTile = 0;

  int64_t getWorkspaceSlots() const { return skTiles * slotsPerTile; }
  /// The program that computes split K-step `iter`.
  int64_t getOwner(int64_t iter) const;
  /// Pieces (programs) of split tile `j` (0-based among the split tiles).
  int64_t getPieces(int64_t j) const;
  /// Full waves of the main kernel's data-parallel part, as a fraction.
  double getWaves(int64_t residentPrograms) const;
};

/// Plans `schedule` for a GEMM of `dims = [batch, m, n, k]` with workgroup
/// tile `tile = [tm, tn, tk]`; a schedule without a program count uses
/// `defaultPrograms` (the workgroups the target runs at once). Fails, with
/// the reason, when a count overflows.
FailureOr<SchedulePlan> planSchedule(ScheduleAttr schedule,
                                     ArrayRef<int64_t> dims,
                                     ArrayRef<int64_t> tile,
                                     int64_t defaultPrograms, std::string &why);

/// The schedule as `#xpu.config` spells it: `data_parallel`,
/// `persistent<programs = 256>`, `stream_k<programs = 128, fixup = atomic>`.
std::string formatSchedule(ScheduleAttr schedule);

/// One line for remarks: "stream_k: 6 tiles on 4 programs: 4 data-parallel
/// (1 wave), 2 split into 8 K-steps (2 per program), at most 2 pieces per
/// tile, 2 fix-up programs".
std::string describeSchedulePlan(const SchedulePlan &plan);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_SCHEDULEPLAN_H
