//===- xpu-run.cpp - compile and run an xpu / linalg module ---------------===//
//
// mlir-runner's command line (-e, -entry-point-result, -shared-libs, -O...)
// for modules at any level: a module that is not yet in the LLVM dialect is
// compiled with the pipeline of `--target` first (xpu-cpu-pipeline, or
// xpu-spirv-pipeline for opencl and levelzero). Without -shared-libs the
// MLIR runner utility libraries (printMemrefF32, ...) are loaded; the GPU
// targets load their xpu runtime library (libxpu_opencl_runtime.so,
// libxpu_levelzero_runtime.so from the build tree) in any case.
//
//===----------------------------------------------------------------------===//

#include "DifferentialCheck.h"
#include "xpu/Config/BuildPaths.h"
#include "xpu/Config/Version.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/InitAll.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/ExecutionEngine/JitRunner.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

using namespace mlir;

static llvm::cl::OptionCategory xpuCategory("xpu-run options");

static llvm::cl::opt<std::string>
    target("target",
           llvm::cl::desc("Device to compile for and run on: cpu (default), "
                          "opencl or levelzero (xpu-spirv-pipeline and the "
                          "xpu runtime library of that API), cuda "
                          "(xpu-nvvm-pipeline, libxpu_cuda_runtime.so)"),
           llvm::cl::init("cpu"), llvm::cl::cat(xpuCategory));

static llvm::cl::opt<int> device(
    "xpu-device",
    llvm::cl::desc("Index of the device to run on (opencl, levelzero), as "
                   "listed by --xpu-list-devices (default 0)"),
    llvm::cl::init(-1), llvm::cl::cat(xpuCategory));

static llvm::cl::opt<bool> listDevices(
    "xpu-list-devices",
    llvm::cl::desc("List the devices of the --target runtime and exit"),
    llvm::cl::init(false), llvm::cl::cat(xpuCategory));

static llvm::cl::opt<std::string> xpuChip(
    "xpu-chip",
    llvm::cl::desc("With --target=levelzero: compile with xpu-xe-pipeline "
                   "(XeGPU, DPAS) for this Intel chip, pvc or bmg, instead "
                   "of xpu-spirv-pipeline"),
    llvm::cl::init(""), llvm::cl::cat(xpuCategory));

static llvm::cl::opt<std::string> pipelineOptions(
    "xpu-pipeline-options",
    llvm::cl::desc("Options of the target pipeline, e.g. "
                   "\"cache-tile=64,256,256 register-tile=4,16\" or "
                   "\"vectorize=false\" for the scalar loop nest"),
    llvm::cl::init(""), llvm::cl::cat(xpuCategory));

static llvm::cl::opt<bool>
    xpuRemarks("xpu-remarks",
               llvm::cl::desc("Print what every xpu pass applied and refused"),
               llvm::cl::init(false), llvm::cl::cat(xpuCategory));

static llvm::cl::opt<bool> printIR(
    "print-lowered-ir",
    llvm::cl::desc("Print the module after the target pipeline to stderr"),
    llvm::cl::init(false), llvm::cl::cat(xpuCategory));

static llvm::cl::opt<std::string> comparePipeline(
    "compare-pipeline",
    llvm::cl::desc("Differential check: run --compare-function before and "
                   "after this pass pipeline (e.g. "
                   "'builtin.module(func.func(xpu-fuse-epilogue))') on random "
                   "inputs and compare; exits 1 on a mismatch"),
    llvm::cl::init(""), llvm::cl::cat(xpuCategory));

static llvm::cl::opt<std::string>
    compareFunction("compare-function",
                    llvm::cl::desc("Function compared (default: forward)"),
                    llvm::cl::init("forward"), llvm::cl::cat(xpuCategory));

static llvm::cl::opt<int64_t>
    compareSeeds("compare-seeds",
                 llvm::cl::desc("Number of random input sets (default: 3)"),
                 llvm::cl::init(3), llvm::cl::cat(xpuCategory));

static llvm::cl::list<unsigned> comparePositive(
    "compare-positive",
    llvm::cl::desc("Arguments (by index) that always get values in [0.5, "
                   "1.5), e.g. a variance under a guarded square root"),
    llvm::cl::CommaSeparated, llvm::cl::cat(xpuCategory));

static llvm::cl::opt<std::string> comparePrecision(
    "compare-precision",
    llvm::cl::desc("Operand precision of the version under test: f32 "
                   "(tolerance 1e-5), bf16 or f16 (tolerance 2 u sqrt(K), u "
                   "the unit roundoff, K the largest contraction size)"),
    llvm::cl::init("f32"), llvm::cl::cat(xpuCategory));

static llvm::cl::opt<double> compareTolerance(
    "compare-tolerance",
    llvm::cl::desc("Tolerance on the error relative to the result scale "
                   "(overrides --compare-precision)"),
    llvm::cl::init(0.0), llvm::cl::cat(xpuCategory));

/// The largest contraction size of the module's GEMMs.
static int64_t largestK(Operation *module) {
  int64_t k = 1;
  module->walk([&](Operation *op) {
    if (auto gemm = dyn_cast<xpu::GemmOp>(op))
      k = std::max(k, gemm.getK());
    else if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      if (linalg::isaContractionOpInterface(linalgOp))
        for (int64_t r : linalgOp.getStaticLoopRanges())
          if (!ShapedType::isDynamic(r))
            k = std::max(k, r);
  });
  return k;
}

/// True if every op of `module` is already in the LLVM dialect.
static bool isLowered(Operation *module) {
  bool lowered = true;
  module->walk([&](Operation *op) {
    if (op == module)
      return WalkResult::advance();
    if (!isa<LLVM::LLVMDialect>(op->getDialect())) {
      lowered = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return lowered;
}

/// Prints `loc` as `file:line:col: `, the way compilers do.
static void printLocation(Location loc) {
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
    llvm::errs() << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine()
                 << ":" << fileLoc.getColumn() << ": ";
  else
    llvm::errs() << loc << ": ";
}

/// --target=cuda: xpu-nvvm-pipeline (NVIDIA tensor-core and SIMT kernels,
/// cubins) for the xpu CUDA runtime.
static LogicalResult compileForCUDA(Operation *module) {
  if (!comparePipeline.empty())
    return module->emitError()
           << "xpu-run: --compare-pipeline runs on the cpu target only";
  if (isLowered(module))
    return success();
  auto options = xpu::XPUNVVMPipelineOptions::createFromString(pipelineOptions);
  if (!options)
    return module->emitError() << "xpu-run: invalid --xpu-pipeline-options '"
                               << pipelineOptions << "'";
  if (failed(xpu::checkXPUNVVMPipelineOptions(
          *options, [&](const Twine &msg) { return module->emitError(msg); })))
    return failure();
  MLIRContext *ctx = module->getContext();
  if (xpuRemarks && failed(xpu::enableXPURemarks(*ctx)))
    return module->emitError() << "xpu-run: could not enable remarks";
  PassManager pm(ctx);
  xpu::buildXPUNVVMPipeline(pm, *options);
  if (failed(pm.run(module)))
    return failure();
  if (printIR)
    module->print(llvm::errs());
  return success();
}

static LogicalResult compileForTarget(Operation *module, JitRunnerOptions &) {
  MLIRContext *ctx = module->getContext();
  bool spirv = target == "opencl" || target == "levelzero";
  if (target == "cuda")
    return compileForCUDA(module);
  if (target != "cpu" && !spirv)
    return module->emitError()
           << "xpu-run: target '" << target
           << "' is not available in this build (available: cpu, opencl, "
              "levelzero, cuda)";
  if (spirv && !comparePipeline.empty())
    return module->emitError()
           << "xpu-run: --compare-pipeline runs on the cpu target only";
  if (isLowered(module))
    return success();

  if (!comparePipeline.empty()) {
    xpu::DifferentialCheckOptions check;
    check.pipeline = comparePipeline;
    check.function = compareFunction;
    check.seeds = compareSeeds;
    check.positiveArgs.assign(comparePositive.begin(), comparePositive.end());
    if (compareTolerance > 0) {
      check.tolerance = compareTolerance;
    } else if (comparePrecision == "bf16" || comparePrecision == "f16") {
      double u = comparePrecision == "bf16" ? 1.0 / 256 : 1.0 / 2048;
      check.tolerance = 2 * u * std::sqrt(double(largestK(module)));
    } else if (comparePrecision != "f32") {
      return module->emitError() << "xpu-run: --compare-precision must be "
                                    "f32, bf16 or f16, got '"
                                 << comparePrecision << "'";
    }
    if (compareSeeds < 1)
      return module->emitError() << "xpu-run: --compare-seeds must be >= 1";
    if (failed(xpu::buildDifferentialCheck(cast<ModuleOp>(module), check)))
      return failure();
  }

  std::unique_ptr<xpu::XPUCPUPipelineOptions> options;
  std::unique_ptr<xpu::XPUSPIRVPipelineOptions> spirvOptions;
  std::unique_ptr<xpu::XPUXePipelineOptions> xeOptions;
  if (!xpuChip.empty()) {
    if (target != "levelzero" || (xpuChip != "pvc" && xpuChip != "bmg"))
      return module->emitError()
             << "xpu-run: --xpu-chip must be pvc or bmg, with "
                "--target=levelzero (got --xpu-chip="
             << xpuChip << " --target=" << target << ")";
    xeOptions = xpu::XPUXePipelineOptions::createFromString(pipelineOptions);
    if (!xeOptions)
      return module->emitError() << "xpu-run: invalid --xpu-pipeline-options '"
                                 << pipelineOptions << "'";
    xeOptions->chip = xpuChip;
  } else if (spirv)
    spirvOptions =
        xpu::XPUSPIRVPipelineOptions::createFromString(pipelineOptions);
  else
    options = xpu::XPUCPUPipelineOptions::createFromString(pipelineOptions);
  if (!options && !spirvOptions && !xeOptions)
    return module->emitError() << "xpu-run: invalid --xpu-pipeline-options '"
                               << pipelineOptions << "'";
  // In compare mode only the version under test gets --compare-pipeline;
  // the CPU pipeline must not optimize the reference as well.
  if (!comparePipeline.empty() && options)
    options->optimize = false;
  if (xpuRemarks && failed(xpu::enableXPURemarks(*ctx)))
    return module->emitError() << "xpu-run: could not enable remarks";

  // Print diagnostics (remarks included) as file:line:col: severity: text.
  ScopedDiagnosticHandler handler(ctx, [](Diagnostic &diag) {
    printLocation(diag.getLocation());
    switch (diag.getSeverity()) {
    case DiagnosticSeverity::Error:
      llvm::errs() << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      llvm::errs() << "warning: ";
      break;
    case DiagnosticSeverity::Remark:
      llvm::errs() << "remark: ";
      break;
    case DiagnosticSeverity::Note:
      llvm::errs() << "note: ";
      break;
    }
    llvm::errs() << diag << "\n";
    for (Diagnostic &note : diag.getNotes()) {
      printLocation(note.getLocation());
      llvm::errs() << "note: " << note << "\n";
    }
    return success();
  });

  ctx->printOpOnDiagnostic(false);
  PassManager pm(ctx);
  if (xeOptions)
    xpu::buildXPUXePipeline(pm, *xeOptions);
  else if (spirv)
    xpu::buildXPUSPIRVPipeline(pm, *spirvOptions);
  else
    xpu::buildXPUCPUPipeline(pm, *options);
  if (failed(pm.run(module)))
    return failure();
  if (printIR)
    module->print(llvm::errs());
  return success();
}

/// A GPU runtime library: from ../lib next to this executable (an installed
/// xpu-run, or the build tree), else from the build tree it was built in.
static std::string runtimeLibrary(const char *argv0, llvm::StringRef name) {
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&runtimeLibrary));
  llvm::SmallString<256> path(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(path, "lib", name);
  if (!exe.empty() && llvm::sys::fs::exists(path))
    return std::string(path);
  return (llvm::Twine(XPU_RUNTIME_LIBRARY_DIR) + "/" + name).str();
}

/// Handles --xpu-list-devices and --xpu-device=N for the GPU targets (their
/// value is needed before JitRunnerMain parses the command line). Returns
/// the exit status when xpu-run must stop here.
static std::optional<int> handleDeviceOptions(int argc, char **argv,
                                              llvm::StringRef runtimeLib) {
  bool list = false;
  std::optional<int> index;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    a.consume_front("-");
    a.consume_front("-");
    if (a == "xpu-list-devices") {
      list = true;
    } else if (a.consume_front("xpu-device=")) {
      int value;
      if (a.getAsInteger(10, value) || value < 0) {
        llvm::errs() << "xpu-run: --xpu-device expects a device index >= 0, "
                        "got '"
                     << a << "'\n";
        return 1;
      }
      index = value;
    }
  }
  if (!list && !index)
    return std::nullopt;
  if (runtimeLib.empty()) {
    llvm::errs() << "xpu-run: --xpu-list-devices and --xpu-device need "
                    "--target=opencl, --target=levelzero or --target=cuda\n";
    return 1;
  }
  std::string path =
      runtimeLib.drop_front(llvm::StringRef("--shared-libs=").size()).str();
  std::string error;
  auto library =
      llvm::sys::DynamicLibrary::getPermanentLibrary(path.c_str(), &error);
  if (!library.isValid()) {
    llvm::errs() << "xpu-run: cannot load the runtime library '" << path
                 << "': " << error << "\n";
    return 1;
  }
  using ListFn = int (*)();
  using SelectFn = void (*)(int);
  auto listFn = reinterpret_cast<ListFn>(
      library.getAddressOfSymbol("xpuRuntimeListDevices"));
  auto selectFn = reinterpret_cast<SelectFn>(
      library.getAddressOfSymbol("xpuRuntimeSelectDevice"));
  if (!listFn || !selectFn) {
    llvm::errs() << "xpu-run: '" << path
                 << "' does not export xpuRuntimeListDevices / "
                    "xpuRuntimeSelectDevice\n";
    return 1;
  }
  if (list)
    return listFn() > 0 ? 0 : 1;
  int count = listFn();
  if (*index >= count) {
    llvm::errs() << "xpu-run: --xpu-device=" << *index << " but the runtime "
                 << "found " << count << " device(s)\n";
    return 1;
  }
  selectFn(*index);
  return std::nullopt;
}

int main(int argc, char **argv) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();

  DialectRegistry registry;
  xpu::registerAllXPU(registry);
  registerAllToLLVMIRTranslations(registry);
  // gpu-module-to-binary and the gpu.binary offloading translation.
  registerAllGPUToLLVMIRTranslations(registry);

  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "xpu-run " << XPU_VERSION_STRING << " (built against LLVM/MLIR "
       << XPU_LLVM_VERSION_STRING << ")\n";
  });

  // Load the runner utilities unless the user names libraries.
  bool hasSharedLibs = false;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    if (a.starts_with("-shared-libs") || a.starts_with("--shared-libs"))
      hasSharedLibs = true;
  }
  std::string defaultLibs = std::string("--shared-libs=") +
                            XPU_MLIR_LIBRARY_DIR "/libmlir_runner_utils.so," +
                            XPU_MLIR_LIBRARY_DIR "/libmlir_c_runner_utils.so";
  // GPU targets also load their runtime library (the option is parsed
  // again by JitRunnerMain).
  std::string runtimeLib;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    llvm::StringRef value;
    if (a.consume_front("--target=") || a.consume_front("-target="))
      value = a;
    else if ((a == "--target" || a == "-target") && i + 1 < argc)
      value = argv[i + 1];
    else
      continue;
    if (value == "opencl")
      runtimeLib = "--shared-libs=" +
                   runtimeLibrary(argv[0], "libxpu_opencl_runtime.so");
    else if (value == "levelzero")
      runtimeLib = "--shared-libs=" +
                   runtimeLibrary(argv[0], "libxpu_levelzero_runtime.so");
    else if (value == "cuda")
      runtimeLib =
          "--shared-libs=" + runtimeLibrary(argv[0], "libxpu_cuda_runtime.so");
    else
      runtimeLib.clear();
  }
  // Device listing and selection go to the runtime library before the JIT
  // loads it (dlopen hands JitRunner the same, already configured, copy).
  if (std::optional<int> status = handleDeviceOptions(argc, argv, runtimeLib))
    return *status;

  // Compare mode calls the generated driver.
  bool compare = false;
  for (int i = 1; i < argc; ++i)
    if (llvm::StringRef(argv[i]).contains("-compare-pipeline"))
      compare = true;
  std::string entry = std::string("-e=") + xpu::kDriverName.str();
  std::string entryResult = "-entry-point-result=void";
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    llvm::StringRef a(argv[i]);
    if (compare && (a == "-e" || a == "--e")) {
      ++i; // and its value
      continue;
    }
    if (compare && (a.starts_with("-e=") || a.starts_with("--e=") ||
                    a.contains("entry-point-result")))
      continue;
    args.push_back(argv[i]);
  }
  if (compare) {
    args.push_back(entry.data());
    args.push_back(entryResult.data());
  }
  if (!hasSharedLibs)
    args.push_back(defaultLibs.data());
  if (!runtimeLib.empty())
    args.push_back(runtimeLib.data());
  args.push_back(nullptr);

  JitRunnerConfig config;
  config.mlirTransformer = compileForTarget;
  return JitRunnerMain(static_cast<int>(args.size()) - 1, args.data(), registry,
                       config);
}
