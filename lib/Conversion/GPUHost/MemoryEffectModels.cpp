//===- MemoryEffectModels.cpp - effects of gpu.barrier and launches -------===//
//
// Upstream declares no memory effects for gpu.barrier and gpu.launch_func;
// the backends create both before bufferization, whose ownership-based
// deallocation needs them. The models come with the conversions that
// create the ops (getDependentDialects), not with loading xpu.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {
/// A barrier makes the workgroup's earlier writes visible to its later
/// reads: to passes that move or erase memory operations it reads and
/// writes memory.
struct BarrierMemoryEffects final
    : MemoryEffectOpInterface::ExternalModel<BarrierMemoryEffects,
                                             gpu::BarrierOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    effects.emplace_back(MemoryEffects::Read::get());
    effects.emplace_back(MemoryEffects::Write::get());
  }
};

/// A kernel reads and writes every memref it is passed, and is never dead.
struct LaunchFuncMemoryEffects final
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

void mlir::xpu::registerGPUBarrierMemoryEffectsModel(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, gpu::GPUDialect *) {
    gpu::BarrierOp::attachInterface<BarrierMemoryEffects>(*ctx);
  });
}

void mlir::xpu::registerGPULaunchMemoryEffectsModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, gpu::GPUDialect *) {
    gpu::LaunchFuncOp::attachInterface<LaunchFuncMemoryEffects>(*ctx);
  });
}
