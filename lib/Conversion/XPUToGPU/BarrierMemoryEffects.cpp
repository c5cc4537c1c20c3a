//===- BarrierMemoryEffects.cpp - memory effects of gpu.barrier -----------===//

#include "xpu/Conversion/XPUToGPU/XPUToGPU.h"

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
} // namespace

void mlir::xpu::registerGPUBarrierMemoryEffectsModel(
    DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, gpu::GPUDialect *) {
    gpu::BarrierOp::attachInterface<BarrierMemoryEffects>(*ctx);
  });
}
