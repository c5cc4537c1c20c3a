//===- GemmBackendInterface.cpp - what a GEMM backend answers -------------===//

#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::xpu;

#include "xpu/Dialect/XPU/IR/GemmBackendInterface.cpp.inc"

Attribute mlir::xpu::getGemmBackendAttr(ConfigAttr config) {
  if (Attribute backend = config.getBackend())
    return backend;
  return SimtConfigAttr::get(config.getContext());
}

FailureOr<GemmBackendAttrInterface>
mlir::xpu::lookupGemmBackend(ConfigAttr config, Location loc,
                             StringRef passArg) {
  return lookupGemmBackend(getGemmBackendAttr(config), loc, passArg);
}

FailureOr<GemmBackendAttrInterface>
mlir::xpu::lookupGemmBackend(Attribute attr, Location loc, StringRef passArg) {
  if (auto backend = dyn_cast<GemmBackendAttrInterface>(attr))
    return backend;
  // The implementations are external models of the conversion libraries:
  // a tool that links the pass but not the backend cannot lower it.
  StringRef fn =
      llvm::TypeSwitch<Attribute, StringRef>(attr)
          .Case([](XeConfigAttr) { return "registerXeGemmBackend"; })
          .Case([](NVGPUConfigAttr) { return "registerNVGPUGemmBackend"; })
          .Case([](SimtConfigAttr) { return "registerSimtGemmBackend"; })
          .Default([](Attribute) { return "its GEMM backend"; });
  return emitError(loc) << passArg << ": no GEMM backend registered for "
                        << attr << "; register xpu::" << fn;
}
