//===- SPIRVBuildOptions.h - compiler options a SPIR-V module carries -----===//
//
// Private to the xpu runtimes (plain C++, no LLVM). xpu-embed-xe-build-options
// writes a kernel's compiler options (e.g. -ze-opt-large-register-file for a
// 256-GRF kernel) into its SPIR-V as `OpModuleProcessed "xpu.build-options:
// <options>"`; the Level Zero and OpenCL runtimes pass them to the driver.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_RUNTIME_COMMON_SPIRVBUILDOPTIONS_H
#define XPU_RUNTIME_COMMON_SPIRVBUILDOPTIONS_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace xpu::runtime {

/// The options embedded in the SPIR-V module `data` of `size` bytes, or "".
inline std::string getEmbeddedBuildOptions(const void *data, size_t size) {
  static const char prefix[] = "xpu.build-options: ";
  const auto *bytes = static_cast<const uint8_t *>(data);
  size_t numWords = size / 4;
  auto word = [&](size_t i) {
    const uint8_t *w = bytes + 4 * i;
    return uint32_t(w[0]) | uint32_t(w[1]) << 8 | uint32_t(w[2]) << 16 |
           uint32_t(w[3]) << 24;
  };
  if (numWords < 5 || word(0) != 0x07230203u)
    return "";
  for (size_t at = 5; at < numWords;) {
    uint32_t count = word(at) >> 16, opcode = word(at) & 0xffffu;
    if (count == 0 || at + count > numWords)
      return "";
    if (opcode == 330) { // OpModuleProcessed
      const char *text = reinterpret_cast<const char *>(bytes + 4 * (at + 1));
      size_t maxLength = 4 * (count - 1);
      std::string value(text, strnlen(text, maxLength));
      if (value.rfind(prefix, 0) == 0)
        return value.substr(sizeof(prefix) - 1);
    }
    at += count;
  }
  return "";
}

} // namespace xpu::runtime

#endif // XPU_RUNTIME_COMMON_SPIRVBUILDOPTIONS_H
