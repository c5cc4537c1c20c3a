//===- GemmBackends.cpp - what each GPU GEMM backend can run --------------===//

#include "xpu/Dialect/XPU/Utils/GemmBackends.h"
#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Dialect/XPU/Utils/SizeArithmetic.h"

#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::xpu;

GemmBackend mlir::xpu::getGemmBackend(ConfigAttr config) {
  if (config && config.getXe())
    return GemmBackend::xe;
  if (config && config.getNVGPU())
    return GemmBackend::nvgpu;
  return GemmBackend::simt;
}

StringRef mlir::xpu::stringifyGemmBackend(GemmBackend backend) {
  switch (backend) {
  case GemmBackend::simt:
    return "simt";
  case GemmBackend::xe:
    return "xe";
  case GemmBackend::nvgpu:
    return "nvgpu";
  }
  llvm_unreachable("unknown GEMM backend");
}

std::optional<GemmBackend> mlir::xpu::symbolizeGemmBackend(StringRef name) {
  return llvm::StringSwitch<std::optional<GemmBackend>>(name)
      .Case("simt", GemmBackend::simt)
      .Case("xe", GemmBackend::xe)
      .Case("nvgpu", GemmBackend::nvgpu)
      .Default(std::nullopt);
}

//===----------------------------------------------------------------------===//
// SIMT
//===----------------------------------------------------------------------===//

SimtMicroTile mlir::xpu::getSimtMicroTile(int64_t blockM, int64_t blockN,
                                          int64_t lanes) {
  SimtMicroTile t;
  t.lanesN = std::max<int64_t>(1, std::min(lanes, blockN));
  t.lanesM = std::max<int64_t>(1, lanes / t.lanesN);
  t.rm = llvm::divideCeil(blockM, t.lanesM);
  t.rn = llvm::divideCeil(blockN, t.lanesN);
  return t;
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
  auto fail = [&](const Twine &reason) -> FailureOr<SimtLayout> {
    why = reason.str();
    return failure();
  };
  if (l.tm % l.sgRows != 0 || l.tn % l.sgCols != 0)
    return fail("the subgroup layout does not divide the tile");
  int64_t blockM = l.tm / l.sgRows, blockN = l.tn / l.sgCols;
  SimtMicroTile t = getSimtMicroTile(blockM, blockN, l.lanes);
  if (l.lanes % t.lanesN != 0 || blockN % t.lanesN != 0 ||
      blockM % t.lanesM != 0)
    return fail(llvm::formatv("{0} lanes do not split a {1}x{2} subgroup block",
                              l.lanes, blockM, blockN));
  l.lanesM = t.lanesM;
  l.lanesN = t.lanesN;
  l.rm = t.rm;
  l.rn = t.rn;
  if (l.rm * l.rn > kSimtMaxAccumulators)
    return fail(llvm::formatv("{0}x{1} accumulators per thread (at most {2})",
                              l.rm, l.rn, kSimtMaxAccumulators));
  if (l.threads() > target.getMaxWorkgroupSize())
    return fail(llvm::formatv("{0} threads per workgroup (at most {1})",
                              l.threads(), target.getMaxWorkgroupSize()));
  return l;
}

//===----------------------------------------------------------------------===//
// Xe
//===----------------------------------------------------------------------===//

bool xe::isDpasOperandType(Type t) { return t.isF16() || t.isBF16(); }

int64_t xe::getElementBytes(Type t) {
  return llvm::divideCeil(t.getIntOrFloatBitWidth(), 8);
}

int64_t xe::getLegalPitch(TargetAttr target, int64_t cols, Type elt) {
  int64_t bytes = getElementBytes(elt);
  return std::max<int64_t>(
      llvm::alignTo(cols, target.getBlock2dPitchAlign() / bytes),
      target.getBlock2dMinPitch() / bytes);
}

int64_t xe::getBlockWidth(TargetAttr target, int64_t cols, Type elt) {
  // In elements (no byte products that could overflow): a multiple of the
  // width alignment (4 bytes), at least the minimum width (64 bytes).
  int64_t bytes = getElementBytes(elt);
  int64_t align = std::max<int64_t>(1, target.getBlock2dWidthAlign() / bytes);
  return std::max<int64_t>(
      llvm::alignTo(cols, align),
      llvm::divideCeil(target.getBlock2dMinWidth(), bytes));
}

int64_t xe::getBatchRows(TargetAttr target, int64_t rows, int64_t pitch,
                         Type elt) {
  // Rows come in groups of base / gcd(row bytes, base); only the row bytes
  // modulo the base alignment matter.
  int64_t base = target.getBlock2dBaseAlign();
  int64_t rowBytes = (pitch % base) * getElementBytes(elt);
  int64_t group = base / std::gcd(rowBytes, base);
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
  if (!target.isIntel() || !target.hasDpas() || !target.hasBlock2d())
    return fail(llvm::formatv(
        "the target '{0}' is not an Intel Xe target ({1})", target.getChip(),
        llvm::join(listPresets([](const TargetPreset &p) {
                     return p.dpas && !p.block2d.empty();
                   }),
                   ", ")));
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
// NVIDIA tensor cores
//===----------------------------------------------------------------------===//

bool nvidia::isTensorCoreType(Type t) { return t.isBF16() || t.isF16(); }

bool nvidia::isKernelScalarType(Type t) {
  return t.isF64() || t.isF32() || t.isF16() || t.isBF16() ||
         (t.isSignlessInteger() && t.getIntOrFloatBitWidth() <= 64);
}

NVGPUMma nvidia::getPreferredMma(TargetAttr target, int64_t operandBytes) {
  return target.hasWgmma() && operandBytes == 2 ? NVGPUMma::wgmma
                                                : NVGPUMma::mma_sync;
}

int64_t nvidia::getOperandPitch(int64_t cols, Type elt, NVGPUMma mma) {
  int64_t bytes = xe::getElementBytes(elt);
  int64_t chunk = std::max<int64_t>(1, kChunkBytes / bytes);
  if (cols % chunk == 0)
    return cols;
  int64_t align = mma == NVGPUMma::wgmma ? kTmaRowBytes / bytes : chunk;
  return llvm::alignTo(cols, align);
}

int64_t nvidia::getMmaSyncFragmentRegisters(int64_t warpM, int64_t warpN,
                                            int64_t bRegistersPer8Cols) {
  return 2 * (4 * llvm::divideCeil(warpM, 16) +
              bRegistersPer8Cols * llvm::divideCeil(warpN, 8));
}

int64_t nvidia::getMmaSyncFragmentRegisters(ArrayRef<int64_t> tile,
                                            ArrayRef<int64_t> subgroups,
                                            Type operandType) {
  return getMmaSyncFragmentRegisters(llvm::divideCeil(tile[0], subgroups[0]),
                                     llvm::divideCeil(tile[1], subgroups[1]),
                                     operandType.isTF32() ? 4 : 2);
}

int64_t nvidia::getMmaSyncStages(ConfigAttr config) {
  return std::max<int64_t>(config.getStages(), 2);
}

int64_t nvidia::getThreads(ConfigAttr config) {
  NVGPUConfigAttr knobs = config.getNVGPU();
  if (knobs && knobs.isWgmma())
    return 128 * (config.getTile()[0] / 64 + 1);
  return config.getSubgroups()[0] * config.getSubgroups()[1] * 32;
}

LogicalResult nvidia::checkEpilogue(Region &epilogue, Type result,
                                    TypeRange operandTypes, std::string &why,
                                    Operation *&where) {
  where = epilogue.getParentOp();
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  if (!isKernelScalarType(result))
    return fail(llvm::formatv("result element type {0} is not stored by the "
                              "kernel",
                              result));
  for (Type t : operandTypes)
    if (!isKernelScalarType(getElementTypeOrSelf(t)))
      return fail(llvm::formatv("epilogue operand of type {0} is not read by "
                                "the kernel",
                                t));
  Block &block = epilogue.front();
  for (Operation &op : block.without_terminator()) {
    where = &op;
    if (op.getNumRegions() != 0 || op.getNumResults() != 1 || !isPure(&op))
      return fail(llvm::formatv("epilogue op '{0}' is not a pure scalar op",
                                op.getName()));
    for (Type t : op.getResultTypes())
      if (!isKernelScalarType(t))
        return fail(llvm::formatv("epilogue op '{0}' computes in {1}, which "
                                  "the kernel does not",
                                  op.getName(), t));
    for (Value v : op.getOperands())
      if (v.getParentRegion() != &epilogue && !isCapturable(v))
        return fail("the epilogue uses a value defined outside the GEMM that "
                    "is not a scalar constant");
  }
  where = epilogue.getParentOp();
  Value yielded = block.getTerminator()->getOperand(0);
  if (yielded.getParentRegion() != &epilogue && !isCapturable(yielded))
    return fail("the epilogue yields a value defined outside the GEMM that is "
                "not a scalar constant");
  return success();
}

static LogicalResult checkNVGPUGemm(GemmOp gemm, TargetAttr target,
                                    std::string &why, Operation *&where) {
  where = gemm;
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  if (!target.isNvidia())
    return fail(llvm::formatv("the target '{0}' is not an NVIDIA target",
                              target.getChip()));
  Type lhs = gemm.getLhsType().getElementType();
  if (!nvidia::isTensorCoreType(lhs) && !lhs.isF32())
    return fail(llvm::formatv("{0} operands: the tensor cores take bf16, f16 "
                              "or f32 read as tf32",
                              lhs));
  if (lhs != gemm.getRhsType().getElementType())
    return fail("lhs and rhs element types differ");
  if (!gemm.getAccType().isF32())
    return fail(llvm::formatv("accumulator {0}: tensor cores accumulate in f32",
                              gemm.getAccType()));
  return nvidia::checkEpilogue(
      gemm.getEpilogue(), gemm.getResultType().getElementType(),
      TypeRange(gemm.getEpilogueOperands()), why, where);
}

/// The mma.sync kernel's rules (MmaSyncTileEmitter.cpp).
static LogicalResult checkMmaSyncConfig(TargetAttr target, ConfigAttr config,
                                        int64_t bytes, RhsLayout rhsLayout,
                                        std::string &why) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  ArrayRef<int64_t> tile = config.getTile();
  ArrayRef<int64_t> sg = config.getSubgroups();
  int64_t tm = tile[0], tn = tile[1], tk = tile[2];
  int64_t warpM = tm / sg[0], warpN = tn / sg[1];
  if (tm % sg[0] != 0 || tn % sg[1] != 0)
    return fail(llvm::formatv("the warp layout [{0}, {1}] does not divide the "
                              "{2}x{3} tile",
                              sg[0], sg[1], tm, tn));
  if (warpM % 16 != 0 || warpN % 16 != 0)
    return fail(llvm::formatv("each warp's {0}x{1} block must be a multiple "
                              "of 16x16 (mma.sync m16 rows, ldmatrix.x4 pairs "
                              "of n8 columns)",
                              warpM, warpN));
  int64_t ce = nvidia::kChunkBytes / bytes;
  int64_t mmaK = bytes == 2 ? 16 : 8;
  // Rows of at least two 16-byte chunks, a power of two of them, so that
  // the XOR swizzle permutes chunks within a row.
  auto rowOk = [&](int64_t elems) {
    int64_t chunks = elems / ce;
    return elems % ce == 0 && chunks >= 2 && llvm::isPowerOf2_64(chunks);
  };
  if (tk % mmaK != 0 || !rowOk(tk))
    return fail(llvm::formatv("tile_k {0} must be a multiple of the mma k "
                              "({1}) and a power-of-two number (>= 2) of "
                              "16-byte chunks",
                              tk, mmaK));
  if (rhsLayout == RhsLayout::kn && !rowOk(tn))
    return fail(llvm::formatv("tile_n {0} must be a power-of-two number (>= "
                              "2) of 16-byte chunks for a [k, n] B",
                              tn));
  int64_t threads = nvidia::getThreads(config);
  if (threads > target.getMaxWorkgroupSize())
    return fail(llvm::formatv("{0} threads per workgroup (at most {1})",
                              threads, target.getMaxWorkgroupSize()));
  int64_t aChunks = tm * tk / ce, bChunks = tn * tk / ce;
  if (aChunks % threads != 0 || bChunks % threads != 0)
    return fail(llvm::formatv("the {0} + {1} 16-byte chunks of a k tile do "
                              "not split evenly over {2} threads",
                              aChunks, bChunks, threads));
  // One k-step: ldmatrix.x4 gives 4 registers per 16-row A tile and 2 per
  // 8-column B tile; the next k-step's fragments load while this one's
  // products run.
  int64_t accumulators = tm * tn / threads;
  int64_t fragments = nvidia::getMmaSyncFragmentRegisters(warpM, warpN);
  if (accumulators + fragments > nvidia::kMmaSyncRegisterRoom)
    return fail(llvm::formatv("{0} accumulators and {1} fragment registers "
                              "per thread leave no room in {2} registers",
                              accumulators, fragments, target.getGrfCount()));
  int64_t shared = getWorkgroupSlmBytes(GemmBackend::nvgpu, config, bytes);
  if (shared > target.getSlmBytes())
    return fail(llvm::formatv("{0} stages x ({1} + {2}) x {3} x {4} bytes = "
                              "{5} bytes of shared memory > {6}",
                              nvidia::getMmaSyncStages(config), tm, tn, tk,
                              bytes, shared, target.getSlmBytes()));
  return success();
}

/// The TMA + wgmma kernel's rules (WgmmaTileEmitter.cpp).
static LogicalResult checkWgmmaConfig(TargetAttr target, ConfigAttr config,
                                      int64_t bytes, std::string &why) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  ArrayRef<int64_t> tile = config.getTile();
  int64_t tm = tile[0], tn = tile[1], tk = tile[2];
  if (!target.hasWgmma())
    return fail(llvm::formatv(
        "wgmma needs {0} (the target is '{1}')",
        llvm::join(listPresets([](const TargetPreset &p) { return p.wgmma; }),
                   " or "),
        target.getChip()));
  if (bytes != 2)
    return fail("wgmma kernels take 16-bit operands (tf32 runs on mma_sync)");
  if (tm != 64 && tm != 128)
    return fail(llvm::formatv("tile_m {0}: one or two consumer warpgroups of "
                              "64 rows (tile_m 64 or 128)",
                              tm));
  if (tn % 64 != 0 || tn > 256)
    return fail(llvm::formatv("tile_n {0}: a multiple of 64 up to 256 (wgmma "
                              "n <= 256, 64-column TMA boxes)",
                              tn));
  if (tk != nvidia::kWgmmaTileK)
    return fail(llvm::formatv("tile_k {0}: one 128-byte swizzled row ({1})", tk,
                              nvidia::kWgmmaTileK));
  int64_t shared = getWorkgroupSlmBytes(GemmBackend::nvgpu, config, bytes);
  int64_t room = target.getMaxBlockSlmBytes() - nvidia::kWgmmaBarrierBytes;
  if (config.getStages() < 2 || shared > room)
    return fail(llvm::formatv("{0} stages of ({1} + {2}) x {3} x {4} bytes: "
                              "the TMA ring needs 2 or more that fit {5} "
                              "bytes of shared memory",
                              config.getStages(), tm, tn, tk, bytes, room));
  ScheduleAttr schedule = config.getSchedule();
  if (schedule.getKind() == Schedule::stream_k)
    return fail("the wgmma kernel computes whole tiles over all of K (its "
                "mbarrier ring carries across a program's tiles): the "
                "schedule must be data_parallel or persistent, not stream_k");
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
  case GemmBackend::nvgpu:
    return checkNVGPUGemm(gemm, target, why, where);
  }
  llvm_unreachable("unknown GEMM backend");
}

LogicalResult
mlir::xpu::checkBackendConfig(GemmBackend backend, TargetAttr target,
                              ConfigAttr config, int64_t operandBytes,
                              std::string &why, RhsLayout rhsLayout) {
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
    if (failed(getSimtLayout(target, config, lanes, why)))
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
    if (!target.hasDpas() || !target.hasBlock2d())
      return fail(llvm::formatv("#xpu.xe knobs on the target '{0}' without "
                                "DPAS and 2D block I/O",
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
    if (subgroups * xe::kLanes > target.getMaxWorkgroupSize())
      return fail(llvm::formatv("{0} subgroups of 16 lanes exceed {1} "
                                "work-items per workgroup",
                                subgroups, target.getMaxWorkgroupSize()));
    int64_t threads = target.getThreadsPerUnit(grfMode);
    if (subgroups > threads)
      return fail(llvm::formatv("{0} subgroups > {1} hardware threads of an "
                                "Xe-core in {2}-GRF mode",
                                subgroups, threads, grfMode));
    return success();
  }
  case GemmBackend::nvgpu: {
    NVGPUConfigAttr knobs = config.getNVGPU();
    if (!knobs)
      return fail("the nvgpu backend needs its #xpu.nvgpu knobs");
    if (!target.isNvidia())
      return fail(llvm::formatv("#xpu.nvgpu knobs on the non-NVIDIA target "
                                "'{0}'",
                                target.getChip()));
    if (knobs.isTF32() != (operandBytes == 4) ||
        (operandBytes != 2 && operandBytes != 4))
      return fail(llvm::formatv("precision {0} for {1}-byte operands: the "
                                "tensor cores read 16-bit operands natively "
                                "and f32 ones as tf32",
                                stringifyNVGPUPrecision(knobs.getPrecision()),
                                operandBytes));
    if (knobs.isWgmma())
      return checkWgmmaConfig(target, config, operandBytes, why);
    return checkMmaSyncConfig(target, config, operandBytes, rhsLayout, why);
  }
  }
  llvm_unreachable("unknown GEMM backend");
}

int64_t mlir::xpu::getBackendRowPitch(GemmBackend backend, TargetAttr target,
                                      int64_t cols, Type elt) {
  // A target without 2D block I/O is refused by the xe backend's checks.
  if (backend == GemmBackend::xe && target.hasBlock2d())
    return xe::getLegalPitch(target, cols, elt);
  return cols;
}

int64_t mlir::xpu::getBackendBatchRows(GemmBackend backend, TargetAttr target,
                                       int64_t rows, int64_t pitch, Type elt) {
  if (backend == GemmBackend::xe && target.hasBlock2d())
    return xe::getBatchRows(target, rows, pitch, elt);
  return rows;
}

int64_t mlir::xpu::getBackendBufferAlignment(GemmBackend backend,
                                             TargetAttr target) {
  if (backend == GemmBackend::xe && target.hasBlock2d())
    return target.getBlock2dBaseAlign();
  return 64;
}

int64_t mlir::xpu::getWorkgroupSlmBytes(GemmBackend backend, ConfigAttr config,
                                        int64_t operandBytes) {
  // The Xe kernels read A and B with 2D block loads straight into
  // registers; the SIMT kernels stage one or two slices, the tensor-core
  // kernels `stages` (mma.sync at least 2).
  if (backend == GemmBackend::xe)
    return 0;
  ArrayRef<int64_t> tile = config.getTile();
  if (backend == GemmBackend::nvgpu) {
    NVGPUConfigAttr knobs = config.getNVGPU();
    int64_t stages = knobs && knobs.isWgmma()
                         ? config.getStages()
                         : nvidia::getMmaSyncStages(config);
    return satMul(stages, satAdd(tile[0], tile[1]), tile[2], operandBytes);
  }
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
  if (target.isIntel()) {
    perUnit = target.getThreadsPerUnit(config.getGrfMode()) / subgroups;
  } else if (backend == GemmBackend::nvgpu) {
    // Warps of the kernel (wgmma: its warpgroups, whatever the subgroups
    // say) and, for wgmma, the registers setmaxnreg gives each warpgroup.
    int64_t threads = nvidia::getThreads(config);
    perUnit = std::min(target.getBlocksPerUnit(),
                       target.getThreadsPerUnit() / (threads / 32));
    NVGPUConfigAttr knobs = config.getNVGPU();
    if (knobs && knobs.isWgmma()) {
      int64_t registers =
          128 * (nvidia::kProducerRegisters +
                 config.getTile()[0] / 64 * nvidia::kConsumerRegisters);
      perUnit = std::min(perUnit, target.getRegistersPerUnit() / registers);
    }
  } else if (target.isNvidia()) {
    perUnit = target.getThreadsPerUnit() / subgroups;
  }
  int64_t slm = getWorkgroupSlmBytes(backend, config, operandBytes);
  if (slm > 0)
    perUnit = std::min(perUnit, target.getSlmBytes() / slm);
  return target.getComputeUnits() * std::max<int64_t>(perUnit, 1);
}
