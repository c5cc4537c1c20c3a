//===- AsyncLaunches.cpp - kernel launches without host synchronization ---===//
//
// Catalog: no_device_to_host_scalar_sync. A synchronous gpu.launch_func
// waits for its kernel (stream create, launch, synchronize, destroy); a
// forward pass of several kernels would stop the host after each one. This
// pass chains the launches of a block on one asynchronous token and waits
// only where the host must see the results: before an operation that reads
// or writes memory (allocation alone does not), and before the terminator.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUASYNCLAUNCHESPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
/// True if the host may run `op` while kernels are in flight: it touches no
/// memory other than allocating it.
bool mayOverlapKernels(Operation *op) {
  if (isMemoryEffectFree(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects || op->getNumRegions() != 0)
    return false;
  return effects.onlyHasEffect<MemoryEffects::Allocate>();
}

struct XPUAsyncLaunchesPass final
    : xpu::impl::XPUAsyncLaunchesPassBase<XPUAsyncLaunchesPass> {
  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) {
      if (!block->getParentOp()->getParentOfType<gpu::GPUModuleOp>())
        blocks.push_back(block);
    });
    for (Block *block : blocks)
      chainLaunches(*block);
  }

  void chainLaunches(Block &block) {
    IRRewriter rewriter(&getContext());
    auto tokenType = gpu::AsyncTokenType::get(&getContext());
    Value token;
    for (Operation &op : llvm::make_early_inc_range(block)) {
      auto launch = dyn_cast<gpu::LaunchFuncOp>(&op);
      if (launch && !launch.getAsyncToken() &&
          launch.getAsyncDependencies().empty()) {
        rewriter.setInsertionPoint(launch);
        if (!token)
          token = gpu::WaitOp::create(rewriter, launch.getLoc(), tokenType,
                                      ValueRange())
                      .getAsyncToken();
        std::optional<gpu::KernelDim3> cluster;
        if (launch.hasClusterSize())
          cluster = launch.getClusterSizeOperandValues();
        auto async = gpu::LaunchFuncOp::create(
            rewriter, launch.getLoc(), launch.getKernel(),
            launch.getGridSizeOperandValues(),
            launch.getBlockSizeOperandValues(),
            launch.getDynamicSharedMemorySize(), launch.getKernelOperands(),
            tokenType, ValueRange{token}, cluster);
        async->setDiscardableAttrs(launch->getDiscardableAttrDictionary());
        rewriter.eraseOp(launch);
        token = async.getAsyncToken();
        ++numLaunches;
        continue;
      }
      if (!token ||
          (!op.hasTrait<OpTrait::IsTerminator>() && mayOverlapKernels(&op)))
        continue;
      rewriter.setInsertionPoint(&op);
      gpu::WaitOp::create(rewriter, op.getLoc(), Type(), ValueRange{token});
      token = Value();
      ++numWaits;
    }
  }
};
} // namespace
