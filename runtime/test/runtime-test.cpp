//===- runtime-test.cpp - Run a SPIR-V vector add through the C ABI -------===//
//
// Built once per runtime library (xpu-opencl-runtime-test,
// xpu-levelzero-runtime-test). Usage:
//
//   xpu-<api>-runtime-test [--device N] [--no-list] [--kernel NAME]
//                          [--host-pointer] [--drop-arg]
//                          [--threads N [--register-host]]
//                          [--device-only [--touch-device-only]] [kernel.spv]
//
// Lists the devices (unless --no-list), then, given a SPIR-V module with the
// kernel of test/Runtime/Inputs/vector-add.mlir
//   vector_add(float *a, float *b, float *c, float alpha, int64_t n)
//     c[i] = alpha * a[i] + b[i] for i < n
// runs it through mgpuModuleLoad/mgpuLaunchKernel on two streams ordered by an
// event and checks the result against the same computation on the CPU,
// including that elements at and past `n` keep what mgpuMemset32 wrote.
// --kernel, --host-pointer (pass a host vector for `a`) and --drop-arg (pass
// one argument too few) exercise the runtime's error reporting: the runtime
// prints the error, the calls after it do nothing, and this program, which
// reads the error channel (xpuRuntimeGetLastError), exits with status 1.
// --threads N runs the whole sequence (allocations, copies, launches, frees)
// 25 times in each of N threads at once, the threads starting each run
// together; with --register-host the threads' k-th runs all register one
// host array of their own (mgpuMemHostRegisterMemRef, as a compiled program
// does for its constants) and pass its host pointer for `a`, so that the
// threads race on the runtime's tables of allocations and host copies.
// --device-only turns on the runtime's device-only test mode
// (xpuRuntimeSetDeviceOnlyMemory) first, so that `a`, `c` and the memset16
// buffer are memory the host cannot touch (uploaded, filled, passed to the
// kernel and read back through the runtime); --touch-device-only then reads
// a device-only buffer on the host, which must fail with the runtime's
// report (the process ends with the fault).
//
//===----------------------------------------------------------------------===//

#include "xpu/Runtime/XPURuntime.h"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

static std::vector<char> readFile(const char *path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot open %s\n", path);
    std::exit(2);
  }
  return std::vector<char>((std::istreambuf_iterator<char>(in)),
                           std::istreambuf_iterator<char>());
}

/// True (after making sure the runtime reported it) if an error is recorded.
static bool failed() {
  char message[1024];
  return xpuRuntimeGetLastError(message, sizeof(message)) > 0;
}

namespace {
constexpr size_t kSize = 1000;
constexpr int64_t kCount = 900;
constexpr int64_t kBlock = 64;
constexpr uint32_t kSentinel = 0x7f80dead; // A NaN no kernel writes.
constexpr float kAlpha = 2.5f;

/// A rank-1 memref descriptor, as mgpuMemHostRegisterMemRef reads it.
struct MemRef1D {
  const float *allocated, *aligned;
  int64_t offset, size, stride;
};

struct Options {
  bool hostPointer = false, dropArg = false, registerHost = false;
};

/// Runs the vector add once through the C ABI and checks it; returns the
/// number of wrong elements (the first few are printed) and the largest
/// error. `a` is host memory: copied to the device, or, with
/// --register-host, registered and passed as it is.
int runOnce(void *function, const std::vector<float> &a, const Options &opts,
            double &maxError) {
  std::vector<float> b(kSize), c(kSize, 0.0f);
  for (size_t i = 0; i < kSize; ++i)
    b[i] = 1000.0f - 0.25f * static_cast<float>(i);

  // Upload on one stream, compute and download on another: the event orders
  // them.
  void *upload = mgpuStreamCreate();
  void *compute = mgpuStreamCreate();
  void *uploaded = mgpuEventCreate();
  const size_t bytes = kSize * sizeof(float);
  void *devA = mgpuMemAlloc(bytes, upload, /*isHostShared=*/false);
  auto *sharedB =
      static_cast<float *>(mgpuMemAlloc(bytes, upload, /*isHostShared=*/true));
  void *devC = mgpuMemAlloc(bytes, upload, /*isHostShared=*/false);
  std::memcpy(sharedB, b.data(), bytes); // Host-shared: written directly.
  mgpuMemcpy(devA, const_cast<float *>(a.data()), bytes, upload);
  mgpuMemset32(devC, kSentinel, kSize, upload);
  mgpuEventRecord(uploaded, upload);
  mgpuStreamWaitEvent(compute, uploaded);

  void *argA = devA;
  if (opts.registerHost) {
    MemRef1D desc = {a.data(), a.data(), 0, static_cast<int64_t>(kSize), 1};
    mgpuMemHostRegisterMemRef(1, &desc, sizeof(float));
    argA = const_cast<float *>(a.data());
  } else if (opts.hostPointer) {
    argA = const_cast<float *>(a.data());
  }
  void *argB = sharedB, *argC = devC;
  float argAlpha = kAlpha;
  int64_t argN = kCount;
  void *params[] = {&argA, &argB, &argC, &argAlpha, &argN};
  mgpuLaunchKernel(function, (kSize + kBlock - 1) / kBlock, 1, 1, kBlock, 1, 1,
                   /*sharedMemBytes=*/0, compute, params, /*extra=*/nullptr,
                   sizeof(params) / sizeof(params[0]) - (opts.dropArg ? 1 : 0));
  mgpuMemcpy(c.data(), devC, bytes, compute);
  mgpuStreamSynchronize(compute);
  mgpuEventSynchronize(uploaded);

  // mgpuMemset16 on the default (null) stream.
  constexpr size_t kShorts = 10;
  void *devS = mgpuMemAlloc(kShorts * sizeof(uint16_t), nullptr, false);
  mgpuMemset16(devS, 0xabcd, kShorts, nullptr);
  std::vector<uint16_t> shorts(kShorts, 0);
  mgpuMemcpy(shorts.data(), devS, kShorts * sizeof(uint16_t), nullptr);
  mgpuStreamSynchronize(nullptr);

  int errors = 0;
  for (size_t i = 0; i < kSize; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &c[i], sizeof(bits));
    if (static_cast<int64_t>(i) >= kCount) {
      if (bits != kSentinel && errors++ < 5)
        std::printf("c[%zu] = %g was written past n = %lld\n", i, c[i],
                    static_cast<long long>(kCount));
      continue;
    }
    float expected = kAlpha * a[i] + b[i];
    double error = std::fabs(static_cast<double>(c[i]) - expected);
    maxError = std::max(maxError, error);
    if (error > 1e-5 * std::fabs(expected) + 1e-6 && errors++ < 5)
      std::printf("c[%zu] = %g, expected %g\n", i, c[i], expected);
  }
  for (size_t i = 0; i < kShorts; ++i)
    if (shorts[i] != 0xabcd && errors++ < 5)
      std::printf("memset16: element %zu is 0x%x, expected 0xabcd\n", i,
                  shorts[i]);

  mgpuMemFree(devS, nullptr);
  mgpuMemFree(devC, compute);
  mgpuMemFree(sharedB, compute);
  mgpuMemFree(devA, compute);
  mgpuEventDestroy(uploaded);
  mgpuStreamDestroy(compute);
  mgpuStreamDestroy(upload);
  return errors;
}
} // namespace

int main(int argc, char **argv) {
  bool list = true, touch = false;
  Options opts;
  int threads = 0;
  const char *kernelName = "vector_add";
  const char *spvPath = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-list")) {
      list = false;
    } else if (!std::strcmp(argv[i], "--host-pointer")) {
      opts.hostPointer = true;
    } else if (!std::strcmp(argv[i], "--drop-arg")) {
      opts.dropArg = true;
    } else if (!std::strcmp(argv[i], "--register-host")) {
      opts.registerHost = true;
    } else if (!std::strcmp(argv[i], "--device-only")) {
      xpuRuntimeSetDeviceOnlyMemory(1);
    } else if (!std::strcmp(argv[i], "--touch-device-only")) {
      touch = true;
    } else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--kernel") && i + 1 < argc) {
      kernelName = argv[++i];
    } else if (!std::strcmp(argv[i], "--device") && i + 1 < argc) {
      xpuRuntimeSelectDevice(std::atoi(argv[++i]));
    } else if (argv[i][0] != '-' && !spvPath) {
      spvPath = argv[i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--device N] [--no-list] [--kernel NAME] "
                   "[--host-pointer] [--drop-arg] [--threads N "
                   "[--register-host]] [--device-only "
                   "[--touch-device-only]] [kernel.spv]\n",
                   argv[0]);
      return 2;
    }
  }

  if (list) {
    int devices = xpuRuntimeListDevices();
    if (devices < 0 || failed())
      return 1;
    std::printf("devices: %d\n", devices);
  }
  if (!spvPath)
    return failed() ? 1 : 0;

  std::vector<char> spv = readFile(spvPath);
  void *module = mgpuModuleLoad(spv.data(), spv.size());
  void *function = mgpuModuleGetFunction(module, kernelName);
  if (failed())
    return 1;

  std::vector<float> a(kSize);
  for (size_t i = 0; i < kSize; ++i)
    a[i] = 0.5f * static_cast<float>(i) - 3.0f;

  if (threads > 0) {
    constexpr int kRuns = 25;
    // One array per run, shared by the threads' runs of that index: each
    // is registered for the first time by all threads at once.
    std::vector<std::vector<float>> arrays(kRuns, a);
    std::vector<int> errors(threads, 0);
    std::vector<double> maxErrors(threads, 0.0);
    std::mutex mutex;
    std::condition_variable cv;
    int arrived = 0, round = 0;
    auto barrier = [&] {
      std::unique_lock<std::mutex> lock(mutex);
      int mine = round;
      if (++arrived == threads) {
        arrived = 0;
        ++round;
        cv.notify_all();
      } else {
        cv.wait(lock, [&] { return round != mine; });
      }
    };
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (int r = 0; r < kRuns; ++r) {
          barrier();
          errors[t] += runOnce(function, arrays[r], opts, maxErrors[t]);
        }
      });
    for (std::thread &th : pool)
      th.join();
    int total = 0;
    double maxError = 0;
    for (int t = 0; t < threads; ++t) {
      total += errors[t];
      maxError = std::max(maxError, maxErrors[t]);
    }
    if (failed())
      return 1;
    mgpuModuleUnload(module);
    std::printf("vector_add: %d threads x %d runs%s, max abs error %g: %s\n",
                threads, kRuns, opts.registerHost ? " (registered host a)" : "",
                maxError, total ? "FAIL" : "PASS");
    return total ? 1 : 0;
  }

  double maxError = 0.0;
  int errors = runOnce(function, a, opts, maxError);
  // The results are meaningless after an error.
  if (failed())
    return 1;
  mgpuModuleUnload(module);

  std::printf("vector_add: %zu elements, n = %lld, max abs error %g: %s\n",
              kSize, static_cast<long long>(kCount), maxError,
              errors ? "FAIL" : "PASS");
  if (touch) {
    std::fflush(stdout);
    auto *hidden = static_cast<volatile float *>(
        mgpuMemAlloc(kSize * sizeof(float), nullptr, /*isHostShared=*/false));
    std::printf("read on the host: %g\n", hidden[3]);
  }
  return errors ? 1 : 0;
}
