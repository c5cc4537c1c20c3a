//===- CudaBuffers.cpp - host buffers as CUDA device or managed memory ----===//
//
// The CUDA counterpart of xpu-host-buffers-to-gpu: buffers only kernels
// touch become device memory, the others managed memory; contiguous copies
// become gpu.memcpy and deallocations gpu.dealloc.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"
#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCUDABUFFERSPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
bool isContiguousCopy(memref::CopyOp copy) {
  auto src = cast<MemRefType>(copy.getSource().getType());
  auto dst = cast<MemRefType>(copy.getTarget().getType());
  return src.getLayout().isIdentity() && dst.getLayout().isIdentity();
}

struct CudaBuffersPass final
    : xpu::impl::XPUCudaBuffersPassBase<CudaBuffersPass> {
  using Base::Base;

  /// True when host code may read or write the memory of `value` (or of a
  /// view of it).
  bool touchedByHost(Value value) {
    // A buffer passed to a function is touched there if the argument is
    // (xpu-write-results-in-place's <fn>.in_place receives the buffers
    // <fn> allocates); a function seen again (recursion) counts as a touch.
    if (!visiting.insert(value).second)
      return true;
    bool touched = touchedByHostUses(value);
    visiting.erase(value);
    return touched;
  }

  bool touchedByHostUses(Value value) {
    for (Operation *user : value.getUsers()) {
      if (auto call = dyn_cast<func::CallOp>(user)) {
        auto callee = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
            call, call.getCalleeAttr());
        if (!callee || callee.isExternal())
          return true;
        for (auto [i, operand] : llvm::enumerate(call.getOperands()))
          if (operand == value && touchedByHost(callee.getArgument(i)))
            return true;
        continue;
      }
      // A TMA descriptor is made on the host from the buffer's address,
      // sizes and strides; only the copy engine reads the memory.
      if (isa<gpu::LaunchFuncOp, memref::DeallocOp, gpu::DeallocOp,
              gpu::MemcpyOp, gpu::MemsetOp,
              memref::ExtractAlignedPointerAsIndexOp,
              nvgpu::TmaCreateDescriptorOp>(user))
        continue;
      // Contiguous copies become gpu.memcpy below; strided ones stay on the
      // host.
      if (auto copy = dyn_cast<memref::CopyOp>(user)) {
        if (isContiguousCopy(copy))
          continue;
        return true;
      }
      // Deallocation helpers read the base buffer's pointer only.
      if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(user)) {
        if (touchedByHost(metadata.getBaseBuffer()))
          return true;
        continue;
      }
      if (isa<func::ReturnOp>(user)) {
        if (deviceResults)
          continue;
        return true;
      }
      if (isa<ViewLikeOpInterface>(user) ||
          isa<memref::CollapseShapeOp, memref::ExpandShapeOp,
              memref::ReinterpretCastOp, memref::CastOp>(user)) {
        for (Value r : user->getResults())
          if (isa<BaseMemRefType>(r.getType()) && touchedByHost(r))
            return true;
        continue;
      }
      return true;
    }
    return false;
  }

  llvm::DenseSet<Value> visiting;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](Operation *op) {
      if (isInGPUCode(op))
        return;
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(alloc);
      else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(dealloc);
      else if (auto copy = dyn_cast<memref::CopyOp>(op))
        copies.push_back(copy);
    });
    auto tokenType = gpu::AsyncTokenType::get(ctx);
    IRRewriter rewriter(ctx);
    for (memref::AllocOp alloc : allocs) {
      if (alloc.getType().getMemorySpace())
        continue;
      Location loc = alloc.getLoc();
      rewriter.setInsertionPoint(alloc);
      if (touchedByHost(alloc.getResult())) {
        auto shared = gpu::AllocOp::create(
            rewriter, loc, alloc.getType(), Type(), ValueRange(),
            alloc.getDynamicSizes(), alloc.getSymbolOperands(),
            rewriter.getUnitAttr());
        rewriter.replaceOp(alloc, shared.getMemref());
        ++numManaged;
        continue;
      }
      // gpu-to-llvm lowers device allocations in their async form only.
      Value device;
      createWaitedAsyncOp(rewriter, loc, [&](Value start) {
        auto op = gpu::AllocOp::create(
            rewriter, loc, alloc.getType(), tokenType, ValueRange{start},
            alloc.getDynamicSizes(), alloc.getSymbolOperands(), UnitAttr());
        device = op.getMemref();
        return op.getAsyncToken();
      });
      rewriter.replaceOp(alloc, device);
      ++numDevice;
    }
    for (memref::CopyOp copy : copies) {
      // Contiguous copies only; strided ones stay host copies of managed
      // memory.
      if (!isContiguousCopy(copy))
        continue;
      Location loc = copy.getLoc();
      rewriter.setInsertionPoint(copy);
      createWaitedAsyncOp(rewriter, loc, [&](Value start) {
        return gpu::MemcpyOp::create(rewriter, loc, tokenType,
                                     ValueRange{start}, copy.getTarget(),
                                     copy.getSource())
            .getAsyncToken();
      });
      rewriter.eraseOp(copy);
    }
    replaceHostDeallocs(rewriter, deallocs);
  }
};
} // namespace
