//===- xpu-run.cpp - compile and run an xpu / linalg module ---------------===//
//
// Compiles a module with the pipeline of `--target` (unless it is already in
// the LLVM dialect) and runs it, with the conventions of iree-run-module and
// mlir-runner:
//
//   xpu-run model.mlir --function=forward --input=@x.npy \
//       --input="2x3xf32=1 2 3 4 5 6" --input=random --output=@y.npy \
//       [--target=cpu|opencl|levelzero|cuda] [--repeat=N --time]
//       [--trace=trace.json]
//   xpu-run program.mlir -e main -entry-point-result=void
//   xpu-run model.mlir --compare-pipeline=xpu-optimize [--target=opencl]
//
// `--function` calls a function on tensors through a wrapper (EntryPoints.h)
// with device-visible buffers; when xpu-outline-weight-pack split it (only
// arguments marked xpu.weight are packed), `<fn>.pack` runs once on the
// plan's pack operands and each call runs `<fn>.packed`: the arguments of one
// xpu-run never change between calls, so one pack serves them all. A device
// runtime's error (XPURuntime.h: printed by the runtime) ends the run with
// exit status 1 after the call that met it.
// `--time` prints per-call wall time and, on devices, per-kernel launch
// counts and device time. `--trace=FILE` writes what the run did as a
// Chrome/Perfetto trace (Trace.h: compile, pack and call events, and on
// devices each call's kernels with their device time). `--emit-package=DIR`
// writes the compiled function as a package instead (tools/common/Package.h:
// the shared library, its interface and the runtime it needs; what the Python
// package compiles with, and the format xpu-compile writes); `--emit-object`
// writes only the relocatable object and `--emit-plan` the package's interface.
//
//===----------------------------------------------------------------------===//

#include "DifferentialCheck.h"
#include "EntryPoints.h"
#include "HostTensor.h"
#include "Package.h"
#include "Runner.h"
#include "Trace.h"

#include "xpu/Config/BuildPaths.h"
#include "xpu/Config/Version.h"
#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

using namespace mlir;
using namespace mlir::xpu::run;
namespace cl = llvm::cl;

static cl::OptionCategory runnerCategory("mlir-runner options");
static cl::OptionCategory xpuCategory("xpu-run options");
static cl::OptionCategory callCategory("calling a function (--function)");
static cl::OptionCategory compareCategory("differential check");

static cl::opt<std::string>
    inputFile(cl::Positional, cl::desc("<input .mlir file>"), cl::init("-"));

// mlir-runner's options.
static cl::opt<std::string>
    mainFuncName("e",
                 cl::desc("Entry function of a program (mlir-runner's "
                          "-e; default main)"),
                 cl::value_desc("name"), cl::init("main"),
                 cl::cat(runnerCategory));
static cl::opt<std::string> mainFuncType(
    "entry-point-result",
    cl::desc("Result type of the -e function: void (default), i32, i64 or f32"),
    cl::value_desc("type"), cl::init("void"), cl::cat(runnerCategory));
static cl::list<std::string>
    sharedLibs("shared-libs",
               cl::desc("Libraries to load (default: MLIR's runner utilities)"),
               cl::CommaSeparated, cl::cat(runnerCategory));
static cl::opt<bool> optO0("O0", cl::desc("No optimization of the host code"),
                           cl::cat(runnerCategory));
static cl::opt<bool> optO1("O1", cl::desc("Optimization level 1"),
                           cl::cat(runnerCategory));
static cl::opt<bool> optO2("O2", cl::desc("Optimization level 2 (default)"),
                           cl::cat(runnerCategory));
static cl::opt<bool> optO3("O3", cl::desc("Optimization level 3"),
                           cl::cat(runnerCategory));

// Target and pipeline.
static cl::opt<std::string> targetName(
    "target",
    cl::desc("Device to compile for and run on: cpu (default), opencl, "
             "levelzero, or cuda where the NVIDIA backend is built"),
    cl::init("cpu"), cl::cat(xpuCategory));
static cl::opt<int> device(
    "xpu-device",
    cl::desc("Index of the device to run on, as --xpu-list-devices lists it"),
    cl::init(-1), cl::cat(xpuCategory));
static cl::opt<bool>
    listDevices("xpu-list-devices",
                cl::desc("List the devices of the --target runtime and exit"),
                cl::init(false), cl::cat(xpuCategory));
static cl::opt<std::string> xpuChip("xpu-chip",
                                    cl::desc("(set from the preset table)"),
                                    cl::init(""), cl::cat(xpuCategory));
static cl::opt<std::string> pipelineOptions(
    "xpu-pipeline-options",
    cl::desc("Options of the target pipeline, e.g. \"cache-tile=64,256,256 "
             "register-tile=4,16\" or \"optimize=false\""),
    cl::init(""), cl::cat(xpuCategory));
static cl::opt<std::string> precision(
    "precision",
    cl::desc("Precision of the model's GEMMs: f32 (default; f64 GEMMs are "
             "computed in f32, with a remark), f64 (f64 kept), bf16 or f16 "
             "(16-bit operands, f32 accumulation), tf32 (--target=cuda: "
             "tensor cores with tf32 operands); --xpu-list-precisions lists "
             "what each target takes"),
    cl::init(""), cl::cat(xpuCategory));
static cl::opt<bool> listPrecisions(
    "xpu-list-precisions",
    cl::desc("List the precisions of every target (the default first) and "
             "exit"),
    cl::init(false), cl::cat(xpuCategory));
static cl::opt<bool> listTargets(
    "xpu-list-targets",
    cl::desc("Print the host CPU as LLVM detects it (name, the CPU preset "
             "that chip=host compiles for, its vector and matrix features) "
             "and the #xpu.target presets (as xpu-opt --xpu-list-targets), "
             "and exit"),
    cl::init(false), cl::cat(xpuCategory));
static cl::opt<std::string> passPipeline(
    "pass-pipeline",
    cl::desc("A textual pass pipeline that replaces the target's pipeline "
             "(it must lower the module to the LLVM dialect)"),
    cl::init(""), cl::cat(xpuCategory));
static cl::opt<bool>
    xpuRemarks("xpu-remarks",
               cl::desc("Print what every xpu pass applied and refused"),
               cl::init(false), cl::cat(xpuCategory));
static cl::opt<bool>
    printIR("print-lowered-ir",
            cl::desc("Print the module after the target pipeline to stderr"),
            cl::init(false), cl::cat(xpuCategory));
static cl::opt<bool>
    progress("progress",
             cl::desc("Say what is compiling when a step takes longer than a "
                      "second (default on)"),
             cl::init(true), cl::cat(xpuCategory));

// Calling a function.
static cl::opt<std::string>
    function("function",
             cl::desc("Function on tensors to call with --input values (the "
                      "conventions of iree-run-module)"),
             cl::init(""), cl::cat(callCategory));
static cl::list<std::string> inputs(
    "input",
    cl::desc("One argument, in order: @FILE.npy, inline TYPE=VALUES (e.g. "
             "\"2x3xf32=1 2 3 4 5 6\"; one value fills the tensor), random "
             "(seeded, in [-1, 1)) or random:pos (in [0.5, 1.5)); arguments "
             "without an --input are random"),
    cl::cat(callCategory));
static cl::list<std::string>
    outputs("output",
            cl::desc("Where result N goes, in order: @FILE.npy, or - to "
                     "print it (the default for results without --output)"),
            cl::cat(callCategory));
static cl::opt<uint64_t> seed("seed",
                              cl::desc("Seed of the random inputs (default 1)"),
                              cl::init(1), cl::cat(callCategory));
static cl::opt<int64_t>
    repeat("repeat",
           cl::desc("Number of calls (default 1); weights are packed once"),
           cl::init(1), cl::cat(callCategory));
static cl::opt<bool> timing(
    "time",
    cl::desc("Print the wall time per call and, on devices, each kernel's "
             "launches and device time"),
    cl::init(false), cl::cat(callCategory));
static cl::opt<std::string> traceFile(
    "trace",
    cl::desc("Write a Chrome/Perfetto trace of the run (JSON) to this file: "
             "compiling, the weight-packing and per-call entry points and, "
             "on devices, each call's kernels with their device time"),
    cl::init(""), cl::value_desc("FILE"), cl::cat(callCategory));
static cl::opt<std::string>
    emitObject("emit-object",
               cl::desc("Compile --function and write the program as a "
                        "relocatable (PIC) object file instead of running it"),
               cl::init(""), cl::cat(callCategory));
static cl::opt<std::string>
    emitPlan("emit-plan",
             cl::desc("With --emit-object: write the package interface (the "
                      "entry points and the weight-packing plan) as JSON to "
                      "this file"),
             cl::init(""), cl::cat(callCategory));
static cl::opt<bool> deviceOnlyBuffers(
    "device-only-buffers",
    cl::desc("A test mode of device targets: the function's arguments are "
             "memory the host cannot touch (xpuRuntimeSetDeviceOnlyMemory; on "
             "OpenCL a buffer without SVM whose host address faults), so that "
             "host code reading an argument fails instead of passing on SVM; "
             "the results stay host-visible"),
    cl::init(false), cl::cat(callCategory));
static cl::opt<std::string> emitPackage(
    "emit-package",
    cl::desc("Compile --function and write it as a package into this "
             "directory (model.so, interface.json and the runtime library it "
             "needs; the format of xpu-compile) instead of running it"),
    cl::init(""), cl::cat(callCategory));

// The differential check.
static cl::opt<std::string> comparePipeline(
    "compare-pipeline",
    cl::desc("Differential check: --compare-function on the CPU as given "
             "against after this pass pipeline on --target, on random "
             "inputs; exits 1 on a mismatch"),
    cl::init(""), cl::cat(compareCategory));
static cl::opt<std::string>
    compareFunction("compare-function",
                    cl::desc("Function compared (default: forward)"),
                    cl::init("forward"), cl::cat(compareCategory));
static cl::opt<int64_t>
    compareSeeds("compare-seeds",
                 cl::desc("Number of random input sets (default: 3)"),
                 cl::init(3), cl::cat(compareCategory));
static cl::list<unsigned> comparePositive(
    "compare-positive",
    cl::desc("Arguments (by index) that always get values in [0.5, 1.5); "
             "arguments that reach a cf.assert of the model do anyway"),
    cl::CommaSeparated, cl::cat(compareCategory));
static cl::opt<std::string> comparePrecision(
    "compare-precision",
    cl::desc("Operand precision of the version under test: f32 (tolerance "
             "1e-5), bf16 or f16 (tolerance 2 u sqrt(K))"),
    cl::init("f32"), cl::cat(compareCategory));
static cl::opt<double> compareTolerance(
    "compare-tolerance",
    cl::desc("Tolerance on the error relative to the result scale "
             "(overrides --compare-precision)"),
    cl::init(0.0), cl::cat(compareCategory));

/// The run's trace (--trace); records nothing when disabled.
static Trace trace;

/// Prints `loc` as `file:line:col: `, the way compilers do.
/// Prints `loc` as "file:line:col: ". A call-site location (torch-mlir's
/// debug information: an op of torch/nn/modules/linear.py called from the
/// user's forward) prints the outermost caller, the line a user wrote, and
/// then the callee in parentheses.
static void printLocation(Location loc) {
  FileLineColLoc callee = loc->findInstanceOf<FileLineColLoc>();
  FileLineColLoc caller;
  Location l = loc;
  while (auto site = dyn_cast<CallSiteLoc>(l)) {
    l = site.getCaller();
    if (auto found = l->findInstanceOf<FileLineColLoc>())
      caller = found;
  }
  auto print = [](FileLineColLoc f) {
    llvm::errs() << f.getFilename().getValue() << ":" << f.getLine() << ":"
                 << f.getColumn();
  };
  if (!callee)
    return;
  if (caller && caller != callee) {
    print(caller);
    llvm::errs() << " (";
    print(callee);
    llvm::errs() << "): ";
    return;
  }
  print(callee);
  llvm::errs() << ": ";
}

/// One line per problem, and a non-zero exit.
static int fail(const llvm::Twine &message) {
  llvm::outs().flush();
  llvm::errs() << "error: xpu-run: " << message << "\n";
  return 1;
}

/// The running function, for the crash handler.
static char runningWhat[256] = "";

/// A crash while the compiled code runs (a failed cf.assert aborts, a failed
/// allocation is a null pointer) ends with one clear line, not a core dump.
static void onFatalSignal(int sig) {
  const char *name = sig == SIGABRT   ? "aborted"
                     : sig == SIGSEGV ? "crashed (SIGSEGV)"
                     : sig == SIGBUS  ? "crashed (SIGBUS)"
                     : sig == SIGFPE  ? "crashed (SIGFPE)"
                                      : "crashed";
  std::fflush(stdout);
  char line[512];
  int n = std::snprintf(
      line, sizeof(line),
      "xpu-run: %s %s%s; a failed cf.assert of the model (its message is "
      "above), a failed allocation or a bug in the compiled code\n",
      runningWhat[0] ? runningWhat : "the program", name,
      sig == SIGABRT ? "" : " while running");
  if (n > 0)
    (void)!write(STDERR_FILENO, line, std::min<size_t>(n, sizeof(line)));
  _exit(sig == SIGABRT ? 3 : 2);
}

static void installCrashHandlers() {
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL})
    std::signal(sig, onFatalSignal);
}

static unsigned optLevel() {
  if (optO0)
    return 0;
  if (optO1)
    return 1;
  if (optO3)
    return 3;
  return 2;
}

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
static bool isLowered(ModuleOp module) {
  bool lowered = true;
  module->walk([&](Operation *op) {
    if (op == module.getOperation())
      return WalkResult::advance();
    if (!isa<LLVM::LLVMDialect>(op->getDialect())) {
      lowered = false;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return lowered;
}

/// Reads and parses the input; a file that is not MLIR text (or bytecode
/// this MLIR reads) is one line, never a dump of its bytes.
static OwningOpRef<ModuleOp> parseInput(MLIRContext &ctx,
                                        llvm::SourceMgr &sourceMgr) {
  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file) {
    fail(error.empty() ? "cannot open '" + inputFile + "'" : error);
    return nullptr;
  }
  StringRef data = file->getBuffer();
  bool bytecode = data.starts_with("ML\xefR");
  if (!bytecode) {
    StringRef head = data.take_front(4096);
    size_t controls = llvm::count_if(head, [](char c) {
      return c == 0 || (static_cast<unsigned char>(c) < 0x20 && c != '\n' &&
                        c != '\r' && c != '\t' && c != '\f');
    });
    if (controls > 0) {
      fail("'" + inputFile +
           "' is not an MLIR text file (it holds binary data)");
      return nullptr;
    }
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module;
  SourceMgrDiagnosticHandler sourceHandler(sourceMgr, &ctx);
  if (bytecode) {
    // Keep the diagnostics of a bytecode parse from printing its bytes.
    ScopedDiagnosticHandler quiet(&ctx, [&](Diagnostic &diag) {
      if (diag.getSeverity() == DiagnosticSeverity::Error)
        fail("'" + inputFile + "' is MLIR bytecode this MLIR (" +
             XPU_LLVM_VERSION_STRING + ") cannot read: " + diag.str() +
             " (torch-mlir's bytecode comes from a newer MLIR: export text)");
      return success();
    });
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&ctx));
  } else {
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&ctx));
  }
  return module;
}

/// The pipeline options for the target, with --precision folded in.
static std::string effectivePipelineOptions() {
  std::string opts = pipelineOptions;
  if (!precision.empty())
    opts += " precision=" + precision;
  return opts;
}

/// Errors in option values, before anything compiles.
static std::optional<std::string> checkOptionValues() {
  if (std::optional<std::string> bad =
          checkPrecision(precision, targetName, xpuChip))
    return bad;
  if (device.getNumOccurrences() && device < 0)
    return "--xpu-device expects a device index >= 0, got '" +
           std::to_string(device) + "'";
  if (repeat < 1)
    return "--repeat must be at least 1, got " + std::to_string(repeat);
  if (compareSeeds < 1)
    return "--compare-seeds must be >= 1";
  if (comparePrecision != "f32" && comparePrecision != "bf16" &&
      comparePrecision != "f16")
    return "--compare-precision must be f32, bf16 or f16, got '" +
           comparePrecision + "'";
  if (compareTolerance < 0 || std::isnan(compareTolerance))
    return "--compare-tolerance must be positive";
  if (mainFuncType != "void" && mainFuncType != "i32" &&
      mainFuncType != "i64" && mainFuncType != "f32")
    return "-entry-point-result must be void, i32, i64 or f32, got '" +
           mainFuncType + "'";
  if (std::optional<std::string> bad = checkXeChip(xpuChip, targetName))
    return bad;
  if (!emitObject.empty() && function.empty())
    return "--emit-object needs --function (the entry point it exports)";
  if (!emitPlan.empty() && emitObject.empty())
    return "--emit-plan needs --emit-object";
  if (!emitPackage.empty() && function.empty())
    return "--emit-package needs --function (the entry point it exports)";
  if (!emitPackage.empty() && !emitObject.empty())
    return "--emit-package and --emit-object exclude each other";
  if (deviceOnlyBuffers && (function.empty() || targetName == "cpu"))
    return "--device-only-buffers needs --function and a device --target "
           "(opencl, levelzero or cuda)";
  return std::nullopt;
}

/// Default shared libraries: MLIR's runner utilities.
static std::vector<std::string> effectiveSharedLibs() {
  if (!sharedLibs.empty())
    return {sharedLibs.begin(), sharedLibs.end()};
  return {XPU_MLIR_LIBRARY_DIR "/libmlir_runner_utils.so",
          XPU_MLIR_LIBRARY_DIR "/libmlir_c_runner_utils.so"};
}

/// Loads the runtime library of a device target to list or select devices
/// (before the JIT loads the same, already configured, copy).
static std::optional<int> handleDevices(const TargetInfo &target,
                                        Location loc) {
  if (!listDevices && device < 0)
    return std::nullopt;
  if (!*target.runtimeLibrary)
    return fail("--xpu-list-devices and --xpu-device need a device target "
                "(--target=opencl, levelzero or cuda)");
  FailureOr<std::string> path = runtimeLibraryPath(target, loc);
  if (failed(path))
    return 1;
  std::string error;
  auto library =
      llvm::sys::DynamicLibrary::getPermanentLibrary(path->c_str(), &error);
  if (!library.isValid())
    return fail("cannot load the runtime library '" + *path + "': " + error);
  auto listFn = reinterpret_cast<int (*)()>(
      library.getAddressOfSymbol("xpuRuntimeListDevices"));
  auto selectFn = reinterpret_cast<void (*)(int)>(
      library.getAddressOfSymbol("xpuRuntimeSelectDevice"));
  if (!listFn || !selectFn)
    return fail("'" + *path +
                "' does not export xpuRuntimeListDevices / "
                "xpuRuntimeSelectDevice");
  // A count below 0: the driver cannot be used (the runtime printed why).
  if (listDevices)
    return listFn() > 0 ? 0 : 1;
  // Count quietly: the listing goes to stdout.
  std::fflush(stdout);
  int saved = dup(STDOUT_FILENO);
  std::FILE *null = std::fopen("/dev/null", "w");
  if (null)
    dup2(fileno(null), STDOUT_FILENO);
  int count = listFn();
  std::fflush(stdout);
  if (saved >= 0) {
    dup2(saved, STDOUT_FILENO);
    close(saved);
  }
  if (null)
    std::fclose(null);
  if (count < 0)
    return 1;
  if (device >= count)
    return fail("--xpu-device=" + std::to_string(device) +
                " but the runtime found " + std::to_string(count) +
                " device(s)");
  selectFn(device);
  return std::nullopt;
}

static CompileOptions compileOptions(const TargetInfo &target) {
  CompileOptions options;
  options.target = &target;
  options.pipelineOptions = effectivePipelineOptions();
  // A package's caller owns its buffers: device memory on CUDA.
  if (!emitPackage.empty() || !emitObject.empty())
    options.pipelineOptions =
        packagePipelineOptions(target, options.pipelineOptions, true);
  options.passPipeline = passPipeline;
  options.printIR = printIR;
  options.progress = progress;
  if (!xpuChip.empty()) {
    options.pipelineOverride = "xpu-xe-pipeline";
    options.pipelineOptions += " chip=" + xpuChip;
  }
  return options;
}

/// The target pipeline on `module`, recorded as a `compile` event.
static LogicalResult compileTraced(ModuleOp module, const TargetInfo &target,
                                   EntryPlan *plan) {
  double start = Trace::now();
  LogicalResult result = compileModule(module, compileOptions(target), plan);
  trace.complete("compile", "compile", start,
                 llvm::json::Object{{"target", std::string(target.name)}});
  return result;
}

/// Program::create, recorded as a `compile` event (the JIT).
static FailureOr<std::unique_ptr<Program>>
createTraced(ModuleOp module, const TargetInfo &target, bool deviceOnly) {
  double start = Trace::now();
  FailureOr<std::unique_ptr<Program>> program = Program::create(
      module, target, effectiveSharedLibs(), optLevel(), deviceOnly);
  trace.complete("jit", "compile", start,
                 llvm::json::Object{{"target", std::string(target.name)}});
  return program;
}

/// Writes the trace, if any, after a run that succeeded (a failed run
/// leaves no file); failing to write it fails the run.
static int finishTrace(int status) {
  if (status != 0)
    return status;
  if (std::optional<std::string> error = trace.write())
    return fail(*error);
  return status;
}

//===----------------------------------------------------------------------===//
// -e main (mlir-runner)
//===----------------------------------------------------------------------===//

static int runMain(ModuleOp module, const TargetInfo &target) {
  // The entry and its type, checked before compiling.
  std::string expected =
      mainFuncType == "void" ? "()" : "(" + mainFuncType + ")";
  Operation *entry = module.lookupSymbol(mainFuncName);
  std::string candidates;
  for (Operation &op : *module.getBody()) {
    auto name = op.getAttrOfType<StringAttr>(SymbolTable::getSymbolAttrName());
    if (name && (isa<func::FuncOp>(op) || isa<LLVM::LLVMFuncOp>(op)))
      if (!(isa<func::FuncOp>(op) && cast<func::FuncOp>(op).isExternal()) &&
          !(isa<LLVM::LLVMFuncOp>(op) &&
            cast<LLVM::LLVMFuncOp>(op).isExternal()))
        candidates += (candidates.empty() ? "@" : ", @") + name.str();
  }
  if (!entry)
    return fail("no function @" + mainFuncName + " in '" + inputFile +
                "'; candidates: " +
                (candidates.empty() ? std::string("none") : candidates) +
                " (name the entry with -e NAME, or call a function on tensors "
                "with --function=NAME)");
  auto describe = [](TypeRange types) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << "(";
    llvm::interleaveComma(types, os);
    os << ")";
    return s;
  };
  if (auto fn = dyn_cast<func::FuncOp>(entry)) {
    if (fn.getNumArguments() != 0)
      return fail("@" + mainFuncName + " takes arguments " +
                  describe(fn.getArgumentTypes()) +
                  "; -e needs a function without arguments (call it with "
                  "--function=" +
                  mainFuncName + " and --input instead)");
    if (describe(fn.getResultTypes()) != expected)
      return fail(
          "@" + mainFuncName + " returns " + describe(fn.getResultTypes()) +
          ", but -entry-point-result=" + mainFuncType + " expects " + expected);
  }

  if (!isLowered(module) && failed(compileTraced(module, target, nullptr)))
    return 1;
  if (auto llvmFn = module.lookupSymbol<LLVM::LLVMFuncOp>(mainFuncName)) {
    auto type = llvmFn.getFunctionType();
    std::string result;
    llvm::raw_string_ostream os(result);
    if (isa<LLVM::LLVMVoidType>(type.getReturnType()))
      os << "()";
    else
      os << "(" << type.getReturnType() << ")";
    if (type.getNumParams() != 0 || result != expected)
      return fail("@" + mainFuncName + " has the LLVM type " +
                  std::string(llvm::formatv("{0}", type)) +
                  ", but -entry-point-result=" + mainFuncType + " expects " +
                  expected + " and no arguments");
  }
  FailureOr<std::unique_ptr<Program>> program =
      createTraced(module, target, /*deviceOnly=*/false);
  if (failed(program))
    return 1;
  std::snprintf(runningWhat, sizeof(runningWhat), "@%s", mainFuncName.c_str());
  ExecutionEngine &engine = (*program)->engine();
  bool profiled = trace.enabled() && (*program)->profileStart();
  double start = Trace::now();
  llvm::Error error = llvm::Error::success();
  if (mainFuncType == "void") {
    error = engine.invokePacked(mainFuncName);
  } else if (mainFuncType == "i32") {
    int32_t r = 0;
    void *args[] = {&r};
    error = engine.invokePacked(mainFuncName, args);
    if (!error)
      llvm::outs() << r << "\n";
  } else if (mainFuncType == "i64") {
    int64_t r = 0;
    void *args[] = {&r};
    error = engine.invokePacked(mainFuncName, args);
    if (!error)
      llvm::outs() << r << "\n";
  } else {
    float r = 0;
    void *args[] = {&r};
    error = engine.invokePacked(mainFuncName, args);
    if (!error)
      llvm::outs() << llvm::formatv("{0}", r) << "\n";
  }
  runningWhat[0] = 0;
  if (error)
    return fail("cannot run @" + mainFuncName + ": " +
                llvm::toString(std::move(error)));
  std::vector<KernelStats> kernels;
  if (profiled)
    kernels = (*program)->profileStop();
  trace.complete(mainFuncName, "call", start,
                 llvm::json::Object{{"target", std::string(target.name)}});
  trace.kernels(kernels, start, target.name);
  llvm::outs().flush();
  // The device runtime printed its error; what @main printed after it is
  // meaningless.
  if (failed((*program)->checkRuntime()))
    return 1;
  std::fflush(stdout);
  return finishTrace(0);
}

//===----------------------------------------------------------------------===//
// --function
//===----------------------------------------------------------------------===//

/// The host values of --input, in order (random ones are made later, when
/// their types are known).
struct InputSpec {
  std::optional<HostTensor> value;
  bool random = true, positive = false;
};

static FailureOr<std::vector<InputSpec>> readInputs() {
  std::vector<InputSpec> specs;
  for (auto [i, text] : llvm::enumerate(inputs)) {
    InputSpec spec;
    StringRef t(text);
    if (t == "random" || t == "random:pos") {
      spec.positive = t == "random:pos";
    } else {
      llvm::Expected<HostTensor> value =
          t.starts_with("@") ? readNpy(t.drop_front()) : parseInline(t);
      if (!value) {
        fail(llvm::formatv("--input #{0}: {1}", i,
                           llvm::toString(value.takeError())));
        return failure();
      }
      spec.value = std::move(*value);
      spec.random = false;
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

/// The value for argument `i` of type `t`: the --input given (checked
/// against `t`), or seeded random values.
static FailureOr<HostTensor> argumentValue(const std::vector<InputSpec> &specs,
                                           unsigned i, Type t,
                                           StringRef function) {
  Type elt = getElementTypeOrSelf(t);
  ElemKind kind = *elemKindOf(elt);
  SmallVector<int64_t> shape;
  if (auto tensor = dyn_cast<RankedTensorType>(t))
    shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  std::string typeText = HostTensor{kind, shape, {}}.typeString();
  if (i >= specs.size() || specs[i].random) {
    bool positive = i < specs.size() && specs[i].positive;
    return randomTensor(kind, shape, seed * 1000 + i, positive);
  }
  HostTensor value = *specs[i].value;
  if (value.shape != shape) {
    fail(llvm::formatv("--input #{0} is {1}, but argument #{0} of @{2} is {3}",
                       i, value.typeString(), function, typeText));
    return failure();
  }
  if (value.kind != kind) {
    // NumPy has no bf16: a float32 file feeds a bf16 argument.
    bool widenOk = isFloat(value.kind) && isFloat(kind) &&
                   kind == ElemKind::BF16 && value.kind == ElemKind::F32;
    if (!widenOk) {
      fail(llvm::formatv("--input #{0} has element type {1}, but argument "
                         "#{0} of @{2} is {3}",
                         i, elemName(value.kind), function, typeText));
      return failure();
    }
    HostTensor converted;
    converted.kind = kind;
    converted.shape = shape;
    converted.bytes.assign(value.numElements() * elemBytes(kind), 0);
    for (int64_t e = 0, n = value.numElements(); e < n; ++e)
      converted.set(e, value.get(e));
    value = std::move(converted);
  }
  return value;
}

static void printTiming(ArrayRef<double> seconds, double packSeconds,
                        bool packed, const std::vector<KernelStats> &kernels,
                        bool profiled, const TargetInfo &target) {
  std::vector<double> sorted(seconds.begin(), seconds.end());
  std::sort(sorted.begin(), sorted.end());
  double sum = 0;
  for (double s : sorted)
    sum += s;
  auto ms = [](double s) { return llvm::formatv("{0:f3} ms", s * 1e3).str(); };
  llvm::outs() << llvm::formatv(
      "xpu-run: @{0} on {1}: {2} call(s), wall time per call: min {3}, "
      "median {4}, mean {5}\n",
      function, target.name, sorted.size(), ms(sorted.front()),
      ms(sorted[sorted.size() / 2]), ms(sum / sorted.size()));
  if (packed)
    llvm::outs() << llvm::formatv("xpu-run: @{0}.pack (weights packed once, "
                                  "before the calls): {1}\n",
                                  function, ms(packSeconds));
  if (!profiled) {
    if (!*target.runtimeLibrary)
      llvm::outs() << "xpu-run: the CPU runs no kernels; the wall time is the "
                      "measurement\n";
    return;
  }
  llvm::outs() << llvm::formatv("{0,-40} {1,10} {2,16} {3,16}\n", "kernel",
                                "launches", "device total", "per launch");
  for (const KernelStats &k : kernels) {
    std::string total = "n/a", each = "n/a";
    if (k.deviceNanoseconds >= 0) {
      total = ms(k.deviceNanoseconds * 1e-9);
      each = ms(k.deviceNanoseconds * 1e-9 / std::max<uint64_t>(k.launches, 1));
    }
    llvm::outs() << llvm::formatv("{0,-40} {1,10} {2,16} {3,16}\n", k.name,
                                  k.launches, total, each);
  }
}

static int runFunction(ModuleOp module, const TargetInfo &target) {
  FailureOr<std::vector<InputSpec>> specs = readInputs();
  if (failed(specs))
    return 1;
  SmallVector<SmallVector<int64_t>> shapes;
  for (InputSpec &s : *specs)
    shapes.push_back(s.value ? s.value->shape : SmallVector<int64_t>());
  // A package keeps the dynamic dimensions an --input does not give: its
  // caller passes any size there (interface.json has them as null).
  FailureOr<EntryPlan> plan = checkEntry(module, function, shapes, "xpu-run",
                                         /*keepDynamic=*/!emitPackage.empty());
  if (failed(plan))
    return 1;
  if (specs->size() > plan->inputs.size())
    return fail(llvm::formatv("{0} --input values, but @{1} takes {2} "
                              "argument(s)",
                              specs->size(), function, plan->inputs.size()));
  if (outputs.size() > plan->results.size())
    return fail(llvm::formatv("{0} --output values, but @{1} has {2} "
                              "result(s)",
                              outputs.size(), function, plan->results.size()));
  for (auto [i, out] : llvm::enumerate(outputs))
    if (out != "-" && !StringRef(out).starts_with("@"))
      return fail(llvm::formatv("--output #{0} must be @FILE.npy or -, got "
                                "'{1}'",
                                i, out));
  // Arguments and results must fit in memory.
  // (A package's dynamically shaped values have no size yet: left out.)
  uint64_t needed = 0;
  bool dynamic = false;
  for (Type t : llvm::concat<Type>(plan->inputs, plan->results))
    if (auto tensor = dyn_cast<RankedTensorType>(t);
        tensor && !tensor.hasStaticShape())
      dynamic = true;
    else if (tensor)
      needed += uint64_t(tensor.getNumElements()) *
                elemBytes(*elemKindOf(tensor.getElementType()));
  uint64_t physical = physicalMemoryBytes();
  if (physical && needed > physical)
    return fail(llvm::formatv("@{0}'s arguments and results need {1} bytes, "
                              "more than this machine's {2} bytes of memory",
                              function, needed, physical));

  // Random values for arguments that reach a cf.assert of the model (the
  // guard of 1/sqrt(var + eps)) are drawn positive.
  for (unsigned i : xpu::assertGuardedArguments(
           module.lookupSymbol<func::FuncOp>(function))) {
    if (i < specs->size() && !(*specs)[i].random)
      continue;
    if (i >= specs->size())
      specs->resize(i + 1);
    if (!(*specs)[i].positive)
      llvm::errs() << "xpu-run: argument #" << i << " of @" << function
                   << " reaches a cf.assert of the model: its random values "
                      "are drawn from [0.5, 1.5)\n";
    (*specs)[i].positive = true;
  }
  // Inputs before compiling, so that a bad one costs no compile time.
  // (A package with dynamic dimensions is not run: it has no inputs.)
  std::vector<HostTensor> values;
  for (auto [i, t] : llvm::enumerate(plan->inputs)) {
    if (dynamic)
      break;
    FailureOr<HostTensor> v = argumentValue(*specs, i, t, function);
    if (failed(v))
      return 1;
    values.push_back(std::move(*v));
  }
  if (failed(compileTraced(module, target, &*plan)))
    return 1;

  if (!emitObject.empty() || !emitPackage.empty()) {
    CompileOptions compiled = compileOptions(target);
    PackageInfo info;
    info.target = &target;
    info.pipeline = compiled.pipelineOverride.empty()
                        ? target.pipeline
                        : compiled.pipelineOverride;
    info.pipelineOptions = compiled.pipelineOptions;
    info.producer = std::string("xpu-run ") + XPU_VERSION_STRING +
                    " (LLVM/MLIR " + XPU_LLVM_VERSION_STRING + ")";
    EmitOptions emit;
    emit.optLevel = optLevel();
    // The CPU target's code is the computation: this CPU's features.
    emit.nativeHost = !*target.runtimeLibrary;
    emit.runtimeDir = runtimeLibraryDir();
    emit.tool = "xpu-run";
    if (!emitPackage.empty())
      return failed(writePackage(module, *plan, info, emitPackage, emit)) ? 1
                                                                          : 0;
    if (failed(writeObject(module, emitObject, emit, info)))
      return 1;
    if (!emitPlan.empty()) {
      describeDeviceCode(module, info);
      std::error_code planEc;
      llvm::ToolOutputFile planOut(emitPlan, planEc, llvm::sys::fs::OF_Text);
      if (planEc)
        return fail("cannot write '" + emitPlan + "': " + planEc.message());
      planOut.os() << interfaceJSON(*plan, info);
      planOut.keep();
    }
    return 0;
  }

  FailureOr<std::unique_ptr<Program>> programOr =
      createTraced(module, target, deviceOnlyBuffers);
  if (failed(programOr))
    return 1;
  Program &program = **programOr;
  Location loc = module.getLoc();

  std::vector<Buffer> args, results, packedWeights;
  auto releaseAll = [&] {
    for (std::vector<Buffer> *group : {&args, &results, &packedWeights})
      for (Buffer &b : *group)
        program.release(b);
  };
  // The arguments are device-only memory with --device-only-buffers; the
  // results stay host-visible: the SPIR-V pipeline's entry wrapper writes
  // them with a host copy (its buffers are SVM).
  for (auto [i, t] : llvm::enumerate(plan->inputs)) {
    FailureOr<Buffer> b =
        program.allocate(t, &values[i], loc, deviceOnlyBuffers);
    if (failed(b))
      return releaseAll(), 1;
    args.push_back(*b);
  }
  for (Type t : plan->results) {
    // A scalar result comes back through a 0-d buffer.
    if (!isa<RankedTensorType>(t))
      t = RankedTensorType::get({}, t);
    FailureOr<Buffer> b = program.allocate(t, nullptr, loc);
    if (failed(b))
      return releaseAll(), 1;
    results.push_back(*b);
  }
  // --time profiles the whole run; --trace each entry point's call, the
  // kernels of each call summed up for --time.
  bool perCall = trace.enabled();
  bool profiled = timing && !perCall && program.profileStart();
  std::vector<KernelStats> kernels;
  auto tracedCall = [&](StringRef name, StringRef cat, int64_t index,
                        ArrayRef<Buffer *> in, ArrayRef<Buffer *> out,
                        double &seconds) {
    bool profiling = perCall && program.profileStart();
    double startUs = Trace::now();
    auto start = std::chrono::steady_clock::now();
    if (failed(program.call(name, in, out, loc)))
      return failure();
    seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::vector<KernelStats> ran;
    if (profiling)
      ran = program.profileStop();
    llvm::json::Object args{{"target", std::string(target.name)},
                            {"symbol", "_mlir_ciface_" + entryName(name)}};
    if (index >= 0)
      args["call"] = index;
    trace.complete(name, cat, startUs, std::move(args));
    trace.kernels(ran, startUs, target.name);
    profiled |= profiling;
    for (const KernelStats &k : ran) {
      auto same = llvm::find_if(
          kernels, [&](const KernelStats &s) { return s.name == k.name; });
      if (same == kernels.end()) {
        kernels.push_back(k);
        continue;
      }
      same->launches += k.launches;
      if (same->deviceNanoseconds >= 0 && k.deviceNanoseconds >= 0)
        same->deviceNanoseconds += k.deviceNanoseconds;
      else
        same->deviceNanoseconds = -1;
    }
    return success();
  };

  // Pack once, then call the rest; or call the function as a whole.
  double packSeconds = 0;
  SmallVector<Buffer *> callInputs, callOutputs;
  for (Buffer &b : results)
    callOutputs.push_back(&b);
  std::string callee = function;
  if (plan->pack) {
    const PackPlan &pack = *plan->pack;
    for (Type t : pack.packResults) {
      FailureOr<Buffer> b = program.allocate(t, nullptr, loc);
      if (failed(b))
        return releaseAll(), 1;
      packedWeights.push_back(*b);
    }
    SmallVector<Buffer *> packIn, packOut;
    for (const PlanOperand &o : pack.packOperands)
      packIn.push_back(&args[o.index]);
    for (Buffer &b : packedWeights)
      packOut.push_back(&b);
    std::snprintf(runningWhat, sizeof(runningWhat), "@%s", pack.pack.c_str());
    if (failed(program.prepare(pack.pack, loc)))
      return releaseAll(), 1;
    if (failed(tracedCall(pack.pack, "pack", -1, packIn, packOut, packSeconds)))
      return releaseAll(), 1;
    for (const PlanOperand &o : pack.packedOperands)
      callInputs.push_back(o.fromPack ? &packedWeights[o.index]
                                      : &args[o.index]);
    callee = pack.packed;
  } else {
    for (Buffer &b : args)
      callInputs.push_back(&b);
  }
  std::snprintf(runningWhat, sizeof(runningWhat), "@%s", callee.c_str());
  // Resolve the entry (the JIT compiles on first lookup) before timing.
  if (failed(program.prepare(callee, loc)))
    return releaseAll(), 1;
  std::vector<double> seconds;
  for (int64_t r = 0; r < repeat; ++r) {
    double s = 0;
    if (failed(tracedCall(callee, "call", r, callInputs, callOutputs, s)))
      return releaseAll(), 1;
    seconds.push_back(s);
  }
  runningWhat[0] = 0;
  if (profiled && !perCall)
    kernels = program.profileStop();

  int status = 0;
  for (auto [i, b] : llvm::enumerate(results)) {
    HostTensor value = program.read(b);
    std::string where = i < outputs.size() ? outputs[i] : "-";
    if (where == "-") {
      llvm::outs() << "result[" << i << "]: ";
      print(llvm::outs(), value);
      llvm::outs() << "\n";
    } else if (llvm::Error e = writeNpy(StringRef(where).drop_front(), value)) {
      status = fail(llvm::toString(std::move(e)));
    }
  }
  if (timing)
    printTiming(seconds, packSeconds, plan->pack.has_value(), kernels, profiled,
                target);
  releaseAll();
  llvm::outs().flush();
  return finishTrace(status);
}

/// The host CPU line of --xpu-list-targets: what LLVM detected and what
/// the CPU pipeline makes of it.
static void printHostCpu(raw_ostream &os) {
  const xpu::HostCpu &host = xpu::getHostCpu();
  const xpu::TargetPreset &preset = xpu::getHostCpuPreset();
  SmallVector<StringRef> isa;
  for (const std::string &f : host.features)
    if (StringRef(f).starts_with("avx") || StringRef(f).starts_with("amx") ||
        f == "fma")
      isa.push_back(f);
  os << "host: " << host.name << " (LLVM), chip=host compiles for preset "
     << preset.chip << " (" << preset.description << "); " << preset.vectorBits
     << "-bit vectors, " << preset.grfCount << " vector registers, matrix unit "
     << (preset.cpu && preset.cpu->amx ? "AMX" : "none")
     << "; vector and matrix features: " << llvm::join(isa, " ") << "\n";
  os << "host features: " << llvm::join(host.features, " ") << "\n";
}

int main(int argc, char **argv) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();

  // Passes and pipelines first: --mlir-print-ir-before=<pass> and
  // --pass-pipeline name them.
  DialectRegistry registry;
  xpu::registerAllXPU(registry);
  registerAllPasses();
  registerAllToLLVMIRTranslations(registry);
  // gpu-module-to-binary and the gpu.binary offloading translation.
  registerAllGPUToLLVMIRTranslations(registry);

  // The compiler's own flags: --mlir-timing, --mlir-print-ir-*, ...
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "xpu-run " << XPU_VERSION_STRING << " (built against LLVM/MLIR "
       << XPU_LLVM_VERSION_STRING << ")\n";
  });
  xpuChip.setDescription(getXeChipHelp());
  cl::ParseCommandLineOptions(
      argc, argv,
      "xpu-run: compile an MLIR module for a target and run it\n\n"
      "  xpu-run model.mlir --function=forward --input=@x.npy "
      "--output=@y.npy [--target=opencl] [--repeat=N --time]\n"
      "  xpu-run program.mlir -e main -entry-point-result=void\n"
      "  xpu-run model.mlir --compare-pipeline=xpu-optimize "
      "[--target=opencl]\n");
  if (listPrecisions) {
    printPrecisions(llvm::outs());
    return 0;
  }
  if (listTargets) {
    printHostCpu(llvm::outs());
    xpu::printTargetPresetsAsJson(llvm::outs());
    return 0;
  }
  if (std::optional<std::string> bad = checkOptionValues())
    return fail(*bad);
  if (!traceFile.empty()) {
    if (!comparePipeline.empty() || !emitObject.empty() || !emitPackage.empty())
      return fail("--trace records a run; it does not apply to "
                  "--compare-pipeline, --emit-object or --emit-package");
    if (std::optional<std::string> error = trace.open(traceFile))
      return fail(*error);
  }

  MLIRContext ctx(registry);
  ctx.printOpOnDiagnostic(false);

  // Diagnostics (remarks included) as file:line:col: severity: text.
  ScopedDiagnosticHandler handler(&ctx, [](Diagnostic &diag) {
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

  Location unknown = UnknownLoc::get(&ctx);
  FailureOr<const TargetInfo *> target = lookupTarget(targetName, unknown);
  if (failed(target))
    return 1;
  if (std::optional<int> status = handleDevices(**target, unknown))
    return *status;
  if (xpuRemarks && failed(xpu::enableXPURemarks(ctx)))
    return fail("could not enable remarks");

  llvm::SourceMgr sourceMgr;
  OwningOpRef<ModuleOp> module = parseInput(ctx, sourceMgr);
  if (!module)
    return 1;
  installCrashHandlers();

  if (!comparePipeline.empty()) {
    if (!function.empty())
      return fail("--compare-pipeline compares --compare-function; drop "
                  "--function");
    xpu::DifferentialCheckOptions check;
    check.pipeline = comparePipeline;
    check.function = compareFunction;
    check.seeds = compareSeeds;
    check.positiveArgs.assign(comparePositive.begin(), comparePositive.end());
    check.compile = compileOptions(**target);
    check.sharedLibs = effectiveSharedLibs();
    check.optLevel = optLevel();
    if (compareTolerance > 0) {
      check.tolerance = compareTolerance;
    } else if (comparePrecision != "f32") {
      int64_t k = largestK(*module);
      double u = comparePrecision == "bf16" ? 1.0 / 256 : 1.0 / 2048;
      check.tolerance = 2 * u * std::sqrt(double(k));
    }
    FailureOr<int> status = xpu::runDifferentialCheck(*module, check);
    return failed(status) ? 1 : *status;
  }
  if (!function.empty())
    return runFunction(*module, **target);
  return runMain(*module, **target);
}
