//===- XPUToGPU.h - xpu to the gpu dialect ----------------------*- C++ -*-===//

#ifndef XPU_CONVERSION_XPUTOGPU_XPUTOGPU_H
#define XPU_CONVERSION_XPUTOGPU_XPUTOGPU_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::xpu {

/// Gives `gpu.barrier` memory effects (a read and a write of workgroup
/// memory). Upstream declares none, so ownership-based buffer deallocation
/// rejects a function whose gpu.launch bodies synchronize; the kernels of
/// convert-xpu-to-gpu exist before bufferization and do. convert-xpu-to-gpu
/// registers it (getDependentDialects); loading the xpu dialect does not.
void registerGPUBarrierMemoryEffectsModel(DialectRegistry &registry);

} // namespace mlir::xpu

#endif // XPU_CONVERSION_XPUTOGPU_XPUTOGPU_H
