//===- LinalgToGPULoops.cpp - linalg ops on buffers -> full GPU kernels ---===//
//
// Every static linalg op on buffers that a SPIR-V kernel can run becomes a
// gpu.launch whose workgroups are full (32 to 256 work-items), never one
// work-item per workgroup:
//
//   * a copy whose input swaps the last two dimensions (linalg.transpose
//     of matrices or batches of them, at least kTransposeTile on both
//     sides): kTransposeTile-square tiles staged through shared local
//     memory, read along the input's rows and written along the output's,
//     so that both sides are coalesced;
//   * no reduction loop (elementwise, other transposes, broadcast, fill,
//     copy): one work-item per iteration of the flattened iteration space,
//     the innermost loop fastest, so that neighbouring work-items touch
//     neighbouring elements of identity-mapped operands (coalesced);
//   * a reduction whose body ends in an associative combiner (add, mul,
//     max, min, and, or, xor) over at least kRowThreshold elements per
//     output (softmax's max and sum, logsumexp, row sums, normalization
//     statistics): one workgroup per output element; its work-items stride
//     over the reduced elements, then combine their partial results in
//     shared local memory (a tree of halvings, one barrier per level), and
//     the first work-item combines the total with the output's initial
//     value;
//   * other reductions (contractions, short or unrecognized ones): one
//     work-item per output element with the reduction loop inside.
//
// A body's cf.assert guards (torch-mlir's) become a device flag per assert
// that the kernel sets where the condition fails; the host copies the flags
// back (gpu.memcpy) and asserts on them, so the check still fails where it
// did on the host, and the host never reads the op's operands. Host copies
// between contiguous buffers become gpu.memcpy.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/Utils/MemRefUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/Dialect/XPU/Utils/SizeArithmetic.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPULINALGTOGPULOOPSPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

/// Work-items per workgroup: at most 256 (every OpenCL device we target
/// allows it), at least 32 (a subgroup on every target).
static constexpr int64_t kMaxThreads = 256, kMinThreads = 32;
/// Reduced elements per output from which a workgroup reduces one output.
static constexpr int64_t kRowThreshold = 32;
/// Workgroups of a 1-D grid: CUDA's gridDim.x and the 32-bit group counts
/// of OpenCL and Level Zero allow 2^31 - 1.
static constexpr int64_t kMaxWorkgroups = (int64_t(1) << 31) - 1;

namespace {
/// True if `type` has the identity layout and a static shape, or, with
/// `allowDynamic`, a dynamic leading dimension only: its strides stay
/// static, so a bare pointer still addresses it.
bool hasKernelShape(MemRefType type, bool allowDynamic) {
  if (type.hasStaticShape())
    return true;
  return allowDynamic && type.getLayout().isIdentity() &&
         llvm::none_of(type.getShape().drop_front(), ShapedType::isDynamic);
}

/// True if a SPIR-V kernel can run `op`: identity-layout memrefs of static
/// shapes, or a dynamic leading dimension with `allowDynamic` (kernels get
/// bare pointers), and no calls in the payload. With `allowLoads` (a fused
/// pad's generic, fusePaddedCopy), the payload may load from a captured
/// buffer.
bool isGPUMappable(linalg::LinalgOp op, bool allowBF16, bool allowStrided,
                   bool allowDynamic, bool allowLoads = false) {
  if (!op.hasPureBufferSemantics())
    return false;
  for (Value operand : op->getOperands()) {
    if (!allowBF16 && getElementTypeOrSelf(operand.getType()).isBF16())
      return false;
    auto type = dyn_cast<MemRefType>(operand.getType());
    if (!type) {
      if (isa<ShapedType>(operand.getType()))
        return false;
      continue;
    }
    if (!hasKernelShape(type, allowDynamic) ||
        (!type.getLayout().isIdentity() &&
         !(allowStrided && isStaticStrided(type))))
      return false;
  }
  if (!allowDynamic &&
      llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  // No calls, and nothing with side effects but torch-mlir's cf.assert
  // guards in the body itself (device flags the host checks after the
  // kernel).
  Block *body = op.getBlock();
  WalkResult result = body->walk([&](Operation *inner) {
    bool guard = isa<cf::AssertOp>(inner) && inner->getBlock() == body;
    // (The effects of an op with nested regions are those of the ops in
    // them, checked by the walk.)
    bool load =
        allowLoads && (isa<memref::LoadOp>(inner) ||
                       inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>());
    return isa<CallOpInterface>(inner) ||
                   (!isMemoryEffectFree(inner) &&
                    !inner->hasTrait<OpTrait::IsTerminator>() && !guard &&
                    !load)
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Bytes a work-item of an elementwise kernel reads or writes at once per
/// operand (one 16-byte vector access).
static constexpr int64_t kVectorBytes = 16;

/// Consecutive iterations of the innermost loop that one work-item of the
/// elementwise (all-parallel) `op` computes with vector accesses, or 1:
/// every memref operand that the innermost loop indexes takes it in its
/// last dimension only, with unit stride, and the other operands (read
/// once per work-item) are inputs; the width divides the innermost range,
/// the operands' static offsets and their other strides, so that each
/// work-item's vector starts `width` elements into an aligned row.
int64_t getElementwiseVectorWidth(linalg::LinalgOp op) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops == 0 || op.getNumReductionLoops() != 0)
    return 1;
  unsigned last = numLoops - 1;
  int64_t maxBytes = 0;
  if (ShapedType::isDynamic(op.getStaticLoopRanges()[last]))
    return 1;
  SmallVector<int64_t> multiples{op.getStaticLoopRanges()[last]};
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    Type elt = type.getElementType();
    if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() % 8 != 0)
      return 1;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isFunctionOfDim(last)) {
      if (op.isDpsInit(&operand))
        return 1;
      continue;
    }
    unsigned results = map.getNumResults();
    auto inner = dyn_cast<AffineDimExpr>(map.getResult(results - 1));
    if (!inner || inner.getPosition() != last)
      return 1;
    for (unsigned r = 0; r + 1 < results; ++r)
      if (map.getResult(r).isFunctionOfDim(last))
        return 1;
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1 || ShapedType::isDynamic(offset) ||
        llvm::any_of(strides, ShapedType::isDynamic))
      return 1;
    multiples.push_back(offset);
    multiples.append(strides.begin(), strides.end() - 1);
    maxBytes = std::max<int64_t>(maxBytes, elt.getIntOrFloatBitWidth() / 8);
  }
  if (maxBytes == 0)
    return 1;
  int64_t width = std::min<int64_t>(kVectorBytes / maxBytes, 8);
  while (width > 1 &&
         llvm::any_of(multiples, [&](int64_t m) { return m % width != 0; }))
    width /= 2;
  return width;
}

/// A bufferized tensor.pad: a fill of a whole statically shaped buffer
/// with one value, then a copy of the padded source into a static box of
/// it (unit strides), with only pure ops between the two.
struct PaddedCopy {
  Operation *fill;
  linalg::CopyOp copy;
  memref::SubViewOp box;
  Value padding;
  /// The elementwise op that computes the copied buffer (a conversion to
  /// the GEMM's operand type), computed in the pad's kernel instead; null
  /// where the source is read as it is.
  linalg::GenericOp producer;
};

/// The value `op` (linalg.fill, or a linalg.map without inputs that yields
/// a value from outside its body) writes over all of its output.
Value getFillValue(Operation *op) {
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return fill.value();
  auto map = dyn_cast<linalg::MapOp>(op);
  if (!map || !map.getInputs().empty())
    return Value();
  Block &body = map.getMapper().front();
  if (!llvm::hasSingleElement(body))
    return Value();
  Value v = body.getTerminator()->getOperand(0);
  return map.getMapper().isAncestor(v.getParentRegion()) ? Value() : v;
}

/// The elementwise linalg.generic that alone writes `copy`'s source, a
/// buffer allocated for it and read by nothing but `copy` (freed after
/// it): all loops parallel, identity maps, statically shaped identity
/// inputs, a payload free of side effects that does not read the output.
/// Between the two, the ops with side effects may only allocate buffers,
/// write buffers allocated in the function other than the inputs, or be
/// the pad's `fill`.
linalg::GenericOp matchPadProducer(linalg::CopyOp copy, Operation *fill) {
  Value src = copy.getInputs()[0];
  auto alloc = src.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != copy->getBlock())
    return {};
  linalg::GenericOp producer;
  for (Operation *user : alloc->getUsers()) {
    if (user == copy || isa<memref::DeallocOp>(user))
      continue;
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (producer || !generic)
      return {};
    producer = generic;
  }
  if (!producer || producer->getBlock() != copy->getBlock() ||
      !producer->isBeforeInBlock(copy) || producer.getNumDpsInits() != 1 ||
      producer.getDpsInits()[0] != src || !producer.hasPureBufferSemantics() ||
      producer.getNumReductionLoops() != 0 ||
      producer.payloadUsesValueFromOperand(producer.getDpsInitOperand(0)) ||
      !llvm::all_of(producer.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return {};
  for (Value in : producer.getDpsInputs()) {
    auto type = dyn_cast<MemRefType>(in.getType());
    if (!type || !type.hasStaticShape() || !type.getLayout().isIdentity())
      return {};
  }
  for (Operation &inner : producer.getBlock()->without_terminator())
    if (!isMemoryEffectFree(&inner) || inner.getNumRegions() != 0 ||
        isa<linalg::IndexOp>(inner))
      return {};
  for (Operation *op = producer->getNextNode(); op != copy;
       op = op->getNextNode()) {
    if (isMemoryEffectFree(op) || isa<memref::AllocOp>(op))
      continue;
    // The pad's fill writes its buffer, which the producer does not read.
    if (op == fill &&
        !llvm::is_contained(producer.getDpsInputs(),
                            cast<linalg::LinalgOp>(fill).getDpsInits()[0]))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureBufferSemantics() ||
        !llvm::all_of(linalgOp.getDpsInits(), [&](Value init) {
          Value root = init;
          while (auto view = root.getDefiningOp<memref::SubViewOp>())
            root = view.getSource();
          return root.getDefiningOp<memref::AllocOp>() &&
                 !llvm::is_contained(producer.getDpsInputs(), root);
        }))
      return {};
  }
  return producer;
}

/// Matches the bufferized pad that ends in `copy` (a linalg.copy whose
/// output is a static box of a statically shaped identity buffer and
/// whose source has a static shape and strides).
std::optional<PaddedCopy> matchPaddedCopy(linalg::CopyOp copy) {
  if (!copy.hasPureBufferSemantics())
    return std::nullopt;
  auto box = copy.getOutputs()[0].getDefiningOp<memref::SubViewOp>();
  auto src = dyn_cast<MemRefType>(copy.getInputs()[0].getType());
  if (!box || !src || !isStaticStrided(src) ||
      box.getSourceType().getRank() != box.getType().getRank() ||
      !box.getSourceType().hasStaticShape() ||
      !box.getSourceType().getLayout().isIdentity() ||
      llvm::any_of(box.getStaticOffsets(), ShapedType::isDynamic) ||
      llvm::any_of(box.getStaticSizes(), ShapedType::isDynamic) ||
      llvm::any_of(box.getStaticStrides(), [](int64_t s) { return s != 1; }))
    return std::nullopt;
  Value buffer = box.getSource();
  for (Operation *op = copy->getPrevNode(); op; op = op->getPrevNode()) {
    if (isMemoryEffectFree(op))
      continue;
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    Value padding = linalgOp ? getFillValue(op) : Value();
    if (!padding || !linalgOp.hasPureBufferSemantics() ||
        linalgOp.getDpsInits()[0] != buffer)
      return std::nullopt;
    return PaddedCopy{op, copy, box, padding, matchPadProducer(copy, op)};
  }
  return std::nullopt;
}

/// Replaces a bufferized pad by one linalg.generic over its buffer whose
/// payload loads the source inside the box (a captured buffer, bounds
/// checked) and yields the padding outside it: each element is written
/// once, and the generic takes the vector kernels of the buffer's rows
/// where the source's own rows are not aligned to them.
linalg::GenericOp fusePaddedCopy(PaddedCopy pad) {
  OpBuilder b(pad.copy);
  Location loc = pad.copy.getLoc();
  Value buffer = pad.box.getSource(), src = pad.copy.getInputs()[0];
  unsigned rank = pad.box.getType().getRank();
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{}, ValueRange{}, ValueRange{buffer},
      ArrayRef<AffineMap>{b.getMultiDimIdentityMap(rank)}, iterators,
      [&](OpBuilder &nb, Location l, ValueRange) {
        Value inside;
        SmallVector<Value> at;
        for (unsigned d = 0; d < rank; ++d) {
          Value i = linalg::IndexOp::create(nb, l, d);
          int64_t offset = pad.box.getStaticOffsets()[d];
          int64_t size = pad.box.getStaticSizes()[d];
          at.push_back(i);
          if (offset == 0 && size == pad.box.getSourceType().getDimSize(d))
            continue;
          if (offset != 0)
            at.back() = i = arith::SubIOp::create(
                nb, l, i, arith::ConstantIndexOp::create(nb, l, offset));
          // Below the offset, i wraps to a large unsigned index.
          Value in = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::ult, i,
              arith::ConstantIndexOp::create(nb, l, size));
          inside = inside ? arith::AndIOp::create(nb, l, inside, in) : in;
        }
        auto ifOp = scf::IfOp::create(
            nb, l, inside,
            [&](OpBuilder &tb, Location tl) {
              if (!pad.producer) {
                scf::YieldOp::create(
                    tb, tl,
                    memref::LoadOp::create(tb, tl, src, at).getResult());
                return;
              }
              // The producer's payload on its inputs at the same point.
              IRMapping map;
              Block *body = pad.producer.getBlock();
              for (OpOperand *in : pad.producer.getDpsInputOperands())
                map.map(body->getArgument(in->getOperandNumber()),
                        memref::LoadOp::create(tb, tl, in->get(), at));
              for (Operation &inner : body->without_terminator())
                tb.clone(inner, map);
              scf::YieldOp::create(
                  tb, tl,
                  map.lookupOrDefault(body->getTerminator()->getOperand(0)));
            },
            [&](OpBuilder &tb, Location tl) {
              scf::YieldOp::create(tb, tl, pad.padding);
            });
        linalg::YieldOp::create(nb, l, ifOp.getResult(0));
      });
  pad.copy.erase();
  pad.fill->erase();
  if (pad.box->use_empty())
    pad.box.erase();
  if (pad.producer) {
    pad.producer.erase();
    for (Operation *user : llvm::make_early_inc_range(src.getUsers()))
      user->erase();
    src.getDefiningOp()->erase();
  }
  return generic;
}

/// The side of the square tiles a transpose is staged in, and the rows of
/// one tile each work-item moves (a workgroup is kTransposeTile x
/// kTransposeRows work-items).
static constexpr int64_t kTransposeTile = 32, kTransposeRows = 4;

/// True if `op` copies one input into its output with the last two
/// dimensions swapped (a linalg.transpose, or a generic that only yields
/// its input), both of them at least kTransposeTile, the output
/// identity-mapped and the other dimensions in place.
bool isTiledTranspose(linalg::LinalgOp op) {
  unsigned numLoops = op.getNumLoops();
  if (numLoops < 2 || op.getNumReductionLoops() != 0 ||
      op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1)
    return false;
  OpOperand *in = op.getDpsInputOperand(0);
  OpOperand &out = op.getDpsInitsMutable()[0];
  auto inType = dyn_cast<MemRefType>(in->get().getType());
  auto outType = dyn_cast<MemRefType>(out.get().getType());
  if (!inType || !outType ||
      inType.getElementType() != outType.getElementType() ||
      !inType.getElementType().isIntOrFloat() ||
      inType.getElementType().getIntOrFloatBitWidth() % 8 != 0)
    return false;
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  if (op.getBlock()->getOperations().size() != 1 ||
      yield.getValues().size() != 1 ||
      yield.getValues()[0] != op.getBlock()->getArgument(0))
    return false;
  SmallVector<unsigned> perm = llvm::to_vector(llvm::seq<unsigned>(numLoops));
  std::swap(perm[numLoops - 1], perm[numLoops - 2]);
  MLIRContext *ctx = op.getContext();
  if (op.getMatchingIndexingMap(in) !=
          AffineMap::getPermutationMap(perm, ctx) ||
      !op.getMatchingIndexingMap(&out).isIdentity())
    return false;
  ArrayRef<int64_t> shape = outType.getShape();
  return shape[numLoops - 1] >= kTransposeTile &&
         shape[numLoops - 2] >= kTransposeTile;
}

/// The cf.assert ops of `op`'s body, in order.
SmallVector<cf::AssertOp> getAsserts(linalg::LinalgOp op) {
  SmallVector<cf::AssertOp> asserts;
  op.getBlock()->walk([&](cf::AssertOp a) { asserts.push_back(a); });
  return asserts;
}

/// `gpu.wait async`, `build(token)`, `gpu.wait` on its token: a runtime
/// operation on its own stream, finished before the host goes on (the form
/// gpu-to-llvm lowers).
void emitSynchronous(OpBuilder &b, Location loc,
                     function_ref<Value(Value)> build) {
  auto tokenType = gpu::AsyncTokenType::get(b.getContext());
  Value start =
      gpu::WaitOp::create(b, loc, tokenType, ValueRange()).getAsyncToken();
  gpu::WaitOp::create(b, loc, Type(), ValueRange{build(start)});
}

/// A host copy between contiguous buffers as gpu.memcpy: the runtime copies
/// whether either side is device memory or not.
void emitMemcpy(OpBuilder &b, Location loc, Value dst, Value src) {
  auto tokenType = gpu::AsyncTokenType::get(b.getContext());
  emitSynchronous(b, loc, [&](Value token) {
    return gpu::MemcpyOp::create(b, loc, tokenType, ValueRange{token}, dst, src)
        .getAsyncToken();
  });
}

bool isContiguous(MemRefType type) { return type.getLayout().isIdentity(); }

/// The combiner of a reduction body whose single output is reduced by an
/// associative op: the body yields `combine(x, out)` (or `combine(out,
/// x)`), `out` being the output's block argument, used there only.
struct Combiner {
  Operation *op = nullptr;
  arith::AtomicRMWKind kind;
  /// The operand that is not the output argument.
  Value value;
};

std::optional<arith::AtomicRMWKind> getKind(Operation *op) {
  using K = arith::AtomicRMWKind;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case([](arith::AddFOp) { return K::addf; })
      .Case([](arith::MulFOp) { return K::mulf; })
      .Case([](arith::MaximumFOp) { return K::maximumf; })
      .Case([](arith::MinimumFOp) { return K::minimumf; })
      .Case([](arith::MaxNumFOp) { return K::maxnumf; })
      .Case([](arith::MinNumFOp) { return K::minnumf; })
      .Case([](arith::AddIOp) { return K::addi; })
      .Case([](arith::MulIOp) { return K::muli; })
      .Case([](arith::MaxSIOp) { return K::maxs; })
      .Case([](arith::MinSIOp) { return K::mins; })
      .Case([](arith::MaxUIOp) { return K::maxu; })
      .Case([](arith::MinUIOp) { return K::minu; })
      .Case([](arith::AndIOp) { return K::andi; })
      .Case([](arith::OrIOp) { return K::ori; })
      .Case([](arith::XOrIOp) { return K::xori; })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<Combiner> matchCombiner(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1)
    return std::nullopt;
  Block *body = op.getBlock();
  BlockArgument out = op.getRegionOutputArgs()[0];
  Value yielded = body->getTerminator()->getOperand(0);
  Operation *combine = yielded.getDefiningOp();
  if (!combine || combine->getBlock() != body ||
      combine->getNumOperands() != 2 || !out.hasOneUse() ||
      out.getUses().begin()->getOwner() != combine)
    return std::nullopt;
  std::optional<arith::AtomicRMWKind> kind = getKind(combine);
  if (!kind)
    return std::nullopt;
  Value other = combine->getOperand(0) == out ? combine->getOperand(1)
                                              : combine->getOperand(0);
  return Combiner{combine, *kind, other};
}

/// Builds one kernel.
class KernelBuilder {
public:
  /// `flags`: with the body's cf.assert ops `asserts`, a device buffer of
  /// one i32 per assert that the kernel sets to 1 where it fails.
  KernelBuilder(OpBuilder &b, linalg::LinalgOp op,
                ArrayRef<cf::AssertOp> asserts = {}, Value flags = {})
      : b(b), op(op), loc(op.getLoc()), asserts(asserts), flags(flags) {
    // A dynamic loop range is read on the host, before the launch (the
    // kernel takes it as an argument).
    dynamicRanges.resize(op.getNumLoops());
    if (llvm::none_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
      return;
    for (auto [i, r] : llvm::enumerate(op.createLoopRanges(b, loc)))
      dynamicRanges[i] = dyn_cast<Value>(r.size);
  }

  /// Workgroups whose count is read at run time (returned by the builders
  /// in place of a count).
  static constexpr int64_t kRunTime = ShapedType::kDynamic;

  /// One work-item per iteration (all loops parallel) or per output point
  /// (sequential reduction loops inside). Returns the workgroup count and
  /// size.
  std::pair<int64_t, int64_t> buildPerPoint();
  /// An elementwise op (getElementwiseVectorWidth > 1): one work-item per
  /// `width` consecutive iterations of the innermost loop, read and written
  /// as vectors where every vector operand's buffer is aligned to its
  /// vector, element by element otherwise. Returns the workgroup count and
  /// size.
  std::pair<int64_t, int64_t> buildPerVector(int64_t width);
  /// One workgroup per output point, shared-memory tree reduction. Returns
  /// the workgroup count and size.
  /// With `subgroupSize` > 0, subgroups reduce first
  /// (gpu.subgroup_reduce) where the combiner and type allow it; `bySubgroup`
  /// says whether they did.
  std::pair<int64_t, int64_t>
  buildPerRow(const Combiner &combiner, int64_t subgroupSize, bool &bySubgroup);
  /// A transpose (isTiledTranspose): one workgroup per kTransposeTile-square
  /// tile of the output, staged through shared local memory. Returns the
  /// workgroup count and size.
  std::pair<int64_t, int64_t> buildTiledTranspose();

private:
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  /// Range `d` of `ranges` (a static one, or the host value of the op's
  /// dynamic range `d`).
  Value range(unsigned d, ArrayRef<int64_t> ranges) {
    return ShapedType::isDynamic(ranges[d]) ? dynamicRanges[d] : c(ranges[d]);
  }
  /// The product of `ranges` over `dims`: static, or a host value (built
  /// at the current insertion point, which must be on the host).
  OpFoldResult countPoints(ArrayRef<unsigned> dims, ArrayRef<int64_t> ranges) {
    int64_t known = 1;
    Value dynamic;
    for (unsigned d : dims) {
      if (!ShapedType::isDynamic(ranges[d])) {
        known = satMul(known, ranges[d]);
        continue;
      }
      dynamic = dynamic
                    ? arith::MulIOp::create(b, loc, dynamic, range(d, ranges))
                    : range(d, ranges);
    }
    if (!dynamic)
      return b.getIndexAttr(known);
    return arith::MulIOp::create(b, loc, dynamic, c(known)).getResult();
  }
  /// `points` as a value (inside or outside the kernel).
  Value toValue(OpFoldResult points) {
    return getValueOrCreateConstantIndexOp(b, loc, points);
  }
  /// ceil(points / threads) workgroups, at least one (a dynamic count may
  /// be 0: the kernel's range check then skips the one workgroup).
  Value countGroups(Value points, int64_t threads) {
    Value groups = arith::DivUIOp::create(
        b, loc, arith::AddIOp::create(b, loc, points, c(threads - 1)),
        c(threads));
    return arith::MaxUIOp::create(b, loc, groups, c(1));
  }
  /// `linear` split into the loops `dims` (the last fastest) of `ranges`
  /// (default: the op's).
  void delinearize(Value linear, ArrayRef<unsigned> dims,
                   SmallVectorImpl<Value> &ivs, ArrayRef<int64_t> ranges = {});
  /// The body at one iteration point `ivs` of an all-parallel op: loads,
  /// the body, stores.
  void emitPoint(ArrayRef<Value> ivs);
  /// Loads the input operands at `ivs`.
  SmallVector<Value> loadInputs(ArrayRef<Value> ivs);
  /// The indices of operand `opOperand` at `ivs`.
  SmallVector<Value> indices(OpOperand &opOperand, ArrayRef<Value> ivs);
  /// Clones the body with the given block argument values and `ivs` for
  /// linalg.index, skipping `stopAt` (returned values are the yields, or
  /// the value `stopAt` would combine).
  SmallVector<Value> cloneBody(ArrayRef<Value> args, ArrayRef<Value> ivs,
                               Operation *skip, IRMapping &map);
  gpu::LaunchOp createLaunch(int64_t blocks, int64_t threads);
  gpu::LaunchOp createLaunch(Value blocks, int64_t threads);
  /// A launch of one work-item per point of `ranges` over `dims`: the
  /// launch, its work-items per workgroup, its workgroups (kRunTime when
  /// counted on the host at run time) and the point count.
  struct PointLaunch {
    gpu::LaunchOp launch;
    int64_t threads, blocks;
    OpFoldResult points;
  };
  PointLaunch launchPerPoint(ArrayRef<unsigned> dims, ArrayRef<int64_t> ranges);

  /// Sets the flag of `assertOp` where its condition (mapped by `map`) is
  /// false.
  void emitAssertFlag(cf::AssertOp assertOp, IRMapping &map);

  OpBuilder &b;
  linalg::LinalgOp op;
  Location loc;
  ArrayRef<cf::AssertOp> asserts;
  Value flags;
  /// The host value of each dynamic loop range (null for static ones).
  SmallVector<Value> dynamicRanges;
};

void KernelBuilder::emitAssertFlag(cf::AssertOp assertOp, IRMapping &map) {
  Location l = assertOp.getLoc();
  unsigned index = llvm::find(asserts, assertOp) - asserts.begin();
  Value failed = arith::XOrIOp::create(
      b, l, map.lookupOrDefault(assertOp.getArg()),
      arith::ConstantIntOp::create(b, l, b.getI1Type(), 1));
  auto ifOp = scf::IfOp::create(b, l, failed, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  // Every failing work-item stores the same value: no atomics needed.
  memref::StoreOp::create(b, l,
                          arith::ConstantIntOp::create(b, l, b.getI32Type(), 1),
                          flags, ValueRange{c(index)});
}

void KernelBuilder::delinearize(Value linear, ArrayRef<unsigned> dims,
                                SmallVectorImpl<Value> &ivs,
                                ArrayRef<int64_t> rangesOverride) {
  SmallVector<int64_t> ranges = rangesOverride.empty()
                                    ? op.getStaticLoopRanges()
                                    : SmallVector<int64_t>(rangesOverride);
  for (auto [i, d] : llvm::enumerate(llvm::reverse(dims))) {
    // The outermost loop takes what is left (`linear` is in range).
    if (i + 1 == dims.size()) {
      ivs[d] = linear;
      break;
    }
    ivs[d] = arith::RemUIOp::create(b, loc, linear, range(d, ranges));
    linear = arith::DivUIOp::create(b, loc, linear, range(d, ranges));
  }
}

SmallVector<Value> KernelBuilder::indices(OpOperand &opOperand,
                                          ArrayRef<Value> ivs) {
  AffineMap map = op.getMatchingIndexingMap(&opOperand);
  SmallVector<Value> result;
  for (AffineExpr e : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(e)) {
      result.push_back(ivs[dim.getPosition()]);
      continue;
    }
    // A constant index (torch-mlir's keepdim reductions write through
    // `(d0, d1) -> (d0, 0)`): where the row's init or result is addressed
    // the reduction's induction variable does not exist (a null value), so
    // an affine.apply over all of `ivs` would take a null operand.
    if (auto cst = dyn_cast<AffineConstantExpr>(e)) {
      result.push_back(arith::ConstantIndexOp::create(b, loc, cst.getValue()));
      continue;
    }
    result.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, e), ivs));
  }
  return result;
}

SmallVector<Value> KernelBuilder::loadInputs(ArrayRef<Value> ivs) {
  SmallVector<Value> values;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!isa<MemRefType>(input->get().getType())) {
      values.push_back(input->get());
      continue;
    }
    values.push_back(
        memref::LoadOp::create(b, loc, input->get(), indices(*input, ivs)));
  }
  return values;
}

SmallVector<Value> KernelBuilder::cloneBody(ArrayRef<Value> args,
                                            ArrayRef<Value> ivs,
                                            Operation *skip, IRMapping &map) {
  Block *body = op.getBlock();
  for (auto [arg, v] : llvm::zip(body->getArguments(), args))
    if (v)
      map.map(arg, v);
  for (Operation &inner : body->without_terminator()) {
    if (&inner == skip)
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    if (auto assertOp = dyn_cast<cf::AssertOp>(inner)) {
      emitAssertFlag(assertOp, map);
      continue;
    }
    b.clone(inner, map);
  }
  return llvm::map_to_vector(body->getTerminator()->getOperands(),
                             [&](Value v) { return map.lookupOrDefault(v); });
}

/// Constants the body uses (a scalar the linalg body captures: torch-mlir
/// hoists them out of the body) are cloned into the kernel instead of
/// becoming kernel arguments, which some element types (bf16 on XeVM)
/// cannot be.
static void sinkConstants(gpu::LaunchOp launch) {
  SetVector<Value> captured;
  getUsedValuesDefinedAbove(launch.getBody(), captured);
  OpBuilder b(launch.getContext());
  b.setInsertionPointToStart(&launch.getBody().front());
  for (Value v : captured) {
    Operation *def = v.getDefiningOp();
    if (!def || !def->hasTrait<OpTrait::ConstantLike>())
      continue;
    Value copy = b.clone(*def)->getResult(0);
    v.replaceUsesWithIf(copy, [&](OpOperand &use) {
      return launch->isProperAncestor(use.getOwner());
    });
  }
}

gpu::LaunchOp KernelBuilder::createLaunch(int64_t blocks, int64_t threads) {
  return createLaunch(c(blocks), threads);
}

gpu::LaunchOp KernelBuilder::createLaunch(Value blocks, int64_t threads) {
  return gpu::LaunchOp::create(b, loc, blocks, c(1), c(1), c(threads), c(1),
                               c(1));
}

KernelBuilder::PointLaunch
KernelBuilder::launchPerPoint(ArrayRef<unsigned> dims,
                              ArrayRef<int64_t> ranges) {
  OpFoldResult points = countPoints(dims, ranges);
  if (auto known = getConstantIntValue(points)) {
    int64_t threads = std::clamp<int64_t>(llvm::PowerOf2Ceil(*known),
                                          kMinThreads, kMaxThreads);
    int64_t blocks = llvm::divideCeil(*known, threads);
    return {createLaunch(blocks, threads), threads, blocks, points};
  }
  Value blocks = countGroups(cast<Value>(points), kMaxThreads);
  return {createLaunch(blocks, kMaxThreads), kMaxThreads, kRunTime, points};
}

void KernelBuilder::emitPoint(ArrayRef<Value> ivs) {
  SmallVector<Value> args = loadInputs(ivs);
  for (OpOperand &init : op.getDpsInitsMutable())
    args.push_back(
        op.payloadUsesValueFromOperand(&init)
            ? memref::LoadOp::create(b, loc, init.get(), indices(init, ivs))
                  .getResult()
            : Value());
  IRMapping map;
  SmallVector<Value> results = cloneBody(args, ivs, nullptr, map);
  for (auto [init, v] : llvm::zip(op.getDpsInitsMutable(), results))
    memref::StoreOp::create(b, loc, v, init.get(), indices(init, ivs));
}

std::pair<int64_t, int64_t> KernelBuilder::buildPerVector(int64_t width) {
  unsigned numLoops = op.getNumLoops(), last = numLoops - 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  ranges[last] /= width;
  SmallVector<unsigned> all = llvm::to_vector(llvm::seq<unsigned>(numLoops));
  auto [launch, threads, blocks, points] = launchPerPoint(all, ranges);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value id = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, c(threads)),
      launch.getThreadIds().x);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, id,
                                        toValue(points));
  auto inside = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&inside.getThenRegion().front());
  SmallVector<Value> ivs(numLoops);
  delinearize(id, all, ivs, ranges);
  Value first = arith::MulIOp::create(b, loc, ivs[last], c(width));
  ivs[last] = first;
  auto lane = [&](int64_t v) {
    SmallVector<Value> laneIvs(ivs);
    laneIvs[last] = arith::AddIOp::create(b, loc, first, c(v));
    return laneIvs;
  };

  // The operands read or written as vectors, and whether all their buffers
  // are aligned to their vectors (the static offsets and strides are
  // multiples of `width`: the base pointers decide).
  SmallVector<bool> isVector;
  Value aligned = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    bool vector =
        type && op.getMatchingIndexingMap(&operand).isFunctionOfDim(last);
    isVector.push_back(vector);
    if (!vector)
      continue;
    int64_t bytes = width * type.getElementTypeBitWidth() / 8;
    Value ptr =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, operand.get());
    Value misaligned = arith::RemUIOp::create(b, loc, ptr, c(bytes));
    aligned = arith::AndIOp::create(
        b, loc, aligned,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, misaligned,
                              c(0)));
  }
  auto ifAligned = scf::IfOp::create(b, loc, aligned, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifAligned.getThenRegion().front());
    auto vectorType = [&](Value memref) {
      return VectorType::get({width}, getElementTypeOrSelf(memref.getType()));
    };
    auto alignment = [&](Value memref) {
      return llvm::MaybeAlign(
          width *
          getElementTypeOrSelf(memref.getType()).getIntOrFloatBitWidth() / 8);
    };
    // Operand values: a vector, one value for every lane, or none (an
    // output the body does not read).
    SmallVector<Value> values;
    for (OpOperand &operand : op->getOpOperands()) {
      Value v = operand.get();
      if (op.isDpsInit(&operand) && !op.payloadUsesValueFromOperand(&operand))
        values.push_back(Value());
      else if (!isa<MemRefType>(v.getType()))
        values.push_back(v);
      else if (isVector[operand.getOperandNumber()])
        values.push_back(vector::LoadOp::create(
            b, loc, vectorType(v), v, indices(operand, ivs),
            /*nontemporal=*/false, alignment(v)));
      else
        values.push_back(
            memref::LoadOp::create(b, loc, v, indices(operand, ivs)));
    }
    SmallVector<SmallVector<Value>> lanes(op.getNumDpsInits());
    for (int64_t v = 0; v < width; ++v) {
      SmallVector<Value> args;
      for (auto [i, value] : llvm::enumerate(values))
        args.push_back(
            value && isVector[i]
                ? vector::ExtractOp::create(b, loc, value, v).getResult()
                : value);
      IRMapping map;
      SmallVector<Value> results = cloneBody(args, lane(v), nullptr, map);
      for (auto [i, r] : llvm::enumerate(results))
        lanes[i].push_back(r);
    }
    for (auto [i, init] : llvm::enumerate(op.getDpsInitsMutable())) {
      Value vec = vector::FromElementsOp::create(b, loc, vectorType(init.get()),
                                                 lanes[i]);
      vector::StoreOp::create(b, loc, vec, init.get(), indices(init, ivs),
                              /*nontemporal=*/false, alignment(init.get()));
    }
  }
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifAligned.getElseRegion().front());
    for (int64_t v = 0; v < width; ++v)
      emitPoint(lane(v));
  }
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  sinkConstants(launch);
  return {blocks, threads};
}

std::pair<int64_t, int64_t> KernelBuilder::buildPerPoint() {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> parallel, reduction;
  for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray()))
    (it == utils::IteratorType::parallel ? parallel : reduction).push_back(i);
  auto [launch, threads, blocks, points] = launchPerPoint(parallel, ranges);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value id = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, launch.getBlockIds().x, c(threads)),
      launch.getThreadIds().x);
  Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, id,
                                        toValue(points));
  auto ifOp = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  SmallVector<Value> ivs(numLoops);
  delinearize(id, parallel, ivs);

  // Sequential reduction loops (when there are any) around the body; the
  // outputs are read and written through memory, as linalg's loops do.
  std::function<void(unsigned)> emit = [&](unsigned r) {
    if (r < reduction.size()) {
      auto loop =
          scf::ForOp::create(b, loc, c(0), range(reduction[r], ranges), c(1));
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      ivs[reduction[r]] = loop.getInductionVar();
      emit(r + 1);
      return;
    }
    emitPoint(ivs);
  };
  emit(0);
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  sinkConstants(launch);
  return {blocks, threads};
}

/// The gpu.subgroup_reduce operation of a combiner.
static std::optional<gpu::AllReduceOperation>
getAllReduceOperation(arith::AtomicRMWKind kind) {
  using K = arith::AtomicRMWKind;
  using R = gpu::AllReduceOperation;
  switch (kind) {
  case K::addf:
  case K::addi:
    return R::ADD;
  case K::mulf:
  case K::muli:
    return R::MUL;
  case K::maximumf:
    return R::MAXIMUMF;
  case K::minimumf:
    return R::MINIMUMF;
  case K::maxnumf:
    return R::MAXNUMF;
  case K::minnumf:
    return R::MINNUMF;
  case K::maxs:
    return R::MAXSI;
  case K::mins:
    return R::MINSI;
  case K::maxu:
    return R::MAXUI;
  case K::minu:
    return R::MINUI;
  case K::andi:
    return R::AND;
  case K::ori:
    return R::OR;
  case K::xori:
    return R::XOR;
  case K::assign:
    return std::nullopt;
  }
  return std::nullopt;
}

std::pair<int64_t, int64_t> KernelBuilder::buildPerRow(const Combiner &combiner,
                                                       int64_t subgroupSize,
                                                       bool &bySubgroup) {
  unsigned numLoops = op.getNumLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> parallel, reduction;
  for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray()))
    (it == utils::IteratorType::parallel ? parallel : reduction).push_back(i);
  // The reduced length is static (the pass asks for it); the outputs may
  // be counted at run time: one workgroup each, at least one.
  int64_t reduced = 1;
  for (unsigned d : reduction)
    reduced = satMul(reduced, ranges[d]);
  int64_t threads = std::clamp<int64_t>(llvm::PowerOf2Ceil(reduced),
                                        kMinThreads, kMaxThreads);
  OpOperand &init = op.getDpsInitsMutable()[0];
  Type elt = getElementTypeOrSelf(init.get().getType());

  OpFoldResult points = countPoints(parallel, ranges);
  std::optional<int64_t> knownPoints = getConstantIntValue(points);
  gpu::LaunchOp launch =
      knownPoints ? createLaunch(*knownPoints, threads)
                  : createLaunch(arith::MaxUIOp::create(
                                     b, loc, cast<Value>(points), c(1)),
                                 threads);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  Value tid = launch.getThreadIds().x;
  // Shared local memory, address space 3 (the OpenCL workgroup space, as
  // convert-xpu-to-gpu allocates it), at the top of the kernel.
  Value slm = memref::AllocOp::create(
      b, loc,
      MemRefType::get({threads}, elt, MemRefLayoutAttrInterface(),
                      b.getI64IntegerAttr(3)));
  if (!knownPoints) {
    // No outputs (a batch of 0): the one workgroup does nothing, all of
    // its work-items alike (no barrier is left waiting).
    auto any = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                              launch.getBlockIds().x, cast<Value>(points)),
        /*withElseRegion=*/false);
    b.setInsertionPointToStart(&any.getThenRegion().front());
  }
  SmallVector<Value> ivs(numLoops);
  delinearize(launch.getBlockIds().x, parallel, ivs);
  Value identity = arith::getIdentityValue(combiner.kind, elt, b, loc);
  auto combine = [&](Value x, Value y) -> Value {
    return arith::getReductionOp(combiner.kind, b, loc, x, y);
  };

  // Each work-item combines elements tid, tid + threads, ...
  auto loop = scf::ForOp::create(b, loc, tid, c(reduced), c(threads),
                                 ValueRange{identity});
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(loop.getBody());
    SmallVector<Value> full(ivs);
    delinearize(loop.getInductionVar(), reduction, full);
    SmallVector<Value> args = loadInputs(full);
    args.push_back(Value());
    IRMapping map;
    cloneBody(args, full, combiner.op, map);
    Value v = map.lookupOrDefault(combiner.value);
    scf::YieldOp::create(b, loc, combine(loop.getRegionIterArgs()[0], v));
  }
  std::optional<gpu::AllReduceOperation> reduceOp =
      getAllReduceOperation(combiner.kind);
  bySubgroup = subgroupSize > 0 && threads % subgroupSize == 0 && reduceOp &&
               elt.isIntOrFloat() && elt.getIntOrFloatBitWidth() <= 32;
  if (bySubgroup) {
    // Each subgroup reduces its lanes' partials with shuffles, its first
    // lane writes one value per subgroup, and after one barrier the first
    // subgroup reduces those into slm[0].
    auto subgroupReduce = [&](Value v) -> Value {
      return gpu::SubgroupReduceOp::create(b, loc, v, *reduceOp,
                                           /*uniform=*/true);
    };
    int64_t subgroups = threads / subgroupSize;
    Value lane = arith::RemUIOp::create(b, loc, tid, c(subgroupSize));
    Value subgroup = arith::DivUIOp::create(b, loc, tid, c(subgroupSize));
    Value partial = subgroupReduce(loop.getResult(0));
    auto leader = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, c(0)),
        /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&leader.getThenRegion().front());
      memref::StoreOp::create(b, loc, partial, slm, subgroup);
    }
    gpu::BarrierOp::create(b, loc);
    auto firstSubgroup = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, subgroup, c(0)),
        /*withElseRegion=*/false);
    {
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&firstSubgroup.getThenRegion().front());
      Value inRange = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            lane, c(subgroups));
      auto read = scf::IfOp::create(
          b, loc, inRange,
          [&](OpBuilder &tb, Location l) {
            scf::YieldOp::create(
                tb, l, ValueRange{memref::LoadOp::create(tb, l, slm, lane)});
          },
          [&](OpBuilder &tb, Location l) {
            scf::YieldOp::create(tb, l, identity);
          });
      Value total = subgroupReduce(read.getResult(0));
      auto store = scf::IfOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lane, c(0)),
          /*withElseRegion=*/false);
      b.setInsertionPointToStart(&store.getThenRegion().front());
      memref::StoreOp::create(b, loc, total, slm, c(0));
    }
  } else {
    memref::StoreOp::create(b, loc, loop.getResult(0), slm, tid);
    gpu::BarrierOp::create(b, loc);
    // A tree of halvings in shared memory, one barrier per level.
    for (int64_t half = threads / 2; half >= 1; half /= 2) {
      Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                           tid, c(half));
      auto ifOp = scf::IfOp::create(b, loc, active, /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        Value mine = memref::LoadOp::create(b, loc, slm, tid);
        Value theirs = memref::LoadOp::create(
            b, loc, slm,
            ValueRange{arith::AddIOp::create(b, loc, tid, c(half))});
        memref::StoreOp::create(b, loc, combine(mine, theirs), slm, tid);
      }
      gpu::BarrierOp::create(b, loc);
    }
  }
  // The first work-item adds the output's initial value, once.
  Value first =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, c(0));
  auto ifOp = scf::IfOp::create(b, loc, first, /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    SmallVector<Value> outIdx = indices(init, ivs);
    Value total = memref::LoadOp::create(b, loc, slm, c(0));
    Value old = memref::LoadOp::create(b, loc, init.get(), outIdx);
    // Keep the body's operand order: combine(x, out) or combine(out, x).
    Value result = combiner.op->getOperand(0) == combiner.value
                       ? combine(total, old)
                       : combine(old, total);
    memref::StoreOp::create(b, loc, result, init.get(), outIdx);
  }
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  sinkConstants(launch);
  return {knownPoints ? *knownPoints : kRunTime, threads};
}

std::pair<int64_t, int64_t> KernelBuilder::buildTiledTranspose() {
  // Output (..., r, c) = input (..., c, r). A workgroup's tile is rows
  // [r0, r0 + T) and columns [c0, c0 + T) of one matrix of the output: its
  // work-items read T input rows (c) of T consecutive elements (r), store
  // them in a T x (T + 1) buffer (the extra column puts a column's
  // elements in distinct banks), then write T output rows of T consecutive
  // elements from the buffer's columns.
  OpOperand *in = op.getDpsInputOperand(0);
  OpOperand &out = op.getDpsInitsMutable()[0];
  auto outType = cast<MemRefType>(out.get().getType());
  ArrayRef<int64_t> shape = outType.getShape();
  unsigned rank = shape.size();
  int64_t rows = shape[rank - 2], cols = shape[rank - 1];
  int64_t tilesR = llvm::divideCeil(rows, kTransposeTile);
  int64_t tilesC = llvm::divideCeil(cols, kTransposeTile);
  SmallVector<int64_t> grid(shape.drop_back(2));
  grid.append({tilesR, tilesC});
  int64_t blocks = satProduct(grid);
  int64_t threads = kTransposeTile * kTransposeRows;
  gpu::LaunchOp launch = createLaunch(blocks, threads);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  // The workgroup's matrix (the leading dimensions) and tile.
  SmallVector<Value> lead(rank);
  SmallVector<unsigned> all = llvm::to_vector(llvm::seq<unsigned>(rank));
  delinearize(launch.getBlockIds().x, all, lead, grid);
  Value r0 = arith::MulIOp::create(b, loc, lead[rank - 2], c(kTransposeTile));
  Value c0 = arith::MulIOp::create(b, loc, lead[rank - 1], c(kTransposeTile));
  Value tid = launch.getThreadIds().x;
  Value tx = arith::RemUIOp::create(b, loc, tid, c(kTransposeTile));
  Value ty = arith::DivUIOp::create(b, loc, tid, c(kTransposeTile));
  // Shared local memory, address space 3 (as buildPerRow's), of integers
  // as wide as the elements: the Xe pipeline's SPIR-V has no bf16 in
  // workgroup memory.
  Type elt = outType.getElementType();
  Type bits = b.getIntegerType(elt.getIntOrFloatBitWidth());
  Value slm = memref::AllocOp::create(
      b, loc,
      MemRefType::get({kTransposeTile, kTransposeTile + 1}, bits,
                      MemRefLayoutAttrInterface(), b.getI64IntegerAttr(3)));
  auto cast = [&](Value v, Type to) -> Value {
    return v.getType() == to ? v : arith::BitcastOp::create(b, loc, to, v);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto below = [&](Value x, int64_t bound) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x,
                                 c(bound));
  };
  auto at = [&](Value x, Value y) {
    SmallVector<Value> idx(lead.begin(), lead.end() - 2);
    idx.append({x, y});
    return idx;
  };
  // For each of the tile's rows ty, ty + R, ... that this work-item takes:
  // `body(row, x, y)` where the element (x, y) = `element(row)` of the
  // matrix it moves is inside (`x` < `xs`, `y` < `ys`).
  auto forRows = [&](function_ref<std::array<Value, 2>(Value)> element,
                     int64_t xs, int64_t ys,
                     function_ref<void(Value, Value, Value)> body) {
    for (int64_t i = 0; i < kTransposeTile; i += kTransposeRows) {
      Value row = add(ty, c(i));
      auto [x, y] = element(row);
      Value ok = arith::AndIOp::create(b, loc, below(x, xs), below(y, ys));
      auto ifOp = scf::IfOp::create(b, loc, ok, /*withElseRegion=*/false);
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      body(row, x, y);
    }
  };
  // Input element (..., c0 + row, r0 + tx): consecutive work-items read
  // consecutive elements of an input row.
  auto inElement = [&](Value row) -> std::array<Value, 2> {
    return {add(c0, row), add(r0, tx)};
  };
  forRows(inElement, cols, rows, [&](Value row, Value x, Value y) {
    Value v = memref::LoadOp::create(b, loc, in->get(), at(x, y));
    memref::StoreOp::create(b, loc, cast(v, bits), slm, ValueRange{row, tx});
  });
  gpu::BarrierOp::create(b, loc);
  // Output element (..., r0 + row, c0 + tx) is input (..., c0 + tx,
  // r0 + row), which the first loop put at slm[tx][row].
  auto outElement = [&](Value row) -> std::array<Value, 2> {
    return {add(r0, row), add(c0, tx)};
  };
  forRows(outElement, rows, cols, [&](Value row, Value x, Value y) {
    Value v = memref::LoadOp::create(b, loc, slm, ValueRange{tx, row});
    memref::StoreOp::create(b, loc, cast(v, elt), out.get(), at(x, y));
  });
  b.setInsertionPointToEnd(&launch.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  sinkConstants(launch);
  return {blocks, threads};
}

struct XPULinalgToGPULoopsPass
    : xpu::impl::XPULinalgToGPULoopsPassBase<XPULinalgToGPULoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    if (subgroupSize < 0 || subgroupSize > 32 ||
        (subgroupSize != 0 && !llvm::isPowerOf2_64(subgroupSize))) {
      getOperation()->emitError()
          << "xpu-linalg-to-gpu-loops: subgroup-size must be 0 or a power of "
             "two from 2 to 32, got "
          << static_cast<int64_t>(subgroupSize);
      return signalPassFailure();
    }
    // Host copies: between contiguous buffers a gpu.memcpy; strided ones (a
    // bufferized tensor.pad's copy into the interior of its buffer), with
    // strided-copies, linalg.copy ops mapped below like the others.
    DenseSet<Operation *> copies;
    SmallVector<memref::CopyOp> hostCopies;
    getOperation()->walk([&](memref::CopyOp copy) {
      if (!copy->getParentOfType<gpu::LaunchOp>() &&
          !copy->getParentOfType<gpu::GPUModuleOp>())
        hostCopies.push_back(copy);
    });
    for (memref::CopyOp copy : hostCopies) {
      auto src = dyn_cast<MemRefType>(copy.getSource().getType());
      auto dst = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (!src || !dst)
        continue;
      OpBuilder b(copy);
      if (isContiguous(src) && isContiguous(dst)) {
        emitMemcpy(b, copy.getLoc(), copy.getTarget(), copy.getSource());
        copy.erase();
        ++numMemcpys;
        continue;
      }
      if (!stridedCopies || !isStaticStrided(src) || !isStaticStrided(dst))
        continue;
      auto linalgCopy = linalg::CopyOp::create(
          b, copy.getLoc(), copy.getSource(), copy.getTarget());
      copies.insert(linalgCopy);
      copy.erase();
    }
    // A bufferized pad (a fill, then a copy into a box of the buffer)
    // becomes one kernel that writes every element once.
    DenseSet<Operation *> pads;
    if (stridedCopies) {
      SmallVector<PaddedCopy> matches;
      getOperation()->walk([&](linalg::CopyOp copy) {
        if (copy->getParentOfType<gpu::LaunchOp>())
          return;
        if (std::optional<PaddedCopy> pad = matchPaddedCopy(copy);
            pad &&
            isGPUMappable(cast<linalg::LinalgOp>(pad->fill), allowBF16, false,
                          false) &&
            isGPUMappable(copy, allowBF16, true, false)) {
          if (pad->producer &&
              !isGPUMappable(pad->producer, allowBF16, false, false))
            pad->producer = {};
          matches.push_back(*pad);
        }
      });
      for (PaddedCopy &pad : matches) {
        remark::passed(pad.copy.getLoc(),
                       remarkOpts("xpu-linalg-to-gpu-loops", "FusedPad"))
            << remark::reason(
                   "a bufferized pad ({0} over {1}, then a copy of {2} into "
                   "it{3}) fused into one kernel that writes each element "
                   "once",
                   pad.fill->getName().getStringRef(),
                   llvm::join(llvm::map_range(
                                  pad.box.getSourceType().getShape(),
                                  [](int64_t d) { return std::to_string(d); }),
                              "x"),
                   llvm::join(llvm::map_range(
                                  pad.box.getType().getShape(),
                                  [](int64_t d) { return std::to_string(d); }),
                              "x"),
                   pad.producer ? ", computed by a linalg.generic whose "
                                  "payload the kernel applies as it reads "
                                  "the generic's inputs"
                                : "");
        copies.erase(pad.copy);
        pads.insert(fusePaddedCopy(pad));
        ++numFusedPads;
      }
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (!op->getParentOfType<gpu::LaunchOp>() &&
          isGPUMappable(op, allowBF16, stridedOperands || copies.contains(op),
                        dynamicShapes, pads.contains(op)))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      // Over the static ranges; a dynamic one is counted at run time (a
      // dynamic reduced length keeps the reduction in a loop).
      int64_t reduced = 1, reductions = 0, points = 1;
      bool dynamicReduction = false;
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      for (auto [i, it] : llvm::enumerate(op.getIteratorTypesArray())) {
        bool reduction = it == utils::IteratorType::reduction;
        reductions += reduction;
        if (ShapedType::isDynamic(ranges[i]))
          dynamicReduction |= reduction;
        else if (reduction)
          reduced = satMul(reduced, ranges[i]);
        else
          points = satMul(points, ranges[i]);
      }
      // Every kernel below covers the parallel points with a 1-D grid (a
      // workgroup per output for row reductions, up to kMaxThreads
      // points per workgroup otherwise).
      int64_t perGroup = reductions > 0 ? 1 : kMaxThreads;
      if (isSaturated(points) || isSaturated(reduced) ||
          llvm::divideCeil(points, perGroup) > kMaxWorkgroups) {
        op->emitError() << "xpu-linalg-to-gpu-loops: "
                        << (isSaturated(points) || isSaturated(reduced)
                                ? "the iteration space does not fit in 64 bits"
                                : llvm::formatv(
                                      "{0} parallel points need more than "
                                      "{1} workgroups of a 1-D grid",
                                      points, kMaxWorkgroups)
                                      .str())
                        << "; the kernel cannot be launched";
        return signalPassFailure();
      }
      OpBuilder b(op);
      SmallVector<cf::AssertOp> asserts = getAsserts(op);
      Value flags = createAssertFlags(b, op.getLoc(), asserts.size());
      KernelBuilder builder(b, op, asserts, flags);
      bool contraction = linalg::isaContractionOpInterface(op);
      std::optional<Combiner> combiner;
      if (reductions > 0 && !dynamicReduction && reduced >= kRowThreshold &&
          !contraction)
        combiner = matchCombiner(op);
      std::string what = llvm::formatv(
          "{0} over {1}", op->getName().getStringRef(),
          llvm::join(llvm::map_range(ranges,
                                     [](int64_t r) {
                                       return ShapedType::isDynamic(r)
                                                  ? std::string("?")
                                                  : std::to_string(r);
                                     }),
                     "x"));
      // A count of workgroups, or one read at run time.
      auto groupsText = [](int64_t groups) {
        return groups == KernelBuilder::kRunTime
                   ? std::string("a run-time count of")
                   : std::to_string(groups);
      };
      auto remark = [&](StringRef category) {
        return remark::passed(op.getLoc(),
                              remarkOpts("xpu-linalg-to-gpu-loops", category));
      };
      if (!flags && isTiledTranspose(op)) {
        auto [groups, threads] = builder.buildTiledTranspose();
        remark("Transpose") << remark::reason(
            "{0}: transposed through shared local memory in {1}x{1} tiles "
            "(rows read and written whole: coalesced on both sides), {2} "
            "workgroup(s) of {3}",
            what, kTransposeTile, groups, threads);
        ++numTransposes;
      } else if (combiner) {
        bool bySubgroup = false;
        auto [groups, threads] =
            builder.buildPerRow(*combiner, subgroupSize, bySubgroup);
        remark("RowReduction") << remark::reason(
            "{0}: row reduction, one workgroup of {1} work-items per output "
            "({2} workgroups), {3} over {4} elements combined {5}",
            what, threads, groupsText(groups),
            arith::stringifyAtomicRMWKind(combiner->kind), reduced,
            bySubgroup
                ? llvm::formatv("by subgroups of {0} (gpu.subgroup_reduce), "
                                "then across the {1} subgroups in shared "
                                "local memory",
                                subgroupSize.getValue(), threads / subgroupSize)
                      .str()
                : std::string("in shared local memory"));
        ++numRowReductions;
      } else if (int64_t width = vectorize && reductions == 0
                                     ? getElementwiseVectorWidth(op)
                                     : 1;
                 width > 1) {
        auto [groups, threads] = builder.buildPerVector(width);
        remark("Elementwise") << remark::reason(
            "{0}: one work-item per {1} consecutive elements, vectors of {1} "
            "where the buffers are aligned to them (element by element "
            "otherwise), {2} workgroup(s) of {3}",
            what, width, groupsText(groups), threads);
      } else {
        auto [groups, threads] = builder.buildPerPoint();
        if (reductions == 0) {
          remark("Elementwise") << remark::reason(
              "{0}: one work-item per element, {1} workgroup(s) of {2}", what,
              groupsText(groups), threads);
        } else {
          StringRef why = contraction ? "a contraction"
                          : dynamicReduction
                              ? "a reduced length known at run time"
                          : reduced < kRowThreshold
                              ? "fewer reduced elements than a workgroup"
                              : "no associative combiner";
          remark("PerOutput") << remark::reason(
              "{0}: one work-item per output, {1} workgroup(s) of {2}, {3} "
              "elements reduced in a loop ({4})",
              what, groupsText(groups), threads,
              dynamicReduction ? std::string("?") : std::to_string(reduced),
              why);
        }
      }
      if (flags) {
        b.setInsertionPointAfter(op);
        checkAssertFlags(b, flags, asserts);
        ++numGuardedKernels;
      }
      op->erase();
      ++numMapped;
    }
  }

  /// A device buffer of `count` i32 flags, zeroed (null when `count` is 0).
  Value createAssertFlags(OpBuilder &b, Location loc, size_t count) {
    if (count == 0)
      return Value();
    auto type = MemRefType::get({static_cast<int64_t>(count)}, b.getI32Type());
    Value flags = memref::AllocOp::create(b, loc, type);
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    auto tokenType = gpu::AsyncTokenType::get(b.getContext());
    emitSynchronous(b, loc, [&](Value token) {
      return gpu::MemsetOp::create(b, loc, tokenType, ValueRange{token}, flags,
                                   zero)
          .getAsyncToken();
    });
    return flags;
  }

  /// After the kernel: the flags copied to a host buffer, each assert
  /// checked on the host with its message at its location, and both
  /// buffers freed.
  void checkAssertFlags(OpBuilder &b, Value flags,
                        ArrayRef<cf::AssertOp> asserts) {
    Location loc = flags.getLoc();
    Value host =
        memref::AllocOp::create(b, loc, cast<MemRefType>(flags.getType()));
    emitMemcpy(b, loc, host, flags);
    Value zero = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
    for (size_t i = 0; i < asserts.size(); ++i) {
      cf::AssertOp a = asserts[i];
      Value flag = memref::LoadOp::create(
          b, a.getLoc(), host,
          ValueRange{arith::ConstantIndexOp::create(b, a.getLoc(), i)});
      Value ok = arith::CmpIOp::create(b, a.getLoc(), arith::CmpIPredicate::eq,
                                       flag, zero);
      cf::AssertOp::create(b, a.getLoc(), ok, a.getMsg());
    }
    memref::DeallocOp::create(b, loc, host);
    memref::DeallocOp::create(b, loc, flags);
  }
};
} // namespace
