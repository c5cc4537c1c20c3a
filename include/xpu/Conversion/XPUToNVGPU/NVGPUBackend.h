//===- NVGPUBackend.h - the NVGPU GEMM backend's rules ----------*- C++ -*-===//
//
// The rules of convert-xpu-to-nvgpu's tensor-core kernels (mma.sync, or TMA
// + wgmma on sm_90a): which GEMMs and configs they run, the layouts they
// read and their register split. The kernels, their tile emitters and the
// backend's GemmBackendAttrInterface model on #xpu.nvgpu
// (NVGPUGemmBackend.cpp) read them here, so that a config the strategy
// accepts is one the kernels lower.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_CONVERSION_XPUTONVGPU_NVGPUBACKEND_H
#define XPU_CONVERSION_XPUTONVGPU_NVGPUBACKEND_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include <string>

namespace mlir::xpu::nvidia {

/// cp.async copies 16-byte chunks, and a TMA descriptor's row stride is a
/// multiple of 16 bytes: every operand row starts on 16 bytes.
inline constexpr int64_t kChunkBytes = 16;
/// Rows that need a new pitch anyway get a multiple of 128 bytes where TMA
/// reads them (one 128-byte swizzled row per box row).
inline constexpr int64_t kTmaRowBytes = 128;
/// Shared memory the wgmma kernel's mbarriers take from the target's
/// `max_block_slm_bytes`.
inline constexpr int64_t kWgmmaBarrierBytes = 1024;
/// Registers per thread after setmaxnreg in the wgmma kernel: the producer
/// warpgroup gives its registers to the consumers (the 64K registers of an
/// sm_90 SM: 2 x 128 x 232 + 128 x 40).
inline constexpr int64_t kProducerRegisters = 40;
inline constexpr int64_t kConsumerRegisters = 232;
/// Registers of the A and B fragments one mma.sync thread holds for a
/// `warpM x warpN` warp block: two k-steps (the next one's fragments load
/// while this one's products run) of 4 registers per 16-row A tile
/// (ldmatrix.x4) and `bRegistersPer8Cols` per 8-column B tile (2 from
/// ldmatrix). The one owner of the count: the kernel, its rules and the
/// register model read it here.
int64_t getMmaSyncFragmentRegisters(int64_t warpM, int64_t warpN,
                                    int64_t bRegistersPer8Cols = 2);
/// The fragment registers of the register model for a `tile` on
/// `subgroups` warps with operands of `operandType`: tf32 B fragments of a
/// [k, n] B are loaded one 32-bit element at a time (ldmatrix cannot
/// transpose them), so their addresses count too.
int64_t getMmaSyncFragmentRegisters(ArrayRef<int64_t> tile,
                                    ArrayRef<int64_t> subgroups,
                                    Type operandType);
/// Registers of one mma.sync thread that accumulators and fragments may
/// take: the rest of the target's 255 (`grf_count`) hold addresses, indices
/// and loop state.
inline constexpr int64_t kMmaSyncRegisterRoom = 232;

/// bf16 and f16: the 16-bit operand types of mma.sync and wgmma.
bool isTensorCoreType(Type t);
/// Types the kernels compute the epilogue in and store.
bool isKernelScalarType(Type t);
/// The instruction family the backend prefers on `target` for operands of
/// `operandBytes` bytes: wgmma for 16-bit and tf32 operands where the target
/// has it, else mma_sync.
NVGPUMma getPreferredMma(TargetAttr target, int64_t operandBytes);
/// tile_k of a wgmma kernel: one 128-byte swizzled row of each operand (64
/// 16-bit elements, 32 tf32 ones).
inline constexpr int64_t getWgmmaTileK(int64_t operandBytes) {
  return kTmaRowBytes / operandBytes;
}
/// k of one wgmma instruction: 32 bytes of each operand's row (k16 for
/// 16-bit operands, k8 for tf32).
inline constexpr int64_t getWgmmaInstructionK(int64_t operandBytes) {
  return 32 / operandBytes;
}
/// The row pitch (elements) the kernel reads for an operand whose rows have
/// `cols` elements of `elt`: `cols` when a row is a multiple of 16 bytes,
/// else padded to 16 bytes (mma_sync: cp.async) or to 128 bytes (wgmma:
/// TMA).
int64_t getOperandPitch(int64_t cols, Type elt, NVGPUMma mma);
/// Stages the mma.sync kernel runs: the config's, at least 2 (a one-stage
/// config never fills its second stage).
int64_t getMmaSyncStages(ConfigAttr config);
/// Consumer warpgroups of a wgmma kernel of `config`: tile_m / 64 that
/// split each tile by rows (cooperative), or 2 that take turns at whole
/// tiles (pingpong).
int64_t getConsumerWarpgroups(ConfigAttr config);
/// f32 accumulators a pingpong consumer thread holds at most: a whole
/// tile_m x tile_n tile over 128 threads, within kConsumerRegisters.
inline constexpr int64_t kPingPongAccumulators = 128;
/// Threads of one workgroup of `config`: 32 per warp of the subgroup
/// layout (mma_sync), 128 per warpgroup with one producer warpgroup and
/// getConsumerWarpgroups consumers (wgmma).
int64_t getThreads(ConfigAttr config);
/// Whether the epilogue `epilogue` (first argument the accumulator, then
/// one per epilogue operand of types `operandTypes`) producing `result`
/// can run in a tensor-core kernel: pure scalar single-result ops of kernel
/// types, capturing only scalar constants. `where` is the op to blame.
LogicalResult checkEpilogue(Region &epilogue, Type result,
                            TypeRange operandTypes, std::string &why,
                            Operation *&where);

/// Whether the tensor-core kernels compute `gemm` (its types and epilogue)
/// on `target`; `why` says why not and `where` is the op to blame.
LogicalResult checkGemm(GemmOp gemm, TargetAttr target, std::string &why,
                        Operation *&where);
/// Whether the tensor-core kernels run `config` on `target` for operands of
/// `operandBytes` bytes: the instruction family's tile, warp, register and
/// shared-memory rules (mma.sync's tile_n rule depends on the layout of B,
/// `rhsLayout`).
LogicalResult checkConfig(TargetAttr target, ConfigAttr config,
                          int64_t operandBytes, std::string &why,
                          RhsLayout rhsLayout = RhsLayout::nk);
/// Whether the workgroups of `config`'s thread block clusters (cluster_m)
/// compute vertically adjacent tiles of one tile column for a GEMM of `dims`
/// (`[batch, m, n, k]`): programs 2i and 2i + 1 are a cluster, and
/// xpu-schedule-gemm's GROUP_SIZE_M order pairs their tiles so when the
/// tile rows and every group of them are even in number.
LogicalResult checkClusterShape(ConfigAttr config, ArrayRef<int64_t> dims,
                                std::string &why);
/// Shared memory one workgroup of `config` uses (bytes): `stages` slices of
/// A and B (mma.sync: at least 2).
int64_t getWorkgroupSlmBytes(ConfigAttr config, int64_t operandBytes);

/// Instructions the straight-line epilogue of a thread may take before the
/// wgmma kernel stages it (shouldStageEpilogue): the kernel runs that code
/// once per tile, cold, and past a few thousand instructions fetching it
/// costs more than the tile's epilogue arithmetic (docs/NVIDIA.md).
inline constexpr int64_t kStraightEpilogueInstructions = 2048;
/// Whether the wgmma kernel of `config` applies `epilogue` in a loop over
/// its accumulators staged through the shared memory of its TMA ring
/// rather than on the registers: when the straight-line code for a
/// consumer thread's accumulators would exceed
/// kStraightEpilogueInstructions, the workgroup computes one tile (its ring
/// is free once the tile's wgmma are done) and the ring holds the tile's
/// f32 accumulators.
bool shouldStageEpilogue(Block &epilogue, ConfigAttr config,
                         bool onePerWorkgroup);

} // namespace mlir::xpu::nvidia

#endif // XPU_CONVERSION_XPUTONVGPU_NVGPUBACKEND_H
