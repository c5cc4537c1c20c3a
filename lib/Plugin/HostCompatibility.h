//===- HostCompatibility.h - may the xpu plugin run here? ------*- C++ -*-===//
//
// Private to lib/Plugin. The plugin is C++ code compiled against one
// particular LLVM/MLIR; loaded into a program that runs another one it would
// register its passes into a registry it does not share with the host, or
// crash on the first ABI difference. These checks run when the host asks for
// the plugin's entry point, before anything of the plugin is used, and use
// only the C library so that they work whichever LLVM the host runs.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_LIB_PLUGIN_HOSTCOMPATIBILITY_H
#define XPU_LIB_PLUGIN_HOSTCOMPATIBILITY_H

#include <string>

namespace mlir::xpu::plugin {

/// The LLVM/MLIR release a plugin was compiled against.
struct BuiltAgainst {
  unsigned major;
  unsigned minor;
  unsigned patch;
};

/// Returns an empty string when the plugin can run in this process, else
/// the reasons it cannot, one per line:
///  * the host's LLVM (`LLVMGetVersion`, looked up in the program's global
///    scope, where the host's own libLLVM comes first) is another release
///    than `built` (major.minor: patch releases keep the ABI);
///  * more than one libMLIR or libLLVM shared library is mapped, i.e. the
///    plugin pulled in a copy of its own next to the host's.
/// A host that links LLVM statically and exports none of its symbols cannot
/// be checked this way; such a host cannot use a plugin built against
/// libMLIR.so anyway.
std::string checkHostCompatibility(BuiltAgainst built);

/// Prints `problems` to stderr as the reason the plugin refuses to load.
void reportIncompatibleHost(const std::string &problems);

} // namespace mlir::xpu::plugin

#endif // XPU_LIB_PLUGIN_HOSTCOMPATIBILITY_H
