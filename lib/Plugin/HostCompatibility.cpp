//===- HostCompatibility.cpp - can the xpu plugin run in this process? ----===//

#include "HostCompatibility.h"

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

using namespace mlir::xpu::plugin;

namespace {
/// Shared libraries of LLVM and MLIR mapped into the process, by real path.
struct MappedLibraries {
  std::set<std::string> llvm;
  std::set<std::string> mlir;
};

bool startsWith(const char *s, const char *prefix) {
  return std::strncmp(s, prefix, std::strlen(prefix)) == 0;
}

int collectLibrary(struct dl_phdr_info *info, size_t, void *data) {
  const char *path = info->dlpi_name;
  if (!path || !*path)
    return 0;
  const char *slash = std::strrchr(path, '/');
  const char *base = slash ? slash + 1 : path;
  auto *libs = static_cast<MappedLibraries *>(data);
  std::set<std::string> *into = nullptr;
  // libLLVM.so.22.1, libLLVM-15.so.1; libMLIR.so.22.1. Not the component
  // libraries of other projects that merely start with the same letters.
  if (startsWith(base, "libLLVM.so") || startsWith(base, "libLLVM-"))
    into = &libs->llvm;
  else if (startsWith(base, "libMLIR.so"))
    into = &libs->mlir;
  if (!into)
    return 0;
  char resolved[PATH_MAX];
  into->insert(realpath(path, resolved) ? std::string(resolved)
                                        : std::string(path));
  return 0;
}

std::string join(const std::set<std::string> &paths) {
  std::string out;
  for (const std::string &p : paths)
    out += (out.empty() ? "" : ", ") + p;
  return out;
}

std::string versionString(unsigned major, unsigned minor, unsigned patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." +
         std::to_string(patch);
}
} // namespace

std::string mlir::xpu::plugin::checkHostCompatibility(BuiltAgainst built) {
  std::string problems;
  std::string builtVersion =
      versionString(built.major, built.minor, built.patch);

  // The host's LLVM release. RTLD_DEFAULT searches the program's global
  // scope in load order: the executable and its own libraries come before
  // anything this plugin brought in.
  using GetVersionFn = void (*)(unsigned *, unsigned *, unsigned *);
  if (auto getVersion = reinterpret_cast<GetVersionFn>(
          dlsym(RTLD_DEFAULT, "LLVMGetVersion"))) {
    unsigned major = 0, minor = 0, patch = 0;
    getVersion(&major, &minor, &patch);
    if (major != built.major || minor != built.minor)
      problems += "it was built against LLVM/MLIR " + builtVersion +
                  " but this program runs LLVM " +
                  versionString(major, minor, patch) + "\n";
  }

  MappedLibraries libs;
  dl_iterate_phdr(collectLibrary, &libs);
  if (libs.mlir.size() > 1)
    problems += "this process holds more than one MLIR library (" +
                join(libs.mlir) + ")\n";
  if (libs.llvm.size() > 1)
    problems += "this process holds more than one LLVM library (" +
                join(libs.llvm) + ")\n";
  return problems;
}

void mlir::xpu::plugin::reportIncompatibleHost(const std::string &problems) {
  // Where this plugin was loaded from, for the message.
  Dl_info self;
  const char *path = "the xpu plugin";
  if (dladdr(reinterpret_cast<void *>(&reportIncompatibleHost), &self) &&
      self.dli_fname)
    path = self.dli_fname;
  std::fprintf(
      stderr, "error: xpu plugin '%s' cannot be used by this program:\n", path);
  std::string rest = problems;
  size_t start = 0;
  while (start < rest.size()) {
    size_t end = rest.find('\n', start);
    if (end == std::string::npos)
      end = rest.size();
    std::fprintf(stderr, "  %s\n", rest.substr(start, end - start).c_str());
    start = end + 1;
  }
  std::fprintf(stderr,
               "  build the plugin against the MLIR this program uses "
               "(find_package(MLIR) from the same installation), or use "
               "xpu-opt\n");
  std::fflush(stderr);
}
