//===- SimtGemmBackend.cpp - the SIMT GEMM backend's answers --------------===//
//
// GemmBackendAttrInterface on #xpu.simt: what the layers above ask of
// convert-xpu-to-gpu's SIMT kernels.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GemmBackends.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Utils/GemmBackends.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::xpu;

namespace {
struct SimtGemmBackend final
    : GemmBackendAttrInterface::ExternalModel<SimtGemmBackend, SimtConfigAttr> {
  StringRef getBackendName(Attribute) const {
    return stringifyGemmBackend(GemmBackend::simt);
  }
  LogicalResult checkGemm(Attribute, GemmOp gemm, TargetAttr target,
                          std::string &why, Operation *&where) const {
    return checkBackendGemm(GemmBackend::simt, gemm, target, why, where);
  }
  LogicalResult checkConfig(Attribute, TargetAttr target, ConfigAttr config,
                            int64_t operandBytes, std::string &why,
                            RhsLayout rhsLayout) const {
    return checkBackendConfig(GemmBackend::simt, target, config, operandBytes,
                              why, rhsLayout);
  }
  Type getOperandType(Attribute, GemmOp gemm) const {
    return gemm.getLhsType().getElementType();
  }
  int64_t getRowPitch(Attribute, TargetAttr target, int64_t cols,
                      Type elt) const {
    return getBackendRowPitch(GemmBackend::simt, target, cols, elt);
  }
  int64_t getBatchRows(Attribute, TargetAttr target, int64_t rows,
                       int64_t pitch, Type elt) const {
    return getBackendBatchRows(GemmBackend::simt, target, rows, pitch, elt);
  }
  int64_t getBufferAlignment(Attribute, TargetAttr target) const {
    return getBackendBufferAlignment(GemmBackend::simt, target);
  }
  int64_t getWorkgroupSlmBytes(Attribute, ConfigAttr config,
                               int64_t operandBytes) const {
    return xpu::getWorkgroupSlmBytes(GemmBackend::simt, config, operandBytes);
  }
  LogicalResult materializeLayouts(Attribute, GemmOp gemm, TargetAttr,
                                   StringRef, LayoutRemarkFn remark) const {
    remark(gemm, "AsTheyAre",
           llvm::formatv("the SIMT kernels read the operands as they are "
                         "(rhs {0} transposed on the way into shared memory, "
                         "epilogue vectors read per row and column)",
                         stringifyRhsLayout(gemm.getRhsLayout())),
           /*changed=*/false);
    return success();
  }
  int64_t getResidentWorkgroups(Attribute, TargetAttr target, ConfigAttr config,
                                int64_t operandBytes) const {
    return xpu::getResidentWorkgroups(GemmBackend::simt, target, config,
                                      operandBytes);
  }
};
} // namespace

void mlir::xpu::registerSimtGemmBackend(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, XPUDialect *) {
    SimtConfigAttr::attachInterface<SimtGemmBackend>(*ctx);
  });
}
