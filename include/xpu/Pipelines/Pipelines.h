//===- Pipelines.h - registered xpu pipelines -------------------*- C++ -*-===//

#ifndef XPU_PIPELINES_PIPELINES_H
#define XPU_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::xpu {

/// Reports one invalid option value (the pipeline's name is added).
using PipelineOptionErrorFn = llvm::function_ref<LogicalResult(const Twine &)>;

/// "a, b or c": the accepted values as option errors (and the tools' errors
/// on the same values) list them.
std::string listAlternatives(ArrayRef<StringRef> values);

/// Every pipeline's options are checked once, when they are parsed: the
/// registered pipelines (xpu-opt, mlir-opt with the plugin) and
/// `createFromString` (xpu-run, C++ users) reject a value the pipeline does
/// not take with one error that names the option, the value and the
/// accepted values; `validate` runs the same checks on options set in C++.
template <typename Derived>
struct XPUPipelineOptionsBase : PassPipelineOptions<Derived> {
  /// Parses and validates `options`; null after printing the error.
  static std::unique_ptr<Derived> createFromString(StringRef options);

protected:
  /// Says on stderr that a deprecated option (or value) was given.
  static void warnDeprecated(const Twine &message) {
    llvm::errs() << "warning: " << Derived::kPipelineName << ": " << message
                 << "\n";
  }
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

/// The pipelines, as the options and the precision policy know them.
enum class PipelineKind {
  /// xpu-optimize: the target-independent catalog.
  Optimize,
  /// xpu-cpu-pipeline.
  CPU,
  /// xpu-spirv-pipeline: SIMT kernels in OpenCL-flavour SPIR-V, any GPU
  /// preset.
  SPIRV,
  /// xpu-xe-pipeline: XeGPU / DPAS kernels for Intel chips.
  Xe,
  /// xpu-nvvm-pipeline: tensor-core and SIMT kernels for NVIDIA chips.
  NVVM,
};

/// The kind of the registered pipeline `name` (xpu-cpu-pipeline, ...), or
/// nothing.
std::optional<PipelineKind> lookupPipelineKind(StringRef name);

/// How a pipeline computes a model's GEMMs at a requested precision.
struct PrecisionPolicy {
  /// The precision the target-independent catalog works in (xpu-optimize's
  /// precision): f32, f64 (f64 GEMMs stay f64), bf16 or f16 (operands
  /// converted once at pack time, xpu-prepack-bf16).
  std::string operands = "f32";
  /// f32 operands rounded to tf32 inside NVIDIA tensor-core kernels
  /// (xpu-select-strategy's tf32).
  bool tf32 = false;
};

/// The name of the precision option, in every pipeline and in messages.
inline constexpr llvm::StringLiteral kPrecisionOption = "precision";
/// The CPU pipeline's `chip` for the machine it runs on (getHostCpuPreset).
inline constexpr llvm::StringLiteral kHostChip = "host";

/// The precisions `kind` accepts, the default first.
ArrayRef<StringRef> getPrecisions(PipelineKind kind);

/// The one precision policy of every pipeline, xpu-run, xpu-compile and the
/// Python package: what `requested` means for `kind` (Xe: DPAS multiplies
/// bf16 or f16, so f32 models get bf16 operands; NVVM: tf32 keeps f32
/// operands up to the tensor-core kernels). A value `kind` does not take is
/// reported through `emitError` with the accepted values.
FailureOr<PrecisionPolicy> resolvePrecision(PipelineKind kind,
                                            StringRef requested,
                                            PipelineOptionErrorFn emitError);

/// The chips of the #xpu.target preset table a pipeline of `kind` compiles
/// for (Xe: the Intel presets, NVVM: the NVIDIA ones, SPIR-V: every GPU
/// preset), in table order.
ArrayRef<StringRef> getPipelineChips(PipelineKind kind);

/// The chip a pipeline of `kind` compiles for when neither the options nor
/// the module name one.
StringRef getDefaultChip(PipelineKind kind);

/// Checks `chip` against getPipelineChips(`kind`); `option` names it in the
/// error ("chip").
LogicalResult checkPipelineChip(PipelineKind kind, StringRef option,
                                StringRef chip,
                                PipelineOptionErrorFn emitError);

namespace detail {
/// Help texts derived from the tables above (stable storage).
StringRef getPrecisionHelp(PipelineKind kind);
StringRef getChipHelp(PipelineKind kind);
} // namespace detail

/// The options every pipeline takes, declared once: the precision of the
/// model's GEMMs and the reassociating folds of the target-independent
/// catalog. `Derived` is the pipeline's options struct, `Kind` its kind.
template <typename Derived, PipelineKind Kind>
struct CommonPipelineOptions : XPUPipelineOptionsBase<Derived> {
  static constexpr PipelineKind kKind = Kind;
  ::mlir::detail::PassOptions::Option<std::string> precision{
      *this, kPrecisionOption, llvm::cl::desc(detail::getPrecisionHelp(Kind)),
      llvm::cl::init(getPrecisions(Kind).front().str())};
  ::mlir::detail::PassOptions::Option<bool> reassociate{
      *this, "reassociate",
      llvm::cl::desc("Allow folds that reassociate floating-point arithmetic "
                     "(xpu-fold-affine-into-weights: BatchNorm and per-channel "
                     "scales into the weights); off by default: the result "
                     "is rounded differently from the f32 model"),
      llvm::cl::init(false)};
  ::mlir::detail::PassOptions::Option<bool> roundEachOp{
      *this, "round-each-op",
      llvm::cl::desc("Round a bf16 or f16 model's GEMM epilogue after every "
                     "op, as its element types say (PyTorch eager's "
                     "numerics); off by default: xpu-widen-epilogue computes "
                     "it in f32 and rounds once, at the store, as "
                     "torch.compile's Inductor does"),
      llvm::cl::init(false)};

  /// The precision policy of `precision` (validated when parsed).
  PrecisionPolicy getPrecisionPolicy() const {
    return resolvePrecision(Kind, precision,
                            [](const Twine &) { return failure(); })
        .value_or(PrecisionPolicy());
  }

protected:
  LogicalResult validateCommon(PipelineOptionErrorFn emitError) const {
    return resolvePrecision(Kind, precision, emitError);
  }
};

/// The options of the pipelines that lower a model: the common ones and
/// whether to run the catalog at all.
template <typename Derived, PipelineKind Kind>
struct LoweringPipelineOptions : CommonPipelineOptions<Derived, Kind> {
  ::mlir::detail::PassOptions::Option<bool> optimize{
      *this, "optimize",
      llvm::cl::desc("Run xpu-optimize before lowering (default on)"),
      llvm::cl::init(true)};
};

/// Options of `xpu-optimize`, the catalog in a sound order.
struct XPUOptimizePipelineOptions
    : CommonPipelineOptions<XPUOptimizePipelineOptions,
                            PipelineKind::Optimize> {
  static constexpr llvm::StringLiteral kPipelineName = "xpu-optimize";
  PassOptions::Option<std::string> weights{
      *this, "weights",
      llvm::cl::desc("Deprecated (a warning says so when given): auto or "
                     "marked, which both mean what xpu-outline-weight-pack "
                     "always does: the weights are the arguments marked "
                     "xpu.weight"),
      llvm::cl::init("marked")};
  PassOptions::ListOption<std::string> keepF64{
      *this, "keep-f64",
      llvm::cl::desc("Functions whose GEMMs stay in f64 (xpu-demote-f64)")};
  PassOptions::Option<bool> strict{
      *this, "strict",
      llvm::cl::desc("Contractions with dynamic shapes are errors"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> dynamicRows{
      *this, "dynamic-rows",
      llvm::cl::desc("Raise contractions with dynamic batch and m "
                     "dimensions too (xpu-raise dynamic-rows; "
                     "xpu-cpu-pipeline sets it)"),
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
struct XPUCPUPipelineOptions
    : LoweringPipelineOptions<XPUCPUPipelineOptions, PipelineKind::CPU> {
  static constexpr llvm::StringLiteral kPipelineName = "xpu-cpu-pipeline";
  PassOptions::ListOption<int64_t> cacheTile{
      *this, "cache-tile",
      llvm::cl::desc(
          "Cache tile [mc, nc, kc] of the GEMMs (default: for the "
          "packed-GEMM nest, all of k up to 2048 and the rows whose packed "
          "block fills a quarter of the chip's L2; 64,256,256 otherwise)")};
  PassOptions::ListOption<int64_t> registerTile{
      *this, "register-tile",
      llvm::cl::desc(
          "Register tile [mr, nr] of the GEMM: the panels of the packed "
          "operands (default 6,16)")};
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc(detail::getChipHelp(kKind)),
      llvm::cl::init(kHostChip.str())};
  PassOptions::Option<bool> amx{
      *this, "amx",
      llvm::cl::desc("bf16 GEMMs (precision=bf16) on AMX tiles where the "
                     "chip has them (default on); off keeps the vector "
                     "path"),
      llvm::cl::init(true)};
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
  PassOptions::Option<std::string> tuningDb{
      *this, "tuning-db",
      llvm::cl::desc("Tuning database (xpu-tune --target=cpu's JSON file, "
                     "docs/Tuning.md): GEMMs with a valid entry for the chip "
                     "get its measured best register and cache tiles "
                     "(xpu-cpu-apply-tuning-db), before register-tile and "
                     "cache-tile"),
      llvm::cl::init("")};
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

/// Checks the schedule options' values.
LogicalResult checkScheduleOptions(const GPUScheduleOptions &options,
                                   PipelineOptionErrorFn emitError);

/// Checks the simt-vector option's value (0, 1, 2 or 4).
LogicalResult checkSimtVectorOption(int64_t simtVector,
                                    PipelineOptionErrorFn emitError);

/// The options every GPU pipeline takes, declared once: the chip, the
/// GEMM schedule, the host access check and the kernel binaries' dump.
/// `Derived` is the pipeline's options struct.
template <typename Derived, PipelineKind Kind>
struct GPUPipelineOptions : LoweringPipelineOptions<Derived, Kind> {
  ::mlir::detail::PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc(detail::getChipHelp(Kind)),
      llvm::cl::init(getDefaultChip(Kind).str())};
  ::mlir::detail::PassOptions::Option<std::string> dumpBinaries{
      *this, "dump-binaries",
      llvm::cl::desc("Also write each kernel binary into this directory "
                     "(SPIR-V for spirv-val, spirv-dis or ocloc; on NVIDIA "
                     "chips <module>.ptx and <module>.cubin for ptxas -v, "
                     "cuobjdump or nvdisasm)"),
      llvm::cl::init("")};
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
  ::mlir::detail::PassOptions::Option<std::string> tuningDb{
      *this, "tuning-db",
      llvm::cl::desc("Tuning database (xpu-tune's JSON file, docs/Tuning.md): "
                     "GEMMs with a valid entry for the chip get its measured "
                     "best config (xpu-select-strategy's tuning-db)"),
      llvm::cl::init("")};
  ::mlir::detail::PassOptions::Option<int64_t> simtVector{
      *this, "simt-vector",
      llvm::cl::desc("Micro-tile layout of the GEMMs that run on the SIMT "
                     "kernels (#xpu.simt's vector: 1, 2 or 4; default 0: "
                     "4 on NVIDIA chips, else 1)"),
      llvm::cl::init(0)};
  GPUScheduleOptions getScheduleOptions() const {
    return {schedule, programs, fixup};
  }

protected:
  /// The common options, the chip and the schedule options.
  LogicalResult validateGPU(PipelineOptionErrorFn emitError) const {
    return success(
        succeeded(this->validateCommon(emitError)) &&
        succeeded(checkPipelineChip(Kind, "chip", chip, emitError)) &&
        succeeded(checkScheduleOptions(getScheduleOptions(), emitError)) &&
        succeeded(checkSimtVectorOption(simtVector, emitError)));
  }
};

/// Options of `xpu-spirv-pipeline`.
struct XPUSPIRVPipelineOptions
    : GPUPipelineOptions<XPUSPIRVPipelineOptions, PipelineKind::SPIRV> {
  static constexpr llvm::StringLiteral kPipelineName = "xpu-spirv-pipeline";
  PassOptions::Option<std::string> target{
      *this, "target",
      llvm::cl::desc("Deprecated spelling of chip (a warning says so when "
                     "given); overrides it"),
      llvm::cl::init("")};
  PassOptions::Option<bool> gemmKernels{
      *this, "gemm-kernels",
      llvm::cl::desc("Tiled GEMM kernels from convert-xpu-to-gpu (default); "
                     "off lowers GEMMs like the other linalg ops, one thread "
                     "per output element (a baseline for benchmarks)"),
      llvm::cl::init(true)};

  /// The chip: `target` where given (the deprecated spelling), else `chip`.
  StringRef getChip() const { return target.hasValue() ? target : chip; }

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
struct XPUXePipelineOptions
    : GPUPipelineOptions<XPUXePipelineOptions, PipelineKind::Xe> {
  static constexpr llvm::StringLiteral kPipelineName = "xpu-xe-pipeline";

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
    : GPUPipelineOptions<XPUNVVMPipelineOptions, PipelineKind::NVVM> {
  static constexpr llvm::StringLiteral kPipelineName = "xpu-nvvm-pipeline";
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
  PassOptions::Option<bool> tmaStore{
      *this, "tma-store",
      llvm::cl::desc("Data-parallel wgmma kernels store C with TMA through "
                     "shared memory (convert-xpu-to-nvgpu's tma-store; "
                     "default on)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> tmaStoreStaged{
      *this, "tma-store-staged",
      llvm::cl::desc("With tma-store, staged epilogues store their results "
                     "with TMA too (convert-xpu-to-nvgpu's tma-store-staged; "
                     "default off: not yet run on a GPU)"),
      llvm::cl::init(false)};
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
  PassOptions::Option<std::string> fastMath{
      *this, "fast-math",
      llvm::cl::desc(
          "f32 exp, log, log1p, tanh, erf and division in kernels on the "
          "GPU's approximate instructions (xpu-nvvm-fast-math; error at most "
          "2^-10 |f(x)| + 2^-20): auto (default; for precision=bf16 and "
          "f16, whose GEMM operands carry a larger rounding error), on or "
          "off (libdevice's correctly rounded functions)"),
      llvm::cl::init("auto")};
  /// Whether the kernels get xpu-nvvm-fast-math (`fast-math` resolved
  /// against the precision).
  bool useFastMath() const;
  /// Chip, precision, binary format, fast-math and the schedule options.
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

/// The passes of the GPU pipeline `pipelineName` (xpu-spirv-pipeline,
/// xpu-xe-pipeline or xpu-nvvm-pipeline) with `options`, up to and
/// including xpu-select-strategy: each xpu.gemm then carries the config the
/// pipeline compiles it with and has the signature the tuning database keys
/// it by (xpu-tune reads both). For xpu-cpu-pipeline, its start up to the
/// target-independent catalog (the CPU has no strategy pass). Fails after
/// printing an error for invalid options or another pipeline.
LogicalResult buildXPUStrategyPrefix(OpPassManager &pm, StringRef pipelineName,
                                     StringRef options);

/// Registers every xpu pipeline with the global pass registry.
void registerXPUPipelines();

} // namespace mlir::xpu

#endif // XPU_PIPELINES_PIPELINES_H
