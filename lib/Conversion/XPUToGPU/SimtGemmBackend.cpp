//===- SimtGemmBackend.cpp - the SIMT GEMM backend ------------------------===//
//
// The rules of convert-xpu-to-gpu's SIMT kernels (SimtBackend.h) and
// GemmBackendAttrInterface on #xpu.simt: what the layers above ask of them.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GemmBackends.h"
#include "xpu/Conversion/XPUToGPU/SimtBackend.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/RegisterPressure.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::xpu;

/// The lanes of a subgroup over a `blockM x blockN` block in runs of
/// `vector` rows and columns: a split of `lanes` (powers of two) whose runs
/// tile the block, with the squarest micro-tile (the fewest shared-memory
/// loads per FMA) and then the most lanes along n; failure if none.
static FailureOr<SimtMicroTile> getVectorMicroTile(int64_t blockM,
                                                   int64_t blockN,
                                                   int64_t lanes,
                                                   int64_t vector) {
  std::optional<SimtMicroTile> best;
  for (int64_t lanesN = 1; lanesN <= lanes; lanesN *= 2) {
    int64_t lanesM = lanes / lanesN;
    if (lanes % lanesN != 0 || blockN % (lanesN * vector) != 0 ||
        blockM % (lanesM * vector) != 0)
      continue;
    SimtMicroTile t;
    t.lanesM = lanesM;
    t.lanesN = lanesN;
    t.rm = blockM / lanesM;
    t.rn = blockN / lanesN;
    if (!best || std::abs(t.rm - t.rn) <= std::abs(best->rm - best->rn))
      best = t;
  }
  if (!best)
    return failure();
  return *best;
}

FailureOr<SimtLayout> mlir::xpu::getSimtLayout(TargetAttr target,
                                               ConfigAttr config, int64_t lanes,
                                               std::string &why) {
  SimtLayout l;
  ArrayRef<int64_t> tile = config.getTile();
  ArrayRef<int64_t> sg = config.getSubgroups();
  l.tm = tile[0];
  l.tn = tile[1];
  l.tk = tile[2];
  l.sgRows = sg[0];
  l.sgCols = sg[1];
  l.lanes = lanes;
  l.buffers = config.getStages() >= 2 ? 2 : 1;
  if (auto simt = dyn_cast_if_present<SimtConfigAttr>(config.getBackend()))
    l.vector = simt.getVector();
  auto fail = [&](const Twine &reason) -> FailureOr<SimtLayout> {
    why = reason.str();
    return failure();
  };
  if (l.tm % l.sgRows != 0 || l.tn % l.sgCols != 0)
    return fail("the subgroup layout does not divide the tile");
  int64_t blockM = l.tm / l.sgRows, blockN = l.tn / l.sgCols;
  if (l.isVector()) {
    FailureOr<SimtMicroTile> t =
        getVectorMicroTile(blockM, blockN, l.lanes, l.vector);
    if (failed(t))
      return fail(llvm::formatv(
          "{0} lanes in runs of {1} rows and columns do not split a {2}x{3} "
          "subgroup block",
          l.lanes, l.vector, blockM, blockN));
    if (l.tk % l.vector != 0)
      return fail(llvm::formatv("tile_k {0} is not a multiple of the vector "
                                "width {1}",
                                l.tk, l.vector));
    l.lanesM = t->lanesM;
    l.lanesN = t->lanesN;
    l.rm = t->rm;
    l.rn = t->rn;
    l.vm = l.vn = l.vector;
  } else {
    SimtMicroTile t = getSimtMicroTile(blockM, blockN, l.lanes);
    if (l.lanes % t.lanesN != 0 || blockN % t.lanesN != 0 ||
        blockM % t.lanesM != 0)
      return fail(
          llvm::formatv("{0} lanes do not split a {1}x{2} subgroup block",
                        l.lanes, blockM, blockN));
    l.lanesM = t.lanesM;
    l.lanesN = t.lanesN;
    l.rm = t.rm;
    l.rn = t.rn;
    l.vm = l.rm;
    l.vn = 1;
  }
  if (l.rm * l.rn > kSimtMaxAccumulators)
    return fail(llvm::formatv("{0}x{1} accumulators per thread (at most {2})",
                              l.rm, l.rn, kSimtMaxAccumulators));
  if (l.threads() > target.getMaxWorkgroupSize())
    return fail(llvm::formatv("{0} threads per workgroup (at most {1})",
                              l.threads(), target.getMaxWorkgroupSize()));
  return l;
}

int64_t mlir::xpu::getSimtSlmBytes(ConfigAttr config, int64_t operandBytes) {
  ArrayRef<int64_t> tile = config.getTile();
  int64_t buffers = config.getStages() >= 2 ? 2 : 1;
  int64_t vector = 1;
  if (auto simt = dyn_cast_if_present<SimtConfigAttr>(config.getBackend()))
    vector = simt.getVector();
  int64_t pad = vector > 1 ? vector : 0;
  return buffers * (tile[0] + tile[1] + 2 * pad) * tile[2] * operandBytes;
}

namespace {
struct SimtGemmBackend final
    : GemmBackendAttrInterface::ExternalModel<SimtGemmBackend, SimtConfigAttr> {
  StringRef getBackendName(Attribute) const { return "simt"; }
  LogicalResult checkGemm(Attribute, GemmOp gemm, TargetAttr, std::string &,
                          Operation *&where) const {
    // Scalar code: every float type and epilogue the dialect allows.
    where = gemm;
    return success();
  }
  LogicalResult checkConfig(Attribute, TargetAttr target, ConfigAttr config,
                            int64_t operandBytes, std::string &why,
                            RhsLayout) const {
    auto fail = [&](const Twine &reason) {
      why = reason.str();
      return failure();
    };
    if (config.getBackend() && !isa<SimtConfigAttr>(config.getBackend()))
      return fail("the SIMT kernels take only #xpu.simt knobs");
    int64_t lanes = target.getSubgroupSizes().front();
    if (failed(getSimtLayout(target, config, lanes, why)))
      return failure();
    int64_t slm = getSimtSlmBytes(config, operandBytes);
    if (slm > target.getSlmBytes())
      return fail(llvm::formatv("{0} bytes of shared memory for the A and B "
                                "slices > {1}",
                                slm, target.getSlmBytes()));
    return success();
  }
  Type getOperandType(Attribute, GemmOp gemm) const {
    return gemm.getLhsType().getElementType();
  }
  // Row pitch, batch rows and buffer alignment: the interface's defaults
  // (the operands as they are, 64-byte buffers).
  int64_t getWorkgroupSlmBytes(Attribute, ConfigAttr config,
                               int64_t operandBytes) const {
    return getSimtSlmBytes(config, operandBytes);
  }
  LogicalResult materializeLayouts(Attribute, GemmOp gemm, TargetAttr,
                                   StringRef, LayoutRemarkFn remark) const {
    remark(gemm, "AsTheyAre",
           llvm::formatv("the SIMT kernels read the operands as they are "
                         "(rhs {0} transposed on the way into shared memory, "
                         "epilogue vectors read per row and column)",
                         stringifyRhsLayout(gemm.getRhsLayout())),
           /*changed=*/false);
    return success();
  }
  int64_t getResidentWorkgroups(Attribute, TargetAttr target, ConfigAttr config,
                                int64_t operandBytes) const {
    ArrayRef<int64_t> sg = config.getSubgroups();
    int64_t subgroups = sg[0] * sg[1];
    // Hardware threads (Xe: one per subgroup) or warps (NVIDIA) of one
    // compute unit.
    int64_t perUnit = 1;
    if (target.isIntel())
      perUnit = target.getThreadsPerUnit(config.getGrfMode()) / subgroups;
    else if (target.isNvidia())
      perUnit = target.getThreadsPerUnit() / subgroups;
    int64_t slm = getSimtSlmBytes(config, operandBytes);
    if (slm > 0)
      perUnit = std::min(perUnit, target.getSlmBytes() / slm);
    return target.getComputeUnits() * std::max<int64_t>(perUnit, 1);
  }

  // The strategy: every GEMM the matrix-unit backends leave.
  int64_t getAutoRank(Attribute) const { return 1; }
  Attribute getCandidateKnobs(Attribute attr, TargetAttr target, Type) const {
    // NVIDIA: runs of 4 (ld.shared.v4 and ld.global.v4; the scalar layout
    // issues a shared-memory load per FMA or two).
    if (target.isNvidia())
      return SimtConfigAttr::get(attr.getContext(), /*vector=*/4);
    return attr;
  }
  std::string describeKnobs(Attribute attr) const {
    int64_t vector = cast<SimtConfigAttr>(attr).getVector();
    return vector > 1 ? llvm::formatv(", vector {0}", vector).str()
                      : std::string();
  }
  bool takesGemm(Attribute, TargetAttr, Type, std::string &) const {
    return true;
  }
  int64_t getCandidateTileK(Attribute attr, TargetAttr target,
                            int64_t operandBytes) const {
    // On Xe the register model counts the K loop's operands per step of a
    // slice (docs/Strategy.md, "Calibration"): 16.
    if (target.isIntel())
      return 16;
    // Runs of 4 on NVIDIA: half the slice of the scalar layout, which keeps
    // a 64-accumulator kernel within 128 registers (two 256-thread
    // workgroups an SM; on an H100, 128x128x8 ran 5% faster than x16 at
    // 4096^3, docs/Performance.md).
    if (cast<SimtConfigAttr>(attr).getVector() > 1)
      return operandBytes <= 2 ? 16 : 8;
    return operandBytes <= 2 ? 32 : 16;
  }
  bool isCandidateTile(Attribute attr, int64_t tileM, int64_t tileN) const {
    // Runs of 4: tiles up to 128x128, 8 warps of 32x64 blocks at most (the
    // model prices larger compute-bound tiles alike; on an H100 128x128 ran
    // fastest, docs/Performance.md).
    if (cast<SimtConfigAttr>(attr).getVector() > 1)
      return tileM <= 128 && tileN <= 128;
    return true;
  }
  bool usesMatrixUnits(Attribute) const { return false; }
  int64_t getRegisterBudget(Attribute attr, TargetAttr target,
                            int64_t budget) const {
    // Runs of 4 on NVIDIA: at most 128 registers, two 256-thread workgroups
    // an SM (on an H100 a 128x256 tile, 207 registers, ran 5% slower than
    // 128x128 at 127, and 128x128x16 at 130 registers 18% slower).
    if (target.isNvidia() && cast<SimtConfigAttr>(attr).getVector() > 1)
      return std::min<int64_t>(budget, kSimtVectorRegisterBudget);
    // SIMT kernels carry no GRF mode: on Xe they run in the generic
    // kernels' mode (256 on pvc and bmg, xpu-embed-xe-build-options).
    if (target.isIntel())
      return std::max(budget, getGenericKernelGrfMode(target));
    return budget;
  }
  Attribute growRegisterFile(Attribute attr, TargetAttr target,
                             int64_t &budget) const {
    // Xe's 256-GRF mode, which the generic kernels get when one needs it.
    if (!target.isIntel())
      return {};
    budget = 256;
    return attr;
  }
};
} // namespace

void mlir::xpu::registerSimtGemmBackend(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, XPUDialect *dialect) {
    SimtConfigAttr::attachInterface<SimtGemmBackend>(*ctx);
    dialect->addGemmBackend(SimtConfigAttr::get(ctx));
  });
}
