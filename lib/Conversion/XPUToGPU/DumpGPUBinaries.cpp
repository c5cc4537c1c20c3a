//===- DumpGPUBinaries.cpp - gpu.binary objects to files ------------------===//

#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

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
    // The directory is created on demand, like a compiler's -o directory.
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      getOperation().emitError()
          << "xpu-dump-gpu-binaries: cannot create directory '" << dir
          << "': " << ec.message();
      return signalPassFailure();
    }
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
        SmallString<128> path(dir);
        llvm::sys::path::append(
            path,
            llvm::formatv("{0}.{1}.{2}", binary.getSymName(), i, ext).str());
        std::error_code ec;
        llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
        if (ec) {
          binary.emitError() << "xpu-dump-gpu-binaries: cannot write '" << path
                             << "': " << ec.message();
          return WalkResult::interrupt();
        }
        os << object.getObject().getValue();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
