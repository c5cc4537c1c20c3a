//===- Remarks.cpp - turning on xpu remarks -------------------------------===//

#include "xpu/Dialect/XPU/Utils/Remarks.h"

using namespace mlir;

LogicalResult mlir::xpu::enableXPURemarks(MLIRContext &ctx) {
  remark::RemarkCategories cats;
  cats.all = kRemarkCategoryFilter.str();
  return remark::enableOptimizationRemarks(
      ctx, /*streamer=*/nullptr,
      std::make_unique<remark::RemarkEmittingPolicyAll>(), cats,
      /*printAsEmitRemarks=*/true);
}
