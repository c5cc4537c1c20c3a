//===- Package.cpp - a compiled function as a self-contained package ------===//

#include "Package.h"

#include "xpu/Config/Version.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/XeVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <optional>

using namespace mlir;
using namespace mlir::xpu::run;

std::string mlir::xpu::run::packagePipelineOptions(const TargetInfo &target,
                                                   StringRef pipelineOptions,
                                                   bool functionEntry) {
  std::string options = pipelineOptions.str();
  // The entry wrapper copies the results into the caller's device buffers:
  // the buffers @F returns to it need not be managed memory.
  if (functionEntry && StringRef(target.name) == "cuda" &&
      !StringRef(options).contains("device-results"))
    options += " device-results=true";
  return StringRef(options).trim().str();
}

void mlir::xpu::run::describeDeviceCode(ModuleOp lowered, PackageInfo &info) {
  if (!*info.target->runtimeLibrary) {
    info.chip = info.hostCPU;
    info.binaryFormat = "host";
    return;
  }
  // Generic SPIR-V unless a binary names its chip.
  info.chip = StringRef(info.target->name) == "cuda" ? "" : "spirv";
  info.binaryFormat = StringRef(info.target->name) == "cuda" ? "" : "spirv";
  lowered.walk([&](gpu::BinaryOp binary) {
    for (Attribute a : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(a);
      if (!object)
        continue;
      if (auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget())) {
        info.chip = nvvm.getChip().str();
        switch (object.getFormat()) {
        case gpu::CompilationTarget::Assembly:
          info.binaryFormat = "isa";
          break;
        case gpu::CompilationTarget::Fatbin:
          info.binaryFormat = "fatbin";
          break;
        default:
          info.binaryFormat = "bin";
          break;
        }
      } else if (auto xevm =
                     dyn_cast<xevm::XeVMTargetAttr>(object.getTarget())) {
        info.chip = xevm.getChip().str();
      }
    }
  });
}

bool mlir::xpu::run::callsRunnerUtils(ModuleOp lowered) {
  bool calls = false;
  lowered.walk([&](LLVM::LLVMFuncOp fn) {
    StringRef name = fn.getSymName();
    name.consume_front("_mlir_ciface_");
    if (fn.isExternal() &&
        (name == "memrefCopy" || name.starts_with("printMemref") ||
         name == "printF32" || name == "printF64" || name == "printI64" ||
         name == "printU64" || name == "printNewline" || name == "printComma" ||
         name == "printOpen" || name == "printClose" || name == "printString"))
      calls = true;
  });
  return calls;
}

/// The host's CPU features LLVM detects, as "+name" strings, sorted.
static std::vector<std::string> hostFeatures() {
  std::vector<std::string> features;
  for (const auto &f : llvm::sys::getHostCPUFeatures())
    if (f.second)
      features.push_back(f.first().str());
  llvm::sort(features);
  return features;
}

LogicalResult mlir::xpu::run::writeObject(ModuleOp lowered, StringRef path,
                                          const EmitOptions &options,
                                          PackageInfo &info) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(lowered, llvmContext, "xpu-module");
  if (!llvmModule)
    return lowered.emitError()
           << options.tool << ": cannot translate the lowered module to "
           << "LLVM IR";
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!t)
    return lowered.emitError() << options.tool << ": " << error;
  std::string cpu, features;
  info.hostFeatures.clear();
  if (options.nativeHost) {
    cpu = llvm::sys::getHostCPUName().str();
    info.hostFeatures = hostFeatures();
    for (const std::string &f : info.hostFeatures)
      features += (features.empty() ? "+" : ",+") + f;
  } else {
    cpu = triple.isX86() ? "x86-64" : "generic";
  }
  llvm::TargetOptions targetOptions;
  auto level =
      static_cast<llvm::CodeGenOptLevel>(std::min(options.optLevel, 3u));
  std::unique_ptr<llvm::TargetMachine> machine(
      t->createTargetMachine(triple, cpu, features, targetOptions,
                             llvm::Reloc::PIC_, std::nullopt, level));
  if (!machine)
    return lowered.emitError()
           << options.tool << ": cannot create a target machine for "
           << triple.str() << " (" << cpu << ")";
  ExecutionEngine::setupTargetTripleAndDataLayout(llvmModule.get(),
                                                  machine.get());
  auto optimize = makeOptimizingTransformer(std::min(options.optLevel, 3u), 0,
                                            machine.get());
  if (llvm::Error e = optimize(llvmModule.get()))
    return lowered.emitError() << options.tool << ": cannot optimize the "
                               << "host code: " << llvm::toString(std::move(e));
  std::error_code ec;
  llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return lowered.emitError() << options.tool << ": cannot write '" << path
                               << "': " << ec.message();
  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, out.os(), nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return lowered.emitError()
           << options.tool << ": the target cannot emit object files";
  codegen.run(*llvmModule);
  out.keep();
  info.hostTriple = triple.str();
  info.hostCPU = cpu;
  return success();
}

LogicalResult mlir::xpu::run::linkObject(StringRef object, StringRef output,
                                         bool executable, bool usesRunnerUtils,
                                         const EmitOptions &options,
                                         PackageInfo &info, Location loc) {
  llvm::ErrorOr<std::string> driver =
      llvm::sys::findProgramByName(options.linker);
  if (!driver)
    return emitError(loc) << options.tool << ": cannot find the linker driver '"
                          << options.linker << "' (--linker, or install g++)";
  info.libraries.clear();
  SmallVector<std::string> args = {*driver};
  if (!executable)
    args.push_back("-shared");
  // Every symbol the code calls must be defined by the libraries it names:
  // a missing one is an error here, not when the package is loaded.
  args.append({"-o", output.str(), object.str(), "-Wl,-z,defs",
               "-L" + options.runtimeDir});
  StringRef runtime = info.target->runtimeLibrary;
  if (!runtime.empty()) {
    // libxpu_<api>_runtime.so -> -lxpu_<api>_runtime
    args.push_back(("-l" + runtime.drop_front(3).drop_back(3)).str());
    info.libraries.push_back(runtime.str());
  }
  if (usesRunnerUtils) {
    args.push_back("-lxpu_runner_utils");
    info.libraries.push_back(kRunnerUtilsLibrary);
  }
  args.append(
      {"-lm", "-lpthread", "-Wl,-rpath,$ORIGIN", "-Wl,--enable-new-dtags"});
  // The runtime's own dependency (libcuda.so.1, libOpenCL.so.1, ...) is
  // resolved where the program runs, not here.
  if (executable)
    args.push_back("-Wl,--allow-shlib-undefined");
  SmallVector<StringRef> argRefs(args.begin(), args.end());
  llvm::SmallString<128> log;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("xpu-link", "log", fd, log))
    return emitError(loc) << options.tool
                          << ": cannot create a temporary file: "
                          << ec.message();
  llvm::sys::Process::SafelyCloseFileDescriptor(fd);
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(log),
                                          StringRef(log)};
  std::string execError;
  int status = llvm::sys::ExecuteAndWait(*driver, argRefs, std::nullopt,
                                         redirects, 0, 0, &execError);
  std::string text;
  if (auto buffer = llvm::MemoryBuffer::getFile(log))
    text = (*buffer)->getBuffer().trim().str();
  llvm::sys::fs::remove(log);
  if (status != 0) {
    InFlightDiagnostic diag = emitError(loc)
                              << options.tool << ": linking failed ("
                              << llvm::join(args, " ") << ")";
    if (!execError.empty())
      diag << ": " << execError;
    if (!text.empty())
      diag << ":\n" << text;
    return failure();
  }
  return success();
}

LogicalResult mlir::xpu::run::copyLibraries(const PackageInfo &info,
                                            StringRef dir,
                                            const EmitOptions &options,
                                            Location loc) {
  for (const std::string &lib : info.libraries) {
    llvm::SmallString<256> from(options.runtimeDir),
        to(dir.empty() ? "." : dir);
    llvm::sys::path::append(from, lib);
    llvm::sys::path::append(to, lib);
    if (llvm::sys::fs::equivalent(from, to))
      continue;
    if (std::error_code ec = llvm::sys::fs::copy_file(from, to))
      return emitError(loc) << options.tool << ": cannot copy '" << from
                            << "' to '" << to << "': " << ec.message();
  }
  return success();
}

std::string mlir::xpu::run::interfaceJSON(const EntryPlan &plan,
                                          const PackageInfo &info) {
  llvm::json::Object o{
      {"format", "xpu-opt-package"},
      {"version", kInterfaceVersion},
      {"target", info.target->name},
      {"chip", info.chip},
      {"binary_format", info.binaryFormat},
      {"host",
       llvm::json::Object{{"triple", info.hostTriple},
                          {"cpu", info.hostCPU},
                          {"features", llvm::json::Array(info.hostFeatures)}}},
      {"library", kPackageLibrary},
      {"libraries", llvm::json::Array(info.libraries)},
      {"pipeline", info.pipeline},
      {"pipeline_options", info.pipelineOptions},
      {"producer", info.producer}};
  for (auto &kv : planToJSON(plan))
    o[kv.first] = std::move(kv.second);
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(o))) << "\n";
  return s;
}

LogicalResult mlir::xpu::run::writePackage(ModuleOp lowered,
                                           const EntryPlan &plan,
                                           PackageInfo &info, StringRef dir,
                                           const EmitOptions &options) {
  Location loc = lowered.getLoc();
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return emitError(loc) << options.tool << ": cannot create the package "
                          << "directory '" << dir << "': " << ec.message();
  llvm::SmallString<256> object(dir), library(dir), interface(dir);
  llvm::sys::path::append(object, "model.o");
  llvm::sys::path::append(library, kPackageLibrary);
  llvm::sys::path::append(interface, kPackageInterface);
  if (failed(writeObject(lowered, object, options, info)))
    return failure();
  describeDeviceCode(lowered, info);
  LogicalResult linked =
      linkObject(object, library, /*executable=*/false,
                 callsRunnerUtils(lowered), options, info, loc);
  llvm::sys::fs::remove(object);
  if (failed(linked) || failed(copyLibraries(info, dir, options, loc)))
    return failure();
  std::error_code ec;
  llvm::ToolOutputFile out(interface, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return emitError(loc) << options.tool << ": cannot write '"
                          << interface << "': " << ec.message();
  out.os() << interfaceJSON(plan, info);
  out.keep();
  return success();
}
