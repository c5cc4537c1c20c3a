//===- OpenCLRuntimeWrappers.cpp - xpu runtime on OpenCL ------------------===//
//
// Implements the C ABI of xpu/Runtime/XPURuntime.h on OpenCL 2.0+ devices
// with shared virtual memory (SVM).
//
// Initialisation is lazy: the first call that needs a device (module loads
// run from global constructors) creates the context and a default in-order
// queue for the selected device.
//
// SPIR-V modules are loaded with clCreateProgramWithIL when the device reports
// an IL version (built with the options the module embeds for Intel's
// compiler, e.g. its GRF mode, on Intel devices). Otherwise (PoCL 3.1, for one)
// the module is translated to SPIR 1.2 bitcode with `llvm-spirv -r
// --spirv-target-env=CL1.2`, found at configure time ($XPU_OPENCL_LLVM_SPIRV
// overrides it), and loaded with clCreateProgramWithBinary and the build
// options "-x spir -spir-std=1.2". Translations are kept by the SPIR-V's
// hash: xpuOpenCLWriteSPIR writes them into a directory (a package carries
// them) and xpuOpenCLAddSPIRDirectory makes a directory's translations
// available, so that a package loads where llvm-spirv is absent without
// starting a process.
//
// Buffers: generated code passes raw pointers, so all memory from
// mgpuMemAlloc is SVM (clSVMAlloc; fine-grain buffer SVM when the device has
// it, coarse-grain otherwise) and pointer arguments are set with
// clSetKernelArgSVMPointer. mgpuLaunchKernel only gets `void **params`, with
// no types, so the runtime finds each kernel argument's kind elsewhere:
//   1. From the SPIR-V module itself: the OpFunctionParameter types of each
//      OpEntryPoint give pointers (CrossWorkgroup, UniformConstant, Generic:
//      SVM pointers; Workgroup: the dynamic shared memory) and scalars with
//      their sizes (OpTypeInt, OpTypeFloat, OpTypeVector).
//   2. Else from the kernel's argument info (CL_KERNEL_ARG_ADDRESS_QUALIFIER,
//      CL_KERNEL_ARG_TYPE_NAME), where the implementation has it.
//   3. Else from a registry of live SVM allocations (start -> size) that the
//      runtime keeps anyway: an argument whose pointer-sized value points into
//      a registered allocation is passed as an SVM pointer, anything else is a
//      scalar whose size is found by trying 8, 4, 2 and 1 bytes until
//      clSetKernelArg stops returning CL_INVALID_ARG_SIZE. This is a
//      heuristic: a 64-bit scalar that happens to equal an address inside a
//      live allocation would be taken for a pointer, and a host pointer passed
//      for a buffer is not caught.
// With 1. or 2., a pointer argument must point into a registered allocation;
// anything else is reported instead of being handed to the device.
//
// Device-only memory (xpuRuntimeSetDeviceOnlyMemory, a test mode): the
// non-host-shared allocations of mgpuMemAlloc become CL_MEM_READ_WRITE
// buffers without SVM, which the host cannot address. The host is handed
// the start of an address range reserved with PROT_NONE instead, so that
// host code that reads or writes such a buffer faults at once (PoCL runs
// kernels on host threads: SVM would let the bug pass); the runtime reports
// the access with the buffer (a SIGSEGV handler that then leaves the fault
// to the previous handler), translates an address in such a range to the
// buffer (or a sub-buffer at the offset) when it is a kernel argument, and
// copies and fills such buffers with clEnqueue{Read,Write,Copy,Fill}Buffer.
//
// Errors: every OpenCL call is checked, and a failure records the call and
// the error name in the runtime's error channel (../common/ErrorState.h:
// printed once, read with xpuRuntimeGetLastError, later calls do nothing
// until xpuRuntimeClearError). Nothing here exits the process.
//
//===----------------------------------------------------------------------===//

#include "xpu/Runtime/XPURuntime.h"

#include "../common/ErrorState.h"
#include "../common/HostMirrors.h"
#include "../common/SPIRVBuildOptions.h"

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <atomic>
#include <csignal>

#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#ifndef XPU_LLVM_SPIRV_PATH
#define XPU_LLVM_SPIRV_PATH ""
#endif

//===----------------------------------------------------------------------===//
// Error reporting
//===----------------------------------------------------------------------===//

static const char *getCLErrorName(cl_int error) {
  switch (error) {
#define XPU_CL_ERROR(name)                                                     \
  case name:                                                                   \
    return #name;
    XPU_CL_ERROR(CL_SUCCESS)
    XPU_CL_ERROR(CL_DEVICE_NOT_FOUND)
    XPU_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
    XPU_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
    XPU_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    XPU_CL_ERROR(CL_OUT_OF_RESOURCES)
    XPU_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
    XPU_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
    XPU_CL_ERROR(CL_MEM_COPY_OVERLAP)
    XPU_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
    XPU_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
    XPU_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
    XPU_CL_ERROR(CL_MAP_FAILURE)
    XPU_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    XPU_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
    XPU_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
    XPU_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
    XPU_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
    XPU_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
    XPU_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
    XPU_CL_ERROR(CL_INVALID_VALUE)
    XPU_CL_ERROR(CL_INVALID_DEVICE_TYPE)
    XPU_CL_ERROR(CL_INVALID_PLATFORM)
    XPU_CL_ERROR(CL_INVALID_DEVICE)
    XPU_CL_ERROR(CL_INVALID_CONTEXT)
    XPU_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
    XPU_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
    XPU_CL_ERROR(CL_INVALID_HOST_PTR)
    XPU_CL_ERROR(CL_INVALID_MEM_OBJECT)
    XPU_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
    XPU_CL_ERROR(CL_INVALID_IMAGE_SIZE)
    XPU_CL_ERROR(CL_INVALID_SAMPLER)
    XPU_CL_ERROR(CL_INVALID_BINARY)
    XPU_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
    XPU_CL_ERROR(CL_INVALID_PROGRAM)
    XPU_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
    XPU_CL_ERROR(CL_INVALID_KERNEL_NAME)
    XPU_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
    XPU_CL_ERROR(CL_INVALID_KERNEL)
    XPU_CL_ERROR(CL_INVALID_ARG_INDEX)
    XPU_CL_ERROR(CL_INVALID_ARG_VALUE)
    XPU_CL_ERROR(CL_INVALID_ARG_SIZE)
    XPU_CL_ERROR(CL_INVALID_KERNEL_ARGS)
    XPU_CL_ERROR(CL_INVALID_WORK_DIMENSION)
    XPU_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
    XPU_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
    XPU_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
    XPU_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
    XPU_CL_ERROR(CL_INVALID_EVENT)
    XPU_CL_ERROR(CL_INVALID_OPERATION)
    XPU_CL_ERROR(CL_INVALID_GL_OBJECT)
    XPU_CL_ERROR(CL_INVALID_BUFFER_SIZE)
    XPU_CL_ERROR(CL_INVALID_MIP_LEVEL)
    XPU_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
    XPU_CL_ERROR(CL_INVALID_PROPERTY)
    XPU_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
    XPU_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
    XPU_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
    XPU_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
    XPU_CL_ERROR(CL_INVALID_PIPE_SIZE)
    XPU_CL_ERROR(CL_INVALID_DEVICE_QUEUE)
    XPU_CL_ERROR(CL_INVALID_SPEC_ID)
    XPU_CL_ERROR(CL_MAX_SIZE_RESTRICTION_EXCEEDED)
#undef XPU_CL_ERROR
  case -1001:
    return "CL_PLATFORM_NOT_FOUND_KHR";
  default:
    return "unknown OpenCL error";
  }
}

/// The library's error channel (never destroyed: global destructors of
/// compiled programs still call in).
static xpu::runtime::ErrorState &errors() {
  static auto *state = new xpu::runtime::ErrorState("xpu opencl runtime");
  return *state;
}

/// Fails the current C entry point with `message` (see ErrorState.h).
[[noreturn]] static void fatal(const std::string &message) {
  xpu::runtime::fail(message);
}

static void checkCL(cl_int error, const char *call) {
  if (error == CL_SUCCESS)
    return;
  fatal(std::string(call) + " failed: " + getCLErrorName(error) + " (" +
        std::to_string(error) + ")");
}

/// Calls the OpenCL function `fn` and fails with its name and the error name
/// if it does not return CL_SUCCESS.
#define XPU_CL_CALL(fn, ...) checkCL(fn(__VA_ARGS__), #fn)

static std::string formatPointer(const void *ptr) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%p", ptr);
  return buffer;
}

//===----------------------------------------------------------------------===//
// Device discovery
//===----------------------------------------------------------------------===//

namespace {
struct DeviceDesc {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platformName;
  std::string deviceName;
  std::string deviceVersion;
  std::string ilVersion;
  std::string extensions;
  cl_device_type type = 0;
  cl_uint vendorId = 0;
  cl_device_svm_capabilities svmCaps = 0;
  bool hasSVMQuery = false;
};
} // namespace

static std::string getPlatformString(cl_platform_id platform,
                                     cl_platform_info param) {
  size_t size = 0;
  XPU_CL_CALL(clGetPlatformInfo, platform, param, 0, nullptr, &size);
  std::string value(size, '\0');
  XPU_CL_CALL(clGetPlatformInfo, platform, param, size, value.data(), nullptr);
  value.resize(std::strlen(value.c_str()));
  return value;
}

static std::string getDeviceString(cl_device_id device, cl_device_info param) {
  size_t size = 0;
  XPU_CL_CALL(clGetDeviceInfo, device, param, 0, nullptr, &size);
  std::string value(size, '\0');
  XPU_CL_CALL(clGetDeviceInfo, device, param, size, value.data(), nullptr);
  value.resize(std::strlen(value.c_str()));
  return value;
}

/// Returns every device of every platform, in a stable order. No platform at
/// all (the ICD loader reports CL_PLATFORM_NOT_FOUND_KHR) gives an empty list.
static std::vector<DeviceDesc> discoverDevices() {
  cl_uint numPlatforms = 0;
  cl_int error = clGetPlatformIDs(0, nullptr, &numPlatforms);
  if (error == -1001 /*CL_PLATFORM_NOT_FOUND_KHR*/ || numPlatforms == 0)
    return {};
  checkCL(error, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(numPlatforms);
  XPU_CL_CALL(clGetPlatformIDs, numPlatforms, platforms.data(), nullptr);

  std::vector<DeviceDesc> result;
  for (cl_platform_id platform : platforms) {
    cl_uint numDevices = 0;
    error =
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &numDevices);
    if (error == CL_DEVICE_NOT_FOUND || numDevices == 0)
      continue;
    checkCL(error, "clGetDeviceIDs");
    std::vector<cl_device_id> devices(numDevices);
    XPU_CL_CALL(clGetDeviceIDs, platform, CL_DEVICE_TYPE_ALL, numDevices,
                devices.data(), nullptr);
    std::string platformName = getPlatformString(platform, CL_PLATFORM_NAME);
    for (cl_device_id device : devices) {
      DeviceDesc desc;
      desc.platform = platform;
      desc.device = device;
      desc.platformName = platformName;
      desc.deviceName = getDeviceString(device, CL_DEVICE_NAME);
      desc.deviceVersion = getDeviceString(device, CL_DEVICE_VERSION);
      desc.extensions = getDeviceString(device, CL_DEVICE_EXTENSIONS);
      XPU_CL_CALL(clGetDeviceInfo, device, CL_DEVICE_TYPE, sizeof(desc.type),
                  &desc.type, nullptr);
      XPU_CL_CALL(clGetDeviceInfo, device, CL_DEVICE_VENDOR_ID,
                  sizeof(desc.vendorId), &desc.vendorId, nullptr);
      // OpenCL 1.x devices know neither query: treat a CL_INVALID_VALUE as
      // "no IL" and "no SVM".
      size_t ilSize = 0;
      error =
          clGetDeviceInfo(device, CL_DEVICE_IL_VERSION, 0, nullptr, &ilSize);
      if (error == CL_SUCCESS)
        desc.ilVersion = getDeviceString(device, CL_DEVICE_IL_VERSION);
      else if (error != CL_INVALID_VALUE)
        checkCL(error, "clGetDeviceInfo(CL_DEVICE_IL_VERSION)");
      error = clGetDeviceInfo(device, CL_DEVICE_SVM_CAPABILITIES,
                              sizeof(desc.svmCaps), &desc.svmCaps, nullptr);
      if (error == CL_SUCCESS)
        desc.hasSVMQuery = true;
      else if (error != CL_INVALID_VALUE)
        checkCL(error, "clGetDeviceInfo(CL_DEVICE_SVM_CAPABILITIES)");
      result.push_back(std::move(desc));
    }
  }
  return result;
}

static bool hasFineGrainSVM(const DeviceDesc &desc) {
  return desc.svmCaps & CL_DEVICE_SVM_FINE_GRAIN_BUFFER;
}

static bool hasCoarseGrainSVM(const DeviceDesc &desc) {
  return desc.svmCaps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER;
}

/// CL_DEVICE_VENDOR_ID of Intel devices (the PCI vendor ID).
static constexpr cl_uint kIntelVendorId = 0x8086;

static bool hasSPIRVIL(const DeviceDesc &desc) {
  return desc.ilVersion.find("SPIR-V") != std::string::npos;
}

static bool hasSPIR(const DeviceDesc &desc) {
  return desc.extensions.find("cl_khr_spir") != std::string::npos;
}

static std::string describeDevice(const DeviceDesc &desc) {
  std::string type;
  if (desc.type & CL_DEVICE_TYPE_GPU)
    type = "GPU";
  else if (desc.type & CL_DEVICE_TYPE_CPU)
    type = "CPU";
  else if (desc.type & CL_DEVICE_TYPE_ACCELERATOR)
    type = "accelerator";
  else
    type = "other";
  std::string svm;
  if (hasFineGrainSVM(desc))
    svm = "fine-grain buffer SVM";
  else if (hasCoarseGrainSVM(desc))
    svm = "coarse-grain buffer SVM";
  else
    svm = "no SVM (unusable)";
  std::string spirv;
  if (hasSPIRVIL(desc))
    spirv = "SPIR-V IL " + desc.ilVersion;
  else if (hasSPIR(desc))
    spirv = "SPIR-V through SPIR 1.2";
  else
    spirv = "no SPIR-V (unusable)";
  return desc.platformName + " / " + desc.deviceName + " [" + type + ", " +
         desc.deviceVersion + ", " + spirv + ", " + svm + "]";
}

//===----------------------------------------------------------------------===//
// Runtime state
//===----------------------------------------------------------------------===//

namespace {
/// The context, default queue and live SVM allocations of the selected
/// device. Created on first use and never destroyed, so that calls from
/// global destructors still find it.
struct Runtime {
  DeviceDesc desc;
  int deviceIndex = 0;
  cl_context context = nullptr;
  cl_command_queue defaultQueue = nullptr;
  bool fineGrain = false;

  std::mutex allocationsMutex;
  /// Start address -> size in bytes of every live mgpuMemAlloc allocation.
  std::map<uintptr_t, size_t> allocations;

  /// Device-only buffers (the test mode): the start of the reserved host
  /// range that stands for each -> the buffer.
  struct DeviceOnlyBuffer {
    cl_mem mem = nullptr;
    size_t size = 0, reserved = 0;
    /// Sub-buffers made for arguments that point inside: offset -> buffer.
    std::map<size_t, cl_mem> subBuffers;
  };
  std::map<uintptr_t, DeviceOnlyBuffer> deviceOnly;

  /// The device-only buffer `address` points into and the offset there, or
  /// null.
  DeviceOnlyBuffer *findDeviceOnly(uintptr_t address, size_t &offset) {
    std::lock_guard<std::mutex> lock(allocationsMutex);
    auto it = deviceOnly.upper_bound(address);
    if (it == deviceOnly.begin())
      return nullptr;
    --it;
    offset = address - it->first;
    if (offset >= std::max<size_t>(it->second.size, 1))
      return nullptr;
    return &it->second;
  }

  /// Host ranges registered with mgpuMemHostRegisterMemRef and their SVM
  /// copies.
  xpu::runtime::HostMirrors hostMirrors;
  void *mirrorOf(uintptr_t address) { return hostMirrors.translate(address); }

  /// Launches recorded between xpuRuntimeProfileStart and Stop.
  std::mutex profileMutex;
  bool profiling = false;
  std::vector<std::pair<std::string, cl_event>> profiledLaunches;
  std::vector<std::string> profileNames;

  /// Returns true if `address` lies inside a live allocation.
  bool isAllocated(uintptr_t address) {
    std::lock_guard<std::mutex> lock(allocationsMutex);
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin())
      return false;
    --it;
    return address - it->first < std::max<size_t>(it->second, 1);
  }
};

/// A kernel and what the runtime knows about its arguments.
struct Function {
  enum class ArgKind { Unknown, Pointer, Local, Scalar };
  struct Arg {
    ArgKind kind = ArgKind::Unknown;
    /// Size in bytes of a scalar, 0 when not known.
    size_t size = 0;
    std::string typeName;
  };

  cl_kernel kernel = nullptr;
  std::string name;
  std::vector<Arg> args;
  /// clSetKernelArg and clEnqueueNDRangeKernel on one kernel from several
  /// threads would race.
  std::mutex launchMutex;
};

/// What the SPIR-V module says about one kernel argument.
struct SPIRVArg {
  enum class Kind { Unknown, Pointer, Local, Scalar } kind = Kind::Unknown;
  size_t size = 0;
  std::string typeName;
};

struct Module {
  cl_program program = nullptr;
  /// Kernel name -> argument kinds, read from the SPIR-V module.
  std::map<std::string, std::vector<SPIRVArg>> signatures;
  std::vector<std::unique_ptr<Function>> functions;
  std::mutex functionsMutex;
};

struct Event {
  /// The marker of the last mgpuEventRecord, null before the first one.
  cl_event event = nullptr;
};
} // namespace

/// Every queue records timestamps, so that xpuRuntimeProfileStart can start
/// at any time.
static const cl_queue_properties kQueueProperties[] = {
    CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0};

static std::mutex runtimeMutex;
static Runtime *runtime = nullptr;
static int selectedDevice = 0;
/// Why the runtime could not start, when it could not: every later call that
/// needs it fails with the same message.
static std::string *startFailure = nullptr;

static Runtime *createRuntime(int index) {
  std::vector<DeviceDesc> devices = discoverDevices();
  if (devices.empty())
    fatal("no OpenCL device found (no ICD platform reports a device)");
  if (index < 0 || static_cast<size_t>(index) >= devices.size())
    fatal("device index " + std::to_string(index) + " is out of range: " +
          std::to_string(devices.size()) + " OpenCL device(s) found");
  const DeviceDesc &desc = devices[index];
  if (!desc.hasSVMQuery || !(hasFineGrainSVM(desc) || hasCoarseGrainSVM(desc)))
    fatal("device " + std::to_string(index) + " (" + desc.deviceName +
          ") has no buffer SVM, which this runtime needs to pass raw "
          "pointers to kernels (OpenCL 2.0 or later with SVM required)");
  if (!hasSPIRVIL(desc) && !hasSPIR(desc))
    fatal("device " + std::to_string(index) + " (" + desc.deviceName +
          ") accepts neither SPIR-V (CL_DEVICE_IL_VERSION) nor SPIR "
          "(cl_khr_spir)");

  auto *rt = new Runtime();
  rt->desc = desc;
  rt->deviceIndex = index;
  rt->fineGrain = hasFineGrainSVM(desc);
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM,
      reinterpret_cast<cl_context_properties>(desc.platform), 0};
  cl_int error = CL_SUCCESS;
  rt->context =
      clCreateContext(properties, 1, &desc.device, nullptr, nullptr, &error);
  checkCL(error, "clCreateContext");
  rt->defaultQueue = clCreateCommandQueueWithProperties(
      rt->context, desc.device, kQueueProperties, &error);
  checkCL(error, "clCreateCommandQueueWithProperties");
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

static cl_command_queue getQueue(void *stream) {
  if (stream)
    return static_cast<cl_command_queue>(stream);
  return getRuntime().defaultQueue;
}

//===----------------------------------------------------------------------===//
// Module loading
//===----------------------------------------------------------------------===//

static std::string getBuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  XPU_CL_CALL(clGetProgramBuildInfo, program, device, CL_PROGRAM_BUILD_LOG, 0,
              nullptr, &size);
  std::string log(size, '\0');
  XPU_CL_CALL(clGetProgramBuildInfo, program, device, CL_PROGRAM_BUILD_LOG,
              size, log.data(), nullptr);
  log.resize(std::strlen(log.c_str()));
  return log;
}

static void buildProgram(cl_program program, cl_device_id device,
                         const char *options) {
  cl_int error = clBuildProgram(program, 1, &device, options, nullptr, nullptr);
  if (error == CL_SUCCESS)
    return;
  std::string log = getBuildLog(program, device);
  fatal(std::string("clBuildProgram failed: ") + getCLErrorName(error) + " (" +
        std::to_string(error) + "); build log:\n" + log);
}

/// A temporary file that is removed when it goes out of scope.
namespace {
struct TempFile {
  std::string path;
  explicit TempFile(const std::string &suffix) {
    std::error_code ec;
    std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
    if (ec)
      dir = "/tmp";
    std::string pattern = (dir / ("xpu-opencl-XXXXXX" + suffix)).string();
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    int fd = mkstemps(buffer.data(), static_cast<int>(suffix.size()));
    if (fd < 0)
      fatal("cannot create a temporary file " + pattern + ": " +
            std::strerror(errno));
    close(fd);
    path = buffer.data();
  }
  ~TempFile() { std::remove(path.c_str()); }
};
} // namespace

/// Translates SPIR-V to SPIR 1.2 bitcode with llvm-spirv.
static std::vector<unsigned char> runLLVMSPIRV(const void *data, size_t size) {
  const char *override = std::getenv("XPU_OPENCL_LLVM_SPIRV");
  const char *tool = override && *override ? override : XPU_LLVM_SPIRV_PATH;
  if (!*tool)
    fatal("the device has no SPIR-V IL support and this runtime was built "
          "without llvm-spirv, so SPIR-V cannot be translated to SPIR 1.2; "
          "install llvm-spirv (e.g. Debian's llvm-spirv-15) and reconfigure");
  TempFile spv(".spv");
  TempFile bc(".bc");
  {
    std::ofstream out(spv.path, std::ios::binary);
    out.write(static_cast<const char *>(data),
              static_cast<std::streamsize>(size));
    if (!out)
      fatal("cannot write " + spv.path);
  }
  std::vector<std::string> argStrings = {
      tool, "-r", "--spirv-target-env=CL1.2", spv.path, "-o", bc.path};
  std::vector<char *> argv;
  for (std::string &arg : argStrings)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int spawnError =
      posix_spawn(&pid, tool, nullptr, nullptr, argv.data(), environ);
  if (spawnError != 0)
    fatal(std::string("cannot run ") + tool + ": " + std::strerror(spawnError));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      fatal(std::string("waitpid on ") + tool + ": " + std::strerror(errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    fatal(std::string(tool) +
          " -r --spirv-target-env=CL1.2 failed to translate the SPIR-V "
          "module (" +
          std::to_string(size) + " bytes) to SPIR 1.2");
  std::ifstream in(bc.path, std::ios::binary);
  std::vector<unsigned char> bitcode((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
  if (bitcode.empty())
    fatal(std::string(tool) + " produced no SPIR 1.2 bitcode");
  return bitcode;
}

/// SPIR translations by the FNV-1a hash of their SPIR-V, and the
/// directories to look for more in (`<hash>.bc`).
namespace {
struct Translations {
  std::mutex mutex;
  std::map<uint64_t, std::vector<unsigned char>> bitcode;
  std::vector<std::string> directories;
};
} // namespace

static Translations &translations() {
  static auto *t = new Translations();
  return *t;
}

static uint64_t hashBytes(const void *data, size_t size) {
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= static_cast<const unsigned char *>(data)[i];
    h *= 1099511628211ull;
  }
  return h;
}

static std::string translationFile(uint64_t hash) {
  char name[32];
  std::snprintf(name, sizeof(name), "%016llx.bc",
                static_cast<unsigned long long>(hash));
  return name;
}

/// The SPIR 1.2 bitcode of a SPIR-V module: a translation made or read
/// before, one in a registered directory, else llvm-spirv's.
static std::vector<unsigned char> translateToSPIR(const void *data,
                                                  size_t size) {
  uint64_t hash = hashBytes(data, size);
  Translations &t = translations();
  {
    std::lock_guard<std::mutex> lock(t.mutex);
    auto it = t.bitcode.find(hash);
    if (it != t.bitcode.end())
      return it->second;
    for (const std::string &dir : t.directories) {
      std::ifstream in(std::filesystem::path(dir) / translationFile(hash),
                       std::ios::binary);
      if (!in)
        continue;
      std::vector<unsigned char> bitcode((std::istreambuf_iterator<char>(in)),
                                         std::istreambuf_iterator<char>());
      if (bitcode.empty())
        continue;
      t.bitcode[hash] = bitcode;
      return bitcode;
    }
  }
  std::vector<unsigned char> bitcode = runLLVMSPIRV(data, size);
  std::lock_guard<std::mutex> lock(t.mutex);
  t.bitcode[hash] = bitcode;
  return bitcode;
}

static cl_program loadProgram(const void *data, size_t size) {
  Runtime &rt = getRuntime();
  cl_device_id device = rt.desc.device;
  cl_int error = CL_SUCCESS;
  if (!data || size == 0)
    fatal("mgpuModuleLoad: empty module");
  if (hasSPIRVIL(rt.desc)) {
    cl_program program = clCreateProgramWithIL(rt.context, data, size, &error);
    checkCL(error, "clCreateProgramWithIL");
    // The options embedded for Intel's compiler (the GRF mode) mean nothing
    // to other vendors' drivers.
    std::string options;
    if (rt.desc.vendorId == kIntelVendorId)
      options = xpu::runtime::getEmbeddedBuildOptions(data, size);
    buildProgram(program, device, options.c_str());
    return program;
  }
  std::vector<unsigned char> bitcode = translateToSPIR(data, size);
  const unsigned char *binary = bitcode.data();
  size_t binarySize = bitcode.size();
  cl_int binaryStatus = CL_SUCCESS;
  cl_program program = clCreateProgramWithBinary(
      rt.context, 1, &device, &binarySize, &binary, &binaryStatus, &error);
  checkCL(error, "clCreateProgramWithBinary");
  checkCL(binaryStatus, "clCreateProgramWithBinary (binary status)");
  buildProgram(program, device, "-x spir -spir-std=1.2");
  return program;
}

//===----------------------------------------------------------------------===//
// Device-only memory (the test mode)
//===----------------------------------------------------------------------===//

/// Set by xpuRuntimeSetDeviceOnlyMemory.
static std::atomic<bool> deviceOnlyMode{false};

/// The reserved ranges of device-only buffers, for the fault handler (which
/// may take no lock): [start, end) pairs, 0 for a free slot.
static constexpr int kFaultSlots = 4096;
static std::atomic<uintptr_t> faultStart[kFaultSlots], faultEnd[kFaultSlots];
static struct sigaction previousSegv, previousBus;

/// Writes `value` in base `base` into `out` (no allocation: runs in a
/// signal handler); returns the end.
static char *formatUnsigned(char *out, uintptr_t value, unsigned base) {
  char digits[32];
  int n = 0;
  do {
    digits[n++] = "0123456789abcdef"[value % base];
    value /= base;
  } while (value && n < 32);
  while (n)
    *out++ = digits[--n];
  return out;
}

/// Reports a host access to a device-only buffer, then leaves the fault to
/// the handler that was there before (or the default action): the access
/// runs again and faults again.
static void onDeviceOnlyFault(int sig, siginfo_t *info, void *) {
  auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (int i = 0; i < kFaultSlots; ++i) {
    uintptr_t start = faultStart[i].load(std::memory_order_relaxed);
    uintptr_t end = faultEnd[i].load(std::memory_order_relaxed);
    if (!start || address < start || address >= end)
      continue;
    char line[512], *p = line;
    auto put = [&](const char *text) {
      while (*text && p < line + sizeof(line) - 1)
        *p++ = *text++;
    };
    put("xpu opencl runtime: host code accessed device-only memory at 0x");
    p = formatUnsigned(p, address, 16);
    put(" (byte ");
    p = formatUnsigned(p, address - start, 10);
    put(" of a buffer of ");
    p = formatUnsigned(p, end - start, 10);
    put(" bytes from mgpuMemAlloc, device-only test mode): only kernels may "
        "read or write it\n");
    (void)!write(STDERR_FILENO, line, p - line);
    break;
  }
  sigaction(sig, sig == SIGSEGV ? &previousSegv : &previousBus, nullptr);
}

static void installFaultHandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction action;
    std::memset(&action, 0, sizeof(action));
    action.sa_sigaction = onDeviceOnlyFault;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    sigaction(SIGSEGV, &action, &previousSegv);
    sigaction(SIGBUS, &action, &previousBus);
  });
}

static void addFaultRange(uintptr_t start, size_t size) {
  for (int i = 0; i < kFaultSlots; ++i) {
    uintptr_t expected = 0;
    if (faultStart[i].compare_exchange_strong(expected, start)) {
      faultEnd[i].store(start + std::max<size_t>(size, 1));
      return;
    }
  }
}

static void removeFaultRange(uintptr_t start) {
  for (int i = 0; i < kFaultSlots; ++i)
    if (faultStart[i].load() == start) {
      faultEnd[i].store(0);
      faultStart[i].store(0);
      return;
    }
}

/// A device-only buffer of `bytes` and the reserved host range for it.
static void *allocateDeviceOnly(Runtime &rt, size_t bytes) {
  cl_int error = CL_SUCCESS;
  cl_mem mem =
      clCreateBuffer(rt.context, CL_MEM_READ_WRITE, bytes, nullptr, &error);
  checkCL(error, "clCreateBuffer");
  long page = sysconf(_SC_PAGESIZE);
  size_t reserved = (bytes + page - 1) / page * page;
  void *range = mmap(nullptr, reserved, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (range == MAP_FAILED) {
    clReleaseMemObject(mem);
    fatal("mmap of " + std::to_string(reserved) +
          " bytes of address space for a device-only buffer failed: " +
          std::strerror(errno));
  }
  installFaultHandler();
  auto start = reinterpret_cast<uintptr_t>(range);
  addFaultRange(start, bytes);
  std::lock_guard<std::mutex> lock(rt.allocationsMutex);
  Runtime::DeviceOnlyBuffer &buffer = rt.deviceOnly[start];
  buffer.mem = mem;
  buffer.size = bytes;
  buffer.reserved = reserved;
  return range;
}

/// Frees a device-only buffer; false if `ptr` is not one.
static bool freeDeviceOnly(Runtime &rt, void *ptr, void *stream) {
  Runtime::DeviceOnlyBuffer buffer;
  {
    std::lock_guard<std::mutex> lock(rt.allocationsMutex);
    auto it = rt.deviceOnly.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == rt.deviceOnly.end())
      return false;
    buffer = std::move(it->second);
    rt.deviceOnly.erase(it);
  }
  cl_int finished = clFinish(getQueue(stream));
  for (auto &[offset, sub] : buffer.subBuffers)
    clReleaseMemObject(sub);
  clReleaseMemObject(buffer.mem);
  removeFaultRange(reinterpret_cast<uintptr_t>(ptr));
  munmap(ptr, buffer.reserved);
  checkCL(finished, "clFinish");
  return true;
}

/// The buffer a kernel argument `address` inside a device-only buffer
/// stands for: the buffer itself, or a sub-buffer from the offset on.
static cl_mem deviceOnlyArgument(Runtime &rt, Runtime::DeviceOnlyBuffer &buffer,
                                 size_t offset) {
  if (offset == 0)
    return buffer.mem;
  std::lock_guard<std::mutex> lock(rt.allocationsMutex);
  auto it = buffer.subBuffers.find(offset);
  if (it != buffer.subBuffers.end())
    return it->second;
  cl_uint alignBits = 0;
  XPU_CL_CALL(clGetDeviceInfo, rt.desc.device, CL_DEVICE_MEM_BASE_ADDR_ALIGN,
              sizeof(alignBits), &alignBits, nullptr);
  size_t align = std::max<cl_uint>(alignBits / 8, 1);
  if (offset % align)
    fatal("a kernel argument points " + std::to_string(offset) +
          " bytes into a device-only buffer, which is not a multiple of the "
          "device's sub-buffer alignment (" +
          std::to_string(align) + " bytes)");
  cl_buffer_region region = {offset, buffer.size - offset};
  cl_int error = CL_SUCCESS;
  cl_mem sub = clCreateSubBuffer(buffer.mem, CL_MEM_READ_WRITE,
                                 CL_BUFFER_CREATE_TYPE_REGION, &region, &error);
  checkCL(error, "clCreateSubBuffer");
  buffer.subBuffers[offset] = sub;
  return sub;
}

/// Copies between host memory, SVM and device-only buffers; true if either
/// side is a device-only buffer (and the copy was made).
static bool copyDeviceOnly(Runtime &rt, void *dst, const void *src, size_t size,
                           cl_command_queue queue) {
  size_t dstOffset = 0, srcOffset = 0;
  Runtime::DeviceOnlyBuffer *to =
      rt.findDeviceOnly(reinterpret_cast<uintptr_t>(dst), dstOffset);
  Runtime::DeviceOnlyBuffer *from =
      rt.findDeviceOnly(reinterpret_cast<uintptr_t>(src), srcOffset);
  if (!to && !from)
    return false;
  if ((to && dstOffset + size > to->size) ||
      (from && srcOffset + size > from->size))
    fatal("mgpuMemcpy of " + std::to_string(size) +
          " bytes runs past the end of a device-only buffer");
  // Blocking: the host side may be memory the caller reuses right after.
  if (to && from)
    XPU_CL_CALL(clEnqueueCopyBuffer, queue, from->mem, to->mem, srcOffset,
                dstOffset, size, 0, nullptr, nullptr);
  else if (to)
    XPU_CL_CALL(clEnqueueWriteBuffer, queue, to->mem, CL_TRUE, dstOffset, size,
                src, 0, nullptr, nullptr);
  else
    XPU_CL_CALL(clEnqueueReadBuffer, queue, from->mem, CL_TRUE, srcOffset, size,
                dst, 0, nullptr, nullptr);
  return true;
}

//===----------------------------------------------------------------------===//
// Kernel arguments
//===----------------------------------------------------------------------===//

/// Returns the size in bytes of the OpenCL C scalar or vector type `name`, or
/// 0 if it is not one.
static size_t getScalarTypeSize(std::string name) {
  // Drop qualifiers that may precede the type.
  for (const char *qualifier : {"const ", "volatile ", "restrict "})
    while (name.rfind(qualifier, 0) == 0)
      name = name.substr(std::strlen(qualifier));
  size_t digits = name.find_first_of("0123456789");
  size_t lanes = 1;
  std::string base = name;
  if (digits != std::string::npos) {
    base = name.substr(0, digits);
    lanes = std::strtoul(name.c_str() + digits, nullptr, 10);
    if (lanes == 3)
      lanes = 4;
  }
  static const std::pair<const char *, size_t> sizes[] = {
      {"bool", 1},   {"char", 1},     {"uchar", 1}, {"short", 2},
      {"ushort", 2}, {"half", 2},     {"int", 4},   {"uint", 4},
      {"float", 4},  {"long", 8},     {"ulong", 8}, {"double", 8},
      {"size_t", 8}, {"ptrdiff_t", 8}};
  for (const auto &[typeName, size] : sizes)
    if (base == typeName)
      return size * lanes;
  return 0;
}

/// Reads the parameter types of every OpEntryPoint of a SPIR-V binary.
/// Returns an empty map for anything it does not understand.
static std::map<std::string, std::vector<SPIRVArg>>
parseSPIRVKernelSignatures(const void *data, size_t size) {
  std::map<std::string, std::vector<SPIRVArg>> result;
  if (size % 4 != 0 || size < 20)
    return result;
  std::vector<uint32_t> words(size / 4);
  std::memcpy(words.data(), data, size);
  if (words[0] != 0x07230203) // SPIR-V magic, in host byte order.
    return result;

  enum : uint32_t {
    OpEntryPoint = 15,
    OpTypeBool = 20,
    OpTypeInt = 21,
    OpTypeFloat = 22,
    OpTypeVector = 23,
    OpTypePointer = 32,
    OpFunction = 54,
    OpFunctionParameter = 55,
    OpFunctionEnd = 56,
  };
  std::map<uint32_t, SPIRVArg> types;
  std::map<uint32_t, std::string> entryPoints;
  std::map<uint32_t, std::vector<SPIRVArg>> functions;
  uint32_t currentFunction = 0;
  for (size_t i = 5; i < words.size();) {
    uint32_t opcode = words[i] & 0xffff;
    uint32_t count = words[i] >> 16;
    if (count == 0 || i + count > words.size())
      return {};
    const uint32_t *op = &words[i];
    switch (opcode) {
    case OpEntryPoint:
      if (count >= 4) {
        const char *name = reinterpret_cast<const char *>(&op[3]);
        size_t maxLength = (count - 3) * 4;
        entryPoints[op[2]] = std::string(name, strnlen(name, maxLength));
      }
      break;
    case OpTypeBool:
      if (count >= 2)
        types[op[1]] = {SPIRVArg::Kind::Scalar, 1, "bool"};
      break;
    case OpTypeInt:
      if (count >= 3)
        types[op[1]] = {SPIRVArg::Kind::Scalar, op[2] / 8,
                        "i" + std::to_string(op[2])};
      break;
    case OpTypeFloat:
      if (count >= 3)
        types[op[1]] = {SPIRVArg::Kind::Scalar, op[2] / 8,
                        "f" + std::to_string(op[2])};
      break;
    case OpTypeVector:
      if (count >= 4 && types.count(op[2])) {
        uint32_t lanes = op[3] == 3 ? 4 : op[3];
        const SPIRVArg &element = types[op[2]];
        types[op[1]] = {SPIRVArg::Kind::Scalar, element.size * lanes,
                        "vector<" + std::to_string(op[3]) + "x" +
                            element.typeName + ">"};
      }
      break;
    case OpTypePointer:
      if (count >= 4) {
        // Storage classes: UniformConstant 0, Workgroup 4, CrossWorkgroup 5,
        // Generic 8. Others (Function: a by-value struct) stay unknown.
        uint32_t storage = op[2];
        if (storage == 0 || storage == 5 || storage == 8)
          types[op[1]] = {SPIRVArg::Kind::Pointer, sizeof(void *), "pointer"};
        else if (storage == 4)
          types[op[1]] = {SPIRVArg::Kind::Local, 0, "workgroup pointer"};
      }
      break;
    case OpFunction:
      if (count >= 3) {
        currentFunction = op[2];
        functions[currentFunction];
      }
      break;
    case OpFunctionParameter:
      if (count >= 3 && currentFunction) {
        auto it = types.find(op[1]);
        functions[currentFunction].push_back(it == types.end() ? SPIRVArg()
                                                               : it->second);
      }
      break;
    case OpFunctionEnd:
      currentFunction = 0;
      break;
    default:
      break;
    }
    i += count;
  }
  for (const auto &[id, name] : entryPoints) {
    auto it = functions.find(id);
    if (it != functions.end())
      result[name] = it->second;
  }
  return result;
}

/// Fills `function.args` from the SPIR-V `signature` of the kernel when there
/// is one, else from the kernel's argument info where the implementation
/// provides it.
static void classifyArguments(Function &function,
                              const std::vector<SPIRVArg> *signature) {
  cl_uint numArgs = 0;
  XPU_CL_CALL(clGetKernelInfo, function.kernel, CL_KERNEL_NUM_ARGS,
              sizeof(numArgs), &numArgs, nullptr);
  function.args.resize(numArgs);
  if (signature && signature->size() == numArgs) {
    for (cl_uint i = 0; i < numArgs; ++i) {
      const SPIRVArg &param = (*signature)[i];
      Function::Arg &arg = function.args[i];
      arg.typeName = param.typeName;
      arg.size = param.size;
      switch (param.kind) {
      case SPIRVArg::Kind::Pointer:
        arg.kind = Function::ArgKind::Pointer;
        break;
      case SPIRVArg::Kind::Local:
        arg.kind = Function::ArgKind::Local;
        break;
      case SPIRVArg::Kind::Scalar:
        arg.kind = Function::ArgKind::Scalar;
        break;
      case SPIRVArg::Kind::Unknown:
        arg.kind = Function::ArgKind::Unknown;
        break;
      }
    }
    return;
  }
  for (cl_uint i = 0; i < numArgs; ++i) {
    Function::Arg &arg = function.args[i];
    cl_kernel_arg_address_qualifier qualifier = 0;
    cl_int error =
        clGetKernelArgInfo(function.kernel, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER,
                           sizeof(qualifier), &qualifier, nullptr);
    if (error == CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
      continue;
    checkCL(error, "clGetKernelArgInfo(CL_KERNEL_ARG_ADDRESS_QUALIFIER)");
    size_t nameSize = 0;
    XPU_CL_CALL(clGetKernelArgInfo, function.kernel, i, CL_KERNEL_ARG_TYPE_NAME,
                0, nullptr, &nameSize);
    arg.typeName.assign(nameSize, '\0');
    XPU_CL_CALL(clGetKernelArgInfo, function.kernel, i, CL_KERNEL_ARG_TYPE_NAME,
                nameSize, arg.typeName.data(), nullptr);
    arg.typeName.resize(std::strlen(arg.typeName.c_str()));
    switch (qualifier) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
      arg.kind = Function::ArgKind::Pointer;
      break;
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
      arg.kind = Function::ArgKind::Local;
      break;
    default:
      if (!arg.typeName.empty() && arg.typeName.back() == '*') {
        arg.kind = Function::ArgKind::Scalar;
        arg.size = sizeof(void *);
      } else {
        // A private argument of a type we cannot size (a struct, say) is
        // sized by probing at launch time.
        arg.kind = Function::ArgKind::Scalar;
        arg.size = getScalarTypeSize(arg.typeName);
      }
      break;
    }
  }
}

static std::string describeArg(const Function &function, size_t index) {
  std::string text = "argument " + std::to_string(index) + " of kernel '" +
                     function.name + "'";
  if (!function.args[index].typeName.empty())
    text += " (" + function.args[index].typeName + ")";
  return text;
}

static void setPointerArg(Runtime &rt, Function &function, cl_uint index,
                          void *value) {
  size_t offset = 0;
  if (Runtime::DeviceOnlyBuffer *buffer =
          rt.findDeviceOnly(reinterpret_cast<uintptr_t>(value), offset)) {
    cl_mem mem = deviceOnlyArgument(rt, *buffer, offset);
    XPU_CL_CALL(clSetKernelArg, function.kernel, index, sizeof(cl_mem), &mem);
    return;
  }
  // Registered host memory (constants): the kernel reads the SVM copy.
  if (value && !rt.isAllocated(reinterpret_cast<uintptr_t>(value)))
    if (void *mirror = rt.mirrorOf(reinterpret_cast<uintptr_t>(value)))
      value = mirror;
  if (value && !rt.isAllocated(reinterpret_cast<uintptr_t>(value)))
    fatal(describeArg(function, index) + " is the pointer " +
          formatPointer(value) +
          ", which is not inside memory from mgpuMemAlloc or registered host "
          "memory (gpu.host_register); kernels can only access SVM "
          "allocations");
  XPU_CL_CALL(clSetKernelArgSVMPointer, function.kernel, index, value);
}

/// Sets a scalar argument whose size is unknown: OpenCL rejects a wrong size
/// with CL_INVALID_ARG_SIZE, so try the sizes of the scalar types in turn.
static void setScalarArgBySize(Function &function, cl_uint index,
                               const void *value) {
  cl_int error = CL_INVALID_ARG_SIZE;
  for (size_t size : {8, 4, 2, 1}) {
    error = clSetKernelArg(function.kernel, index, size, value);
    if (error != CL_INVALID_ARG_SIZE)
      break;
  }
  if (error == CL_INVALID_MEM_OBJECT || error == CL_INVALID_ARG_VALUE)
    fatal(describeArg(function, index) +
          " looks like a buffer, but its value is not inside memory from "
          "mgpuMemAlloc (clSetKernelArg: " +
          getCLErrorName(error) + ")");
  checkCL(error, "clSetKernelArg");
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
      [] { return static_cast<int>(discoverDevices().size()); });
}

extern "C" XPU_RUNTIME_EXPORT int xpuRuntimeListDevices(void) {
  return guarded(
      errors(), [] { return -1; },
      [] {
        std::vector<DeviceDesc> devices = discoverDevices();
        if (devices.empty())
          std::printf("xpu opencl runtime: no OpenCL device found\n");
        for (size_t i = 0; i < devices.size(); ++i)
          std::printf("xpu opencl runtime: device %zu: %s\n", i,
                      describeDevice(devices[i]).c_str());
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

extern "C" XPU_RUNTIME_EXPORT void *mgpuModuleLoad(const void *data,
                                                   size_t size) {
  return guarded(
      errors(), []() -> void * { return nullptr; },
      [&]() -> void * {
        auto module = std::make_unique<Module>();
        module->program = loadProgram(data, size);
        module->signatures = parseSPIRVKernelSignatures(data, size);
        return module.release();
      });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuModuleUnload(void *module) {
  if (!module)
    return;
  releasing(errors(), [&] {
    std::unique_ptr<Module> mod(static_cast<Module *>(module));
    for (std::unique_ptr<Function> &function : mod->functions)
      XPU_CL_CALL(clReleaseKernel, function->kernel);
    XPU_CL_CALL(clReleaseProgram, mod->program);
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
        cl_int error = CL_SUCCESS;
        function->kernel = clCreateKernel(mod->program, name, &error);
        if (error == CL_INVALID_KERNEL_NAME)
          fatal(std::string("clCreateKernel failed: CL_INVALID_KERNEL_NAME: "
                            "the module has no kernel '") +
                name + "'");
        checkCL(error, "clCreateKernel");
        auto signature = mod->signatures.find(name);
        classifyArguments(*function, signature == mod->signatures.end()
                                         ? nullptr
                                         : &signature->second);
        mod->functions.push_back(std::move(function));
        return mod->functions.back().get();
      });
}

static void launchKernel(void *function, intptr_t gridX, intptr_t gridY,
                         intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                         intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                         void **params, size_t paramsCount) {
  if (!function)
    fatal("mgpuLaunchKernel: null function");
  Runtime &rt = getRuntime();
  auto &fn = *static_cast<Function *>(function);
  std::lock_guard<std::mutex> lock(fn.launchMutex);
  size_t numArgs = fn.args.size();

  // Dynamic shared memory is the kernel's last argument: either one more
  // than the launch passes, or (as upstream's Level Zero wrappers do) the
  // last entry of `params`.
  size_t numValueArgs = paramsCount;
  if (sharedMemBytes > 0) {
    if (numArgs == paramsCount + 1)
      numValueArgs = paramsCount;
    else if (numArgs == paramsCount && paramsCount > 0)
      numValueArgs = paramsCount - 1;
    if (numValueArgs < numArgs)
      XPU_CL_CALL(clSetKernelArg, fn.kernel, static_cast<cl_uint>(numArgs - 1),
                  static_cast<size_t>(sharedMemBytes), nullptr);
  }
  size_t expected = sharedMemBytes > 0 ? numValueArgs + 1 : numValueArgs;
  if (expected != numArgs)
    fatal("kernel '" + fn.name + "' takes " + std::to_string(numArgs) +
          " argument(s) but the launch passes " + std::to_string(paramsCount) +
          (sharedMemBytes > 0 ? " and dynamic shared memory" : "") +
          "; memrefs must be passed to SPIR-V kernels as bare pointers "
          "(gpu-to-llvm{use-bare-pointers-for-kernels=true})");
  if (numValueArgs > 0 && !params)
    fatal("mgpuLaunchKernel: null params for kernel '" + fn.name + "'");

  for (size_t i = 0; i < numValueArgs; ++i) {
    auto index = static_cast<cl_uint>(i);
    const Function::Arg &arg = fn.args[i];
    switch (arg.kind) {
    case Function::ArgKind::Pointer: {
      void *value = nullptr;
      std::memcpy(&value, params[i], sizeof(value));
      setPointerArg(rt, fn, index, value);
      break;
    }
    case Function::ArgKind::Local:
      fatal(describeArg(fn, i) +
            " is a workgroup (local) buffer, which only the last argument "
            "may be, sized by the launch's dynamic shared memory");
    case Function::ArgKind::Scalar:
      if (arg.size)
        XPU_CL_CALL(clSetKernelArg, fn.kernel, index, arg.size, params[i]);
      else
        setScalarArgBySize(fn, index, params[i]);
      break;
    case Function::ArgKind::Unknown: {
      // No argument info: a pointer-sized value inside a live allocation is
      // an SVM pointer, anything else a scalar (see the file header).
      uintptr_t value = 0;
      std::memcpy(&value, params[i], sizeof(value));
      size_t offset = 0;
      if (Runtime::DeviceOnlyBuffer *buffer =
              rt.findDeviceOnly(value, offset)) {
        cl_mem mem = deviceOnlyArgument(rt, *buffer, offset);
        XPU_CL_CALL(clSetKernelArg, fn.kernel, index, sizeof(cl_mem), &mem);
        break;
      }
      if (value && !rt.isAllocated(value))
        if (void *mirror = rt.mirrorOf(value))
          value = reinterpret_cast<uintptr_t>(mirror);
      if (value && rt.isAllocated(value))
        XPU_CL_CALL(clSetKernelArgSVMPointer, fn.kernel, index,
                    reinterpret_cast<void *>(value));
      else
        setScalarArgBySize(fn, index, params[i]);
      break;
    }
    }
  }

  if (gridX <= 0 || gridY <= 0 || gridZ <= 0 || blockX <= 0 || blockY <= 0 ||
      blockZ <= 0)
    fatal("mgpuLaunchKernel: kernel '" + fn.name +
          "' launched with an empty grid or block (" + std::to_string(gridX) +
          "x" + std::to_string(gridY) + "x" + std::to_string(gridZ) +
          " groups of " + std::to_string(blockX) + "x" +
          std::to_string(blockY) + "x" + std::to_string(blockZ) + ")");
  size_t local[3] = {static_cast<size_t>(blockX), static_cast<size_t>(blockY),
                     static_cast<size_t>(blockZ)};
  size_t global[3] = {static_cast<size_t>(gridX) * local[0],
                      static_cast<size_t>(gridY) * local[1],
                      static_cast<size_t>(gridZ) * local[2]};
  std::lock_guard<std::mutex> profileLock(rt.profileMutex);
  cl_event event = nullptr;
  XPU_CL_CALL(clEnqueueNDRangeKernel, getQueue(stream), fn.kernel, 3, nullptr,
              global, local, 0, nullptr, rt.profiling ? &event : nullptr);
  if (rt.profiling)
    rt.profiledLaunches.emplace_back(fn.name, event);
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
      []() -> void * {
        Runtime &rt = getRuntime();
        cl_int error = CL_SUCCESS;
        cl_command_queue queue = clCreateCommandQueueWithProperties(
            rt.context, rt.desc.device, kQueueProperties, &error);
        checkCL(error, "clCreateCommandQueueWithProperties");
        return queue;
      });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuStreamDestroy(void *stream) {
  if (!stream)
    return;
  releasing(errors(), [&] {
    auto queue = static_cast<cl_command_queue>(stream);
    XPU_CL_CALL(clFinish, queue);
    XPU_CL_CALL(clReleaseCommandQueue, queue);
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuStreamSynchronize(void *stream) {
  guardedVoid(errors(), [&] { XPU_CL_CALL(clFinish, getQueue(stream)); });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuStreamWaitEvent(void *stream,
                                                       void *event) {
  guardedVoid(errors(), [&] {
    if (!event)
      fatal("mgpuStreamWaitEvent: null event");
    auto *ev = static_cast<Event *>(event);
    // An event that was never recorded has nothing to wait for.
    if (!ev->event)
      return;
    XPU_CL_CALL(clEnqueueBarrierWithWaitList, getQueue(stream), 1, &ev->event,
                nullptr);
  });
}

extern "C" XPU_RUNTIME_EXPORT void *mgpuEventCreate(void) {
  return guarded(
      errors(), []() -> void * { return nullptr; },
      []() -> void * {
        // Initialise here too, so that event use cannot be the first call.
        (void)getRuntime();
        return new Event();
      });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuEventDestroy(void *event) {
  if (!event)
    return;
  releasing(errors(), [&] {
    std::unique_ptr<Event> ev(static_cast<Event *>(event));
    if (ev->event)
      XPU_CL_CALL(clReleaseEvent, ev->event);
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuEventSynchronize(void *event) {
  guardedVoid(errors(), [&] {
    if (!event)
      fatal("mgpuEventSynchronize: null event");
    auto *ev = static_cast<Event *>(event);
    if (ev->event)
      XPU_CL_CALL(clWaitForEvents, 1, &ev->event);
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuEventRecord(void *event, void *stream) {
  guardedVoid(errors(), [&] {
    if (!event)
      fatal("mgpuEventRecord: null event");
    auto *ev = static_cast<Event *>(event);
    cl_event marker = nullptr;
    XPU_CL_CALL(clEnqueueMarkerWithWaitList, getQueue(stream), 0, nullptr,
                &marker);
    if (ev->event)
      XPU_CL_CALL(clReleaseEvent, ev->event);
    ev->event = marker;
  });
}

static void *allocate(uint64_t size, bool isHostShared) {
  Runtime &rt = getRuntime();
  if (!isHostShared && deviceOnlyMode)
    return allocateDeviceOnly(rt, std::max<uint64_t>(size, 1));
  if (isHostShared && !rt.fineGrain)
    fatal("mgpuMemAlloc: host-shared memory needs fine-grain buffer SVM, "
          "which device " +
          std::to_string(rt.deviceIndex) + " (" + rt.desc.deviceName +
          ") lacks");
  cl_svm_mem_flags flags = CL_MEM_READ_WRITE;
  if (rt.fineGrain)
    flags |= CL_MEM_SVM_FINE_GRAIN_BUFFER;
  // clSVMAlloc returns null for 0 bytes; keep every allocation distinct.
  size_t bytes = std::max<uint64_t>(size, 1);
  void *ptr = clSVMAlloc(rt.context, flags, bytes, 0);
  if (!ptr)
    fatal("clSVMAlloc failed to allocate " + std::to_string(bytes) +
          " bytes of " + (rt.fineGrain ? "fine" : "coarse") + "-grain SVM");
  std::lock_guard<std::mutex> lock(rt.allocationsMutex);
  rt.allocations[reinterpret_cast<uintptr_t>(ptr)] = bytes;
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
    Runtime &rt = getRuntime();
    if (freeDeviceOnly(rt, ptr, stream))
      return;
    {
      std::lock_guard<std::mutex> lock(rt.allocationsMutex);
      auto it = rt.allocations.find(reinterpret_cast<uintptr_t>(ptr));
      if (it == rt.allocations.end())
        fatal("mgpuMemFree: " + formatPointer(ptr) +
              " was not returned by mgpuMemAlloc or was already freed");
      rt.allocations.erase(it);
    }
    // Work queued on the stream may still use the memory; after an error
    // the queue may be broken, and the memory is freed all the same.
    cl_int finished = clFinish(getQueue(stream));
    clSVMFree(rt.context, ptr);
    checkCL(finished, "clFinish");
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src, size_t size,
                                              void *stream) {
  if (size == 0)
    return;
  guardedVoid(errors(), [&] {
    if (copyDeviceOnly(getRuntime(), dst, src, size, getQueue(stream)))
      return;
    XPU_CL_CALL(clEnqueueSVMMemcpy, getQueue(stream), CL_FALSE, dst, src, size,
                0, nullptr, nullptr);
  });
}

template <typename T>
static void memsetImpl(void *dst, T value, size_t count, void *stream) {
  if (count == 0)
    return;
  guardedVoid(errors(), [&] {
    // OpenCL copies the pattern when the command is enqueued.
    size_t offset = 0;
    if (Runtime::DeviceOnlyBuffer *buffer = getRuntime().findDeviceOnly(
            reinterpret_cast<uintptr_t>(dst), offset)) {
      XPU_CL_CALL(clEnqueueFillBuffer, getQueue(stream), buffer->mem, &value,
                  sizeof(T), offset, count * sizeof(T), 0, nullptr, nullptr);
      return;
    }
    XPU_CL_CALL(clEnqueueSVMMemFill, getQueue(stream), dst, &value, sizeof(T),
                count * sizeof(T), 0, nullptr, nullptr);
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
    size_t offset = 0;
    if (rt.isAllocated(start) || rt.findDeviceOnly(start, offset))
      return; // device-visible already
    rt.hostMirrors.registerRange(start, size, [&] {
      void *copy = allocate(size, /*isHostShared=*/false);
      XPU_CL_CALL(clEnqueueSVMMemcpy, rt.defaultQueue, CL_TRUE, copy,
                  reinterpret_cast<void *>(start), size, 0, nullptr, nullptr);
      return copy;
    });
  });
}

extern "C" XPU_RUNTIME_EXPORT void mgpuMemHostUnregisterMemRef(int64_t, void *,
                                                               int64_t) {
  // Constants stay registered for the life of the program: a later call of
  // the same function registers them again, and the copy is still valid.
}

extern "C" XPU_RUNTIME_EXPORT void xpuOpenCLAddSPIRDirectory(const char *dir) {
  guardedVoid(errors(), [&] {
    if (!dir)
      fatal("xpuOpenCLAddSPIRDirectory: null directory");
    Translations &t = translations();
    std::lock_guard<std::mutex> lock(t.mutex);
    t.directories.push_back(dir);
  });
}

extern "C" XPU_RUNTIME_EXPORT int xpuOpenCLWriteSPIR(const char *dir) {
  return guarded(
      errors(), [] { return -1; },
      [&] {
        if (!dir)
          fatal("xpuOpenCLWriteSPIR: null directory");
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec)
          fatal(std::string("cannot create ") + dir + ": " + ec.message());
        Translations &t = translations();
        std::lock_guard<std::mutex> lock(t.mutex);
        for (const auto &[hash, bitcode] : t.bitcode) {
          std::filesystem::path path =
              std::filesystem::path(dir) / translationFile(hash);
          std::ofstream out(path, std::ios::binary);
          out.write(reinterpret_cast<const char *>(bitcode.data()),
                    static_cast<std::streamsize>(bitcode.size()));
          if (!out)
            fatal("cannot write " + path.string());
        }
        return static_cast<int>(t.bitcode.size());
      });
}

extern "C" XPU_RUNTIME_EXPORT void xpuRuntimeSetDeviceOnlyMemory(int enabled) {
  guardedVoid(errors(), [&] { deviceOnlyMode = enabled != 0; });
}

extern "C" XPU_RUNTIME_EXPORT void xpuRuntimeProfileStart(void) {
  guardedVoid(errors(), [] {
    Runtime &rt = getRuntime();
    std::lock_guard<std::mutex> lock(rt.profileMutex);
    for (auto &launch : rt.profiledLaunches)
      if (launch.second)
        clReleaseEvent(launch.second);
    rt.profiledLaunches.clear();
    rt.profileNames.clear();
    rt.profiling = true;
  });
}

extern "C" XPU_RUNTIME_EXPORT int
xpuRuntimeProfileStop(XPUKernelProfile *entries, int capacity) {
  return guarded(
      errors(), [] { return 0; },
      [&] {
        Runtime &rt = getRuntime();
        std::lock_guard<std::mutex> lock(rt.profileMutex);
        rt.profiling = false;
        std::vector<std::string> &names = rt.profileNames;
        names.clear();
        std::vector<uint64_t> launches;
        std::vector<int64_t> nanoseconds;
        for (auto &[name, event] : rt.profiledLaunches) {
          size_t i =
              std::find(names.begin(), names.end(), name) - names.begin();
          if (i == names.size()) {
            names.push_back(name);
            launches.push_back(0);
            nanoseconds.push_back(0);
          }
          ++launches[i];
          cl_ulong start = 0, end = 0;
          bool timed =
              event && clWaitForEvents(1, &event) == CL_SUCCESS &&
              clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START,
                                      sizeof(start), &start,
                                      nullptr) == CL_SUCCESS &&
              clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END,
                                      sizeof(end), &end, nullptr) == CL_SUCCESS;
          if (!timed || nanoseconds[i] < 0)
            nanoseconds[i] = -1;
          else
            nanoseconds[i] += static_cast<int64_t>(end - start);
          if (event)
            clReleaseEvent(event);
        }
        rt.profiledLaunches.clear();
        int count = static_cast<int>(names.size());
        for (int i = 0; i < count && i < capacity && entries; ++i)
          entries[i] = {names[i].c_str(), launches[i], nanoseconds[i]};
        return count;
      });
}
