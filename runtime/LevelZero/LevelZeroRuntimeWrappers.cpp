//===- LevelZeroRuntimeWrappers.cpp - xpu runtime on Level Zero -----------===//
//
// Implements the C ABI of xpu/Runtime/XPURuntime.h on Level Zero.
//
// Initialisation is lazy (module loads run from global constructors) and
// zeInit is checked before anything else: with no driver the runtime records
// "no Level Zero driver found (zeInit: <error>)" and never calls into the
// loader again (the loader may crash on calls after a failed zeInit); every
// later call that needs the device fails with the same message.
//
// Each stream is an immediate command list. Level Zero 1.4 immediate lists
// are not in order, so every command signals an event from a pool and waits
// on the previous command's event; synchronising a stream waits for its last
// event and recycles the rest. Memory comes from zeMemAllocDevice or, for
// host-shared allocations, zeMemAllocShared; both are plain pointers that
// kernels take by value. Kernel arguments carry no types in mgpuLaunchKernel,
// so a scalar's size is found by trying 8, 4, 2 and 1 bytes until
// zeKernelSetArgumentValue stops returning
// ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE.
//
// Every call is checked; a failure records the call and the error name in
// the runtime's error channel (../common/ErrorState.h: printed once, read with
// xpuRuntimeGetLastError, later calls do nothing until xpuRuntimeClearError).
// Nothing here exits the process.
//
//===----------------------------------------------------------------------===//

#include "xpu/Runtime/XPURuntime.h"

#include "../common/ErrorState.h"
#include "../common/HostMirrors.h"
#include "../common/SPIRVBuildOptions.h"

#include <level_zero/ze_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

//===----------------------------------------------------------------------===//
// Error reporting
//===----------------------------------------------------------------------===//

static const char *getZeResultName(ze_result_t result) {
  switch (result) {
#define XPU_ZE_RESULT(name)                                                    \
  case name:                                                                   \
    return #name;
    XPU_ZE_RESULT(ZE_RESULT_SUCCESS)
    XPU_ZE_RESULT(ZE_RESULT_NOT_READY)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_LOST)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_MODULE_BUILD_FAILURE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_MODULE_LINK_FAILURE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_NOT_AVAILABLE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_UNINITIALIZED)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_VERSION)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_FEATURE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_ARGUMENT)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NULL_HANDLE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NULL_POINTER)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_SIZE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_SIZE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_ENUMERATION)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_NATIVE_BINARY)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_FUNCTION_NAME)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_OVERLAPPING_REGIONS)
    XPU_ZE_RESULT(ZE_RESULT_ERROR_UNKNOWN)
#undef XPU_ZE_RESULT
  default:
    return "unknown Level Zero error";
  }
}

/// The library's error channel (never destroyed: global destructors of
/// compiled programs still call in).
static xpu::runtime::ErrorState &errors() {
  static auto *state = new xpu::runtime::ErrorState("xpu levelzero runtime");
  return *state;
}

/// Fails the current C entry point with `message` (see ErrorState.h).
[[noreturn]] static void fatal(const std::string &message) {
  xpu::runtime::fail(message);
}

static void checkZe(ze_result_t result, const char *call) {
  if (result == ZE_RESULT_SUCCESS)
    return;
  char code[16];
  std::snprintf(code, sizeof(code), "0x%x", static_cast<unsigned>(result));
  fatal(std::string(call) + " failed: " + getZeResultName(result) + " (" +
        code + ")");
}

/// Calls the Level Zero function `fn` and fails with its name and the error
/// name if it does not return ZE_RESULT_SUCCESS.
#define XPU_ZE_CALL(fn, ...) checkZe(fn(__VA_ARGS__), #fn)

//===----------------------------------------------------------------------===//
// Runtime state
//===----------------------------------------------------------------------===//

namespace {
struct DeviceDesc {
  ze_driver_handle_t driver = nullptr;
  ze_device_handle_t device = nullptr;
  ze_device_properties_t properties{};
};

/// Hands out host-visible events, growing by pools of kEventsPerPool.
class EventPool {
public:
  static constexpr uint32_t kEventsPerPool = 128;

  void init(ze_context_handle_t ctx, ze_device_handle_t dev,
            ze_event_pool_flags_t poolFlags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE) {
    context = ctx;
    device = dev;
    flags = poolFlags;
  }

  ze_event_handle_t take() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!available.empty()) {
      ze_event_handle_t event = available.back();
      available.pop_back();
      return event;
    }
    if (pools.empty() || nextIndex == kEventsPerPool) {
      ze_event_pool_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_POOL_DESC, nullptr,
                                   flags, kEventsPerPool};
      ze_event_pool_handle_t pool = nullptr;
      XPU_ZE_CALL(zeEventPoolCreate, context, &desc, 1, &device, &pool);
      pools.push_back(pool);
      nextIndex = 0;
    }
    ze_event_desc_t desc = {ZE_STRUCTURE_TYPE_EVENT_DESC, nullptr, nextIndex++,
                            ZE_EVENT_SCOPE_FLAG_HOST, ZE_EVENT_SCOPE_FLAG_HOST};
    ze_event_handle_t event = nullptr;
    XPU_ZE_CALL(zeEventCreate, pools.back(), &desc, &event);
    return event;
  }

  /// Resets `event` and makes it available again.
  void release(ze_event_handle_t event) {
    XPU_ZE_CALL(zeEventHostReset, event);
    std::lock_guard<std::mutex> lock(mutex);
    available.push_back(event);
  }

private:
  ze_context_handle_t context = nullptr;
  ze_device_handle_t device = nullptr;
  ze_event_pool_flags_t flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
  std::mutex mutex;
  std::vector<ze_event_pool_handle_t> pools;
  std::vector<ze_event_handle_t> available;
  uint32_t nextIndex = 0;
};

/// An immediate command list whose commands run in order.
struct Stream {
  ze_command_list_handle_t list = nullptr;
  /// Events signalled by the commands appended since the last sync; the last
  /// one completes after all of them.
  std::vector<ze_event_handle_t> pending;
  std::mutex mutex;
};

struct Runtime {
  DeviceDesc desc;
  int deviceIndex = 0;
  ze_context_handle_t context = nullptr;
  uint32_t computeOrdinal = 0;
  EventPool events;
  Stream *defaultStream = nullptr;

  /// Kernel launches recorded between xpuRuntimeProfileStart and Stop, each
  /// signalling an event of `timestampEvents` (kernel timestamps).
  EventPool timestampEvents;
  std::mutex profileMutex;
  bool profiling = false;
  std::vector<std::pair<std::string, ze_event_handle_t>> profiledLaunches;
  std::set<ze_event_handle_t> profiledEvents;
  std::vector<std::string> profileNames;

  /// Every live stream, so that xpuRuntimeProfileStop can wait for all.
  std::mutex streamsMutex;
  std::set<Stream *> streams;

  bool isProfiled(ze_event_handle_t event) {
    std::lock_guard<std::mutex> lock(profileMutex);
    return profiledEvents.count(event) != 0;
  }

  /// Host ranges registered with mgpuMemHostRegisterMemRef and their
  /// device-visible copies.
  xpu::runtime::HostMirrors hostMirrors;
  void *mirrorOf(uintptr_t address) { return hostMirrors.translate(address); }
};

struct Function {
  ze_kernel_handle_t kernel = nullptr;
  std::string name;
  uint32_t numArgs = 0;
  std::mutex launchMutex;
};

struct Module {
  ze_module_handle_t module = nullptr;
  std::vector<std::unique_ptr<Function>> functions;
  std::mutex functionsMutex;
};

/// A user event: a pool event, re-armed by each mgpuEventRecord.
struct Event {
  ze_event_handle_t event = nullptr;
  bool recorded = false;
};
} // namespace

static std::mutex runtimeMutex;
static Runtime *runtime = nullptr;
static int selectedDevice = 0;
static bool initialized = false;
/// Why zeInit failed, once it did: nothing is called after a failed zeInit.
static std::string *initFailure = nullptr;
/// Why the runtime could not start, when it could not.
static std::string *startFailure = nullptr;

/// zeInit and device discovery (under runtimeMutex). Fails if there is no
/// driver, and then again on every later call without calling zeInit.
static std::vector<DeviceDesc> discoverDevices() {
  if (initFailure)
    fatal(*initFailure);
  if (!initialized) {
    ze_result_t result = zeInit(0);
    if (result != ZE_RESULT_SUCCESS) {
      initFailure =
          new std::string(std::string("no Level Zero driver found (zeInit: ") +
                          getZeResultName(result) + ")");
      fatal(*initFailure);
    }
    initialized = true;
  }
  uint32_t numDrivers = 0;
  XPU_ZE_CALL(zeDriverGet, &numDrivers, nullptr);
  if (numDrivers == 0)
    fatal("no Level Zero driver found (zeDriverGet: 0 drivers)");
  std::vector<ze_driver_handle_t> drivers(numDrivers);
  XPU_ZE_CALL(zeDriverGet, &numDrivers, drivers.data());
  std::vector<DeviceDesc> result;
  for (ze_driver_handle_t driver : drivers) {
    uint32_t numDevices = 0;
    XPU_ZE_CALL(zeDeviceGet, driver, &numDevices, nullptr);
    std::vector<ze_device_handle_t> devices(numDevices);
    XPU_ZE_CALL(zeDeviceGet, driver, &numDevices, devices.data());
    for (ze_device_handle_t device : devices) {
      DeviceDesc desc;
      desc.driver = driver;
      desc.device = device;
      desc.properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
      XPU_ZE_CALL(zeDeviceGetProperties, device, &desc.properties);
      result.push_back(desc);
    }
  }
  return result;
}

static Stream *createStream(Runtime &rt) {
  auto *stream = new Stream();
  ze_command_queue_desc_t desc = {ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC,
                                  nullptr,
                                  rt.computeOrdinal,
                                  0,
                                  0,
                                  ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS,
                                  ZE_COMMAND_QUEUE_PRIORITY_NORMAL};
  XPU_ZE_CALL(zeCommandListCreateImmediate, rt.context, rt.desc.device, &desc,
              &stream->list);
  std::lock_guard<std::mutex> lock(rt.streamsMutex);
  rt.streams.insert(stream);
  return stream;
}

static Runtime *createRuntime(int index) {
  std::vector<DeviceDesc> devices = discoverDevices();
  if (devices.empty())
    fatal("no Level Zero device found");
  if (index < 0 || static_cast<size_t>(index) >= devices.size())
    fatal("device index " + std::to_string(index) + " is out of range: " +
          std::to_string(devices.size()) + " Level Zero device(s) found");
  auto *rt = new Runtime();
  rt->desc = devices[index];
  rt->deviceIndex = index;
  ze_context_desc_t contextDesc = {ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
  XPU_ZE_CALL(zeContextCreate, rt->desc.driver, &contextDesc, &rt->context);

  uint32_t numGroups = 0;
  XPU_ZE_CALL(zeDeviceGetCommandQueueGroupProperties, rt->desc.device,
              &numGroups, nullptr);
  std::vector<ze_command_queue_group_properties_t> groups(numGroups);
  for (ze_command_queue_group_properties_t &group : groups)
    group.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  XPU_ZE_CALL(zeDeviceGetCommandQueueGroupProperties, rt->desc.device,
              &numGroups, groups.data());
  bool found = false;
  for (uint32_t i = 0; i < numGroups && !found; ++i) {
    if (groups[i].flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE) {
      rt->computeOrdinal = i;
      found = true;
    }
  }
  if (!found)
    fatal("device " + std::to_string(index) + " (" + rt->desc.properties.name +
          ") has no compute queue group");
  rt->events.init(rt->context, rt->desc.device);
  rt->timestampEvents.init(rt->context, rt->desc.device,
                           ZE_EVENT_POOL_FLAG_HOST_VISIBLE |
                               ZE_EVENT_POOL_FLAG_KERNEL_TIMESTAMP);
  rt->defaultStream = createStream(*rt);
  return rt;
}

static Runtime &getRuntime() {
  std::lock_guard<std::mutex> lock(runtimeMutex);
  if (startFailure)
    fatal(*startFailure);
  if (!runtime) {
    try {
      runtime = createRuntime(selectedDevice);
    } catch (const xpu::runtime::Failure &failure) {
      startFailure = new std::string(failure.what());
      throw;
    }
  }
  return *runtime;
}

static Stream &getStream(void *stream) {
  if (stream)
    return *static_cast<Stream *>(stream);
  return *getRuntime().defaultStream;
}

/// Appends a command to `stream` through `append(signal, numWaits, waits)`,
/// ordered after the stream's previous command.
/// `signal`, when given, is the event the command signals (a profiled
/// launch's timestamp event) instead of one from the stream's pool.
template <typename AppendFn>
static void enqueue(Stream &stream, AppendFn &&append,
                    ze_event_handle_t signal = nullptr) {
  Runtime &rt = getRuntime();
  std::lock_guard<std::mutex> lock(stream.mutex);
  if (!signal)
    signal = rt.events.take();
  ze_event_handle_t *wait =
      stream.pending.empty() ? nullptr : &stream.pending.back();
  append(signal, wait ? 1u : 0u, wait);
  stream.pending.push_back(signal);
}

static void synchronize(Stream &stream) {
  Runtime &rt = getRuntime();
  std::lock_guard<std::mutex> lock(stream.mutex);
  if (stream.pending.empty())
    return;
  XPU_ZE_CALL(zeEventHostSynchronize, stream.pending.back(),
              std::numeric_limits<uint64_t>::max());
  // Profiled launches' events are read (and released) by
  // xpuRuntimeProfileStop.
  for (ze_event_handle_t event : stream.pending)
    if (!rt.isProfiled(event))
      rt.events.release(event);
  stream.pending.clear();
}

//===----------------------------------------------------------------------===//
// C ABI
//===----------------------------------------------------------------------===//
//
// Every entry point runs its body through `guarded` (../common/ErrorState.h):
// a failure is recorded instead of exiting, and while one is recorded the
// body is skipped.

using xpu::runtime::guarded;
using xpu::runtime::guardedVoid;
using xpu::runtime::releasing;

extern "C" XPU_RUNTIME_EXPORT int xpuRuntimeGetLastError(char *buffer,
                                                         size_t size) {
  return errors().copy(buffer, size);
}

extern "C" XPU_RUNTIME_EXPORT void xpuRuntimeClearError(void) {
  errors().clear();
}

extern "C" XPU_RUNTIME_EXPORT void xpuRuntimeSetErrorPrinting(int enabled) {
  errors().setPrinting(enabled != 0);
}

extern "C" XPU_RUNTIME_EXPORT int xpuRuntimeGetDeviceCount(void) {
  return guarded(
      errors(), [] { return -1; },
      [] {
        std::lock_guard<std::mutex> lock(runtimeMutex);
        return static_cast<int>(discoverDevices().size());
      });
}

extern "C" XPU_RUNTIME_EXPORT int xpuRuntimeListDevices(void) {
  return guarded(
      errors(), [] { return -1; },
      [] {
        std::vector<DeviceDesc> devices;
        {
          std::lock_guard<std::mutex> lock(runtimeMutex);
          devices = discoverDevices();
        }
        if (devices.empty())
          std::printf("xpu levelzero runtime: no Level Zero device found\n");
        for (size_t i = 0; i < devices.size(); ++i) {
          const ze_device_properties_t &p = devices[i].properties;
          std::printf("xpu levelzero runtime: device %zu: %s [%s, %u EUs x %u "
                      "threads, %u slices]\n",
                      i, p.name, p.type == ZE_DEVICE_TYPE_GPU ? "GPU" : "other",
                      p.numEUsPerSubslice * p.numSubslicesPerSlice *
                          p.numSlices,
                      p.numThreadsPerEU, p.numSlices);
        }
        std::fflush(stdout);
        return static_cast<int>(devices.size());
      });
}

extern "C" XPU_RUNTIME_EXPORT void xpuRuntimeSelectDevice(int index) {
  guardedVoid(errors(), [&] {
    std::lock_guard<std::mutex> lock(runtimeMutex);
    if (runtime && runtime->deviceIndex != index)
      fatal("xpuRuntimeSelectDevice(" + std::to_string(index) +
            ") called after the runtime started on device " +
            std::to_string(runtime->deviceIndex) +
            "; select the device before the first module load, stream, "
            "event or allocation");
    if (index < 0)
      fatal("xpuRuntimeSelectDevice: negative device index " +
            std::to_string(index));
    if (!runtime && index != selectedDevice && startFailure) {
      // Another device may start where the first did not.
      delete startFailure;
      startFailure = nullptr;
    }
    selectedDevice = index;
  });
}

static void *loadModule(const void *data, size_t size) {
  Runtime &rt = getRuntime();
  if (!data || size == 0)
    fatal("mgpuModuleLoad: empty module");
  std::string buildFlags = xpu::runtime::getEmbeddedBuildOptions(data, size);
  ze_module_desc_t desc = {ZE_STRUCTURE_TYPE_MODULE_DESC,
                           nullptr,
                           ZE_MODULE_FORMAT_IL_SPIRV,
                           size,
                           static_cast<const uint8_t *>(data),
                           buildFlags.empty() ? nullptr : buildFlags.c_str(),
                           nullptr};
  auto module = std::make_unique<Module>();
  ze_module_build_log_handle_t log = nullptr;
  ze_result_t result =
      zeModuleCreate(rt.context, rt.desc.device, &desc, &module->module, &log);
  std::string text;
  if (result != ZE_RESULT_SUCCESS && log) {
    size_t logSize = 0;
    if (zeModuleBuildLogGetString(log, &logSize, nullptr) ==
        ZE_RESULT_SUCCESS) {
      text.assign(logSize, '\0');
      if (zeModuleBuildLogGetString(log, &logSize, text.data()) !=
          ZE_RESULT_SUCCESS)
        text.clear();
      text.resize(std::strlen(text.c_str()));
    }
  }
  if (log)
    XPU_ZE_CALL(zeModuleBuildLogDestroy, log);
  if (result != ZE_RESULT_SUCCESS) {
    char code[16];
    std::snprintf(code, sizeof(code), "0x%x", static_cast<unsigned>(result));
    fatal(std::string("zeModuleCreate failed: ") + getZeResultName(result) +
          " (" + code + ")" + (text.empty() ? "" : "; build log:\n" + text));
  }
  return module.release();
}

extern "C" XPU_RUNTIME_EXPORT void *mgpuModuleLoad(const void *data,
                                                   size_t size) {
  return guarded(
      errors(), []() -> void * { return nullptr; },
      [&] { return loadModule(data, size); });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  releasing(errors(), [&] {
    std::unique_ptr<Module> mod(static_cast<Module *>(module));
    for (std::unique_ptr<Function> &function : mod->functions)
      XPU_ZE_CALL(zeKernelDestroy, function->kernel);
    XPU_ZE_CALL(zeModuleDestroy, mod->module);
  });
}

extern "C" XPU_RUNTIME_EXPORT void *mgpuModuleGetFunction(void *module,
                                                          const char *name) {
  return guarded(
      errors(), []() -> void * { return nullptr; },
      [&]() -> void * {
        if (!module || !name)
          fatal("mgpuModuleGetFunction: null module or kernel name");
        auto *mod = static_cast<Module *>(module);
        std::lock_guard<std::mutex> lock(mod->functionsMutex);
        for (std::unique_ptr<Function> &function : mod->functions)
          if (function->name == name)
            return function.get();
        auto function = std::make_unique<Function>();
        function->name = name;
        ze_kernel_desc_t desc = {ZE_STRUCTURE_TYPE_KERNEL_DESC, nullptr, 0,
                                 name};
        ze_result_t result =
            zeKernelCreate(mod->module, &desc, &function->kernel);
        if (result == ZE_RESULT_ERROR_INVALID_KERNEL_NAME)
          fatal(std::string("zeKernelCreate failed: "
                            "ZE_RESULT_ERROR_INVALID_KERNEL_NAME: the module "
                            "has no kernel '") +
                name + "'");
        checkZe(result, "zeKernelCreate");
        ze_kernel_properties_t properties{};
        properties.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
        XPU_ZE_CALL(zeKernelGetProperties, function->kernel, &properties);
        function->numArgs = properties.numKernelArgs;
        mod->functions.push_back(std::move(function));
        return mod->functions.back().get();
      });
}

/// Sets argument `index` from `value`, whose size is not known: Level Zero
/// rejects a wrong size, so try the scalar and pointer sizes in turn.
static void setArgument(Function &fn, uint32_t index, const void *value) {
  ze_result_t result = ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
  for (size_t size : {8, 4, 2, 1}) {
    result = zeKernelSetArgumentValue(fn.kernel, index, size, value);
    if (result != ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE)
      break;
  }
  checkZe(result, "zeKernelSetArgumentValue");
}

static void launchKernel(void *function, intptr_t gridX, intptr_t gridY,
                         intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                         intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                         void **params, size_t paramsCount) {
  if (!function)
    fatal("mgpuLaunchKernel: null function");
  auto &fn = *static_cast<Function *>(function);
  std::lock_guard<std::mutex> lock(fn.launchMutex);
  size_t numValueArgs = paramsCount;
  if (sharedMemBytes > 0) {
    // Dynamic shared memory is the kernel's last argument: one past the
    // launch's values, or the last entry of `params` as upstream does.
    if (fn.numArgs == paramsCount && paramsCount > 0)
      numValueArgs = paramsCount - 1;
    if (numValueArgs + 1 == fn.numArgs)
      XPU_ZE_CALL(zeKernelSetArgumentValue, fn.kernel, fn.numArgs - 1,
                  static_cast<size_t>(sharedMemBytes), nullptr);
  }
  size_t expected = numValueArgs + (sharedMemBytes > 0 ? 1 : 0);
  if (expected != fn.numArgs)
    fatal("kernel '" + fn.name + "' takes " + std::to_string(fn.numArgs) +
          " argument(s) but the launch passes " + std::to_string(paramsCount) +
          (sharedMemBytes > 0 ? " and dynamic shared memory" : "") +
          "; memrefs must be passed to SPIR-V kernels as bare pointers "
          "(gpu-to-llvm{use-bare-pointers-for-kernels=true})");
  if (numValueArgs > 0 && !params)
    fatal("mgpuLaunchKernel: null params for kernel '" + fn.name + "'");
  Runtime &rt = getRuntime();
  for (size_t i = 0; i < numValueArgs; ++i) {
    // A pointer into registered host memory (constants) becomes a pointer
    // into its device-visible copy.
    uintptr_t value = 0;
    std::memcpy(&value, params[i], sizeof(value));
    if (void *mirror = value ? rt.mirrorOf(value) : nullptr)
      XPU_ZE_CALL(zeKernelSetArgumentValue, fn.kernel, static_cast<uint32_t>(i),
                  sizeof(mirror), &mirror);
    else
      setArgument(fn, static_cast<uint32_t>(i), params[i]);
  }

  constexpr intptr_t kMax = std::numeric_limits<uint32_t>::max();
  if (gridX <= 0 || gridY <= 0 || gridZ <= 0 || blockX <= 0 || blockY <= 0 ||
      blockZ <= 0 || gridX > kMax || gridY > kMax || gridZ > kMax ||
      blockX > kMax || blockY > kMax || blockZ > kMax)
    fatal("mgpuLaunchKernel: kernel '" + fn.name +
          "' launched with an empty or oversized grid or block");
  XPU_ZE_CALL(zeKernelSetGroupSize, fn.kernel, static_cast<uint32_t>(blockX),
              static_cast<uint32_t>(blockY), static_cast<uint32_t>(blockZ));
  ze_group_count_t groups = {static_cast<uint32_t>(gridX),
                             static_cast<uint32_t>(gridY),
                             static_cast<uint32_t>(gridZ)};
  Stream &s = getStream(stream);
  ze_event_handle_t timestamp = nullptr;
  {
    std::lock_guard<std::mutex> profileLock(rt.profileMutex);
    if (rt.profiling) {
      timestamp = rt.timestampEvents.take();
      rt.profiledLaunches.emplace_back(fn.name, timestamp);
      rt.profiledEvents.insert(timestamp);
    }
  }
  enqueue(
      s,
      [&](ze_event_handle_t signal, uint32_t numWaits,
          ze_event_handle_t *waits) {
        XPU_ZE_CALL(zeCommandListAppendLaunchKernel, s.list, fn.kernel, &groups,
                    signal, numWaits, waits);
      },
      timestamp);
}

extern "C" XPU_RUNTIME_EXPORT void
mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                 intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                 int32_t sharedMemBytes, void *stream, void **params,
                 void ** /*extra*/, size_t paramsCount) {
  guardedVoid(errors(), [&] {
    launchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ,
                 sharedMemBytes, stream, params, paramsCount);
  });
}

extern "C" XPU_RUNTIME_EXPORT void *mgpuStreamCreate(void) {
  return guarded(
      errors(), []() -> void * { return nullptr; },
      []() -> void * { return createStream(getRuntime()); });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuStreamDestroy(void *stream) {
  if (!stream)
    return;
  releasing(errors(), [&] {
    std::unique_ptr<Stream> s(static_cast<Stream *>(stream));
    Runtime &rt = getRuntime();
    {
      std::lock_guard<std::mutex> lock(rt.streamsMutex);
      rt.streams.erase(s.get());
    }
    if (!errors().failed())
      synchronize(*s);
    XPU_ZE_CALL(zeCommandListDestroy, s->list);
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuStreamSynchronize(void *stream) {
  guardedVoid(errors(), [&] { synchronize(getStream(stream)); });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuStreamWaitEvent(void *stream,
                                                       void *event) {
  guardedVoid(errors(), [&] {
    if (!event)
      fatal("mgpuStreamWaitEvent: null event");
    auto *ev = static_cast<Event *>(event);
    if (!ev->recorded)
      return;
    Stream &s = getStream(stream);
    enqueue(s, [&](ze_event_handle_t signal, uint32_t numWaits,
                   ze_event_handle_t *waits) {
      ze_event_handle_t all[2] = {ev->event, nullptr};
      uint32_t count = 1;
      if (numWaits)
        all[count++] = waits[0];
      XPU_ZE_CALL(zeCommandListAppendBarrier, s.list, signal, count, all);
    });
  });
}

extern "C" XPU_RUNTIME_EXPORT void *mgpuEventCreate(void) {
  return guarded(
      errors(), []() -> void * { return nullptr; },
      []() -> void * {
        auto ev = std::make_unique<Event>();
        ev->event = getRuntime().events.take();
        return ev.release();
      });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuEventDestroy(void *event) {
  if (!event)
    return;
  releasing(errors(), [&] {
    std::unique_ptr<Event> ev(static_cast<Event *>(event));
    if (ev->recorded && !errors().failed())
      XPU_ZE_CALL(zeEventHostSynchronize, ev->event,
                  std::numeric_limits<uint64_t>::max());
    getRuntime().events.release(ev->event);
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuEventSynchronize(void *event) {
  guardedVoid(errors(), [&] {
    if (!event)
      fatal("mgpuEventSynchronize: null event");
    auto *ev = static_cast<Event *>(event);
    if (ev->recorded)
      XPU_ZE_CALL(zeEventHostSynchronize, ev->event,
                  std::numeric_limits<uint64_t>::max());
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuEventRecord(void *event, void *stream) {
  guardedVoid(errors(), [&] {
    if (!event)
      fatal("mgpuEventRecord: null event");
    auto *ev = static_cast<Event *>(event);
    if (ev->recorded) {
      XPU_ZE_CALL(zeEventHostSynchronize, ev->event,
                  std::numeric_limits<uint64_t>::max());
      XPU_ZE_CALL(zeEventHostReset, ev->event);
    }
    Stream &s = getStream(stream);
    std::lock_guard<std::mutex> lock(s.mutex);
    ze_event_handle_t *wait = s.pending.empty() ? nullptr : &s.pending.back();
    XPU_ZE_CALL(zeCommandListAppendBarrier, s.list, ev->event, wait ? 1u : 0u,
                wait);
    ev->recorded = true;
  });
}

static void *allocate(uint64_t size, bool isHostShared) {
  Runtime &rt = getRuntime();
  constexpr size_t kAlignment = 64;
  size_t bytes = size ? size : 1;
  void *ptr = nullptr;
  ze_device_mem_alloc_desc_t deviceDesc = {
      ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC, nullptr, 0, 0};
  if (isHostShared) {
    ze_host_mem_alloc_desc_t hostDesc = {ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC,
                                         nullptr, 0};
    XPU_ZE_CALL(zeMemAllocShared, rt.context, &deviceDesc, &hostDesc, bytes,
                kAlignment, rt.desc.device, &ptr);
  } else {
    XPU_ZE_CALL(zeMemAllocDevice, rt.context, &deviceDesc, bytes, kAlignment,
                rt.desc.device, &ptr);
  }
  if (!ptr)
    fatal("mgpuMemAlloc: the driver returned a null pointer for " +
          std::to_string(bytes) + " bytes");
  return ptr;
}

extern "C" XPU_RUNTIME_EXPORT void *
mgpuMemAlloc(uint64_t size, void * /*stream*/, bool isHostShared) {
  // After an error, zeroed host memory: host code may still write into it.
  return guarded(
      errors(), [&] { return errors().scratch(size); },
      [&] { return allocate(size, isHostShared); });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr || errors().freeScratch(ptr))
    return;
  releasing(errors(), [&] {
    // Work queued on the stream may still use the memory (after an error
    // the stream may be broken, and the memory is freed all the same).
    if (!errors().failed())
      synchronize(getStream(stream));
    XPU_ZE_CALL(zeMemFree, getRuntime().context, ptr);
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src, size_t size,
                                              void *stream) {
  if (size == 0)
    return;
  guardedVoid(errors(), [&] {
    Stream &s = getStream(stream);
    enqueue(s, [&](ze_event_handle_t signal, uint32_t numWaits,
                   ze_event_handle_t *waits) {
      XPU_ZE_CALL(zeCommandListAppendMemoryCopy, s.list, dst, src, size, signal,
                  numWaits, waits);
    });
  });
}

template <typename T>
static void memsetImpl(void *dst, T value, size_t count, void *stream) {
  if (count == 0)
    return;
  guardedVoid(errors(), [&] {
    Stream &s = getStream(stream);
    enqueue(s, [&](ze_event_handle_t signal, uint32_t numWaits,
                   ze_event_handle_t *waits) {
      // Like upstream's wrappers, pass a pattern that lives on the stack.
      XPU_ZE_CALL(zeCommandListAppendMemoryFill, s.list, dst, &value, sizeof(T),
                  count * sizeof(T), signal, numWaits, waits);
    });
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                                size_t count, void *stream) {
  memsetImpl(dst, value, count, stream);
}

extern "C" XPU_RUNTIME_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                                size_t count, void *stream) {
  memsetImpl(dst, value, count, stream);
}

extern "C" XPU_RUNTIME_EXPORT void
mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                          int64_t elementSizeBytes) {
  guardedVoid(errors(), [&] {
    if (!descriptor)
      fatal("mgpuMemHostRegisterMemRef: null descriptor");
    auto [start, size] =
        xpu::runtime::memrefRange(rank, descriptor, elementSizeBytes);
    if (!size)
      return;
    Runtime &rt = getRuntime();
    rt.hostMirrors.registerRange(start, size, [&] {
      void *copy = allocate(size, /*isHostShared=*/true);
      std::memcpy(copy, reinterpret_cast<void *>(start), size);
      return copy;
    });
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuMemHostUnregisterMemRef(int64_t, void *,
                                                               int64_t) {
  // Constants stay registered for the life of the program (see the header).
}

/// The device-only test mode: allocations without `isHostShared` are
/// zeMemAllocDevice memory already, which a discrete GPU's host cannot
/// address; nothing changes.
extern "C" XPU_RUNTIME_EXPORT void xpuRuntimeSetDeviceOnlyMemory(int) {}

extern "C" XPU_RUNTIME_EXPORT void xpuRuntimeProfileStart(void) {
  guardedVoid(errors(), [] {
    Runtime &rt = getRuntime();
    std::lock_guard<std::mutex> lock(rt.profileMutex);
    rt.profiledLaunches.clear();
    rt.profileNames.clear();
    rt.profiling = true;
  });
}

static int profileStop(XPUKernelProfile *entries, int capacity) {
  Runtime &rt = getRuntime();
  std::vector<std::pair<std::string, ze_event_handle_t>> launches;
  {
    std::lock_guard<std::mutex> lock(rt.profileMutex);
    rt.profiling = false;
    launches.swap(rt.profiledLaunches);
  }
  // Every recorded launch leaves the streams' pending lists first, so that
  // its event can go back to the timestamp pool below.
  std::vector<Stream *> streams;
  {
    std::lock_guard<std::mutex> lock(rt.streamsMutex);
    streams.assign(rt.streams.begin(), rt.streams.end());
  }
  for (Stream *stream : streams)
    synchronize(*stream);
  // Ticks of the profiling timer in nanoseconds (device properties 1.0).
  double nsPerTick = static_cast<double>(rt.desc.properties.timerResolution);
  uint32_t validBits = rt.desc.properties.kernelTimestampValidBits;
  uint64_t mask =
      validBits >= 64 ? ~uint64_t(0) : ((uint64_t(1) << validBits) - 1);
  std::vector<std::string> &names = rt.profileNames;
  names.clear();
  std::vector<uint64_t> counts;
  std::vector<int64_t> nanoseconds;
  for (auto &[name, event] : launches) {
    size_t i = std::find(names.begin(), names.end(), name) - names.begin();
    if (i == names.size()) {
      names.push_back(name);
      counts.push_back(0);
      nanoseconds.push_back(0);
    }
    ++counts[i];
    ze_kernel_timestamp_result_t ts{};
    bool timed =
        zeEventHostSynchronize(event, std::numeric_limits<uint64_t>::max()) ==
            ZE_RESULT_SUCCESS &&
        zeEventQueryKernelTimestamp(event, &ts) == ZE_RESULT_SUCCESS;
    if (!timed || nanoseconds[i] < 0) {
      nanoseconds[i] = -1;
    } else {
      uint64_t ticks = (ts.global.kernelEnd - ts.global.kernelStart) & mask;
      nanoseconds[i] += static_cast<int64_t>(ticks * nsPerTick);
    }
    {
      std::lock_guard<std::mutex> lock(rt.profileMutex);
      rt.profiledEvents.erase(event);
    }
    rt.timestampEvents.release(event);
  }
  int count = static_cast<int>(names.size());
  for (int i = 0; i < count && i < capacity && entries; ++i)
    entries[i] = {names[i].c_str(), counts[i], nanoseconds[i]};
  return count;
}

extern "C" XPU_RUNTIME_EXPORT int
xpuRuntimeProfileStop(XPUKernelProfile *entries, int capacity) {
  return guarded(
      errors(), [] { return 0; },
      [&] { return profileStop(entries, capacity); });
}
