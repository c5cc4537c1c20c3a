//===- SchedulePlan.cpp - programs, tiles and K ranges of a schedule ------===//

#include "xpu/Dialect/XPU/Utils/SchedulePlan.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::xpu;

/// Split tiles up to which the workspace slots are counted exactly.
static constexpr int64_t kCountPiecesLimit = 1 << 16;

int64_t SchedulePlan::getOwner(int64_t iter) const {
  int64_t q = itersPerProgram, r = extraIters;
  // Programs [0, r) take q + 1 K-steps, the others q.
  if (iter < r * (q + 1))
    return iter / (q + 1);
  return r + (iter - r * (q + 1)) / q;
}

int64_t SchedulePlan::getPieces(int64_t j) const {
  return getOwner((j + 1) * itersPerTile - 1) - getOwner(j * itersPerTile) + 1;
}

double SchedulePlan::getWaves(int64_t residentPrograms) const {
  return double(kind == Schedule::stream_k ? dpTiles : tiles) /
         double(residentPrograms);
}

FailureOr<SchedulePlan> mlir::xpu::planSchedule(ScheduleAttr schedule,
                                                ArrayRef<int64_t> dims,
                                                ArrayRef<int64_t> tile,
                                                int64_t defaultPrograms,
                                                std::string &why) {
  SchedulePlan plan;
  plan.kind = schedule.getKind();
  plan.fixup = schedule.getFixup();
  plan.tilesM = llvm::divideCeil(dims[1], tile[0]);
  plan.tilesN = llvm::divideCeil(dims[2], tile[1]);
  plan.itersPerTile = llvm::divideCeil(dims[3], tile[2]);
  std::optional<int64_t> tiles = llvm::checkedMul(plan.tilesM, plan.tilesN);
  if (tiles)
    tiles = llvm::checkedMul(*tiles, dims[0]);
  // Programs and tiles index the launch grid: keep them below 2^31.
  if (!tiles || *tiles > std::numeric_limits<int32_t>::max()) {
    why = "more than 2^31 - 1 tiles";
    return failure();
  }
  plan.tiles = *tiles;
  plan.dpTiles = plan.tiles;
  int64_t requested =
      schedule.getPrograms() > 0 ? schedule.getPrograms() : defaultPrograms;
  requested = std::max<int64_t>(requested, 1);
  switch (plan.kind) {
  case Schedule::data_parallel:
    plan.programs = plan.tiles;
    return plan;
  case Schedule::persistent:
    plan.programs = std::min(requested, plan.tiles);
    return plan;
  case Schedule::stream_k:
    break;
  }

  int64_t p = requested;
  plan.programs = p;
  int64_t rem = plan.tiles % p;
  plan.skTiles = rem;
  if (rem != 0 && plan.tiles - rem > p)
    plan.skTiles += p;
  plan.dpTiles = plan.tiles - plan.skTiles;
  if (plan.skTiles == 0)
    return plan;
  std::optional<int64_t> iters =
      llvm::checkedMul(plan.skTiles, plan.itersPerTile);
  if (!iters) {
    why = "the split K-steps overflow";
    return failure();
  }
  plan.skIters = *iters;
  plan.itersPerProgram = plan.skIters / p;
  plan.extraIters = plan.skIters % p;
  if (plan.fixup == Fixup::atomic) {
    plan.slotsPerTile = 1;
  } else {
    // Programs take q or q + 1 K-steps, so I consecutive K-steps meet at
    // most ceil((I - 1) / q) + 1 programs (I when q = 0: one K-step each).
    int64_t q = plan.itersPerProgram, i = plan.itersPerTile;
    plan.slotsPerTile =
        q == 0 ? i : std::min<int64_t>(p, llvm::divideCeil(i - 1, q) + 1);
    // The exact maximum when the split tiles are few enough to count (the
    // bound is loose when the programs' ranges align with the tiles).
    if (plan.skTiles <= kCountPiecesLimit) {
      int64_t most = 1;
      for (int64_t j = 0; j < plan.skTiles; ++j)
        most = std::max(most, plan.getPieces(j));
      plan.slotsPerTile = most;
    }
  }
  if (!llvm::checkedMul(plan.skTiles, plan.slotsPerTile)) {
    why = "the workspace slots overflow";
    return failure();
  }
  return plan;
}

std::string mlir::xpu::formatSchedule(ScheduleAttr schedule) {
  std::string s = stringifySchedule(schedule.getKind()).str();
  SmallVector<std::string> fields;
  if (schedule.getPrograms() != 0)
    fields.push_back(
        llvm::formatv("programs = {0}", schedule.getPrograms()).str());
  if (schedule.getFixup() != Fixup::deterministic)
    fields.push_back(("fixup = " + stringifyFixup(schedule.getFixup())).str());
  if (fields.empty())
    return s;
  return s + "<" + llvm::join(fields, ", ") + ">";
}

std::string mlir::xpu::describeSchedulePlan(const SchedulePlan &plan) {
  auto share = [](int64_t work, int64_t workers, StringRef what) {
    int64_t low = work / workers, high = llvm::divideCeil(work, workers);
    if (low == high)
      return llvm::formatv("{0} {1} per program", low, what).str();
    return llvm::formatv("{0} or {1} {2} per program", low, high, what).str();
  };
  switch (plan.kind) {
  case Schedule::data_parallel:
    return llvm::formatv("data_parallel: {0} tiles, one program each",
                         plan.tiles);
  case Schedule::persistent:
    return llvm::formatv("persistent: {0} tiles on {1} programs ({2})",
                         plan.tiles, plan.programs,
                         share(plan.tiles, plan.programs, "tiles"));
  case Schedule::stream_k:
    break;
  }
  if (plan.skTiles == 0)
    return llvm::formatv("stream_k: {0} tiles on {1} programs: all "
                         "data-parallel ({2} whole waves, nothing to split)",
                         plan.tiles, plan.programs, plan.tiles / plan.programs);
  std::string pieces =
      plan.fixup == Fixup::atomic
          ? std::string("pieces added with atomics into one zeroed slot per "
                        "tile")
          : llvm::formatv("at most {0} pieces per tile, each in its own "
                          "workspace slot, summed in program order",
                          plan.slotsPerTile)
                .str();
  return llvm::formatv("stream_k: {0} tiles on {1} programs: {2} "
                       "data-parallel, {3} split into {4} K-steps of {5} "
                       "({6}), {7}; {3} fix-up programs",
                       plan.tiles, plan.programs, plan.dpTiles, plan.skTiles,
                       plan.skIters, plan.itersPerTile,
                       share(plan.skIters, plan.programs, "K-steps"), pieces);
}
