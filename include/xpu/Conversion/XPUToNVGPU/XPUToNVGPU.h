//===- XPUToNVGPU.h - xpu.gemm to NVIDIA tensor-core kernels ----*- C++ -*-===//
//
// The NVIDIA backend of the schedule layer (GemmPrograms.h). Tile emitters
// compute one workgroup tile of a GEMM with tensor cores (mma.sync fed by
// ldmatrix from swizzled shared memory that a cp.async pipeline fills; on
// sm_90a TMA and wgmma) and then apply the epilogue and store the tile,
// store its f32 partial sums to a Stream-K workspace slot or add them there
// with atomics; a fix-up sums a tile's slots and applies the epilogue once.
// Which tiles and K ranges a program computes (data-parallel, persistent,
// Stream-K) comes from xpu-schedule-gemm's programs.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_CONVERSION_XPUTONVGPU_XPUTONVGPU_H
#define XPU_CONVERSION_XPUTONVGPU_XPUTONVGPU_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::xpu {

/// The static shape of one tensor-core GEMM kernel: the problem, the
/// operand layouts as the kernel reads them, and the tiling from the
/// #xpu.config.
struct MmaKernelPlan {
  /// Logical problem.
  int64_t batch = 1, m = 0, n = 0, k = 0;
  /// Row pitch, in elements, of A (always [m, k]) and of B: k for an [n, k]
  /// B, n for a [k, n] B. Padded so that every row starts on 16 bytes
  /// (nvidia::getOperandPitch).
  int64_t aPitch = 0, bPitch = 0;
  bool rhsNK = true;
  bool lhsBatched = false, rhsBatched = false;
  /// Operand element type: bf16 or f16 (m16n8k16), f32 (tf32, m16n8k8).
  Type operandType;
  /// The type the kernel stores (the GEMM's result element type).
  Type resultType;
  /// Workgroup tile, warp layout, cp.async stages, program-id swizzle.
  int64_t tm = 0, tn = 0, tk = 0, warpRows = 0, warpCols = 0, stages = 0,
          groupM = 1;

  int64_t operandBytes() const;
  /// Elements in one 16-byte cp.async chunk.
  int64_t chunkElems() const { return 16 / operandBytes(); }
  /// k of one mma.sync: 16 for 16-bit operands, 8 for tf32.
  int64_t mmaK() const { return operandBytes() == 2 ? 16 : 8; }
  int64_t warpM() const { return tm / warpRows; }
  int64_t warpN() const { return tn / warpCols; }
  int64_t threads() const { return warpRows * warpCols * 32; }
  int64_t tilesM() const;
  int64_t tilesN() const;
  /// Shared memory of the A and B stage buffers, in bytes.
  int64_t aStageElems() const { return tm * tk; }
  int64_t bStageElems() const { return tn * tk; }
  int64_t sharedBytes() const;
  /// f32 accumulators each thread holds.
  int64_t accumulatorsPerThread() const { return tm * tn / threads(); }
  /// Registers of the A and B fragments of one k-step, double-buffered.
  int64_t fragmentRegisters() const;

  /// sm_90a: TMA loads and wgmma (WgmmaTileEmitter) instead of cp.async and
  /// mma.sync. One warpgroup per 64 rows of the tile computes them with
  /// wgmma m64n<tn>k16; one more warpgroup issues the TMA loads.
  bool wgmma = false;
  /// wgmma, one tile per workgroup: each warp applies the epilogue in a
  /// loop over its accumulators staged through the ring's shared memory,
  /// instead of on the registers in straight-line code
  /// (nvidia::shouldStageEpilogue).
  bool stagedEpilogue = false;
  /// wgmma, one tile per workgroup: each consumer warpgroup writes its
  /// epilogue's results into its own rows of the ring's A slots (64 x 128
  /// byte boxes, 128-byte swizzle) and one thread stores them with TMA
  /// (WgmmaKernelOperands::cMap), instead of every thread storing its
  /// pairs of columns to global memory.
  bool tmaStore = false;
  /// wgmma: workgroups per thread block cluster along M (#xpu.nvgpu's
  /// cluster_m). With 2, cluster rank r computes the tile at m0 and TMA-loads
  /// the r-th half of B, multicast to both workgroups.
  int64_t clusterM = 1;
  /// wgmma, persistent programs (#xpu.nvgpu's consumers = pingpong): two
  /// consumer warpgroups take turns at the program's tiles, each computing
  /// a whole tile (tm / 64 wgmma per k-step), instead of tm / 64 of them
  /// splitting every tile by rows.
  bool pingPong = false;
  int64_t consumerWarpgroups() const { return pingPong ? 2 : tm / 64; }
  /// Rows of the tile one consumer warpgroup computes.
  int64_t consumerRows() const { return pingPong ? tm : 64; }
  /// wgmma commit groups (one per k tile) a consumer keeps in flight while
  /// it issues the next.
  int64_t wgmmaGroupsInFlight() const;
  int64_t wgmmaThreads() const { return 128 * (consumerWarpgroups() + 1); }
  /// Bytes of one stage's A and B boxes.
  int64_t wgmmaStageBytes() const { return (tm + tn) * tk * operandBytes(); }
};

/// The values a tile emitter reads and writes inside a kernel, all 1-D
/// memrefs with static shapes (the bare-pointer kernel arguments), except the
/// rank-0 scalar epilogue operands.
struct MmaKernelOperands {
  Value a, b, c;
  SmallVector<Value> epilogue;
  /// The dynamic shared memory (memref<?xi8, workgroup>).
  Value shared;
};

/// The epilogue of a tile op: its block (argument 0 the accumulator, then one
/// argument per epilogue operand) and how each operand is read.
struct FragmentEpilogue {
  Block *block = nullptr;
  SmallVector<BroadcastKind> kinds;
};

/// Emits, inside a kernel, the tensor-core computation of one workgroup tile
/// of a GEMM: a `stages`-deep cp.async pipeline (nvgpu.device_async_copy)
/// filling XOR-swizzled shared-memory slices of A and B, ldmatrix
/// (nvgpu.ldmatrix) fragments, and nvgpu.mma.sync on per-warp accumulators;
/// then either the epilogue applied to the accumulator registers with the
/// result stored, or the f32 accumulators stored to (or added into) a
/// workspace slot. The constructor computes the thread coordinates where the
/// builder stands (the kernel's entry); one emitter lowers every tile of a
/// kernel. Without `operands.shared` (a fix-up kernel) only the epilogue,
/// workspace and fix-up methods may be used.
class MmaSyncTileEmitter {
public:
  MmaSyncTileEmitter(OpBuilder &b, Location loc, const MmaKernelPlan &plan,
                     const MmaKernelOperands &operands);

  /// Accumulators (vector<2x2xf32>, warp tile row-major over 16x8 mma tiles)
  /// of the tile at (`batch`, `m0`, `n0`) over K in [`k0`, `k1`).
  /// `maskK` must be set when the range is not known to be whole k tiles of
  /// a padded operand.
  SmallVector<Value> emitMainLoop(Value batch, Value m0, Value n0, Value k0,
                                  Value k1, bool maskK);

  /// Applies `epilogue` to each accumulator and stores the result tile into
  /// C (masked at the M and N edges).
  void emitEpilogueAndStore(const FragmentEpilogue &epilogue,
                            ArrayRef<Value> accumulators, Value batch, Value m0,
                            Value n0);

  /// Stores the f32 accumulators into `workspace` (a 1-D f32 memref) as a
  /// row-major tm x tn block at slot `slot`, for a later reduction.
  void emitPartialStore(ArrayRef<Value> accumulators, Value workspace,
                        Value slot);

  /// Adds the f32 accumulators of the tile at (`m0`, `n0`) into slot `slot`
  /// of `workspace` with float atomics, only where the element lies inside
  /// the logical m x n (streamk_atomic_add_needs_mask).
  void emitAtomicAdd(ArrayRef<Value> accumulators, Value workspace, Value slot,
                     Value m0, Value n0);

  /// The accumulators of a Stream-K tile: slots [`first`, `first` +
  /// `count`) of `workspace` summed in slot order (a fixed order: the
  /// result does not depend on which program finished first).
  SmallVector<Value> emitSlotSum(Value workspace, Value first, Value count);

private:
  Value idx(int64_t v);
  Value add(Value x, Value y);
  Value mul(Value x, Value y);
  Value swizzle(Value row, Value chunk, int64_t chunksPerRow);
  void computeLaneLayout();
  void issueStageLoads(Value tileK, Value stage, Value batch, Value m0,
                       Value n0, Value kLimit, bool maskK,
                       SmallVectorImpl<Value> &tokens);
  SmallVector<Value> loadFragmentsA(Value stage, int64_t ks);
  SmallVector<Value> loadFragmentsB(Value stage, int64_t ks);
  SmallVector<Value> computeStage(Value stage, ArrayRef<Value> acc);
  /// Calls `fn(tile, h, row, col)` for row half `h` of every 16x8 mma tile
  /// of this thread's accumulators (index `tile`): the tile-relative row and
  /// the first of the pair of columns the half holds.
  void
  forEachAccumulatorPair(function_ref<void(int64_t, int64_t, Value, Value)> fn);

  OpBuilder &b;
  Location loc;
  const MmaKernelPlan &p;
  MmaKernelOperands ops;
  /// Views of the stage buffers in shared memory.
  Value aShared, bShared;
  /// Thread coordinates.
  Value tid, lane, warpM0, warpN0;
};

/// The operands of a wgmma kernel: TMA descriptors of A and B
/// (!nvgpu.tensormap.descriptor, 128-byte swizzle, zero fill outside the
/// matrix), C and the epilogue operands as 1-D memrefs.
struct WgmmaKernelOperands {
  Value aMap, bMap, c;
  /// With plan.tmaStore: the TMA descriptor of C (boxes of 64 rows x 128
  /// bytes, 128-byte swizzle).
  Value cMap;
  SmallVector<Value> epilogue;
};

/// The mbarrier ring of a wgmma kernel, set up once per workgroup
/// (WgmmaTileEmitter::createRing) and carried across the tiles a program
/// computes: `full` and `empty` hold one mbarrier per stage; `kTilesDone`
/// (memref<1xindex> in registers, after SROA) counts the k tiles every
/// earlier tile of this workgroup consumed, so that a tile's k tile `kt`
/// is the ring's `kTilesDone + kt`: its slot and phase parity follow from
/// that. `fixedRoles`: the producer and consumer warpgroups re-balance
/// their registers (setmaxnreg) inside the tile; only where each runs one
/// tile, since the role branch sits inside the tile (a kernel that branches
/// on the role around its tile loop does it there: WgmmaRole).
/// `tilesDone` (memref<1xindex>) counts the tiles this workgroup's
/// consumers went through, whose parity says which pingpong consumer
/// computes the next one.
struct WgmmaRing {
  Value full, empty, kTilesDone, tilesDone;
  bool fixedRoles = true;
  /// Clustered (plan.clusterM > 1): `empty` is null, and the empty
  /// barriers are 8-byte mbarriers after the ring in dynamic shared memory,
  /// at shared address `clusterEmpty` (i64), which the consumers of every
  /// workgroup of the cluster arrive on; `rank` is the workgroup's rank in
  /// its cluster (index).
  Value clusterEmpty, rank;
};

/// Which warpgroups' part of a tile WgmmaTileEmitter::emitTile emits: all of
/// them, branching on the warpgroup inside the tile, or only the producer's
/// or the consumers' part, in a kernel that branches on the warpgroup once
/// around its tile loop (warp specialization: a persistent program's
/// producer then runs ahead through all of its tiles' loads).
enum class WgmmaRole { all, producer, consumers };

/// Where a Stream-K piece of a tile goes (WgmmaTileEmitter::emitTile): its
/// f32 partial sums, row-major tile_m x tile_n, into slot `slot` of
/// `workspace` (a 1-D f32 memref), stored, or (`atomic`) added with float
/// atomics. A null `workspace`:
/// the whole tile, through its epilogue into C.
struct WgmmaPiece {
  Value workspace, slot;
  bool atomic = false;
};

/// The named barriers (0 is the workgroup's, kConsumersBarrier the staged
/// epilogue's) on which pingpong consumers take turns: tile i of a program
/// uses barrier kPingPongBarrier + i % 2.
inline constexpr int64_t kPingPongBarrier = 2;

/// Emits, inside a kernel of `plan.wgmmaThreads()` threads, one workgroup
/// tile on sm_90a: warpgroup `tm / 64` (the producer) has one thread issue
/// the TMA loads of each k tile into a `stages`-deep ring of 1024-byte
/// aligned shared-memory slots guarded by mbarriers (full: the bytes
/// landed; empty: the consumers are done with the slot); each consumer
/// warpgroup waits for a slot, runs wgmma m64n<tn>k16 on its 64 rows (A and
/// B K-major, or B N-major for a [k, n] B) with one group in flight, frees
/// the previous slot, and finally applies the epilogue to its accumulator
/// registers and stores the tile (or its f32 partial sums). Pingpong
/// consumers (plan.pingPong) take turns at a program's tiles instead: tile
/// i goes to consumer i % 2, which runs tm / 64 wgmma a k-step on the
/// whole tile, tells the other one on named barrier kPingPongBarrier + i %
/// 2 once it has waited for its last k tile, and applies its epilogue while
/// the other one's wgmma run; the other waits there before it starts tile
/// i + 1, so that no consumer waits on a ring slot more than one round
/// ahead of the producer.
class WgmmaTileEmitter {
public:
  WgmmaTileEmitter(OpBuilder &b, Location loc, const MmaKernelPlan &plan,
                   const WgmmaKernelOperands &operands);

  /// Creates and initializes the mbarrier ring (one thread initializes,
  /// then a workgroup barrier, or a cluster barrier when clustered) and
  /// prefetches the TMA descriptors; at the start of the kernel, before any
  /// tile.
  WgmmaRing createRing(bool fixedRoles);

  /// The tile at (`batch`, `m0`, `n0`) over K in [`k0`, `k1`); `k0` and the
  /// range's length are whole k tiles except at the end of K. With a
  /// `piece` workspace, the consumers store (or add) f32 partial sums there
  /// instead of the epilogue's results (a Stream-K piece). A workgroup may
  /// compute several tiles or pieces one after the other on the same
  /// `ring`: the producer runs ahead into the next one's loads while the
  /// consumers apply this one's epilogue.
  void emitTile(const WgmmaRing &ring, const FragmentEpilogue &epilogue,
                Value batch, Value m0, Value n0, Value k0, Value k1,
                const WgmmaPiece &piece = {}, WgmmaRole role = WgmmaRole::all);

  /// Branches the kernel on the warpgroup before `ops` (ops of one block,
  /// in order, that compute a program's tiles): the producer warpgroup
  /// gives registers up (setmaxnreg) and runs a clone of them, the
  /// consumers take registers and run them; returns the clones of `tiles`
  /// (the tile ops inside `ops`) in the producer's branch. Only ops free of
  /// memory effects may surround the tile ops.
  SmallVector<GemmTileOp> splitRoles(ArrayRef<Operation *> ops,
                                     ArrayRef<GemmTileOp> tiles);

  /// Bytes of dynamic shared memory the kernel needs.
  static int64_t sharedBytes(const MmaKernelPlan &plan);

private:
  Value idx(int64_t v);
  Value add(Value x, Value y);
  Value mul(Value x, Value y);
  /// The shared-memory pointer (!llvm.ptr<3>) of a clustered ring's empty
  /// barrier of slot `stage`.
  Value getClusterEmptyBarrier(const WgmmaRing &ring, Value stage);

  /// Where a tile's k tiles are in the ring: `done` k tiles of earlier
  /// tiles came before, `count` are this tile's.
  struct KTiles {
    Value done, count;
  };
  /// The ring slot of the tile's k tile `kt`, and the parity of the round
  /// that slot is in (`flip`: the other one, which the producer waits for
  /// on the empty barriers).
  Value getSlot(const KTiles &kTiles, Value kt);
  Value getParity(const KTiles &kTiles, Value kt, bool flip);
  /// The slot after `slot` and the parity of its round (flipped where the
  /// ring wraps around).
  std::pair<Value, Value> getNextSlot(Value slot, Value parity);
  /// The producer's part of a tile: one thread issues its k tiles' loads.
  void emitProducer(const WgmmaRing &ring, const KTiles &kTiles, Value batch,
                    Value m0, Value n0, Value k0);
  /// The consumers' part of a tile (`warpgroup`: the thread's, `inGroup`:
  /// its index in it).
  void emitConsumers(const WgmmaRing &ring, const KTiles &kTiles,
                     const FragmentEpilogue &epilogue, Value warpgroup,
                     Value inGroup, Value batch, Value m0, Value n0,
                     const WgmmaPiece &piece);
  /// One consumer warpgroup's main loop over the tile's k tiles, its rows
  /// starting at row `firstRow` of the tile: the f32 accumulators of its
  /// 64-row blocks (one !llvm.struct of tn / 2 f32 each).
  /// `afterIssue` runs once the last wgmma is issued, before they are
  /// waited for.
  SmallVector<Value> emitMainLoop(const WgmmaRing &ring, const KTiles &kTiles,
                                  Value firstRow, Value inGroup,
                                  function_ref<void()> afterIssue = {});
  /// The epilogue or the partial sums (`piece`) of a consumer's
  /// accumulators.
  void emitConsumerEpilogue(const WgmmaRing &ring,
                            const FragmentEpilogue &epilogue,
                            ArrayRef<Value> accumulators, Value firstRow,
                            Value inGroup, Value batch, Value m0, Value n0,
                            const WgmmaPiece &piece);
  /// A warp's 16 rows of partial sums (`tiles`: its accumulators in the
  /// mma.sync layout; `rowInTile`: the first row) into `piece`'s slot.
  void emitPartialSums(const WgmmaPiece &piece, ArrayRef<Value> tiles,
                       Value lane, Value rowInTile);
  /// Where a consumer warpgroup's 64-row block of C is written before its
  /// TMA stores (plan.tmaStore): box q of a round (64 rows x 128 bytes,
  /// 128-byte swizzle) at byte `base + q * boxStride` of dynamic shared
  /// memory; `row` and `col` are C's row and column of the block's first
  /// element, `warpRow` the first row in the block of the thread's warp;
  /// `warpgroup` and `inGroup` name the warpgroup and the thread in it.
  struct TmaBlock {
    Value warpgroup, inGroup, base;
    int64_t boxStride = 0;
    Value row, col, warpRow;
  };
  /// The epilogue of a warp's 16 rows (`tiles`: its accumulators in the
  /// mma.sync layout, `rowOrigin` the first row) staged through the
  /// 16 x tile_n f32 of shared memory at byte `stagingOffset`: one loop
  /// applies it to every element and stores rows of the result (4 columns
  /// a lane), or, with `tma`, writes them into the block's boxes, which
  /// one thread of the warpgroup then stores with TMA.
  void emitStagedEpilogue(const FragmentEpilogue &epilogue,
                          ArrayRef<Value> tiles, Value stagingOffset,
                          Value lane, Value rowOrigin, Value colOrigin,
                          Value batch, const TmaBlock *tma);
  /// The epilogue of a consumer warpgroup's 64-row block (`tiles`: this
  /// warp's accumulators in the mma.sync layout, `warp` the warp's index in
  /// the warpgroup) written into `block`'s boxes, one round of `stages`
  /// boxes at a time, each round stored with TMA by one thread.
  void emitTmaStoreEpilogue(const FragmentEpilogue &epilogue,
                            ArrayRef<Value> tiles, const TmaBlock &block,
                            Value warp, Value lane, Value batch);
  /// The byte of dynamic shared memory that holds byte `byteInRow` of row
  /// `row` of the TMA box at byte `boxBase` (the 128-byte swizzle).
  Value getTmaBoxByte(Value boxBase, Value row, Value byteInRow);
  /// Fences the warpgroup's writes of `block`'s boxes [`first`, `last`)
  /// for the async proxy, meets the warpgroup's named barrier, and has one
  /// thread store the boxes with TMA as one bulk group.
  void storeTmaBoxes(const TmaBlock &block, int64_t first, int64_t last,
                     Value batch);
  /// The thread that stored `block`'s boxes waits until TMA has read them.
  void waitTmaStoreReads(const TmaBlock &block);
  /// The 128 threads of `block`'s warpgroup meet at its named barrier.
  void warpgroupBarrier(const TmaBlock &block);

  OpBuilder &b;
  Location loc;
  const MmaKernelPlan &p;
  WgmmaKernelOperands ops;
};

/// Applies a tile op's epilogue to f32 accumulator values and stores the
/// results into C (1-D), masked at the M and N edges of the plan: what the
/// register-layout epilogue (emitFragmentEpilogue) and the wgmma kernel's
/// epilogue staged through shared memory share.
class EpilogueWriter {
public:
  /// Reads the scalar epilogue operands where the builder stands (before
  /// any loop the stores are in).
  EpilogueWriter(OpBuilder &b, Location loc, const MmaKernelPlan &plan, Value c,
                 ArrayRef<Value> epilogueOperands,
                 const FragmentEpilogue &epilogue, Value batch);

  /// Stores epilogue(`pair`[e]) at (`row`, `col` + e) of the batch's m x n
  /// result for e = 0, 1 (`pair`: vector<2xf32>; `col` even).
  void storePair(Value pair, Value row, Value col);

  /// epilogue(`pair`[e]) at (`row`, `col` + e) for e = 0, 1, as a
  /// vector<2x(result type)>: zeros where the element lies outside the
  /// batch's m x n (whose epilogue operands are not read).
  Value computePair(Value pair, Value row, Value col);

private:
  Value idx(int64_t v);
  Value mul(Value x, Value y);
  /// The epilogue of one element at (row, col), on scalars.
  Value apply(Value acc, Value row, Value col, Value flat);

  OpBuilder &b;
  Location loc;
  const MmaKernelPlan &p;
  Value c;
  ArrayRef<Value> operands;
  const FragmentEpilogue &epilogue;
  Value cBatch;
  SmallVector<Value> scalars;
};

/// Applies `epilogue` to accumulators in the register layout of
/// mma.sync (and of each warp of a wgmma warpgroup): `mTiles x nTiles`
/// values of vector<2x2xf32>, tile (i, j) holding rows `rowOrigin + 16 i +
/// g` and `+ 8`, columns `colOrigin + 8 j + 2 t` and `+ 1` for lane
/// `4 g + t`; stores the results into `c` (1-D), masked at the M and N
/// edges of `plan`.
void emitFragmentEpilogue(OpBuilder &b, Location loc, const MmaKernelPlan &plan,
                          Value c, ArrayRef<Value> epilogueOperands,
                          const FragmentEpilogue &epilogue,
                          ArrayRef<Value> accumulators, int64_t mTiles,
                          int64_t nTiles, Value lane, Value rowOrigin,
                          Value colOrigin, Value batch);

/// Checks that the GEMM of `tile` can become a tensor-core kernel on
/// `target`: operand, accumulator, result and epilogue types, a pure scalar
/// epilogue, operand rows on 16 bytes and a config that the nvgpu
/// backend's rules accept (NVGPUBackend.h; the emitters generate every
/// such config). Emits an error at the tile op (or its epilogue op) and
/// fails otherwise.
LogicalResult checkNVGPULowerable(GemmTileOp tile, TargetAttr target);

/// Declares the memory effects of nvgpu.tma.create.descriptor (it reads its
/// memref), which upstream leaves unknown and buffer deallocation refuses.
void registerXPUNVGPUMemoryEffects(DialectRegistry &registry);

/// Rewrites nvgpu.mma.sync on bf16 operands, which upstream's
/// convert-nvgpu-to-nvvm (LLVM 22.1.8) does not lower, into nvvm.mma.sync.
void populateXPUNVGPUBF16MmaPatterns(RewritePatternSet &patterns);

} // namespace mlir::xpu

#endif // XPU_CONVERSION_XPUTONVGPU_XPUTONVGPU_H
