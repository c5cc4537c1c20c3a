//===- GemmBackendInterface.cpp - what a GEMM backend answers -------------===//

#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "llvm/ADT/STLExtras.h"

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
  return emitError(loc) << passArg << ": no GEMM backend registered for "
                        << attr << "; " << kRegisterBackendsHint;
}

Attribute mlir::xpu::getConfigKnobs(Attribute backend) {
  // The SIMT kernels' default layout is a config without a backend.
  auto simt = dyn_cast<SimtConfigAttr>(backend);
  return simt && simt.getVector() == 1 ? Attribute() : backend;
}

void XPUDialect::addGemmBackend(Attribute backend) {
  assert(isa<GemmBackendAttrInterface>(backend) &&
         "a GEMM backend implements GemmBackendAttrInterface");
  if (!llvm::is_contained(gemmBackends, backend))
    gemmBackends.push_back(backend);
}

SmallVector<GemmBackendAttrInterface>
mlir::xpu::getRegisteredGemmBackends(MLIRContext *ctx) {
  SmallVector<GemmBackendAttrInterface> result;
  if (auto *dialect = ctx->getLoadedDialect<XPUDialect>())
    for (Attribute attr : dialect->getGemmBackends())
      result.push_back(cast<GemmBackendAttrInterface>(attr));
  llvm::stable_sort(result,
                    [](GemmBackendAttrInterface a, GemmBackendAttrInterface b) {
                      return a.getAutoRank() > b.getAutoRank();
                    });
  return result;
}

GemmBackendAttrInterface mlir::xpu::lookupGemmBackend(MLIRContext *ctx,
                                                      StringRef name) {
  for (GemmBackendAttrInterface backend : getRegisteredGemmBackends(ctx))
    if (backend.getBackendName() == name)
      return backend;
  return {};
}

GemmBackendAttrInterface mlir::xpu::chooseGemmBackend(TargetAttr target,
                                                      Type operandType,
                                                      std::string &taken,
                                                      std::string &declined) {
  for (GemmBackendAttrInterface backend :
       getRegisteredGemmBackends(target.getContext())) {
    if (backend.getAutoRank() <= 0)
      break;
    std::string why;
    if (backend.takesGemm(target, operandType, why)) {
      taken = why;
      return cast<GemmBackendAttrInterface>(
          backend.getCandidateKnobs(target, operandType));
    }
    if (!why.empty())
      declined = why;
  }
  return {};
}
