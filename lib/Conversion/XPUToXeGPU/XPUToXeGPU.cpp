//===- XPUToXeGPU.cpp - xpu.gemm to workgroup-level XeGPU kernels ---------===//
//
// Catalog: mem_block_pointers / descriptor patterns (2D block descriptors,
// boundaries handled by the descriptor: descriptor_no_boundary_check_arg),
// dtype_prepack_bf16 (DPAS operands), grf_mode and
// int64_cast_for_large_batch_offsets. docs/Intel.md describes the kernels.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/XPUToXeGPU/XPUToXeGPU.h"
#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/XeVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/XeGPU/IR/XeGPU.h"
#include "mlir/Dialect/XeGPU/Utils/XeGPUUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Target/LLVM/XeVM/Target.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCONVERTTOXEGPUPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "convert-xpu-to-xegpu";
/// Lanes of a subgroup: DPAS runs on SIMD16 on pvc and bmg.
static constexpr int64_t kLanes = 16;
/// DPAS shape for 16-bit operands: A 8x16, B 16x16, C 8x16.
static constexpr int64_t kDpasM = 8, kDpasN = 16, kDpasK = 16;
/// 2D block surfaces: the row pitch is at least 64 bytes and a multiple of
/// 16 bytes (cl_intel_subgroup_2d_block_io; pvc and Xe2).
static constexpr int64_t kMinPitchBytes = 64, kPitchAlignBytes = 16;
/// Buffers the lowering allocates are 64-byte aligned (block base address).
static constexpr int64_t kBaseAlignment = 64;
/// The large register file option of IGC (ocloc -options, zeModuleCreate
/// build flags).
static constexpr StringLiteral kLargeGRFOption = "-ze-opt-large-register-file";

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

static bool isDpasOperandType(Type t) { return t.isF16() || t.isBF16(); }

/// Values an epilogue may capture from above: scalar constants.
static bool isCapturable(Value v) {
  auto cst = v.getDefiningOp<arith::ConstantOp>();
  return cst && cst.getType().isIntOrIndexOrFloat();
}

LogicalResult mlir::xpu::checkXeGPULowerable(GemmOp gemm, TargetAttr target) {
  auto fail = [&](const Twine &why) {
    return gemm.emitError() << "convert-xpu-to-xegpu: " << why;
  };
  if (!target.isIntel())
    return fail(llvm::formatv("the target '{0}' is not an Intel Xe target "
                              "(pvc, bmg)",
                              target.getChip()));
  if (!llvm::is_contained(target.getSubgroupSizes(), kLanes) ||
      target.getMma() != ArrayRef<int64_t>{kDpasM, kDpasN, kDpasK})
    return fail(llvm::formatv("the target '{0}' needs 16-lane subgroups and "
                              "an 8x16x16 DPAS",
                              target.getChip()));
  ConfigAttr config = gemm.getConfigAttr();
  if (!config)
    return fail("the GEMM has no #xpu.config; run xpu-select-strategy first");
  if (config.getSchedule() != Schedule::data_parallel)
    return fail(llvm::formatv("schedule {0} is not lowered to XeGPU (only "
                              "data_parallel)",
                              stringifySchedule(config.getSchedule())));
  ArrayRef<int64_t> tile = config.getTile();
  ArrayRef<int64_t> sg = config.getSubgroups();
  if (tile[0] % sg[0] != 0 || tile[1] % sg[1] != 0 ||
      (tile[0] / sg[0]) % kDpasM != 0 || (tile[1] / sg[1]) % kDpasN != 0 ||
      tile[2] % kDpasK != 0)
    return fail(llvm::formatv(
        "tile [{0}, {1}, {2}] on subgroups [{3}, {4}]: each subgroup block "
        "must be a multiple of 8x16 and tile_k a multiple of 16 (DPAS)",
        tile[0], tile[1], tile[2], sg[0], sg[1]));
  if (sg[0] * sg[1] * kLanes > 1024)
    return fail(llvm::formatv("{0} subgroups of 16 lanes exceed 1024 "
                              "work-items per workgroup",
                              sg[0] * sg[1]));
  Type lhsElt = gemm.getLhsType().getElementType();
  if (!isDpasOperandType(lhsElt) && !lhsElt.isF32())
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
    if (op.getNumRegions() != 0 || !op.hasTrait<OpTrait::Vectorizable>() ||
        op.getNumResults() != 1)
      return op.emitError()
             << "convert-xpu-to-xegpu: epilogue op '" << op.getName()
             << "' is not an elementwise op that can run on vectors";
    for (Value v : op.getOperands())
      if (v.getParentRegion() != &gemm.getEpilogue() && !isCapturable(v))
        return op.emitError() << "convert-xpu-to-xegpu: the epilogue uses a "
                                 "value defined outside the GEMM that is not "
                                 "a scalar constant";
  }
  Value yielded = block.getTerminator()->getOperand(0);
  if (yielded.getParentRegion() != &gemm.getEpilogue() &&
      !isCapturable(yielded))
    return fail("the epilogue yields a value defined outside the GEMM that is "
                "not a scalar constant");
  return success();
}

/// Types the kernel loads, stores and computes the epilogue in.
static bool isKernelType(Type t) {
  return t.isF32() || isDpasOperandType(t) ||
         (t.isSignlessInteger() && t.getIntOrFloatBitWidth() <= 32);
}

/// Types the kernel may compute and store: not bf16, which XeVM's SPIR-V
/// declares as a bfloat OpTypeFloat that needs SPV_KHR_bfloat16 (the
/// serializer stops with a fatal error). bf16 loads (DPAS operands, epilogue
/// operands read through extf) are 16-bit data and stay in the kernel.
static bool isKernelResultType(Type t) {
  return isKernelType(t) && !t.isBF16();
}

/// True when the epilogue runs in the kernel; else (f64 epilogues, as
/// xpu-demote-f64 leaves them under keep-f64 or after an extf; bf16 results)
/// the kernel stores the f32 accumulator and the epilogue runs on the host.
static bool hasDeviceEpilogue(GemmOp gemm) {
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

/// The epilogue of `gemm` as a linalg.generic on the host, applied to the
/// f32 accumulator tensor `acc`.
static Value applyEpilogueOnHost(RewriterBase &rewriter, GemmOp gemm,
                                 Value acc) {
  Location loc = gemm.getLoc();
  RankedTensorType resultType = gemm.getResultType();
  unsigned rank = resultType.getRank();
  MLIRContext *ctx = gemm.getContext();
  AffineMap identity = rewriter.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps = {identity};
  SmallVector<Value> inputs = {acc};
  for (auto [i, operand] : llvm::enumerate(gemm.getEpilogueOperands())) {
    inputs.push_back(operand);
    switch (gemm.getBroadcastKind(i)) {
    case BroadcastKind::full:
      maps.push_back(identity);
      break;
    case BroadcastKind::per_col:
      maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(rank - 1, ctx)));
      break;
    case BroadcastKind::per_row:
      maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(rank - 2, ctx)));
      break;
    case BroadcastKind::scalar:
      maps.push_back(AffineMap::get(rank, 0, ctx));
      break;
    }
  }
  maps.push_back(identity);
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType());
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  Block &block = gemm.getEpilogueBlock();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping map;
        for (auto [arg, value] : llvm::zip(block.getArguments(), args))
          map.map(arg, value);
        for (Operation &op : block.without_terminator())
          b.clone(op, map);
        linalg::YieldOp::create(
            b, l, map.lookupOrDefault(block.getTerminator()->getOperand(0)));
      });
  return generic.getResult(0);
}

//===----------------------------------------------------------------------===//
// Host side: operands in the layout the kernel reads
//===----------------------------------------------------------------------===//

namespace {

/// One buffer the kernel reads or writes, as a 2D surface per batch.
struct Surface {
  Value buffer;
  /// Logical rows and columns, and the row pitch in elements.
  int64_t rows, cols, pitch;
  /// True when every batch has its own [rows, pitch] slice.
  bool perBatch;
  /// Where the kernel's tile starts: at the tile's row, column, both or at
  /// the origin (panels).
  bool offsetRows, offsetCols;
};

/// The kernel's view of one GEMM.
struct KernelPlan {
  int64_t batch, m, n, k;
  int64_t tm, tn, tk, sgRows, sgCols, stages, groupM, grfMode;
  Type inElt, outElt;
  /// False when the kernel stores the accumulator and the host applies the
  /// epilogue.
  bool deviceEpilogue;
  Surface a, b, c;
  SmallVector<Surface> epilogue;
};

int64_t getElementBytes(Type t) {
  return llvm::divideCeil(t.getIntOrFloatBitWidth(), 8);
}

/// The smallest row pitch >= `cols` elements that 2D block I/O accepts.
int64_t getLegalPitch(int64_t cols, Type elt) {
  int64_t bytes = getElementBytes(elt);
  return std::max<int64_t>(llvm::alignTo(cols, kPitchAlignBytes / bytes),
                           kMinPitchBytes / bytes);
}

/// Host-side preparation of the operands, with a remark for every copy.
class OperandPacker {
public:
  OperandPacker(RewriterBase &rewriter, GemmOp gemm)
      : rewriter(rewriter), gemm(gemm), loc(gemm.getLoc()) {}

  /// Pads the innermost dimension of `t` with zeros to `pitch` elements.
  Value padRows(Value t, int64_t pitch, StringRef what) {
    auto type = cast<RankedTensorType>(t.getType());
    int64_t cols = type.getShape().back();
    if (cols == pitch)
      return t;
    remark::passed(loc, remarkOpts(kPassArg, "PadPitch")) << remark::reason(
        "{0}: rows of {1} x {2} bytes padded with zeros to {3} "
        "elements, the narrowest pitch 2D block I/O accepts (>= 64 "
        "bytes, a multiple of 16)",
        what, cols, getElementBytes(type.getElementType()), pitch);
    SmallVector<int64_t> shape(type.getShape());
    shape.back() = pitch;
    unsigned rank = type.getRank();
    SmallVector<OpFoldResult> low(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> high(rank, rewriter.getIndexAttr(0));
    high.back() = rewriter.getIndexAttr(pitch - cols);
    Value zero = arith::ConstantOp::create(
        rewriter, loc, rewriter.getZeroAttr(type.getElementType()));
    return tensor::PadOp::create(rewriter, loc, type.clone(shape), t, low, high,
                                 zero);
  }

  /// `t` with its last two dimensions swapped.
  Value transposeLast2(Value t) {
    auto type = cast<RankedTensorType>(t.getType());
    unsigned rank = type.getRank();
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 1], perm[rank - 2]);
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[rank - 1], shape[rank - 2]);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    return linalg::TransposeOp::create(rewriter, loc, t, init, perm)
        .getResult()[0];
  }

  /// Broadcasts `t` to `shape`, adding the dimensions `dims`.
  Value broadcast(Value t, ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
    auto type = cast<RankedTensorType>(t.getType());
    Value init =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    return linalg::BroadcastOp::create(rewriter, loc, t, init, dims)
        .getResult()[0];
  }

  /// A read-only buffer of `t` with the identity layout.
  Value toBuffer(Value t) {
    auto type = cast<RankedTensorType>(t.getType());
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    return bufferization::ToBufferOp::create(rewriter, loc, memrefType, t,
                                             /*read_only=*/true);
  }

private:
  RewriterBase &rewriter;
  GemmOp gemm;
  Location loc;
};

KernelPlan planKernel(GemmOp gemm) {
  ConfigAttr config = gemm.getConfigAttr();
  KernelPlan p;
  p.batch = gemm.getBatchSize();
  p.m = gemm.getM();
  p.n = gemm.getN();
  p.k = gemm.getK();
  ArrayRef<int64_t> tile = config.getTile();
  p.tm = tile[0];
  p.tn = tile[1];
  p.tk = tile[2];
  p.sgRows = config.getSubgroups()[0];
  p.sgCols = config.getSubgroups()[1];
  p.stages = config.getStages();
  p.groupM = std::max<int64_t>(config.getGroupM(), 1);
  p.grfMode = config.getGrfMode();
  Type lhsElt = gemm.getLhsType().getElementType();
  p.inElt = isDpasOperandType(lhsElt)
                ? lhsElt
                : Type(BFloat16Type::get(gemm.getContext()));
  p.deviceEpilogue = hasDeviceEpilogue(gemm);
  p.outElt = p.deviceEpilogue ? gemm.getResultType().getElementType()
                              : Type(Float32Type::get(gemm.getContext()));
  return p;
}

} // namespace

//===----------------------------------------------------------------------===//
// Kernel
//===----------------------------------------------------------------------===//

namespace {

xegpu::LayoutAttr makeLayout(MLIRContext *ctx, ArrayRef<int32_t> sgLayout,
                             ArrayRef<int32_t> sgData,
                             ArrayRef<int32_t> instData) {
  auto arr = [&](ArrayRef<int32_t> v) {
    return DenseI32ArrayAttr::get(ctx, v);
  };
  return xegpu::LayoutAttr::get(ctx, arr(sgLayout), arr(sgData), arr(instData),
                                nullptr, nullptr, nullptr);
}

/// The layouts of one kernel, from its config.
struct Layouts {
  xegpu::LayoutAttr a, b, c, prefetchA, prefetchB;
};

Layouts getLayouts(MLIRContext *ctx, const KernelPlan &p) {
  int32_t rows = p.sgRows, cols = p.sgCols;
  int32_t blockM = p.tm / rows, blockN = p.tn / cols, tk = p.tk;
  Layouts l;
  // Every subgroup of a row reads the same A block and every subgroup of a
  // column the same B block; DPAS takes A as 8x16 and B as 16x16 pieces.
  l.a = makeLayout(ctx, {rows, cols}, {blockM, tk}, {kDpasM, kDpasK});
  l.b = makeLayout(ctx, {rows, cols}, {tk, blockN}, {kDpasK, kDpasN});
  l.c = makeLayout(ctx, {rows, cols}, {blockM, blockN}, {kDpasM, kDpasN});
  // Prefetches use the loads' subgroup layout (subgroups that share a
  // block prefetch it alike) with 8x16 pieces. Splitting the slices among
  // all subgroups without overlap (sg_layout [S, 1]) would prefetch less,
  // but its index arithmetic meets an LLVM 22.1.8 SPIR-V backend bug (an
  // OpBitwiseAnd of a 64-bit operand into a 32-bit result, rejected by
  // spirv-val; docs/Intel.md). B's prefetch layout must differ from B's own
  // anyway: CSE would merge equal descriptors, and a descriptor shared by a
  // prefetch and a load loses the load's packed lane layout.
  l.prefetchA = makeLayout(ctx, {rows, cols}, {blockM, tk}, {kDpasM, kDpasK});
  l.prefetchB = makeLayout(ctx, {rows, cols}, {tk, blockN}, {kDpasM, kDpasN});
  return l;
}

/// Builds the body of one kernel.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, const KernelPlan &p,
                const Layouts &layouts)
      : b(b), loc(loc), p(p), layouts(layouts) {}

  void build(GemmOp gemm, gpu::GPUFuncOp func);

private:
  Value indexConst(int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  Value i64Const(int64_t v) {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  }

  /// The byte address of the surface's current batch, in i64.
  Value getBase(Value memref, const Surface &s, Type elt, Value batchI64) {
    Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value base = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), ptr);
    if (!s.perBatch || p.batch == 1)
      return base;
    // int64_cast_for_large_batch_offsets: batch * rows * pitch * bytes can
    // pass 2^31.
    Value stride = i64Const(s.rows * s.pitch * getElementBytes(elt));
    Value offset = arith::MulIOp::create(b, loc, batchI64, stride);
    return arith::AddIOp::create(b, loc, base, offset);
  }

  Value createDesc(Value base, const Surface &s, ArrayRef<int64_t> block,
                   Type elt, xegpu::LayoutAttr layout) {
    auto type = xegpu::TensorDescType::get(block, elt, /*array_length=*/1,
                                           /*boundary_check=*/true,
                                           xegpu::MemorySpace::Global, layout);
    SmallVector<OpFoldResult> shape = {b.getIndexAttr(s.rows),
                                       b.getIndexAttr(s.cols)};
    SmallVector<OpFoldResult> strides = {b.getIndexAttr(s.pitch),
                                         b.getIndexAttr(1)};
    return xegpu::CreateNdDescOp::create(b, loc, type, base, shape, strides);
  }

  void setLayout(Operation *op, xegpu::LayoutAttr layout) {
    xegpu::setDistributeLayoutAttr(op->getResult(0), layout);
  }

  /// Vectorizes the epilogue over the accumulator tile.
  Value applyEpilogue(GemmOp gemm, Value acc, ArrayRef<Value> operands);

  OpBuilder &b;
  Location loc;
  const KernelPlan &p;
  const Layouts &layouts;
};

Value KernelBuilder::applyEpilogue(GemmOp gemm, Value acc,
                                   ArrayRef<Value> operands) {
  Block &block = gemm.getEpilogueBlock();
  IRMapping map;
  map.map(gemm.getAccArgument(), acc);
  for (auto [i, v] : llvm::enumerate(operands))
    map.map(gemm.getEpilogueArgument(i), v);
  auto vectorOf = [&](Type t) { return VectorType::get({p.tm, p.tn}, t); };
  // Scalar constants (inside the region or captured) become splats.
  auto splat = [&](arith::ConstantOp cst) {
    auto attr = DenseElementsAttr::get(vectorOf(cst.getType()), cst.getValue());
    Operation *op = arith::ConstantOp::create(b, loc, attr);
    setLayout(op, layouts.c);
    return op->getResult(0);
  };
  auto lookup = [&](Value v) {
    if (Value mapped = map.lookupOrNull(v))
      return mapped;
    Value s = splat(v.getDefiningOp<arith::ConstantOp>());
    map.map(v, s);
    return s;
  };
  for (Operation &op : block.without_terminator()) {
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      map.map(cst.getResult(), splat(cst));
      continue;
    }
    OperationState state(op.getLoc(), op.getName());
    for (Value v : op.getOperands())
      state.addOperands(lookup(v));
    state.addAttributes(op.getAttrs());
    state.addTypes(vectorOf(op.getResult(0).getType()));
    Operation *vec = b.create(state);
    setLayout(vec, layouts.c);
    map.map(op.getResult(0), vec->getResult(0));
  }
  return lookup(block.getTerminator()->getOperand(0));
}

void KernelBuilder::build(GemmOp gemm, gpu::GPUFuncOp func) {
  MLIRContext *ctx = b.getContext();
  Type f32 = b.getF32Type();
  int64_t tilesM = llvm::divideCeil(p.m, p.tm);
  int64_t tilesN = llvm::divideCeil(p.n, p.tn);

  // Program id -> tile, walking group_m rows of tiles together (Triton's
  // GROUP_SIZE_M swizzle) so that their B columns stay in cache.
  Value pid = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value inGroup = indexConst(p.groupM * tilesN);
  Value group = arith::DivUIOp::create(b, loc, pid, inGroup);
  Value firstM = arith::MulIOp::create(b, loc, group, indexConst(p.groupM));
  Value left = arith::SubIOp::create(b, loc, indexConst(tilesM), firstM);
  Value groupSize = arith::MinSIOp::create(b, loc, left, indexConst(p.groupM));
  Value local = arith::RemUIOp::create(b, loc, pid, inGroup);
  Value pidM = arith::AddIOp::create(
      b, loc, firstM, arith::RemUIOp::create(b, loc, local, groupSize));
  Value pidN = arith::DivUIOp::create(b, loc, local, groupSize);
  Value m0 = arith::MulIOp::create(b, loc, pidM, indexConst(p.tm));
  Value n0 = arith::MulIOp::create(b, loc, pidN, indexConst(p.tn));
  Value zero = indexConst(0);

  Value batchI64;
  if (p.batch > 1) {
    Value batch = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
    batchI64 = arith::IndexCastUIOp::create(b, loc, b.getI64Type(), batch);
  }

  // Descriptors on the logical shapes: reads outside are zeros, writes
  // outside are dropped, which handles the M, N and K tails.
  ValueRange args = func.getArguments();
  Value aBase = getBase(args[0], p.a, p.inElt, batchI64);
  Value bBase = getBase(args[1], p.b, p.inElt, batchI64);
  Value cBase = getBase(args[2], p.c, p.outElt, batchI64);
  Value aDesc = createDesc(aBase, p.a, {p.tm, p.tk}, p.inElt, layouts.a);
  Value bDesc = createDesc(bBase, p.b, {p.tk, p.tn}, p.inElt, layouts.b);
  Value cDesc = createDesc(cBase, p.c, {p.tm, p.tn}, p.outElt, layouts.c);

  // Prefetch `distance` K-steps ahead: stages - 1, at most the K-steps
  // after the first.
  int64_t kSteps = llvm::divideCeil(p.k, p.tk);
  int64_t distance = std::min(p.stages - 1, kSteps - 1);
  Value aPrefetch, bPrefetch;
  auto prefetch = [&](Value kOffset) {
    xegpu::PrefetchNdOp::create(b, loc, aPrefetch,
                                ArrayRef<OpFoldResult>{m0, kOffset}, nullptr,
                                nullptr, nullptr, layouts.prefetchA);
    xegpu::PrefetchNdOp::create(b, loc, bPrefetch,
                                ArrayRef<OpFoldResult>{kOffset, n0}, nullptr,
                                nullptr, nullptr, layouts.prefetchB);
  };
  if (distance > 0) {
    aPrefetch =
        createDesc(aBase, p.a, {p.tm, p.tk}, p.inElt, layouts.prefetchA);
    bPrefetch =
        createDesc(bBase, p.b, {p.tk, p.tn}, p.inElt, layouts.prefetchB);
    for (int64_t i = 0; i < distance; ++i)
      prefetch(indexConst(i * p.tk));
  }

  // The K loop: one A and one B block per step into DPAS.
  auto accType = VectorType::get({p.tm, p.tn}, f32);
  Operation *init = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  setLayout(init, layouts.c);
  auto loop = scf::ForOp::create(
      b, loc, zero, indexConst(kSteps * p.tk), indexConst(p.tk),
      ValueRange{init->getResult(0)},
      [&](OpBuilder &lb, Location l, Value k, ValueRange iterArgs) {
        Value av = xegpu::LoadNdOp::create(
            lb, l, VectorType::get({p.tm, p.tk}, p.inElt), aDesc,
            ArrayRef<OpFoldResult>{m0, k}, nullptr, nullptr, nullptr, nullptr,
            nullptr, layouts.a);
        Value bv = xegpu::LoadNdOp::create(
            lb, l, VectorType::get({p.tk, p.tn}, p.inElt), bDesc,
            ArrayRef<OpFoldResult>{k, n0}, nullptr, nullptr, nullptr, nullptr,
            nullptr, layouts.b);
        if (distance > 0) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointAfterValue(bv);
          Value ahead =
              arith::AddIOp::create(lb, l, k, indexConst(distance * p.tk));
          prefetch(ahead);
        }
        Value d = xegpu::DpasOp::create(lb, l, accType, av, bv, iterArgs[0],
                                        layouts.a, layouts.b, layouts.c);
        scf::YieldOp::create(lb, l, d);
      });

  // The epilogue operands, read with the accumulator's layout.
  SmallVector<Value> operands;
  for (auto [i, s] : llvm::enumerate(p.epilogue)) {
    Value memref = args[3 + i];
    Type elt = cast<MemRefType>(memref.getType()).getElementType();
    Value base = getBase(memref, s, elt, batchI64);
    Value desc = createDesc(base, s, {p.tm, p.tn}, elt, layouts.c);
    Value row = s.offsetRows ? m0 : zero;
    Value col = s.offsetCols ? n0 : zero;
    operands.push_back(
        xegpu::LoadNdOp::create(b, loc, VectorType::get({p.tm, p.tn}, elt),
                                desc, ArrayRef<OpFoldResult>{row, col}, nullptr,
                                nullptr, nullptr, nullptr, nullptr, layouts.c));
  }
  Value result = p.deviceEpilogue
                     ? applyEpilogue(gemm, loop.getResult(0), operands)
                     : loop.getResult(0);
  xegpu::StoreNdOp::create(b, loc, result, cDesc,
                           ArrayRef<OpFoldResult>{m0, n0}, nullptr, nullptr,
                           nullptr, layouts.c);
  gpu::ReturnOp::create(b, loc);
  (void)ctx;
}

} // namespace

void mlir::xpu::populateXPUXeEpilogueMathPatterns(RewritePatternSet &patterns) {
  populatePolynomialApproximateErfPattern(patterns);
  populatePolynomialApproximateErfcPattern(patterns);
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

void mlir::xpu::lowerGemmToXeGPU(RewriterBase &rewriter, GemmOp gemm,
                                 TargetAttr target, ModuleOp module,
                                 unsigned index) {
  MLIRContext *ctx = gemm.getContext();
  Location loc = gemm.getLoc();
  KernelPlan p = planKernel(gemm);
  OperandPacker packer(rewriter, gemm);
  rewriter.setInsertionPoint(gemm);

  // Precision: DPAS takes bf16 or f16 and accumulates in f32.
  Value lhs = gemm.getLhs(), rhs = gemm.getRhs();
  Type lhsElt = gemm.getLhsType().getElementType();
  if (!isDpasOperandType(lhsElt)) {
    TensorElementTypeConverter converter(ctx);
    lhs = converter.convert(lhs, cast<FloatType>(p.inElt));
    rhs = converter.convert(rhs, cast<FloatType>(p.inElt));
    remark::passed(loc, remarkOpts(kPassArg, "Precision"))
        << remark::reason("{0} operands converted to bf16 at launch time for "
                          "DPAS (bf16 x bf16 -> f32; tf32 is not used); "
                          "xpu-optimize{{precision=bf16} converts weights "
                          "once at pack time instead",
                          lhsElt);
  } else {
    remark::passed(loc, remarkOpts(kPassArg, "Precision"))
        << remark::reason("{0} operands go to DPAS directly (f32 "
                          "accumulation)",
                          lhsElt);
  }
  // B as [k, n]: DPAS reads it packed from [k, n] block loads.
  if (gemm.getRhsLayout() == RhsLayout::nk) {
    rhs = packer.transposeLast2(rhs);
    remark::passed(loc, remarkOpts(kPassArg, "TransposeRhs"))
        << remark::reason("rhs [n, k] transposed to [k, n] before the launch "
                          "(one O(n k) copy): the packed B loads read [k, n] "
                          "blocks");
  }

  // Row pitches legal for 2D block I/O.
  unsigned rank = gemm.getLhsType().getRank();
  p.a = {Value(), p.m, p.k, getLegalPitch(p.k, p.inElt), true, true, false};
  p.b = {Value(), p.k, p.n, getLegalPitch(p.n, p.inElt), true, false, true};
  p.c = {Value(), p.m, p.n, getLegalPitch(p.n, p.outElt), true, true, true};
  lhs = packer.padRows(lhs, p.a.pitch, "A");
  rhs = packer.padRows(rhs, p.b.pitch, "B");
  SmallVector<Value> launchArgs = {packer.toBuffer(lhs), packer.toBuffer(rhs)};

  // The result buffer; the kernel writes the logical [m, n] part.
  SmallVector<int64_t> cShape(gemm.getResultType().getShape());
  cShape.back() = p.c.pitch;
  auto cType = MemRefType::get(cShape, p.outElt);
  Value cBuffer = memref::AllocOp::create(
      rewriter, loc, cType, rewriter.getI64IntegerAttr(kBaseAlignment));
  launchArgs.push_back(cBuffer);

  // Epilogue operands: full ones as they are, broadcast ones as panels the
  // kernel reads with the accumulator's layout.
  if (!p.deviceEpilogue)
    remark::missed(loc, remarkOpts(kPassArg, "HostEpilogue"))
        << remark::reason("the epilogue computes in a type the kernel does "
                          "not (f64, or bf16 results): the kernel stores the "
                          "f32 accumulator and the epilogue runs on the host");
  for (auto [i, operand] : llvm::enumerate(gemm.getEpilogueOperands())) {
    if (!p.deviceEpilogue)
      break;
    Type elt = cast<RankedTensorType>(operand.getType()).getElementType();
    Surface s;
    Value t = operand;
    switch (gemm.getBroadcastKind(i)) {
    case BroadcastKind::full:
      s = {Value(), p.m, p.n, getLegalPitch(p.n, elt), true, true, true};
      break;
    case BroadcastKind::per_col:
      t = packer.broadcast(t, {p.tm, p.n}, {0});
      s = {Value(), p.tm, p.n, getLegalPitch(p.n, elt), false, false, true};
      break;
    case BroadcastKind::per_row:
      t = packer.broadcast(t, {p.m, p.tn}, {1});
      s = {Value(), p.m, p.tn, getLegalPitch(p.tn, elt), false, true, false};
      break;
    case BroadcastKind::scalar:
      t = packer.broadcast(t, {p.tm, p.tn}, {0, 1});
      s = {Value(), p.tm, p.tn, getLegalPitch(p.tn, elt), false, false, false};
      break;
    }
    if (gemm.getBroadcastKind(i) != BroadcastKind::full)
      remark::passed(loc, remarkOpts(kPassArg, "Panel")) << remark::reason(
          "epilogue operand #{0} ({1}) broadcast to a {2}x{3} panel "
          "before the launch, read by each workgroup with the "
          "accumulator's layout",
          i, stringifyBroadcastKind(gemm.getBroadcastKind(i)), s.rows, s.cols);
    t = packer.padRows(t, s.pitch,
                       llvm::formatv("epilogue operand #{0}", i).str());
    launchArgs.push_back(packer.toBuffer(t));
    p.epilogue.push_back(s);
  }

  // The kernel, alone in its gpu.module so that it gets its own compiler
  // options (the GRF mode).
  auto func = gemm->getParentOfType<func::FuncOp>();
  std::string name =
      llvm::formatv("{0}_xe_gemm{1}", func ? func.getSymName() : "gemm", index)
          .str();
  DictionaryAttr flags;
  if (p.grfMode == 256) {
    flags = rewriter.getDictionaryAttr(rewriter.getNamedAttr(
        "cmd-options",
        rewriter.getArrayAttr({rewriter.getStringAttr(kLargeGRFOption)})));
    remark::passed(loc, remarkOpts(kPassArg, "GRFMode"))
        << remark::reason("kernel {0} compiled in 256-GRF mode ({1}), as "
                          "the config asks",
                          name, kLargeGRFOption);
  }
  auto xevmTarget = xevm::XeVMTargetAttr::get(
      ctx, /*optLevel=*/2, "spirv64-unknown-unknown", target.getChip(), flags);

  SmallVector<Type> argTypes;
  for (Value v : launchArgs)
    argTypes.push_back(v.getType());
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(
        rewriter, loc, name, rewriter.getArrayAttr({xevmTarget}));
    rewriter.setInsertionPointToStart(gpuModule.getBody());
    auto kernel = gpu::GPUFuncOp::create(
        rewriter, loc, name, rewriter.getFunctionType(argTypes, {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    rewriter.getUnitAttr());
    int32_t threads = p.sgRows * p.sgCols * kLanes;
    kernel.setKnownBlockSizeAttr(
        rewriter.getDenseI32ArrayAttr({threads, 1, 1}));
    rewriter.setInsertionPointToStart(&kernel.getBody().front());
    Layouts layouts = getLayouts(ctx, p);
    KernelBuilder(rewriter, loc, p, layouts).build(gemm, kernel);

    // The launch: one workgroup per tile, the batch in y.
    rewriter.setInsertionPoint(gemm);
    auto idx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, v);
    };
    int64_t tiles = llvm::divideCeil(p.m, p.tm) * llvm::divideCeil(p.n, p.tn);
    gpu::LaunchFuncOp::create(rewriter, loc, kernel,
                              gpu::KernelDim3{idx(tiles), idx(p.batch), idx(1)},
                              gpu::KernelDim3{idx(threads), idx(1), idx(1)},
                              Value(), launchArgs);
  }

  // The result, without the pitch padding.
  Value result = bufferization::ToTensorOp::create(
      rewriter, loc, RankedTensorType::get(cShape, p.outElt), cBuffer,
      /*restrict=*/true, /*writable=*/true);
  RankedTensorType logicalType = gemm.getResultType().clone(p.outElt);
  if (p.c.pitch != p.n) {
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes, strides(rank, rewriter.getIndexAttr(1));
    for (int64_t d : gemm.getResultType().getShape())
      sizes.push_back(rewriter.getIndexAttr(d));
    result = tensor::ExtractSliceOp::create(rewriter, loc, logicalType, result,
                                            offsets, sizes, strides);
  }
  if (!p.deviceEpilogue)
    result = applyEpilogueOnHost(rewriter, gemm, result);
  rewriter.replaceOp(gemm, result);
}

namespace {
struct LaunchFuncMemoryEffects
    : MemoryEffectOpInterface::ExternalModel<LaunchFuncMemoryEffects,
                                             gpu::LaunchFuncOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    effects.emplace_back(MemoryEffects::Write::get(),
                         SideEffects::DefaultResource::get());
    for (OpOperand &operand : op->getOpOperands()) {
      if (!isa<MemRefType>(operand.get().getType()))
        continue;
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    }
  }
};
} // namespace

void mlir::xpu::registerXPUGPULaunchMemoryEffects(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, gpu::GPUDialect *) {
    gpu::LaunchFuncOp::attachInterface<LaunchFuncMemoryEffects>(*ctx);
  });
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertToXeGPUPass final
    : xpu::impl::XPUConvertToXeGPUPassBase<ConvertToXeGPUPass> {
  using Base::Base;

  /// The launches it creates exist before bufferization (their effects let
  /// buffer deallocation place frees after them), and its kernels carry an
  /// #xevm.target that gpu-module-to-binary serializes: both models come
  /// with this pass, not with loading the xpu dialect.
  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerXPUGPULaunchMemoryEffects(registry);
    xevm::registerXeVMTargetInterfaceExternalModels(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<GemmOp> gemms;
    module.walk([&](GemmOp gemm) { gemms.push_back(gemm); });
    if (gemms.empty())
      return;
    FailureOr<TargetAttr> target =
        resolveTarget(gemms.front(), defaultTarget, kPassArg);
    if (failed(target))
      return signalPassFailure();
    bool ok = true;
    for (GemmOp gemm : gemms)
      ok &= succeeded(checkXeGPULowerable(gemm, *target));
    if (!ok)
      return signalPassFailure();

    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
    RewritePatternSet mathPatterns(&getContext());
    populateXPUXeEpilogueMathPatterns(mathPatterns);
    FrozenRewritePatternSet frozenMath(std::move(mathPatterns));
    IRRewriter rewriter(&getContext());
    DenseMap<Operation *, unsigned> counters;
    for (GemmOp gemm : gemms) {
      (void)applyPatternsGreedily(gemm.getEpilogue(), frozenMath);
      unsigned &counter = counters[gemm->getParentOfType<func::FuncOp>()];
      lowerGemmToXeGPU(rewriter, gemm, *target, module, counter++);
      ++numKernels;
    }
  }
};
} // namespace
