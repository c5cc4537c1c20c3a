//===- XPURuntime.h - C ABI of the xpu GPU runtime wrappers -----*- C++ -*-===//
//
// The functions that code lowered by MLIR's `gpu-to-llvm` (and the
// `gpu.binary` / `gpu.launch_func` LLVM IR translation) calls, with the
// signatures of the LLVM 22 upstream wrappers
// (mlir/lib/ExecutionEngine/{Cuda,LevelZero}RuntimeWrappers.cpp), plus a small
// xpu-specific surface for listing and selecting devices.
//
// Every backend library (xpu_opencl_runtime, xpu_levelzero_runtime,
// xpu_cuda_runtime) exports all of these, except where a declaration says
// otherwise. Handles are opaque: a module, function, stream or event of one
// backend means nothing to another.
//
// Errors: no function of a runtime exits or aborts the process. The mgpu*
// functions return no status, so a failure (no driver or device, a failing
// driver call, a pointer the device cannot use) is recorded in the runtime's
// error channel, which the caller reads with xpuRuntimeGetLastError after a
// sequence of calls (a compiled function's call, say):
// * the first error since the last xpuRuntimeClearError is kept and printed
//   once to stderr ("xpu <api> runtime: <message>"), unless the caller
//   turned printing off with xpuRuntimeSetErrorPrinting(0);
// * while an error is recorded, every call that would touch the device
//   returns at once (null handles, no launches or copies), mgpuMemAlloc
//   returns zeroed host memory, so that the host code of a compiled program
//   can finish without faulting, and releases still release;
// * an error that leaves the runtime unusable (no driver, no device) is
//   recorded again by the next call that needs the device after a clear,
//   without calling into the driver again.
// The results of calls made while an error is recorded are meaningless.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_RUNTIME_XPURUNTIME_H
#define XPU_RUNTIME_XPURUNTIME_H

#include <stddef.h>
#include <stdint.h>
#ifndef __cplusplus
#include <stdbool.h>
#endif

#if defined(_WIN32)
#define XPU_RUNTIME_EXPORT __declspec(dllexport)
#else
#define XPU_RUNTIME_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

/// Loads a SPIR-V module of `size` bytes (the contents of a `gpu.binary`
/// object). May run from a global constructor: the runtime initialises itself
/// on first use.
XPU_RUNTIME_EXPORT void *mgpuModuleLoad(const void *data, size_t size);
/// Loads a module from text the driver compiles (PTX for CUDA), with the
/// given optimization level; `size` counts the terminating zero. Only
/// backends with such a compiler (CUDA) export it.
XPU_RUNTIME_EXPORT void *mgpuModuleLoadJIT(void *data, int optLevel,
                                           size_t size);
XPU_RUNTIME_EXPORT void mgpuModuleUnload(void *module);
/// Returns the kernel `name` of `module`; an error if there is none.
XPU_RUNTIME_EXPORT void *mgpuModuleGetFunction(void *module, const char *name);

/// Launches `function` on `gridX*gridY*gridZ` workgroups of
/// `blockX*blockY*blockZ` work items. `params[i]` points to the value of the
/// i-th kernel argument; `paramsCount` is the number of entries in `params`.
/// When `sharedMemBytes` is non-zero the last kernel argument is a workgroup
/// (local) buffer of that size. `extra` is unused. A null `stream` means the
/// runtime's default stream.
XPU_RUNTIME_EXPORT void
mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY, intptr_t gridZ,
                 intptr_t blockX, intptr_t blockY, intptr_t blockZ,
                 int32_t sharedMemBytes, void *stream, void **params,
                 void **extra, size_t paramsCount);

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

/// Streams are in-order queues. Operations on different streams are ordered
/// only through events.
XPU_RUNTIME_EXPORT void *mgpuStreamCreate(void);
XPU_RUNTIME_EXPORT void mgpuStreamDestroy(void *stream);
XPU_RUNTIME_EXPORT void mgpuStreamSynchronize(void *stream);
XPU_RUNTIME_EXPORT void mgpuStreamWaitEvent(void *stream, void *event);

XPU_RUNTIME_EXPORT void *mgpuEventCreate(void);
XPU_RUNTIME_EXPORT void mgpuEventDestroy(void *event);
XPU_RUNTIME_EXPORT void mgpuEventSynchronize(void *event);
XPU_RUNTIME_EXPORT void mgpuEventRecord(void *event, void *stream);

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// Allocates `size` bytes of device-visible memory. With `isHostShared` the
/// host may also read and write it directly (shared/USM or fine-grain SVM).
XPU_RUNTIME_EXPORT void *mgpuMemAlloc(uint64_t size, void *stream,
                                      bool isHostShared);
/// Frees memory from mgpuMemAlloc after the work queued on `stream` is done.
XPU_RUNTIME_EXPORT void mgpuMemFree(void *ptr, void *stream);
/// Copies `size` bytes; either side may be host memory or memory from
/// mgpuMemAlloc. Asynchronous with respect to the host.
XPU_RUNTIME_EXPORT void mgpuMemcpy(void *dst, void *src, size_t size,
                                   void *stream);
/// Fills `count` 32-bit (16-bit) elements at `dst` with `value`.
XPU_RUNTIME_EXPORT void mgpuMemset32(void *dst, unsigned int value,
                                     size_t count, void *stream);
XPU_RUNTIME_EXPORT void mgpuMemset16(void *dst, unsigned short value,
                                     size_t count, void *stream);

/// Makes the `rank`-dimensional memref at `descriptor` (a memref descriptor:
/// allocated and aligned pointers, offset, sizes, strides) readable by
/// kernels, as `gpu.host_register` asks: kernels that get a pointer into it
/// read a device-visible copy made here. Meant for constants (weights folded
/// at compile time): the copy is taken once per range, and later host writes
/// to the range are not seen by kernels. Registering a range again is a
/// no-op.
XPU_RUNTIME_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank,
                                                  void *descriptor,
                                                  int64_t elementSizeBytes);
XPU_RUNTIME_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank,
                                                    void *descriptor,
                                                    int64_t elementSizeBytes);

/// A test mode (xpu-specific): while `enabled`, mgpuMemAlloc without
/// `isHostShared` returns memory the host cannot read or write, so that host
/// code touching a buffer only kernels may use fails at once instead of
/// passing unnoticed on a device whose memory the host happens to reach
/// (PoCL's SVM, CUDA's managed memory). OpenCL: a CL_MEM_READ_WRITE buffer
/// without SVM, which the host sees as an address of a reserved range that
/// faults on access (the runtime prints which buffer before the fault takes
/// its course) and which the runtime translates at launches and in copies;
/// Level Zero: zeMemAllocDevice; CUDA: device memory from cuMemAllocAsync
/// (the latter two are what they allocate anyway). Such memory is filled
/// and read back with mgpuMemcpy. Set it before the allocations it is for.
XPU_RUNTIME_EXPORT void xpuRuntimeSetDeviceOnlyMemory(int enabled);

//===----------------------------------------------------------------------===//
// Kernel profiling (xpu-specific)
//===----------------------------------------------------------------------===//

/// What the runtime recorded for one kernel between xpuRuntimeProfileStart
/// and xpuRuntimeProfileStop.
typedef struct XPUKernelProfile {
  /// The kernel's name; valid until the next xpuRuntimeProfileStart.
  const char *name;
  /// Number of launches.
  uint64_t launches;
  /// Device time of all launches, from the start to the end of execution
  /// as the device reports it, in nanoseconds; -1 if the device reports
  /// none.
  int64_t deviceNanoseconds;
} XPUKernelProfile;

/// Forgets what was recorded and records every launch from now on.
XPU_RUNTIME_EXPORT void xpuRuntimeProfileStart(void);

/// Stops recording, waits for the recorded launches to finish and writes
/// one entry per kernel (in the order of first launch) into `entries`, at
/// most `capacity` of them. Returns the number of kernels recorded.
XPU_RUNTIME_EXPORT int xpuRuntimeProfileStop(XPUKernelProfile *entries,
                                             int capacity);

//===----------------------------------------------------------------------===//
// Errors (xpu-specific; see the top of this file)
//===----------------------------------------------------------------------===//

/// Copies the recorded error ("xpu <api> runtime: <message>"), cut to
/// `size` - 1 bytes and zero-terminated, into `buffer` (which may be null
/// when `size` is 0) and returns its full length; returns 0 when no error is
/// recorded.
XPU_RUNTIME_EXPORT int xpuRuntimeGetLastError(char *buffer, size_t size);

/// Forgets the recorded error: later calls run again.
XPU_RUNTIME_EXPORT void xpuRuntimeClearError(void);

/// Turns the printing of each recorded error to stderr on (the default) or
/// off, for callers that report errors themselves.
XPU_RUNTIME_EXPORT void xpuRuntimeSetErrorPrinting(int enabled);

//===----------------------------------------------------------------------===//
// Device discovery and selection (xpu-specific)
//===----------------------------------------------------------------------===//

/// The number of devices this runtime can use, printing nothing; -1, with
/// the error recorded, when the driver cannot be used at all.
XPU_RUNTIME_EXPORT int xpuRuntimeGetDeviceCount(void);

/// Prints one line per device this runtime can use to stdout, numbered as
/// xpuRuntimeSelectDevice expects, and returns the number of devices (-1,
/// with the error recorded, when the driver cannot be used at all).
XPU_RUNTIME_EXPORT int xpuRuntimeListDevices(void);

/// Selects the device with the given index in xpuRuntimeListDevices' listing
/// (0 by default). Must be called before the first module load, stream,
/// event or allocation; selecting another device afterwards, or an index out
/// of range, is an error.
XPU_RUNTIME_EXPORT void xpuRuntimeSelectDevice(int index);

//===----------------------------------------------------------------------===//
// OpenCL only (xpu_opencl_runtime)
//===----------------------------------------------------------------------===//

/// Devices without SPIR-V IL support (PoCL) get each module translated to
/// SPIR 1.2 bitcode by llvm-spirv, a separate program. The runtime keeps
/// the translations by the SPIR-V module's hash: this writes every one it
/// made or read into `dir` (`<hash>.bc`, created if missing) and returns
/// their number (-1, with the error recorded, on failure), so that a
/// package can carry them.
XPU_RUNTIME_EXPORT int xpuOpenCLWriteSPIR(const char *dir);

/// Makes the translations in `dir` (written by xpuOpenCLWriteSPIR)
/// available: a module with one there loads without llvm-spirv.
XPU_RUNTIME_EXPORT void xpuOpenCLAddSPIRDirectory(const char *dir);

//===----------------------------------------------------------------------===//
// CUDA only (xpu_cuda_runtime)
//===----------------------------------------------------------------------===//

/// mgpuLaunchKernel in thread block clusters of
/// `clusterX*clusterY*clusterZ` workgroups (`gpu.launch_func ... clusters
/// in`; sm_90 and later): cuLaunchKernelEx with a cluster dimension.
XPU_RUNTIME_EXPORT void
mgpuLaunchClusterKernel(void *function, intptr_t clusterX, intptr_t clusterY,
                        intptr_t clusterZ, intptr_t gridX, intptr_t gridY,
                        intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                        intptr_t blockZ, int32_t sharedMemBytes, void *stream,
                        void **params, void **extra, size_t paramsCount);

/// A TMA descriptor of the ranked memref `descriptor` with the given box
/// (outermost first) and CUtensorMap* enum values, copied to device memory
/// (nvgpu.tma.create.descriptor, as convert-nvgpu-to-nvvm lowers it).
XPU_RUNTIME_EXPORT void *mgpuTensorMapEncodeTiledMemref(
    int64_t rank, void *descriptor, int64_t dataType, int64_t interleave,
    int64_t swizzle, int64_t l2Promotion, int64_t oobFill, int64_t *boxDims);

/// Runs all later work on `stream`, a CUstream of the selected device's
/// primary context (e.g. PyTorch's current stream), so that the caller's
/// events time it; null goes back to the runtime's own stream. Calls on the
/// caller's stream are asynchronous (mgpuStreamSynchronize waits only while
/// managed memory is allocated): the caller orders its reads of device
/// results against the stream, as for its own work.
XPU_RUNTIME_EXPORT void xpuCudaSetStream(void *stream);

/// When `enabled`, fills every later device allocation with the 32-bit
/// `pattern` (e.g. 0x7fc07fc0, a NaN in f32 and bf16), so that tests see
/// output elements a kernel leaves unwritten.
XPU_RUNTIME_EXPORT void xpuCudaSetAllocationFill(int enabled, uint32_t pattern);

#ifdef __cplusplus
} // extern "C"
#endif

#endif // XPU_RUNTIME_XPURUNTIME_H
