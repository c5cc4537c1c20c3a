//===- WorkgroupAllocsToGlobals.cpp - __local arrays for XeVM kernels -----===//
//
// Shared local memory allocated with memref.alloc in address space 3 inside
// a kernel becomes a private workgroup memref.global of the gpu.module,
// which the LLVM lowering turns into an addrspace(3) global (an OpenCL
// __local array). Passes.td says why the XeVM path needs it.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"
#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUWORKGROUPALLOCSTOGLOBALSPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
struct WorkgroupAllocsToGlobalsPass final
    : xpu::impl::XPUWorkgroupAllocsToGlobalsPassBase<
          WorkgroupAllocsToGlobalsPass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<memref::AllocOp> allocs;
    for (auto func : module.getOps<gpu::GPUFuncOp>()) {
      if (!func.isKernel() || func.getBody().empty())
        continue;
      for (Operation &op : func.getBody().front())
        if (auto alloc = dyn_cast<memref::AllocOp>(op))
          if (xpu::isWorkgroupMemorySpace(alloc.getType().getMemorySpace()) &&
              alloc.getType().hasStaticShape() &&
              alloc.getType().getLayout().isIdentity())
            allocs.push_back(alloc);
    }
    OpBuilder b(&getContext());
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      b.setInsertionPointToStart(module.getBody());
      auto global = memref::GlobalOp::create(
          b, alloc.getLoc(), "__xpu_workgroup", b.getStringAttr("private"),
          type, b.getUnitAttr(), /*constant=*/false, alloc.getAlignmentAttr());
      symbols.insert(global); // renames it if the name is taken
      b.setInsertionPoint(alloc);
      Value replacement = memref::GetGlobalOp::create(b, alloc.getLoc(), type,
                                                      global.getSymName());
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          user->erase();
      alloc.replaceAllUsesWith(replacement);
      alloc.erase();
      ++numGlobals;
    }
  }
};
} // namespace
