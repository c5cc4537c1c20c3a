//===- WgmmaTileEmitter.cpp - one GEMM tile with TMA and wgmma (sm_90a) ---===//
//
// The Hopper tile emitter (docs/NVIDIA.md):
//
//   * a producer warpgroup: one thread waits until a ring slot is free
//     ("empty" mbarrier), announces the slot's bytes on its "full" mbarrier
//     and issues the TMA loads (nvgpu.tma.async.load) of the k tile's A and
//     B boxes into it; the copy engine zero-fills what lies outside the
//     matrix and swizzles rows by 128 bytes;
//   * consumer warpgroups, 64 rows of the tile each: wait for a slot, run
//     wgmma.mma_async m64n<tn>k16 (k8 for tf32, whose f32 operands wgmma
//     reads K-major only) over the slot's k-steps on shared-memory
//     descriptors, commit, keep one group in flight, and free the previous
//     slot; then apply the epilogue to the accumulator registers (wgmma's D
//     fragment: warp w of the warpgroup holds rows 16w + g and 16w + g + 8,
//     columns 8j + 2t and + 1, the mma.sync layout per 16 rows) and store,
//     or (a staged epilogue) store the accumulators into the ring and apply
//     the epilogue in one loop over them (docs/NVIDIA.md).
//
// The descriptors follow the PTX ISA's "Matrix Descriptor Format": start
// address >> 4 in bits 0-13, leading-dimension byte offset >> 4 in 16-29,
// stride-dimension byte offset >> 4 in 32-45, swizzle mode in 62-63
// (1: 128-byte swizzle). A and an [n, k] B are K-major: 8-row groups 1024
// bytes apart (SBO), k-steps 32 bytes apart within the 128-byte row (16
// bf16 or 8 tf32 elements). A
// [k, n] B is N-major: boxes of 64 columns (128 bytes) by tile_k rows,
// 8-row groups 1024 bytes apart (SBO), boxes tile_k * 128 bytes apart
// (LBO), k-steps 16 rows (2048 bytes) apart; wgmma reads it transposed.
//
// The wgmma instructions are NVVM ops (nvvm.wgmma.*): nvgpu.warpgroup.mma
// in LLVM 22.1.8 keeps its accumulator opaque (the epilogue could only go
// through nvgpu.warpgroup.mma.store to memory) and steps a K-major B's
// descriptor as if it were N-major.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/XPUToNVGPU/NVGPUBackend.h"
#include "xpu/Conversion/XPUToNVGPU/XPUToNVGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::xpu;

/// Registers per thread after setmaxnreg (the nvgpu backend's rules count
/// the workgroups an SM holds with them).
static constexpr uint32_t kProducerRegisters = nvidia::kProducerRegisters;
static constexpr uint32_t kConsumerRegisters = nvidia::kConsumerRegisters;
/// The named barrier (0 is the workgroup's) the consumer warpgroups meet at
/// before a staged epilogue reuses the ring.
static constexpr int64_t kConsumersBarrier = 1;
/// The named barrier of consumer warpgroup w before its TMA stores is
/// kTmaStoreBarrier + w (after the pingpong barriers, which a one-tile
/// kernel does not use).
static constexpr int64_t kTmaStoreBarrier = kPingPongBarrier + 2;

/// The kernel's dynamic shared memory as bytes (memref<?xi8, workgroup>).
static Value getDynamicSharedMemory(OpBuilder &b, Location loc) {
  Attribute workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  return gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
}

Value WgmmaTileEmitter::idx(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value WgmmaTileEmitter::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}

Value WgmmaTileEmitter::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}

/// Bytes of one mbarrier object.
static constexpr int64_t kMBarrierBytes = 8;

int64_t WgmmaTileEmitter::sharedBytes(const MmaKernelPlan &p) {
  int64_t ring = p.stages * p.wgmmaStageBytes();
  // A cluster's empty barriers live after the ring, where the consumers of
  // the other workgroups address them (mapa).
  return p.clusterM > 1 ? ring + p.stages * kMBarrierBytes : ring;
}

Value WgmmaTileEmitter::getClusterEmptyBarrier(const WgmmaRing &ring,
                                               Value stage) {
  Value offset = arith::MulIOp::create(
      b, loc, arith::IndexCastUIOp::create(b, loc, b.getI64Type(), stage),
      arith::ConstantIntOp::create(b, loc, b.getI64Type(), kMBarrierBytes));
  Value address = arith::AddIOp::create(b, loc, ring.clusterEmpty, offset);
  auto sharedPtr = LLVM::LLVMPointerType::get(
      b.getContext(), static_cast<unsigned>(NVVM::NVVMMemorySpace::Shared));
  return LLVM::IntToPtrOp::create(b, loc, sharedPtr, address);
}

WgmmaTileEmitter::WgmmaTileEmitter(OpBuilder &b, Location loc,
                                   const MmaKernelPlan &plan,
                                   const WgmmaKernelOperands &operands)
    : b(b), loc(loc), p(plan), ops(operands) {}

WgmmaRing WgmmaTileEmitter::createRing(bool fixedRoles) {
  MLIRContext *ctx = b.getContext();
  WgmmaRing ring;
  ring.fixedRoles = fixedRoles;
  Attribute workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  // The mbarriers of the ring, initialized by one thread before anyone
  // waits on them.
  auto barrierType = nvgpu::MBarrierGroupType::get(ctx, workgroup, p.stages);
  bool clustered = p.clusterM > 1;
  ring.full = nvgpu::MBarrierCreateOp::create(b, loc, barrierType);
  if (clustered) {
    // The empty barriers after the ring, and this workgroup's cluster rank.
    Value shared = getDynamicSharedMemory(b, loc);
    Value barriers = memref::ViewOp::create(
        b, loc,
        MemRefType::get({p.stages}, b.getI64Type(), MemRefLayoutAttrInterface(),
                        workgroup),
        shared, idx(p.stages * p.wgmmaStageBytes()), ValueRange());
    Value ptr =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, barriers);
    ring.clusterEmpty =
        arith::IndexCastUIOp::create(b, loc, b.getI64Type(), ptr);
    Value rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
    ring.rank = arith::IndexCastUIOp::create(b, loc, b.getIndexType(), rank);
  } else {
    ring.empty = nvgpu::MBarrierCreateOp::create(b, loc, barrierType);
  }
  auto counter = [&] {
    Value c = memref::AllocaOp::create(b, loc,
                                       MemRefType::get({1}, b.getIndexType()));
    memref::StoreOp::create(b, loc, idx(0), c, idx(0));
    return c;
  };
  ring.kTilesDone = counter();
  if (p.pingPong)
    ring.tilesDone = counter();
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  auto ifOp = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, idx(0)),
      /*withElseRegion=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    for (int64_t s = 0; s < p.stages; ++s) {
      nvgpu::MBarrierInitOp::create(b, loc, ring.full, idx(1), idx(s), Value());
      if (!clustered) {
        // One consumer warpgroup reads a pingpong kernel's slot, all of
        // them a cooperative one's.
        nvgpu::MBarrierInitOp::create(
            b, loc, ring.empty, idx(p.pingPong ? 1 : p.consumerWarpgroups()),
            idx(s), Value());
        continue;
      }
      // Every consumer warpgroup of the cluster frees the slot: the
      // producers of all its workgroups write into it (multicast).
      NVVM::MBarrierInitOp::create(
          b, loc, getClusterEmptyBarrier(ring, idx(s)),
          arith::ConstantIntOp::create(b, loc, b.getI32Type(),
                                       p.consumerWarpgroups() * p.clusterM),
          Value());
    }
    if (clustered)
      NVVM::FenceMbarrierInitOp::create(b, loc);
    nvgpu::TmaPrefetchOp::create(b, loc, ops.aMap, Value());
    nvgpu::TmaPrefetchOp::create(b, loc, ops.bMap, Value());
  }
  if (clustered) {
    // No workgroup of the cluster arrives on, or multicasts into, another
    // before that one's barriers are initialized.
    NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
  } else {
    gpu::BarrierOp::create(b, loc);
  }
  return ring;
}

Value WgmmaTileEmitter::getSlot(const KTiles &kTiles, Value kt) {
  return arith::RemUIOp::create(b, loc, add(kTiles.done, kt), idx(p.stages));
}

Value WgmmaTileEmitter::getParity(const KTiles &kTiles, Value kt, bool flip) {
  Value at = add(kTiles.done, kt);
  Value round = arith::DivUIOp::create(b, loc, at, idx(p.stages));
  Value odd = arith::RemUIOp::create(b, loc, round, idx(2));
  Value bit =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, odd, idx(1));
  if (!flip)
    return bit;
  Value one = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  return arith::XOrIOp::create(b, loc, bit, one);
}

std::pair<Value, Value> WgmmaTileEmitter::getNextSlot(Value slot,
                                                      Value parity) {
  Value next = add(slot, idx(1));
  Value wraps = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, next,
                                      idx(p.stages));
  Value first = idx(0);
  return {arith::SelectOp::create(b, loc, wraps, first, next),
          arith::XOrIOp::create(b, loc, parity, wraps)};
}

/// The time-out, in ticks, of one mbarrier try-wait (the waits loop).
static constexpr int64_t kWaitTicks = 10000000;

void WgmmaTileEmitter::emitTile(const WgmmaRing &ring,
                                const FragmentEpilogue &epilogue, Value batch,
                                Value m0, Value n0, Value k0, Value k1,
                                const WgmmaPiece &piece, WgmmaRole role) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warpgroup = arith::DivUIOp::create(b, loc, tid, idx(128));
  Value inGroup = arith::RemUIOp::create(b, loc, tid, idx(128));
  // This tile's k tile kt is the ring's k tile done + kt.
  KTiles kTiles;
  kTiles.done = memref::LoadOp::create(b, loc, ring.kTilesDone, idx(0));
  Value span = arith::SubIOp::create(b, loc, k1, k0);
  kTiles.count =
      arith::DivUIOp::create(b, loc, add(span, idx(p.tk - 1)), idx(p.tk));
  memref::StoreOp::create(b, loc, add(kTiles.done, kTiles.count),
                          ring.kTilesDone, idx(0));
  if (role == WgmmaRole::producer)
    return emitProducer(ring, kTiles, batch, m0, n0, k0);
  if (role == WgmmaRole::consumers)
    return emitConsumers(ring, kTiles, epilogue, warpgroup, inGroup, batch, m0,
                         n0, piece);

  auto roles = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warpgroup,
                            idx(p.consumerWarpgroups())),
      /*withElseRegion=*/true);
  if (p.clusterM > 1) {
    // A workgroup leaves only once the others of its cluster are done
    // arriving on its empty barriers.
    assert(ring.fixedRoles && "clustered workgroups compute one tile each");
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(roles);
    NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
  }
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(roles.thenBlock());
  if (ring.fixedRoles)
    NVVM::SetMaxRegisterOp::create(b, loc, kProducerRegisters,
                                   NVVM::SetMaxRegisterAction::decrease);
  emitProducer(ring, kTiles, batch, m0, n0, k0);
  b.setInsertionPointToStart(roles.elseBlock());
  if (ring.fixedRoles)
    NVVM::SetMaxRegisterOp::create(b, loc, kConsumerRegisters,
                                   NVVM::SetMaxRegisterAction::increase);
  emitConsumers(ring, kTiles, epilogue, warpgroup, inGroup, batch, m0, n0,
                piece);
}

SmallVector<GemmTileOp>
WgmmaTileEmitter::splitRoles(ArrayRef<Operation *> ops,
                             ArrayRef<GemmTileOp> tiles) {
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warpgroup = arith::DivUIOp::create(b, loc, tid, idx(128));
  auto roles = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warpgroup,
                            idx(p.consumerWarpgroups())),
      /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(roles.thenBlock());
  NVVM::SetMaxRegisterOp::create(b, loc, kProducerRegisters,
                                 NVVM::SetMaxRegisterAction::decrease);
  IRMapping map;
  for (Operation *op : ops)
    b.clone(*op, map);
  b.setInsertionPointToStart(roles.elseBlock());
  NVVM::SetMaxRegisterOp::create(b, loc, kConsumerRegisters,
                                 NVVM::SetMaxRegisterAction::increase);
  Operation *yield = roles.elseBlock()->getTerminator();
  for (Operation *op : ops)
    op->moveBefore(yield);
  return llvm::map_to_vector(tiles, [&](GemmTileOp tile) {
    return cast<GemmTileOp>(map.lookup(tile.getOperation()));
  });
}

void WgmmaTileEmitter::emitProducer(const WgmmaRing &ring, const KTiles &kTiles,
                                    Value batch, Value m0, Value n0, Value k0) {
  MLIRContext *ctx = b.getContext();
  int64_t eb = p.operandBytes();
  Attribute workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value shared = getDynamicSharedMemory(b, loc);
  // A view of `shape` at byte `offset` of dynamic shared memory.
  auto view = [&](Value offset, ArrayRef<int64_t> shape) -> Value {
    auto type = MemRefType::get(shape, p.operandType,
                                MemRefLayoutAttrInterface(), workgroup);
    return memref::ViewOp::create(b, loc, type, shared, offset, ValueRange());
  };
  int64_t aBytes = p.tm * p.tk * eb, bBytes = p.tn * p.tk * eb;
  int64_t bRegion = p.stages * aBytes;
  // Batched operands have 3-D descriptors whose boxes start with a 1.
  auto boxShape = [&](bool batched, ArrayRef<int64_t> shape) {
    SmallVector<int64_t> s;
    if (batched)
      s.push_back(1);
    s.append(shape.begin(), shape.end());
    return s;
  };
  bool clustered = p.clusterM > 1;
  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value inGroup = arith::RemUIOp::create(b, loc, tid, idx(128));
  auto leader = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, inGroup, idx(0)),
      false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(leader.thenBlock());
  // The slot and the parity the producer waits for are carried from one
  // k tile to the next (a division per tile, not per k tile).
  scf::ForOp::create(
      b, loc, idx(0), kTiles.count, idx(1),
      ValueRange{getSlot(kTiles, idx(0)), getParity(kTiles, idx(0), true)},
      [&](OpBuilder &, Location, Value kt, ValueRange iter) {
        Value stage = iter[0], emptyParity = iter[1];
        if (clustered) {
          Value phase =
              arith::ExtUIOp::create(b, loc, b.getI32Type(), emptyParity);
          NVVM::MBarrierTryWaitParityOp::create(
              b, loc, getClusterEmptyBarrier(ring, stage), phase,
              arith::ConstantIntOp::create(b, loc, b.getI32Type(), kWaitTicks));
        } else {
          nvgpu::MBarrierTryWaitParityOp::create(
              b, loc, ring.empty, emptyParity, idx(kWaitTicks), stage);
        }
        // The whole stage lands in this workgroup's slot, B's part from
        // every producer of the cluster.
        nvgpu::MBarrierArriveExpectTxOp::create(
            b, loc, ring.full, idx(p.wgmmaStageBytes()), stage, Value());
        Value kOff = add(k0, mul(kt, idx(p.tk)));
        auto load = [&](Value map, Value dstOffset, ArrayRef<int64_t> box,
                        bool batched, ArrayRef<Value> coords, Value multicast) {
          SmallVector<Value> c(coords);
          if (batched)
            c.push_back(batch);
          Value dst = view(dstOffset, boxShape(batched, box));
          nvgpu::TmaAsyncLoadOp::create(b, loc, dst, ring.full, map, c, stage,
                                        multicast, Value());
        };
        // Coordinates innermost first.
        load(ops.aMap, mul(stage, idx(aBytes)), {p.tm, p.tk}, p.lhsBatched,
             {kOff, m0}, Value());
        Value bBase = add(idx(bRegion), mul(stage, idx(bBytes)));
        // Clustered, rank r loads part r of B into the same place of
        // every workgroup's slot: rows [r tn / c, (r + 1) tn / c) of an
        // [n, k] box, the 64-column boxes j = r mod c of a [k, n] B.
        Value multicast, rank = idx(0);
        if (clustered) {
          multicast = arith::ConstantIntOp::create(
              b, loc, b.getI16Type(), (int64_t{1} << p.clusterM) - 1);
          rank = ring.rank;
        }
        if (p.rhsNK) {
          int64_t rows = p.tn / p.clusterM;
          load(ops.bMap, add(bBase, mul(rank, idx(rows * p.tk * eb))),
               {rows, p.tk}, p.rhsBatched,
               {kOff, add(n0, mul(rank, idx(rows)))}, multicast);
        } else {
          for (int64_t i = 0; i < p.tn / 64 / p.clusterM; ++i) {
            Value j = add(idx(i * p.clusterM), rank);
            load(ops.bMap, add(bBase, mul(j, idx(p.tk * 128))), {p.tk, 64},
                 p.rhsBatched, {add(n0, mul(j, idx(64))), kOff}, multicast);
          }
        }
        auto [nextSlot, nextParity] = getNextSlot(stage, emptyParity);
        scf::YieldOp::create(b, loc, ValueRange{nextSlot, nextParity});
      });
}

void WgmmaTileEmitter::emitConsumers(const WgmmaRing &ring,
                                     const KTiles &kTiles,
                                     const FragmentEpilogue &epilogue,
                                     Value warpgroup, Value inGroup,
                                     Value batch, Value m0, Value n0,
                                     const WgmmaPiece &piece) {
  if (!p.pingPong) {
    // Warpgroup w computes rows [64 w, 64 w + 64) of every tile.
    Value firstRow = mul(warpgroup, idx(64));
    SmallVector<Value> acc = emitMainLoop(ring, kTiles, firstRow, inGroup);
    emitConsumerEpilogue(ring, epilogue, acc, firstRow, inGroup, batch, m0, n0,
                         piece);
    return;
  }
  // Pingpong: the tile's turn says which consumer computes all of it; the
  // other one waits until that one has waited for its last k tile (the
  // ring holds the next tile's k tiles from then on) before it goes on to
  // the next tile, its own.
  assert(!piece.workspace && "pingpong consumers compute whole tiles");
  Value tile = memref::LoadOp::create(b, loc, ring.tilesDone, idx(0));
  memref::StoreOp::create(b, loc, add(tile, idx(1)), ring.tilesDone, idx(0));
  Value turn = arith::RemUIOp::create(b, loc, tile, idx(2));
  Value barrier = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(), add(turn, idx(kPingPongBarrier)));
  Value bothConsumers =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 2 * 128);
  auto mine = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, warpgroup, turn),
      /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(mine.thenBlock());
  Value firstRow = idx(0);
  SmallVector<Value> acc = emitMainLoop(ring, kTiles, firstRow, inGroup, [&] {
    NVVM::BarrierArriveOp::create(b, loc, barrier, bothConsumers);
  });
  emitConsumerEpilogue(ring, epilogue, acc, firstRow, inGroup, batch, m0, n0,
                       piece);
  b.setInsertionPointToStart(mine.elseBlock());
  NVVM::BarrierOp::create(b, loc, TypeRange(), barrier, bothConsumers,
                          NVVM::BarrierReductionAttr(), Value());
}

SmallVector<Value>
WgmmaTileEmitter::emitMainLoop(const WgmmaRing &ring, const KTiles &kTiles,
                               Value firstRow, Value inGroup,
                               function_ref<void()> afterIssue) {
  MLIRContext *ctx = b.getContext();
  auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  };
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  };
  int64_t eb = p.operandBytes();
  int64_t aBytes = p.tm * p.tk * eb, bBytes = p.tn * p.tk * eb;
  int64_t bRegion = p.stages * aBytes;
  int64_t blocks = p.consumerRows() / 64;
  bool clustered = p.clusterM > 1;
  Attribute workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value shared = getDynamicSharedMemory(b, loc);
  int64_t accRegs = p.tn / 2;
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(accRegs, b.getF32Type()));
  Value zero = LLVM::ZeroOp::create(b, loc, accType);
  // Shared-memory descriptors: the start address field of a stage's slot.
  auto address = [&](Value byteOffset) -> Value {
    Value v = memref::ViewOp::create(
        b, loc,
        MemRefType::get({1}, p.operandType, MemRefLayoutAttrInterface(),
                        workgroup),
        shared, byteOffset, ValueRange());
    Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, v);
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), ptr);
  };
  auto descriptor = [&](Value addr, int64_t lbo, int64_t sbo) -> Value {
    Value start = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, addr, i64(4)), i64(0x3FFF));
    int64_t fields = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1ll << 62);
    return arith::OrIOp::create(b, loc, start, i64(fields));
  };
  // One thread per consumer warpgroup gives ring slot `stage` back to the
  // producer when `when` holds.
  auto release = [&](Value stage, Value when) {
    Value release = arith::AndIOp::create(
        b, loc, when, cmp(arith::CmpIPredicate::eq, inGroup, idx(0)));
    auto ifOp = scf::IfOp::create(b, loc, release, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    if (!clustered) {
      nvgpu::MBarrierArriveOp::create(
          b, loc, nvgpu::MBarrierTokenType::get(ctx), ring.empty, stage);
      return;
    }
    // The slot's empty barrier in every workgroup of the cluster: each of
    // their producers multicasts into this workgroup's slot. The arrive is
    // a CTA-scope release (PTX's default, as CUTLASS's cluster barriers
    // use): the consumers wrote nothing the producers read, and wgmma's
    // reads of the slot are done (wait_group). A cluster-scope release
    // made every k tile about 1 us slower on the H100.
    Value local = getClusterEmptyBarrier(ring, stage);
    auto clusterPtr = LLVM::LLVMPointerType::get(
        ctx, static_cast<unsigned>(NVVM::NVVMMemorySpace::SharedCluster));
    for (int64_t r = 0; r < p.clusterM; ++r) {
      Value remote = NVVM::MapaOp::create(
          b, loc, clusterPtr, local,
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), r));
      NVVM::MBarrierArriveOp::create(
          b, loc, Type(), remote, Value(),
          NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA));
    }
  };
  // Commit groups (one per k tile) a consumer keeps in flight while it
  // issues the next one.
  int64_t inFlight = p.wgmmaGroupsInFlight();
  // One wgmma reads 32 bytes of each operand row: k16 of bf16 or f16, k8
  // of tf32 (f32 as TMA wrote it to shared memory: nothing rounds it to
  // tf32 before the tensor cores read it).
  int64_t wgmmaK = nvidia::getWgmmaInstructionK(eb);
  auto shape = NVVM::MMAShapeAttr::get(ctx, 64, p.tn, wgmmaK);
  NVVM::WGMMATypes type = p.operandType.isBF16()  ? NVVM::WGMMATypes::bf16
                          : p.operandType.isF16() ? NVVM::WGMMATypes::f16
                                                  : NVVM::WGMMATypes::tf32;
  assert((type != NVVM::WGMMATypes::tf32 || p.rhsNK) &&
         "wgmma reads tf32 operands K-major only");
  // The 64-row blocks of A start 64 rows (of 128 swizzled bytes) apart.
  Value rowsOff = mul(firstRow, idx(p.tk * eb));
  // The accumulators, then the slot and the parity to wait for, carried
  // from one k tile to the next.
  SmallVector<Value> inits(blocks, zero);
  inits.push_back(getSlot(kTiles, idx(0)));
  inits.push_back(getParity(kTiles, idx(0), false));
  auto loop = scf::ForOp::create(
      b, loc, idx(0), kTiles.count, idx(1), inits,
      [&](OpBuilder &, Location, Value kt, ValueRange iter) {
        Value stage = iter[blocks], fullParity = iter[blocks + 1];
        nvgpu::MBarrierTryWaitParityOp::create(b, loc, ring.full, fullParity,
                                               idx(kWaitTicks), stage);
        Value aBase = add(mul(stage, idx(aBytes)), rowsOff);
        Value bAddr = address(add(idx(bRegion), mul(stage, idx(bBytes))));
        Value bDesc = p.rhsNK ? descriptor(bAddr, 16, 1024)
                              : descriptor(bAddr, p.tk * 128, 1024);
        NVVM::WgmmaFenceAlignedOp::create(b, loc);
        SmallVector<Value> acc(iter.take_front(blocks));
        for (int64_t ks = 0; ks < p.tk / wgmmaK; ++ks) {
          // K-major: 32 bytes further along the row; N-major B: wgmmaK rows
          // of 128 bytes further down. Descriptor addresses count 16 bytes.
          int64_t bStep = p.rhsNK ? ks * 32 / 16 : ks * wgmmaK * 128 / 16;
          Value bd = arith::AddIOp::create(b, loc, bDesc, i64(bStep));
          for (int64_t blk = 0; blk < blocks; ++blk) {
            Value aDesc = descriptor(
                address(add(aBase, idx(blk * 64 * p.tk * eb))), 16, 1024);
            Value a = arith::AddIOp::create(b, loc, aDesc, i64(ks * 32 / 16));
            acc[blk] = NVVM::WgmmaMmaAsyncOp::create(
                b, loc, accType, acc[blk], a, bd, shape, type, type,
                NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
                NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
                NVVM::MMALayout::row,
                p.rhsNK ? NVVM::MMALayout::col : NVVM::MMALayout::row,
                NVVM::MMAIntOverflowAttr());
          }
        }
        NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
        // The last `inFlight` groups stay in flight; the one before them is
        // done, so its slot goes back to the producer.
        NVVM::WgmmaWaitGroupSyncOp::create(b, loc, inFlight);
        // The slot of k tile kt - inFlight.
        Value back = arith::SelectOp::create(
            b, loc, cmp(arith::CmpIPredicate::uge, stage, idx(inFlight)),
            arith::SubIOp::create(b, loc, stage, idx(inFlight)),
            add(stage, idx(p.stages - inFlight)));
        release(back, cmp(arith::CmpIPredicate::uge, kt, idx(inFlight)));
        auto [nextSlot, nextParity] = getNextSlot(stage, fullParity);
        acc.push_back(nextSlot);
        acc.push_back(nextParity);
        scf::YieldOp::create(b, loc, acc);
      });
  if (afterIssue)
    afterIssue();
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  // The last k tiles' slots go back to the producer too, for the next tile
  // of this workgroup.
  for (int64_t i = inFlight; i >= 1; --i)
    release(
        getSlot(kTiles, arith::SubIOp::create(b, loc, kTiles.count, idx(i))),
        cmp(arith::CmpIPredicate::uge, kTiles.count, idx(i)));
  return SmallVector<Value>(loop.getResults().take_front(blocks));
}

void WgmmaTileEmitter::emitConsumerEpilogue(const WgmmaRing &ring,
                                            const FragmentEpilogue &epilogue,
                                            ArrayRef<Value> accumulators,
                                            Value firstRow, Value inGroup,
                                            Value batch, Value m0, Value n0,
                                            const WgmmaPiece &piece) {
  Value lane = arith::RemUIOp::create(b, loc, inGroup, idx(32));
  Value warp = arith::DivUIOp::create(b, loc, inGroup, idx(32));
  for (auto [blk, result] : llvm::enumerate(accumulators)) {
    // The accumulators as mma.sync-style 16x8 tiles of this warp.
    auto tileType = VectorType::get({2, 2}, b.getF32Type());
    SmallVector<Value> tiles;
    for (int64_t j = 0; j < p.tn / 8; ++j) {
      Value tile = ub::PoisonOp::create(b, loc, tileType);
      for (int64_t r = 0; r < 4; ++r) {
        Value x = LLVM::ExtractValueOp::create(b, loc, result, 4 * j + r);
        tile = vector::InsertOp::create(b, loc, x, tile,
                                        ArrayRef<int64_t>{r / 2, r % 2});
      }
      tiles.push_back(tile);
    }
    Value rowInTile = add(add(firstRow, idx(64 * static_cast<int64_t>(blk))),
                          mul(warp, idx(16)));
    Value blockRow = add(firstRow, idx(64 * static_cast<int64_t>(blk)));
    TmaBlock tma;
    if (p.tmaStore && !piece.workspace) {
      assert(ring.fixedRoles && !p.pingPong &&
             "TMA stores reuse the ring of the workgroup's only tile");
      tma.warpgroup = arith::DivUIOp::create(
          b, loc, gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x), idx(128));
      tma.inGroup = inGroup;
      tma.row = add(m0, blockRow);
      tma.col = n0;
      tma.warpRow = mul(warp, idx(16));
    }
    if (p.stagedEpilogue && !piece.workspace) {
      // The workgroup's only tile (a data-parallel program): once every
      // consumer's wgmma is done with the ring, its slots hold the f32
      // accumulators, 16 rows x tile_n for each warp (with TMA stores,
      // the result boxes of each 64-row block follow them).
      assert(ring.fixedRoles && !p.pingPong &&
             "a staged epilogue reuses the whole ring");
      auto i32 = [&](int64_t v) -> Value {
        return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
      };
      NVVM::BarrierOp::create(b, loc, TypeRange(), i32(kConsumersBarrier),
                              i32(128 * p.consumerWarpgroups()),
                              NVVM::BarrierReductionAttr(), Value());
      // Warp w of the tile (16 rows each) stages at 16 w rows.
      Value warpRows = mul(arith::DivUIOp::create(b, loc, rowInTile, idx(16)),
                           idx(16 * p.tn * 4));
      if (p.tmaStore) {
        int64_t blockBytes =
            64 * p.tn * p.resultType.getIntOrFloatBitWidth() / 8;
        tma.base = add(idx(p.tm * p.tn * 4),
                       mul(arith::DivUIOp::create(b, loc, blockRow, idx(64)),
                           idx(blockBytes)));
        tma.boxStride = 64 * nvidia::kTmaRowBytes;
      }
      emitStagedEpilogue(epilogue, tiles, warpRows, lane, add(m0, rowInTile),
                         n0, batch, p.tmaStore ? &tma : nullptr);
      continue;
    }
    if (p.tmaStore && !piece.workspace) {
      // Box q in the warpgroup's rows of ring slot q (its A rows, which no
      // one reads once its wgmma are done).
      tma.base = mul(blockRow, idx(nvidia::kTmaRowBytes));
      tma.boxStride = p.tm * p.tk * p.operandBytes();
      emitTmaStoreEpilogue(epilogue, tiles, tma, warp, lane, batch);
      continue;
    }
    if (!piece.workspace) {
      emitFragmentEpilogue(b, loc, p, ops.c, ops.epilogue, epilogue, tiles, 1,
                           p.tn / 8, lane, add(m0, rowInTile), n0, batch);
      continue;
    }
    emitPartialSums(piece, tiles, lane, rowInTile);
  }
}

void WgmmaTileEmitter::emitPartialSums(const WgmmaPiece &piece,
                                       ArrayRef<Value> tiles, Value lane,
                                       Value rowInTile) {
  // Row-major tm x tn f32 at the piece's slot; lane (g, t) of the warp
  // holds rows g and g + 8 of its 16, columns 8 j + 2 t and + 1. Atomic
  // adds need no mask (streamk_atomic_add_needs_mask is about adding into
  // C): a slot holds a whole tile, the sums outside m x n are zeros (TMA
  // zero-fills the operands there), and the fix-up does not read them.
  Value g = arith::DivUIOp::create(b, loc, lane, idx(4));
  Value t = arith::RemUIOp::create(b, loc, lane, idx(4));
  Value base = mul(piece.slot, idx(p.tm * p.tn));
  for (int64_t j = 0; j < p.tn / 8; ++j)
    for (int64_t h = 0; h < 2; ++h) {
      Value row = add(add(rowInTile, g), idx(h * 8));
      Value col = add(mul(t, idx(2)), idx(j * 8));
      Value flat = add(base, add(mul(row, idx(p.tn)), col));
      Value pair = vector::ExtractOp::create(b, loc, tiles[j], h);
      if (!piece.atomic) {
        vector::StoreOp::create(b, loc, pair, piece.workspace, flat,
                                /*nontemporal=*/false, llvm::MaybeAlign(8));
        continue;
      }
      for (int64_t e = 0; e < 2; ++e)
        memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf,
                                    vector::ExtractOp::create(b, loc, pair, e),
                                    piece.workspace,
                                    ValueRange{add(flat, idx(e))});
    }
}

void WgmmaTileEmitter::emitStagedEpilogue(const FragmentEpilogue &epilogue,
                                          ArrayRef<Value> tiles,
                                          Value stagingOffset, Value lane,
                                          Value rowOrigin, Value colOrigin,
                                          Value batch, const TmaBlock *tma) {
  auto rem = [&](Value x, int64_t y) -> Value {
    return arith::RemUIOp::create(b, loc, x, idx(y));
  };
  auto div = [&](Value x, int64_t y) -> Value {
    return arith::DivUIOp::create(b, loc, x, idx(y));
  };
  // 16 rows of tile_n f32 as 8-byte pairs of columns: pair q of row r at
  // pair slot q ^ 4 * (r % 4), so that the fragment stores (rows g and
  // g + 8, columns 8 j + 2 t) of a half-warp, and the 16-byte reads of a
  // quarter-warp (8 consecutive quads of a row), meet distinct banks.
  int64_t pairsPerRow = p.tn / 2;
  MLIRContext *ctx = b.getContext();
  Attribute workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value shared = getDynamicSharedMemory(b, loc);
  Value staging = memref::ViewOp::create(
      b, loc,
      MemRefType::get({16 * p.tn}, b.getF32Type(), MemRefLayoutAttrInterface(),
                      workgroup),
      shared, stagingOffset, ValueRange());
  auto pairSlot = [&](Value row, Value pair) -> Value {
    Value swizzle = mul(rem(row, 4), idx(4));
    Value slot = arith::XOrIOp::create(b, loc, pair, swizzle);
    return mul(add(mul(row, idx(pairsPerRow)), slot), idx(2));
  };
  // Every accumulator of the warp goes to shared memory (its registers are
  // free from here on).
  Value g = div(lane, 4), t = rem(lane, 4);
  for (int64_t j = 0; j < p.tn / 8; ++j)
    for (int64_t h = 0; h < 2; ++h) {
      Value pair = vector::ExtractOp::create(b, loc, tiles[j], h);
      Value at = pairSlot(add(g, idx(8 * h)), add(t, idx(4 * j)));
      vector::StoreOp::create(b, loc, pair, staging, at,
                              /*nontemporal=*/false, llvm::MaybeAlign(8));
    }
  NVVM::SyncWarpOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
  // With TMA stores, the results go to the warpgroup's boxes after the
  // staged f32 tile: 4 results of a row, 8 or 16 bytes in one 16-byte
  // chunk of a box row.
  Type resultType = p.resultType;
  int64_t rb = resultType.getIntOrFloatBitWidth() / 8;
  int64_t boxCols = nvidia::kTmaRowBytes / rb;
  Value boxes;
  if (tma)
    boxes = memref::ViewOp::create(
        b, loc,
        MemRefType::get({WgmmaTileEmitter::sharedBytes(p) / rb}, resultType,
                        MemRefLayoutAttrInterface(), workgroup),
        shared, idx(0), ValueRange());
  // One loop body applies the epilogue to every element: iteration i, lane
  // l reads quad i * 32 + l of the warp's rows (4 columns) and stores its
  // results, so that a warp stores 128 consecutive columns of a row.
  EpilogueWriter writer(b, loc, p, ops.c, ops.epilogue, epilogue, batch);
  int64_t quadsPerRow = p.tn / 4;
  auto quadType = VectorType::get({4}, b.getF32Type());
  scf::ForOp::create(
      b, loc, idx(0), idx(16 * quadsPerRow / 32), idx(1), ValueRange(),
      [&](OpBuilder &, Location, Value i, ValueRange) {
        Value quad = add(mul(i, idx(32)), lane);
        Value row = div(quad, quadsPerRow);
        Value quadCol = rem(quad, quadsPerRow);
        Value values = vector::LoadOp::create(
            b, loc, quadType, staging, pairSlot(row, mul(quadCol, idx(2))),
            /*nontemporal=*/false, llvm::MaybeAlign(16));
        Value col = add(colOrigin, mul(quadCol, idx(4)));
        SmallVector<Value> results;
        for (int64_t e = 0; e < 2; ++e) {
          Value pair = vector::ExtractStridedSliceOp::create(
              b, loc, values, ArrayRef<int64_t>{2 * e}, ArrayRef<int64_t>{2},
              ArrayRef<int64_t>{1});
          if (!tma) {
            writer.storePair(pair, add(rowOrigin, row), add(col, idx(2 * e)));
            continue;
          }
          results.push_back(writer.computePair(pair, add(rowOrigin, row),
                                               add(col, idx(2 * e))));
        }
        if (tma) {
          // Box quadCol * 4 / boxCols of the block, at row warpRow + row.
          Value tileCol = mul(quadCol, idx(4));
          Value box = div(tileCol, boxCols);
          Value at = getTmaBoxByte(
              add(tma->base, mul(box, idx(tma->boxStride))),
              add(tma->warpRow, row), mul(rem(tileCol, boxCols), idx(rb)));
          Value quadResults = vector::ShuffleOp::create(
              b, loc, results[0], results[1], ArrayRef<int64_t>{0, 1, 2, 3});
          vector::StoreOp::create(b, loc, quadResults, boxes, div(at, rb),
                                  /*nontemporal=*/false,
                                  llvm::MaybeAlign(4 * rb));
        }
        scf::YieldOp::create(b, loc);
      });
  if (tma) {
    storeTmaBoxes(*tma, 0, p.tn / boxCols, batch);
    waitTmaStoreReads(*tma);
  }
}

Value WgmmaTileEmitter::getTmaBoxByte(Value boxBase, Value row,
                                      Value byteInRow) {
  // The 128-byte swizzle: 16-byte chunk c of row r at chunk c ^ (r % 8).
  Value chunk = arith::XOrIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, byteInRow, idx(16)),
      arith::RemUIOp::create(b, loc, row, idx(8)));
  return add(add(boxBase, mul(row, idx(nvidia::kTmaRowBytes))),
             add(mul(chunk, idx(16)),
                 arith::RemUIOp::create(b, loc, byteInRow, idx(16))));
}

void WgmmaTileEmitter::warpgroupBarrier(const TmaBlock &block) {
  // The warpgroup's 128 threads meet at its own named barrier.
  Value id = arith::IndexCastUIOp::create(
      b, loc, b.getI32Type(), add(block.warpgroup, idx(kTmaStoreBarrier)));
  NVVM::BarrierOp::create(
      b, loc, TypeRange(), id,
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), 128),
      NVVM::BarrierReductionAttr(), Value());
}

/// Builds `body` inside `if (inGroup == 0)`: one thread of the warpgroup.
static void byLeader(OpBuilder &b, Location loc, Value inGroup,
                     function_ref<void()> body) {
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto ifOp = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, inGroup, zero),
      /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  body();
}

void WgmmaTileEmitter::storeTmaBoxes(const TmaBlock &block, int64_t first,
                                     int64_t last, Value batch) {
  MLIRContext *ctx = b.getContext();
  auto mapType = cast<nvgpu::TensorMapDescriptorType>(ops.cMap.getType());
  bool batched = mapType.getTensor().getRank() == 3;
  int64_t boxCols =
      nvidia::kTmaRowBytes / (p.resultType.getIntOrFloatBitWidth() / 8);
  // The generic proxy's writes become visible to TMA (the async proxy),
  // then one thread stores the boxes.
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  warpgroupBarrier(block);
  byLeader(b, loc, block.inGroup, [&] {
    Value shared = getDynamicSharedMemory(b, loc);
    for (int64_t q = first; q < last; ++q) {
      Value box = memref::ViewOp::create(
          b, loc, mapType.getTensor(), shared,
          add(block.base, idx((q - first) * block.boxStride)), ValueRange());
      // Coordinates innermost first.
      SmallVector<Value> coords = {add(block.col, idx(q * boxCols)), block.row};
      if (batched)
        coords.push_back(batch);
      nvgpu::TmaAsyncStoreOp::create(b, loc, box, ops.cMap, coords, Value());
    }
    NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
  });
}

void WgmmaTileEmitter::waitTmaStoreReads(const TmaBlock &block) {
  byLeader(b, loc, block.inGroup, [&] {
    NVVM::CpAsyncBulkWaitGroupOp::create(b, loc, b.getI32IntegerAttr(0),
                                         b.getUnitAttr());
  });
}

void WgmmaTileEmitter::emitTmaStoreEpilogue(const FragmentEpilogue &epilogue,
                                            ArrayRef<Value> tiles,
                                            const TmaBlock &block, Value warp,
                                            Value lane, Value batch) {
  auto div = [&](Value x, int64_t y) -> Value {
    return arith::DivUIOp::create(b, loc, x, idx(y));
  };
  auto rem = [&](Value x, int64_t y) -> Value {
    return arith::RemUIOp::create(b, loc, x, idx(y));
  };
  Type resultType = p.resultType;
  int64_t rb = resultType.getIntOrFloatBitWidth() / 8;
  int64_t boxCols = nvidia::kTmaRowBytes / rb;
  int64_t boxes = p.tn / boxCols;
  Attribute workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  // Dynamic shared memory as result elements (the boxes lie in the ring).
  Value staging = memref::ViewOp::create(
      b, loc,
      MemRefType::get({WgmmaTileEmitter::sharedBytes(p) / rb}, resultType,
                      MemRefLayoutAttrInterface(), workgroup),
      getDynamicSharedMemory(b, loc), idx(0), ValueRange());
  EpilogueWriter writer(b, loc, p, ops.c, ops.epilogue, epilogue, batch);
  // Lane (g, t) holds rows g and g + 8 of the warp's 16, columns 8 j + 2 t
  // and + 1. The 8 rows a warp writes at once have 8 different row % 8,
  // so their chunks land in 8 different bank groups: no conflicts.
  Value g = div(lane, 4), t = rem(lane, 4);
  Value warpRows = add(mul(warp, idx(16)), g);
  int64_t jPerBox = boxCols / 8;
  // A round fills one box per slot; the boxes of a round stay in the
  // slots until TMA has read them.
  for (int64_t first = 0; first < boxes; first += p.stages) {
    int64_t last = std::min(boxes, first + p.stages);
    if (first > 0) {
      waitTmaStoreReads(block);
      warpgroupBarrier(block);
    }
    for (int64_t q = first; q < last; ++q) {
      Value base = add(block.base, idx((q - first) * block.boxStride));
      for (int64_t j = q * jPerBox; j < (q + 1) * jPerBox; ++j)
        for (int64_t h = 0; h < 2; ++h) {
          Value row = add(warpRows, idx(8 * h));
          Value out = writer.computePair(
              vector::ExtractOp::create(b, loc, tiles[j], h),
              add(block.row, row),
              add(block.col, add(mul(t, idx(2)), idx(8 * j))));
          Value byte = add(idx(8 * (j % jPerBox) * rb), mul(t, idx(2 * rb)));
          vector::StoreOp::create(
              b, loc, out, staging, div(getTmaBoxByte(base, row, byte), rb),
              /*nontemporal=*/false, llvm::MaybeAlign(2 * rb));
        }
    }
    storeTmaBoxes(block, first, last, batch);
  }
  // The workgroup's shared memory outlives TMA's reads of it.
  waitTmaStoreReads(block);
}
