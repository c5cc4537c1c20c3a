//===- Pipelines.h - registered xpu pipelines -------------------*- C++ -*-===//

#ifndef XPU_PIPELINES_PIPELINES_H
#define XPU_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::xpu {

/// Reports one invalid option value (the pipeline's name is added).
using PipelineOptionErrorFn = llvm::function_ref<LogicalResult(const Twine &)>;

/// Every pipeline's options are checked once, when they are parsed: the
/// registered pipelines (xpu-opt, mlir-opt with the plugin) and
/// `createFromString` (xpu-run, C++ users) reject a value the pipeline does
/// not take with one error that names the option, the value and the
/// accepted values; `validate` runs the same checks on options set in C++.
template <typename Derived>
struct XPUPipelineOptionsBase : PassPipelineOptions<Derived> {
  /// Parses and validates `options`; null after printing the error.
  static std::unique_ptr<Derived> createFromString(StringRef options);
};

template <typename Derived>
std::unique_ptr<Derived>
XPUPipelineOptionsBase<Derived>::createFromString(StringRef options) {
  auto result = std::make_unique<Derived>();
  if (failed(result->parseFromString(options)) ||
      failed(result->validate([](const Twine &message) {
        llvm::errs() << "error: " << Derived::kPipelineName << ": " << message
                     << "\n";
        return failure();
      })))
    return nullptr;
  return result;
}

/// Options of `xpu-optimize`, the catalog in a sound order.
struct XPUOptimizePipelineOptions
    : XPUPipelineOptionsBase<XPUOptimizePipelineOptions> {
  static constexpr llvm::StringLiteral kPipelineName = "xpu-optimize";
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
                     "auto (default) or marked, both the arguments marked "
                     "xpu.weight: a function without marks is not split"),
      llvm::cl::init("auto")};
  PassOptions::ListOption<std::string> keepF64{
      *this, "keep-f64",
      llvm::cl::desc("Functions whose GEMMs stay in f64 (xpu-demote-f64)")};
  PassOptions::Option<bool> strict{
      *this, "strict",
      llvm::cl::desc("Contractions with dynamic shapes are errors"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> reassociate{
      *this, "reassociate",
      llvm::cl::desc("Allow folds that reassociate floating-point arithmetic "
                     "(xpu-fold-affine-into-weights: BatchNorm and per-channel "
                     "scales into the weights); off by default: the result "
                     "is rounded differently from the f32 model"),
      llvm::cl::init(false)};

  LogicalResult validate(PipelineOptionErrorFn emitError) const;
};

/// Builds `xpu-optimize`: raise, demote f64, fuse epilogues under the
/// register guard (from the module's #xpu.target: run xpu-attach-target
/// first to choose one), fold affine epilogues into weights, simplify
/// epilogues, prepack 16-bit operands when asked, and outline weight
/// packing.
void buildXPUOptimizePipeline(OpPassManager &pm,
                              const XPUOptimizePipelineOptions &options);

/// Options of `xpu-cpu-pipeline`.
struct XPUCPUPipelineOptions : XPUPipelineOptionsBase<XPUCPUPipelineOptions> {
  static constexpr llvm::StringLiteral kPipelineName = "xpu-cpu-pipeline";
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
  PassOptions::Option<bool> reassociate{
      *this, "reassociate",
      llvm::cl::desc("xpu-optimize's reassociate: fold BatchNorm and scales "
                     "into the weights (default off)"),
      llvm::cl::init(false)};

  LogicalResult validate(PipelineOptionErrorFn emitError) const;
};

/// Builds `xpu-cpu-pipeline`: xpu-optimize (or just the raise), lower xpu
/// back to linalg, tile and vectorize for the CPU, bufferize across function
/// boundaries and lower everything to the LLVM dialect, ready for
/// mlir-runner or xpu-run.
void buildXPUCPUPipeline(OpPassManager &pm,
                         const XPUCPUPipelineOptions &options);

/// The GEMM schedule options every GPU pipeline takes (xpu-select-strategy's
/// schedule, programs and fixup).
struct GPUScheduleOptions {
  std::string schedule = "auto";
  int64_t programs = 0;
  std::string fixup = "deterministic";
};

/// The options every GPU pipeline takes (the GEMM schedule, the host access
/// check), declared once: `Derived` is the pipeline's options struct.
template <typename Derived>
struct GPUSchedulePipelineOptions : XPUPipelineOptionsBase<Derived> {
  ::mlir::detail::PassOptions::Option<bool> verifyHostAccess{
      *this, "verify-host-access",
      llvm::cl::desc("Reject host code that reads or writes device memory "
                     "(xpu-verify-no-host-device-access, at the end of the "
                     "host's buffer placement; default on)"),
      llvm::cl::init(true)};
  ::mlir::detail::PassOptions::Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("Schedule of every GEMM: auto (the cost model "
                     "chooses; default), data_parallel, persistent or "
                     "stream_k"),
      llvm::cl::init("auto")};
  ::mlir::detail::PassOptions::Option<int64_t> programs{
      *this, "programs",
      llvm::cl::desc("Program count of persistent and Stream-K schedules "
                     "(default 0: the workgroups the target runs at once)"),
      llvm::cl::init(0)};
  ::mlir::detail::PassOptions::Option<std::string> fixup{
      *this, "fixup",
      llvm::cl::desc("Stream-K fix-up: deterministic (default; fixed "
                     "summation order) or atomic (float atomics, where the "
                     "kernels have them)"),
      llvm::cl::init("deterministic")};
  GPUScheduleOptions getScheduleOptions() const {
    return {schedule, programs, fixup};
  }
};

/// Options of `xpu-spirv-pipeline`.
struct XPUSPIRVPipelineOptions
    : GPUSchedulePipelineOptions<XPUSPIRVPipelineOptions> {
  static constexpr llvm::StringLiteral kPipelineName = "xpu-spirv-pipeline";
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
      llvm::cl::desc("Target preset when the module has no xpu.target "
                     "(xpu-attach-target): the strategy and the kernels "
                     "follow it (default pvc)"),
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
  PassOptions::Option<bool> reassociate{
      *this, "reassociate",
      llvm::cl::desc("xpu-optimize's reassociate: fold BatchNorm and scales "
                     "into the weights (default off)"),
      llvm::cl::init(false)};

  LogicalResult validate(PipelineOptionErrorFn emitError) const;
};

/// Builds `xpu-spirv-pipeline`: xpu-optimize (or just the raise), lower xpu
/// back to linalg, bufferize, map the statically shaped linalg ops to
/// kernels compiled to OpenCL-flavour SPIR-V in a gpu.binary, make every
/// host buffer shared virtual memory and lower the host to the LLVM dialect
/// with bare-pointer kernel arguments (for the xpu OpenCL runtime).
void buildXPUSPIRVPipeline(OpPassManager &pm,
                           const XPUSPIRVPipelineOptions &options);

/// Options of `xpu-xe-pipeline`.
struct XPUXePipelineOptions : GPUSchedulePipelineOptions<XPUXePipelineOptions> {
  static constexpr llvm::StringLiteral kPipelineName = "xpu-xe-pipeline";
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
  PassOptions::Option<bool> reassociate{
      *this, "reassociate",
      llvm::cl::desc("xpu-optimize's reassociate: fold BatchNorm and scales "
                     "into the weights (default off)"),
      llvm::cl::init(false)};

  LogicalResult validate(PipelineOptionErrorFn emitError) const;
};

/// Builds `xpu-xe-pipeline`: xpu-optimize (bf16/f16 operands), strategy
/// selection, each xpu.gemm to a workgroup-level XeGPU kernel
/// (convert-xpu-to-xegpu), bufferization, upstream XeGPU distribution and
/// XeVM lowering of the kernels to SPIR-V in a gpu.binary, and the host
/// lowered to the LLVM dialect (for the xpu Level Zero runtime).
void buildXPUXePipeline(OpPassManager &pm, const XPUXePipelineOptions &options);

/// Registers `xpu-xe-pipeline` (called by registerXPUPipelines).
void registerXPUXePipeline();

/// Options of `xpu-nvvm-pipeline`.
struct XPUNVVMPipelineOptions
    : GPUSchedulePipelineOptions<XPUNVVMPipelineOptions> {
  static constexpr llvm::StringLiteral kPipelineName = "xpu-nvvm-pipeline";
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("NVIDIA chip: sm_80, sm_90 (default) or sm_90a; the "
                     "#xpu.target preset when the module has none, and the "
                     "chip ptxas compiles for"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Precision of f32 models: f32 (default; f32 GEMMs run "
                     "as SIMT kernels), tf32 (tensor cores with tf32 "
                     "operands), bf16 or f16 (operands converted once at pack "
                     "time; tensor cores). 16-bit models always run on "
                     "tensor cores"),
      llvm::cl::init("f32")};
  PassOptions::Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Run xpu-optimize before lowering (default on)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> binaryFormat{
      *this, "binary-format",
      llvm::cl::desc("What gpu.binary holds: bin (default; a cubin, needs "
                     "ptxas), fatbin (needs ptxas and fatbinary) or isa (PTX "
                     "that the driver compiles at load time; no CUDA toolkit "
                     "needed)"),
      llvm::cl::init("bin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit directory (ptxas, libdevice); default: "
                     "the one found at build time"),
      llvm::cl::init("")};
  PassOptions::Option<bool> deviceResults{
      *this, "device-results",
      llvm::cl::desc("Buffers returned to the caller are device memory "
                     "(callers that pass and receive device pointers); "
                     "default: managed memory the host can read"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> cInterfaces{
      *this, "c-interfaces",
      llvm::cl::desc(
          "Public functions, <fn>.pack and <fn>.packed get C "
          "interfaces (_mlir_ciface_<name>; xpu-export-c-interfaces) "
          "for ahead-of-time libraries"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> dumpBinaries{
      *this, "dump-binaries",
      llvm::cl::desc("Also write each kernel's PTX (<module>.ptx) and binary "
                     "(<module>.cubin) into this directory, for ptxas -v, "
                     "cuobjdump or nvdisasm"),
      llvm::cl::init("")};
  PassOptions::Option<bool> reassociate{
      *this, "reassociate",
      llvm::cl::desc("xpu-optimize's reassociate: fold BatchNorm and scales "
                     "into the weights (default off)"),
      llvm::cl::init(false)};
  /// Chip, precision, binary format and the schedule options.
  LogicalResult validate(PipelineOptionErrorFn emitError) const;
};

/// The start of `xpu-nvvm-pipeline` up to and including weight-pack
/// outlining and, with `c-interfaces`, the C interfaces: what xpu-compile
/// runs to describe a library's functions.
void addXPUNVVMFrontEnd(OpPassManager &pm,
                        const XPUNVVMPipelineOptions &options);

/// Builds `xpu-nvvm-pipeline`: xpu-optimize, strategy selection, every GEMM
/// as programs (xpu-schedule-gemm) lowered on tensor cores
/// (convert-xpu-to-nvgpu) or as SIMT kernels
/// (convert-xpu-to-gpu), the other linalg ops as one-thread-per-element
/// kernels, NVVM and a cubin in gpu.binary, and the host lowered to the
/// LLVM dialect for the xpu CUDA runtime.
void buildXPUNVVMPipeline(OpPassManager &pm,
                          const XPUNVVMPipelineOptions &options);

/// Registers `xpu-nvvm-pipeline` (called by registerXPUPipelines).
void registerXPUNVVMPipeline();

/// Registers every xpu pipeline with the global pass registry.
void registerXPUPipelines();

} // namespace mlir::xpu

#endif // XPU_PIPELINES_PIPELINES_H
