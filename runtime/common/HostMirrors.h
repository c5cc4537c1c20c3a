//===- HostMirrors.h - device-visible copies of host constants --*- C++ -*-===//
//
// Shared by the runtime wrappers (not installed): mgpuMemHostRegisterMemRef
// registers a host range (a constant the compiled code reads, such as
// weights folded at compile time) with a device-visible copy of it, and a
// kernel argument that points into the range is handed the copy instead.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_RUNTIME_COMMON_HOSTMIRRORS_H
#define XPU_RUNTIME_COMMON_HOSTMIRRORS_H

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

namespace xpu::runtime {

/// Start address and size in bytes of the memref of `rank` at `descriptor`
/// ({allocated, aligned, offset, sizes[rank], strides[rank]}); size 0 for
/// an empty memref.
inline std::pair<uintptr_t, size_t>
memrefRange(int64_t rank, const void *descriptor, int64_t elementSizeBytes) {
  const auto *fields = static_cast<const int64_t *>(descriptor);
  char *aligned = nullptr;
  std::memcpy(&aligned, &fields[1], sizeof(aligned));
  int64_t extent = 1; // one past the last element, in elements
  for (int64_t d = 0; d < rank; ++d) {
    int64_t size = fields[3 + d], stride = fields[3 + rank + d];
    if (size == 0)
      return {reinterpret_cast<uintptr_t>(aligned), 0};
    extent += (size - 1) * stride;
  }
  return {reinterpret_cast<uintptr_t>(aligned + fields[2] * elementSizeBytes),
          static_cast<size_t>(extent * elementSizeBytes)};
}

/// Registered host ranges and their device-visible copies.
class HostMirrors {
public:
  /// The copy's address for `address` inside a registered range, or null.
  void *translate(uintptr_t address) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = ranges.upper_bound(address);
    if (it == ranges.begin())
      return nullptr;
    --it;
    if (address - it->first >= std::max<size_t>(it->second.first, 1))
      return nullptr;
    return static_cast<char *>(it->second.second) + (address - it->first);
  }

  /// Registers [start, start + size) with a copy from `makeCopy()` unless
  /// it is registered already. The check and the copy happen under one lock,
  /// so that two threads registering the same constant make one copy; a
  /// copy is never freed, not even one a larger range at the same start
  /// replaces, since a kernel another thread launched may still read it.
  template <typename MakeCopy>
  void registerRange(uintptr_t start, size_t size, MakeCopy &&makeCopy) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = ranges.find(start);
    if (it != ranges.end() && it->second.first >= size)
      return;
    void *copy = makeCopy();
    if (it != ranges.end())
      retired.push_back(it->second.second);
    ranges[start] = {size, copy};
  }

private:
  std::mutex mutex;
  /// Start address -> (size in bytes, copy).
  std::map<uintptr_t, std::pair<size_t, void *>> ranges;
  /// Copies replaced by larger ranges, kept alive (see registerRange).
  std::vector<void *> retired;
};

} // namespace xpu::runtime

#endif // XPU_RUNTIME_COMMON_HOSTMIRRORS_H
