//===- xpu-compile.cpp - compile a module into a package or a program ----===//
//
// Ahead-of-time compilation for machines without LLVM or MLIR:
//
//   xpu-compile model.mlir --target=cuda -o DIR       (a package, the default)
//   xpu-compile model.mlir --target=cpu --emit=shared -o model.so
//   xpu-compile prog.mlir --target=cuda --emit=exe -o prog  (@main program)
//
// The module goes through the target's pipeline (the table and the
// compilation are tools/common/Compile.h, shared with xpu-run), the function
// `--function` gets the entry wrapper of EntryPoints.h (inputs, then the
// caller's output buffers; `<fn>.pack` and `<fn>.packed` too when weights
// are packed), the host code is compiled for this architecture (for this
// CPU on the CPU target) and linked against the project's runtime library
// with an RUNPATH of $ORIGIN. A package (tools/common/Package.h) is a
// directory with the library, its interface.json and the runtime library:
// it runs where it is copied, from the Python package (xpu_opt.load) or any
// C caller. Kernels are embedded as device binaries.
//
//===----------------------------------------------------------------------===//

#include "xpu/Config/BuildPaths.h"
#include "xpu/Config/Version.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/InitAll.h"

#include "Compile.h"
#include "EntryPoints.h"
#include "Package.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;
using namespace mlir::xpu::run;

static llvm::cl::OptionCategory category("xpu-compile options");

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<input .mlir>"),
                                            llvm::cl::init("-"),
                                            llvm::cl::cat(category));

static llvm::cl::opt<std::string>
    outputFile("o",
               llvm::cl::desc("Output: the package directory (--emit=package) "
                              "or the file"),
               llvm::cl::Required, llvm::cl::value_desc("path"),
               llvm::cl::cat(category));

static llvm::cl::opt<std::string>
    target("target",
           llvm::cl::desc("Device to compile for: cpu, opencl, levelzero or "
                          "cuda (default cuda); the output needs the "
                          "target's runtime library and driver"),
           llvm::cl::init("cuda"), llvm::cl::cat(category));

static llvm::cl::opt<std::string> emit(
    "emit",
    llvm::cl::desc("What to write: package (default; a directory with the "
                   "shared library, interface.json and the runtime library), "
                   "shared (the shared library alone), exe (an executable "
                   "that runs @main), obj (the host object file), mlir (the "
                   "lowered module)"),
    llvm::cl::init("package"), llvm::cl::cat(category));

static llvm::cl::opt<std::string>
    function("function",
             llvm::cl::desc("The function a package or shared library exports "
                            "(default forward)"),
             llvm::cl::init("forward"), llvm::cl::cat(category));

static llvm::cl::opt<std::string>
    pipelineOptions("xpu-pipeline-options",
                    llvm::cl::desc("Options of the target pipeline, e.g. "
                                   "\"precision=bf16 reassociate=true\""),
                    llvm::cl::init(""), llvm::cl::cat(category));

static llvm::cl::opt<std::string>
    xpuChip("xpu-chip", llvm::cl::desc("(set from the preset table)"),
            llvm::cl::init(""), llvm::cl::cat(category));

static llvm::cl::opt<bool>
    xpuRemarks("xpu-remarks",
               llvm::cl::desc("Print what every xpu pass applied and refused"),
               llvm::cl::init(false), llvm::cl::cat(category));

static llvm::cl::opt<std::string> runtimeDir(
    "runtime-dir",
    llvm::cl::desc("Directory of the runtime libraries to link against and "
                   "copy (default: ../lib next to xpu-compile, else the build "
                   "tree)"),
    llvm::cl::init(""), llvm::cl::cat(category));

static llvm::cl::opt<std::string> interfaceFile(
    "interface",
    llvm::cl::desc("With --emit=shared: also write the package interface "
                   "(interface.json's contents) to this file"),
    llvm::cl::init(""), llvm::cl::cat(category));

static llvm::cl::opt<bool> copyRuntime(
    "copy-runtime",
    llvm::cl::desc("With --emit=shared or exe: also copy the runtime "
                   "libraries next to the output"),
    llvm::cl::init(false), llvm::cl::cat(category));

static llvm::cl::opt<std::string>
    linker("linker",
           llvm::cl::desc("C++ compiler driver used to link (default: c++)"),
           llvm::cl::init("c++"), llvm::cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "xpu-compile: " << message << "\n";
  return 1;
}

/// Prints diagnostics as file:line:col: severity: message.
static void printDiagnostic(Diagnostic &diag) {
  Location loc = diag.getLocation();
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
    llvm::errs() << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine()
                 << ":" << fileLoc.getColumn() << ": ";
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
}

/// For executables: @main becomes `xpu_main`, called by a C `main` that
/// returns 0, or 1 when a device runtime recorded an error (which it
/// printed): a failed run must not look like a passed one.
static LogicalResult addExecutableEntry(ModuleOp module, bool device) {
  auto main = module.lookupSymbol<LLVM::LLVMFuncOp>("main");
  if (!main)
    return module.emitError()
           << "xpu-compile: --emit=exe needs a function @main";
  if (main.getNumArguments() != 0 ||
      !isa<LLVM::LLVMVoidType>(main.getFunctionType().getReturnType()))
    return main.emitError() << "xpu-compile: --emit=exe needs @main to take "
                               "no arguments and return nothing";
  if (failed(SymbolTable(module).rename(main, "xpu_main")))
    return failure();
  OpBuilder b(module.getContext());
  b.setInsertionPointToEnd(module.getBody());
  Location loc = main.getLoc();
  auto i32 = b.getI32Type();
  auto i64 = b.getI64Type();
  auto ptr = LLVM::LLVMPointerType::get(module.getContext());
  LLVM::LLVMFuncOp lastError;
  if (device) {
    lastError = module.lookupSymbol<LLVM::LLVMFuncOp>("xpuRuntimeGetLastError");
    if (!lastError)
      lastError = LLVM::LLVMFuncOp::create(
          b, loc, "xpuRuntimeGetLastError",
          LLVM::LLVMFunctionType::get(i32, {ptr, i64}));
  }
  auto entry = LLVM::LLVMFuncOp::create(b, loc, "main",
                                        LLVM::LLVMFunctionType::get(i32, {}));
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  LLVM::CallOp::create(b, loc, main, ValueRange());
  Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
  Value status = zero;
  if (device) {
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    Value size = LLVM::ConstantOp::create(b, loc, i64, 0);
    Value length =
        LLVM::CallOp::create(b, loc, lastError, ValueRange{null, size})
            .getResult();
    Value failed =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::sgt, length, zero);
    Value one = LLVM::ConstantOp::create(b, loc, i32, 1);
    status = LLVM::SelectOp::create(b, loc, failed, one, zero);
  }
  LLVM::ReturnOp::create(b, loc, status);
  return success();
}

/// A temporary object file, removed when it goes out of scope.
namespace {
struct TempObject {
  llvm::SmallString<128> path;
  ~TempObject() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // Inline assembly (the AMX kernels' permission request) is assembled
  // into the object by the target's parser: without it LLVM aborts.
  llvm::InitializeNativeTargetAsmParser();
  // The pass manager's own flags (--mlir-print-ir-*, --mlir-timing, ...),
  // which compileModule applies.
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "xpu-compile " << XPU_VERSION_STRING << " (built against LLVM/MLIR "
       << XPU_LLVM_VERSION_STRING << ")\n";
  });
  xpuChip.setDescription(getXeChipHelp());
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "xpu-compile: compile an xpu / linalg module into a package, shared "
      "library or executable that needs only the xpu runtime and the "
      "device's driver\n");

  if (emit != "package" && emit != "shared" && emit != "exe" && emit != "obj" &&
      emit != "mlir")
    return fail("--emit must be package, shared, exe, obj or mlir, got '" +
                emit + "'");
  if (!interfaceFile.empty() && emit != "shared")
    return fail("--interface goes with --emit=shared (a package has its "
                "interface.json)");
  if (std::optional<std::string> bad = checkXeChip(xpuChip, target))
    return fail(*bad);

  DialectRegistry registry;
  xpu::registerAllXPU(registry);
  registerAllToLLVMIRTranslations(registry);
  registerAllGPUToLLVMIRTranslations(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  ScopedDiagnosticHandler handler(&context, [](Diagnostic &diag) {
    printDiagnostic(diag);
    for (Diagnostic &note : diag.getNotes())
      printDiagnostic(note);
    return success();
  });

  Location unknown = UnknownLoc::get(&context);
  FailureOr<const TargetInfo *> targetInfo =
      lookupTarget(target, unknown, "xpu-compile");
  if (failed(targetInfo))
    return 1;
  const TargetInfo &t = **targetInfo;
  bool device = *t.runtimeLibrary != 0;
  if (xpuRemarks && failed(xpu::enableXPURemarks(context)))
    return fail("could not enable remarks");

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputFile, &error);
  if (!input)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  // A package, a shared library or an object exports --function through
  // its entry wrapper; a program runs its @main.
  bool exports = emit != "exe";
  std::optional<EntryPlan> plan;
  if (exports && (emit != "mlir" || module->lookupSymbol(function))) {
    FailureOr<EntryPlan> checked =
        checkEntry(*module, function, {}, "xpu-compile", /*keepDynamic=*/true);
    if (failed(checked))
      return 1;
    plan = std::move(*checked);
  }
  CompileOptions compile;
  compile.target = &t;
  compile.pipelineOptions =
      packagePipelineOptions(t, pipelineOptions, plan.has_value());
  compile.tool = "xpu-compile";
  if (!xpuChip.empty()) {
    compile.pipelineOverride = "xpu-xe-pipeline";
    compile.pipelineOptions += " chip=" + xpuChip;
  }
  if (failed(compileModule(*module, compile, plan ? &*plan : nullptr)))
    return 1;
  if (emit == "exe" && failed(addExecutableEntry(*module, device)))
    return 1;
  if (emit == "mlir") {
    std::unique_ptr<llvm::ToolOutputFile> out =
        openOutputFile(outputFile, &error);
    if (!out)
      return fail(error);
    module->print(out->os());
    out->keep();
    return 0;
  }

  PackageInfo info;
  info.target = &t;
  info.pipeline =
      compile.pipelineOverride.empty() ? t.pipeline : compile.pipelineOverride;
  info.pipelineOptions = compile.pipelineOptions;
  info.producer = std::string("xpu-compile ") + XPU_VERSION_STRING +
                  " (LLVM/MLIR " + XPU_LLVM_VERSION_STRING + ")";
  EmitOptions options;
  options.nativeHost = !device;
  options.runtimeDir = runtimeDir.empty() ? runtimeLibraryDir() : runtimeDir;
  options.linker = linker;
  options.tool = "xpu-compile";
  if (emit == "package")
    return failed(writePackage(*module, *plan, info, outputFile, options)) ? 1
                                                                           : 0;
  if (emit == "obj")
    return failed(writeObject(*module, outputFile, options, info)) ? 1 : 0;

  TempObject object;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "xpu-compile", "o", fd, object.path))
    return fail("cannot create a temporary file: " + ec.message());
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  if (failed(writeObject(*module, object.path, options, info)))
    return 1;
  describeDeviceCode(*module, info);
  if (failed(linkObject(object.path, outputFile, emit == "exe",
                        callsRunnerUtils(*module), options, info, unknown)))
    return 1;
  if (copyRuntime) {
    StringRef outDir = llvm::sys::path::parent_path(outputFile);
    if (failed(copyLibraries(info, outDir, options, unknown)))
      return 1;
  }
  if (!interfaceFile.empty()) {
    std::unique_ptr<llvm::ToolOutputFile> out =
        openOutputFile(interfaceFile, &error);
    if (!out)
      return fail(error);
    out->os() << interfaceJSON(*plan, info);
    out->keep();
  }
  return 0;
}
