//===- ApproximateMath.cpp - vectorizable transcendental functions --------===//
//
// Upstream's polynomial approximations of math.exp, math.erf, math.tanh, ...
// for the functions the pass option selects, so that vector math is not
// unrolled into scalar libm calls. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Codegen/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPUAPPROXIMATEMATHPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

static constexpr StringLiteral kPassArg = "xpu-cpu-approximate-math";

/// The functions approximated by default: those that epilogues (GELU,
/// sigmoid, tanh, softplus) and reductions (softmax, logsumexp) use, each
/// with an accuracy test in test/Integration/CPU/math.
static constexpr StringLiteral kDefaultFunctions[] = {
    "exp", "expm1", "log", "log1p", "log2", "tanh", "erf", "erfc"};

/// Every function upstream has a polynomial approximation of (22.1.8).
static constexpr StringLiteral kKnownFunctions[] = {
    "acos", "asin",  "atan", "atan2", "cbrt", "cos", "erf", "erfc",
    "exp",  "expm1", "log",  "log1p", "log2", "sin", "tanh"};

namespace {
struct ApproximateMathPass final
    : xpu::impl::XPUCPUApproximateMathPassBase<ApproximateMathPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *) override {
    selected.clear();
    unknown.clear();
    if (functions.empty()) {
      for (StringRef name : kDefaultFunctions)
        selected.insert(name);
      return success();
    }
    for (const std::string &name : functions) {
      if (!llvm::is_contained(kKnownFunctions, StringRef(name)))
        unknown = name;
      selected.insert(name);
    }
    return success();
  }

  void runOnOperation() override {
    if (!unknown.empty()) {
      InFlightDiagnostic diag = getOperation().emitError()
                                << kPassArg << ": no approximation of '"
                                << unknown << "'; known: ";
      llvm::interleaveComma(kKnownFunctions, diag);
      return signalPassFailure();
    }
    auto isSelected = [&](StringRef opName) {
      return opName.consume_front("math.") && selected.contains(opName);
    };
    int64_t before = 0;
    getOperation().walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) &&
          isSelected(op->getName().getStringRef()))
        ++before;
    });
    if (before == 0)
      return;
    RewritePatternSet patterns(&getContext());
    populateMathF32ExpansionPatterns(patterns, isSelected);
    populateMathPolynomialApproximationPatterns(patterns, isSelected);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation().emitError()
          << kPassArg << ": the approximations did not converge";
      return signalPassFailure();
    }
    int64_t after = 0;
    getOperation().walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) &&
          isSelected(op->getName().getStringRef()))
        ++after;
    });
    numApproximated += before - after;
  }

  llvm::StringSet<> selected;
  std::string unknown;
};
} // namespace
