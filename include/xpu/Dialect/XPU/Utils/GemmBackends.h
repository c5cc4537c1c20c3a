//===- GemmBackends.h - what each GPU GEMM backend can run ------*- C++ -*-===//
//
// One place for the rules of every GPU backend that lowers a workgroup's
// GEMM tile: which GEMMs (types, epilogues) and which configs (tiles,
// subgroups, registers) it runs, and the memory layouts it reads (row
// pitches). xpu-select-strategy asks these rules when it enumerates
// candidates, verifies a hand-written config with them, and the layout and
// schedule passes and the backends themselves report their messages; so a
// config the strategy accepts is one the backend lowers.
//
// Three backends: SIMT (no sub-attribute), Intel Xe DPAS (#xpu.xe) and
// NVIDIA tensor cores (#xpu.nvgpu). xpu-materialize-layouts and
// xpu-schedule-gemm reach these rules through GemmBackendAttrInterface,
// whose implementations (lib/Conversion/XPUTo*/*GemmBackend.cpp) call
// them; the strategy (SelectStrategy, StrategyModel, RegisterPressure)
// still calls them by GemmBackend.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_GEMMBACKENDS_H
#define XPU_DIALECT_XPU_UTILS_GEMMBACKENDS_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include <string>

namespace mlir::xpu {

/// The GPU code generators of one workgroup's GEMM tile.
enum class GemmBackend {
  /// convert-xpu-to-gpu: portable SIMT kernels (SLM slices, register
  /// micro-tiles), any target of the gpu dialect.
  simt,
  /// convert-xpu-to-xegpu: Intel Xe DPAS kernels with 2D block I/O.
  xe,
  /// convert-xpu-to-nvgpu: NVIDIA tensor-core kernels (mma.sync, or TMA +
  /// wgmma on sm_90a).
  nvgpu,
};

/// The backend a config is for: `backend = #xpu.xe<...>` is xe,
/// `#xpu.nvgpu<...>` nvgpu, no backend sub-attribute is simt.
GemmBackend getGemmBackend(ConfigAttr config);
llvm::StringRef stringifyGemmBackend(GemmBackend backend);
std::optional<GemmBackend> symbolizeGemmBackend(llvm::StringRef name);

//===----------------------------------------------------------------------===//
// SIMT
//===----------------------------------------------------------------------===//

/// How a SIMT workgroup is laid out: the config's subgroups split the tile
/// into blocks, the lanes of a subgroup split a block (along n first, so
/// that neighbouring lanes touch neighbouring columns), and each thread
/// keeps an `rm x rn` register micro-tile.
struct SimtLayout {
  int64_t tm, tn, tk;
  int64_t sgRows, sgCols, lanes;
  int64_t lanesM, lanesN;
  int64_t rm, rn;
  /// Shared-memory slice buffers: 2 (double buffering) when stages >= 2.
  int64_t buffers;
  int64_t threads() const { return sgRows * sgCols * lanes; }
};

/// How the lanes of a subgroup split its `blockM x blockN` block: along n
/// first (at most `lanes` columns, so that neighbouring lanes touch
/// neighbouring columns), then along m; each lane keeps an `rm x rn` register
/// micro-tile (rounded up where the lanes do not divide the block). The one
/// owner of the SIMT micro-tile: the kernels (getSimtLayout) and the register
/// model read it here.
struct SimtMicroTile {
  int64_t lanesM, lanesN, rm, rn;
};
SimtMicroTile getSimtMicroTile(int64_t blockM, int64_t blockN, int64_t lanes);

/// Accumulators one SIMT thread may hold: beyond this the kernel would spill
/// on every target we know.
inline constexpr int64_t kSimtMaxAccumulators = 256;

/// The SIMT layout of `config` on `target` with `lanes` lanes per subgroup,
/// or failure with the reason in `why`.
FailureOr<SimtLayout> getSimtLayout(TargetAttr target, ConfigAttr config,
                                    int64_t lanes, std::string &why);

//===----------------------------------------------------------------------===//
// Intel Xe (DPAS)
//===----------------------------------------------------------------------===//

namespace xe {
/// Lanes of a subgroup: DPAS runs on SIMD16 on pvc and bmg.
inline constexpr int64_t kLanes = 16;
/// DPAS shape for 16-bit operands: A 8x16, B 16x16, C 8x16.
inline constexpr int64_t kDpasM = 8, kDpasN = 16, kDpasK = 16;
// The 2D block surface rules (minimum and alignment of the row pitch and
// the width, base alignment) are the target's `block_2d` limits: a row's
// width (bytes a block message may touch) is at most its pitch.

/// f16 and bf16: the operand types of DPAS.
bool isDpasOperandType(Type t);
/// Bytes of one element of `t`.
int64_t getElementBytes(Type t);
/// The smallest row pitch >= `cols` elements that 2D block I/O on `target`
/// accepts.
int64_t getLegalPitch(TargetAttr target, int64_t cols, Type elt);
/// The smallest surface width >= `cols` elements that 2D block I/O accepts
/// (>= 64 bytes, a multiple of 4): the width of the descriptors of a
/// surface with `cols` logical columns. It is at most getLegalPitch(cols),
/// so a row padded to a legal pitch holds it.
int64_t getBlockWidth(TargetAttr target, int64_t cols, Type elt);
/// The smallest row count >= `rows` whose rows of `pitch` elements fill a
/// multiple of the base alignment (64 bytes): the rows of one batch's slab
/// of a batched surface, so that every batch's base address stays aligned.
int64_t getBatchRows(TargetAttr target, int64_t rows, int64_t pitch, Type elt);
/// Types the Xe kernel loads, stores and computes its epilogue in (f32,
/// f16, bf16, integers up to 32 bits).
bool isKernelType(Type t);
/// Types the Xe kernel may compute and store: not bf16, which XeVM's SPIR-V
/// declares as a bfloat OpTypeFloat that needs SPV_KHR_bfloat16 (the
/// serializer stops with a fatal error). bf16 loads (DPAS operands,
/// epilogue operands read through extf) are 16-bit data and stay in the
/// kernel.
bool isKernelResultType(Type t);
/// True when the epilogue of `gemm` can run in the kernel (every value a
/// kernel type, every result a kernel result type: f64 epilogues, bf16
/// results); else the kernel stores the f32 accumulator and the epilogue
/// runs on the host.
bool hasDeviceEpilogue(GemmOp gemm);
/// The operand element type the kernel reads: the lhs type if DPAS takes
/// it, else bf16.
Type getDpasOperandType(GemmOp gemm);
} // namespace xe

//===----------------------------------------------------------------------===//
// NVIDIA tensor cores (mma.sync, wgmma)
//===----------------------------------------------------------------------===//

namespace nvidia {
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
/// `operandBytes` bytes: wgmma for 16-bit operands where the target has
/// it, else mma_sync.
NVGPUMma getPreferredMma(TargetAttr target, int64_t operandBytes);
/// tile_k of a kernel: one 128-byte swizzled row (64 16-bit elements) for
/// wgmma.
inline constexpr int64_t kWgmmaTileK = 64;
/// The row pitch (elements) the kernel reads for an operand whose rows have
/// `cols` elements of `elt`: `cols` when a row is a multiple of 16 bytes,
/// else padded to 16 bytes (mma_sync: cp.async) or to 128 bytes (wgmma:
/// TMA).
int64_t getOperandPitch(int64_t cols, Type elt, NVGPUMma mma);
/// Stages the mma.sync kernel runs: the config's, at least 2 (a one-stage
/// config never fills its second stage).
int64_t getMmaSyncStages(ConfigAttr config);
/// Threads of one workgroup of `config`: 32 per warp of the subgroup
/// layout (mma_sync), 128 per warpgroup with one producer warpgroup and
/// tile_m / 64 consumers (wgmma).
int64_t getThreads(ConfigAttr config);
/// Whether the epilogue `epilogue` (first argument the accumulator, then
/// one per epilogue operand of types `operandTypes`) producing `result`
/// can run in a tensor-core kernel: pure scalar single-result ops of kernel
/// types, capturing only scalar constants. `where` is the op to blame.
LogicalResult checkEpilogue(Region &epilogue, Type result,
                            TypeRange operandTypes, std::string &why,
                            Operation *&where);
} // namespace nvidia

//===----------------------------------------------------------------------===//
// Rules of every backend
//===----------------------------------------------------------------------===//

/// Whether `backend` can compute `gemm` (its types and epilogue) on
/// `target`. On failure `why` says why and `where` is the op to blame (the
/// GEMM or one of its epilogue ops).
LogicalResult checkBackendGemm(GemmBackend backend, GemmOp gemm,
                               TargetAttr target, std::string &why,
                               Operation *&where);

/// Whether `backend` can run `config` on `target` for operands of
/// `operandBytes` bytes: tile and subgroup shapes, work-items, hardware
/// threads, shared memory; for nvgpu also the instruction family's rules
/// (whose tile_n rule depends on the layout of B, `rhsLayout`). `why` says
/// why not.
LogicalResult checkBackendConfig(GemmBackend backend, TargetAttr target,
                                 ConfigAttr config, int64_t operandBytes,
                                 std::string &why,
                                 RhsLayout rhsLayout = RhsLayout::nk);

/// The row pitch (elements) the backend needs for a 2D buffer of `cols`
/// elements of `elt` on `target`: `cols` for SIMT, the 2D block rule for xe.
int64_t getBackendRowPitch(GemmBackend backend, TargetAttr target, int64_t cols,
                           Type elt);

/// The rows of one batch's slab of a batched buffer with `rows` logical rows
/// of `pitch` elements of `elt`: `rows` for SIMT, xe::getBatchRows for xe.
int64_t getBackendBatchRows(GemmBackend backend, TargetAttr target,
                            int64_t rows, int64_t pitch, Type elt);

/// The alignment (bytes) of the buffers the lowering allocates for the
/// backend: xe's 2D block base alignment, else 64 (a cache line).
int64_t getBackendBufferAlignment(GemmBackend backend, TargetAttr target);

/// Shared local memory one workgroup of `config` uses (bytes).
int64_t getWorkgroupSlmBytes(GemmBackend backend, ConfigAttr config,
                             int64_t operandBytes);

/// Workgroups of `config` that `target` runs at once: compute units times
/// the workgroups one compute unit holds (limited by shared memory and, on
/// Xe, hardware threads; on NVIDIA by 64 warps per SM and, for wgmma, the
/// setmaxnreg register split). The default program count of persistent and
/// Stream-K schedules.
int64_t getResidentWorkgroups(GemmBackend backend, TargetAttr target,
                              ConfigAttr config, int64_t operandBytes);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_GEMMBACKENDS_H
