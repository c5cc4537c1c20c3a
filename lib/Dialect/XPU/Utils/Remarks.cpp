//===- Remarks.cpp - turning on xpu remarks -------------------------------===//

#include "xpu/Dialect/XPU/Utils/Remarks.h"

using namespace mlir;

LogicalResult mlir::xpu::enableXPURemarks(MLIRContext &ctx) {
  // The engine filters each kind by its own category; set all of them.
  std::string filter = kRemarkCategoryFilter.str();
  remark::RemarkCategories cats{filter, filter, filter, filter, filter};
  return remark::enableOptimizationRemarks(
      ctx, /*streamer=*/nullptr,
      std::make_unique<remark::RemarkEmittingPolicyAll>(), cats,
      /*printAsEmitRemarks=*/true);
}
