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

/// The kernel's dynamic shared memory as bytes (memref<?xi8, workgroup>).
static Value getDynamicSharedMemory(OpBuilder &b, Location loc) {
  Attribute workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  return gpu::DynamicSharedMemoryOp::create(
      b, loc,
      MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                      MemRefLayoutAttrInterface(), workgroup));
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
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
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
  ring.kTilesDone =
      memref::AllocaOp::create(b, loc, MemRefType::get({1}, b.getIndexType()));
  memref::StoreOp::create(b, loc, idx(0), ring.kTilesDone, idx(0));
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
        nvgpu::MBarrierInitOp::create(
            b, loc, ring.empty, idx(p.consumerWarpgroups()), idx(s), Value());
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

void WgmmaTileEmitter::emitTile(const WgmmaRing &ring,
                                const FragmentEpilogue &epilogue, Value batch,
                                Value m0, Value n0, Value k0, Value k1,
                                Value workspace, Value slot) {
  MLIRContext *ctx = b.getContext();
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  auto cmp = [&](arith::CmpIPredicate pred, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  };
  auto i64 = [&](int64_t v) -> Value {
    return arith::ConstantIntOp::create(b, loc, b.getI64Type(), v);
  };
  int64_t consumers = p.consumerWarpgroups();
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

  Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warpgroup = arith::DivUIOp::create(b, loc, tid, idx(128));
  Value inGroup = arith::RemUIOp::create(b, loc, tid, idx(128));
  Value full = ring.full, empty = ring.empty;
  // This tile's k tile kt is the ring's k tile done + kt.
  Value done = memref::LoadOp::create(b, loc, ring.kTilesDone, idx(0));

  Value span = arith::SubIOp::create(b, loc, k1, k0);
  Value kTiles =
      arith::DivUIOp::create(b, loc, add(span, idx(p.tk - 1)), idx(p.tk));
  memref::StoreOp::create(b, loc, add(done, kTiles), ring.kTilesDone, idx(0));
  // The ring's slot of this tile's k tile kt, and the parity of the round
  // that slot is in.
  auto slotOf = [&](Value kt) -> Value {
    return arith::RemUIOp::create(b, loc, add(done, kt), idx(p.stages));
  };
  auto parity = [&](Value kt, bool flip) -> Value {
    Value round = arith::DivUIOp::create(b, loc, add(done, kt), idx(p.stages));
    Value odd = arith::RemUIOp::create(b, loc, round, idx(2));
    Value bit = cmp(arith::CmpIPredicate::eq, odd, idx(1));
    if (!flip)
      return bit;
    Value one = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
    return arith::XOrIOp::create(b, loc, bit, one);
  };
  Value ticks = idx(10000000);

  auto roles = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::eq, warpgroup, idx(consumers)),
      /*withElseRegion=*/true);
  bool clustered = p.clusterM > 1;
  if (clustered) {
    // A workgroup leaves only once the others of its cluster are done
    // arriving on its empty barriers.
    assert(ring.fixedRoles && "clustered workgroups compute one tile each");
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointAfter(roles);
    NVVM::ClusterArriveOp::create(b, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(b, loc, UnitAttr());
  }

  // Producer.
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(roles.thenBlock());
    if (ring.fixedRoles)
      NVVM::SetMaxRegisterOp::create(b, loc, kProducerRegisters,
                                     NVVM::SetMaxRegisterAction::decrease);
    auto leader = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::eq, inGroup, idx(0)), false);
    b.setInsertionPointToStart(leader.thenBlock());
    scf::ForOp::create(
        b, loc, idx(0), kTiles, idx(1), ValueRange(),
        [&](OpBuilder &, Location, Value kt, ValueRange) {
          Value stage = slotOf(kt);
          if (clustered) {
            Value phase = arith::ExtUIOp::create(b, loc, b.getI32Type(),
                                                 parity(kt, true));
            NVVM::MBarrierTryWaitParityOp::create(
                b, loc, getClusterEmptyBarrier(ring, stage), phase,
                arith::ConstantIntOp::create(b, loc, b.getI32Type(), 10000000));
          } else {
            nvgpu::MBarrierTryWaitParityOp::create(
                b, loc, empty, parity(kt, true), ticks, stage);
          }
          // The whole stage lands in this workgroup's slot, B's part from
          // every producer of the cluster.
          nvgpu::MBarrierArriveExpectTxOp::create(
              b, loc, full, idx(p.wgmmaStageBytes()), stage, Value());
          Value kOff = add(k0, mul(kt, idx(p.tk)));
          auto load = [&](Value map, Value dstOffset, ArrayRef<int64_t> box,
                          bool batched, ArrayRef<Value> coords,
                          Value multicast) {
            SmallVector<Value> c(coords);
            if (batched)
              c.push_back(batch);
            Value dst = view(dstOffset, boxShape(batched, box));
            nvgpu::TmaAsyncLoadOp::create(b, loc, dst, full, map, c, stage,
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
          scf::YieldOp::create(b, loc);
        });
  }

  // Consumers.
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(roles.elseBlock());
  if (ring.fixedRoles)
    NVVM::SetMaxRegisterOp::create(b, loc, kConsumerRegisters,
                                   NVVM::SetMaxRegisterAction::increase);
  int64_t accRegs = p.tn / 2;
  auto accType = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(accRegs, b.getF32Type()));
  Value zero = LLVM::ZeroOp::create(b, loc, accType);
  // Shared-memory descriptors: the start address field of a stage's slot.
  auto address = [&](Value byteOffset) -> Value {
    Value v = view(byteOffset, {1});
    Value ptr = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, v);
    return arith::IndexCastUIOp::create(b, loc, b.getI64Type(), ptr);
  };
  auto descriptor = [&](Value addr, int64_t lbo, int64_t sbo) -> Value {
    Value start = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, addr, i64(4)), i64(0x3FFF));
    int64_t fields = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (1ll << 62);
    return arith::OrIOp::create(b, loc, start, i64(fields));
  };
  // One thread per consumer warpgroup gives the slot of k tile `kt - 1`
  // back to the producer (when kt > 0).
  auto releaseBefore = [&](Value kt) {
    Value release = arith::AndIOp::create(
        b, loc, cmp(arith::CmpIPredicate::ugt, kt, idx(0)),
        cmp(arith::CmpIPredicate::eq, inGroup, idx(0)));
    auto ifOp = scf::IfOp::create(b, loc, release, false);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value stage = slotOf(add(kt, idx(p.stages - 1)));
    if (!clustered) {
      nvgpu::MBarrierArriveOp::create(
          b, loc, nvgpu::MBarrierTokenType::get(ctx), empty, stage);
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
  Value consumer = warpgroup;
  Value rowsOff = mul(consumer, idx(64 * p.tk * eb));
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
  auto loop = scf::ForOp::create(
      b, loc, idx(0), kTiles, idx(1), ValueRange{zero},
      [&](OpBuilder &, Location, Value kt, ValueRange iter) {
        Value stage = slotOf(kt);
        nvgpu::MBarrierTryWaitParityOp::create(b, loc, full, parity(kt, false),
                                               ticks, stage);
        Value aDesc = descriptor(address(add(mul(stage, idx(aBytes)), rowsOff)),
                                 16, 1024);
        Value bAddr = address(add(idx(bRegion), mul(stage, idx(bBytes))));
        Value bDesc = p.rhsNK ? descriptor(bAddr, 16, 1024)
                              : descriptor(bAddr, p.tk * 128, 1024);
        NVVM::WgmmaFenceAlignedOp::create(b, loc);
        Value acc = iter[0];
        for (int64_t ks = 0; ks < p.tk / wgmmaK; ++ks) {
          // K-major: 32 bytes further along the row; N-major B: wgmmaK rows
          // of 128 bytes further down. Descriptor addresses count 16 bytes.
          Value a = arith::AddIOp::create(b, loc, aDesc, i64(ks * 32 / 16));
          int64_t bStep = p.rhsNK ? ks * 32 / 16 : ks * wgmmaK * 128 / 16;
          Value bd = arith::AddIOp::create(b, loc, bDesc, i64(bStep));
          acc = NVVM::WgmmaMmaAsyncOp::create(
              b, loc, accType, acc, a, bd, shape, type, type,
              NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
              NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
              NVVM::MMALayout::row,
              p.rhsNK ? NVVM::MMALayout::col : NVVM::MMALayout::row,
              NVVM::MMAIntOverflowAttr());
        }
        NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
        // This k tile's group stays in flight; the previous one is done,
        // so its slot goes back to the producer.
        NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
        releaseBefore(kt);
        scf::YieldOp::create(b, loc, acc);
      });
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  // The last k tile's slot goes back to the producer too, for the next
  // tile of this workgroup.
  releaseBefore(kTiles);

  // The accumulators as mma.sync-style 16x8 tiles of this warp.
  Value result = loop.getResult(0);
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
  Value lane = arith::RemUIOp::create(b, loc, inGroup, idx(32));
  Value warp = arith::DivUIOp::create(b, loc, inGroup, idx(32));
  Value rowInTile = add(mul(consumer, idx(64)), mul(warp, idx(16)));
  if (p.stagedEpilogue && !workspace) {
    // The workgroup's only tile (a data-parallel program): once every
    // consumer's wgmma is done with the ring, its slots hold the f32
    // accumulators, 16 rows x tile_n for each warp.
    assert(ring.fixedRoles && "a staged epilogue reuses the whole ring");
    auto i32 = [&](int64_t v) -> Value {
      return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
    };
    NVVM::BarrierOp::create(b, loc, TypeRange(), i32(kConsumersBarrier),
                            i32(128 * consumers), NVVM::BarrierReductionAttr(),
                            Value());
    Value warpRows = mul(add(mul(consumer, idx(4)), warp), idx(16 * p.tn * 4));
    emitStagedEpilogue(epilogue, tiles, warpRows, lane, add(m0, rowInTile), n0,
                       batch);
    return;
  }
  if (!workspace) {
    emitFragmentEpilogue(b, loc, p, ops.c, ops.epilogue, epilogue, tiles, 1,
                         p.tn / 8, lane, add(m0, rowInTile), n0, batch);
    return;
  }
  // f32 partial sums, row-major tm x tn at `slot`.
  Value g = arith::DivUIOp::create(b, loc, lane, idx(4));
  Value t = arith::RemUIOp::create(b, loc, lane, idx(4));
  Value base = mul(slot, idx(p.tm * p.tn));
  for (int64_t j = 0; j < p.tn / 8; ++j)
    for (int64_t h = 0; h < 2; ++h) {
      Value row = add(add(rowInTile, g), idx(h * 8));
      Value col = add(mul(t, idx(2)), idx(j * 8));
      Value pair = vector::ExtractOp::create(b, loc, tiles[j], h);
      Value flat = add(base, add(mul(row, idx(p.tn)), col));
      vector::StoreOp::create(b, loc, pair, workspace, flat,
                              /*nontemporal=*/false, llvm::MaybeAlign(8));
    }
}

void WgmmaTileEmitter::emitStagedEpilogue(const FragmentEpilogue &epilogue,
                                          ArrayRef<Value> tiles,
                                          Value stagingOffset, Value lane,
                                          Value rowOrigin, Value colOrigin,
                                          Value batch) {
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
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
        for (int64_t e = 0; e < 2; ++e) {
          Value pair = vector::ExtractStridedSliceOp::create(
              b, loc, values, ArrayRef<int64_t>{2 * e}, ArrayRef<int64_t>{2},
              ArrayRef<int64_t>{1});
          writer.storePair(pair, add(rowOrigin, row), add(col, idx(2 * e)));
        }
        scf::YieldOp::create(b, loc);
      });
}
