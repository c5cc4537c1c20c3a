//===- RegisterPressure.cpp - register estimate of GEMM epilogues ---------===//

#include "xpu/Dialect/XPU/Utils/RegisterPressure.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/Utils/EpilogueUtils.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/SizeArithmetic.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::xpu;

RegisterModel RegisterModel::get(GemmOp gemm, TargetAttr target,
                                 KernelKind kind) {
  return get(target, gemm.getConfigAttr(), kind,
             gemm.getLhsType().getElementType());
}

RegisterModel RegisterModel::get(TargetAttr target, ConfigAttr config,
                                 KernelKind kind, Type operandType) {
  RegisterModel model;
  model.target = target;
  model.kind = kind;
  SmallVector<int64_t> tile, subgroups;
  // A config says which kernel computes the GEMM: a 16-bit GEMM with a
  // SIMT config (written by hand) runs SIMT kernels. Without one, the
  // backend the strategy would choose (chooseGemmBackend). On NVIDIA the
  // backend counts the K loop's operand fragments of a tensor-core kernel.
  GemmBackendAttrInterface backend;
  if (config) {
    backend = dyn_cast<GemmBackendAttrInterface>(getGemmBackendAttr(config));
    tile.assign(config.getTile().begin(), config.getTile().end());
    subgroups.assign(config.getSubgroups().begin(),
                     config.getSubgroups().end());
  } else if (operandType) {
    std::string taken, declined;
    backend = chooseGemmBackend(target, operandType, taken, declined);
  }
  bool matrix = backend && backend.usesMatrixUnits();
  if (!config && target.isNvidia() && matrix) {
    // 128x128 tiles on 8 warps, as the sm_90 strategy starts from.
    tile = {128, 128, 32};
    subgroups = {4, 2};
  } else if (!config && target.isNvidia()) {
    // SIMT kernels: 64x64 tiles on 8 warps (16 accumulators per thread),
    // a size the strategy can still choose with a few live epilogue values.
    tile = {64, 64, 16};
    subgroups = {4, 2};
  } else if (!config) {
    // 128x128 tiles on 32 subgroups of 16 lanes: the playbook's Xe default.
    tile = {128, 128, 32};
    subgroups = {8, 4};
  }
  std::optional<int64_t> fragments;
  if (backend && target.isNvidia())
    fragments =
        backend.getMatrixFragmentRegisters(tile, subgroups, operandType);
  bool tensorCore = fragments.has_value();
  int64_t lanes = target.getSubgroupSizes().front();
  int64_t threads = satMul(subgroups[0], subgroups[1], lanes);
  int64_t elementsPerLane = llvm::divideCeil(satMul(tile[0], tile[1]), threads);
  // A register holds grf_bytes; on Xe one hardware thread runs all lanes of
  // a subgroup, so a per-lane f32 value costs lanes * 4 bytes of its GRF.
  int64_t bytesPerElement = 4 * (target.isIntel() ? lanes : 1);
  model.fragmentRegisters = llvm::divideCeil(
      satMul(elementsPerLane, bytesPerElement), target.getGrfBytes());
  model.budget = target.getGrfCount();
  if (config && config.getGrfMode() != 0)
    model.budget = config.getGrfMode();
  // Addresses, indices and loop state; the A and B tiles are dead once the
  // K loop has finished and the epilogue runs.
  model.reserved = 16;
  if (kind == KernelKind::Simt && target.isIntel()) {
    // convert-xpu-to-gpu's micro-tile: the lanes of a subgroup split its
    // block along n first (at most `lanes` columns), then along m.
    int64_t blockM = llvm::divideCeil(tile[0], subgroups[0]);
    int64_t blockN = llvm::divideCeil(tile[1], subgroups[1]);
    SimtMicroTile microTile = getSimtMicroTile(blockM, blockN, lanes);
    int64_t rows = microTile.rm, cols = microTile.rn;
    model.elementRegisters =
        llvm::divideCeil(bytesPerElement, target.getGrfBytes());
    model.fragmentRegisters = satMul(rows, cols, model.elementRegisters);
    int64_t steps = llvm::divideCeil(satMul(3, tile[2]), 4);
    model.operandRegisters =
        satMul(steps, satAdd(rows, cols), model.elementRegisters);
    model.reserved = kSimtReserve;
  } else if (target.isNvidia()) {
    // Calibrated against ptxas -v on the kernels of the test suite
    // (scripts/calibrate-registers.py --vendor nvidia, the table in
    // docs/Strategy.md): the accumulators stay live through the epilogue;
    // the rest is addresses, indices, masks and loop state.
    int64_t accumulators = elementsPerLane;
    if (tensorCore) {
      // mma.sync: the K loop also holds the A and B fragments of two
      // k-steps (4 registers per 16 rows, 2 per 8 columns of the warp
      // block), and the epilogue runs on pairs of accumulators, so a live
      // epilogue value costs 2 registers.
      // 32 of addresses, indices, masks and loop state: within 4 of what
      // ptxas allocates for the large tiles, where the budget matters.
      // One-warp 16x16 tiles need about 10 more (their budget has a floor:
      // convert-xpu-to-nvgpu).
      model.reserved = 32 + accumulators + *fragments;
      model.fragmentRegisters = 2;
    } else if (isa_and_present<SimtConfigAttr>(backend) &&
               cast<SimtConfigAttr>(backend).getVector() > 1) {
      // SIMT in runs of `vector` (#xpu.simt<vector = V>), calibrated
      // against ptxas -v with tile_k 8 on 8 warps: 47, 66, 127 and 207
      // registers for 16, 32, 64 and 128 accumulators; about 12 + 1.75 per
      // accumulator (the next K-slice's reads, one K value's operands and
      // addresses grow with the micro-tile). The epilogue is applied to one
      // accumulator at a time, so a live epilogue value costs about a
      // register, not a micro-tile (a bias + GELU epilogue: 128 registers
      // with 64 accumulators).
      model.reserved = 12 + (7 * accumulators) / 4;
      model.fragmentRegisters = 1;
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
  if (elementRegisters == 0)
    return satAdd(reserved, satMul(peakLiveFragments, fragmentRegisters));
  // SIMT: the accumulators and the K loop's operands, or the epilogue's
  // values of one element next to the accumulators.
  return satAdd(
      satAdd(reserved, fragmentRegisters),
      std::max(operandRegisters, satMul(peakLiveFragments, elementRegisters)));
}

std::string RegisterModel::describe(int64_t peakLiveFragments) const {
  if (elementRegisters == 0)
    return llvm::formatv("{0} per accumulator fragment x {1} live + {2} "
                         "reserved",
                         fragmentRegisters, peakLiveFragments, reserved);
  return llvm::formatv("SIMT: {0} for the accumulators + max({1} for the K "
                       "loop's operands, {2} x {3} live in the epilogue) + "
                       "{4} reserved",
                       fragmentRegisters, operandRegisters, elementRegisters,
                       peakLiveFragments, reserved);
}

int64_t mlir::xpu::getGenericKernelGrfMode(TargetAttr target) {
  if (!target.isIntel())
    return 0;
  MLIRContext *ctx = target.getContext();
  auto smallest =
      ConfigAttr::get(ctx, {8, 16, 16}, /*groupM=*/1, {1, 1},
                      /*stages=*/1, ScheduleAttr::getDataParallel(ctx),
                      /*backend=*/Attribute());
  RegisterModel model = RegisterModel::get(target, smallest, KernelKind::Simt);
  return model.estimate(/*peakLiveFragments=*/1) > 128 ? 256 : 0;
}

int64_t mlir::xpu::peakLiveFragments(ArrayRef<Operation *> ops,
                                     ArrayRef<Value> accRoots, Value result,
                                     ArrayRef<Value> panels) {
  // Values that depend on the accumulator (or on a panel) are fragments:
  // one element per accumulator element the thread holds.
  llvm::DenseSet<Value> fragment(accRoots.begin(), accRoots.end());
  fragment.insert(panels.begin(), panels.end());
  // A panel is read before the first op that uses it; the device compiler
  // issues the load one op early to hide its latency (IGC does: a panel
  // read where it is needed still spilled when counted from there only).
  llvm::DenseMap<Value, int64_t> panelDef;
  for (Value v : panels)
    for (auto [i, op] : llvm::enumerate(ops))
      if (llvm::is_contained(op->getOperands(), v)) {
        panelDef[v] = static_cast<int64_t>(i) - 2;
        break;
      }
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
    if (auto it = panelDef.find(v); it != panelDef.end())
      return it->second;
    Operation *def = v.getDefiningOp();
    auto it = def ? llvm::find(ops, def) : ops.end();
    return it == ops.end() ? -1 : it - ops.begin();
  };
  int64_t peak = 0, transcendentals = 0;
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
    // Polynomial or library math needs one more temporary, and one more for
    // every transcendental op before it (calibrated against IGC).
    if (makesFragment && isTranscendental(op))
      live += ++transcendentals;
    peak = std::max(peak, live);
  }
  return std::max<int64_t>(peak, accRoots.empty() ? 0 : 1);
}
