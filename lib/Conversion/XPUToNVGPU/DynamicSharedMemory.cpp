//===- DynamicSharedMemory.cpp - SIMT kernels on dynamic shared memory ----===//
//
// The shared memory of the SIMT kernels as views of the dynamic shared
// memory (xpu-shared-allocs-to-dynamic), and the linkage and alignment
// that the NVPTX backend needs of its global
// (xpu-extern-dynamic-shared-memory).
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"
#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSHAREDALLOCSTODYNAMICPASS
#define GEN_PASS_DEF_XPUEXTERNDYNAMICSHAREDMEMORYPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

//===----------------------------------------------------------------------===//
// xpu-shared-allocs-to-dynamic
//===----------------------------------------------------------------------===//

namespace {
struct SharedAllocsToDynamicPass final
    : xpu::impl::XPUSharedAllocsToDynamicPassBase<SharedAllocsToDynamicPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Attribute workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    getOperation()->walk([&](gpu::LaunchOp launch) {
      if (launch.getDynamicSharedMemorySize())
        return;
      SmallVector<memref::AllocOp> allocs;
      for (Operation &op : launch.getBody().front())
        if (auto alloc = dyn_cast<memref::AllocOp>(op))
          if (isWorkgroupMemorySpace(alloc.getType().getMemorySpace()) &&
              alloc.getType().hasStaticShape() &&
              alloc.getType().getLayout().isIdentity())
            allocs.push_back(alloc);
      if (allocs.empty())
        return;
      OpBuilder b(ctx);
      b.setInsertionPointToStart(&launch.getBody().front());
      Location loc = launch.getLoc();
      Value base = gpu::DynamicSharedMemoryOp::create(
          b, loc,
          MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                          MemRefLayoutAttrInterface(), workgroup));
      int64_t offset = 0;
      for (memref::AllocOp alloc : allocs) {
        MemRefType type = alloc.getType();
        int64_t bytes = type.getNumElements() *
                        llvm::divideCeil(type.getElementTypeBitWidth(), 8);
        b.setInsertionPoint(alloc);
        Value at = arith::ConstantIndexOp::create(b, loc, offset);
        auto viewType = MemRefType::get(type.getShape(), type.getElementType(),
                                        MemRefLayoutAttrInterface(), workgroup);
        Value view = memref::ViewOp::create(b, alloc.getLoc(), viewType, base,
                                            at, ValueRange());
        if (viewType != type)
          view =
              memref::MemorySpaceCastOp::create(b, alloc.getLoc(), type, view);
        for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
          if (isa<memref::DeallocOp>(user))
            user->erase();
        alloc.replaceAllUsesWith(view);
        alloc.erase();
        offset = llvm::alignTo(offset + bytes, 16);
      }
      b.setInsertionPoint(launch);
      launch.getDynamicSharedMemorySizeMutable().assign(
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset));
    });
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// xpu-extern-dynamic-shared-memory
//===----------------------------------------------------------------------===//

namespace {
struct ExternDynamicSharedMemoryPass final
    : xpu::impl::XPUExternDynamicSharedMemoryPassBase<
          ExternDynamicSharedMemoryPass> {
  void runOnOperation() override {
    getOperation()->walk([&](LLVM::GlobalOp global) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() != 3 || !array || array.getNumElements() != 0)
        return;
      global.setLinkage(LLVM::Linkage::External);
      global.setAlignment(1024);
    });
  }
};
} // namespace
