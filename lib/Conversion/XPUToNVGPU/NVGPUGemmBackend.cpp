//===- NVGPUGemmBackend.cpp - the NVGPU GEMM backend's answers ------------===//
//
// GemmBackendAttrInterface on #xpu.nvgpu: what the layers above ask of
// convert-xpu-to-nvgpu's tensor-core kernels.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GemmBackends.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Utils/GemmBackends.h"
#include "xpu/Dialect/XPU/Utils/LayoutBuilder.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::xpu;

/// The layouts the tensor-core kernels read (xpu-materialize-layouts).
static LogicalResult materializeNVGPULayouts(GemmOp gemm, TargetAttr target,
                                             StringRef passArg,
                                             LayoutRemarkFn remark) {
  auto changed = [&](GemmOp g, StringRef name, const Twine &why) {
    remark(g, name, why, /*changed=*/true);
  };
  std::string why;
  Operation *where = gemm;
  if (failed(checkBackendGemm(GemmBackend::nvgpu, gemm, target, why, where)))
    return where->emitError() << passArg << ": " << why;
  NVGPUMma mma = gemm.getConfigAttr().getNVGPU().getMma();
  OpBuilder b(gemm);
  LayoutBuilder lb(b, gemm);
  // Rows of A ([m, k]) and B ([n, k] or [k, n]) at the pitch the kernel
  // reads (nvidia::getOperandPitch): cp.async copies 16-byte chunks and a
  // TMA descriptor's row stride is a multiple of 16 bytes; rows that need
  // a new pitch get a multiple of 128 bytes where TMA reads them (wgmma).
  // Zeros: the padding columns of A meet those of an [n, k] B in the sum.
  // The kernel reads the rest as it is: B in either layout (ldmatrix, or
  // .trans for [k, n]), epilogue vectors per row and column.
  bool padded = false;
  auto pitched = [&](Value t, int64_t cols, StringRef what) -> Value {
    auto type = cast<RankedTensorType>(t.getType());
    Type elt = type.getElementType();
    int64_t pitch = nvidia::getOperandPitch(cols, elt, mma);
    if (pitch == cols)
      return t;
    int64_t bytes = xe::getElementBytes(elt);
    changed(gemm, "PadPitch",
            llvm::formatv("{0}: rows of {1} x {2} bytes padded with zeros to "
                          "{3} elements ({4} bytes): {5}",
                          what, cols, bytes, pitch, pitch * bytes,
                          mma == NVGPUMma::wgmma
                              ? "TMA reads rows of 16-byte multiples, and "
                                "rows that need a new pitch get a multiple "
                                "of 128 bytes (one swizzled box row)"
                              : "cp.async copies 16-byte chunks from rows "
                                "that start on 16 bytes"));
    padded = true;
    return lb.view(lb.padRows(t, pitch), type, type.getShape());
  };
  int64_t k = gemm.getK();
  gemm.getLhsMutable().set(pitched(gemm.getLhs(), k, "A"));
  bool nk = gemm.getRhsLayout() == RhsLayout::nk;
  gemm.getRhsMutable().set(pitched(gemm.getRhs(), nk ? k : gemm.getN(),
                                   nk ? "B [n, k]" : "B [k, n]"));
  if (!padded)
    remark(gemm, "AsTheyAre",
           llvm::formatv("the tensor-core kernels read the operands as they "
                         "are ({0} rows of 16-byte multiples, rhs {1}, "
                         "epilogue vectors read per row and column)",
                         stringifyNVGPUMma(mma),
                         stringifyRhsLayout(gemm.getRhsLayout())),
           /*changed=*/false);
  return success();
}

namespace {
struct NVGPUGemmBackend final
    : GemmBackendAttrInterface::ExternalModel<NVGPUGemmBackend,
                                              NVGPUConfigAttr> {
  StringRef getBackendName(Attribute) const {
    return stringifyGemmBackend(GemmBackend::nvgpu);
  }
  std::string describeKnobs(Attribute attr) const {
    auto knobs = cast<NVGPUConfigAttr>(attr);
    return llvm::formatv(", {0}{1}", stringifyNVGPUMma(knobs.getMma()),
                         knobs.getPrecision() == NVGPUPrecision::tf32 ? " tf32"
                                                                      : "")
        .str();
  }
  LogicalResult checkGemm(Attribute, GemmOp gemm, TargetAttr target,
                          std::string &why, Operation *&where) const {
    return checkBackendGemm(GemmBackend::nvgpu, gemm, target, why, where);
  }
  LogicalResult checkConfig(Attribute, TargetAttr target, ConfigAttr config,
                            int64_t operandBytes, std::string &why,
                            RhsLayout rhsLayout) const {
    return checkBackendConfig(GemmBackend::nvgpu, target, config, operandBytes,
                              why, rhsLayout);
  }
  Type getOperandType(Attribute, GemmOp gemm) const {
    return gemm.getLhsType().getElementType();
  }
  int64_t getRowPitch(Attribute, TargetAttr target, int64_t cols,
                      Type elt) const {
    return getBackendRowPitch(GemmBackend::nvgpu, target, cols, elt);
  }
  int64_t getBatchRows(Attribute, TargetAttr target, int64_t rows,
                       int64_t pitch, Type elt) const {
    return getBackendBatchRows(GemmBackend::nvgpu, target, rows, pitch, elt);
  }
  int64_t getBufferAlignment(Attribute, TargetAttr target) const {
    return getBackendBufferAlignment(GemmBackend::nvgpu, target);
  }
  int64_t getWorkgroupSlmBytes(Attribute, ConfigAttr config,
                               int64_t operandBytes) const {
    return xpu::getWorkgroupSlmBytes(GemmBackend::nvgpu, config, operandBytes);
  }
  LogicalResult materializeLayouts(Attribute, GemmOp gemm, TargetAttr target,
                                   StringRef passArg,
                                   LayoutRemarkFn remark) const {
    return materializeNVGPULayouts(gemm, target, passArg, remark);
  }
  int64_t getResidentWorkgroups(Attribute, TargetAttr target, ConfigAttr config,
                                int64_t operandBytes) const {
    return xpu::getResidentWorkgroups(GemmBackend::nvgpu, target, config,
                                      operandBytes);
  }
  std::optional<int64_t> getMatrixFragmentRegisters(Attribute,
                                                    ArrayRef<int64_t> tile,
                                                    ArrayRef<int64_t> subgroups,
                                                    Type operandType) const {
    return nvidia::getMmaSyncFragmentRegisters(tile, subgroups, operandType);
  }
};
} // namespace

void mlir::xpu::registerNVGPUGemmBackend(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, XPUDialect *) {
    NVGPUConfigAttr::attachInterface<NVGPUGemmBackend>(*ctx);
  });
}
