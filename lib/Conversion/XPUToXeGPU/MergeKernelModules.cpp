//===- MergeKernelModules.cpp - one gpu.module per XeVM target ------------===//
//
// LLVM 22.1.8's SPIR-V backend keeps its module analysis in static state
// shared by every module translated in a process (llvm-project issue
// 160613, fixed after 22.1.8): the more modules gpu-module-to-binary
// serializes, the likelier one comes out with an id defined twice, which
// drivers reject. gpu-kernel-outlining makes one gpu.module per launch, so
// this pass moves the kernels of the gpu.modules it is given into one.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/Regex.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUMERGEKERNELMODULESPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
struct MergeKernelModulesPass final
    : xpu::impl::XPUMergeKernelModulesPassBase<MergeKernelModulesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp top = getOperation();
    llvm::Regex matcher(moduleMatcher);
    std::string why;
    if (!matcher.isValid(why)) {
      top.emitError() << "xpu-merge-kernel-modules: invalid module-matcher '"
                      << moduleMatcher << "': " << why;
      return signalPassFailure();
    }
    // Modules with the same targets and attributes go together, into the
    // first of them.
    SmallVector<gpu::GPUModuleOp> modules;
    for (auto module : top.getOps<gpu::GPUModuleOp>())
      if (matcher.match(module.getName()))
        modules.push_back(module);
    DenseMap<Attribute, gpu::GPUModuleOp> into;
    SymbolTable topSymbols(top);
    for (gpu::GPUModuleOp module : modules) {
      auto [it, inserted] = into.try_emplace(module.getTargetsAttr(), module);
      if (inserted)
        continue;
      if (failed(moveInto(module, it->second, topSymbols)))
        return signalPassFailure();
      ++numMerged;
    }
  }

  /// Moves every symbol of `from` into `to` (renamed where the name is
  /// taken), points the launches at them and erases `from`.
  LogicalResult moveInto(gpu::GPUModuleOp from, gpu::GPUModuleOp to,
                         SymbolTable &topSymbols) {
    SymbolTable symbols(to);
    StringAttr fromName = from.getNameAttr();
    DenseMap<StringAttr, StringAttr> renamed;
    SmallVector<Operation *> moved;
    for (Operation &op : llvm::make_early_inc_range(*from.getBody())) {
      auto symbol = dyn_cast<SymbolOpInterface>(op);
      StringAttr old = symbol ? symbol.getNameAttr() : StringAttr();
      op.moveBefore(to.getBody(), to.getBody()->end());
      moved.push_back(&op);
      if (!symbol)
        continue;
      // A kernel's name is its module's, so that it stays unique (outlined
      // modules are <fn>_kernel[_N], their kernels all <fn>_kernel); other
      // symbols keep theirs unless taken.
      if (auto func = dyn_cast<gpu::GPUFuncOp>(op); func && func.isKernel())
        symbol.setName(fromName);
      symbols.insert(&op); // renames it if the name is taken
      if (symbol.getNameAttr() != old)
        renamed[old] = symbol.getNameAttr();
    }
    // Uses between the moved symbols.
    for (auto [old, now] : renamed)
      for (Operation *op : moved)
        if (failed(SymbolTable::replaceAllSymbolUses(old, now, op)))
          return from.emitError() << "xpu-merge-kernel-modules: cannot "
                                     "rename the uses of @"
                                  << old.getValue();
    // Launches of its kernels.
    topSymbols.getOp()->walk([&](gpu::LaunchFuncOp launch) {
      if (launch.getKernelModuleName() != fromName)
        return;
      StringAttr kernel = launch.getKernelName();
      auto it = renamed.find(kernel);
      launch.setKernelAttr(SymbolRefAttr::get(
          to.getNameAttr(),
          {FlatSymbolRefAttr::get(it == renamed.end() ? kernel : it->second)}));
    });
    topSymbols.erase(from);
    return success();
  }
};
} // namespace
