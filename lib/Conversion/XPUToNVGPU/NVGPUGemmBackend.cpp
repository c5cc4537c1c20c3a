//===- NVGPUGemmBackend.cpp - the NVGPU GEMM backend ----------------------===//
//
// The rules of convert-xpu-to-nvgpu's tensor-core kernels (NVGPUBackend.h)
// and GemmBackendAttrInterface on #xpu.nvgpu: what the layers above ask of
// them.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GemmBackends.h"
#include "xpu/Conversion/XPUToNVGPU/NVGPUBackend.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Utils/EpilogueUtils.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/LayoutBuilder.h"
#include "xpu/Dialect/XPU/Utils/SizeArithmetic.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::xpu;

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

bool nvidia::isTensorCoreType(Type t) { return t.isBF16() || t.isF16(); }

bool nvidia::isKernelScalarType(Type t) {
  return t.isF64() || t.isF32() || t.isF16() || t.isBF16() ||
         (t.isSignlessInteger() && t.getIntOrFloatBitWidth() <= 64);
}

NVGPUMma nvidia::getPreferredMma(TargetAttr target, int64_t operandBytes) {
  return target.hasWgmma() && (operandBytes == 2 || operandBytes == 4)
             ? NVGPUMma::wgmma
             : NVGPUMma::mma_sync;
}

int64_t nvidia::getOperandPitch(int64_t cols, Type elt, NVGPUMma mma) {
  int64_t bytes = getElementBytes(elt);
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

int64_t nvidia::getConsumerWarpgroups(ConfigAttr config) {
  NVGPUConfigAttr knobs = config.getNVGPU();
  return knobs && knobs.isPingPong() ? 2 : config.getTile()[0] / 64;
}

int64_t nvidia::getThreads(ConfigAttr config) {
  NVGPUConfigAttr knobs = config.getNVGPU();
  if (knobs && knobs.isWgmma())
    return 128 * (getConsumerWarpgroups(config) + 1);
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
      if (v.getParentRegion() != &epilogue && !isScalarConstant(v))
        return fail("the epilogue uses a value defined outside the GEMM that "
                    "is not a scalar constant");
  }
  where = epilogue.getParentOp();
  Value yielded = block.getTerminator()->getOperand(0);
  if (yielded.getParentRegion() != &epilogue && !isScalarConstant(yielded))
    return fail("the epilogue yields a value defined outside the GEMM that is "
                "not a scalar constant");
  return success();
}

LogicalResult nvidia::checkGemm(GemmOp gemm, TargetAttr target,
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
  int64_t shared = nvidia::getWorkgroupSlmBytes(config, bytes);
  if (shared > target.getSlmBytes())
    return fail(llvm::formatv("{0} stages x ({1} + {2}) x {3} x {4} bytes = "
                              "{5} bytes of shared memory > {6}",
                              nvidia::getMmaSyncStages(config), tm, tn, tk,
                              bytes, shared, target.getSlmBytes()));
  return success();
}

/// The TMA + wgmma kernel's rules (WgmmaTileEmitter.cpp).
static LogicalResult checkWgmmaConfig(TargetAttr target, ConfigAttr config,
                                      int64_t bytes, RhsLayout rhsLayout,
                                      std::string &why) {
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
  if (bytes != 2 && bytes != 4)
    return fail(llvm::formatv("{0}-byte operands: wgmma kernels take 16-bit "
                              "ones or f32 ones read as tf32",
                              bytes));
  if (tm != 64 && tm != 128)
    return fail(llvm::formatv("tile_m {0}: one or two consumer warpgroups of "
                              "64 rows (tile_m 64 or 128)",
                              tm));
  if (tn % 64 != 0 || tn > 256)
    return fail(llvm::formatv("tile_n {0}: a multiple of 64 up to 256 (wgmma "
                              "n <= 256, 64-column TMA boxes)",
                              tn));
  if (tk != nvidia::getWgmmaTileK(bytes))
    return fail(llvm::formatv("tile_k {0}: one 128-byte swizzled row ({1} "
                              "{2}-byte elements)",
                              tk, nvidia::getWgmmaTileK(bytes), bytes));
  int64_t shared = nvidia::getWorkgroupSlmBytes(config, bytes);
  int64_t room = target.getMaxBlockSlmBytes() - nvidia::kWgmmaBarrierBytes;
  if (config.getStages() < 2 || shared > room)
    return fail(llvm::formatv("{0} stages of ({1} + {2}) x {3} x {4} bytes: "
                              "the TMA ring needs 2 or more that fit {5} "
                              "bytes of shared memory",
                              config.getStages(), tm, tn, tk, bytes, room));
  ScheduleAttr schedule = config.getSchedule();
  NVGPUConfigAttr knobs = config.getNVGPU();
  if (knobs.isPingPong() && schedule.getKind() != Schedule::persistent)
    return fail(llvm::formatv("consumers pingpong: the two consumer "
                              "warpgroups take turns at a program's tiles "
                              "(the persistent schedule), not {0}",
                              stringifySchedule(schedule.getKind())));
  if (knobs.isPingPong() && tm * tn / 128 > nvidia::kPingPongAccumulators)
    return fail(llvm::formatv("consumers pingpong: one warpgroup holds the "
                              "whole {0}x{1} tile, {2} f32 accumulators a "
                              "thread (at most {3}: tile_m * tile_n <= {4})",
                              tm, tn, tm * tn / 128,
                              nvidia::kPingPongAccumulators,
                              128 * nvidia::kPingPongAccumulators));
  int64_t clusterM = knobs.getClusterM();
  if (clusterM > 1 && schedule.getKind() != Schedule::data_parallel)
    return fail(llvm::formatv("cluster_m {0}: the workgroups of a cluster "
                              "compute one tile each, side by side (the "
                              "data_parallel schedule), not {1}",
                              clusterM, stringifySchedule(schedule.getKind())));
  // Each workgroup of a cluster loads 1 / cluster_m of the B box: half the
  // rows of an [n, k] box, or every other 64-column box of a [k, n] B.
  if (clusterM > 1 && rhsLayout == RhsLayout::kn && tn % (64 * clusterM) != 0)
    return fail(llvm::formatv("cluster_m {0} with a [k, n] B: tile_n {1} "
                              "must be a multiple of {2} (each workgroup "
                              "multicasts whole 64-column boxes of B)",
                              clusterM, tn, 64 * clusterM));
  return success();
}

LogicalResult nvidia::checkConfig(TargetAttr target, ConfigAttr config,
                                  int64_t operandBytes, std::string &why,
                                  RhsLayout rhsLayout) {
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
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
    return checkWgmmaConfig(target, config, operandBytes, rhsLayout, why);
  return checkMmaSyncConfig(target, config, operandBytes, rhsLayout, why);
}

LogicalResult nvidia::checkClusterShape(ConfigAttr config,
                                        ArrayRef<int64_t> dims,
                                        std::string &why) {
  NVGPUConfigAttr knobs = config.getNVGPU();
  if (!knobs || !knobs.isClustered())
    return success();
  int64_t clusterM = knobs.getClusterM(), tm = config.getTile()[0];
  int64_t tilesM = llvm::divideCeil(dims[1], tm);
  int64_t groupM = std::min(config.getGroupM(), tilesM);
  if (tilesM % clusterM == 0 && (groupM == tilesM || groupM % clusterM == 0))
    return success();
  why = llvm::formatv("cluster_m {0} needs the tile rows walked in groups of "
                      "{0}: {1} tile rows of {2} and group_m {3} are not "
                      "(both must be multiples of {0})",
                      clusterM, tilesM, tm, config.getGroupM());
  return failure();
}

int64_t nvidia::getWorkgroupSlmBytes(ConfigAttr config, int64_t operandBytes) {
  ArrayRef<int64_t> tile = config.getTile();
  NVGPUConfigAttr knobs = config.getNVGPU();
  int64_t stages =
      knobs && knobs.isWgmma() ? config.getStages() : getMmaSyncStages(config);
  return satMul(stages, satAdd(tile[0], tile[1]), tile[2], operandBytes);
}

bool nvidia::shouldStageEpilogue(Block &epilogue, ConfigAttr config,
                                 bool onePerWorkgroup) {
  NVGPUConfigAttr knobs = config.getNVGPU();
  if (!knobs || !knobs.isWgmma() || !onePerWorkgroup)
    return false;
  ArrayRef<int64_t> tile = config.getTile();
  int64_t accumulatorsPerThread = tile[1] / 2;
  int64_t f32Tile = satMul(tile[0], tile[1], 4);
  int64_t operandBytes = knobs.isTF32() ? 4 : 2;
  return f32Tile <= getWorkgroupSlmBytes(config, operandBytes) &&
         satMul(estimateEpilogueInstructions(epilogue), accumulatorsPerThread) >
             kStraightEpilogueInstructions;
}

//===----------------------------------------------------------------------===//
// GemmBackendAttrInterface
//===----------------------------------------------------------------------===//

/// Whether `value` is computed from the weights of its function (arguments
/// marked xpu.weight) and constants alone, by ops without memory effects:
/// work on it lands in <fn>.pack (xpu-outline-weight-pack), once per weight
/// set rather than on every call.
static bool isWeightOnly(Value value) {
  llvm::DenseMap<Value, bool> known;
  SmallVector<Value> stack{value};
  while (!stack.empty()) {
    Value v = stack.back();
    if (known.contains(v)) {
      stack.pop_back();
      continue;
    }
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto fn = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
      known[v] =
          fn && arg.getOwner()->isEntryBlock() &&
          fn.getArgAttr(arg.getArgNumber(), XPUDialect::getWeightAttrName());
      stack.pop_back();
      continue;
    }
    Operation *op = v.getDefiningOp();
    if (!isMemoryEffectFree(op)) {
      known[v] = false;
      stack.pop_back();
      continue;
    }
    // Values the op's regions use from above count as its operands.
    SmallVector<Value> inputs(op->getOperands());
    visitUsedValuesDefinedAbove(op->getRegions(), [&](OpOperand *use) {
      inputs.push_back(use->get());
    });
    bool pending = false, all = true;
    for (Value input : inputs) {
      auto it = known.find(input);
      if (it == known.end()) {
        stack.push_back(input);
        pending = true;
      } else {
        all &= it->second;
      }
    }
    if (pending)
      continue;
    known[v] = all;
    stack.pop_back();
  }
  return known.lookup(value);
}

/// The layouts the tensor-core kernels read (xpu-materialize-layouts).
static LogicalResult materializeNVGPULayouts(GemmOp gemm, TargetAttr target,
                                             StringRef passArg,
                                             LayoutRemarkFn remark) {
  auto changed = [&](GemmOp g, StringRef name, const Twine &why) {
    remark(g, name, why, /*changed=*/true);
  };
  NVGPUMma mma = gemm.getConfigAttr().getNVGPU().getMma();
  OpBuilder b(gemm);
  LayoutBuilder lb(b, gemm);
  // Rows of A ([m, k]) and B ([n, k] or [k, n]) at the pitch the kernel
  // reads (nvidia::getOperandPitch): cp.async copies 16-byte chunks and a
  // TMA descriptor's row stride is a multiple of 16 bytes; rows that need
  // a new pitch get a multiple of 128 bytes where TMA reads them (wgmma).
  // Zeros: the padding columns of A meet those of an [n, k] B in the sum.
  // The kernel reads the rest as it is: B in either layout (ldmatrix, or
  // .trans for [k, n]), epilogue vectors per row and column.
  bool relaid = false;
  auto pitched = [&](Value t, int64_t cols, StringRef what) -> Value {
    auto type = cast<RankedTensorType>(t.getType());
    Type elt = type.getElementType();
    int64_t pitch = nvidia::getOperandPitch(cols, elt, mma);
    if (pitch == cols)
      return t;
    int64_t bytes = getElementBytes(elt);
    changed(gemm, "PadPitch",
            llvm::formatv("{0}: rows of {1} x {2} bytes padded with zeros to "
                          "{3} elements ({4} bytes): {5}",
                          what, cols, bytes, pitch, pitch * bytes,
                          mma == NVGPUMma::wgmma
                              ? "TMA reads rows of 16-byte multiples, and "
                                "rows that need a new pitch get a multiple "
                                "of 128 bytes (one swizzled box row)"
                              : "cp.async copies 16-byte chunks from rows "
                                "that start on 16 bytes"));
    relaid = true;
    return lb.view(lb.padRows(t, pitch), type, type.getShape());
  };
  // wgmma reads tf32 operands K-major only (the PTX ISA transposes 16-bit
  // ones alone): a [k, n] B becomes [n, k], once in <fn>.pack for a weight.
  // A 16-bit weight too: the kernels that read it K-major ran 2-21% faster
  // on the H200 than those reading the same weight N-major (KernelBench's
  // bf16 models against their f32 forms, docs/Performance.md), and its
  // transpose costs nothing per call. An activation stays [k, n].
  NVGPUConfigAttr knobs = gemm.getConfigAttr().getNVGPU();
  if (mma == NVGPUMma::wgmma && gemm.getRhsLayout() == RhsLayout::kn &&
      (knobs.isTF32() || isWeightOnly(gemm.getRhs()))) {
    gemm.getRhsMutable().set(lb.transposeLast2(gemm.getRhs()));
    gemm.setRhsLayout(RhsLayout::nk);
    relaid = true;
    changed(gemm, "TransposeRhs",
            knobs.isTF32()
                ? "rhs [k, n] transposed to [n, k]: wgmma reads tf32 operands "
                  "K-major only"
                : "rhs [k, n] transposed to [n, k] (computed from weights "
                  "alone, so once per weight set in <fn>.pack): wgmma reads "
                  "a K-major B faster");
  }
  int64_t k = gemm.getK();
  gemm.getLhsMutable().set(pitched(gemm.getLhs(), k, "A"));
  bool nk = gemm.getRhsLayout() == RhsLayout::nk;
  gemm.getRhsMutable().set(pitched(gemm.getRhs(), nk ? k : gemm.getN(),
                                   nk ? "B [n, k]" : "B [k, n]"));
  if (!relaid)
    remark(gemm, "AsTheyAre",
           llvm::formatv("the tensor-core kernels read the operands as they "
                         "are ({0} rows of 16-byte multiples, rhs {1}, "
                         "epilogue vectors read per row and column)",
                         stringifyNVGPUMma(mma),
                         stringifyRhsLayout(gemm.getRhsLayout())),
           /*changed=*/false);
  return success();
}

namespace {
/// Workgroups per thread block cluster that xpu-tune tries for wgmma
/// kernels whose tiles pair up (getAlternativeKnobs).
constexpr int64_t kClusterM = 2;

struct NVGPUGemmBackend final
    : GemmBackendAttrInterface::ExternalModel<NVGPUGemmBackend,
                                              NVGPUConfigAttr> {
  StringRef getBackendName(Attribute) const { return "nvgpu"; }
  std::string describeKnobs(Attribute attr) const {
    auto knobs = cast<NVGPUConfigAttr>(attr);
    std::string cluster =
        knobs.isClustered()
            ? llvm::formatv(", clusters of {0}x1", knobs.getClusterM()).str()
            : std::string();
    return llvm::formatv(
               ", {0}{1}{2}{3}", stringifyNVGPUMma(knobs.getMma()),
               knobs.getPrecision() == NVGPUPrecision::tf32 ? " tf32" : "",
               cluster, knobs.isPingPong() ? ", pingpong consumers" : "")
        .str();
  }
  LogicalResult checkGemm(Attribute, GemmOp gemm, TargetAttr target,
                          std::string &why, Operation *&where) const {
    return nvidia::checkGemm(gemm, target, why, where);
  }
  LogicalResult checkConfig(Attribute, TargetAttr target, ConfigAttr config,
                            int64_t operandBytes, std::string &why,
                            RhsLayout rhsLayout) const {
    return nvidia::checkConfig(target, config, operandBytes, why, rhsLayout);
  }
  LogicalResult checkConfigForShape(Attribute, ConfigAttr config,
                                    ArrayRef<int64_t> dims,
                                    std::string &why) const {
    return nvidia::checkClusterShape(config, dims, why);
  }
  Type getOperandType(Attribute attr, GemmOp gemm) const {
    // f32 operands read as tf32 when the knobs say so.
    Type lhs = gemm.getLhsType().getElementType();
    if (lhs.isF32() && cast<NVGPUConfigAttr>(attr).isTF32())
      return FloatTF32Type::get(gemm.getContext());
    return lhs;
  }
  // The buffers the lowering allocates take the interface's default row
  // pitch, batch rows and alignment; materializeLayouts pitches A and B
  // (nvidia::getOperandPitch), and TMA descriptors need 16 bytes.
  int64_t getWorkgroupSlmBytes(Attribute, ConfigAttr config,
                               int64_t operandBytes) const {
    return nvidia::getWorkgroupSlmBytes(config, operandBytes);
  }
  LogicalResult materializeLayouts(Attribute, GemmOp gemm, TargetAttr target,
                                   StringRef passArg,
                                   LayoutRemarkFn remark) const {
    return materializeNVGPULayouts(gemm, target, passArg, remark);
  }
  int64_t getResidentWorkgroups(Attribute, TargetAttr target, ConfigAttr config,
                                int64_t operandBytes) const {
    // Warps of the kernel (wgmma: its warpgroups, whatever the subgroups
    // say), at most 64 per SM, and, for wgmma, the registers setmaxnreg
    // gives each warpgroup; then shared memory.
    int64_t threads = nvidia::getThreads(config);
    int64_t perUnit = std::min(target.getBlocksPerUnit(),
                               target.getThreadsPerUnit() / (threads / 32));
    NVGPUConfigAttr knobs = config.getNVGPU();
    if (knobs && knobs.isWgmma()) {
      int64_t registers = 128 * (nvidia::kProducerRegisters +
                                 nvidia::getConsumerWarpgroups(config) *
                                     nvidia::kConsumerRegisters);
      perUnit = std::min(perUnit, target.getRegistersPerUnit() / registers);
    }
    int64_t slm = nvidia::getWorkgroupSlmBytes(config, operandBytes);
    if (slm > 0)
      perUnit = std::min(perUnit, target.getSlmBytes() / slm);
    return target.getComputeUnits() * std::max<int64_t>(perUnit, 1);
  }
  std::optional<int64_t> getMatrixFragmentRegisters(Attribute attr,
                                                    ArrayRef<int64_t> tile,
                                                    ArrayRef<int64_t> subgroups,
                                                    Type operandType) const {
    // wgmma reads both operands from shared memory, tf32 ones too: the
    // register model keeps the count its wgmma calibration (16-bit
    // operands) was made with, not mma.sync's per-element tf32 B loads.
    if (cast<NVGPUConfigAttr>(attr).isWgmma() && operandType.isTF32())
      operandType = BFloat16Type::get(attr.getContext());
    return nvidia::getMmaSyncFragmentRegisters(tile, subgroups, operandType);
  }

  // The strategy: the GEMMs the tensor cores take on an NVIDIA target.
  int64_t getAutoRank(Attribute) const { return 2; }
  bool takesGemm(Attribute, TargetAttr target, Type operandType,
                 std::string &why) const {
    if (!target.isNvidia())
      return false;
    bool tf32 = operandType.isTF32();
    // The remarks name the element type the GEMM has (tf32 is f32 read so).
    Type elt = tf32 ? Type(Float32Type::get(target.getContext())) : operandType;
    if (!nvidia::isTensorCoreType(operandType) && !tf32) {
      why = llvm::formatv("{0} operands{1} do not run on tensor cores", elt,
                          elt.isF32() ? " without tf32" : "");
      return false;
    }
    NVGPUMma mma = nvidia::getPreferredMma(target, getElementBytes(elt));
    std::string family;
    if (mma == NVGPUMma::wgmma)
      family = llvm::formatv(" ({0}: TMA and warpgroup MMA, tile_k {1})",
                             target.getChip(),
                             nvidia::getWgmmaTileK(getElementBytes(elt)));
    else if (target.hasWgmma())
      family = " (wgmma takes 16-bit and tf32 operands only)";
    else
      family = llvm::formatv(
          " (wgmma needs {0})",
          llvm::join(listPresets([](auto &p) { return p.wgmma; }), " or "));
    why = llvm::formatv("{0} operands run on tensor cores{1} with {2}{3}", elt,
                        tf32 ? " as tf32" : "", stringifyNVGPUMma(mma), family);
    return true;
  }
  Attribute getCandidateKnobs(Attribute attr, TargetAttr target,
                              Type operandType) const {
    // tf32 is f32 in memory: 4 bytes.
    bool tf32 = operandType.isTF32();
    int64_t bytes = tf32 ? 4 : getElementBytes(operandType);
    return NVGPUConfigAttr::get(
        attr.getContext(), nvidia::getPreferredMma(target, bytes),
        tf32 ? NVGPUPrecision::tf32 : NVGPUPrecision::native);
  }
  int64_t getCandidateTileK(Attribute attr, TargetAttr,
                            int64_t operandBytes) const {
    if (cast<NVGPUConfigAttr>(attr).isWgmma())
      return nvidia::getWgmmaTileK(operandBytes);
    // Two mma k-steps: one 64-byte row of each K slice for 16-bit
    // operands, 16 for tf32.
    return operandBytes <= 2 ? 32 : 16;
  }
  bool isCandidateTile(Attribute attr, int64_t tileM, int64_t tileN) const {
    // wgmma: one or two warpgroups of 64 rows and 64-column TMA boxes.
    if (cast<NVGPUConfigAttr>(attr).isWgmma())
      return (tileM == 64 || tileM == 128) && tileN % 64 == 0;
    return true;
  }
  int64_t getMinStages(Attribute attr) const {
    // The wgmma kernel's TMA ring has at least 2 slots.
    return cast<NVGPUConfigAttr>(attr).isWgmma() ? 2 : 1;
  }
  Attribute getAlternativeKnobs(Attribute attr, TargetAttr target,
                                ConfigAttr config, ArrayRef<int64_t> dims,
                                RhsLayout rhsLayout, std::string &why) const {
    // wgmma data-parallel tiles in clusters of 2 along M where they pair up:
    // each workgroup reads half of B from L2 (docs/NVIDIA.md). Not the
    // default: on an H100 they ran 1-10% slower than the same tiles alone
    // (docs/Performance.md); the tuner measures them.
    auto knobs = cast<NVGPUConfigAttr>(attr);
    int64_t bytes = knobs.isTF32() ? 4 : 2;
    std::string reason;
    // Persistent wgmma tiles small enough for one warpgroup: pingpong
    // consumers, which hide one tile's epilogue behind the other's wgmma
    // but issue one warpgroup's wgmma at a time (docs/NVIDIA.md).
    if (knobs.isWgmma() && !knobs.isPingPong() &&
        config.getSchedule().getKind() == Schedule::persistent) {
      auto pingPong = NVGPUConfigAttr::get(
          attr.getContext(), knobs.getMma(), knobs.getPrecision(),
          /*clusterM=*/1, NVGPUConsumers::pingpong);
      ConfigAttr withPingPong =
          ConfigAttr::get(attr.getContext(), config.getTile(),
                          config.getGroupM(), config.getSubgroups(),
                          config.getStages(), config.getSchedule(), pingPong);
      if (failed(nvidia::checkConfig(target, withPingPong, bytes, reason,
                                     rhsLayout)))
        return attr;
      why = llvm::formatv("pingpong consumers on {0}: one warpgroup holds a "
                          "whole {1}x{2} tile",
                          target.getChip(), config.getTile()[0],
                          config.getTile()[1]);
      return pingPong;
    }
    if (!knobs.isWgmma() || knobs.isClustered() ||
        config.getSchedule().getKind() != Schedule::data_parallel)
      return attr;
    auto clustered = NVGPUConfigAttr::get(attr.getContext(), knobs.getMma(),
                                          knobs.getPrecision(), kClusterM);
    ConfigAttr withClusters =
        ConfigAttr::get(attr.getContext(), config.getTile(), config.getGroupM(),
                        config.getSubgroups(), config.getStages(),
                        config.getSchedule(), clustered);
    if (failed(nvidia::checkConfig(target, withClusters, bytes, reason,
                                   rhsLayout)) ||
        failed(nvidia::checkClusterShape(withClusters, dims, reason)))
      return attr;
    why = llvm::formatv("thread block clusters of {0}x1 on {1}: the {2} tile "
                        "rows pair up",
                        kClusterM, target.getChip(),
                        llvm::divideCeil(dims[1], config.getTile()[0]));
    return clustered;
  }
  bool choosesStreamK(Attribute, TargetAttr target, std::string &why) const {
    // Measured on an H100 (docs/Performance.md, "Stream-K on wgmma"): with
    // wgmma and with mma.sync, Stream-K ran 0.50-0.90x the data-parallel
    // kernel on every shape tried, tails of a fraction of a wave included.
    // Where the operands overflow the L2, concurrent pieces read different
    // K slabs of their tiles and lose the reuse of neighbouring
    // data-parallel tiles (Nsight Compute: 7x the DRAM bytes at
    // 1536x2048x16384); where they fit, the main kernel keeps up but the
    // fix-up kernel, which reads every piece back, costs more than the
    // tail saved. The model prices neither.
    why = llvm::formatv("Stream-K is not chosen on {0}: it measured slower "
                        "than data-parallel on every shape (its K pieces "
                        "lose the L2 reuse of neighbouring tiles, and the "
                        "fix-up kernel reads every piece back, which the "
                        "model does not price); schedule=stream_k forces it",
                        target.getChip());
    return false;
  }
  Attribute getKnobsForSchedule(Attribute attr, Schedule kind,
                                std::string &change, std::string &why) const {
    auto knobs = cast<NVGPUConfigAttr>(attr);
    if (knobs.isPingPong() && kind != Schedule::persistent) {
      change = "cooperative consumers";
      why = llvm::formatv("pingpong consumers take turns at a persistent "
                          "program's whole tiles, and a {0} program {1}",
                          stringifySchedule(kind),
                          kind == Schedule::data_parallel
                              ? "computes one"
                              : "also computes pieces of tiles");
      return NVGPUConfigAttr::get(attr.getContext(), knobs.getMma(),
                                  knobs.getPrecision());
    }
    if (knobs.isClustered() && kind != Schedule::data_parallel) {
      change = "no thread block clusters";
      why = "the workgroups of a cluster compute one tile each, side by side "
            "(data_parallel)";
      return NVGPUConfigAttr::get(attr.getContext(), knobs.getMma(),
                                  knobs.getPrecision());
    }
    return attr;
  }
};
} // namespace

void mlir::xpu::registerNVGPUGemmBackend(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, XPUDialect *dialect) {
    NVGPUConfigAttr::attachInterface<NVGPUGemmBackend>(*ctx);
    dialect->addGemmBackend(
        NVGPUConfigAttr::get(ctx, NVGPUMma::mma_sync, NVGPUPrecision::native));
  });
}
