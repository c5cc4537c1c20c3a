//===- XPUPlugin.cpp - the xpu dialect and passes for stock mlir-opt ------===//
//
// One shared library that is both a dialect plugin and a pass plugin:
//
//   mlir-opt --load-dialect-plugin=XPUPlugin.so --load-pass-plugin=XPUPlugin.so
//            in.mlir --xpu-cpu-pipeline
//
// The dialect entry point adds the xpu dialect (and the upstream dialects and
// interface models the xpu pipelines use) to the host's registry; the pass
// entry point registers every xpu pass and pipeline. Both entry points first
// check that the host runs the LLVM/MLIR the plugin was built against
// (HostCompatibility.h) and refuse to load, with the reason, when it does not.
//
//===----------------------------------------------------------------------===//

#include "HostCompatibility.h"

#include "xpu/Config/Version.h"
#include "xpu/InitAll.h"
#include "xpu/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

#include <cstdint>
#include <mutex>
#include <string>

using namespace mlir;

namespace {
/// The release this plugin claims to be built against. The tests build a
/// copy stamped with another release to check the refusal path.
xpu::plugin::BuiltAgainst builtAgainst() {
#ifdef XPU_PLUGIN_TEST_STAMP_LLVM_MAJOR
  return {XPU_PLUGIN_TEST_STAMP_LLVM_MAJOR, XPU_PLUGIN_TEST_STAMP_LLVM_MINOR,
          XPU_PLUGIN_TEST_STAMP_LLVM_PATCH};
#else
  return {LLVM_VERSION_MAJOR, LLVM_VERSION_MINOR, LLVM_VERSION_PATCH};
#endif
}

/// The API version to report: the host refuses the plugin (and never calls
/// into it) when this differs from its own MLIR_PLUGIN_API_VERSION.
uint32_t apiVersionForHost() {
  std::string problems = xpu::plugin::checkHostCompatibility(builtAgainst());
  if (problems.empty())
    return MLIR_PLUGIN_API_VERSION;
  xpu::plugin::reportIncompatibleHost(problems);
  return 0;
}

void registerDialects(DialectRegistry *registry) {
  xpu::registerXPUDialect(*registry);
  // The host may be a minimal tool: the xpu pipelines need the upstream
  // dialects and their interface models (bufferization, inlining, ...).
  // Inserting what the host already has is a no-op.
  registerAllDialects(*registry);
  registerAllExtensions(*registry);
}

void registerPassesAndPipelines() {
  // Loading the plugin twice must not register anything twice.
  static std::once_flag once;
  std::call_once(once, [] {
    xpu::registerXPUPasses();
    xpu::registerXPUPipelines();
  });
}
} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {apiVersionForHost(), "xpu", XPU_VERSION_STRING, registerDialects};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {apiVersionForHost(), "xpu", XPU_VERSION_STRING,
          registerPassesAndPipelines};
}
