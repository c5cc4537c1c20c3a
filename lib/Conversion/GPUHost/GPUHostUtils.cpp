//===- GPUHostUtils.cpp - helpers of the shared GPU host passes -----------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

bool mlir::xpu::isInGPUCode(Operation *op) {
  return op->getParentOfType<gpu::GPUModuleOp>() ||
         op->getParentOfType<gpu::LaunchOp>() ||
         op->getParentOfType<gpu::GPUFuncOp>();
}

bool mlir::xpu::isWorkgroupMemorySpace(Attribute space) {
  if (auto integer = dyn_cast_or_null<IntegerAttr>(space))
    return integer.getInt() == 3;
  auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space);
  return gpuSpace && gpuSpace.getValue() == gpu::AddressSpace::Workgroup;
}

void mlir::xpu::createWaitedAsyncOp(OpBuilder &b, Location loc,
                                    function_ref<Value(Value start)> build) {
  auto tokenType = gpu::AsyncTokenType::get(b.getContext());
  auto start = gpu::WaitOp::create(b, loc, tokenType, ValueRange());
  Value done = build(start.getAsyncToken());
  gpu::WaitOp::create(b, loc, Type(), ValueRange{done});
}

void mlir::xpu::replaceHostDeallocs(RewriterBase &rewriter,
                                    ArrayRef<memref::DeallocOp> deallocs) {
  auto tokenType = gpu::AsyncTokenType::get(rewriter.getContext());
  for (memref::DeallocOp dealloc : deallocs) {
    Value memref = dealloc.getMemref();
    if (cast<BaseMemRefType>(memref.getType()).getMemorySpace())
      continue;
    rewriter.setInsertionPoint(dealloc);
    createWaitedAsyncOp(rewriter, dealloc.getLoc(), [&](Value start) {
      return gpu::DeallocOp::create(rewriter, dealloc.getLoc(), tokenType,
                                    ValueRange{start}, memref)
          .getAsyncToken();
    });
    rewriter.eraseOp(dealloc);
  }
}

LogicalResult mlir::xpu::createDumpDirectory(Operation *at, StringRef pass,
                                             StringRef dir) {
  // The directory is created on demand, like a compiler's -o directory.
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return at->emitError() << pass << ": cannot create directory '" << dir
                           << "': " << ec.message();
  return success();
}

LogicalResult mlir::xpu::writeDumpFile(Operation *at, StringRef pass,
                                       StringRef dir, StringRef name,
                                       StringRef bytes) {
  SmallString<128> path(dir);
  llvm::sys::path::append(path, name);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return at->emitError() << pass << ": cannot write '" << path
                           << "': " << ec.message();
  os << bytes;
  return success();
}
