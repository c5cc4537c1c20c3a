//===- ExportCInterfaces.cpp - C interfaces for ahead-of-time libraries ---===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUEXPORTCINTERFACESPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
struct ExportCInterfacesPass final
    : xpu::impl::XPUExportCInterfacesPassBase<ExportCInterfacesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringSet<> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        entries.insert(func.getSymName());
    MLIRContext *ctx = &getContext();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      StringRef name = func.getSymName();
      bool packing = false;
      for (StringRef suffix : {".pack", ".packed"})
        if (name.ends_with(suffix) &&
            entries.contains(name.drop_back(suffix.size())))
          packing = true;
      if (!packing && !entries.contains(name))
        continue;
      func.setPublic();
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(ctx));
      // The C wrapper would carry xpu.weight onto descriptor pointers, where
      // it means nothing (and LLVM's translation warns about it); the weights
      // were outlined before this pass.
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        func.removeArgAttr(i, xpu::XPUDialect::getWeightAttrName());
    }
  }
};
} // namespace
