//===- HostBuffersToGPU.cpp - host buffers as gpu.alloc host_shared -------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"
#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUHOSTBUFFERSTOGPUPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
struct XPUHostBuffersToGPUPass
    : xpu::impl::XPUHostBuffersToGPUPassBase<XPUHostBuffersToGPUPass> {
  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    SmallVector<memref::GetGlobalOp> constants;
    SymbolTableCollection symbols;
    getOperation()->walk([&](Operation *op) {
      if (isInGPUCode(op))
        return;
      if (auto getGlobal = dyn_cast<memref::GetGlobalOp>(op)) {
        auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
            op, getGlobal.getNameAttr());
        if (global && global.getConstant() &&
            !getGlobal.getType().getMemorySpace())
          constants.push_back(getGlobal);
      }
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(alloc);
      else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(dealloc);
    });

    IRRewriter rewriter(&getContext());
    for (memref::AllocOp alloc : allocs) {
      // gpu.alloc has no address space or alignment: keep those allocs.
      if (alloc.getType().getMemorySpace())
        continue;
      rewriter.setInsertionPoint(alloc);
      auto gpuAlloc = gpu::AllocOp::create(
          rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
          /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), rewriter.getUnitAttr());
      rewriter.replaceOp(alloc, gpuAlloc.getMemref());
      ++numAllocs;
    }

    // Constants (weights folded at compile time) live in host memory that
    // kernels cannot read: register them, and the runtime hands kernels a
    // device-visible copy, made once.
    for (memref::GetGlobalOp getGlobal : constants) {
      rewriter.setInsertionPointAfter(getGlobal);
      MemRefType type = getGlobal.getType();
      auto unranked =
          UnrankedMemRefType::get(type.getElementType(), /*memorySpace=*/{});
      Value cast = memref::CastOp::create(rewriter, getGlobal.getLoc(),
                                          unranked, getGlobal.getResult());
      gpu::HostRegisterOp::create(rewriter, getGlobal.getLoc(), cast);
      ++numConstants;
    }

    // Every buffer the module allocates is shared now (the ones in another
    // memory space aside), wherever the dealloc finds it: a dealloc helper
    // frees buffers it gets as arguments.
    replaceHostDeallocs(rewriter, deallocs);
  }
};
} // namespace
