//===- ConvertXPUToNVGPU.cpp - GEMM programs to tensor-core kernels ------===//
//
// The NVIDIA tensor-core backend of the schedule layer (GemmPrograms.h):
// the programs xpu-schedule-gemm built for GEMMs with 16-bit operands (or
// tf32 ones when asked) become kernels, each in its own gpu.module, whose
// workgroups compute their tiles with the mma.sync tile emitter
// (MmaSyncTileEmitter.cpp) or, on sm_90a for one tile per workgroup, the
// TMA + wgmma one (WgmmaTileEmitter.cpp). The host side here only adds what
// these kernels read beyond the schedule's buffers: operands re-pitched to
// 16-byte rows and TMA descriptors. docs/NVIDIA.md describes the kernels.
//
// Catalog: dtype_prepack_bf16 (tensor-core operands), the Stream-K entries
// (partial tiles, masked atomic adds, the fix-up) and
// int64_cast_for_large_batch_offsets (offsets in 64-bit index arithmetic).
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"
#include "xpu/Conversion/GemmBackends.h"
#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUSchedule/GemmPrograms.h"
#include "xpu/Conversion/XPUToNVGPU/NVGPUBackend.h"
#include "xpu/Conversion/XPUToNVGPU/XPUToNVGPU.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/Utils/EpilogueUtils.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/RegisterPressure.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include <optional>

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCONVERTXPUTONVGPUPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "convert-xpu-to-nvgpu";
/// The least register budget (.maxnreg) of an mma.sync kernel. The
/// register model's fixed part is calibrated on the large tiles, where the
/// budget decides; ptxas allocates 68 to 78 registers to one-warp 16x16
/// tiles, about 10 above the estimate, and spills when held just above its
/// need: one that takes 72 when free spilled at .maxnreg 78, 80, 84 and 88,
/// not at 96 (scripts/calibrate-registers.py --vendor nvidia).
static constexpr int64_t kMinRegisterBudget = 96;

/// Threads per workgroup of the re-pitching kernels.
static constexpr int64_t kCopyThreads = 256;
/// Alignment of the buffers this lowering allocates (cp.async reads 16-byte
/// chunks; 128 leaves room for vector stores and TMA).
static constexpr int64_t kBufferAlignment = 128;

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

/// The kernel plan of a tile op's GEMM (or of a fix-up's, whose operands
/// are of `operandType`): the problem, the config's tiling and instruction
/// family, and the operand pitches the kernel reads (`aPitch`, `bPitch`
/// elements: those of xpu-materialize-layouts, nvidia::getOperandPitch).
int64_t MmaKernelPlan::wgmmaGroupsInFlight() const {
  // Cooperative consumers keep one group in flight each: two warpgroups'
  // m64n<tn> groups keep the tensor cores busy. A pingpong consumer runs
  // alone, with groups of its own tile's k tile, and one group in flight
  // left the tensor cores idle a third of the time on an H100: it keeps all
  // but three slots of the ring in flight (one it waits for, two the
  // producer fills ahead), which measured best at 5 and 6 stages
  // (docs/Performance.md).
  return pingPong ? std::max<int64_t>(stages - 3, 1) : 1;
}

static MmaKernelPlan planKernel(ConfigAttr config, ArrayRef<int64_t> dims,
                                RhsLayout layout, bool lhsBatched,
                                bool rhsBatched, Type operandType,
                                Type resultType) {
  MmaKernelPlan p;
  p.batch = dims[0];
  p.m = dims[1];
  p.n = dims[2];
  p.k = dims[3];
  p.rhsNK = layout == RhsLayout::nk;
  p.lhsBatched = lhsBatched;
  p.rhsBatched = rhsBatched;
  p.operandType = operandType;
  p.resultType = resultType;
  ArrayRef<int64_t> tile = config.getTile();
  p.tm = tile[0];
  p.tn = tile[1];
  p.tk = tile[2];
  p.warpRows = config.getSubgroups()[0];
  p.warpCols = config.getSubgroups()[1];
  NVGPUConfigAttr knobs = config.getNVGPU();
  p.wgmma = knobs && knobs.isWgmma();
  p.stages = p.wgmma ? config.getStages() : nvidia::getMmaSyncStages(config);
  p.groupM = std::max<int64_t>(config.getGroupM(), 1);
  p.clusterM = knobs ? knobs.getClusterM() : 1;
  p.pingPong = knobs && knobs.isPingPong();
  NVGPUMma mma = p.wgmma ? NVGPUMma::wgmma : NVGPUMma::mma_sync;
  p.aPitch = nvidia::getOperandPitch(p.k, operandType, mma);
  p.bPitch = nvidia::getOperandPitch(p.rhsNK ? p.k : p.n, operandType, mma);
  return p;
}

static MmaKernelPlan planKernel(GemmTileOp tile, Type resultType) {
  return planKernel(tile.getConfig(), tile.getDims(), tile.getRhsLayout(),
                    tile.getLhsType().getRank() == 3,
                    tile.getRhsType().getRank() == 3,
                    tile.getLhsType().getElementType(), resultType);
}

LogicalResult mlir::xpu::checkNVGPULowerable(GemmTileOp tile,
                                             TargetAttr target) {
  auto fail = [&](const Twine &why) {
    return tile.emitError() << kPassArg << ": " << why;
  };
  if (!target.isNvidia())
    return fail(llvm::formatv("the target '{0}' is not an NVIDIA target",
                              target.getChip()));
  Type lhs = tile.getLhsType().getElementType();
  if (lhs != tile.getRhsType().getElementType())
    return fail("lhs and rhs element types differ");
  if (!tile.getAccType().isF32())
    return fail(llvm::formatv("accumulator {0}: tensor cores accumulate in f32",
                              tile.getAccType()));
  if (tile.getResult() != TileResult::output &&
      !tile.getDestType().getElementType().isF32())
    return fail("the Stream-K workspace must hold f32 partial sums");
  for (auto [i, operand] : llvm::enumerate(tile.getEpilogueOperands())) {
    auto type = cast<MemRefType>(operand.getType());
    BroadcastKind kind = tile.getBroadcastKind(i);
    int64_t rank = kind == BroadcastKind::scalar ? 0 : 1;
    if (kind != BroadcastKind::full && type.getRank() != rank)
      return fail(llvm::formatv("epilogue operand {0} of type {1}: the kernel "
                                "reads a {2} operand as a rank-{3} buffer "
                                "(not a panel)",
                                i, type, stringifyBroadcastKind(kind), rank));
  }
  std::string why;
  Operation *where = tile;
  if (failed(nvidia::checkEpilogue(
          tile.getEpilogue(), tile.getDestType().getElementType(),
          TypeRange(tile.getEpilogueOperands()), why, where)))
    return where->emitError() << kPassArg << ": " << why;
  // The config: verified with the nvgpu backend's rules, as
  // xpu-select-strategy chose or verified it.
  ConfigAttr config = tile.getConfig();
  if (failed(nvidia::checkConfig(target, config, getElementBytes(lhs), why,
                                 tile.getRhsLayout())))
    return fail(llvm::formatv("the config {0} is invalid for the nvgpu "
                              "backend on {1}: {2}",
                              config, target.getChip(), why));
  if (config.getNVGPU().isWgmma() && lhs.isF32() &&
      tile.getRhsLayout() != RhsLayout::nk)
    return fail("wgmma reads tf32 operands K-major only: B must be [n, k] "
                "(xpu-materialize-layouts transposes a [k, n] B)");
  // A cluster's workgroups must compute vertically adjacent tiles.
  if (failed(nvidia::checkClusterShape(config, tile.getDims(), why)))
    return fail(why);
  // Operands with a pitch of their own (xpu-materialize-layouts' or a
  // hand-written one; the others are re-pitched): rows on 16 bytes.
  int64_t bytes = getElementBytes(lhs);
  ArrayRef<int64_t> dims = tile.getDims();
  bool nk = tile.getRhsLayout() == RhsLayout::nk;
  for (auto [what, type, cols] :
       {std::tuple<StringRef, MemRefType, int64_t>{"A", tile.getLhsType(),
                                                   dims[3]},
        {"B", tile.getRhsType(), nk ? dims[3] : dims[2]}}) {
    int64_t pitch = type.getShape().back();
    if (pitch != cols && (pitch * bytes) % nvidia::kChunkBytes != 0)
      return fail(llvm::formatv("{0} has rows of {1} x {2} bytes, not a "
                                "multiple of 16 (cp.async and TMA read "
                                "16-byte aligned rows)",
                                what, pitch, bytes));
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

namespace {

/// A 1-D memref type of `elems` elements.
MemRefType flatType(int64_t elems, Type elt) {
  return MemRefType::get({elems}, elt);
}

/// `memref` (static, identity layout) as a 1-D memref.
Value flatten(OpBuilder &b, Location loc, Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  if (type.getRank() <= 1)
    return memref;
  ReassociationIndices all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  return memref::CollapseShapeOp::create(b, loc, memref,
                                         ArrayRef<ReassociationIndices>{all});
}

/// Builds kernels into one gpu.module and launches them where the rewriter
/// stands.
class KernelModuleBuilder {
public:
  KernelModuleBuilder(RewriterBase &rewriter, Location loc,
                      gpu::GPUModuleOp module)
      : rewriter(rewriter), module(module), loc(loc) {}

  Value idx(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  gpu::GPUFuncOp createKernel(StringRef name, TypeRange args, int64_t threads) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    auto kernel = gpu::GPUFuncOp::create(rewriter, loc, name,
                                         rewriter.getFunctionType(args, {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    rewriter.getUnitAttr());
    kernel.setKnownBlockSizeAttr(
        rewriter.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    return kernel;
  }

  /// Copies `src` (rows of `cols` elements, all rows of all batches one
  /// after the other) into a new buffer whose rows have `pitch` elements,
  /// zero-filled past `cols`.
  Value repitch(Value src, int64_t cols, int64_t pitch, StringRef what) {
    auto srcType = cast<MemRefType>(src.getType());
    Type elt = srcType.getElementType();
    int64_t rows = srcType.getNumElements() / cols;
    SmallVector<int64_t> shape(srcType.getShape());
    shape.back() = pitch;
    auto dstType = MemRefType::get(shape, elt);
    remark::missed(loc, remarkOpts(kPassArg, "Repitch")) << remark::reason(
        "{0}: rows of {1} x {2} bytes are not 16-byte multiples (cp.async "
        "and TMA read 16-byte aligned rows): copied by a kernel into rows of "
        "{3} elements, zero-filled, before the GEMM on every call "
        "(xpu-materialize-layouts pads them once, on tensors)",
        what, cols, elt.getIntOrFloatBitWidth() / 8, pitch);
    std::string name =
        llvm::formatv("{0}_repitch{1}", module.getSymName(), repitches++);
    int64_t total = rows * pitch;
    gpu::GPUFuncOp kernel = createKernel(
        name, {flatType(rows * cols, elt), flatType(total, elt)}, kCopyThreads);
    {
      OpBuilder::InsertionGuard guard(rewriter);
      OpBuilder &b = rewriter;
      b.setInsertionPointToStart(&kernel.getBody().front());
      Value block = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
      Value thread = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
      Value i = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, block, idx(b, kCopyThreads)),
          thread);
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            i, idx(b, total));
      auto ifOp = scf::IfOp::create(b, loc, inRange, false);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value row = arith::DivUIOp::create(b, loc, i, idx(b, pitch));
      Value col = arith::RemUIOp::create(b, loc, i, idx(b, pitch));
      Value inside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           col, idx(b, cols));
      Value zero =
          arith::ConstantOp::create(b, loc, b.getZeroAttr(elt)).getResult();
      auto load = scf::IfOp::create(
          b, loc, inside,
          [&](OpBuilder &tb, Location l) {
            Value at = arith::AddIOp::create(
                tb, l, arith::MulIOp::create(tb, l, row, idx(tb, cols)), col);
            Value v = memref::LoadOp::create(tb, l, kernel.getArgument(0), at);
            scf::YieldOp::create(tb, l, v);
          },
          [&](OpBuilder &tb, Location l) {
            scf::YieldOp::create(tb, l, zero);
          });
      memref::StoreOp::create(b, loc, load.getResult(0), kernel.getArgument(1),
                              i);
      b.setInsertionPointToEnd(&kernel.getBody().front());
      gpu::ReturnOp::create(b, loc);
    }
    Value dst = memref::AllocOp::create(
        rewriter, loc, dstType, rewriter.getI64IntegerAttr(kBufferAlignment));
    gpu::LaunchFuncOp::create(
        rewriter, loc, kernel,
        gpu::KernelDim3{idx(rewriter, llvm::divideCeil(total, kCopyThreads)),
                        idx(rewriter, 1), idx(rewriter, 1)},
        gpu::KernelDim3{idx(rewriter, kCopyThreads), idx(rewriter, 1),
                        idx(rewriter, 1)},
        Value(),
        ValueRange{flatten(rewriter, loc, src), flatten(rewriter, loc, dst)});
    return dst;
  }

private:
  RewriterBase &rewriter;
  gpu::GPUModuleOp module;
  Location loc;
  unsigned repitches = 0;
};

} // namespace

namespace {

/// Marks, inside a wgmma kernel, the TMA descriptor of A (0) or B (1).
constexpr StringLiteral kTmaOperandAttr = "xpu.tma_operand";

/// The epilogue of a tile or fix-up op.
template <typename OpTy> FragmentEpilogue getFragmentEpilogue(OpTy op) {
  FragmentEpilogue e;
  e.block = &op.getEpilogueBlock();
  for (unsigned i = 0, n = op.getEpilogueOperands().size(); i < n; ++i)
    e.kinds.push_back(op.getBroadcastKind(i));
  return e;
}

/// Lowers the tile and fix-up ops of one tensor-core kernel (GemmPrograms.h):
/// each op gets the emitter where it stands, with its buffers viewed as the
/// 1-D memrefs the emitters index.
class NVGPUTileEmitter final : public GemmTileEmitter {
public:
  /// `fixedRoles`: each workgroup computes one tile (WgmmaRing).
  NVGPUTileEmitter(const MmaKernelPlan &plan, bool fixedRoles)
      : p(plan), fixedRoles(fixedRoles) {}

  /// Finds the TMA descriptors the host side views inside the kernel.
  LogicalResult beginKernel(OpBuilder &b, Location loc) override {
    Operation *lastView = nullptr;
    b.getInsertionBlock()->walk([&](UnrealizedConversionCastOp cast) {
      auto which = cast->getAttrOfType<IntegerAttr>(kTmaOperandAttr);
      if (!which || cast->getBlock() != b.getInsertionBlock())
        return;
      Value &map = which.getInt() == 0   ? aMap
                   : which.getInt() == 1 ? bMap
                                         : cMap;
      map = cast.getResult(0);
      cast->removeAttr(kTmaOperandAttr);
      if (!lastView || lastView->isBeforeInBlock(cast))
        lastView = cast;
    });
    if (p.wgmma) {
      // The ring after the descriptors' views, before any tile.
      if (lastView)
        b.setInsertionPointAfter(lastView);
      WgmmaKernelOperands ops;
      ops.aMap = aMap;
      ops.bMap = bMap;
      WgmmaTileEmitter emitter(b, loc, p, ops);
      ring = emitter.createRing(fixedRoles);
      if (!fixedRoles)
        return splitRoles(emitter, b);
    }
    return success();
  }

  /// Branches a persistent wgmma kernel on the warpgroup around its tile
  /// loop (warp specialization): the producer runs ahead through all of
  /// the program's loads, and the roles re-balance their registers once.
  LogicalResult splitRoles(WgmmaTileEmitter &emitter, OpBuilder &b) {
    Block *body = b.getInsertionBlock();
    SmallVector<Operation *> rest;
    SmallVector<GemmTileOp> tiles;
    for (auto it = b.getInsertionPoint(); &*it != body->getTerminator(); ++it)
      rest.push_back(&*it);
    // The producer runs a clone of what surrounds the tile ops: only index
    // arithmetic and the loops over tiles may.
    Operation *blocker = nullptr;
    for (Operation *op : rest) {
      op->walk<WalkOrder::PreOrder>([&](Operation *nested) {
        if (auto tile = dyn_cast<GemmTileOp>(nested)) {
          tiles.push_back(tile);
          return WalkResult::skip();
        }
        if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
            isMemoryEffectFree(nested))
          return WalkResult::advance();
        blocker = nested;
        return WalkResult::interrupt();
      });
      if (blocker)
        break;
    }
    if (blocker) {
      if (p.pingPong)
        return blocker->emitError()
               << kPassArg
               << ": pingpong consumers need the roles split around the "
                  "program's tile loop, and this op has memory effects";
      return success();
    }
    for (GemmTileOp tile : emitter.splitRoles(rest, tiles))
      producerTiles.insert(tile);
    split = true;
    return success();
  }

  LogicalResult emitTile(RewriterBase &rewriter, GemmTileOp op) override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    SmallVector<Value> epilogue = llvm::map_to_vector(
        op.getEpilogueOperands(), [&](Value v) { return flatten(b, loc, v); });
    Value dest = flatten(b, loc, op.getDest());
    Value batch = op.getBatch(), m0 = op.getM0(), n0 = op.getN0();
    if (p.wgmma) {
      WgmmaKernelOperands ops;
      ops.aMap = aMap;
      ops.bMap = bMap;
      ops.cMap = cMap;
      ops.c = dest;
      ops.epilogue = epilogue;
      WgmmaRole role = producerTiles.contains(op)
                           ? WgmmaRole::producer
                           : (split ? WgmmaRole::consumers : WgmmaRole::all);
      // A Stream-K piece goes to its workspace slot (summed by the fix-up,
      // or added there with atomics).
      WgmmaPiece piece;
      if (op.getResult() != TileResult::output) {
        piece.workspace = dest;
        piece.slot = op.getSlot();
        piece.atomic = op.getResult() == TileResult::atomic_add;
      }
      WgmmaTileEmitter(b, loc, p, ops)
          .emitTile(ring, getFragmentEpilogue(op), batch, m0, n0,
                    op.getKBegin(), op.getKEnd(), piece, role);
      rewriter.eraseOp(op);
      return success();
    }
    MmaKernelOperands ops;
    ops.a = flatten(b, loc, op.getLhs());
    ops.b = flatten(b, loc, op.getRhs());
    ops.c = dest;
    ops.epilogue = epilogue;
    ops.shared = gpu::DynamicSharedMemoryOp::create(
        b, loc,
        MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                        MemRefLayoutAttrInterface(),
                        gpu::AddressSpaceAttr::get(
                            b.getContext(), gpu::AddressSpace::Workgroup)));
    MmaSyncTileEmitter emitter(b, loc, p, ops);
    SmallVector<Value> acc =
        emitter.emitMainLoop(batch, m0, n0, op.getKBegin(), op.getKEnd(),
                             /*maskK=*/p.k % p.tk != 0);
    switch (op.getResult()) {
    case TileResult::output:
      emitter.emitEpilogueAndStore(getFragmentEpilogue(op), acc, batch, m0, n0);
      break;
    case TileResult::partial:
      emitter.emitPartialStore(acc, dest, op.getSlot());
      break;
    case TileResult::atomic_add:
      emitter.emitAtomicAdd(acc, dest, op.getSlot(), m0, n0);
      break;
    }
    rewriter.eraseOp(op);
    return success();
  }

  LogicalResult emitFixup(RewriterBase &rewriter, GemmFixupOp op) override {
    Location loc = op.getLoc();
    OpBuilder &b = rewriter;
    MmaKernelOperands ops;
    ops.c = flatten(b, loc, op.getDest());
    ops.epilogue = llvm::map_to_vector(
        op.getEpilogueOperands(), [&](Value v) { return flatten(b, loc, v); });
    MmaSyncTileEmitter emitter(b, loc, p, ops);
    SmallVector<Value> acc =
        emitter.emitSlotSum(flatten(b, loc, op.getWorkspace()),
                            op.getFirstSlot(), op.getNumSlots());
    emitter.emitEpilogueAndStore(getFragmentEpilogue(op), acc, op.getBatch(),
                                 op.getM0(), op.getN0());
    rewriter.eraseOp(op);
    return success();
  }

private:
  const MmaKernelPlan &p;
  bool fixedRoles;
  /// The TMA descriptors of A, B and (plan.tmaStore) C in a wgmma kernel,
  /// and its mbarrier ring.
  Value aMap, bMap, cMap;
  WgmmaRing ring;
  /// Whether the kernel branches on the role around its tile loop, and the
  /// tile ops of the producer's branch.
  bool split = false;
  DenseSet<Operation *> producerTiles;
};

} // namespace

/// A unique kernel name `<func>_mma<i>` for the programs in `func`.
static std::string getKernelName(ModuleOp module, func::FuncOp func,
                                 unsigned index, StringRef suffix) {
  std::string base = getKernelIdentifier(
      llvm::formatv("{0}_mma{1}{2}", func ? func.getSymName() : "gemm", index,
                    suffix)
          .str());
  std::string name = base;
  for (unsigned i = 0; module.lookupSymbol(name); ++i)
    name = llvm::formatv("{0}_{1}", base, i).str();
  return name;
}

/// Replaces the uses of `from` inside `programs` by `to`.
static void replaceInside(RewriterBase &rewriter, scf::ForallOp programs,
                          Value from, Value to) {
  rewriter.replaceUsesWithIf(from, to, [&](OpOperand &use) {
    return programs->isProperAncestor(use.getOwner());
  });
}

/// The kernel of a set of tensor-core GEMM programs: repitched operands and
/// TMA descriptors on the host where the kernel needs them, then the kernel
/// (lowerProgramsToKernel) with the mma.sync or wgmma emitter.
static LogicalResult lowerTensorCorePrograms(
    RewriterBase &rewriter, scf::ForallOp programs, ArrayRef<GemmTileOp> tiles,
    ConfigAttr config, TargetAttr target, ModuleOp module, unsigned index,
    DenseMap<Value, Type> &workspaces, bool tmaStore, bool tmaStoreStaged) {
  MLIRContext *ctx = programs.getContext();
  Location loc = programs.getLoc();
  auto func = programs->getParentOfType<func::FuncOp>();
  int64_t count = getProgramCount(programs);

  // A fix-up kernel: reads the workspace of tensor-core tiles only.
  if (tiles.empty()) {
    GemmFixupOp fixup;
    programs.getBody()->walk([&](GemmFixupOp op) { fixup = op; });
    MmaKernelPlan p = planKernel(config, fixup.getDims(), RhsLayout::nk, false,
                                 false, workspaces.lookup(fixup.getWorkspace()),
                                 fixup.getDestType().getElementType());
    if (p.wgmma) {
      // The pieces of wgmma tiles: the fix-up sums them in the mma.sync
      // layout of warps of 16 x 64 (32 accumulators a thread; the wgmma
      // kernel's 64 to 128 would be twice that with a slot's loads), at
      // most 1024 threads for the largest tile, 128 x 256.
      p.wgmma = false;
      p.warpRows = p.tm / 16;
      p.warpCols = p.tn / 64;
    }
    std::string name = getKernelName(module, func, index, "_fixup");
    NVGPUTileEmitter emitter(p, /*fixedRoles=*/true);
    if (failed(lowerProgramsToKernel(rewriter, programs, module, name,
                                     ArrayAttr(), p.threads(), emitter)))
      return failure();
    remark::passed(loc, remarkOpts(kPassArg, "Fixup")) << remark::reason(
        "{0}: Stream-K fix-up of {1} tile(s), one workgroup of {2} threads "
        "per tile: its workspace slots summed in slot order in the mma.sync "
        "register layout, then the epilogue, once",
        name, count, p.threads());
    return success();
  }

  GemmTileOp first = tiles.front();
  for (GemmTileOp tile : tiles)
    if (tile.getLhs() != first.getLhs() || tile.getRhs() != first.getRhs())
      return tile.emitError()
             << kPassArg
             << ": the tiles of one kernel must read one lhs and "
                "one rhs buffer";
  GemmTileOp output;
  for (GemmTileOp tile : tiles) {
    if (tile.getResult() == TileResult::output)
      output = tile;
    else
      workspaces[tile.getDest()] = tile.getLhsType().getElementType();
  }
  Type resultType =
      output ? output.getDestType().getElementType() : rewriter.getF32Type();
  MmaKernelPlan p = planKernel(first, resultType);
  // How the wgmma kernel applies the epilogue (read before the tile ops go).
  int64_t epilogueInstructions =
      output ? estimateEpilogueInstructions(output.getEpilogueBlock()) : 0;
  // A wgmma program computes its tiles, or Stream-K's pieces of tiles
  // (K ranges of whole k tiles), one after the other on one mbarrier ring:
  // a tile's k tiles follow the previous tile's in the ring, whatever
  // their count.
  bool onePerProgram =
      tiles.size() == 1 && first->getParentOp() == programs.getOperation();
  p.stagedEpilogue =
      output && nvidia::shouldStageEpilogue(output.getEpilogueBlock(), config,
                                            onePerProgram);
  // TMA stores C where a workgroup computes one tile (its ring's A slots
  // are free once its wgmma are done; with tma-store-staged, a staged
  // epilogue's results follow the staged f32 tile in the ring, where they
  // fit) and C's rows start on 16 bytes.
  auto destType =
      output ? dyn_cast<MemRefType>(output.getDest().getType()) : MemRefType();
  int64_t resultBits =
      resultType.isIntOrFloat()
          ? static_cast<int64_t>(resultType.getIntOrFloatBitWidth())
          : 0;
  p.tmaStore =
      tmaStore && p.wgmma && onePerProgram && !p.pingPong &&
      (!p.stagedEpilogue ||
       (tmaStoreStaged && p.tm * p.tn * (4 + resultBits / 8) <=
                              p.stages * p.wgmmaStageBytes())) &&
      destType && destType.hasStaticShape() &&
      destType.getLayout().isIdentity() &&
      ((p.batch == 1 && destType.getShape() == ArrayRef<int64_t>{p.m, p.n}) ||
       destType.getShape() == ArrayRef<int64_t>{p.batch, p.m, p.n}) &&
      (resultBits == 16 || resultBits == 32) &&
      (p.n * resultBits / 8) % nvidia::kChunkBytes == 0 &&
      !programs.getRegion().isAncestor(output.getDest().getParentRegion());

  // Operands as the kernel reads them: rows padded to 16 bytes (cp.async,
  // TMA), to 128 where TMA reads rows that need a new pitch anyway.
  // xpu-materialize-layouts pads them on tensors (once, in <fn>.pack, for
  // weights); an operand it did not pad (a pass pipeline without it) is
  // copied here into a buffer of that pitch on every call, with a missed
  // remark. A buffer with a pitch of its own is read with that pitch.
  rewriter.setInsertionPoint(programs);
  std::string name = getKernelName(module, func, index, "");
  std::optional<KernelModuleBuilder> copies;
  auto repitch = [&](Value buffer, int64_t cols, int64_t pitch,
                     StringRef what) -> Value {
    auto type = cast<MemRefType>(buffer.getType());
    if (type.getShape().back() != cols || pitch == cols)
      return buffer;
    if (!copies) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToEnd(module.getBody());
      copies.emplace(rewriter, loc,
                     gpu::GPUModuleOp::create(rewriter, loc, name + "_copy"));
    }
    Value dst = copies->repitch(buffer, cols, pitch, what);
    replaceInside(rewriter, programs, buffer, dst);
    return dst;
  };
  Value a = repitch(first.getLhs(), p.k, p.aPitch, "A");
  Value bBuf = repitch(first.getRhs(), p.rhsNK ? p.k : p.n, p.bPitch, "B");
  p.aPitch = cast<MemRefType>(a.getType()).getShape().back();
  p.bPitch = cast<MemRefType>(bBuf.getType()).getShape().back();

  if (p.wgmma) {
    // TMA descriptors of A and B (128-byte swizzle, zeros outside) made on
    // the host; the kernel receives them as pointers (convert-gpu-to-nvvm
    // cannot convert nvgpu types in signatures) and views them again.
    Operation *lastView = nullptr;
    auto map = [&](Value buffer, ArrayRef<int64_t> box, int64_t which) {
      auto type = cast<MemRefType>(buffer.getType());
      Type element = type.getElementType();
      SmallVector<int64_t> shape;
      if (type.getRank() == 3)
        shape.push_back(1);
      shape.append(box.begin(), box.end());
      auto descType = nvgpu::TensorMapDescriptorType::get(
          ctx,
          MemRefType::get(
              shape, element, MemRefLayoutAttrInterface(),
              gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)),
          nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
          nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
          nvgpu::TensorMapOOBKind::OOB_ZERO,
          nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
      Value unranked = memref::CastOp::create(
          rewriter, loc, UnrankedMemRefType::get(element, Attribute()), buffer);
      SmallVector<Value> dims = llvm::map_to_vector(shape, [&](int64_t d) {
        return arith::ConstantIndexOp::create(rewriter, loc, d).getResult();
      });
      Value desc = nvgpu::TmaCreateDescriptorOp::create(rewriter, loc, descType,
                                                        unranked, dims);
      Value ptr = UnrealizedConversionCastOp::create(
                      rewriter, loc, LLVM::LLVMPointerType::get(ctx), desc)
                      .getResult(0);
      // The views in the order of `which` at the start of the programs.
      OpBuilder::InsertionGuard guard(rewriter);
      if (lastView)
        rewriter.setInsertionPointAfter(lastView);
      else
        rewriter.setInsertionPointToStart(programs.getBody());
      auto view =
          UnrealizedConversionCastOp::create(rewriter, loc, descType, ptr);
      view->setAttr(kTmaOperandAttr, rewriter.getI64IntegerAttr(which));
      lastView = view;
    };
    map(a, {p.tm, p.tk}, 0);
    // Clustered, each workgroup loads 1 / clusterM of B's rows.
    if (p.rhsNK)
      map(bBuf, {p.tn / p.clusterM, p.tk}, 1);
    else
      map(bBuf, {p.tk, 64}, 1);
    // C's boxes: 64 rows (a consumer warpgroup's) of 128 bytes.
    if (p.tmaStore)
      map(output.getDest(), {64, nvidia::kTmaRowBytes / (resultBits / 8)}, 2);
  }

  // The register model's estimate is the kernel's register budget, with a
  // floor of kMinRegisterBudget: ptxas keeps within it (or spills, which
  // the ptxas tests catch). Read before the tile ops go.
  int64_t estimate = 0, registers = 0;
  if (!p.wgmma) {
    Type modelType =
        p.operandType.isF32() ? Type(FloatTF32Type::get(ctx)) : p.operandType;
    RegisterModel model =
        RegisterModel::get(target, config, KernelKind::Matrix, modelType);
    Block &block = (output ? output : first).getEpilogueBlock();
    SmallVector<Operation *> epilogueOps;
    for (Operation &op : block.without_terminator())
      epilogueOps.push_back(&op);
    estimate =
        model.estimate(peakLiveFragments(epilogueOps, {block.getArgument(0)},
                                         block.getTerminator()->getOperand(0)));
    registers =
        std::min(std::max(estimate, kMinRegisterBudget), target.getGrfCount());
  }

  int64_t threads = p.wgmma ? p.wgmmaThreads() : p.threads();
  int64_t sharedBytes =
      p.wgmma ? WgmmaTileEmitter::sharedBytes(p) : p.sharedBytes();
  NVGPUTileEmitter emitter(p, /*fixedRoles=*/onePerProgram);
  FailureOr<gpu::GPUFuncOp> kernel =
      lowerProgramsToKernel(rewriter, programs, module, name, ArrayAttr(),
                            threads, emitter, sharedBytes, p.clusterM);
  if (failed(kernel))
    return failure();
  // ptxas learns the cluster shape too (.reqnctapercluster).
  if (p.clusterM > 1)
    (*kernel)->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                       rewriter.getDenseI32ArrayAttr(
                           {static_cast<int32_t>(p.clusterM), 1, 1}));
  if (registers != 0)
    (*kernel)->setAttr("nvvm.maxnreg", rewriter.getI32IntegerAttr(registers));

  std::string shape = describeGemmShape(p.batch, p.m, p.n, p.k, p.lhsBatched);
  std::string schedule =
      llvm::formatv("{0} program(s), {1} tile op(s) ({2})", count, tiles.size(),
                    stringifySchedule(config.getSchedule().getKind()));
  if (p.wgmma) {
    remark::passed(loc, remarkOpts(kPassArg, "Kernel")) << remark::reason(
        "{0}: {1} on tensor cores, wgmma m64n{2}k{15} {3}, f32 accumulators: "
        "{4} of {5} threads (1 TMA producer warpgroup, {6}), tile "
        "{7}x{8}x{9}, {10}-stage TMA/mbarrier "
        "ring with 128-byte swizzle, {11} bytes of dynamic shared memory, B "
        "read {12}{16}; {13} accumulators per consumer thread; {14}",
        name, shape, p.tn,
        p.operandType.isF32() ? std::string("tf32 (f32 operands as TMA loaded "
                                            "them, not rounded first)")
                              : llvm::formatv("{0}", p.operandType).str(),
        schedule, threads,
        p.pingPong
            ? std::string("2 pingpong consumer warpgroups that take turns at "
                          "whole tiles, one's epilogue during the other's "
                          "wgmma")
            : llvm::formatv("{0} consumer warpgroup(s) of 64 rows",
                            p.consumerWarpgroups())
                  .str(),
        p.tm, p.tn, p.tk, p.stages, sharedBytes,
        p.rhsNK ? "K-major ([n, k])" : "N-major ([k, n])",
        p.consumerRows() / 64 * p.tn / 2,
        p.stagedEpilogue
            ? llvm::formatv(
                  "epilogue in a loop over the accumulators staged through "
                  "the ring's shared memory (about {0} instructions an "
                  "element: straight-line code for {1} elements would pass "
                  "{2})",
                  epilogueInstructions, p.tn / 2,
                  nvidia::kStraightEpilogueInstructions)
                      .str() +
                  (p.tmaStore
                       ? llvm::formatv(", its results written after them as "
                                       "boxes of 64x{0} and stored with TMA "
                                       "by one thread per consumer warpgroup",
                                       nvidia::kTmaRowBytes / (resultBits / 8))
                             .str()
                       : std::string())
        : p.tmaStore
            ? llvm::formatv(
                  "epilogue on the accumulator registers, its results "
                  "written into the ring's A slots as boxes of 64x{0} and "
                  "stored with TMA by one thread per consumer warpgroup",
                  nvidia::kTmaRowBytes / (resultBits / 8))
                  .str()
            : std::string("epilogue on the accumulator registers"),
        nvidia::getWgmmaInstructionK(p.operandBytes()),
        p.clusterM > 1
            ? llvm::formatv(", in clusters of {0} workgroups along M that "
                            "share it: each loads 1/{0} of the B box and "
                            "multicasts it to all of them",
                            p.clusterM)
                  .str()
            : std::string());
    return success();
  }
  Type elt = p.operandType;
  std::string mma = elt.isF32() ? "m16n8k8 tf32 (f32 operands rounded to "
                                  "10-bit mantissas)"
                                : llvm::formatv("m16n8k16 {0}", elt).str();
  remark::passed(loc, remarkOpts(kPassArg, "Kernel")) << remark::reason(
      "{0}: {1} on tensor cores, mma.sync {2}, f32 accumulators: {3} of {4} "
      "threads ({5}x{6} warps of {7}x{8}), tile {9}x{10}x{11}, {12}-stage "
      "cp.async pipeline, {13} bytes of dynamic shared memory, B read as "
      "[{14}]{15}; {16} accumulators and {17} fragment registers per thread, "
      "at most {18} registers (.maxnreg: the register model's estimate, "
      "{19}, at least {20})",
      name, shape, mma, schedule, p.threads(), p.warpRows, p.warpCols,
      p.warpM(), p.warpN(), p.tm, p.tn, p.tk, p.stages, sharedBytes,
      p.rhsNK ? "n, k" : "k, n",
      p.rhsNK ? " (ldmatrix)"
              : (elt.isF32() ? " (32-bit shared loads; ldmatrix cannot "
                               "transpose 32-bit elements)"
                             : " (ldmatrix.trans)"),
      p.accumulatorsPerThread(), p.fragmentRegisters(), registers, estimate,
      kMinRegisterBudget);
  return success();
}

namespace {
/// nvgpu.tma.create.descriptor reads the shape, strides and address of its
/// memref (the kernel reads the memory itself, through the buffer passed
/// next to the descriptor).
struct TmaCreateDescriptorMemoryEffects
    : MemoryEffectOpInterface::ExternalModel<TmaCreateDescriptorMemoryEffects,
                                             nvgpu::TmaCreateDescriptorOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    effects.emplace_back(MemoryEffects::Read::get(), &op->getOpOperand(0),
                         SideEffects::DefaultResource::get());
  }
};
} // namespace

void mlir::xpu::registerXPUNVGPUMemoryEffects(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, nvgpu::NVGPUDialect *) {
    nvgpu::TmaCreateDescriptorOp::attachInterface<
        TmaCreateDescriptorMemoryEffects>(*ctx);
  });
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertXPUToNVGPUPass final
    : xpu::impl::XPUConvertXPUToNVGPUPassBase<ConvertXPUToNVGPUPass> {
  using Base::Base;

  /// The models of upstream ops the pass's output relies on come with the
  /// pass, not with loading the xpu dialect: the launches' and barriers'
  /// effects (buffer deallocation places frees after them), the TMA
  /// descriptors' reads, and #nvvm.target for gpu-module-to-binary.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerGPULaunchMemoryEffectsModel(registry);
    registerGPUBarrierMemoryEffectsModel(registry);
    registerXPUNVGPUMemoryEffects(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
    // For the earlier passes of a pipeline run without registerXPUDialect
    // (a pass plugin alone): xpu-materialize-layouts, xpu-schedule-gemm.
    registerNVGPUGemmBackend(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TargetAttr target = resolveTarget(module);
    bool ok = true;
    module.walk([&](GemmOp gemm) {
      if (!gemm.getConfigAttr() || !gemm.getConfigAttr().getNVGPU())
        return;
      gemm.emitError() << kPassArg
                       << ": xpu.gemm is not scheduled; run "
                          "xpu-schedule-gemm first";
      ok = false;
    });
    if (!ok)
      return signalPassFailure();

    IRRewriter rewriter(&getContext());
    DenseMap<Operation *, unsigned> counters;
    // Workspaces of tensor-core tiles, with their operand type: their
    // fix-ups are lowered here too.
    DenseMap<Value, Type> workspaces;
    for (scf::ForallOp programs : collectGemmPrograms(module)) {
      FailureOr<ConfigAttr> config = getProgramsConfig(programs);
      if (failed(config))
        return signalPassFailure();
      SmallVector<GemmTileOp> tiles;
      GemmFixupOp fixup;
      programs.getBody()->walk([&](Operation *op) {
        if (auto tile = dyn_cast<GemmTileOp>(op))
          tiles.push_back(tile);
        else if (auto f = dyn_cast<GemmFixupOp>(op))
          fixup = f;
      });
      if (tiles.empty() && !workspaces.contains(fixup.getWorkspace()))
        continue;
      if (!tiles.empty()) {
        if (!config->getNVGPU()) {
          auto backend =
              dyn_cast<GemmBackendAttrInterface>(getGemmBackendAttr(*config));
          StringRef name = backend ? backend.getBackendName() : "unknown";
          remark::missed(programs.getLoc(), remarkOpts(kPassArg, "SIMT"))
              << remark::reason(
                     "{0} operands with a {1} config: left to the {1} "
                     "backend's lowering; xpu-select-strategy gives the "
                     "GEMMs that the tensor cores take (16-bit operands, or "
                     "f32 with tf32) an #xpu.nvgpu config",
                     tiles.front().getLhsType().getElementType(), name);
          continue;
        }
        for (GemmTileOp tile : tiles)
          if (failed(checkNVGPULowerable(tile, target)))
            return signalPassFailure();
      }
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      UnitAttr::get(&getContext()));
      auto func = programs->getParentOfType<func::FuncOp>();
      unsigned index = tiles.empty() ? counters[func] - 1 : counters[func]++;
      if (failed(lowerTensorCorePrograms(rewriter, programs, tiles, *config,
                                         target, module, index, workspaces,
                                         tmaStore, tmaStoreStaged)))
        return signalPassFailure();
      ++numKernels;
    }
  }
};
} // namespace
