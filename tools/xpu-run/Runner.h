//===- Runner.h - compile a module for a target and call its functions -*- C++
//-*-===//
//
// The pieces of xpu-run that its modes share: a JIT-compiled program whose
// functions are called with host tensors in device-visible buffers (the
// targets and compiling are in tools/common/Compile.h, shared with
// xpu-compile).
//
//===----------------------------------------------------------------------===//

#ifndef XPU_TOOLS_XPU_RUN_RUNNER_H
#define XPU_TOOLS_XPU_RUN_RUNNER_H

#include "Compile.h"
#include "EntryPoints.h"
#include "HostTensor.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"

#include <memory>
#include <string>
#include <vector>

struct XPUKernelProfile;

namespace mlir::xpu::run {

/// A device-visible buffer and its memref descriptor.
struct Buffer {
  void *data = nullptr;
  size_t bytes = 0;
  ElemKind kind = ElemKind::F32;
  SmallVector<int64_t> shape;
  /// {allocated, aligned, offset, sizes..., strides...}
  std::vector<int64_t> descriptor;
  /// A scalar argument's value (8 bytes, the low ones used).
  int64_t scalar = 0;
  bool isScalar = false;
  /// Memory the host cannot touch (--device-only-buffers): filled and read
  /// with the runtime's copies.
  bool deviceOnly = false;
};

/// What the runtime recorded for one kernel.
struct KernelStats {
  std::string name;
  uint64_t launches = 0;
  /// Nanoseconds, -1 when the device reports no time.
  int64_t deviceNanoseconds = -1;
};

/// A compiled program on its device.
class Program {
public:
  ~Program();

  /// JIT-compiles the lowered `module` for `target` with the given shared
  /// libraries (the runtime library is added for devices) and runs its
  /// global constructors (kernel module loads).
  /// With `deviceOnly`, the runtime's device-only test mode is on
  /// (xpuRuntimeSetDeviceOnlyMemory) and allocate() can hand out memory the
  /// host cannot touch.
  static FailureOr<std::unique_ptr<Program>>
  create(ModuleOp module, const TargetInfo &target,
         ArrayRef<std::string> sharedLibs, unsigned optLevel,
         bool deviceOnly = false);

  ExecutionEngine &engine() { return *engine_; }
  bool isDevice() const { return memAlloc_ != nullptr; }

  /// A buffer for a value of type `t` (a scalar, or a tensor of it), filled
  /// from `value` when given; device-only memory with `deviceOnly` (on a
  /// program created with it). Fails with a message when memory runs out.
  FailureOr<Buffer> allocate(Type t, const HostTensor *value, Location loc,
                             bool deviceOnly = false);
  void release(Buffer &buffer);
  /// The buffer's contents.
  HostTensor read(const Buffer &buffer) const;

  /// Calls the wrapper `_mlir_ciface___xpu_entry_<function>` with the
  /// inputs and the outputs, in that order; fails when the device runtime
  /// recorded an error (see checkRuntime).
  LogicalResult call(StringRef function, ArrayRef<Buffer *> inputs,
                     ArrayRef<Buffer *> outputs, Location loc);

  /// Looks the wrapper of `function` up (the JIT compiles on first lookup).
  LogicalResult prepare(StringRef function, Location loc);

  /// Fails when the device runtime recorded an error (the runtime printed
  /// it): the buffers' contents are meaningless then.
  LogicalResult checkRuntime() const;

  /// Kernel profiling of the device runtime; false on the host.
  bool profileStart();
  std::vector<KernelStats> profileStop();

private:
  std::unique_ptr<ExecutionEngine> engine_;
  void *(*memAlloc_)(uint64_t, void *, bool) = nullptr;
  void (*memFree_)(void *, void *) = nullptr;
  void (*memcpy_)(void *, void *, size_t, void *) = nullptr;
  void (*streamSynchronize_)(void *) = nullptr;
  bool deviceOnly_ = false;
  void (*profileStart_)() = nullptr;
  int (*profileStop_)(XPUKernelProfile *, int) = nullptr;
  int (*lastError_)(char *, size_t) = nullptr;
  llvm::StringMap<void (*)(void **)> entries_;
};

} // namespace mlir::xpu::run

#endif // XPU_TOOLS_XPU_RUN_RUNNER_H
