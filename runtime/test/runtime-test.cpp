//===- runtime-test.cpp - Run a SPIR-V vector add through the C ABI -------===//
//
// Built once per runtime library (xpu-opencl-runtime-test,
// xpu-levelzero-runtime-test). Usage:
//
//   xpu-<api>-runtime-test [--device N] [--no-list] [--kernel NAME]
//                          [--host-pointer] [--drop-arg] [kernel.spv]
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
//
//===----------------------------------------------------------------------===//

#include "xpu/Runtime/XPURuntime.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
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

int main(int argc, char **argv) {
  bool list = true;
  bool hostPointer = false;
  bool dropArg = false;
  const char *kernelName = "vector_add";
  const char *spvPath = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--no-list")) {
      list = false;
    } else if (!std::strcmp(argv[i], "--host-pointer")) {
      hostPointer = true;
    } else if (!std::strcmp(argv[i], "--drop-arg")) {
      dropArg = true;
    } else if (!std::strcmp(argv[i], "--kernel") && i + 1 < argc) {
      kernelName = argv[++i];
    } else if (!std::strcmp(argv[i], "--device") && i + 1 < argc) {
      xpuRuntimeSelectDevice(std::atoi(argv[++i]));
    } else if (argv[i][0] != '-' && !spvPath) {
      spvPath = argv[i];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--device N] [--no-list] [--kernel NAME] "
                   "[--host-pointer] [--drop-arg] [kernel.spv]\n",
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

  constexpr size_t kSize = 1000;
  constexpr int64_t kCount = 900;
  constexpr int64_t kBlock = 64;
  constexpr uint32_t kSentinel = 0x7f80dead; // A NaN no kernel writes.
  const float alpha = 2.5f;

  std::vector<char> spv = readFile(spvPath);
  void *module = mgpuModuleLoad(spv.data(), spv.size());
  void *function = mgpuModuleGetFunction(module, kernelName);
  if (failed())
    return 1;

  std::vector<float> a(kSize), b(kSize), c(kSize, 0.0f);
  for (size_t i = 0; i < kSize; ++i) {
    a[i] = 0.5f * static_cast<float>(i) - 3.0f;
    b[i] = 1000.0f - 0.25f * static_cast<float>(i);
  }

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
  mgpuMemcpy(devA, a.data(), bytes, upload);
  mgpuMemset32(devC, kSentinel, kSize, upload);
  mgpuEventRecord(uploaded, upload);
  mgpuStreamWaitEvent(compute, uploaded);

  void *argA = hostPointer ? static_cast<void *>(a.data()) : devA,
       *argB = sharedB, *argC = devC;
  float argAlpha = alpha;
  int64_t argN = kCount;
  void *params[] = {&argA, &argB, &argC, &argAlpha, &argN};
  mgpuLaunchKernel(function, (kSize + kBlock - 1) / kBlock, 1, 1, kBlock, 1, 1,
                   /*sharedMemBytes=*/0, compute, params, /*extra=*/nullptr,
                   sizeof(params) / sizeof(params[0]) - (dropArg ? 1 : 0));
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
  if (failed()) {
    // The results are meaningless; release what was allocated and stop.
    mgpuMemFree(devS, nullptr);
    mgpuMemFree(devC, compute);
    mgpuMemFree(sharedB, compute);
    mgpuMemFree(devA, compute);
    return 1;
  }

  int errors = 0;
  double maxError = 0.0;
  for (size_t i = 0; i < kSize; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &c[i], sizeof(bits));
    if (static_cast<int64_t>(i) >= kCount) {
      if (bits != kSentinel && errors++ < 5)
        std::printf("c[%zu] = %g was written past n = %lld\n", i, c[i],
                    static_cast<long long>(kCount));
      continue;
    }
    float expected = alpha * a[i] + b[i];
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
  mgpuModuleUnload(module);

  std::printf("vector_add: %zu elements, n = %lld, max abs error %g: %s\n",
              kSize, static_cast<long long>(kCount), maxError,
              errors ? "FAIL" : "PASS");
  return errors ? 1 : 0;
}
