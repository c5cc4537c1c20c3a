//===- XeVMKernelSubgroupSize.cpp - SIMD width of XeVM kernels ------------===//
//
// Every kernel of xpu-xe-pipeline declares the subgroup size the target
// plans (OpExecutionMode SubgroupSize): without it Intel's compiler picks
// the SIMD width itself. The DPAS kernels are laid out for 16 lanes; the
// SIMT kernels of xpu-linalg-to-gpu-loops get the target's first size too.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/IR/XPUAttrs.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUXEVMKERNELSUBGROUPSIZEPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
struct XeVMKernelSubgroupSizePass final
    : xpu::impl::XPUXeVMKernelSubgroupSizePassBase<XeVMKernelSubgroupSizePass> {
  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    TargetAttr target = TargetAttr::lookup(module);
    if (!target || target.getSubgroupSizes().empty())
      return;
    auto lanes = static_cast<int32_t>(target.getSubgroupSizes().front());
    for (auto func : module.getOps<LLVM::LLVMFuncOp>()) {
      if (func.isExternal() || func.getCConv() != LLVM::CConv::SPIR_KERNEL ||
          func.getIntelReqdSubGroupSize())
        continue;
      func.setIntelReqdSubGroupSize(lanes);
      ++numKernels;
    }
  }
};
} // namespace
