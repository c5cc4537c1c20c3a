//===- xpu-compile.cpp - compile a module to a standalone library ---------===//
//
// Ahead-of-time compilation for machines without LLVM or MLIR:
//
//   xpu-compile model.mlir --target=cuda -o model.so        (shared library)
//   xpu-compile prog.mlir --target=cuda --emit=exe -o prog  (@main program)
//
// The module goes through the target's pipeline (xpu-nvvm-pipeline), every
// public function gets a C interface (`_mlir_ciface_<fn>`, taking and
// returning memref descriptors by pointer: `<fn>`, `<fn>.pack`,
// `<fn>.packed`), the host code is compiled for this machine and linked
// against the project's runtime library (libxpu_cuda_runtime.so, which needs
// libcuda alone) with an rpath of $ORIGIN, so the output runs where it and
// the runtime library are copied together. Kernels are embedded cubins.
//
//===----------------------------------------------------------------------===//

#include "xpu/Config/BuildPaths.h"
#include "xpu/Config/Version.h"
#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/InitAll.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <optional>
#include <string>

using namespace mlir;

static llvm::cl::OptionCategory category("xpu-compile options");

static llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                            llvm::cl::desc("<input .mlir>"),
                                            llvm::cl::init("-"),
                                            llvm::cl::cat(category));

static llvm::cl::opt<std::string> outputFile("o", llvm::cl::desc("Output file"),
                                             llvm::cl::Required,
                                             llvm::cl::value_desc("file"),
                                             llvm::cl::cat(category));

static llvm::cl::opt<std::string>
    target("target",
           llvm::cl::desc("Device to compile for: cuda (xpu-nvvm-pipeline; "
                          "the output needs libxpu_cuda_runtime.so and "
                          "libcuda)"),
           llvm::cl::init("cuda"), llvm::cl::cat(category));

static llvm::cl::opt<std::string>
    emit("emit",
         llvm::cl::desc("What to write: shared (default; a shared library "
                        "with the C interfaces), exe (an executable that "
                        "runs @main), obj (the host object file), mlir (the "
                        "lowered module)"),
         llvm::cl::init("shared"), llvm::cl::cat(category));

static llvm::cl::opt<std::string> pipelineOptions(
    "xpu-pipeline-options",
    llvm::cl::desc("Options of the target pipeline, e.g. "
                   "\"chip=sm_90 precision=bf16 device-results=true\""),
    llvm::cl::init(""), llvm::cl::cat(category));

static llvm::cl::opt<bool>
    xpuRemarks("xpu-remarks",
               llvm::cl::desc("Print what every xpu pass applied and refused"),
               llvm::cl::init(false), llvm::cl::cat(category));

static llvm::cl::opt<std::string> runtimeDir(
    "runtime-dir",
    llvm::cl::desc("Directory of libxpu_cuda_runtime.so to link against "
                   "(default: ../lib next to xpu-compile, else the build "
                   "tree)"),
    llvm::cl::init(""), llvm::cl::cat(category));

static llvm::cl::opt<std::string> interfaceFile(
    "interface",
    llvm::cl::desc("Also write the C interfaces (each public function's "
                   "memref arguments and results, after xpu-optimize: "
                   "<fn>.pack and <fn>.packed included) to this JSON file"),
    llvm::cl::init(""), llvm::cl::cat(category));

static llvm::cl::opt<bool> copyRuntime(
    "copy-runtime",
    llvm::cl::desc("Also copy the runtime libraries next to the output"),
    llvm::cl::init(false), llvm::cl::cat(category));

static llvm::cl::opt<std::string>
    linker("linker",
           llvm::cl::desc("C++ compiler driver used to link (default: c++)"),
           llvm::cl::init("c++"), llvm::cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::errs() << "xpu-compile: " << message << "\n";
  return 1;
}

/// The directory holding the runtime libraries.
static std::string findRuntimeDir(const char *argv0) {
  if (!runtimeDir.empty())
    return runtimeDir;
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&findRuntimeDir));
  llvm::SmallString<256> dir(
      llvm::sys::path::parent_path(llvm::sys::path::parent_path(exe)));
  llvm::sys::path::append(dir, "lib");
  llvm::SmallString<256> lib(dir);
  llvm::sys::path::append(lib, "libxpu_cuda_runtime.so");
  if (!exe.empty() && llvm::sys::fs::exists(lib))
    return std::string(dir);
  return XPU_RUNTIME_LIBRARY_DIR;
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

/// Writes the signatures of the C interfaces of `module` (on tensors, after
/// xpu-optimize, so `<fn>.pack` and `<fn>.packed` are there) as JSON: for
/// each function, the shapes and element types of its arguments and
/// results (the memref descriptors its `_mlir_ciface_` wrapper takes, results
/// first through one pointer) and, for an argument that is an argument of
/// the original function, its position there (`"arg"`), so that callers know
/// which of `<fn>.packed`'s arguments are inputs or weights and which are
/// the results of `<fn>.pack`.
static LogicalResult writeInterface(ModuleOp module,
                                    const xpu::XPUNVVMPipelineOptions &nvvm) {
  OwningOpRef<ModuleOp> clone = module.clone();
  // Each argument remembers its position in its function, through the
  // argument attributes that xpu-outline-weight-pack copies to <fn>.pack and
  // <fn>.packed.
  MLIRContext *ctx = module.getContext();
  StringRef argAttr = "c_interface.arg";
  for (auto func : clone->getOps<func::FuncOp>())
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.setArgAttr(i, argAttr,
                      IntegerAttr::get(IntegerType::get(ctx, 64), i));
  // The pipeline's own front end, so that <fn>.pack and <fn>.packed have
  // the arguments the library's do.
  PassManager pm(ctx);
  xpu::XPUNVVMPipelineOptions frontEnd;
  frontEnd.copyOptionValuesFrom(nvvm);
  frontEnd.cInterfaces = true;
  xpu::addXPUNVVMFrontEnd(pm, frontEnd);
  if (failed(pm.run(*clone)))
    return failure();
  std::string error;
  std::unique_ptr<llvm::ToolOutputFile> out =
      openOutputFile(interfaceFile, &error);
  if (!out) {
    llvm::errs() << "xpu-compile: " << error << "\n";
    return failure();
  }
  llvm::raw_ostream &os = out->os();
  auto printTypes = [&](TypeRange types, func::FuncOp argsOf) {
    os << "[";
    llvm::interleaveComma(llvm::enumerate(types), os, [&](auto it) {
      Type t = it.value();
      auto shaped = dyn_cast<ShapedType>(t);
      os << "{\"shape\": [";
      if (shaped)
        llvm::interleaveComma(shaped.getShape(), os);
      os << "], \"type\": \"";
      getElementTypeOrSelf(t).print(os);
      os << "\"";
      if (argsOf)
        if (auto from =
                argsOf.getArgAttrOfType<IntegerAttr>(it.index(), argAttr))
          os << ", \"arg\": " << from.getInt();
      os << "}";
    });
    os << "]";
  };
  os << "{\"functions\": [\n";
  bool first = true;
  for (auto func : clone->getOps<func::FuncOp>()) {
    if (!func->hasAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName()))
      continue;
    os << (first ? "" : ",\n") << "  {\"name\": \"" << func.getSymName()
       << "\", \"args\": ";
    printTypes(func.getArgumentTypes(), func);
    os << ", \"results\": ";
    printTypes(func.getResultTypes(), func::FuncOp());
    os << "}";
    first = false;
  }
  os << "\n]}\n";
  out->keep();
  return success();
}

/// For executables: @main becomes `xpu_main`, called by a C `main` that
/// returns 0 (the lowered @main returns void).
static LogicalResult addExecutableEntry(ModuleOp module) {
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
  auto entry = LLVM::LLVMFuncOp::create(b, loc, "main",
                                        LLVM::LLVMFunctionType::get(i32, {}));
  Block *body = entry.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  LLVM::CallOp::create(b, loc, main, ValueRange());
  Value zero = LLVM::ConstantOp::create(b, loc, i32, 0);
  LLVM::ReturnOp::create(b, loc, zero);
  return success();
}

static LogicalResult writeObject(llvm::Module &module, StringRef path) {
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!t) {
    llvm::errs() << "xpu-compile: " << error << "\n";
    return failure();
  }
  llvm::TargetOptions options;
  std::unique_ptr<llvm::TargetMachine> machine(t->createTargetMachine(
      triple, "generic", "", options, llvm::Reloc::PIC_));
  module.setDataLayout(machine->createDataLayout());
  module.setTargetTriple(triple);
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    llvm::errs() << "xpu-compile: cannot write '" << path
                 << "': " << ec.message() << "\n";
    return failure();
  }
  llvm::legacy::PassManager pm;
  if (machine->addPassesToEmitFile(pm, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    llvm::errs() << "xpu-compile: the target cannot emit object files\n";
    return failure();
  }
  pm.run(module);
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "xpu-compile " << XPU_VERSION_STRING << " (built against LLVM/MLIR "
       << XPU_LLVM_VERSION_STRING << ")\n";
  });
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "xpu-compile: compile an xpu / linalg module into a shared library or "
      "executable that needs only the xpu runtime and the GPU driver\n");

  if (target != "cuda")
    return fail("target '" + target + "' is not supported (available: cuda)");
  if (emit != "shared" && emit != "exe" && emit != "obj" && emit != "mlir")
    return fail("--emit must be shared, exe, obj or mlir, got '" + emit + "'");
  // Parsed and validated: one error that names the option and the value.
  auto options = xpu::XPUNVVMPipelineOptions::createFromString(pipelineOptions);
  if (!options)
    return 1;

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

  // C interfaces for every entry point, <fn>.pack and <fn>.packed included.
  options->cInterfaces = true;
  if (!interfaceFile.empty() && failed(writeInterface(*module, *options)))
    return 1;
  PassManager pm(&context);
  xpu::buildXPUNVVMPipeline(pm, *options);
  if (failed(pm.run(*module)))
    return 1;
  if (emit == "exe" && failed(addExecutableEntry(*module)))
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

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext, "xpu-module");
  if (!llvmModule)
    return fail("translation to LLVM IR failed");

  std::string object = outputFile;
  llvm::SmallString<128> temp;
  if (emit != "obj") {
    int fd;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("xpu-compile", "o", fd, temp))
      return fail("cannot create a temporary file: " + ec.message());
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    object = std::string(temp);
  }
  if (failed(writeObject(*llvmModule, object)))
    return 1;
  if (emit == "obj")
    return 0;

  // Link against the runtime, which is found next to the output at run time.
  std::string libDir = findRuntimeDir(argv[0]);
  llvm::ErrorOr<std::string> driver = llvm::sys::findProgramByName(linker);
  if (!driver) {
    llvm::sys::fs::remove(object);
    return fail("cannot find the linker driver '" + linker + "'");
  }
  SmallVector<std::string> args = {*driver};
  if (emit == "shared")
    args.push_back("-shared");
  args.append({"-o", outputFile, object, "-L" + libDir, "-lxpu_cuda_runtime",
               "-Wl,-rpath,$ORIGIN", "-Wl,--enable-new-dtags"});
  // The runtime's own dependency (libcuda.so.1) is resolved where the
  // program runs, not here.
  if (emit == "exe")
    args.append({"-lxpu_runner_utils", "-Wl,--allow-shlib-undefined"});
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  std::string linkError;
  int status = llvm::sys::ExecuteAndWait(*driver, argRefs, std::nullopt, {}, 0,
                                         0, &linkError);
  llvm::sys::fs::remove(object);
  if (status != 0)
    return fail("linking failed (" + llvm::join(args, " ") + ")" +
                (linkError.empty() ? "" : ": " + linkError));

  if (copyRuntime) {
    StringRef outDir = llvm::sys::path::parent_path(outputFile);
    SmallVector<StringRef> libs = {"libxpu_cuda_runtime.so"};
    if (emit == "exe")
      libs.push_back("libxpu_runner_utils.so");
    for (StringRef lib : libs) {
      llvm::SmallString<256> from(libDir), to(outDir.empty() ? "." : outDir);
      llvm::sys::path::append(from, lib);
      llvm::sys::path::append(to, lib);
      if (llvm::sys::fs::equivalent(from, to))
        continue;
      if (std::error_code ec = llvm::sys::fs::copy_file(from, to))
        return fail("cannot copy '" + from + "' to '" + to +
                    "': " + ec.message());
    }
  }
  return 0;
}
