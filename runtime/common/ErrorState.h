//===- ErrorState.h - the runtimes' error channel ---------------*- C++ -*-===//
//
// Shared by the runtime wrappers (not installed). The mgpu* ABI returns no
// status, and a runtime loaded into someone else's process (a Python
// interpreter, a JIT) must not exit or abort it. So no runtime function
// exits: inside the library a failure throws `Failure`; each C entry point
// catches it (`guarded`) and records the message in the library's
// ErrorState, which callers read with xpuRuntimeGetLastError (see
// XPURuntime.h for the contract):
//
// * the first error since the last xpuRuntimeClearError is kept (sticky) and
//   printed once to stderr, unless the caller turned printing off;
// * while an error is recorded, calls that would touch the device return at
//   once, and mgpuMemAlloc returns zeroed host memory, so that host code of a
//   compiled program that writes into its buffers cannot fault;
// * releases (mgpuMemFree, unloads, destroys) still release what they can.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_RUNTIME_COMMON_ERRORSTATE_H
#define XPU_RUNTIME_COMMON_ERRORSTATE_H

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

namespace xpu::runtime {

/// What a runtime throws internally instead of exiting.
class Failure : public std::exception {
public:
  explicit Failure(std::string message) : message(std::move(message)) {}
  const char *what() const noexcept override { return message.c_str(); }

private:
  std::string message;
};

/// Throws a Failure with `message`.
[[noreturn]] inline void fail(const std::string &message) {
  throw Failure(message);
}

/// The error channel of one runtime library.
class ErrorState {
public:
  /// `prefix` starts every printed message ("xpu opencl runtime").
  explicit ErrorState(const char *prefix) : prefix(prefix) {}

  /// Records `message` unless an error is recorded already, and prints it
  /// when printing is on.
  void record(const std::string &message) {
    std::lock_guard<std::mutex> lock(mutex);
    if (failed_.load(std::memory_order_relaxed))
      return;
    text = message;
    failed_.store(true, std::memory_order_release);
    if (printing.load(std::memory_order_relaxed)) {
      std::fprintf(stderr, "%s: %s\n", prefix, message.c_str());
      std::fflush(stderr);
    }
  }

  bool failed() const { return failed_.load(std::memory_order_acquire); }

  /// Copies the recorded message (with the prefix) into `buffer`, cut to
  /// `size` - 1 bytes and zero-terminated; returns its full length, 0 when
  /// no error is recorded.
  int copy(char *buffer, size_t size) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!failed_.load(std::memory_order_relaxed)) {
      if (buffer && size)
        buffer[0] = 0;
      return 0;
    }
    std::string full = std::string(prefix) + ": " + text;
    if (buffer && size) {
      size_t n = std::min(size - 1, full.size());
      std::memcpy(buffer, full.data(), n);
      buffer[n] = 0;
    }
    return static_cast<int>(full.size());
  }

  void clear() {
    std::lock_guard<std::mutex> lock(mutex);
    text.clear();
    failed_.store(false, std::memory_order_release);
  }

  void setPrinting(bool enabled) { printing.store(enabled); }

  /// Zeroed host memory handed out by mgpuMemAlloc while an error is
  /// recorded.
  void *scratch(size_t bytes) {
    void *ptr = std::calloc(std::max<size_t>(bytes, 1), 1);
    if (ptr) {
      std::lock_guard<std::mutex> lock(mutex);
      scratchBlocks.insert(ptr);
    }
    return ptr;
  }

  /// Frees `ptr` if scratch() returned it; false otherwise.
  bool freeScratch(void *ptr) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!scratchBlocks.erase(ptr))
        return false;
    }
    std::free(ptr);
    return true;
  }

private:
  const char *prefix;
  std::mutex mutex;
  std::atomic<bool> failed_{false};
  std::atomic<bool> printing{true};
  std::string text;
  std::unordered_set<void *> scratchBlocks;
};

/// Runs `body` for a C entry point of the runtime whose errors go to
/// `errors`: returns what `body` returns, or `fallback()` when an error is
/// recorded already or `body` fails (recording the failure).
template <typename Body, typename Fallback>
auto guarded(ErrorState &errors, Fallback &&fallback, Body &&body)
    -> decltype(body()) {
  if (errors.failed())
    return fallback();
  try {
    return body();
  } catch (const Failure &failure) {
    errors.record(failure.what());
  } catch (const std::bad_alloc &) {
    errors.record("out of host memory");
  } catch (const std::exception &e) {
    errors.record(std::string("internal error: ") + e.what());
  }
  return fallback();
}

/// `guarded` for entry points without a result.
template <typename Body> void guardedVoid(ErrorState &errors, Body &&body) {
  guarded(
      errors, [] {}, std::forward<Body>(body));
}

/// Runs a release (free, unload, destroy) even while an error is recorded;
/// its own failures are recorded unless one is recorded already.
template <typename Body> void releasing(ErrorState &errors, Body &&body) {
  try {
    body();
  } catch (const Failure &failure) {
    errors.record(failure.what());
  } catch (const std::exception &e) {
    errors.record(std::string("internal error: ") + e.what());
  }
}

} // namespace xpu::runtime

#endif // XPU_RUNTIME_COMMON_ERRORSTATE_H
