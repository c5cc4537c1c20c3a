//===- RegisterPressure.cpp - register estimate of GEMM epilogues ---------===//

#include "xpu/Dialect/XPU/Utils/RegisterPressure.h"
#include "xpu/Dialect/XPU/Utils/EpilogueUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::xpu;

RegisterModel RegisterModel::get(GemmOp gemm, TargetAttr target) {
  return get(target, gemm.getConfigAttr(), gemm.getLhsType().getElementType());
}

RegisterModel RegisterModel::get(TargetAttr target, ConfigAttr config,
                                 Type operandType) {
  RegisterModel model;
  model.target = target;
  SmallVector<int64_t> tile, subgroups;
  bool tensorCore =
      operandType &&
      (operandType.getIntOrFloatBitWidth() == 16 || operandType.isTF32());
  if (config) {
    tile.assign(config.getTile().begin(), config.getTile().end());
    subgroups.assign(config.getSubgroups().begin(),
                     config.getSubgroups().end());
  } else if (target.isNvidia() && (tensorCore || !operandType)) {
    // 128x128 tiles on 8 warps, as the sm_90 strategy starts from.
    tile = {128, 128, 32};
    subgroups = {4, 2};
  } else if (target.isNvidia()) {
    // SIMT kernels: 64x64 tiles on 8 warps (16 accumulators per thread),
    // a size the strategy can still choose with a few live epilogue values.
    tile = {64, 64, 16};
    subgroups = {4, 2};
  } else {
    // 128x128 tiles on 32 subgroups of 16 lanes: the playbook's Xe default.
    tile = {128, 128, 32};
    subgroups = {8, 4};
  }
  int64_t lanes = target.getSubgroupSizes().front();
  int64_t threads = subgroups[0] * subgroups[1] * lanes;
  int64_t elementsPerLane = llvm::divideCeil(tile[0] * tile[1], threads);
  // A register holds grf_bytes; on Xe one hardware thread runs all lanes of
  // a subgroup, so a per-lane f32 value costs lanes * 4 bytes of its GRF.
  int64_t bytesPerThread = elementsPerLane * 4 * (target.isIntel() ? lanes : 1);
  model.fragmentRegisters =
      llvm::divideCeil(bytesPerThread, target.getGrfBytes());
  model.budget = target.getGrfCount();
  if (config && config.getGrfMode() != 0)
    model.budget = config.getGrfMode();
  // Addresses, indices and loop state; the A and B tiles are dead once the
  // K loop has finished and the epilogue runs.
  model.reserved = 16;
  if (target.isNvidia()) {
    // Calibrated against ptxas -v on the kernels of the test suite
    // (test/Conversion/XPUToNVGPU/ptxas-*.test): the accumulators stay
    // live through the epilogue; 32 registers of addresses, indices and
    // loop state.
    int64_t accumulators = elementsPerLane;
    if (tensorCore) {
      // mma.sync: the K loop also holds the A and B fragments of two
      // k-steps (4 registers per 16 rows, 2 per 8 columns of the warp
      // block), and the epilogue runs on pairs of accumulators, so a live
      // epilogue value costs 2 registers.
      int64_t warpM = llvm::divideCeil(tile[0], subgroups[0]);
      int64_t warpN = llvm::divideCeil(tile[1], subgroups[1]);
      // tf32 B fragments of a [k, n] B are loaded one 32-bit element at a
      // time (ldmatrix cannot transpose them): count their addresses too.
      int64_t perBTile = operandType.isTF32() ? 4 : 2;
      int64_t fragments = 2 * (4 * llvm::divideCeil(warpM, 16) +
                               perBTile * llvm::divideCeil(warpN, 8));
      model.reserved = 32 + accumulators + fragments;
      model.fragmentRegisters = 2;
    } else {
      // SIMT (convert-xpu-to-gpu): ptxas keeps about five registers per
      // accumulator for the unrolled K-step (231 for 32 accumulators, and
      // 64 spill), plus a micro-tile per live epilogue value.
      model.reserved = 40 + 5 * accumulators;
      model.fragmentRegisters = accumulators;
    }
  }
  return model;
}

int64_t RegisterModel::estimate(int64_t peakLiveFragments) const {
  return reserved + peakLiveFragments * fragmentRegisters;
}

int64_t mlir::xpu::peakLiveFragments(ArrayRef<Operation *> ops,
                                     ArrayRef<Value> accRoots, Value result) {
  // Values that depend on the accumulator are fragments: one element per
  // accumulator element the thread holds.
  llvm::DenseSet<Value> fragment(accRoots.begin(), accRoots.end());
  for (Operation *op : ops)
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return fragment.contains(v); }))
      for (Value r : op->getResults())
        fragment.insert(r);
  // Last position each fragment is needed at (ops.size() = the yield).
  llvm::DenseMap<Value, int64_t> lastUse;
  for (auto [i, op] : llvm::enumerate(ops))
    for (Value v : op->getOperands())
      if (fragment.contains(v))
        lastUse[v] = i;
  if (result && fragment.contains(result))
    lastUse[result] = ops.size();
  auto indexOf = [&](Value v) -> int64_t {
    Operation *def = v.getDefiningOp();
    auto it = def ? llvm::find(ops, def) : ops.end();
    return it == ops.end() ? -1 : it - ops.begin();
  };
  int64_t peak = 0;
  for (auto [i, op] : llvm::enumerate(ops)) {
    int64_t pos = i;
    // Fragments that stay live across op i, and those op i reads for the
    // last time (their registers can hold its result).
    int64_t through = 0, dying = 0;
    for (Value v : fragment) {
      auto it = lastUse.find(v);
      if (it == lastUse.end() || indexOf(v) >= pos || it->second < pos)
        continue;
      if (it->second > pos)
        ++through;
      else
        ++dying;
    }
    bool makesFragment = llvm::any_of(
        op->getResults(), [&](Value r) { return fragment.contains(r); });
    int64_t live = through + std::max<int64_t>(dying, makesFragment ? 1 : 0);
    // Polynomial or library math needs one more temporary.
    if (makesFragment && isTranscendental(op))
      ++live;
    peak = std::max(peak, live);
  }
  return std::max<int64_t>(peak, accRoots.empty() ? 0 : 1);
}
