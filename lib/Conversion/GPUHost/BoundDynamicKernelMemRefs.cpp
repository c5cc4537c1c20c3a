//===- BoundDynamicKernelMemRefs.cpp - static kernel memrefs for bare ptrs ===//
//
// A kernel that takes bare pointers (the NVVM pipeline's) can only take
// statically shaped memrefs: the callee rebuilds a descriptor from the
// static shape. A kernel over a dynamic batch reads its sizes from index
// arguments, never from the memref (xpu-linalg-to-gpu-loops and the SIMT
// GEMM tiles pass them), so its memref arguments only need their strides,
// which are static. This pass gives each such argument a static leading
// dimension (a bound no buffer reaches) and reinterprets the operand at
// every launch; where the kernel reads the leading dimension (a memref.dim
// that outlining sank into it), the size becomes an index argument of its
// own, read on the host.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

#include <limits>

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUBOUNDDYNAMICKERNELMEMREFSPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
/// `type` with a static leading dimension in place of a dynamic one, if the
/// other dimensions, the strides and the offset are static; else null.
MemRefType getBoundedType(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getRank() == 0 || !memref.isDynamicDim(0) ||
      llvm::any_of(memref.getShape().drop_front(), ShapedType::isDynamic))
    return nullptr;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return nullptr;
  // Rows no buffer reaches: the grid's 2^31 - 1 workgroups, and an element
  // count that stays far from int64's limit.
  int64_t inner = 1;
  for (int64_t d : memref.getShape().drop_front())
    inner *= std::max<int64_t>(d, 1);
  int64_t bound = std::max<int64_t>(
      1, std::min<int64_t>(std::numeric_limits<int32_t>::max(),
                           (int64_t(1) << 52) / inner));
  SmallVector<int64_t> shape(memref.getShape());
  shape[0] = bound;
  MemRefLayoutAttrInterface layout =
      memref.getLayout().isIdentity()
          ? MemRefLayoutAttrInterface()
          : StridedLayoutAttr::get(memref.getContext(), offset, strides);
  return MemRefType::get(shape, memref.getElementType(), layout,
                         memref.getMemorySpace());
}

/// What changes in one kernel: the bounded arguments (index, new type) and
/// the arguments whose leading dimension it reads, each now passed after
/// the others.
struct KernelChange {
  SmallVector<std::pair<unsigned, MemRefType>> bounded;
  SmallVector<unsigned> sizesOf;
};

struct BoundDynamicKernelMemRefsPass final
    : xpu::impl::XPUBoundDynamicKernelMemRefsPassBase<
          BoundDynamicKernelMemRefsPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    DenseMap<Operation *, KernelChange> changes;
    WalkResult result = top.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return WalkResult::advance();
      KernelChange change;
      for (BlockArgument arg : func.getArguments())
        if (MemRefType type = getBoundedType(arg.getType()))
          change.bounded.push_back({arg.getArgNumber(), type});
      if (change.bounded.empty())
        return WalkResult::advance();
      // The leading dimension becomes the bound, not the size: a kernel
      // that reads it (gpu-kernel-outlining sinks memref.dim into kernels)
      // gets the size as an index argument of its own.
      Block &entry = func.getBody().front();
      for (auto [i, type] : change.bounded) {
        BlockArgument arg = func.getArgument(i);
        SmallVector<memref::DimOp> dims;
        for (Operation *user : arg.getUsers())
          if (auto dim = dyn_cast<memref::DimOp>(user))
            dims.push_back(dim);
        if (dims.empty())
          continue;
        for (memref::DimOp dim : dims) {
          std::optional<int64_t> index = dim.getConstantIndex();
          if (!index) {
            dim.emitError() << "xpu-bound-dynamic-kernel-memrefs: a dimension "
                               "read at a non-constant index of kernel "
                               "argument #"
                            << i;
            return WalkResult::interrupt();
          }
        }
        unsigned sizeArg = func.getNumArguments();
        if (failed(func.insertArgument(sizeArg, IndexType::get(&getContext()),
                                       DictionaryAttr(), func.getLoc())))
          return WalkResult::interrupt();
        change.sizesOf.push_back(i);
        for (memref::DimOp dim : dims) {
          OpBuilder b(dim);
          Value size = *dim.getConstantIndex() == 0
                           ? Value(entry.getArgument(sizeArg))
                           : arith::ConstantIndexOp::create(
                                 b, dim.getLoc(),
                                 type.getDimSize(*dim.getConstantIndex()))
                                 .getResult();
          dim.replaceAllUsesWith(size);
          dim.erase();
        }
      }
      for (auto [i, type] : change.bounded)
        func.getArgument(i).setType(type);
      SmallVector<Type> inputs(func.getArgumentTypes());
      for (auto [i, type] : change.bounded)
        inputs[i] = type;
      func.setFunctionType(
          FunctionType::get(&getContext(), inputs, func.getResultTypes()));
      numBounded += change.bounded.size();
      changes[func] = std::move(change);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    SymbolTableCollection symbols;
    top.walk([&](gpu::LaunchFuncOp launch) {
      auto func = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      auto it = changes.find(func);
      if (!func || it == changes.end())
        return;
      OpBuilder b(launch);
      Location loc = launch.getLoc();
      SmallVector<Value> sizes;
      for (unsigned i : it->second.sizesOf)
        sizes.push_back(memref::DimOp::create(
            b, loc, launch.getKernelOperands()[i], int64_t(0)));
      for (auto [i, type] : it->second.bounded) {
        OpOperand &operand = launch.getKernelOperandsMutable()[i];
        SmallVector<int64_t> strides;
        int64_t offset;
        (void)type.getStridesAndOffset(strides, offset);
        SmallVector<OpFoldResult> shape, strideAttrs;
        for (int64_t d : type.getShape())
          shape.push_back(b.getIndexAttr(d));
        for (int64_t stride : strides)
          strideAttrs.push_back(b.getIndexAttr(stride));
        operand.set(memref::ReinterpretCastOp::create(
            b, loc, type, operand.get(), b.getIndexAttr(offset), shape,
            strideAttrs));
      }
      launch.getKernelOperandsMutable().append(sizes);
    });
  }
};
} // namespace
