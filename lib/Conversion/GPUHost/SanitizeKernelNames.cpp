//===- SanitizeKernelNames.cpp - kernel names every assembler takes -------===//
//
// Kernel and kernel-module names as identifiers that PTX (and any other
// assembler) accepts, and distinct across modules; the launches follow the
// renames.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"
#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSANITIZEKERNELNAMESPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

std::string mlir::xpu::getKernelIdentifier(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) || c == '_' || c == '$' ? c : '_');
  if (out.empty() || llvm::isDigit(out.front()))
    out.insert(out.begin(), '_');
  return out;
}

namespace {
struct SanitizeKernelNamesPass final
    : xpu::impl::XPUSanitizeKernelNamesPassBase<SanitizeKernelNamesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable top(module);
    auto fresh = [](SymbolTable &table, StringRef name) {
      std::string base = getKernelIdentifier(name), out = base;
      for (unsigned i = 0; table.lookup(out); ++i)
        out = llvm::formatv("{0}_{1}", base, i).str();
      return out;
    };
    // Renames kernel `func` of `gpuModule` and the launches of it.
    auto renameKernel = [&](gpu::GPUModuleOp gpuModule, SymbolTable &inner,
                            gpu::GPUFuncOp func, StringRef name) {
      // Launches name the kernel as @module::@kernel.
      auto oldRef =
          SymbolRefAttr::get(gpuModule.getNameAttr(),
                             {FlatSymbolRefAttr::get(func.getNameAttr())});
      auto newRef =
          SymbolRefAttr::get(gpuModule.getNameAttr(),
                             {FlatSymbolRefAttr::get(&getContext(), name)});
      module.walk([&](gpu::LaunchFuncOp launch) {
        if (launch.getKernel() == oldRef)
          launch.setKernelAttr(newRef);
      });
      return inner.rename(func, StringAttr::get(&getContext(), name));
    };
    for (auto gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      SymbolTable inner(gpuModule);
      for (auto func :
           llvm::make_early_inc_range(gpuModule.getOps<gpu::GPUFuncOp>())) {
        if (getKernelIdentifier(func.getName()) == func.getName())
          continue;
        if (failed(renameKernel(gpuModule, inner, func,
                                fresh(inner, func.getName()))))
          return signalPassFailure();
      }
      if (getKernelIdentifier(gpuModule.getName()) == gpuModule.getName())
        continue;
      std::string name = fresh(top, gpuModule.getName());
      if (failed(top.rename(gpuModule, StringAttr::get(&getContext(), name))))
        return signalPassFailure();
    }
    // Kernels of different modules with one name (outlining names each
    // launch's kernel after its function) take their module's name, so
    // that profilers (Nsight, PyTorch's) tell them apart.
    llvm::StringSet<> kernels;
    for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
      SymbolTable inner(gpuModule);
      for (auto func :
           llvm::make_early_inc_range(gpuModule.getOps<gpu::GPUFuncOp>())) {
        if (!func.isKernel() || kernels.insert(func.getName()).second)
          continue;
        std::string base = gpuModule.getName().str(), name = base;
        for (unsigned i = 0; kernels.contains(name) || inner.lookup(name); ++i)
          name = llvm::formatv("{0}_{1}", base, i).str();
        if (failed(renameKernel(gpuModule, inner, func, name)))
          return signalPassFailure();
        kernels.insert(name);
      }
    }
  }
};
} // namespace
