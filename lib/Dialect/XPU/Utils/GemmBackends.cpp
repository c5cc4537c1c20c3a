//===- GemmBackends.cpp - what each GPU GEMM backend can run --------------===//

#include "xpu/Dialect/XPU/Utils/GemmBackends.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::xpu;

GemmBackend mlir::xpu::getGemmBackend(ConfigAttr config) {
  return config && config.getXe() ? GemmBackend::xe : GemmBackend::simt;
}

StringRef mlir::xpu::stringifyGemmBackend(GemmBackend backend) {
  switch (backend) {
  case GemmBackend::simt:
    return "simt";
  case GemmBackend::xe:
    return "xe";
  }
  llvm_unreachable("unknown GEMM backend");
}

std::optional<GemmBackend> mlir::xpu::symbolizeGemmBackend(StringRef name) {
  return llvm::StringSwitch<std::optional<GemmBackend>>(name)
      .Case("simt", GemmBackend::simt)
      .Case("xe", GemmBackend::xe)
      .Default(std::nullopt);
}

//===----------------------------------------------------------------------===//
// SIMT
//===----------------------------------------------------------------------===//

FailureOr<SimtLayout> mlir::xpu::getSimtLayout(ConfigAttr config, int64_t lanes,
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
  auto fail = [&](const Twine &reason) -> FailureOr<SimtLayout> {
    why = reason.str();
    return failure();
  };
  if (l.tm % l.sgRows != 0 || l.tn % l.sgCols != 0)
    return fail("the subgroup layout does not divide the tile");
  int64_t blockM = l.tm / l.sgRows, blockN = l.tn / l.sgCols;
  l.lanesN = std::min(l.lanes, blockN);
  if (l.lanes % l.lanesN != 0 || blockN % l.lanesN != 0)
    return fail(llvm::formatv("{0} lanes do not split a {1}x{2} subgroup block",
                              l.lanes, blockM, blockN));
  l.lanesM = l.lanes / l.lanesN;
  if (blockM % l.lanesM != 0)
    return fail(llvm::formatv("{0} lanes do not split a {1}x{2} subgroup block",
                              l.lanes, blockM, blockN));
  l.rm = blockM / l.lanesM;
  l.rn = blockN / l.lanesN;
  if (l.rm * l.rn > kSimtMaxAccumulators)
    return fail(llvm::formatv("{0}x{1} accumulators per thread (at most {2})",
                              l.rm, l.rn, kSimtMaxAccumulators));
  if (l.threads() > kMaxWorkgroupSize)
    return fail(llvm::formatv("{0} threads per workgroup (at most {1})",
                              l.threads(), kMaxWorkgroupSize));
  return l;
}

//===----------------------------------------------------------------------===//
// Xe
//===----------------------------------------------------------------------===//

bool xe::isDpasOperandType(Type t) { return t.isF16() || t.isBF16(); }

int64_t xe::getElementBytes(Type t) {
  return llvm::divideCeil(t.getIntOrFloatBitWidth(), 8);
}

int64_t xe::getLegalPitch(int64_t cols, Type elt) {
  int64_t bytes = getElementBytes(elt);
  return std::max<int64_t>(llvm::alignTo(cols, kPitchAlignBytes / bytes),
                           kMinPitchBytes / bytes);
}

int64_t xe::getBlockWidth(int64_t cols, Type elt) {
  // In elements (no byte products that could overflow): a multiple of 4
  // bytes, at least 64 bytes.
  int64_t bytes = getElementBytes(elt);
  int64_t align = std::max<int64_t>(1, kWidthAlignBytes / bytes);
  return std::max<int64_t>(llvm::alignTo(cols, align),
                           llvm::divideCeil(kMinWidthBytes, bytes));
}

int64_t xe::getBatchRows(int64_t rows, int64_t pitch, Type elt) {
  // Rows come in groups of 64 / gcd(row bytes, 64); only the row bytes
  // modulo 64 matter.
  int64_t rowBytes = (pitch % kBaseAlignment) * getElementBytes(elt);
  int64_t group = kBaseAlignment / std::gcd(rowBytes, kBaseAlignment);
  return llvm::alignTo(rows, group);
}

bool xe::isKernelType(Type t) {
  return t.isF32() || isDpasOperandType(t) ||
         (t.isSignlessInteger() && t.getIntOrFloatBitWidth() <= 32);
}

bool xe::isKernelResultType(Type t) { return isKernelType(t) && !t.isBF16(); }

bool xe::hasDeviceEpilogue(GemmOp gemm) {
  if (!isKernelResultType(gemm.getResultType().getElementType()))
    return false;
  for (Value operand : gemm.getEpilogueOperands())
    if (!isKernelType(getElementTypeOrSelf(operand.getType())))
      return false;
  WalkResult walk = gemm.getEpilogue().walk([](Operation *op) {
    for (Type t : op->getResultTypes())
      if (!isKernelResultType(t))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

Type xe::getDpasOperandType(GemmOp gemm) {
  Type lhsElt = gemm.getLhsType().getElementType();
  return isDpasOperandType(lhsElt) ? lhsElt
                                   : Type(BFloat16Type::get(gemm.getContext()));
}

/// Values an Xe epilogue may capture from above: scalar constants.
static bool isCapturable(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  return cst && cst.getType().isIntOrIndexOrFloat();
}

static LogicalResult checkXeGemm(GemmOp gemm, TargetAttr target,
                                 std::string &why, Operation *&where) {
  where = gemm;
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  if (!target.isIntel())
    return fail(llvm::formatv("the target '{0}' is not an Intel Xe target "
                              "(pvc, bmg)",
                              target.getChip()));
  if (!llvm::is_contained(target.getSubgroupSizes(), xe::kLanes) ||
      target.getMma() != ArrayRef<int64_t>{xe::kDpasM, xe::kDpasN, xe::kDpasK})
    return fail(llvm::formatv("the target '{0}' needs 16-lane subgroups and "
                              "an 8x16x16 DPAS",
                              target.getChip()));
  Type lhsElt = gemm.getLhsType().getElementType();
  if (!xe::isDpasOperandType(lhsElt) && !lhsElt.isF32())
    return fail(llvm::formatv("{0} operands: DPAS takes f16 or bf16 (f32 is "
                              "converted to bf16; run xpu-demote-f64 for f64)",
                              lhsElt));
  if (!gemm.getAccType().isF32())
    return fail(llvm::formatv("accumulator {0}: DPAS accumulates in f32",
                              gemm.getAccType()));
  if (!isa<FloatType>(gemm.getResultType().getElementType()))
    return fail(llvm::formatv("result element type {0} is not a float",
                              gemm.getResultType().getElementType()));
  Block &block = gemm.getEpilogueBlock();
  for (Operation &op : block.without_terminator()) {
    where = &op;
    // Scalar constants become splats of the accumulator's shape.
    if (isa<arith::ConstantOp>(op) && isCapturable(op.getResult(0)))
      continue;
    if (op.getNumRegions() != 0 || !op.hasTrait<OpTrait::Vectorizable>() ||
        op.getNumResults() != 1)
      return fail(llvm::formatv("epilogue op '{0}' is not an elementwise op "
                                "that can run on vectors",
                                op.getName()));
    for (Value v : op.getOperands())
      if (v.getParentRegion() != &gemm.getEpilogue() && !isCapturable(v))
        return fail("the epilogue uses a value defined outside the GEMM that "
                    "is not a scalar constant");
  }
  where = gemm;
  Value yielded = block.getTerminator()->getOperand(0);
  if (yielded.getParentRegion() != &gemm.getEpilogue() &&
      !isCapturable(yielded))
    return fail("the epilogue yields a value defined outside the GEMM that is "
                "not a scalar constant");
  return success();
}

//===----------------------------------------------------------------------===//
// Rules of every backend
//===----------------------------------------------------------------------===//

LogicalResult mlir::xpu::checkBackendGemm(GemmBackend backend, GemmOp gemm,
                                          TargetAttr target, std::string &why,
                                          Operation *&where) {
  switch (backend) {
  case GemmBackend::simt:
    // Scalar code: every float type and epilogue the dialect allows.
    where = gemm;
    return success();
  case GemmBackend::xe:
    return checkXeGemm(gemm, target, why, where);
  }
  llvm_unreachable("unknown GEMM backend");
}

LogicalResult mlir::xpu::checkBackendConfig(GemmBackend backend,
                                            TargetAttr target,
                                            ConfigAttr config,
                                            int64_t operandBytes,
                                            std::string &why) {
  ArrayRef<int64_t> tile = config.getTile();
  ArrayRef<int64_t> sg = config.getSubgroups();
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  switch (backend) {
  case GemmBackend::simt: {
    if (config.getBackend())
      return fail("the SIMT kernels take no backend sub-attribute");
    int64_t lanes = target.getSubgroupSizes().front();
    if (failed(getSimtLayout(config, lanes, why)))
      return failure();
    int64_t slm = getWorkgroupSlmBytes(backend, config, operandBytes);
    if (slm > target.getSlmBytes())
      return fail(llvm::formatv("{0} bytes of shared memory for the A and B "
                                "slices > {1}",
                                slm, target.getSlmBytes()));
    return success();
  }
  case GemmBackend::xe: {
    if (!target.isIntel())
      return fail(llvm::formatv("#xpu.xe knobs on the non-Intel target '{0}'",
                                target.getChip()));
    int64_t grfMode = config.getGrfMode();
    if (tile[0] % sg[0] != 0 || tile[1] % sg[1] != 0 ||
        (tile[0] / sg[0]) % xe::kDpasM != 0 ||
        (tile[1] / sg[1]) % xe::kDpasN != 0 || tile[2] % xe::kDpasK != 0)
      return fail(llvm::formatv(
          "tile [{0}, {1}, {2}] on subgroups [{3}, {4}]: each subgroup block "
          "must be a multiple of 8x16 and tile_k a multiple of 16 (DPAS)",
          tile[0], tile[1], tile[2], sg[0], sg[1]));
    int64_t subgroups = sg[0] * sg[1];
    if (subgroups * xe::kLanes > kMaxWorkgroupSize)
      return fail(llvm::formatv("{0} subgroups of 16 lanes exceed {1} "
                                "work-items per workgroup",
                                subgroups, kMaxWorkgroupSize));
    int64_t threads = grfMode == 256 ? xe::kThreads256 : xe::kThreads128;
    if (subgroups > threads)
      return fail(llvm::formatv("{0} subgroups > {1} hardware threads of an "
                                "Xe-core in {2}-GRF mode",
                                subgroups, threads, grfMode));
    return success();
  }
  }
  llvm_unreachable("unknown GEMM backend");
}

int64_t mlir::xpu::getBackendRowPitch(GemmBackend backend, int64_t cols,
                                      Type elt) {
  if (backend == GemmBackend::xe)
    return xe::getLegalPitch(cols, elt);
  return cols;
}

int64_t mlir::xpu::getBackendBatchRows(GemmBackend backend, int64_t rows,
                                       int64_t pitch, Type elt) {
  if (backend == GemmBackend::xe)
    return xe::getBatchRows(rows, pitch, elt);
  return rows;
}

int64_t mlir::xpu::getWorkgroupSlmBytes(GemmBackend backend, ConfigAttr config,
                                        int64_t operandBytes) {
  // The Xe kernels read A and B with 2D block loads straight into
  // registers; the SIMT kernels stage one or two slices.
  if (backend == GemmBackend::xe)
    return 0;
  ArrayRef<int64_t> tile = config.getTile();
  int64_t buffers = config.getStages() >= 2 ? 2 : 1;
  return buffers * (tile[0] + tile[1]) * tile[2] * operandBytes;
}

int64_t mlir::xpu::getResidentWorkgroups(GemmBackend backend, TargetAttr target,
                                         ConfigAttr config,
                                         int64_t operandBytes) {
  ArrayRef<int64_t> sg = config.getSubgroups();
  int64_t subgroups = sg[0] * sg[1];
  // Hardware threads (Xe: one per subgroup) or warps (NVIDIA: 64 per SM) of
  // one compute unit.
  int64_t perUnit = 1;
  if (target.isIntel())
    perUnit = (config.getGrfMode() == 256 ? xe::kThreads256 : xe::kThreads128) /
              subgroups;
  else if (target.isNvidia())
    perUnit = 64 / subgroups;
  int64_t slm = getWorkgroupSlmBytes(backend, config, operandBytes);
  if (slm > 0)
    perUnit = std::min(perUnit, target.getSlmBytes() / slm);
  return target.getComputeUnits() * std::max<int64_t>(perUnit, 1);
}
