//===- Pipelines.h - registered xpu pipelines -------------------*- C++ -*-===//

#ifndef XPU_PIPELINES_PIPELINES_H
#define XPU_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::xpu {

/// Options of `xpu-optimize`, the catalog in a sound order.
struct XPUOptimizePipelineOptions
    : PassPipelineOptions<XPUOptimizePipelineOptions> {
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("GEMM operand precision: f32 (default: keep f32 "
                     "numerics; f64 GEMMs are demoted by xpu-demote-f64, "
                     "with a remark), f64 (f64 GEMMs stay f64), bf16 or "
                     "f16 (xpu-prepack-bf16)"),
      llvm::cl::init("f32")};
  PassOptions::Option<std::string> weights{
      *this, "weights",
      llvm::cl::desc("Which arguments are weights for xpu-outline-weight-pack: "
                     "auto (default) or marked"),
      llvm::cl::init("auto")};
  PassOptions::ListOption<std::string> keepF64{
      *this, "keep-f64",
      llvm::cl::desc("Functions whose GEMMs stay in f64 (xpu-demote-f64)")};
  PassOptions::Option<std::string> defaultTarget{
      *this, "default-target",
      llvm::cl::desc("Target preset when the module has no xpu.target "
                     "(default pvc)"),
      llvm::cl::init("pvc")};
  PassOptions::Option<bool> strict{
      *this, "strict",
      llvm::cl::desc("Contractions with dynamic shapes are errors"),
      llvm::cl::init(false)};
};

/// Builds `xpu-optimize`: raise, demote f64, fuse epilogues under the
/// register guard, fold affine epilogues into weights, simplify epilogues,
/// prepack 16-bit operands when asked, and outline weight packing.
void buildXPUOptimizePipeline(OpPassManager &pm,
                              const XPUOptimizePipelineOptions &options);

/// Options of `xpu-cpu-pipeline`.
struct XPUCPUPipelineOptions : PassPipelineOptions<XPUCPUPipelineOptions> {
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("GEMM operand precision for xpu-optimize: f32 "
                     "(default; f64 demoted with a remark), f64 (kept), "
                     "bf16 or f16"),
      llvm::cl::init("f32")};
  PassOptions::Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Run xpu-optimize before lowering (default on)"),
      llvm::cl::init(true)};
  PassOptions::ListOption<int64_t> cacheTile{
      *this, "cache-tile",
      llvm::cl::desc(
          "Cache tile [mc, nc, kc] of the GEMM (default: rows 264 and k "
          "640 for the single-threaded packed-GEMM nest, 64,256,256 "
          "otherwise)")};
  PassOptions::ListOption<int64_t> registerTile{
      *this, "register-tile",
      llvm::cl::desc(
          "Register tile [mr, nr] of the GEMM: the panels of the packed "
          "operands (default 6,16)")};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize (default); off gives the scalar loop "
                     "nest"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("Threads of the GEMMs' parallel loops (POSIX threads, "
                     "xpu-cpu-parallel-to-threads): 0 (default) one per "
                     "online core at run time, 1 single-threaded code (for "
                     "measurements on one core), N at most N"),
      llvm::cl::init(0)};
};

/// Builds `xpu-cpu-pipeline`: xpu-optimize (or just the raise), lower xpu
/// back to linalg, tile and vectorize for the CPU, bufferize across function
/// boundaries and lower everything to the LLVM dialect, ready for
/// mlir-runner or xpu-run.
void buildXPUCPUPipeline(OpPassManager &pm,
                         const XPUCPUPipelineOptions &options);

/// Options of `xpu-spirv-pipeline`.
struct XPUSPIRVPipelineOptions : PassPipelineOptions<XPUSPIRVPipelineOptions> {
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("GEMM operand precision for xpu-optimize: f32 "
                     "(default; f64 demoted with a remark), f64 (kept), "
                     "bf16 or f16"),
      llvm::cl::init("f32")};
  PassOptions::Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Run xpu-optimize before lowering (default on)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Target preset when the module has no xpu.target: the "
                     "strategy and the kernels follow it (default pvc)"),
      llvm::cl::init("pvc")};
  PassOptions::Option<bool> gemmKernels{
      *this, "gemm-kernels",
      llvm::cl::desc("Tiled GEMM kernels from convert-xpu-to-gpu (default); "
                     "off lowers GEMMs like the other linalg ops, one thread "
                     "per output element (a baseline for benchmarks)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> dumpBinaries{
      *this, "dump-binaries",
      llvm::cl::desc("Also write each kernel binary (SPIR-V) into this "
                     "directory, for spirv-val, spirv-dis or ocloc"),
      llvm::cl::init("")};
};

/// Builds `xpu-spirv-pipeline`: xpu-optimize (or just the raise), lower xpu
/// back to linalg, bufferize, map the statically shaped linalg ops to
/// kernels compiled to OpenCL-flavour SPIR-V in a gpu.binary, make every
/// host buffer shared virtual memory and lower the host to the LLVM dialect
/// with bare-pointer kernel arguments (for the xpu OpenCL runtime).
void buildXPUSPIRVPipeline(OpPassManager &pm,
                           const XPUSPIRVPipelineOptions &options);

/// Options of `xpu-xe-pipeline`.
struct XPUXePipelineOptions : PassPipelineOptions<XPUXePipelineOptions> {
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Intel Xe chip: pvc (default) or bmg; the #xpu.target "
                     "preset when the module has none, and the chip the "
                     "XeVM target compiles for"),
      llvm::cl::init("pvc")};
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Precision of the model: f32 (default; DPAS operands "
                     "are converted to bf16 once at pack time, accumulation "
                     "in f32), bf16, f16 or f64 (f64 GEMMs kept; DPAS has "
                     "no f64)"),
      llvm::cl::init("f32")};
  PassOptions::Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Run xpu-optimize before lowering (default on)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> dumpBinaries{
      *this, "dump-binaries",
      llvm::cl::desc("Also write each kernel binary (SPIR-V) into this "
                     "directory, for spirv-val, spirv-dis or ocloc"),
      llvm::cl::init("")};
};

/// Builds `xpu-xe-pipeline`: xpu-optimize (bf16/f16 operands), strategy
/// selection, each xpu.gemm to a workgroup-level XeGPU kernel
/// (convert-xpu-to-xegpu), bufferization, upstream XeGPU distribution and
/// XeVM lowering of the kernels to SPIR-V in a gpu.binary, and the host
/// lowered to the LLVM dialect (for the xpu Level Zero runtime).
void buildXPUXePipeline(OpPassManager &pm, const XPUXePipelineOptions &options);

/// Registers `xpu-xe-pipeline` (called by registerXPUPipelines).
void registerXPUXePipeline();

/// Registers every xpu pipeline with the global pass registry.
void registerXPUPipelines();

} // namespace mlir::xpu

#endif // XPU_PIPELINES_PIPELINES_H
