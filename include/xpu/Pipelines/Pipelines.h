//===- Pipelines.h - registered xpu pipelines -------------------*- C++ -*-===//

#ifndef XPU_PIPELINES_PIPELINES_H
#define XPU_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::xpu {

/// Options of `xpu-cpu-pipeline`.
struct XPUCPUPipelineOptions : PassPipelineOptions<XPUCPUPipelineOptions> {
  PassOptions::ListOption<int64_t> cacheTile{
      *this, "cache-tile",
      llvm::cl::desc(
          "Cache tile [mc, nc, kc] of the GEMM (default 64,256,256)")};
  PassOptions::ListOption<int64_t> registerTile{
      *this, "register-tile",
      llvm::cl::desc("Register tile [mr, nr] of the GEMM (default 4,16)")};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize (default); off gives the scalar loop "
                     "nest"),
      llvm::cl::init(true)};
};

/// Builds `xpu-cpu-pipeline`: raise torch-mlir linalg to xpu, lower it back
/// to linalg, tile and vectorize for the CPU, bufferize across function
/// boundaries and lower everything to the LLVM dialect, ready for
/// mlir-runner or xpu-run.
void buildXPUCPUPipeline(OpPassManager &pm,
                         const XPUCPUPipelineOptions &options);

/// Registers every xpu pipeline with the global pass registry.
void registerXPUPipelines();

} // namespace mlir::xpu

#endif // XPU_PIPELINES_PIPELINES_H
