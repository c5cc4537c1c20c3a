//===- CudaRuntimeWrappers.cpp - the mgpu* ABI over the CUDA driver API ---===//
//
// What code lowered by gpu-to-llvm calls on NVIDIA GPUs (see
// include/xpu/Runtime/XPURuntime.h), over the CUDA driver API alone: this
// library links libcuda and nothing else, so programs compiled by
// xpu-compile run where the NVIDIA driver is installed, without LLVM, MLIR
// or the CUDA toolkit.
//
// * Initialization is lazy (module loads run from global constructors): the
//   first call initializes the driver, takes the selected device's primary
//   context (the one the CUDA runtime and PyTorch use) and makes it current
//   on every calling thread.
// * All work goes to one stream: the one a caller set with
//   xpuCudaSetStream (e.g. PyTorch's current stream), else a stream the
//   runtime creates. mgpuStreamCreate returns it and mgpuStreamDestroy
//   keeps it, so the launches, copies and stream-ordered allocations of a
//   call are ordered without events.
// * On a stream the caller set, calls are asynchronous, like the caller's
//   own work on it: mgpuStreamSynchronize waits only while managed memory
//   (which the host may read) is allocated. Device-memory results are the
//   caller's to order against its stream; copies to pageable host memory
//   wait by themselves.
// * Buffers only kernels touch are device memory from the stream-ordered
//   allocator (cuMemAllocAsync); buffers the host touches are managed
//   memory, and only when the device has that much memory free.
// * Kernel profiling (xpuRuntimeProfileStart/Stop) brackets each launch with
//   two CUDA events on its stream and reads their elapsed time at the stop,
//   so no CUPTI is needed; kernels are named by mgpuModuleGetFunction.
// * Constants the host code registers (mgpuMemHostRegisterMemRef) are
//   page-locked with cuMemHostRegister, page by page: kernels read them
//   through the same address (unified addressing).
// * Every driver call is checked: a failure records the call's name, the
//   error's name and text in the runtime's error channel
//   (../common/ErrorState.h: printed once, read with xpuRuntimeGetLastError,
//   later calls do nothing until xpuRuntimeClearError). Nothing here exits
//   the process.
//
//===----------------------------------------------------------------------===//

#include "xpu/Runtime/XPURuntime.h"

#include "../common/ErrorState.h"

#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <unistd.h>

namespace {

using xpu::runtime::guarded;
using xpu::runtime::guardedVoid;
using xpu::runtime::releasing;

/// The library's error channel (never destroyed: global destructors of
/// compiled programs still call in).
xpu::runtime::ErrorState &errors() {
  static auto *state = new xpu::runtime::ErrorState("xpu cuda runtime");
  return *state;
}

/// Fails the current C entry point with `what` (see ErrorState.h).
[[noreturn]] void die(const std::string &what) { xpu::runtime::fail(what); }

std::string describe(CUresult result, const char *call) {
  const char *name = nullptr, *text = nullptr;
  cuGetErrorName(result, &name);
  cuGetErrorString(result, &text);
  return std::string(call) + " failed: " + (name ? name : "unknown error") +
         " (" + (text ? text : "no description") + ")";
}

void check(CUresult result, const char *call) {
  if (result != CUDA_SUCCESS)
    die(describe(result, call));
}

#define CHECK(call) check((call), #call)

struct Runtime {
  std::mutex mutex;
  bool initialized = false;
  /// Why initialization failed, once it did: later calls fail the same way.
  std::string initFailure;
  int deviceIndex = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  bool ownStream = false;
  /// Managed allocations (freed with cuMemFree); the others come from the
  /// stream-ordered allocator.
  std::unordered_set<void *> managed;
  /// When set, new device allocations are filled with `fillPattern`
  /// (xpuCudaSetAllocationFill), so that what a kernel does not write shows.
  bool fill = false;
  uint32_t fillPattern = 0;
  /// Device copies of TMA descriptors by content, oldest first.
  std::unordered_map<std::string, CUdeviceptr> tensorMaps;
  std::deque<std::string> tensorMapOrder;
  /// Functions whose dynamic shared memory limit was raised, with the limit.
  std::unordered_map<CUfunction, int> sharedLimit;
  /// Kernel names, for the profile.
  std::unordered_map<CUfunction, std::string> names;
  /// Launches recorded between xpuRuntimeProfileStart and Stop: the kernel
  /// and the events before and after it.
  bool profiling = false;
  struct Launch {
    CUfunction function;
    CUevent start, end;
  };
  std::vector<Launch> launches;
  /// Names handed out by the last xpuRuntimeProfileStop.
  std::vector<std::string> profileNames;
  /// Pages registered with cuMemHostRegister (page address -> page count of
  /// the registration that starts there).
  std::map<uintptr_t, size_t> registeredPages;
};

Runtime &runtime() {
  static Runtime r;
  return r;
}

/// Initializes on first use and makes the context current on this thread.
Runtime &enter() {
  Runtime &r = runtime();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.initFailure.empty())
    die(r.initFailure);
  if (!r.initialized) {
    CUresult init = cuInit(0);
    if (init != CUDA_SUCCESS) {
      r.initFailure =
          "no CUDA driver or device (" + describe(init, "cuInit") + ")";
      die(r.initFailure);
    }
    int count = 0;
    CHECK(cuDeviceGetCount(&count));
    if (count == 0) {
      r.initFailure = "no CUDA device found";
      die(r.initFailure);
    }
    if (r.deviceIndex >= count)
      die("device " + std::to_string(r.deviceIndex) + " selected but only " +
          std::to_string(count) + " found");
    CHECK(cuDeviceGet(&r.device, r.deviceIndex));
    CHECK(cuDevicePrimaryCtxRetain(&r.context, r.device));
    CHECK(cuCtxSetCurrent(r.context));
    // Freed device memory stays in the pool for the next call's buffers.
    CUmemoryPool pool;
    CHECK(cuDeviceGetDefaultMemPool(&pool, r.device));
    cuuint64_t keep = ~cuuint64_t(0);
    CHECK(
        cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep));
    r.initialized = true;
  } else {
    CUcontext current = nullptr;
    CHECK(cuCtxGetCurrent(&current));
    if (current != r.context)
      CHECK(cuCtxSetCurrent(r.context));
  }
  return r;
}

CUstream getStream(Runtime &r) {
  std::lock_guard<std::mutex> lock(r.mutex);
  if (!r.stream) {
    // Blocking: ordered with the legacy default stream, which callers
    // that set no stream (PyTorch's default stream, say) use.
    CHECK(cuStreamCreate(&r.stream, CU_STREAM_DEFAULT));
    r.ownStream = true;
  }
  return r.stream;
}

CUstream streamOf(Runtime &r, void *stream) {
  return stream ? static_cast<CUstream>(stream) : getStream(r);
}

//===----------------------------------------------------------------------===//
// Implementations (may fail; the C entry points below catch the failures)
//===----------------------------------------------------------------------===//

void *moduleLoadJIT(void *data, int optLevel) {
  enter();
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUmodule module = nullptr;
  CUresult result = cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS)
    die(describe(result, "cuModuleLoadDataEx") +
        (log[0] ? std::string("; the driver could not compile the PTX:\n") + log
                : std::string()));
  return module;
}

/// Launches `function`; with `cluster` (x, y, z), in thread block clusters
/// of that shape (cuLaunchKernelEx, sm_90 and later).
void launchKernel(void *function, intptr_t gridX, intptr_t gridY,
                  intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                  intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                  void **params, void **extra,
                  const intptr_t *cluster = nullptr) {
  Runtime &r = enter();
  if (!function)
    die("mgpuLaunchKernel: null function");
  auto f = static_cast<CUfunction>(function);
  // Beyond 48 KiB of shared memory in all, static (a wgmma kernel's
  // mbarriers) and dynamic together, a kernel must opt in to its dynamic
  // shared memory: 48 KiB of dynamic memory next to 48 bytes of mbarriers
  // failed to launch.
  if (sharedMemBytes > 0) {
    std::lock_guard<std::mutex> lock(r.mutex);
    int &limit = r.sharedLimit[f];
    if (limit < sharedMemBytes) {
      int staticBytes = 0;
      CHECK(cuFuncGetAttribute(&staticBytes,
                               CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f));
      if (staticBytes + sharedMemBytes > 48 * 1024)
        CHECK(cuFuncSetAttribute(
            f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            sharedMemBytes));
      limit = sharedMemBytes;
    }
  }
  CUstream s = streamOf(r, stream);
  CUevent start = nullptr, end = nullptr;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.profiling) {
      CHECK(cuEventCreate(&start, CU_EVENT_DEFAULT));
      CHECK(cuEventCreate(&end, CU_EVENT_DEFAULT));
      r.launches.push_back({f, start, end});
    }
  }
  if (start)
    CHECK(cuEventRecord(start, s));
  if (cluster) {
    CUlaunchAttribute attribute = {};
    attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attribute.value.clusterDim.x = static_cast<unsigned>(cluster[0]);
    attribute.value.clusterDim.y = static_cast<unsigned>(cluster[1]);
    attribute.value.clusterDim.z = static_cast<unsigned>(cluster[2]);
    CUlaunchConfig config = {};
    config.gridDimX = static_cast<unsigned>(gridX);
    config.gridDimY = static_cast<unsigned>(gridY);
    config.gridDimZ = static_cast<unsigned>(gridZ);
    config.blockDimX = static_cast<unsigned>(blockX);
    config.blockDimY = static_cast<unsigned>(blockY);
    config.blockDimZ = static_cast<unsigned>(blockZ);
    config.sharedMemBytes = static_cast<unsigned>(sharedMemBytes);
    config.hStream = s;
    config.attrs = &attribute;
    config.numAttrs = 1;
    CHECK(cuLaunchKernelEx(&config, f, params, extra));
  } else {
    CHECK(cuLaunchKernel(f, gridX, gridY, gridZ, blockX, blockY, blockZ,
                         sharedMemBytes, s, params, extra));
  }
  if (end)
    CHECK(cuEventRecord(end, s));
}

void releaseLaunches(Runtime &r) {
  for (Runtime::Launch &launch : r.launches) {
    if (launch.start)
      cuEventDestroy(launch.start);
    if (launch.end)
      cuEventDestroy(launch.end);
  }
  r.launches.clear();
}

int profileStop(XPUKernelProfile *entries, int capacity) {
  Runtime &r = enter();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.profiling = false;
  std::vector<std::string> &names = r.profileNames;
  names.clear();
  std::vector<uint64_t> launches;
  std::vector<int64_t> nanoseconds;
  for (Runtime::Launch &launch : r.launches) {
    auto named = r.names.find(launch.function);
    std::string name = named == r.names.end() ? "?" : named->second;
    size_t i = std::find(names.begin(), names.end(), name) - names.begin();
    if (i == names.size()) {
      names.push_back(name);
      launches.push_back(0);
      nanoseconds.push_back(0);
    }
    ++launches[i];
    float ms = 0;
    bool timed =
        cuEventSynchronize(launch.end) == CUDA_SUCCESS &&
        cuEventElapsedTime(&ms, launch.start, launch.end) == CUDA_SUCCESS;
    if (!timed || nanoseconds[i] < 0)
      nanoseconds[i] = -1;
    else
      nanoseconds[i] += static_cast<int64_t>(double(ms) * 1e6);
  }
  releaseLaunches(r);
  int count = static_cast<int>(names.size());
  for (int i = 0; i < count && i < capacity && entries; ++i)
    entries[i] = {names[i].c_str(), launches[i], nanoseconds[i]};
  return count;
}

/// Page-locks the pages of [start, start + size) that no earlier call
/// registered (cuMemHostRegister refuses a page registered twice).
void hostRegister(uintptr_t start, size_t size) {
  Runtime &r = enter();
  if (!size)
    return;
  int usable = 0;
  CHECK(cuDeviceGetAttribute(
      &usable, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM,
      r.device));
  if (!usable)
    die("mgpuMemHostRegisterMemRef: the device cannot use host pointers of "
        "registered memory, which the compiled code passes to kernels");
  auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t first = start / page * page;
  uintptr_t last = (start + size + page - 1) / page * page;
  std::lock_guard<std::mutex> lock(r.mutex);
  uintptr_t at = first;
  while (at < last) {
    // The registration covering `at`, if any.
    auto it = r.registeredPages.upper_bound(at);
    if (it != r.registeredPages.begin()) {
      auto before = std::prev(it);
      uintptr_t end = before->first + before->second * page;
      if (at < end) {
        at = end;
        continue;
      }
    }
    uintptr_t runEnd = it == r.registeredPages.end()
                           ? last
                           : std::min<uintptr_t>(last, it->first);
    // Constants of a loaded library may be in read-only pages, which only
    // a read-only registration takes.
    void *pages = reinterpret_cast<void *>(at);
    CUresult result = cuMemHostRegister(pages, runEnd - at, 0);
    if (result != CUDA_SUCCESS &&
        cuMemHostRegister(pages, runEnd - at, CU_MEMHOSTREGISTER_READ_ONLY) ==
            CUDA_SUCCESS)
      result = CUDA_SUCCESS;
    CHECK(result);
    r.registeredPages[at] = (runEnd - at) / page;
    at = runEnd;
  }
}

void *memAlloc(uint64_t size, void *stream, bool isHostShared) {
  Runtime &r = enter();
  if (size == 0)
    size = 1;
  CUdeviceptr ptr = 0;
  if (isHostShared) {
    // Never more managed memory than the device has free: oversubscribed
    // managed memory can hang the GPU, not only this program.
    size_t freeBytes = 0, totalBytes = 0;
    CHECK(cuMemGetInfo(&freeBytes, &totalBytes));
    if (size > freeBytes)
      die(std::to_string(size) +
          " bytes of managed memory asked for, but the device has " +
          std::to_string(freeBytes) + " bytes free");
    CHECK(cuMemAllocManaged(&ptr, size, CU_MEM_ATTACH_GLOBAL));
    std::lock_guard<std::mutex> lock(r.mutex);
    r.managed.insert(reinterpret_cast<void *>(ptr));
  } else {
    CUstream s = streamOf(r, stream);
    CHECK(cuMemAllocAsync(&ptr, size, s));
    if (r.fill)
      CHECK(cuMemsetD32Async(ptr, r.fillPattern, size / 4, s));
  }
  return reinterpret_cast<void *>(ptr);
}

void memFree(void *ptr, void *stream) {
  Runtime &r = enter();
  bool isManaged;
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    isManaged = r.managed.erase(ptr) != 0;
  }
  CUstream s = streamOf(r, stream);
  if (isManaged) {
    // The host may free it right away: wait for the kernels using it (after
    // an error the stream may be broken, and the memory is freed all the
    // same).
    CUresult synced = errors().failed() ? CUDA_SUCCESS : cuStreamSynchronize(s);
    CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
    CHECK(synced);
    return;
  }
  CHECK(cuMemFreeAsync(reinterpret_cast<CUdeviceptr>(ptr), s));
}

int listDevices(bool print) {
  CUresult init = cuInit(0);
  if (init != CUDA_SUCCESS)
    die("no CUDA driver or device (" + describe(init, "cuInit") + ")");
  int count = 0;
  CHECK(cuDeviceGetCount(&count));
  for (int i = 0; print && i < count; ++i) {
    CUdevice device;
    CHECK(cuDeviceGet(&device, i));
    char name[256] = {0};
    CHECK(cuDeviceGetName(name, sizeof(name), device));
    int major = 0, minor = 0, sms = 0;
    CHECK(cuDeviceGetAttribute(
        &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    CHECK(cuDeviceGetAttribute(
        &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                               device));
    size_t bytes = 0;
    CHECK(cuDeviceTotalMem(&bytes, device));
    std::printf("%d: %s (sm_%d%d, %d SMs, %zu MiB)\n", i, name, major, minor,
                sms, bytes >> 20);
  }
  return count;
}

void *tensorMapEncodeTiled(int64_t rank, void *descriptor, int64_t dataType,
                           int64_t interleave, int64_t swizzle,
                           int64_t l2Promotion, int64_t oobFill,
                           int64_t *boxDims) {
  Runtime &r = enter();
  static const int elementBytes[] = {1, 2, 4, 4, 8, 8, 2, 4, 8, 2, 4, 4, 4};
  if (rank < 1 || rank > 5 || dataType < 0 || dataType > 12)
    die("mgpuTensorMapEncodeTiledMemref: unsupported rank or element type");
  auto *fields = static_cast<int64_t *>(descriptor);
  char *aligned = reinterpret_cast<char *>(fields[1]);
  int64_t offset = fields[2];
  const int64_t *sizes = fields + 3, *strides = fields + 3 + rank;
  int bytes = elementBytes[dataType];
  cuuint64_t globalDim[5] = {1, 1, 1, 1, 1}, globalStrides[5] = {0};
  cuuint32_t boxDim[5] = {1, 1, 1, 1, 1}, elementStrides[5] = {1, 1, 1, 1, 1};
  for (int64_t i = 0; i < rank; ++i) {
    globalDim[i] = static_cast<cuuint64_t>(sizes[rank - 1 - i]);
    boxDim[i] = static_cast<cuuint32_t>(boxDims[rank - 1 - i]);
  }
  for (int64_t i = 0; i + 1 < rank; ++i)
    globalStrides[i] = static_cast<cuuint64_t>(strides[rank - 2 - i]) * bytes;
  // Zeroed first: the copies are cached by content, padding included.
  CUtensorMap map;
  std::memset(&map, 0, sizeof(map));
  CHECK(cuTensorMapEncodeTiled(&map, static_cast<CUtensorMapDataType>(dataType),
                               static_cast<cuuint32_t>(rank),
                               aligned + offset * bytes, globalDim,
                               globalStrides, boxDim, elementStrides,
                               static_cast<CUtensorMapInterleave>(interleave),
                               static_cast<CUtensorMapSwizzle>(swizzle),
                               static_cast<CUtensorMapL2promotion>(l2Promotion),
                               static_cast<CUtensorMapFloatOOBfill>(oobFill)));
  std::string key(reinterpret_cast<const char *>(&map), sizeof(map));
  CUstream s = getStream(r);
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.tensorMaps.find(key);
  if (it != r.tensorMaps.end())
    return reinterpret_cast<void *>(it->second);
  if (r.tensorMapOrder.size() >= 1024) {
    auto oldest = r.tensorMaps.find(r.tensorMapOrder.front());
    CHECK(cuMemFreeAsync(oldest->second, s));
    r.tensorMaps.erase(oldest);
    r.tensorMapOrder.pop_front();
  }
  CUdeviceptr copy = 0;
  CHECK(cuMemAllocAsync(&copy, sizeof(map), s));
  CHECK(cuMemcpyHtoDAsync(copy, &map, sizeof(map), s));
  r.tensorMaps.emplace(key, copy);
  r.tensorMapOrder.push_back(key);
  return reinterpret_cast<void *>(copy);
}

void *nullHandle() { return nullptr; }

} // namespace

extern "C" {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

XPU_RUNTIME_EXPORT int xpuRuntimeGetLastError(char *buffer, size_t size) {
  return errors().copy(buffer, size);
}

XPU_RUNTIME_EXPORT void xpuRuntimeClearError(void) { errors().clear(); }

XPU_RUNTIME_EXPORT void xpuRuntimeSetErrorPrinting(int enabled) {
  errors().setPrinting(enabled != 0);
}

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

XPU_RUNTIME_EXPORT void *mgpuModuleLoad(const void *data, size_t size) {
  (void)size;
  return guarded(errors(), nullHandle, [&]() -> void * {
    enter();
    CUmodule module = nullptr;
    CHECK(cuModuleLoadData(&module, data));
    return module;
  });
}

/// Loads PTX (binary-format=isa), which the driver compiles.
XPU_RUNTIME_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel,
                                           size_t size) {
  (void)size;
  return guarded(errors(), nullHandle,
                 [&] { return moduleLoadJIT(data, optLevel); });
}

XPU_RUNTIME_EXPORT void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  // Modules are unloaded by global destructors, at process exit, when the
  // driver may already be shut down (a PyTorch process, say): nothing left
  // to release then.
  releasing(errors(), [&] {
    CUresult result = cuModuleUnload(static_cast<CUmodule>(module));
    if (result == CUDA_ERROR_DEINITIALIZED || result == CUDA_ERROR_UNKNOWN ||
        result == CUDA_ERROR_CONTEXT_IS_DESTROYED ||
        result == CUDA_ERROR_INVALID_CONTEXT)
      return;
    CHECK(result);
  });
}

XPU_RUNTIME_EXPORT void *mgpuModuleGetFunction(void *module, const char *name) {
  return guarded(errors(), nullHandle, [&]() -> void * {
    enter();
    if (!module || !name)
      die("mgpuModuleGetFunction: null module or kernel name");
    CUfunction function = nullptr;
    CUresult result =
        cuModuleGetFunction(&function, static_cast<CUmodule>(module), name);
    if (result != CUDA_SUCCESS)
      die(describe(result, "cuModuleGetFunction") + ": no kernel '" + name +
          "' in the module");
    Runtime &r = runtime();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.names[function] = name;
    return function;
  });
}

XPU_RUNTIME_EXPORT void
mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                 intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                 int32_t sharedMemBytes, void *stream, void **params,
                 void **extra, size_t paramsCount) {
  (void)paramsCount;
  guardedVoid(errors(), [&] {
    launchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                 sharedMemBytes, stream, params, extra);
  });
}

/// gpu.launch_func with `clusters in (...)`: the signature MLIR's LLVM
/// translation of the launch calls.
XPU_RUNTIME_EXPORT void
mgpuLaunchClusterKernel(void *function, intptr_t clusterX, intptr_t clusterY,
                        intptr_t clusterZ, intptr_t gridX, intptr_t gridY,
                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                        intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                        void **params, void **extra, size_t paramsCount) {
  (void)paramsCount;
  guardedVoid(errors(), [&] {
    const intptr_t cluster[3] = {clusterX, clusterY, clusterZ};
    launchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                 sharedMemBytes, stream, params, extra, cluster);
  });
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

XPU_RUNTIME_EXPORT void *mgpuStreamCreate(void) {
  return guarded(errors(), nullHandle, []() -> void * {
    Runtime &r = enter();
    return getStream(r);
  });
}

XPU_RUNTIME_EXPORT void mgpuStreamDestroy(void *stream) {
  // The runtime's one stream outlives every call.
  (void)stream;
}

XPU_RUNTIME_EXPORT void mgpuStreamSynchronize(void *stream) {
  guardedVoid(errors(), [&] {
    Runtime &r = enter();
    CUstream s = streamOf(r, stream);
    {
      // The host can observe a caller's stream's work only through managed
      // memory: without any, the caller orders its reads itself.
      std::lock_guard<std::mutex> lock(r.mutex);
      if (!r.ownStream && s == r.stream && r.managed.empty())
        return;
    }
    CHECK(cuStreamSynchronize(s));
  });
}

XPU_RUNTIME_EXPORT void mgpuStreamWaitEvent(void *stream, void *event) {
  guardedVoid(errors(), [&] {
    Runtime &r = enter();
    CHECK(
        cuStreamWaitEvent(streamOf(r, stream), static_cast<CUevent>(event), 0));
  });
}

XPU_RUNTIME_EXPORT void *mgpuEventCreate(void) {
  return guarded(errors(), nullHandle, []() -> void * {
    enter();
    CUevent event = nullptr;
    CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
    return event;
  });
}

XPU_RUNTIME_EXPORT void mgpuEventDestroy(void *event) {
  if (!event)
    return;
  releasing(errors(), [&] {
    enter();
    CHECK(cuEventDestroy(static_cast<CUevent>(event)));
  });
}

XPU_RUNTIME_EXPORT void mgpuEventSynchronize(void *event) {
  guardedVoid(errors(), [&] {
    enter();
    CHECK(cuEventSynchronize(static_cast<CUevent>(event)));
  });
}

XPU_RUNTIME_EXPORT void mgpuEventRecord(void *event, void *stream) {
  guardedVoid(errors(), [&] {
    Runtime &r = enter();
    CHECK(cuEventRecord(static_cast<CUevent>(event), streamOf(r, stream)));
  });
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

XPU_RUNTIME_EXPORT void *mgpuMemAlloc(uint64_t size, void *stream,
                                      bool isHostShared) {
  // After an error, zeroed host memory: host code may still write into it.
  return guarded(
      errors(), [&] { return errors().scratch(size); },
      [&] { return memAlloc(size, stream, isHostShared); });
}

XPU_RUNTIME_EXPORT void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr || errors().freeScratch(ptr))
    return;
  releasing(errors(), [&] { memFree(ptr, stream); });
}

XPU_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src, size_t size,
                                   void *stream) {
  guardedVoid(errors(), [&] {
    Runtime &r = enter();
    CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                        reinterpret_cast<CUdeviceptr>(src), size,
                        streamOf(r, stream)));
  });
}

XPU_RUNTIME_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                     size_t count, void *stream) {
  guardedVoid(errors(), [&] {
    Runtime &r = enter();
    CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                           streamOf(r, stream)));
  });
}

XPU_RUNTIME_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                     size_t count, void *stream) {
  guardedVoid(errors(), [&] {
    Runtime &r = enter();
    CHECK(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                           streamOf(r, stream)));
  });
}

/// Page-locks the memref's pages (a constant of the compiled code): kernels
/// read it through the same address. Registered pages stay registered for
/// the life of the process, as the other runtimes keep their copies.
XPU_RUNTIME_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank,
                                                  void *descriptor,
                                                  int64_t elementSizeBytes) {
  guardedVoid(errors(), [&] {
    if (!descriptor)
      die("mgpuMemHostRegisterMemRef: null descriptor");
    // {allocated, aligned, offset, sizes[rank], strides[rank]}
    const auto *fields = static_cast<const int64_t *>(descriptor);
    int64_t extent = 1;
    for (int64_t d = 0; d < rank; ++d) {
      if (fields[3 + d] == 0)
        return;
      extent += (fields[3 + d] - 1) * fields[3 + rank + d];
    }
    auto start = static_cast<uintptr_t>(fields[1]) +
                 static_cast<uintptr_t>(fields[2] * elementSizeBytes);
    hostRegister(start, static_cast<size_t>(extent * elementSizeBytes));
  });
}

XPU_RUNTIME_EXPORT void mgpuMemHostUnregisterMemRef(int64_t, void *, int64_t) {
  // Constants stay registered: a later call registers them again, and
  // another thread's kernel may still read them.
}

/// Device memory is what allocations without `isHostShared` are already
/// (cuMemAllocAsync): nothing changes.
XPU_RUNTIME_EXPORT void xpuRuntimeSetDeviceOnlyMemory(int) {}

//===----------------------------------------------------------------------===//
// Kernel profiling
//===----------------------------------------------------------------------===//

XPU_RUNTIME_EXPORT void xpuRuntimeProfileStart(void) {
  guardedVoid(errors(), [] {
    Runtime &r = enter();
    std::lock_guard<std::mutex> lock(r.mutex);
    releaseLaunches(r);
    r.profileNames.clear();
    r.profiling = true;
  });
}

XPU_RUNTIME_EXPORT int xpuRuntimeProfileStop(XPUKernelProfile *entries,
                                             int capacity) {
  return guarded(
      errors(), [] { return 0; },
      [&] { return profileStop(entries, capacity); });
}

//===----------------------------------------------------------------------===//
// Device discovery and selection, the stream of callers
//===----------------------------------------------------------------------===//

XPU_RUNTIME_EXPORT int xpuRuntimeGetDeviceCount(void) {
  return guarded(
      errors(), [] { return -1; }, [] { return listDevices(false); });
}

XPU_RUNTIME_EXPORT int xpuRuntimeListDevices(void) {
  return guarded(
      errors(), [] { return -1; }, [] { return listDevices(true); });
}

XPU_RUNTIME_EXPORT void xpuRuntimeSelectDevice(int index) {
  guardedVoid(errors(), [&] {
    Runtime &r = runtime();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.initialized && index != r.deviceIndex)
      die("xpuRuntimeSelectDevice: a device is already in use");
    if (index < 0)
      die("xpuRuntimeSelectDevice: negative device index");
    r.deviceIndex = index;
  });
}

/// Runs all later work on `stream` (a CUstream of the selected device's
/// primary context, e.g. torch.cuda.current_stream().cuda_stream), so that
/// the caller's events time it and its work orders with the caller's; null
/// goes back to the runtime's own stream. Calls on the caller's stream do
/// not wait for their kernels (see mgpuStreamSynchronize).
XPU_RUNTIME_EXPORT void xpuCudaSetStream(void *stream) {
  guardedVoid(errors(), [&] {
    Runtime &r = enter();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.ownStream && r.stream && r.stream != stream)
      CHECK(cuStreamDestroy(r.stream));
    r.stream = static_cast<CUstream>(stream);
    r.ownStream = false;
  });
}

/// Makes a TMA descriptor (CUtensorMap) of a ranked memref for
/// nvgpu.tma.create.descriptor (lowered by convert-nvgpu-to-nvvm, with the
/// signature of the upstream wrapper): `descriptor` points to the memref
/// descriptor (allocated and aligned pointers, offset, sizes, strides),
/// `boxDims` to the box sizes, both outermost first; the enums are the
/// driver's CUtensorMap* values. Returns a device copy of the descriptor
/// (kernels read it from global memory). Copies are cached by content, so
/// a program that calls a kernel again on the same buffers reuses them; the
/// oldest are freed (stream-ordered) past 1024 entries.
XPU_RUNTIME_EXPORT void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, int64_t *boxDims) {
  return guarded(errors(), nullHandle, [&] {
    return tensorMapEncodeTiled(rank, descriptor, dataType, interleave, swizzle,
                                l2Promotion, oobFill, boxDims);
  });
}

/// When `enabled`, fills every later device allocation with the 32-bit
/// `pattern` (e.g. 0x7fc07fc0, a NaN in f32 and in both bf16 halves), so
/// that a test sees every output element a kernel leaves unwritten.
XPU_RUNTIME_EXPORT void xpuCudaSetAllocationFill(int enabled,
                                                 uint32_t pattern) {
  guardedVoid(errors(), [&] {
    Runtime &r = enter();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.fill = enabled != 0;
    r.fillPattern = pattern;
  });
}

} // extern "C"
