//===- DumpNVVMBinaries.cpp - PTX and cubins to files ---------------------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"
#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUDUMPNVVMBINARIESPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
struct DumpNVVMBinariesPass final
    : xpu::impl::XPUDumpNVVMBinariesPassBase<DumpNVVMBinariesPass> {
  using Base::Base;

  LogicalResult write(Operation *at, StringRef name, StringRef bytes) {
    return writeDumpFile(at, getArgument(), dir, name, bytes);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(createDumpDirectory(module, getArgument(), dir)))
      return signalPassFailure();
    if (ptx) {
      for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
        ArrayAttr targets = gpuModule.getTargetsAttr();
        if (!targets || targets.empty())
          continue;
        auto target = dyn_cast<gpu::TargetAttrInterface>(targets[0]);
        if (!target || !isa<NVVM::NVVMTargetAttr>(targets[0]))
          continue;
        gpu::TargetOptions options({}, {}, {}, {},
                                   gpu::CompilationTarget::Assembly);
        std::optional<SmallVector<char, 0>> ptxText =
            target.serializeToObject(gpuModule, options);
        if (!ptxText) {
          gpuModule.emitError()
              << "xpu-dump-nvvm-binaries: could not generate PTX";
          return signalPassFailure();
        }
        StringRef text(ptxText->data(), ptxText->size());
        text = text.rtrim('\0');
        if (failed(
                write(gpuModule, (gpuModule.getName() + ".ptx").str(), text)))
          return signalPassFailure();
      }
      return;
    }
    WalkResult result = module.walk([&](gpu::BinaryOp binary) {
      for (auto [i, attr] : llvm::enumerate(binary.getObjects())) {
        auto object = dyn_cast<gpu::ObjectAttr>(attr);
        if (!object)
          continue;
        StringRef ext = "cubin";
        if (object.getFormat() == gpu::CompilationTarget::Fatbin)
          ext = "fatbin";
        else if (object.getFormat() == gpu::CompilationTarget::Assembly)
          ext = "ptx";
        std::string name =
            i == 0 ? llvm::formatv("{0}.{1}", binary.getSymName(), ext).str()
                   : llvm::formatv("{0}.{1}.{2}", binary.getSymName(), i, ext)
                         .str();
        if (failed(write(binary, name, object.getObject().getValue())))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
