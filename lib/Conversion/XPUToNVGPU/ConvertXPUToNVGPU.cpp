//===- ConvertXPUToNVGPU.cpp - xpu.gemm to tensor-core kernels ------------===//
//
// The host side of the NVIDIA tensor-core GEMMs and their data-parallel
// driver. Each xpu.gemm becomes, on tensors: buffers of its operands (rows
// re-pitched by a small kernel where cp.async or TMA needs it), a result
// buffer, and a gpu.launch_func of a kernel in its own gpu.module whose
// workgroups each compute one output tile with the mma.sync tile emitter
// (MmaSyncTileEmitter.cpp) or, on sm_90a, the TMA + wgmma one
// (WgmmaTileEmitter.cpp). docs/NVIDIA.md describes the kernels.
//
// Catalog: level_1_baseline_xpu (tiles, GROUP_SIZE_M swizzle),
// dtype_prepack_bf16 (tensor-core operands) and
// int64_cast_for_large_batch_offsets (offsets in 64-bit index arithmetic).
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUToGPU/XPUToGPU.h"
#include "xpu/Conversion/XPUToNVGPU/XPUToNVGPU.h"
#include "xpu/Conversion/XPUToXeGPU/XPUToXeGPU.h"
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
/// Threads per workgroup of the re-pitching kernels.
static constexpr int64_t kCopyThreads = 256;
/// Alignment of the buffers this lowering allocates (cp.async reads 16-byte
/// chunks; 128 leaves room for vector stores and TMA).
static constexpr int64_t kBufferAlignment = 128;

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

static bool isTensorCoreType(Type t) { return t.isBF16() || t.isF16(); }

/// Types the kernel computes the epilogue in.
static bool isKernelScalarType(Type t) {
  return t.isF64() || t.isF32() || t.isF16() || t.isBF16() ||
         (t.isSignlessInteger() && t.getIntOrFloatBitWidth() <= 64);
}

static bool isCapturable(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  return cst && cst.getType().isIntOrIndexOrFloat();
}

/// True when `gemm` is one the tensor cores run: 16-bit operands, or f32
/// ones in tf32 when asked.
static bool runsOnTensorCores(GemmOp gemm, bool tf32) {
  Type elt = gemm.getLhsType().getElementType();
  return isTensorCoreType(elt) || (tf32 && elt.isF32());
}

/// The plan of `gemm`'s kernel from its config (mma.sync).
static MmaKernelPlan planKernel(GemmOp gemm) {
  ConfigAttr config = gemm.getConfigAttr();
  MmaKernelPlan p;
  p.batch = gemm.getBatchSize();
  p.m = gemm.getM();
  p.n = gemm.getN();
  p.k = gemm.getK();
  p.rhsNK = gemm.getRhsLayout() == RhsLayout::nk;
  p.lhsBatched = gemm.getLhsType().getRank() == 3;
  p.rhsBatched = gemm.getRhsType().getRank() == 3;
  p.operandType = gemm.getLhsType().getElementType();
  p.resultType = gemm.getResultType().getElementType();
  ArrayRef<int64_t> tile = config.getTile();
  p.tm = tile[0];
  p.tn = tile[1];
  p.tk = tile[2];
  p.warpRows = config.getSubgroups()[0];
  p.warpCols = config.getSubgroups()[1];
  // A one-stage config (a single k tile) still runs the two-stage pipeline:
  // the second stage is never filled.
  p.stages = std::max<int64_t>(config.getStages(), 2);
  p.groupM = std::max<int64_t>(config.getGroupM(), 1);
  int64_t ce = p.chunkElems();
  p.aPitch = llvm::alignTo(p.k, ce);
  p.bPitch = p.rhsNK ? p.aPitch : llvm::alignTo(p.n, ce);
  return p;
}

/// Whether the target runs wgmma kernels (the architecture-specific sm_90a).
static bool hasWgmma(TargetAttr target) { return target.getChip() == "sm_90a"; }

/// The wgmma plan for `gemm` on sm_90a: the config's tile rows and columns,
/// k tiles of one 128-byte swizzled row, as many stages as fit (at most 4,
/// which covers the TMA latency at these tile sizes); std::nullopt with the
/// reason in `why` when the config does not suit wgmma.
static std::optional<MmaKernelPlan> planWgmmaKernel(GemmOp gemm,
                                                    std::string &why) {
  MmaKernelPlan p = planKernel(gemm);
  if (p.operandBytes() != 2) {
    why = "tf32 operands run on mma.sync";
    return std::nullopt;
  }
  p.wgmma = true;
  p.tk = 128 / p.operandBytes();
  // TMA reads rows best from 128-byte aligned addresses: rows that need a
  // new pitch anyway get a multiple of 128 bytes.
  int64_t rowElems = 128 / p.operandBytes();
  if (p.aPitch != p.k)
    p.aPitch = llvm::alignTo(p.k, rowElems);
  int64_t bCols = p.rhsNK ? p.k : p.n;
  if (p.bPitch != bCols)
    p.bPitch = llvm::alignTo(bCols, rowElems);
  p.stages = 4;
  while (p.stages > 2 && !checkWgmmaKernelPlan(p).empty())
    --p.stages;
  why = checkWgmmaKernelPlan(p);
  if (!why.empty())
    return std::nullopt;
  return p;
}

LogicalResult mlir::xpu::checkNVGPULowerable(GemmOp gemm, TargetAttr target) {
  auto fail = [&](const Twine &why) {
    return gemm.emitError() << kPassArg << ": " << why;
  };
  if (!target.isNvidia())
    return fail(llvm::formatv("the target '{0}' is not an NVIDIA target",
                              target.getChip()));
  ConfigAttr config = gemm.getConfigAttr();
  if (!config)
    return fail("the GEMM has no #xpu.config; run xpu-select-strategy first");
  if (config.getSchedule().getKind() != Schedule::data_parallel)
    return fail(
        llvm::formatv("schedule {0} is not lowered to tensor cores "
                      "yet (only data_parallel)",
                      stringifySchedule(config.getSchedule().getKind())));
  if (gemm.getLhsType().getElementType() != gemm.getRhsType().getElementType())
    return fail("lhs and rhs element types differ");
  if (!gemm.getAccType().isF32())
    return fail(llvm::formatv("accumulator {0}: tensor cores accumulate in f32",
                              gemm.getAccType()));
  if (!isKernelScalarType(gemm.getResultType().getElementType()))
    return fail(llvm::formatv("result element type {0} is not stored by the "
                              "kernel",
                              gemm.getResultType().getElementType()));
  for (Value operand : gemm.getEpilogueOperands())
    if (!isKernelScalarType(getElementTypeOrSelf(operand.getType())))
      return fail(llvm::formatv("epilogue operand of type {0} is not read by "
                                "the kernel",
                                operand.getType()));
  Block &block = gemm.getEpilogueBlock();
  for (Operation &op : block.without_terminator()) {
    if (op.getNumRegions() != 0 || op.getNumResults() != 1 || !isPure(&op))
      return op.emitError() << kPassArg << ": epilogue op '" << op.getName()
                            << "' is not a pure scalar op";
    for (Type t : op.getResultTypes())
      if (!isKernelScalarType(t))
        return op.emitError()
               << kPassArg << ": epilogue op '" << op.getName()
               << "' computes in " << t << ", which the kernel does not";
    for (Value v : op.getOperands())
      if (v.getParentRegion() != &gemm.getEpilogue() && !isCapturable(v))
        return op.emitError() << kPassArg
                              << ": the epilogue uses a value defined outside "
                                 "the GEMM that is not a scalar constant";
  }
  Value yielded = block.getTerminator()->getOperand(0);
  if (yielded.getParentRegion() != &gemm.getEpilogue() &&
      !isCapturable(yielded))
    return fail("the epilogue yields a value defined outside the GEMM that is "
                "not a scalar constant");
  MmaKernelPlan plan = planKernel(gemm);
  std::string why = checkMmaKernelPlan(plan);
  if (!why.empty())
    return fail(
        llvm::formatv("cannot generate a kernel for {0}: {1}", config, why));
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

/// Builds kernels into one gpu.module and launches them before `gemm`.
class KernelModuleBuilder {
public:
  KernelModuleBuilder(RewriterBase &rewriter, GemmOp gemm,
                      gpu::GPUModuleOp module)
      : rewriter(rewriter), gemm(gemm), module(module), loc(gemm.getLoc()) {}

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
    remark::passed(loc, remarkOpts(kPassArg, "Repitch")) << remark::reason(
        "{0}: rows of {1} x {2} bytes are not 16-byte multiples (cp.async "
        "and TMA read 16-byte aligned rows): copied by a kernel into rows of "
        "{3} elements, zero-filled, before the GEMM",
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
  GemmOp gemm;
  gpu::GPUModuleOp module;
  Location loc;
  unsigned repitches = 0;
};

/// A name that is a valid PTX identifier: letters, digits, `_` and `$`.
std::string ptxIdentifier(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) || c == '_' || c == '$' ? c : '_');
  if (out.empty() || llvm::isDigit(out.front()))
    out.insert(out.begin(), '_');
  return out;
}

} // namespace

void mlir::xpu::lowerGemmToMmaSync(RewriterBase &rewriter, GemmOp gemm,
                                   TargetAttr target, ModuleOp module,
                                   unsigned index) {
  MLIRContext *ctx = gemm.getContext();
  Location loc = gemm.getLoc();
  MmaKernelPlan p = planKernel(gemm);
  if (hasWgmma(target)) {
    std::string why;
    if (std::optional<MmaKernelPlan> w = planWgmmaKernel(gemm, why))
      p = *w;
    else
      remark::missed(loc, remarkOpts(kPassArg, "NoWgmma"))
          << remark::reason("{0}: mma.sync instead of wgmma on {1}: {2}",
                            describeGemmShape(gemm), target.getChip(), why);
  }
  auto func = gemm->getParentOfType<func::FuncOp>();
  std::string base = ptxIdentifier(
      llvm::formatv("{0}_mma{1}", func ? func.getSymName() : "gemm", index)
          .str());
  std::string name = base;
  for (unsigned i = 0; module.lookupSymbol(name); ++i)
    name = llvm::formatv("{0}_{1}", base, i).str();

  gpu::GPUModuleOp gpuModule;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    gpuModule = gpu::GPUModuleOp::create(rewriter, loc, name);
  }
  rewriter.setInsertionPoint(gemm);
  KernelModuleBuilder kernels(rewriter, gemm, gpuModule);
  auto toBuffer = [&](Value t) -> Value {
    auto type = cast<RankedTensorType>(t.getType());
    return bufferization::ToBufferOp::create(
        rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
        t, /*read_only=*/true);
  };

  // Operands as the kernel reads them: rows padded to 16 bytes.
  Value a = toBuffer(gemm.getLhs());
  if (p.aPitch != p.k)
    a = kernels.repitch(a, p.k, p.aPitch, "A");
  Value bBuf = toBuffer(gemm.getRhs());
  int64_t bCols = p.rhsNK ? p.k : p.n;
  if (p.bPitch != bCols)
    bBuf = kernels.repitch(bBuf, bCols, p.bPitch, "B");
  RankedTensorType resultType = gemm.getResultType();
  auto cType = MemRefType::get(resultType.getShape(), p.resultType);
  Value c = memref::AllocOp::create(
      rewriter, loc, cType, rewriter.getI64IntegerAttr(kBufferAlignment));
  SmallVector<Value> args;
  // The TMA descriptor types, for the kernel to view its pointer arguments
  // as (convert-gpu-to-nvvm cannot convert nvgpu types in signatures).
  SmallVector<Type> mapTypes;
  if (p.wgmma) {
    // TMA descriptors of A and B (128-byte swizzle, zeros outside); the
    // buffers follow as arguments the kernel does not read, so that they
    // live until it has run.
    auto map = [&](Value buffer, ArrayRef<int64_t> box) -> Value {
      auto type = cast<MemRefType>(buffer.getType());
      SmallVector<int64_t> shape;
      if (type.getRank() == 3)
        shape.push_back(1);
      shape.append(box.begin(), box.end());
      auto descType = nvgpu::TensorMapDescriptorType::get(
          ctx,
          MemRefType::get(
              shape, p.operandType, MemRefLayoutAttrInterface(),
              gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)),
          nvgpu::TensorMapSwizzleKind::SWIZZLE_128B,
          nvgpu::TensorMapL2PromoKind::L2PROMO_256B,
          nvgpu::TensorMapOOBKind::OOB_ZERO,
          nvgpu::TensorMapInterleaveKind::INTERLEAVE_NONE);
      Value unranked = memref::CastOp::create(
          rewriter, loc, UnrankedMemRefType::get(p.operandType, Attribute()),
          buffer);
      SmallVector<Value> dims = llvm::map_to_vector(shape, [&](int64_t d) {
        return arith::ConstantIndexOp::create(rewriter, loc, d).getResult();
      });
      Value desc = nvgpu::TmaCreateDescriptorOp::create(rewriter, loc, descType,
                                                        unranked, dims);
      mapTypes.push_back(descType);
      return UnrealizedConversionCastOp::create(
                 rewriter, loc, LLVM::LLVMPointerType::get(ctx), desc)
          .getResult(0);
    };
    args.push_back(map(a, {p.tm, p.tk}));
    args.push_back(p.rhsNK ? map(bBuf, {p.tn, p.tk}) : map(bBuf, {p.tk, 64}));
    args.push_back(flatten(rewriter, loc, c));
    for (Value operand : gemm.getEpilogueOperands())
      args.push_back(flatten(rewriter, loc, toBuffer(operand)));
    args.push_back(flatten(rewriter, loc, a));
    args.push_back(flatten(rewriter, loc, bBuf));
  } else {
    args = {flatten(rewriter, loc, a), flatten(rewriter, loc, bBuf),
            flatten(rewriter, loc, c)};
    for (Value operand : gemm.getEpilogueOperands())
      args.push_back(flatten(rewriter, loc, toBuffer(operand)));
  }
  unsigned numEpilogue = gemm.getEpilogueOperands().size();

  // The kernel and its data-parallel driver.
  SmallVector<Type> argTypes;
  for (Value v : args)
    argTypes.push_back(v.getType());
  int64_t threads = p.wgmma ? p.wgmmaThreads() : p.threads();
  gpu::GPUFuncOp kernel = kernels.createKernel(name, argTypes, threads);
  // The register model's estimate is the kernel's register budget: ptxas
  // keeps within it (or spills, which the ptxas tests catch).
  int64_t registers = 0;
  if (!p.wgmma) {
    Type modelType =
        p.operandType.isF32() ? Type(FloatTF32Type::get(ctx)) : p.operandType;
    RegisterModel model = RegisterModel::get(target, gemm.getConfigAttr(),
                                             KernelKind::Matrix, modelType);
    Block &block = gemm.getEpilogueBlock();
    SmallVector<Operation *> epilogueOps;
    for (Operation &op : block.without_terminator())
      epilogueOps.push_back(&op);
    registers = std::min<int64_t>(
        model.estimate(peakLiveFragments(epilogueOps, {gemm.getAccArgument()},
                                         block.getTerminator()->getOperand(0))),
        255);
    kernel->setAttr("nvvm.maxnreg", rewriter.getI32IntegerAttr(registers));
  }
  {
    OpBuilder::InsertionGuard guard(rewriter);
    OpBuilder &b = rewriter;
    b.setInsertionPointToStart(&kernel.getBody().front());
    auto idx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };

    // Program id -> tile: group_m rows of tiles walked together (Triton's
    // GROUP_SIZE_M) so that their B columns stay in L2.
    int64_t tilesM = p.tilesM(), tilesN = p.tilesN();
    Value pid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
    Value inGroup = idx(p.groupM * tilesN);
    Value group = arith::DivUIOp::create(b, loc, pid, inGroup);
    Value firstM = arith::MulIOp::create(b, loc, group, idx(p.groupM));
    Value left = arith::SubIOp::create(b, loc, idx(tilesM), firstM);
    Value groupSize = arith::MinSIOp::create(b, loc, left, idx(p.groupM));
    Value local = arith::RemUIOp::create(b, loc, pid, inGroup);
    Value pidM = arith::AddIOp::create(
        b, loc, firstM, arith::RemUIOp::create(b, loc, local, groupSize));
    Value pidN = arith::DivUIOp::create(b, loc, local, groupSize);
    Value m0 = arith::MulIOp::create(b, loc, pidM, idx(p.tm));
    Value n0 = arith::MulIOp::create(b, loc, pidN, idx(p.tn));
    Value batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);

    if (p.wgmma) {
      WgmmaKernelOperands operands;
      operands.aMap = UnrealizedConversionCastOp::create(b, loc, mapTypes[0],
                                                         kernel.getArgument(0))
                          .getResult(0);
      operands.bMap = UnrealizedConversionCastOp::create(b, loc, mapTypes[1],
                                                         kernel.getArgument(1))
                          .getResult(0);
      operands.c = kernel.getArgument(2);
      for (unsigned i = 0; i < numEpilogue; ++i)
        operands.epilogue.push_back(kernel.getArgument(3 + i));
      WgmmaTileEmitter(b, loc, p, operands)
          .emitTile(gemm, batch, m0, n0, idx(0), idx(p.k));
    } else {
      MmaKernelOperands operands;
      operands.a = kernel.getArgument(0);
      operands.b = kernel.getArgument(1);
      operands.c = kernel.getArgument(2);
      for (unsigned i = 0; i < numEpilogue; ++i)
        operands.epilogue.push_back(kernel.getArgument(3 + i));
      operands.shared = gpu::DynamicSharedMemoryOp::create(
          b, loc,
          MemRefType::get(
              {ShapedType::kDynamic}, b.getI8Type(),
              MemRefLayoutAttrInterface(),
              gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup)));
      MmaSyncTileEmitter emitter(b, loc, p, operands);
      SmallVector<Value> acc = emitter.emitMainLoop(
          batch, m0, n0, idx(0), idx(p.k), /*maskK=*/p.k % p.tk != 0);
      emitter.emitEpilogueAndStore(gemm, acc, batch, m0, n0);
    }
    gpu::ReturnOp::create(b, loc);
  }

  // The launch: one workgroup per tile, the batch in y.
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  int64_t sharedBytes =
      p.wgmma ? WgmmaTileEmitter::sharedBytes(p) : p.sharedBytes();
  Value shared = arith::ConstantIntOp::create(
      rewriter, loc, rewriter.getI32Type(), sharedBytes);
  int64_t tiles = p.tilesM() * p.tilesN();
  gpu::LaunchFuncOp::create(
      rewriter, loc, kernel, gpu::KernelDim3{idx(tiles), idx(p.batch), idx(1)},
      gpu::KernelDim3{idx(threads), idx(1), idx(1)}, shared, args);
  if (p.wgmma) {
    remark::passed(loc, remarkOpts(kPassArg, "Kernel")) << remark::reason(
        "{0}: {1} on tensor cores, wgmma m64n{2}k16 {3}, f32 accumulators: "
        "{4} workgroups{5} of {6} threads (1 TMA producer warpgroup, {7} "
        "consumer warpgroup(s) of 64 rows), tile {8}x{9}x{10}, {11}-stage "
        "TMA/mbarrier ring with 128-byte swizzle, {12} bytes of dynamic "
        "shared memory, B read {13}; {14} accumulators per consumer thread",
        name, describeGemmShape(gemm), p.tn, p.operandType, tiles,
        p.batch > 1 ? llvm::formatv(" x {0} batches", p.batch).str()
                    : std::string(),
        threads, p.consumerWarpgroups(), p.tm, p.tn, p.tk, p.stages,
        sharedBytes, p.rhsNK ? "K-major ([n, k])" : "N-major ([k, n])",
        p.tn / 2);
    Value result = bufferization::ToTensorOp::create(
        rewriter, loc, resultType, c, /*restrict=*/true, /*writable=*/true);
    rewriter.replaceOp(gemm, result);
    return;
  }

  Type elt = p.operandType;
  std::string mma = elt.isF32() ? "m16n8k8 tf32 (f32 operands rounded to "
                                  "10-bit mantissas)"
                                : llvm::formatv("m16n8k16 {0}", elt).str();
  remark::passed(loc, remarkOpts(kPassArg, "Kernel")) << remark::reason(
      "{0}: {1} on tensor cores, mma.sync {2}, f32 accumulators: {3} "
      "workgroups{4} of {5} threads ({6}x{7} warps of {8}x{9}), tile "
      "{10}x{11}x{12}, {13}-stage cp.async pipeline, {14} bytes of dynamic "
      "shared memory, B read as [{15}]{16}; {17} accumulators and {18} "
      "fragment registers per thread, at most {19} registers (the register "
      "model's estimate)",
      name, describeGemmShape(gemm), mma, tiles,
      p.batch > 1 ? llvm::formatv(" x {0} batches", p.batch).str()
                  : std::string(),
      p.threads(), p.warpRows, p.warpCols, p.warpM(), p.warpN(), p.tm, p.tn,
      p.tk, p.stages, p.sharedBytes(), p.rhsNK ? "n, k" : "k, n",
      p.rhsNK ? " (ldmatrix)"
              : (elt.isF32() ? " (32-bit shared loads; ldmatrix cannot "
                               "transpose 32-bit elements)"
                             : " (ldmatrix.trans)"),
      p.accumulatorsPerThread(), p.fragmentRegisters(), registers);

  Value result = bufferization::ToTensorOp::create(
      rewriter, loc, resultType, c, /*restrict=*/true, /*writable=*/true);
  rewriter.replaceOp(gemm, result);
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
    registerXPUGPULaunchMemoryEffects(registry);
    registerGPUBarrierMemoryEffectsModel(registry);
    registerXPUNVGPUMemoryEffects(registry);
    NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<GemmOp> gemms;
    module.walk([&](GemmOp gemm) { gemms.push_back(gemm); });
    if (gemms.empty())
      return;
    TargetAttr target = resolveTarget(module);

    SmallVector<GemmOp> lowered;
    bool ok = true;
    for (GemmOp gemm : gemms) {
      Type elt = gemm.getLhsType().getElementType();
      if (!runsOnTensorCores(gemm, tf32)) {
        remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "SIMT"))
            << remark::reason(
                   "{0} operands{1}: left to the f32 SIMT kernels "
                   "(convert-xpu-to-gpu); precision=tf32 or bf16 runs f32 "
                   "models on tensor cores",
                   elt,
                   elt.isF32() ? " without tf32" : " (no tensor-core type)");
        continue;
      }
      if (failed(checkNVGPULowerable(gemm, target))) {
        ok = false;
        continue;
      }
      lowered.push_back(gemm);
    }
    if (!ok)
      return signalPassFailure();

    if (!lowered.empty())
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      UnitAttr::get(&getContext()));
    IRRewriter rewriter(&getContext());
    DenseMap<Operation *, unsigned> counters;
    for (GemmOp gemm : lowered) {
      unsigned &counter = counters[gemm->getParentOfType<func::FuncOp>()];
      lowerGemmToMmaSync(rewriter, gemm, target, module, counter++);
      ++numKernels;
    }
  }
};
} // namespace
