//===- downstream-opt.cpp - a compiler of its own that uses xpu -----------===//
//
// A stand-in for a downstream MLIR compiler: it owns its driver and its pass
// manager, and takes from xpu only what the installed headers offer:
// registration (xpu/InitAll.h), a pipeline builder with its options
// (xpu/Pipelines/Pipelines.h) and a populate function for its own
// conversion step (xpu/Conversion/XPUToLinalg/XPUToLinalg.h).
//
//   downstream-opt model.mlir [--precision=bf16] [--lower-gemms]
//
//===----------------------------------------------------------------------===//

#include "xpu/Config/Version.h"
#include "xpu/Conversion/XPUToLinalg/XPUToLinalg.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/InitAll.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/DialectConversion.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<input .mlir>"),
                                            llvm::cl::Required);
static llvm::cl::opt<std::string>
    precision("precision", llvm::cl::desc("GEMM operand precision: f32, bf16"),
              llvm::cl::init("f32"));
static llvm::cl::opt<bool>
    lowerGemms("lower-gemms",
               llvm::cl::desc("Then lower xpu.gemm to linalg with xpu's "
                              "patterns, in this tool's own conversion"),
               llvm::cl::init(false));

/// This compiler's own step: xpu.gemm to linalg through the pattern set xpu
/// exports, driven by this compiler's conversion target.
static LogicalResult lowerXPUGemms(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  ConversionTarget target(*ctx);
  target.addIllegalDialect<xpu::XPUDialect>();
  target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
  RewritePatternSet patterns(ctx);
  xpu::populateXPUToLinalgConversionPatterns(patterns);
  return applyPartialConversion(module, target, std::move(patterns));
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "downstream-opt: an MLIR compiler using xpu " +
          std::string(XPU_VERSION_STRING) + "\n");

  // Every dialect, extension, pass and pipeline xpu needs.
  DialectRegistry registry;
  xpu::registerAllXPU(registry);
  MLIRContext context(registry);

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sourceMgr, &context);
  if (!module)
    return 1;

  // xpu's catalog, built from C++ with its options struct.
  PassManager pm(&context);
  xpu::XPUOptimizePipelineOptions options;
  options.precision = precision;
  xpu::buildXPUOptimizePipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;

  if (lowerGemms && failed(lowerXPUGemms(*module)))
    return 1;

  module->print(llvm::outs());
  llvm::outs() << "\n";
  return 0;
}
