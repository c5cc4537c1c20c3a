//===- XeApproximateMath.cpp - math without an XeVM lowering in kernels ---===//
//
// math.erf and math.erfc have no LLVM intrinsic and no XeVM lowering: in
// kernels they become the polynomial approximations the Xe GEMM epilogues
// use (populateXPUXeEpilogueMathPatterns).
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUToXeGPU/XPUToXeGPU.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUXEAPPROXIMATEMATHPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
struct XeApproximateMathPass final
    : xpu::impl::XPUXeApproximateMathPassBase<XeApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    xpu::populateXPUXeEpilogueMathPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
