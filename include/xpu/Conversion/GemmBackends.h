//===- GemmBackends.h - register the GEMM backend implementations -*- C++ -*-=//
//
// Each GEMM code generator implements GemmBackendAttrInterface on its
// backend attribute as an external model, in its own conversion library;
// these functions attach them and add the backend to the xpu dialect's list
// (XPUDialect::addGemmBackend), where xpu-select-strategy finds it.
// registerXPUDialect (xpu/InitAll.h) calls all three.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_CONVERSION_GEMMBACKENDS_H
#define XPU_CONVERSION_GEMMBACKENDS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::xpu {

/// #xpu.xe: Intel Xe DPAS kernels (lib/Conversion/XPUToXeGPU).
void registerXeGemmBackend(DialectRegistry &registry);
/// #xpu.nvgpu: NVIDIA tensor-core kernels (lib/Conversion/XPUToNVGPU).
void registerNVGPUGemmBackend(DialectRegistry &registry);
/// #xpu.simt: the portable SIMT kernels (lib/Conversion/XPUToGPU).
void registerSimtGemmBackend(DialectRegistry &registry);
/// All three (defined with registerXPUDialect, which calls it).
void registerAllGemmBackends(DialectRegistry &registry);

} // namespace mlir::xpu

#endif // XPU_CONVERSION_GEMMBACKENDS_H
