//===- ConvertXPUToGPU.cpp - GEMM tiles -> SIMT kernels -------------------===//
//
// The SIMT backend of the schedule layer (GemmPrograms.h): every scf.forall
// of GEMM programs that xpu-schedule-gemm made becomes a gpu.launch, and
// every xpu.gemm_tile / xpu.gemm_fixup in it becomes one workgroup's SIMT
// code:
//
//   * every K-step, the workgroup stages a tile[0] x tile[2] slice of A and a
//     tile[2] x tile[1] slice of B in shared local memory (two buffers, one
//     barrier per step, when the config asks for stages >= 2);
//   * every thread accumulates a register micro-tile: the subgroup layout of
//     the config splits the tile, and the lanes of a subgroup split their
//     block, along n first so that neighbouring lanes touch neighbouring
//     columns;
//   * with #xpu.simt<vector = V> (SimtLayout::isVector; NVIDIA's default),
//     the micro-tile is runs of V rows and V columns, A is staged k-major,
//     shared memory is read V values at a time, global memory too where
//     the layout allows, and the next slice is read into registers while
//     the current one is computed;
//   * `output` tiles and fix-ups apply the epilogue to each accumulator
//     before the store; `partial` tiles store the f32 accumulators to their
//     workspace slot; `atomic_add` tiles add them with masked float atomics;
//     fix-ups sum the slots in slot order;
//   * boundaries are masked only where the shape is not a multiple of the
//     tile, and offsets are computed in i64 whenever an element index of a
//     buffer can pass 2^31 (i32 otherwise; catalog:
//     int64_cast_for_large_batch_offsets).
//
// Buffers are read flat: the pass collapses each one on the host, before the
// launch, so the kernel computes its own (i32 or i64) offsets.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GPUHost/GPUHost.h"
#include "xpu/Conversion/GemmBackends.h"
#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUSchedule/GemmPrograms.h"
#include "xpu/Conversion/XPUToGPU/SimtBackend.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCONVERTXPUTOGPUPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "convert-xpu-to-gpu";

namespace {

/// Flat views of the kernel's buffers, made on the host before the launch.
class FlatBuffers {
public:
  /// `memref` (read by `user`, inside a gpu.launch) as a 1-D buffer; rank-0
  /// and rank-1 buffers are used as they are.
  Value get(RewriterBase &rewriter, Value memref, Operation *user) {
    if (Value flat = cache.lookup(memref))
      return flat;
    auto type = cast<MemRefType>(memref.getType());
    if (type.getRank() <= 1)
      return memref;
    OpBuilder::InsertionGuard guard(rewriter);
    auto launch = user->getParentOfType<gpu::LaunchOp>();
    if (launch && memref.getParentRegion()->isProperAncestor(&launch.getBody()))
      rewriter.setInsertionPoint(launch);
    else
      rewriter.setInsertionPointAfterValue(memref);
    ReassociationIndices all(type.getRank());
    std::iota(all.begin(), all.end(), 0);
    Value flat = memref::CollapseShapeOp::create(
        rewriter, memref.getLoc(), memref, ArrayRef<ReassociationIndices>{all});
    cache[memref] = flat;
    return flat;
  }

private:
  DenseMap<Value, Value> cache;
};

/// The values every tile of one kernel shares.
struct KernelValues {
  /// Thread id, and the tile-local row of the thread's first row and column
  /// of its first column (index).
  Value tid, rowBase, colBase;
  /// Shared-memory slices of A and B (null in fix-up kernels).
  Value aSlm, bSlm;
};

/// One buffer as the kernel reads it: logical rows x cols, a row pitch and
/// a batch stride (0 when shared by the batch).
struct Surface {
  Value flat;
  int64_t rows, cols, pitch, batchStride;
};

/// Builds the code of one tile op. Index arithmetic that can reach a buffer
/// element goes through `it`.
class TileBuilder {
public:
  TileBuilder(OpBuilder &b, Location loc, const SimtLayout &l,
              const KernelValues &k, IntegerType it)
      : b(b), loc(loc), l(l), k(k), it(it) {}

  Value cInt(int64_t v) {
    return arith::ConstantOp::create(b, loc, it, b.getIntegerAttr(it, v));
  }
  Value cIdx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value toInt(Value index) {
    return arith::IndexCastOp::create(b, loc, it, index);
  }
  Value toIndex(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }

  /// `for i in [lb, ub)` carrying `init`; `body` builds through `b` and ends
  /// with the scf.yield.
  scf::ForOp buildLoop(Value lb, Value ub, ValueRange init,
                       function_ref<void(Value, ValueRange)> body) {
    return scf::ForOp::create(
        b, loc, lb, ub, cIdx(1), init,
        [&](OpBuilder &nested, Location, Value iv, ValueRange iter) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          body(iv, iter);
        });
  }
  /// Runs `body` under `cond` (when there is one).
  void buildIf(Value cond, function_ref<void()> body) {
    if (!cond) {
      body();
      return;
    }
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    body();
  }

  /// Offsets of accumulator row `i` and column `j` of this thread from its
  /// first row and column: runs of vm rows and vn columns (SimtLayout).
  int64_t rowOffset(int64_t i) const {
    return (i / l.vm) * (l.lanesM * l.vm) + i % l.vm;
  }
  int64_t colOffset(int64_t j) const {
    return (j / l.vn) * (l.lanesN * l.vn) + j % l.vn;
  }
  /// Global row and column of accumulator (i, j) of this thread.
  Value rowOf(Value m0, int64_t i) {
    return add(m0, toInt(add(k.rowBase, cIdx(rowOffset(i)))));
  }
  Value colOf(Value n0, int64_t j) {
    return add(n0, toInt(add(k.colBase, cIdx(colOffset(j)))));
  }
  /// Tile-local flat offset of accumulator (i, j) in a tm x tn slot.
  Value slotOffset(int64_t i, int64_t j) {
    Value row = add(k.rowBase, cIdx(rowOffset(i)));
    Value col = add(k.colBase, cIdx(colOffset(j)));
    return toInt(add(mul(row, cIdx(l.tn)), col));
  }
  /// Whether a dimension of `size` elements needs masks in tiles of
  /// `tile`: a partial edge, or a size known only at run time.
  static bool needsMask(int64_t size, int64_t tile) {
    return ShapedType::isDynamic(size) || size % tile != 0;
  }
  /// rows < m and cols < n when the tile overruns them (a dynamic m is
  /// `dynamicRows`).
  Value inBounds(Value row, Value col, int64_t m, int64_t n, bool maskM,
                 bool maskN) {
    Value ok;
    if (maskM)
      ok = ult(row, ShapedType::isDynamic(m) ? dynamicRows : cInt(m));
    if (maskN) {
      Value colOk = ult(col, cInt(n));
      ok = ok ? andI(ok, colOk) : colOk;
    }
    return ok;
  }

  /// The tile's accumulators over `[k0, k1)` (elements, in `it`).
  SmallVector<Value> accumulate(GemmTileOp op, const Surface &a,
                                const Surface &bs, Value batch, Value m0,
                                Value n0, Value k0, Value k1);
  /// Applies `epilogue` to `acc` and stores the tile at (batch, m0, n0).
  void storeOutput(Block &epilogue, ArrayRef<Surface> operands,
                   ArrayRef<BroadcastKind> kinds, const Surface &c, Value batch,
                   Value m0, Value n0, ValueRange acc);

  OpBuilder &b;
  Location loc;
  const SimtLayout &l;
  const KernelValues &k;
  IntegerType it;
  Type operandType, accType;
  /// The rows of a tile whose m is dynamic (its `rows` operand, in `it`).
  Value dynamicRows;

private:
  /// `load` where `ok` holds (always when null), else a zero of `type`.
  Value loadOrZero(Value ok, Type type,
                   function_ref<Value(OpBuilder &, Location)> load);
  /// One element of a global operand, zero outside [rows) x [cols).
  Value loadMasked(const Surface &s, Value row, Value col, Value batch,
                   bool maskRow, bool maskCol);
  /// Copies the K-slice starting at `k0` of A and B into SLM buffer `buf`.
  void loadSlice(const Surface &a, const Surface &bs, bool nk, Value batch,
                 Value m0, Value n0, Value k0, Value buf, bool maskM,
                 bool maskN, bool maskK);
  /// Accumulates one K-slice from SLM buffer `buf` into `acc`.
  SmallVector<Value> computeSlice(Value buf, ValueRange acc);

  // Vector layouts (SimtLayout::isVector).

  /// How one operand's K-slice moves from global to shared memory in a
  /// vector layout: `rows x cols` elements of the global operand (cols the
  /// contiguous dimension), read `width` at a time, each round of the
  /// workgroup's threads one read each; `transposed` when the slice is
  /// stored k-major (A, and an [n, k] B).
  struct SliceCopy {
    const Surface *s;
    int64_t rows, cols, width;
    bool transposed, maskRow, maskCol;
    Value row0, col0, slm;
    int64_t slmPitch, slmSlice;
  };
  SliceCopy getSliceCopy(const Surface &s, int64_t rows, int64_t cols,
                         bool transposed, Value row0, Value col0, bool maskRow,
                         bool maskCol, Value slm, int64_t slmPitch,
                         int64_t slmSlice);
  /// The reads of one K-slice (registers), then their stores into buffer
  /// `buf`: split so that the next slice's reads are in flight while the
  /// current one is computed.
  SmallVector<Value> fetchSlice(const SliceCopy &c, Value batch);
  void stashSlice(const SliceCopy &c, ValueRange values, Value buf);
  /// computeSlice for vector layouts: `vector`-wide shared-memory reads.
  SmallVector<Value> computeVectorSlice(Value buf, ValueRange acc);
  /// The K loop of accumulate for vector layouts: `steps` slices from
  /// `init`, slice s starting at `k0Of(s)` and moved by `copies`.
  SmallVector<Value>
  accumulateVector(Value batch, ValueRange init, Value steps,
                   function_ref<Value(Value)> k0Of,
                   function_ref<SmallVector<SliceCopy>(Value)> copies);
};

Value TileBuilder::loadMasked(const Surface &s, Value row, Value col,
                              Value batch, bool maskRow, bool maskCol) {
  auto load = [&](OpBuilder &nested, Location nestedLoc) -> Value {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
    Value offset = add(mul(row, cInt(s.pitch)), col);
    if (s.batchStride)
      offset = add(mul(batch, cInt(s.batchStride)), offset);
    return memref::LoadOp::create(b, nestedLoc, s.flat, toIndex(offset));
  };
  Value ok = inBounds(row, col, s.rows, s.cols, maskRow, maskCol);
  return loadOrZero(ok, operandType, load);
}

Value TileBuilder::loadOrZero(Value ok, Type type,
                              function_ref<Value(OpBuilder &, Location)> load) {
  if (!ok)
    return load(b, loc);
  Value zero = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  auto ifOp = scf::IfOp::create(
      b, loc, ok,
      [&](OpBuilder &nested, Location nestedLoc) {
        scf::YieldOp::create(nested, nestedLoc, load(nested, nestedLoc));
      },
      [&](OpBuilder &nested, Location nestedLoc) {
        scf::YieldOp::create(nested, nestedLoc, zero);
      });
  return ifOp.getResult(0);
}

void TileBuilder::loadSlice(const Surface &a, const Surface &bs, bool nk,
                            Value batch, Value m0, Value n0, Value k0,
                            Value buf, bool maskM, bool maskN, bool maskK) {
  // Consecutive threads copy consecutive elements of the contiguous
  // dimension of each operand, so global reads are coalesced.
  auto copy = [&](int64_t rows, int64_t cols,
                  function_ref<void(Value, Value)> body) {
    int64_t elems = rows * cols;
    int64_t rounds = llvm::divideCeil(elems, l.threads());
    for (int64_t r = 0; r < rounds; ++r) {
      Value e = add(k.tid, cIdx(r * l.threads()));
      auto emit = [&] { body(div(e, cIdx(cols)), rem(e, cIdx(cols))); };
      if ((r + 1) * l.threads() <= elems) {
        emit();
        continue;
      }
      buildIf(ult(e, cIdx(elems)), emit);
    }
  };
  Value aSliceBase = mul(buf, cIdx(l.tm * l.tk));
  Value bSliceBase = mul(buf, cIdx(l.tk * l.tn));
  // A[m0 + row, k0 + kk] -> aSlm[row][kk].
  copy(l.tm, l.tk, [&](Value row, Value kk) {
    Value v = loadMasked(a, add(m0, toInt(row)), add(k0, toInt(kk)), batch,
                         maskM, maskK);
    Value slm = add(aSliceBase, add(mul(row, cIdx(l.tk)), kk));
    memref::StoreOp::create(b, loc, v, k.aSlm, slm);
  });
  if (!nk) {
    // B[k0 + kk, n0 + col] -> bSlm[kk][col].
    copy(l.tk, l.tn, [&](Value kk, Value col) {
      Value v = loadMasked(bs, add(k0, toInt(kk)), add(n0, toInt(col)), batch,
                           maskK, maskN);
      Value slm = add(bSliceBase, add(mul(kk, cIdx(l.tn)), col));
      memref::StoreOp::create(b, loc, v, k.bSlm, slm);
    });
    return;
  }
  // B[n0 + col, k0 + kk] -> bSlm[kk][col] (transposed on the way in).
  copy(l.tn, l.tk, [&](Value col, Value kk) {
    Value v = loadMasked(bs, add(n0, toInt(col)), add(k0, toInt(kk)), batch,
                         maskN, maskK);
    Value slm = add(bSliceBase, add(mul(kk, cIdx(l.tn)), col));
    memref::StoreOp::create(b, loc, v, k.bSlm, slm);
  });
}

SmallVector<Value> TileBuilder::computeSlice(Value buf, ValueRange acc) {
  Value aSliceBase = mul(buf, cIdx(l.tm * l.tk));
  Value bSliceBase = mul(buf, cIdx(l.tk * l.tn));
  scf::ForOp loop =
      buildLoop(cIdx(0), cIdx(l.tk), acc, [&](Value kk, ValueRange iter) {
        auto extend = [&](Value v) -> Value {
          if (v.getType() == accType)
            return v;
          return arith::ExtFOp::create(b, loc, accType, v);
        };
        SmallVector<Value> as, bv;
        for (int64_t i = 0; i < l.rm; ++i) {
          Value row = add(k.rowBase, cIdx(i));
          as.push_back(extend(memref::LoadOp::create(
              b, loc, k.aSlm,
              ValueRange{add(aSliceBase, add(mul(row, cIdx(l.tk)), kk))})));
        }
        for (int64_t j = 0; j < l.rn; ++j) {
          Value col = add(k.colBase, cIdx(j * l.lanesN));
          bv.push_back(extend(memref::LoadOp::create(
              b, loc, k.bSlm,
              ValueRange{add(bSliceBase, add(mul(kk, cIdx(l.tn)), col))})));
        }
        SmallVector<Value> next;
        for (int64_t i = 0; i < l.rm; ++i)
          for (int64_t j = 0; j < l.rn; ++j)
            next.push_back(
                math::FmaOp::create(b, loc, as[i], bv[j], iter[i * l.rn + j]));
        scf::YieldOp::create(b, loc, next);
      });
  return SmallVector<Value>(loop.getResults());
}

SmallVector<Value> TileBuilder::accumulate(GemmTileOp op, const Surface &a,
                                           const Surface &bs, Value batch,
                                           Value m0, Value n0, Value k0,
                                           Value k1) {
  bool nk = op.getRhsLayout() == RhsLayout::nk;
  bool maskM = needsMask(op.getM(), l.tm), maskN = needsMask(op.getN(), l.tn);
  bool maskK = needsMask(op.getK(), l.tk);
  Value zeroAcc =
      arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
  SmallVector<Value> init(l.rm * l.rn, zeroAcc);
  // K-steps of the range: ceil((k1 - k0) / tk), at least one (the schedule
  // never makes an empty range).
  Value steps = toIndex(div(add(sub(k1, k0), cInt(l.tk - 1)), cInt(l.tk)));
  auto k0Of = [&](Value step) { return add(k0, mul(toInt(step), cInt(l.tk))); };
  if (l.isVector()) {
    // A [m, k] slice, k-major in shared memory; B [k, n] row-major, or
    // [n, k] transposed.
    auto copies = [&](Value kStart) {
      SmallVector<SliceCopy> c;
      c.push_back(getSliceCopy(a, l.tm, l.tk, /*transposed=*/true, m0, kStart,
                               maskM, maskK, k.aSlm, l.aSlmPitch(),
                               l.aSliceElems()));
      if (nk)
        c.push_back(getSliceCopy(bs, l.tn, l.tk, /*transposed=*/true, n0,
                                 kStart, maskN, maskK, k.bSlm, l.bSlmPitch(),
                                 l.bSliceElems()));
      else
        c.push_back(getSliceCopy(bs, l.tk, l.tn, /*transposed=*/false, kStart,
                                 n0, maskK, maskN, k.bSlm, l.bSlmPitch(),
                                 l.bSliceElems()));
      return c;
    };
    return accumulateVector(batch, init, steps, k0Of, copies);
  }
  auto slice = [&](Value kStart, Value buf) {
    loadSlice(a, bs, nk, batch, m0, n0, kStart, buf, maskM, maskN, maskK);
  };

  scf::ForOp kLoop;
  if (l.buffers == 1) {
    // Load, barrier, compute, barrier.
    kLoop = buildLoop(cIdx(0), steps, init, [&](Value step, ValueRange acc) {
      Value buf = cIdx(0);
      slice(k0Of(step), buf);
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> next = computeSlice(buf, acc);
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, next);
    });
  } else {
    // Double buffering: slice s+1 is copied into the other buffer before
    // slice s is consumed; the barrier that ends step s-1 separates the
    // reads of that buffer from these writes.
    slice(k0, cIdx(0));
    gpu::BarrierOp::create(b, loc);
    kLoop = buildLoop(cIdx(0), steps, init, [&](Value step, ValueRange acc) {
      Value nextStep = add(step, cIdx(1));
      buildIf(ult(nextStep, steps),
              [&] { slice(k0Of(nextStep), rem(nextStep, cIdx(2))); });
      SmallVector<Value> next = computeSlice(rem(step, cIdx(2)), acc);
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, next);
    });
  }
  return SmallVector<Value>(kLoop.getResults());
}

TileBuilder::SliceCopy TileBuilder::getSliceCopy(const Surface &s, int64_t rows,
                                                 int64_t cols, bool transposed,
                                                 Value row0, Value col0,
                                                 bool maskRow, bool maskCol,
                                                 Value slm, int64_t slmPitch,
                                                 int64_t slmSlice) {
  SliceCopy c{&s,      rows, cols, 1,   transposed, maskRow,
              maskCol, row0, col0, slm, slmPitch,   slmSlice};
  // Whole `vector`-wide reads: every read starts at a multiple of the width
  // in the contiguous dimension and the rows (and batch slabs) keep that
  // alignment; a read is then wholly inside or outside the logical columns
  // when their count is a multiple of the width too.
  int64_t w = l.vector;
  if (cols % w == 0 && s.pitch % w == 0 && s.batchStride % w == 0 &&
      s.cols % w == 0)
    c.width = w;
  return c;
}

SmallVector<Value> TileBuilder::fetchSlice(const SliceCopy &c, Value batch) {
  int64_t perRow = c.cols / c.width;
  int64_t reads = c.rows * perRow;
  int64_t rounds = llvm::divideCeil(reads, l.threads());
  Type eltType = operandType;
  Type valueType = c.width == 1 ? eltType : VectorType::get({c.width}, eltType);
  SmallVector<Value> values;
  for (int64_t r = 0; r < rounds; ++r) {
    Value e = add(k.tid, cIdx(r * l.threads()));
    // The last round's extra threads read element 0 of the slice, which the
    // stash then skips (reads of one slice never fault: masked below).
    bool partial = (r + 1) * l.threads() > reads;
    Value valid = partial ? ult(e, cIdx(reads)) : Value();
    if (partial)
      e = arith::SelectOp::create(b, loc, valid, e, cIdx(0));
    Value row = add(c.row0, toInt(div(e, cIdx(perRow))));
    Value col = add(c.col0, toInt(mul(rem(e, cIdx(perRow)), cIdx(c.width))));
    Value ok = inBounds(row, col, c.s->rows, c.s->cols, c.maskRow, c.maskCol);
    auto load = [&](OpBuilder &nested, Location nestedLoc) -> Value {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(nested.getInsertionBlock(),
                          nested.getInsertionPoint());
      Value offset = add(mul(row, cInt(c.s->pitch)), col);
      if (c.s->batchStride)
        offset = add(mul(batch, cInt(c.s->batchStride)), offset);
      if (c.width == 1)
        return memref::LoadOp::create(b, nestedLoc, c.s->flat, toIndex(offset));
      return vector::LoadOp::create(
          b, nestedLoc, cast<VectorType>(valueType), c.s->flat,
          ValueRange{toIndex(offset)}, /*nontemporal=*/false,
          llvm::MaybeAlign(c.width * getElementBytes(eltType)));
    };
    values.push_back(loadOrZero(ok, valueType, load));
  }
  return values;
}

void TileBuilder::stashSlice(const SliceCopy &c, ValueRange values, Value buf) {
  int64_t perRow = c.cols / c.width;
  int64_t reads = c.rows * perRow;
  Value base = mul(buf, cIdx(c.slmSlice));
  for (auto [r, value] : llvm::enumerate(values)) {
    int64_t first = static_cast<int64_t>(r) * l.threads();
    Value e = add(k.tid, cIdx(first));
    auto store = [&] {
      Value row = div(e, cIdx(perRow));
      Value col = mul(rem(e, cIdx(perRow)), cIdx(c.width));
      if (!c.transposed) {
        // Row-major in shared memory, as in global memory: one store.
        Value at = add(base, add(mul(row, cIdx(c.slmPitch)), col));
        if (c.width == 1)
          memref::StoreOp::create(b, loc, value, c.slm, at);
        else
          vector::StoreOp::create(
              b, loc, value, c.slm, at, /*nontemporal=*/false,
              llvm::MaybeAlign(c.width * getElementBytes(operandType)));
        return;
      }
      // k-major: the global row is the shared-memory column.
      for (int64_t i = 0; i < c.width; ++i) {
        Value v = c.width == 1 ? value
                               : vector::ExtractOp::create(
                                     b, loc, value, ArrayRef<int64_t>{i});
        Value at =
            add(base, add(mul(add(col, cIdx(i)), cIdx(c.slmPitch)), row));
        memref::StoreOp::create(b, loc, v, c.slm, at);
      }
    };
    if (first + l.threads() <= reads)
      store();
    else
      buildIf(ult(e, cIdx(reads)), store);
  }
}

SmallVector<Value> TileBuilder::computeVectorSlice(Value buf, ValueRange acc) {
  Value aSliceBase = mul(buf, cIdx(l.aSliceElems()));
  Value bSliceBase = mul(buf, cIdx(l.bSliceElems()));
  int64_t bytes = l.vector * getElementBytes(operandType);
  auto vecType = VectorType::get({l.vector}, operandType);
  // Straight-line code over the slice's K values (tile_k is at most a few
  // dozen): tile_k * rm * rn FMAs and no loop arithmetic between them.
  SmallVector<Value> iter(acc);
  for (int64_t kIdx = 0; kIdx < l.tk; ++kIdx) {
    Value kk = cIdx(kIdx);
    auto extend = [&](Value v) -> Value {
      if (v.getType() == accType)
        return v;
      return arith::ExtFOp::create(b, loc, accType, v);
    };
    // Runs of `vector` rows (columns), each one shared-memory read.
    auto readRuns = [&](Value slm, Value sliceBase, int64_t pitch, Value first,
                        int64_t count, int64_t runStride) {
      SmallVector<Value> out;
      Value rowStart = add(sliceBase, mul(kk, cIdx(pitch)));
      for (int64_t g = 0; g < count / l.vector; ++g) {
        Value at = add(rowStart, add(first, cIdx(g * runStride)));
        Value run = vector::LoadOp::create(b, loc, vecType, slm, at,
                                           /*nontemporal=*/false,
                                           llvm::MaybeAlign(bytes));
        for (int64_t e = 0; e < l.vector; ++e)
          out.push_back(extend(
              vector::ExtractOp::create(b, loc, run, ArrayRef<int64_t>{e})));
      }
      return out;
    };
    SmallVector<Value> as = readRuns(k.aSlm, aSliceBase, l.aSlmPitch(),
                                     k.rowBase, l.rm, l.lanesM * l.vm);
    SmallVector<Value> bv = readRuns(k.bSlm, bSliceBase, l.bSlmPitch(),
                                     k.colBase, l.rn, l.lanesN * l.vn);
    for (int64_t i = 0; i < l.rm; ++i)
      for (int64_t j = 0; j < l.rn; ++j)
        iter[i * l.rn + j] =
            math::FmaOp::create(b, loc, as[i], bv[j], iter[i * l.rn + j]);
  }
  return iter;
}

SmallVector<Value> TileBuilder::accumulateVector(
    Value batch, ValueRange init, Value steps, function_ref<Value(Value)> k0Of,
    function_ref<SmallVector<SliceCopy>(Value)> copies) {
  auto fetch = [&](ArrayRef<SliceCopy> cs) {
    SmallVector<SmallVector<Value>> values;
    for (const SliceCopy &c : cs)
      values.push_back(fetchSlice(c, batch));
    return values;
  };
  auto stash = [&](ArrayRef<SliceCopy> cs, ArrayRef<SmallVector<Value>> values,
                   Value buf) {
    for (auto [c, v] : llvm::zip(cs, values))
      stashSlice(c, v, buf);
  };

  scf::ForOp kLoop;
  if (l.buffers == 1) {
    kLoop = buildLoop(cIdx(0), steps, init, [&](Value step, ValueRange acc) {
      SmallVector<SliceCopy> cs = copies(k0Of(step));
      stash(cs, fetch(cs), cIdx(0));
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> next = computeVectorSlice(cIdx(0), acc);
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, next);
    });
    return SmallVector<Value>(kLoop.getResults());
  }
  // Double buffering through registers: step s reads slice s + 1 from
  // global memory, computes slice s from its buffer, then stores slice
  // s + 1 into the other buffer, which every thread finished reading
  // before the barrier that ended step s - 1. The last step reads its own
  // slice again rather than branch (its stores go to the idle buffer).
  SmallVector<SliceCopy> first = copies(k0Of(cIdx(0)));
  stash(first, fetch(first), cIdx(0));
  gpu::BarrierOp::create(b, loc);
  Value lastStep = sub(steps, cIdx(1));
  kLoop = buildLoop(cIdx(0), steps, init, [&](Value step, ValueRange acc) {
    Value nextStep =
        arith::MinUIOp::create(b, loc, add(step, cIdx(1)), lastStep);
    SmallVector<SliceCopy> cs = copies(k0Of(nextStep));
    SmallVector<SmallVector<Value>> next = fetch(cs);
    SmallVector<Value> result = computeVectorSlice(rem(step, cIdx(2)), acc);
    stash(cs, next, rem(add(step, cIdx(1)), cIdx(2)));
    gpu::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, result);
  });
  return SmallVector<Value>(kLoop.getResults());
}

void TileBuilder::storeOutput(Block &epilogue, ArrayRef<Surface> operands,
                              ArrayRef<BroadcastKind> kinds, const Surface &c,
                              Value batch, Value m0, Value n0, ValueRange acc) {
  bool maskM = needsMask(c.rows, l.tm), maskN = needsMask(c.cols, l.tn);
  // Scalars are read once per thread; rows and columns once per element.
  SmallVector<Value> scalars(operands.size());
  for (auto [i, s] : llvm::enumerate(operands)) {
    if (kinds[i] != BroadcastKind::scalar)
      continue;
    auto type = cast<MemRefType>(s.flat.getType());
    scalars[i] = type.getRank() == 0
                     ? memref::LoadOp::create(b, loc, s.flat, ValueRange{})
                     : memref::LoadOp::create(b, loc, s.flat, cIdx(0));
  }
  for (int64_t i = 0; i < l.rm; ++i) {
    Value row = rowOf(m0, i);
    for (int64_t j = 0; j < l.rn; ++j) {
      Value col = colOf(n0, j);
      buildIf(inBounds(row, col, c.rows, c.cols, maskM, maskN), [&] {
        Value offset = add(mul(row, cInt(c.pitch)), col);
        if (c.batchStride)
          offset = add(mul(batch, cInt(c.batchStride)), offset);
        SmallVector<Value> values;
        for (auto [e, s] : llvm::enumerate(operands)) {
          Value index;
          switch (kinds[e]) {
          case BroadcastKind::scalar:
            values.push_back(scalars[e]);
            continue;
          case BroadcastKind::per_row:
            // [m], or column 0 of an [m, pitch] panel.
            index = mul(row, cInt(s.pitch));
            break;
          case BroadcastKind::per_col:
            // [n], or row 0 of a panel.
            index = col;
            break;
          case BroadcastKind::full:
            index = add(mul(row, cInt(s.pitch)), col);
            if (s.batchStride)
              index = add(mul(batch, cInt(s.batchStride)), index);
            break;
          }
          values.push_back(
              memref::LoadOp::create(b, loc, s.flat, toIndex(index)));
        }
        Value v = cloneEpilogue(b, epilogue, acc[i * l.rn + j], values);
        memref::StoreOp::create(b, loc, v, c.flat, toIndex(offset));
      });
    }
  }
}

/// The SIMT tile emitter of one kernel.
class SimtTileEmitter final : public GemmTileEmitter {
public:
  SimtTileEmitter(const SimtLayout &l, Type operandType, bool floatAtomics)
      : l(l), operandType(operandType), floatAtomics(floatAtomics) {}

  LogicalResult beginKernel(OpBuilder &b, Location loc) override;
  LogicalResult emitTile(RewriterBase &rewriter, GemmTileOp op) override;
  LogicalResult emitFixup(RewriterBase &rewriter, GemmFixupOp op) override;

  /// What the kernel's tiles did, for the remark: the widest offset type
  /// and the dimensions masked somewhere.
  unsigned offsetBits = 32;
  bool maskedM = false, maskedN = false, maskedK = false;

private:
  /// The surface of `memref` (read by `user`) holding `rows x cols` (per
  /// batch when `perBatch`).
  Surface surface(RewriterBase &rewriter, Operation *user, Value memref,
                  int64_t rows, int64_t cols, bool perBatch);
  /// Surfaces of the epilogue operands of a tile or fix-up.
  SmallVector<Surface> epilogueSurfaces(RewriterBase &rewriter, Operation *user,
                                        ValueRange operands,
                                        ArrayRef<BroadcastKind> kinds,
                                        int64_t m, int64_t n, bool batched);
  /// i64 when an element index of one of `buffers` (rows padded to whole
  /// tiles) can pass 2^31, else i32.
  IntegerType getOffsetType(OpBuilder &b, ArrayRef<Surface> buffers,
                            int64_t batch, int64_t workspaceElems);

  const SimtLayout &l;
  FlatBuffers flat;
  Type operandType;
  bool floatAtomics;
  KernelValues k;
};

LogicalResult SimtTileEmitter::beginKernel(OpBuilder &b, Location loc) {
  auto cIdx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto div = [&](Value x, Value y) -> Value {
    return arith::DivUIOp::create(b, loc, x, y);
  };
  auto rem = [&](Value x, Value y) -> Value {
    return arith::RemUIOp::create(b, loc, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulIOp::create(b, loc, x, y);
  };
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddIOp::create(b, loc, x, y);
  };
  // This thread's micro-tile inside the workgroup tile.
  k.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  Value lane = rem(k.tid, cIdx(l.lanes));
  Value sg = div(k.tid, cIdx(l.lanes));
  Value sgRow = div(sg, cIdx(l.sgCols)), sgCol = rem(sg, cIdx(l.sgCols));
  k.rowBase = add(mul(sgRow, cIdx(l.tm / l.sgRows)),
                  mul(div(lane, cIdx(l.lanesN)), cIdx(l.vm)));
  k.colBase = add(mul(sgCol, cIdx(l.tn / l.sgCols)),
                  mul(rem(lane, cIdx(l.lanesN)), cIdx(l.vn)));
  if (!operandType)
    return success();
  // Shared local memory: `buffers` slices of A and of B. Numeric address
  // space 3: the OpenCL workgroup space, which both convert-gpu-to-spirv's
  // OpenCL storage-class mapping and the NVVM lowering understand
  // (#gpu.address_space<workgroup> fails the former).
  Attribute workgroup = b.getI64IntegerAttr(3);
  // Vector layouts read whole runs: the slices start 16-byte aligned.
  IntegerAttr align = l.isVector() ? b.getI64IntegerAttr(16) : IntegerAttr();
  k.aSlm = memref::AllocOp::create(
      b, loc,
      MemRefType::get({l.buffers * l.aSliceElems()}, operandType,
                      MemRefLayoutAttrInterface(), workgroup),
      align);
  k.bSlm = memref::AllocOp::create(
      b, loc,
      MemRefType::get({l.buffers * l.bSliceElems()}, operandType,
                      MemRefLayoutAttrInterface(), workgroup),
      align);
  return success();
}

Surface SimtTileEmitter::surface(RewriterBase &rewriter, Operation *user,
                                 Value memref, int64_t rows, int64_t cols,
                                 bool perBatch) {
  auto type = cast<MemRefType>(memref.getType());
  Surface s;
  s.flat = flat.get(rewriter, memref, user);
  s.rows = rows;
  s.cols = cols;
  s.pitch = type.getRank() == 0 ? 1 : type.getShape().back();
  // A batch slab may have more rows than the logical ones (padded so that
  // each batch starts aligned: GemmTileOp).
  s.batchStride = perBatch ? type.getDimSize(type.getRank() - 2) * s.pitch : 0;
  return s;
}

SmallVector<Surface> SimtTileEmitter::epilogueSurfaces(
    RewriterBase &rewriter, Operation *user, ValueRange operands,
    ArrayRef<BroadcastKind> kinds, int64_t m, int64_t n, bool batched) {
  SmallVector<Surface> result;
  for (auto [v, kind] : llvm::zip(operands, kinds)) {
    if (kind == BroadcastKind::full) {
      result.push_back(surface(rewriter, user, v, m, n, batched));
      continue;
    }
    // Vectors and scalars (pitch 1), or panels: row 0 of a per_col panel,
    // column 0 of a per_row one.
    auto type = cast<MemRefType>(v.getType());
    Surface s =
        surface(rewriter, user, v, type.getRank() == 2 ? m : 1, n, false);
    if (type.getRank() < 2)
      s.pitch = 1;
    result.push_back(s);
  }
  return result;
}

IntegerType SimtTileEmitter::getOffsetType(OpBuilder &b,
                                           ArrayRef<Surface> buffers,
                                           int64_t batch,
                                           int64_t workspaceElems) {
  int64_t widest = workspaceElems;
  for (const Surface &s : buffers) {
    // Rows known at run time only: any number of them.
    if (ShapedType::isDynamic(s.rows))
      return b.getI64Type();
    int64_t rows = llvm::alignTo(s.rows, std::max(l.tm, l.tk));
    int64_t pitch = llvm::alignTo(s.pitch, std::max(l.tn, l.tk));
    widest = std::max(
        widest, s.batchStride ? batch * std::max(s.batchStride, rows * pitch)
                              : rows * pitch);
  }
  return b.getIntegerType(widest > std::numeric_limits<int32_t>::max() ? 64
                                                                       : 32);
}

static SmallVector<BroadcastKind> getKinds(ArrayAttr broadcasts) {
  return llvm::map_to_vector(broadcasts, [](Attribute a) {
    return cast<BroadcastKindAttr>(a).getValue();
  });
}

LogicalResult SimtTileEmitter::emitTile(RewriterBase &rewriter, GemmTileOp op) {
  Location loc = op.getLoc();
  bool batched = op.isBatched(), nk = op.getRhsLayout() == RhsLayout::nk;
  int64_t m = op.getM(), n = op.getN(), kk = op.getK();
  SmallVector<Surface> surfaces = {
      surface(rewriter, op, op.getLhs(), m, kk, batched),
      surface(rewriter, op, op.getRhs(), nk ? n : kk, nk ? kk : n, batched)};
  bool output = op.getResult() == TileResult::output;
  Surface dest = output ? surface(rewriter, op, op.getDest(), m, n, batched)
                        : surface(rewriter, op, op.getDest(), 1, 1, false);
  SmallVector<BroadcastKind> kinds = getKinds(op.getBroadcasts());
  SmallVector<Surface> epilogue = epilogueSurfaces(
      rewriter, op, op.getEpilogueOperands(), kinds, m, n, batched);
  if (output)
    surfaces.push_back(dest);
  llvm::append_range(surfaces, epilogue);
  int64_t wsElems =
      output ? 0 : cast<MemRefType>(op.getDest().getType()).getNumElements();
  if (op.getResult() == TileResult::atomic_add && !floatAtomics)
    return op.emitError()
           << kPassArg
           << ": the atomic Stream-K fix-up needs float atomic adds, which "
              "this target's kernels cannot use (OpenCL SPIR-V has none); "
              "use fixup=deterministic";

  TileBuilder tb(rewriter, loc, l, k,
                 getOffsetType(rewriter, surfaces, op.getBatchSize(), wsElems));
  offsetBits = std::max(offsetBits, tb.it.getWidth());
  maskedM |= TileBuilder::needsMask(m, l.tm);
  maskedN |= TileBuilder::needsMask(n, l.tn);
  maskedK |= TileBuilder::needsMask(kk, l.tk);
  if (op.hasDynamicM())
    tb.dynamicRows = tb.toInt(op.getRows());
  tb.operandType = op.getLhsType().getElementType();
  tb.accType = op.getAccType();
  Value batch = tb.toInt(op.getBatch());
  Value m0 = tb.toInt(op.getM0()), n0 = tb.toInt(op.getN0());
  Value k0 = tb.toInt(op.getKBegin()), k1 = tb.toInt(op.getKEnd());
  SmallVector<Value> acc =
      tb.accumulate(op, surfaces[0], surfaces[1], batch, m0, n0, k0, k1);

  switch (op.getResult()) {
  case TileResult::output:
    tb.storeOutput(op.getEpilogueBlock(), epilogue, kinds, dest, batch, m0, n0,
                   acc);
    break;
  case TileResult::partial: {
    // Every element of the slot, inside and outside m x n: the fix-up reads
    // whole slots.
    Value base = tb.mul(tb.toInt(op.getSlot()), tb.cInt(l.tm * l.tn));
    for (int64_t i = 0; i < l.rm; ++i)
      for (int64_t j = 0; j < l.rn; ++j)
        memref::StoreOp::create(rewriter, loc, acc[i * l.rn + j], dest.flat,
                                tb.toIndex(tb.add(base, tb.slotOffset(i, j))));
    break;
  }
  case TileResult::atomic_add: {
    // streamk_atomic_add_needs_mask: only elements inside m x n.
    Value base = tb.mul(tb.toInt(op.getSlot()), tb.cInt(l.tm * l.tn));
    for (int64_t i = 0; i < l.rm; ++i) {
      Value row = tb.rowOf(m0, i);
      for (int64_t j = 0; j < l.rn; ++j) {
        Value col = tb.colOf(n0, j);
        tb.buildIf(tb.inBounds(row, col, m, n, true, true), [&] {
          memref::AtomicRMWOp::create(
              rewriter, loc, arith::AtomicRMWKind::addf, acc[i * l.rn + j],
              dest.flat,
              ValueRange{tb.toIndex(tb.add(base, tb.slotOffset(i, j)))});
        });
      }
    }
    break;
  }
  }
  rewriter.eraseOp(op);
  return success();
}

LogicalResult SimtTileEmitter::emitFixup(RewriterBase &rewriter,
                                         GemmFixupOp op) {
  Location loc = op.getLoc();
  bool batched = op.getDestType().getRank() == 3;
  int64_t m = op.getM(), n = op.getN();
  Surface ws = surface(rewriter, op, op.getWorkspace(), 1, 1, false);
  Surface dest = surface(rewriter, op, op.getDest(), m, n, batched);
  SmallVector<BroadcastKind> kinds = getKinds(op.getBroadcasts());
  SmallVector<Surface> epilogue = epilogueSurfaces(
      rewriter, op, op.getEpilogueOperands(), kinds, m, n, batched);
  SmallVector<Surface> surfaces = {dest};
  llvm::append_range(surfaces, epilogue);
  int64_t wsElems =
      cast<MemRefType>(op.getWorkspace().getType()).getNumElements();
  TileBuilder tb(rewriter, loc, l, k,
                 getOffsetType(rewriter, surfaces, op.getBatchSize(), wsElems));
  offsetBits = std::max(offsetBits, tb.it.getWidth());
  maskedM |= m % l.tm != 0;
  maskedN |= n % l.tn != 0;
  tb.accType = op.getAccType();
  Value batch = tb.toInt(op.getBatch());
  Value m0 = tb.toInt(op.getM0()), n0 = tb.toInt(op.getN0());
  Value first = tb.toInt(op.getFirstSlot());
  auto loadSlot = [&](Value slot, int64_t i, int64_t j) -> Value {
    Value base = tb.mul(slot, tb.cInt(l.tm * l.tn));
    return memref::LoadOp::create(
        rewriter, loc, ws.flat, tb.toIndex(tb.add(base, tb.slotOffset(i, j))));
  };
  // The first slot, then the others in slot order: a fixed summation order.
  SmallVector<Value> init;
  for (int64_t i = 0; i < l.rm; ++i)
    for (int64_t j = 0; j < l.rn; ++j)
      init.push_back(loadSlot(first, i, j));
  scf::ForOp loop = tb.buildLoop(
      tb.cIdx(1), op.getNumSlots(), init, [&](Value s, ValueRange acc) {
        Value slot = tb.add(first, tb.toInt(s));
        SmallVector<Value> next;
        for (int64_t i = 0; i < l.rm; ++i)
          for (int64_t j = 0; j < l.rn; ++j)
            next.push_back(arith::AddFOp::create(
                rewriter, loc, acc[i * l.rn + j], loadSlot(slot, i, j)));
        scf::YieldOp::create(rewriter, loc, next);
      });
  tb.storeOutput(op.getEpilogueBlock(), epilogue, kinds, dest, batch, m0, n0,
                 loop.getResults());
  rewriter.eraseOp(op);
  return success();
}

struct ConvertXPUToGPUPass final
    : xpu::impl::XPUConvertXPUToGPUPassBase<ConvertXPUToGPUPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerGPUBarrierMemoryEffectsModel(registry);
    // For the earlier passes of a pipeline run without registerXPUDialect
    // (a pass plugin alone): xpu-materialize-layouts, xpu-schedule-gemm.
    registerSimtGemmBackend(registry);
  }

  void runOnOperation() override {
    WalkResult unscheduled =
        getOperation()->walk(
            [&](GemmOp gemm) {
              gemm.emitError()
                  << kPassArg
                  << ": xpu.gemm is not scheduled; run xpu-select-strategy "
                     "and xpu-schedule-gemm first";
              return WalkResult::interrupt();
            });
    if (unscheduled.wasInterrupted())
      return signalPassFailure();
    TargetAttr target = resolveTarget(getOperation());
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp programs : collectGemmPrograms(getOperation()))
      if (failed(convert(rewriter, programs, target)))
        return signalPassFailure();
  }

  LogicalResult convert(RewriterBase &rewriter, scf::ForallOp programs,
                        TargetAttr target);
};

LogicalResult ConvertXPUToGPUPass::convert(RewriterBase &rewriter,
                                           scf::ForallOp programs,
                                           TargetAttr target) {
  FailureOr<ConfigAttr> config = getProgramsConfig(programs);
  if (failed(config))
    return failure();
  Type operandType;
  bool bf16 = false;
  GemmTileOp firstTile;
  int tiles = 0, fixups = 0;
  programs.getBody()->walk([&](Operation *op) {
    if (auto tile = dyn_cast<GemmTileOp>(op)) {
      firstTile = firstTile ? firstTile : tile;
      operandType = tile.getLhsType().getElementType();
      bf16 |=
          operandType.isBF16() || tile.getDestType().getElementType().isBF16();
      ++tiles;
    } else if (auto fixup = dyn_cast<GemmFixupOp>(op)) {
      bf16 |= fixup.getDestType().getElementType().isBF16();
      ++fixups;
    }
  });
  Location loc = programs.getLoc();
  if (!allowBF16 && bf16)
    return emitError(loc)
           << kPassArg
           << ": bf16 operands, but the kernels of this target cannot use "
              "bf16 (OpenCL SPIR-V has no bf16 type); use precision f16 or "
              "f32 here, or xpu-xe-pipeline for DPAS on Intel GPUs";
  if (Attribute knobs = config->getBackend();
      knobs && !isa<SimtConfigAttr>(knobs)) {
    auto backend = dyn_cast<GemmBackendAttrInterface>(knobs);
    return emitError(loc) << kPassArg << ": the config " << *config
                          << " is for the "
                          << (backend ? backend.getBackendName() : "unknown")
                          << " backend, not the SIMT kernels";
  }
  std::string why;
  FailureOr<SimtLayout> layout =
      getSimtLayout(target, *config, target.getSubgroupSizes().front(), why);
  if (failed(layout))
    return emitError(loc) << kPassArg << ": cannot generate a kernel for "
                          << *config << ": " << why;
  const SimtLayout &l = *layout;
  int64_t count = getProgramCount(programs);

  SimtTileEmitter emitter(l, operandType, floatAtomics);
  FailureOr<gpu::LaunchOp> launch =
      lowerProgramsToLaunch(rewriter, programs, l.threads(), emitter);
  if (failed(launch))
    return failure();

  std::string what = tiles ? llvm::formatv("{0} tile op(s)", tiles).str()
                           : llvm::formatv("{0} fix-up op(s)", fixups).str();
  std::string masks;
  for (auto [on, name] : {std::pair{emitter.maskedM, "m"},
                          {emitter.maskedN, "n"},
                          {emitter.maskedK, "k"}})
    if (on)
      masks += masks.empty() ? name : std::string(", ") + name;
  remark::passed(loc, remarkOpts(kPassArg, "Kernel")) << remark::reason(
      "{0} workgroups of {1} threads ({2}x{3} subgroups of {4} lanes), {5}; "
      "{6}x{7} accumulators per thread{11}; {8}; masks on {9}; offsets in "
      "i{10}",
      ShapedType::isDynamic(count) ? std::string("(counted at run time)")
                                   : std::to_string(count),
      l.threads(), l.sgRows, l.sgCols, l.lanes, what, l.rm, l.rn,
      tiles ? llvm::formatv("{0} SLM buffer(s) of {1}x{2} + {2}x{3}", l.buffers,
                            l.tm, l.tk, l.tn)
                  .str()
            : std::string("no SLM"),
      masks.empty() ? std::string("none") : masks, emitter.offsetBits,
      l.isVector()
          ? llvm::formatv(" in runs of {0} rows and {0} columns, {0}-wide "
                          "loads, A k-major in SLM",
                          l.vector)
                .str()
          : std::string());
  ++numKernels;
  return success();
}
} // namespace
