//===- DumpGPUBinaries.cpp - gpu.binary objects to files ------------------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"
#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUDUMPGPUBINARIESPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
struct DumpGPUBinariesPass final
    : xpu::impl::XPUDumpGPUBinariesPassBase<DumpGPUBinariesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(xpu::createDumpDirectory(getOperation(), getArgument(), dir)))
      return signalPassFailure();
    WalkResult result = getOperation().walk([&](gpu::BinaryOp binary) {
      for (auto [i, attr] : llvm::enumerate(binary.getObjects())) {
        auto object = dyn_cast<gpu::ObjectAttr>(attr);
        if (!object)
          continue;
        // SPIR-V objects (the SPIR-V target, or XeVM's SPIR-V) by magic.
        StringRef bytes = object.getObject().getValue();
        bool spirvMagic = bytes.size() >= 4 && bytes[0] == '\x03' &&
                          bytes[1] == '\x02' && bytes[2] == '\x23' &&
                          bytes[3] == '\x07';
        StringRef ext =
            isa<spirv::TargetEnvAttr>(object.getTarget()) || spirvMagic ? "spv"
                                                                        : "bin";
        std::string name =
            llvm::formatv("{0}.{1}.{2}", binary.getSymName(), i, ext).str();
        if (failed(xpu::writeDumpFile(binary, getArgument(), dir, name, bytes)))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
