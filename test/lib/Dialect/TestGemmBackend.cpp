//===- TestGemmBackend.cpp - a GEMM backend for tests ---------------------===//

#include "TestGemmBackend.h"

#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Utils/LayoutBuilder.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::xpu;
using namespace mlir::xpu::test;

#include "TestGemmBackendDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "TestGemmBackendAttrs.h.inc"

#include "TestGemmBackendDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "TestGemmBackendAttrs.cpp.inc"

void XPUTestDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "TestGemmBackendAttrs.cpp.inc"
      >();
}

LogicalResult
TestGemmBackendAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            int64_t pitch, int64_t resident) {
  if (pitch < 1 || pitch > 4096 || resident < 1 || resident > 64)
    return emitError() << "#xpu_test.backend needs pitch in [1, 4096] and "
                          "resident in [1, 64]";
  return success();
}

StringRef TestGemmBackendAttr::getBackendName() const { return "test"; }

LogicalResult TestGemmBackendAttr::checkGemm(GemmOp gemm, TargetAttr,
                                             std::string &why,
                                             Operation *&where) const {
  where = gemm;
  if (gemm.isBatched()) {
    why = "the test backend takes unbatched GEMMs";
    return failure();
  }
  return success();
}

LogicalResult TestGemmBackendAttr::checkConfig(TargetAttr, ConfigAttr config,
                                               int64_t, std::string &why,
                                               RhsLayout) const {
  if (config.getTile()[0] % getPitch() != 0) {
    why = llvm::formatv("tile_m {0} is not a multiple of the test pitch {1}",
                        config.getTile()[0], getPitch());
    return failure();
  }
  return success();
}

Type TestGemmBackendAttr::getOperandType(GemmOp gemm) const {
  return gemm.getLhsType().getElementType();
}

int64_t TestGemmBackendAttr::getRowPitch(TargetAttr, int64_t cols, Type) const {
  return llvm::alignTo(cols, getPitch());
}

int64_t TestGemmBackendAttr::getBufferAlignment(TargetAttr) const {
  return 128;
}

int64_t TestGemmBackendAttr::getWorkgroupSlmBytes(ConfigAttr, int64_t) const {
  return 0;
}

int64_t TestGemmBackendAttr::getResidentWorkgroups(TargetAttr target,
                                                   ConfigAttr, int64_t) const {
  return target.getComputeUnits() * getResident();
}

LogicalResult
TestGemmBackendAttr::materializeLayouts(GemmOp gemm, TargetAttr target,
                                        StringRef passArg,
                                        LayoutRemarkFn remark) const {
  OpBuilder b(gemm);
  LayoutBuilder lb(b, gemm);
  Value lhs = gemm.getLhs();
  auto type = cast<RankedTensorType>(lhs.getType());
  int64_t cols = type.getShape().back();
  int64_t pitch = getRowPitch(target, cols, type.getElementType());
  if (pitch == cols) {
    remark(gemm, "AsTheyAre", "the test backend reads A as it is",
           /*changed=*/false);
    return success();
  }
  gemm.getLhsMutable().set(
      lb.view(lb.padRows(lhs, pitch), type, type.getShape()));
  remark(gemm, "TestPitch",
         llvm::formatv("A's rows padded to {0} elements by the test backend",
                       pitch),
         /*changed=*/true);
  return success();
}

void mlir::xpu::test::registerTestGemmBackend(DialectRegistry &registry) {
  registry.insert<XPUTestDialect>();
  // Named only (`backend=test`), once the test dialect is loaded (by an
  // #xpu_test attribute in the input): its auto rank is 0.
  registry.addExtension(+[](MLIRContext *ctx, XPUTestDialect *) {
    ctx->getOrLoadDialect<XPUDialect>()->addGemmBackend(
        TestGemmBackendAttr::get(ctx, /*pitch=*/32, /*resident=*/2));
  });
}
