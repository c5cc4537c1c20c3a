//===- Package.h - a compiled function as a package -------------*- C++ -*-===//
//
// A package is a directory that runs where it is copied, without LLVM, MLIR
// or the compiler (the AOTInductor convention):
//
//   model.so          the compiled function: host code, and the kernels
//                     embedded as device binaries; RUNPATH $ORIGIN
//   interface.json    what a caller needs (below)
//   libxpu_<api>_runtime.so   the runtime it calls (device targets), and
//   libxpu_runner_utils.so    when the code calls the runner utilities
//
// interface.json ("format": "xpu-opt-package", "version": 1) holds the
// target and the chip the device code is for, the host the host code is for
// (triple, CPU and the CPU features it may use), the library and runtime
// file names, the pipeline and its options, the producer, and the plan of
// EntryPoints.h: the entry point (`_mlir_ciface___xpu_entry_<fn>`, inputs
// then caller-owned outputs, as memref descriptors), each input's shape,
// dtype and whether it is a weight (`xpu.weight`), the results, and the
// weight-packing split (`pack`). xpu-compile (every target) and
// `xpu-run --emit-package` (what the Python package compiles with) write it
// through this file; a loader refuses another format, version, target or
// chip.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_TOOLS_COMMON_PACKAGE_H
#define XPU_TOOLS_COMMON_PACKAGE_H

#include "Compile.h"
#include "EntryPoints.h"

#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::xpu::run {

/// The version of interface.json; a loader refuses any other.
inline constexpr int kInterfaceVersion = 1;
/// The file names inside a package.
inline constexpr const char *kPackageLibrary = "model.so";
inline constexpr const char *kPackageInterface = "interface.json";
/// The runner utilities (runtime/RunnerUtils: printMemref*, memrefCopy).
inline constexpr const char *kRunnerUtilsLibrary = "libxpu_runner_utils.so";

/// What a package's interface records besides the plan.
struct PackageInfo {
  const TargetInfo *target = nullptr;
  /// The device code's chip: sm_90a for CUDA, pvc or bmg for Intel's XeVM
  /// code, `spirv` for the generic SPIR-V kernels (any OpenCL or Level Zero
  /// device), the host CPU's name on the CPU.
  std::string chip;
  /// How the device code is embedded: bin (cubin), isa (PTX, compiled by the
  /// driver), fatbin, spirv; `host` on the CPU.
  std::string binaryFormat;
  /// The host code: target triple, CPU and the features it may use.
  std::string hostTriple, hostCPU;
  std::vector<std::string> hostFeatures;
  /// The pipeline and its options.
  std::string pipeline, pipelineOptions;
  /// The tool and version that wrote the package.
  std::string producer;
  /// Shared libraries the package carries next to model.so.
  std::vector<std::string> libraries;
};

/// How to write the object and link it.
struct EmitOptions {
  /// Optimization level of the host code (0-3).
  unsigned optLevel = 2;
  /// Compile the host code for this machine's CPU (every feature it has)
  /// rather than the architecture's baseline. The CPU target's code is the
  /// computation itself and wants it; a device target's host code only
  /// launches kernels and should run on any host of the architecture.
  bool nativeHost = false;
  /// Directory of the runtime libraries to link against and copy.
  std::string runtimeDir;
  /// C++ compiler driver used to link.
  std::string linker = "c++";
  /// The tool, for messages.
  std::string tool = "xpu-compile";
};

/// Pipeline options for a target with the defaults a package needs: CUDA
/// functions whose caller passes and receives device memory get
/// `device-results=true` unless the options say otherwise.
std::string packagePipelineOptions(const TargetInfo &target,
                                   StringRef pipelineOptions,
                                   bool functionEntry);

/// Fills `info.chip` and `info.binaryFormat` from the gpu.binary ops of the
/// lowered module (the host CPU on the CPU target).
void describeDeviceCode(ModuleOp lowered, PackageInfo &info);

/// Translates the lowered module to LLVM IR, optimizes it and writes a PIC
/// object file; fills the host fields of `info`.
LogicalResult writeObject(ModuleOp lowered, StringRef path,
                          const EmitOptions &options, PackageInfo &info);

/// Links `object` into a shared library (or, with `executable`, a program)
/// against the runtime of `info.target` and, when the code calls them, the
/// runner utilities; RUNPATH $ORIGIN. Fills `info.libraries`.
LogicalResult linkObject(StringRef object, StringRef output, bool executable,
                         bool usesRunnerUtils, const EmitOptions &options,
                         PackageInfo &info, Location loc);

/// True if the lowered module calls functions of the runner utilities.
bool callsRunnerUtils(ModuleOp lowered);

/// Copies `info.libraries` from `options.runtimeDir` into `dir`.
LogicalResult copyLibraries(const PackageInfo &info, StringRef dir,
                            const EmitOptions &options, Location loc);

/// The interface of a package: `plan` and `info` as JSON text.
std::string interfaceJSON(const EntryPlan &plan, const PackageInfo &info);

/// Writes a package for the lowered module (compiled with `plan`'s entry
/// wrappers) into `dir` (created if missing; files of an earlier package
/// there are replaced).
LogicalResult writePackage(ModuleOp lowered, const EntryPlan &plan,
                           PackageInfo &info, StringRef dir,
                           const EmitOptions &options);

} // namespace mlir::xpu::run

#endif // XPU_TOOLS_COMMON_PACKAGE_H
