//===- MmaSyncTileEmitter.cpp - one GEMM tile on mma.sync tensor cores ----===//
//
// The tile emitter of the NVIDIA backend for sm_80 and later (docs/NVIDIA.md):
//
//   * A [m, k] and B ([n, k] or [k, n]) slices of tile_k columns are copied
//     from global to shared memory by every thread with 16-byte cp.async
//     (nvgpu.device_async_copy), `stages` k tiles in flight, one commit group
//     per k tile; chunks outside the matrix are zero-filled by the copy
//     itself (src-size 0, or a partial chunk at the K edge);
//   * shared rows are XOR-swizzled by 16-byte chunk so that the eight rows
//     an ldmatrix phase reads fall in eight different bank groups;
//   * each warp owns a warp_m x warp_n block: ldmatrix.x4 loads four 8x8
//     pieces (A: one 16x16 mma tile, B: two 8x16 mma tiles; .trans for a
//     [k, n] B), and nvgpu.mma.sync (m16n8k16 bf16/f16, m16n8k8 tf32)
//     accumulates in f32 registers;
//   * the epilogue runs on the accumulator registers: mma.sync leaves
//     thread (g = lane / 4, t = lane % 4) with rows g and g + 8 and columns
//     2t, 2t + 1 of every 16x8 tile (PTX ISA, "Matrix Fragments for
//     mma.m16n8k16"), which is where the epilogue operands are read and the
//     results stored.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/XPUToNVGPU/NVGPUBackend.h"
#include "xpu/Conversion/XPUToNVGPU/XPUToNVGPU.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::xpu;

//===----------------------------------------------------------------------===//
// MmaKernelPlan
//===----------------------------------------------------------------------===//

int64_t MmaKernelPlan::operandBytes() const {
  return operandType.getIntOrFloatBitWidth() / 8;
}

int64_t MmaKernelPlan::tilesM() const { return llvm::divideCeil(m, tm); }
int64_t MmaKernelPlan::tilesN() const { return llvm::divideCeil(n, tn); }

int64_t MmaKernelPlan::sharedBytes() const {
  return stages * (aStageElems() + bStageElems()) * operandBytes();
}

int64_t MmaKernelPlan::fragmentRegisters() const {
  return nvidia::getMmaSyncFragmentRegisters(warpM(), warpN());
}

//===----------------------------------------------------------------------===//
// MmaSyncTileEmitter
//===----------------------------------------------------------------------===//

MmaSyncTileEmitter::MmaSyncTileEmitter(OpBuilder &b, Location loc,
                                       const MmaKernelPlan &plan,
                                       const MmaKernelOperands &operands)
    : b(b), loc(loc), p(plan), ops(operands) {
  Attribute workgroup =
      gpu::AddressSpaceAttr::get(b.getContext(), gpu::AddressSpace::Workgroup);
  auto view = [&](int64_t byteOffset, ArrayRef<int64_t> shape) {
    auto type = MemRefType::get(shape, p.operandType,
                                MemRefLayoutAttrInterface(), workgroup);
    return memref::ViewOp::create(b, loc, type, ops.shared, idx(byteOffset),
                                  ValueRange())
        .getResult();
  };
  if (ops.shared) {
    aShared = view(0, {p.stages, p.tm, p.tk});
    int64_t bOffset = p.stages * p.aStageElems() * p.operandBytes();
    bShared = p.rhsNK ? view(bOffset, {p.stages, p.tn, p.tk})
                      : view(bOffset, {p.stages, p.tk, p.tn});
  }
  computeLaneLayout();
}

Value MmaSyncTileEmitter::idx(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
Value MmaSyncTileEmitter::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value MmaSyncTileEmitter::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}

void MmaSyncTileEmitter::computeLaneLayout() {
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value warp = arith::DivUIOp::create(b, loc, tid, idx(32));
  lane = arith::RemUIOp::create(b, loc, tid, idx(32));
  Value warpRow = arith::DivUIOp::create(b, loc, warp, idx(p.warpCols));
  Value warpCol = arith::RemUIOp::create(b, loc, warp, idx(p.warpCols));
  warpM0 = mul(warpRow, idx(p.warpM()));
  warpN0 = mul(warpCol, idx(p.warpN()));
}

/// The physical 16-byte chunk of logical chunk `chunk` in row `row` of a
/// buffer with `chunksPerRow` chunks per row. A 128-byte line holds eight
/// chunks; rows sharing a bank window get their chunks XOR-permuted by the
/// row's position, so eight consecutive rows at one logical chunk hit eight
/// different bank groups.
Value MmaSyncTileEmitter::swizzle(Value row, Value chunk,
                                  int64_t chunksPerRow) {
  int64_t period = std::min<int64_t>(chunksPerRow, 8);
  int64_t rowsPerLine = 8 / period;
  Value line = row;
  if (rowsPerLine > 1)
    line = arith::ShRUIOp::create(b, loc, row, idx(llvm::Log2_64(rowsPerLine)));
  Value x = arith::AndIOp::create(b, loc, line, idx(period - 1));
  return arith::XOrIOp::create(b, loc, chunk, x);
}

void MmaSyncTileEmitter::issueStageLoads(Value tileK, Value stage, Value batch,
                                         Value m0, Value n0, Value kLimit,
                                         bool maskK,
                                         SmallVectorImpl<Value> &tokens) {
  int64_t ce = p.chunkElems();
  int64_t threads = p.threads();
  Value zero = idx(0), ceV = idx(ce);
  auto clampChunk = [&](Value remaining) {
    Value lo = arith::MaxSIOp::create(b, loc, remaining, zero);
    return arith::MinSIOp::create(b, loc, lo, ceV).getResult();
  };
  auto select = [&](Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y).getResult();
  };
  auto lt = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y)
        .getResult();
  };
  auto copy = [&](Value src, Value offset, Value dst, ArrayRef<Value> dstIdx,
                  Value srcElems) {
    auto op = nvgpu::DeviceAsyncCopyOp::create(
        b, loc, nvgpu::DeviceAsyncTokenType::get(b.getContext()), dst, dstIdx,
        src, ValueRange{offset}, b.getIndexAttr(ce), srcElems, b.getUnitAttr());
    tokens.push_back(op.getAsyncToken());
  };

  // A: tm rows of tk elements, rows along m.
  {
    int64_t cpr = p.tk / ce;
    bool maskM = p.m % p.tm != 0;
    Value batchOff = p.lhsBatched ? mul(batch, idx(p.m * p.aPitch)) : zero;
    for (int64_t i = 0, e = p.tm * cpr / threads; i < e; ++i) {
      Value q = add(tid, idx(i * threads));
      Value row = arith::DivUIOp::create(b, loc, q, idx(cpr));
      Value chunk = arith::RemUIOp::create(b, loc, q, idx(cpr));
      Value gRow = add(m0, row);
      Value gK = add(tileK, mul(chunk, ceV));
      Value offset = add(batchOff, add(mul(gRow, idx(p.aPitch)), gK));
      Value srcElems;
      if (maskK)
        srcElems = clampChunk(arith::SubIOp::create(b, loc, kLimit, gK));
      if (maskM)
        srcElems = select(lt(gRow, idx(p.m)), srcElems ? srcElems : ceV, zero);
      if (srcElems)
        offset = select(lt(zero, srcElems), offset, zero);
      Value col = mul(swizzle(row, chunk, cpr), ceV);
      copy(ops.a, offset, aShared, {stage, row, col}, srcElems);
    }
  }

  // B.
  bool maskN = p.n % p.tn != 0;
  Value batchOff =
      p.rhsBatched ? mul(batch, idx((p.rhsNK ? p.n : p.k) * p.bPitch)) : zero;
  if (p.rhsNK) {
    // tn rows of tk elements, rows along n.
    int64_t cpr = p.tk / ce;
    for (int64_t i = 0, e = p.tn * cpr / threads; i < e; ++i) {
      Value q = add(tid, idx(i * threads));
      Value row = arith::DivUIOp::create(b, loc, q, idx(cpr));
      Value chunk = arith::RemUIOp::create(b, loc, q, idx(cpr));
      Value gRow = add(n0, row);
      Value gK = add(tileK, mul(chunk, ceV));
      Value offset = add(batchOff, add(mul(gRow, idx(p.bPitch)), gK));
      Value srcElems;
      if (maskK)
        srcElems = clampChunk(arith::SubIOp::create(b, loc, kLimit, gK));
      if (maskN)
        srcElems = select(lt(gRow, idx(p.n)), srcElems ? srcElems : ceV, zero);
      if (srcElems)
        offset = select(lt(zero, srcElems), offset, zero);
      Value col = mul(swizzle(row, chunk, cpr), ceV);
      copy(ops.b, offset, bShared, {stage, row, col}, srcElems);
    }
  } else {
    // tk rows of tn elements, rows along k; the pitch is n padded to whole
    // chunks (zeros), so a chunk is either inside the row or past it.
    int64_t cpr = p.tn / ce;
    for (int64_t i = 0, e = p.tk * cpr / threads; i < e; ++i) {
      Value q = add(tid, idx(i * threads));
      Value row = arith::DivUIOp::create(b, loc, q, idx(cpr));
      Value chunk = arith::RemUIOp::create(b, loc, q, idx(cpr));
      Value gK = add(tileK, row);
      Value gN = add(n0, mul(chunk, ceV));
      Value offset = add(batchOff, add(mul(gK, idx(p.bPitch)), gN));
      Value ok;
      if (maskK)
        ok = lt(gK, kLimit);
      if (maskN) {
        Value inN = lt(gN, idx(p.bPitch));
        ok = ok ? arith::AndIOp::create(b, loc, ok, inN).getResult() : inN;
      }
      Value srcElems;
      if (ok) {
        srcElems = select(ok, ceV, zero);
        offset = select(ok, offset, zero);
      }
      Value col = mul(swizzle(row, chunk, cpr), ceV);
      copy(ops.b, offset, bShared, {stage, row, col}, srcElems);
    }
  }
}

/// Per-thread vector type of ldmatrix results: `tiles` rows of one 32-bit
/// register each.
static VectorType fragmentType(Type elt, int64_t tiles) {
  return VectorType::get({tiles, 32 / elt.getIntOrFloatBitWidth()}, elt);
}

SmallVector<Value> MmaSyncTileEmitter::loadFragmentsA(Value stage, int64_t ks) {
  // ldmatrix.x4: lanes 0-15 give rows 0-15 of the 16-row tile at the
  // k-step's first chunk, lanes 16-31 the same rows at its second chunk;
  // registers 0-3 are the mma's a0-a3.
  int64_t ce = p.chunkElems();
  int64_t cpr = p.tk / ce;
  Value laneRow = arith::RemUIOp::create(b, loc, lane, idx(16));
  Value laneChunk = arith::DivUIOp::create(b, loc, lane, idx(16));
  Value chunk = add(laneChunk, idx(ks * 2));
  SmallVector<Value> frags;
  for (int64_t i = 0, e = p.warpM() / 16; i < e; ++i) {
    Value row = add(warpM0, add(laneRow, idx(i * 16)));
    Value col = mul(swizzle(row, chunk, cpr), idx(ce));
    frags.push_back(nvgpu::LdMatrixOp::create(
        b, loc, fragmentType(p.operandType, 4), aShared,
        ValueRange{stage, row, col}, /*transpose=*/false, /*numTiles=*/4));
  }
  return frags;
}

SmallVector<Value> MmaSyncTileEmitter::loadFragmentsB(Value stage, int64_t ks) {
  int64_t ce = p.chunkElems();
  int64_t nTiles = p.warpN() / 8;
  VectorType pairType = fragmentType(p.operandType, 2);
  SmallVector<Value> frags;
  // Rows {0, 1} and {2, 3} of an x4 result are two n8 tiles' registers
  // (whole-row extracts and inserts: n-D vector slicing does not lower to
  // NVVM directly).
  auto split = [&](Value x4) {
    for (int64_t half = 0; half < 2; ++half) {
      Value pair = ub::PoisonOp::create(b, loc, pairType);
      for (int64_t r = 0; r < 2; ++r) {
        Value row = vector::ExtractOp::create(b, loc, x4,
                                              ArrayRef<int64_t>{half * 2 + r});
        pair =
            vector::InsertOp::create(b, loc, row, pair, ArrayRef<int64_t>{r});
      }
      frags.push_back(pair);
    }
  };
  if (p.rhsNK) {
    // [n, k] in shared memory: ldmatrix.x4 without transpose; matrices
    // (n 0-7, k chunk 0), (n 0-7, chunk 1), (n 8-15, chunk 0), (n 8-15,
    // chunk 1) are b0, b1 of two n8 tiles.
    int64_t cpr = p.tk / ce;
    Value laneRow =
        add(mul(arith::DivUIOp::create(b, loc, lane, idx(16)), idx(8)),
            arith::RemUIOp::create(b, loc, lane, idx(8)));
    Value laneChunk = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, lane, idx(8)), idx(2));
    Value chunk = add(laneChunk, idx(ks * 2));
    for (int64_t j = 0; j < nTiles / 2; ++j) {
      Value row = add(warpN0, add(laneRow, idx(j * 16)));
      Value col = mul(swizzle(row, chunk, cpr), idx(ce));
      split(nvgpu::LdMatrixOp::create(b, loc, fragmentType(p.operandType, 4),
                                      bShared, ValueRange{stage, row, col},
                                      /*transpose=*/false, /*numTiles=*/4));
    }
    return frags;
  }
  int64_t cpr = p.tn / ce;
  if (p.operandBytes() == 2) {
    // [k, n] in shared memory: ldmatrix.x4.trans; matrices (k 0-7, n 0-7),
    // (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15).
    Value laneK = add(
        arith::RemUIOp::create(b, loc, lane, idx(8)),
        mul(arith::RemUIOp::create(
                b, loc, arith::DivUIOp::create(b, loc, lane, idx(8)), idx(2)),
            idx(8)));
    Value row = add(laneK, idx(ks * 16));
    Value laneChunk = arith::DivUIOp::create(b, loc, lane, idx(16));
    for (int64_t j = 0; j < nTiles / 2; ++j) {
      Value chunk =
          add(arith::DivUIOp::create(b, loc, add(warpN0, idx(j * 16)), idx(ce)),
              laneChunk);
      Value col = mul(swizzle(row, chunk, cpr), idx(ce));
      split(nvgpu::LdMatrixOp::create(b, loc, fragmentType(p.operandType, 4),
                                      bShared, ValueRange{stage, row, col},
                                      /*transpose=*/true, /*numTiles=*/4));
    }
    return frags;
  }
  // tf32 from [k, n]: ldmatrix cannot transpose 32-bit elements; each thread
  // reads b0 = B[k = t][n = g] and b1 = B[t + 4][g] itself.
  Value g = arith::DivUIOp::create(b, loc, lane, idx(4));
  Value t = arith::RemUIOp::create(b, loc, lane, idx(4));
  for (int64_t j = 0; j < nTiles; ++j) {
    Value nIdx = add(warpN0, add(g, idx(j * 8)));
    Value chunk = arith::DivUIOp::create(b, loc, nIdx, idx(ce));
    Value within = arith::RemUIOp::create(b, loc, nIdx, idx(ce));
    Value pair = ub::PoisonOp::create(b, loc, pairType);
    for (int64_t half = 0; half < 2; ++half) {
      Value kIdx = add(t, idx(ks * 8 + half * 4));
      Value col = add(mul(swizzle(kIdx, chunk, cpr), idx(ce)), within);
      Value x =
          memref::LoadOp::create(b, loc, bShared, ValueRange{stage, kIdx, col});
      pair =
          vector::InsertOp::create(b, loc, x, pair, ArrayRef<int64_t>{half, 0});
    }
    frags.push_back(pair);
  }
  return frags;
}

SmallVector<Value> MmaSyncTileEmitter::computeStage(Value stage,
                                                    ArrayRef<Value> acc) {
  int64_t kSteps = p.tk / p.mmaK();
  int64_t mTiles = p.warpM() / 16, nTiles = p.warpN() / 8;
  bool tf32 = p.operandBytes() == 4;
  SmallVector<Value> out(acc);
  SmallVector<Value> fa = loadFragmentsA(stage, 0);
  SmallVector<Value> fb = loadFragmentsB(stage, 0);
  for (int64_t ks = 0; ks < kSteps; ++ks) {
    // The next k-step's fragments are loaded before this one's products.
    SmallVector<Value> nextA, nextB;
    if (ks + 1 < kSteps) {
      nextA = loadFragmentsA(stage, ks + 1);
      nextB = loadFragmentsB(stage, ks + 1);
    }
    for (int64_t i = 0; i < mTiles; ++i)
      for (int64_t j = 0; j < nTiles; ++j) {
        Value &c = out[i * nTiles + j];
        c = nvgpu::MmaSyncOp::create(b, loc, fa[i], fb[j], c,
                                     ArrayRef<int64_t>{16, 8, p.mmaK()}, tf32);
      }
    fa = std::move(nextA);
    fb = std::move(nextB);
  }
  return out;
}

SmallVector<Value> MmaSyncTileEmitter::emitMainLoop(Value batch, Value m0,
                                                    Value n0, Value k0,
                                                    Value k1, bool maskK) {
  MLIRContext *ctx = b.getContext();
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);
  int64_t mTiles = p.warpM() / 16, nTiles = p.warpN() / 8;
  auto accType = VectorType::get({2, 2}, b.getF32Type());
  Value zeroAcc = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(accType, b.getF32FloatAttr(0)));
  SmallVector<Value> acc(mTiles * nTiles, zeroAcc);

  // k tiles of this range.
  Value span = arith::SubIOp::create(b, loc, k1, k0);
  Value kTiles =
      arith::DivUIOp::create(b, loc, add(span, idx(p.tk - 1)), idx(p.tk));
  auto lt = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y)
        .getResult();
  };
  // Copies of k tile `kt` into `stage`, as one commit group; an empty group
  // past the last k tile keeps the group count uniform.
  auto loadTile = [&](Value kt, Value stage) -> Value {
    auto ifOp = scf::IfOp::create(
        b, loc, lt(kt, kTiles),
        [&](OpBuilder &, Location) {
          SmallVector<Value> tokens;
          Value tileK = add(k0, mul(kt, idx(p.tk)));
          issueStageLoads(tileK, stage, batch, m0, n0, k1, maskK, tokens);
          Value group = nvgpu::DeviceAsyncCreateGroupOp::create(
              b, loc, tokenType, tokens);
          scf::YieldOp::create(b, loc, group);
        },
        [&](OpBuilder &, Location) {
          Value group = nvgpu::DeviceAsyncCreateGroupOp::create(
              b, loc, tokenType, ValueRange());
          scf::YieldOp::create(b, loc, group);
        });
    return ifOp.getResult(0);
  };

  // A program of a persistent or Stream-K schedule computes several tiles:
  // every warp must be done reading the previous tile's stages before the
  // prologue refills them.
  gpu::BarrierOp::create(b, loc);
  // Prologue: stages - 1 k tiles in flight.
  Value token;
  for (int64_t s = 0; s + 1 < p.stages; ++s)
    token = loadTile(idx(s), idx(s));

  SmallVector<Value> init(acc);
  init.push_back(token);
  auto loop = scf::ForOp::create(
      b, loc, idx(0), kTiles, idx(1), init,
      [&](OpBuilder &, Location, Value kt, ValueRange iter) {
        // k tile kt has landed once at most stages - 2 groups are pending;
        // the barrier also retires the reads of the stage refilled below,
        // which the previous iteration computed on.
        nvgpu::DeviceAsyncWaitOp::create(b, loc, iter.back(),
                                         b.getI32IntegerAttr(p.stages - 2));
        gpu::BarrierOp::create(b, loc);
        Value next = add(kt, idx(p.stages - 1));
        Value nextStage = arith::RemUIOp::create(b, loc, next, idx(p.stages));
        Value nextToken = loadTile(next, nextStage);
        Value stage = arith::RemUIOp::create(b, loc, kt, idx(p.stages));
        SmallVector<Value> accIn(iter.drop_back());
        SmallVector<Value> results = computeStage(stage, accIn);
        results.push_back(nextToken);
        scf::YieldOp::create(b, loc, results);
      });
  SmallVector<Value> results(loop.getResults().drop_back());
  return results;
}

/// Values an epilogue may capture from above: scalar constants, cloned into
/// the kernel.
static Value materializeCapture(OpBuilder &b, Value v, IRMapping &map) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  Value clone = b.clone(*def)->getResult(0);
  map.map(v, clone);
  return clone;
}

void MmaSyncTileEmitter::emitEpilogueAndStore(const FragmentEpilogue &epilogue,
                                              ArrayRef<Value> accumulators,
                                              Value batch, Value m0, Value n0) {
  emitFragmentEpilogue(b, loc, p, ops.c, ops.epilogue, epilogue, accumulators,
                       p.warpM() / 16, p.warpN() / 8, lane, add(m0, warpM0),
                       add(n0, warpN0), batch);
}

EpilogueWriter::EpilogueWriter(OpBuilder &b, Location loc,
                               const MmaKernelPlan &plan, Value c,
                               ArrayRef<Value> epilogueOperands,
                               const FragmentEpilogue &epilogue, Value batch)
    : b(b), loc(loc), p(plan), c(c), operands(epilogueOperands),
      epilogue(epilogue) {
  cBatch = p.batch > 1 ? mul(batch, idx(p.m * p.n)) : idx(0);
  // Scalar operands are read once.
  scalars.resize(operands.size());
  for (auto [i, v] : llvm::enumerate(operands))
    if (epilogue.kinds[i] == BroadcastKind::scalar)
      scalars[i] = memref::LoadOp::create(b, loc, v, ValueRange());
}

Value EpilogueWriter::idx(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value EpilogueWriter::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}

Value EpilogueWriter::apply(Value acc, Value row, Value col, Value flat) {
  Block &block = *epilogue.block;
  Region *region = block.getParent();
  IRMapping map;
  map.map(block.getArgument(0), acc);
  for (auto [i, v] : llvm::enumerate(operands)) {
    Value x;
    switch (epilogue.kinds[i]) {
    case BroadcastKind::scalar:
      x = scalars[i];
      break;
    case BroadcastKind::per_row:
      x = memref::LoadOp::create(b, loc, v, row);
      break;
    case BroadcastKind::per_col:
      x = memref::LoadOp::create(b, loc, v, col);
      break;
    case BroadcastKind::full:
      x = memref::LoadOp::create(b, loc, v, flat);
      break;
    }
    map.map(block.getArgument(i + 1), x);
  }
  for (Operation &op : block.without_terminator()) {
    for (Value operand : op.getOperands())
      if (!map.contains(operand) && operand.getParentRegion() != region)
        materializeCapture(b, operand, map);
    b.clone(op, map);
  }
  Value yielded = block.getTerminator()->getOperand(0);
  if (!map.contains(yielded))
    return materializeCapture(b, yielded, map);
  return map.lookup(yielded);
}

void EpilogueWriter::storePair(Value pair, Value row, Value col) {
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto lt = [&](Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  };
  auto inside = [&](Value cond, function_ref<void()> body) {
    if (!cond) {
      body();
      return;
    }
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(ifOp.thenBlock());
    body();
  };
  Type resultType = p.resultType;
  int64_t resultBytes = resultType.getIntOrFloatBitWidth() / 8;
  bool maskM = p.m % p.tm != 0, maskN = p.n % p.tn != 0;
  // Pairs of neighbouring columns are stored together when every row
  // starts on an even column.
  bool pairs = p.n % 2 == 0;
  Value colOk = maskN ? lt(col, idx(p.n)) : Value();
  Value ok = maskM ? lt(row, idx(p.m)) : Value();
  if (pairs && colOk)
    ok = ok ? arith::AndIOp::create(b, loc, ok, colOk).getResult() : colOk;
  Value flat = add(cBatch, add(mul(row, idx(p.n)), col));
  inside(ok, [&] {
    if (pairs) {
      SmallVector<Value> outs;
      for (int64_t e = 0; e < 2; ++e) {
        Value v = vector::ExtractOp::create(b, loc, pair, e);
        outs.push_back(apply(v, row, add(col, idx(e)), add(flat, idx(e))));
      }
      Value vec = vector::FromElementsOp::create(
          b, loc, VectorType::get({2}, resultType), outs);
      vector::StoreOp::create(b, loc, vec, c, flat,
                              /*nontemporal=*/false,
                              llvm::MaybeAlign(2 * resultBytes));
      return;
    }
    for (int64_t e = 0; e < 2; ++e) {
      Value ce = add(col, idx(e));
      Value cOk = maskN || p.n % 2 != 0 ? lt(ce, idx(p.n)) : Value();
      inside(cOk, [&] {
        Value v = vector::ExtractOp::create(b, loc, pair, e);
        Value out = apply(v, row, ce, add(flat, idx(e)));
        memref::StoreOp::create(b, loc, out, c, add(flat, idx(e)));
      });
    }
  });
}

Value EpilogueWriter::computePair(Value pair, Value row, Value col) {
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  auto lt = [&](Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  };
  assert(p.n % 2 == 0 && "pairs of columns lie wholly inside or outside");
  auto pairType = VectorType::get({2}, p.resultType);
  Value flat = add(cBatch, add(mul(row, idx(p.n)), col));
  auto compute = [&]() -> Value {
    SmallVector<Value> outs;
    for (int64_t e = 0; e < 2; ++e) {
      Value v = vector::ExtractOp::create(b, loc, pair, e);
      outs.push_back(apply(v, row, add(col, idx(e)), add(flat, idx(e))));
    }
    return vector::FromElementsOp::create(b, loc, pairType, outs);
  };
  Value ok;
  if (p.m % p.tm != 0)
    ok = lt(row, idx(p.m));
  if (p.n % p.tn != 0) {
    Value colOk = lt(col, idx(p.n));
    ok = ok ? arith::AndIOp::create(b, loc, ok, colOk).getResult() : colOk;
  }
  if (!ok)
    return compute();
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{pairType}, ok,
                                /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b, loc, compute());
  b.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b, loc,
                       arith::ConstantOp::create(
                           b, loc, cast<TypedAttr>(b.getZeroAttr(pairType)))
                           .getResult());
  return ifOp.getResult(0);
}

void mlir::xpu::emitFragmentEpilogue(
    OpBuilder &b, Location loc, const MmaKernelPlan &p, Value c,
    ArrayRef<Value> epilogueOperands, const FragmentEpilogue &epilogue,
    ArrayRef<Value> accumulators, int64_t mTiles, int64_t nTiles, Value lane,
    Value rowOrigin, Value colOrigin, Value batch) {
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  EpilogueWriter writer(b, loc, p, c, epilogueOperands, epilogue, batch);
  Value g = arith::DivUIOp::create(b, loc, lane, idx(4));
  Value t = arith::RemUIOp::create(b, loc, lane, idx(4));
  Value rowBase = add(rowOrigin, g);
  Value colBase =
      add(colOrigin, arith::MulIOp::create(b, loc, t, idx(2)).getResult());
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t j = 0; j < nTiles; ++j)
      for (int64_t h = 0; h < 2; ++h)
        writer.storePair(
            vector::ExtractOp::create(b, loc, accumulators[i * nTiles + j], h),
            add(rowBase, idx(i * 16 + h * 8)), add(colBase, idx(j * 8)));
}

void MmaSyncTileEmitter::forEachAccumulatorPair(
    function_ref<void(int64_t, int64_t, Value, Value)> fn) {
  int64_t mTiles = p.warpM() / 16, nTiles = p.warpN() / 8;
  Value g = arith::DivUIOp::create(b, loc, lane, idx(4));
  Value t = arith::RemUIOp::create(b, loc, lane, idx(4));
  Value rowBase = add(warpM0, g);
  Value colBase = add(warpN0, mul(t, idx(2)));
  for (int64_t i = 0; i < mTiles; ++i)
    for (int64_t j = 0; j < nTiles; ++j)
      for (int64_t h = 0; h < 2; ++h)
        fn(i * nTiles + j, h, add(rowBase, idx(i * 16 + h * 8)),
           add(colBase, idx(j * 8)));
}

void MmaSyncTileEmitter::emitPartialStore(ArrayRef<Value> accumulators,
                                          Value workspace, Value slot) {
  Value base = mul(slot, idx(p.tm * p.tn));
  forEachAccumulatorPair([&](int64_t tile, int64_t h, Value row, Value col) {
    Value pair = vector::ExtractOp::create(b, loc, accumulators[tile], h);
    Value flat = add(base, add(mul(row, idx(p.tn)), col));
    vector::StoreOp::create(b, loc, pair, workspace, flat,
                            /*nontemporal=*/false, llvm::MaybeAlign(8));
  });
}

void MmaSyncTileEmitter::emitAtomicAdd(ArrayRef<Value> accumulators,
                                       Value workspace, Value slot, Value m0,
                                       Value n0) {
  Value base = mul(slot, idx(p.tm * p.tn));
  auto lt = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y)
        .getResult();
  };
  forEachAccumulatorPair([&](int64_t tile, int64_t h, Value row, Value col) {
    for (int64_t e = 0; e < 2; ++e) {
      Value c = add(col, idx(e));
      Value inside = arith::AndIOp::create(b, loc, lt(add(m0, row), idx(p.m)),
                                           lt(add(n0, c), idx(p.n)));
      auto ifOp = scf::IfOp::create(b, loc, inside, false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      Value v = vector::ExtractOp::create(b, loc, accumulators[tile],
                                          ArrayRef<int64_t>{h, e});
      Value flat = add(base, add(mul(row, idx(p.tn)), c));
      memref::AtomicRMWOp::create(b, loc, arith::AtomicRMWKind::addf, v,
                                  workspace, ValueRange{flat});
    }
  });
}

SmallVector<Value> MmaSyncTileEmitter::emitSlotSum(Value workspace, Value first,
                                                   Value count) {
  int64_t tiles = (p.warpM() / 16) * (p.warpN() / 8);
  auto pairType = VectorType::get({2}, b.getF32Type());
  auto tileType = VectorType::get({2, 2}, b.getF32Type());
  // The thread's fragments of one slot, in the mma.sync layout.
  auto loadSlot = [&](Value slot) {
    Value base = mul(slot, idx(p.tm * p.tn));
    SmallVector<Value> acc;
    for (int64_t i = 0; i < tiles; ++i)
      acc.push_back(ub::PoisonOp::create(b, loc, tileType));
    forEachAccumulatorPair([&](int64_t tile, int64_t h, Value row, Value col) {
      Value flat = add(base, add(mul(row, idx(p.tn)), col));
      Value pair =
          vector::LoadOp::create(b, loc, pairType, workspace, flat,
                                 /*nontemporal=*/false, llvm::MaybeAlign(8));
      acc[tile] = vector::InsertOp::create(b, loc, pair, acc[tile],
                                           ArrayRef<int64_t>{h});
    });
    return acc;
  };
  SmallVector<Value> init = loadSlot(first);
  auto loop =
      scf::ForOp::create(b, loc, idx(1), count, idx(1), init,
                         [&](OpBuilder &, Location, Value s, ValueRange acc) {
                           SmallVector<Value> next = loadSlot(add(first, s));
                           for (auto [i, v] : llvm::enumerate(acc))
                             next[i] =
                                 arith::AddFOp::create(b, loc, v, next[i]);
                           scf::YieldOp::create(b, loc, next);
                         });
  return SmallVector<Value>(loop.getResults());
}
