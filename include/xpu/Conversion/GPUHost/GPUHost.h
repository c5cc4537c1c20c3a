//===- GPUHost.h - the host side every GPU backend shares -------*- C++ -*-===//
//
// The layer between the GPU backends (convert-xpu-to-gpu, -xegpu, -nvgpu)
// and the runtimes: the memory-effect models of the upstream ops the
// backends create before bufferization, and the helpers of the host passes
// (asynchronous launches, host and CUDA buffers, the host access check,
// kernel names, binary dumps, C interfaces) that lib/Conversion/GPUHost
// holds. Every backend links it; no backend links another.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_CONVERSION_GPUHOST_GPUHOST_H
#define XPU_CONVERSION_GPUHOST_GPUHOST_H

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Support/LLVM.h"

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::xpu {

/// Gives `gpu.barrier` memory effects (a read and a write of workgroup
/// memory). Upstream declares none, so ownership-based buffer deallocation
/// rejects a function whose gpu.launch bodies synchronize; the kernels of
/// convert-xpu-to-gpu exist before bufferization and do. The conversions
/// register it (getDependentDialects); loading the xpu dialect does not.
void registerGPUBarrierMemoryEffectsModel(DialectRegistry &registry);

/// Declares the memory effects of gpu.launch_func (an external model of
/// MemoryEffectOpInterface): it reads and writes every memref it passes, and
/// writes the default resource so that it is never dead. Buffer deallocation
/// then frees a kernel's buffers after the launch instead of refusing the
/// launch (convert-xpu-to-xegpu and convert-xpu-to-nvgpu launch before
/// bufferization, and register it in their getDependentDialects; loading
/// xpu does not).
void registerGPULaunchMemoryEffectsModel(DialectRegistry &registry);

/// `name` as an identifier every kernel assembler takes (PTX: letters,
/// digits, `_` and `$`, not starting with a digit): the others become `_`.
/// xpu-sanitize-kernel-names renames kernels with it; backends that name
/// kernels themselves use it too.
std::string getKernelIdentifier(StringRef name);

/// True for an op in device code: inside a gpu.module, gpu.launch or
/// gpu.func.
bool isInGPUCode(Operation *op);

/// True for the workgroup (shared local) memory space: 3, or
/// #gpu.address_space<workgroup>.
bool isWorkgroupMemorySpace(Attribute space);

/// Creates a GPU runtime op in the asynchronous form that gpu-to-llvm
/// lowers (allocations, copies and frees have no other), waited for at
/// once: `build` gets the token of a fresh gpu.wait, creates the op at the
/// builder's point and returns the op's token.
void createWaitedAsyncOp(OpBuilder &b, Location loc,
                         function_ref<Value(Value start)> build);

/// Replaces each of `deallocs` that frees a buffer of the default memory
/// space (the buffers the host layer placed with gpu.alloc) by gpu.dealloc,
/// waited for at once; the others stay.
void replaceHostDeallocs(RewriterBase &rewriter,
                         ArrayRef<memref::DeallocOp> deallocs);

/// Writes `bytes` to `dir`/`name` for a binary dump; on failure, an error
/// at `at` that names `pass`.
LogicalResult writeDumpFile(Operation *at, StringRef pass, StringRef dir,
                            StringRef name, StringRef bytes);

/// Creates `dir` (and its parents) for a binary dump; on failure, an error
/// at `at` that names `pass`.
LogicalResult createDumpDirectory(Operation *at, StringRef pass, StringRef dir);

} // namespace mlir::xpu

#endif // XPU_CONVERSION_GPUHOST_GPUHOST_H
