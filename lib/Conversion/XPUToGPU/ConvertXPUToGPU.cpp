//===- ConvertXPUToGPU.cpp - xpu.gemm -> tiled SIMT kernels ---------------===//
//
// Catalog: level_1_baseline_xpu (workgroup tiles, GROUP_SIZE_M swizzle),
// int64_cast_for_large_batch_offsets and no_device_to_host_scalar_sync on
// the generic SPIR-V path. Each xpu.gemm with a #xpu.config becomes one
// gpu.launch whose workgroups compute one tile[0] x tile[1] tile of C each:
//
//   * program ids are swizzled in groups of group_m tile rows;
//   * every K-step, the workgroup stages a tile[0] x tile[2] slice of A and a
//     tile[2] x tile[1] slice of B in shared local memory (two buffers, one
//     barrier per step, when the config asks for stages >= 2);
//   * every thread accumulates a register micro-tile: the subgroup layout of
//     the config splits the tile, and the lanes of a subgroup split their
//     block, along n first so that neighbouring lanes touch neighbouring
//     columns;
//   * the epilogue region is applied to each accumulator before the store;
//   * boundaries are masked only where the shape is not a multiple of the
//     tile, and offsets are computed in i64 whenever an element index of a
//     buffer can pass 2^31 (i32 otherwise).
//
// The rewrite happens on tensors: the operands go through
// bufferization.to_buffer, the result is a fresh buffer returned through
// bufferization.to_tensor, so the rest of the function bufferizes around it.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUToGPU/XPUToGPU.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
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

/// Accumulators one thread may hold: beyond this the kernel would spill on
/// every target we know (256 GRFs of 64 bytes hold 4096 f32, but the
/// operands and the epilogue need registers too).
static constexpr int64_t kMaxAccumulators = 256;

namespace {
/// How one workgroup is laid out, derived from the config and the target.
struct KernelLayout {
  int64_t tm, tn, tk;
  /// Subgroup layout and lanes per subgroup.
  int64_t sgRows, sgCols, lanes;
  /// Lanes of a subgroup along m and n.
  int64_t lanesM, lanesN;
  /// Micro-tile of one thread.
  int64_t rm, rn;
  int64_t threads() const { return sgRows * sgCols * lanes; }
  /// SLM slices (one or two buffers).
  int64_t buffers;
};

/// The problem, with the static facts that decide masks and offset widths.
struct GemmShape {
  int64_t batch, m, n, k;
  bool batched, nk;
  bool maskM, maskN, maskK;
  int64_t tilesM, tilesN, kSteps;
};

FailureOr<KernelLayout> getKernelLayout(GemmOp gemm, ConfigAttr config,
                                        TargetAttr target) {
  KernelLayout l;
  ArrayRef<int64_t> tile = config.getTile();
  ArrayRef<int64_t> sg = config.getSubgroups();
  l.tm = tile[0];
  l.tn = tile[1];
  l.tk = tile[2];
  l.sgRows = sg[0];
  l.sgCols = sg[1];
  l.lanes = target.getSubgroupSizes().front();
  l.buffers = config.getStages() >= 2 ? 2 : 1;
  auto fail = [&](const Twine &why) -> FailureOr<KernelLayout> {
    return gemm.emitError() << kPassArg << ": cannot generate a kernel for "
                            << config << ": " << why;
  };
  if (l.tm % l.sgRows != 0 || l.tn % l.sgCols != 0)
    return fail("the subgroup layout does not divide the tile");
  int64_t blockM = l.tm / l.sgRows, blockN = l.tn / l.sgCols;
  l.lanesN = std::min(l.lanes, blockN);
  if (l.lanes % l.lanesN != 0 || blockN % l.lanesN != 0)
    return fail(llvm::formatv("{0} lanes do not split a {1}x{2} subgroup block",
                              l.lanes, blockM, blockN));
  l.lanesM = l.lanes / l.lanesN;
  if (blockM % l.lanesM != 0)
    return fail(llvm::formatv("{0} lanes do not split a {1}x{2} subgroup block",
                              l.lanes, blockM, blockN));
  l.rm = blockM / l.lanesM;
  l.rn = blockN / l.lanesN;
  if (l.rm * l.rn > kMaxAccumulators)
    return fail(llvm::formatv("{0}x{1} accumulators per thread (at most {2})",
                              l.rm, l.rn, kMaxAccumulators));
  if (l.threads() > 1024)
    return fail(
        llvm::formatv("{0} threads per workgroup (at most 1024)", l.threads()));
  return l;
}

/// Builds the kernel body inside a gpu.launch. Index arithmetic that can
/// reach a buffer element goes through `offset*` in `intType`.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, GemmOp gemm,
                const KernelLayout &layout, const GemmShape &shape,
                IntegerType intType)
      : b(b), loc(loc), gemm(gemm), l(layout), s(shape), it(intType) {}

  /// `a`, `bm`, `c` and `epilogue` are the buffers as the kernel sees them
  /// (flat, except rank-0 scalars).
  void build(gpu::LaunchOp launch, Value a, Value bm, Value c,
             ArrayRef<Value> epilogue);

private:
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
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value ult(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
  }
  Value andI(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  /// `for i in [0, count)` carrying `init`; `body` builds through `b` and
  /// ends with the scf.yield.
  scf::ForOp buildLoop(Value count, ValueRange init,
                       function_ref<void(Value, ValueRange)> body) {
    return scf::ForOp::create(
        b, loc, cIdx(0), count, cIdx(1), init,
        [&](OpBuilder &nested, Location, Value iv, ValueRange iter) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(nested.getInsertionBlock(),
                              nested.getInsertionPoint());
          body(iv, iter);
        });
  }

  /// Swizzled tile coordinates (m0, n0) of this workgroup, in `it`.
  std::pair<Value, Value> getTileOrigin(Value pid);
  /// Copies the K-slice starting at `k0` of A and B into SLM buffer `buf`.
  void loadSlice(Value k0, Value buf);
  /// One element of a global operand, zero outside [rows) x [cols).
  Value loadMasked(Value buffer, Value row, Value col, int64_t rows,
                   int64_t cols, int64_t ld, Value batchOffset, bool maskRow,
                   bool maskCol);
  /// Accumulates one K-slice from SLM buffer `buf` into `acc`.
  SmallVector<Value> computeSlice(Value buf, ValueRange acc);
  /// Applies the epilogue to `acc` and stores C.
  void storeTile(ValueRange acc);

  OpBuilder &b;
  Location loc;
  GemmOp gemm;
  const KernelLayout &l;
  const GemmShape &s;
  IntegerType it;

  // Kernel-wide values.
  Value tid, batchIdx, m0, n0;
  Value aBuf, bBuf, cBuf;
  SmallVector<Value> epilogueBufs;
  Value aSlm, bSlm;
  /// Batch offsets of A, B and C in `it`.
  Value aBatch, bBatch, cBatch;
  /// Tile-local row of the thread's first row and column of its first
  /// column (index).
  Value rowBase, colBase;
  Type operandType, accType;
};

std::pair<Value, Value> KernelBuilder::getTileOrigin(Value pid) {
  // GROUP_SIZE_M swizzle: group_m tile rows are walked column by column, so
  // that the workgroups running together share slices of A and of B.
  int64_t groupM = gemm.getConfigAttr().getGroupM();
  Value tilesM = cInt(s.tilesM);
  Value inGroup = cInt(groupM * s.tilesN);
  Value group = div(pid, inGroup);
  Value firstM = mul(group, cInt(groupM));
  Value groupSize = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, tilesM, firstM), cInt(groupM));
  Value local = rem(pid, inGroup);
  Value pidM = add(firstM, rem(local, groupSize));
  Value pidN = div(local, groupSize);
  return {mul(pidM, cInt(l.tm)), mul(pidN, cInt(l.tn))};
}

Value KernelBuilder::loadMasked(Value buffer, Value row, Value col,
                                int64_t rows, int64_t cols, int64_t ld,
                                Value batchOffset, bool maskRow, bool maskCol) {
  auto load = [&](OpBuilder &nested, Location nestedLoc) -> Value {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(nested.getInsertionBlock(), nested.getInsertionPoint());
    Value offset = add(add(batchOffset, mul(row, cInt(ld))), col);
    return memref::LoadOp::create(b, nestedLoc, buffer, toIndex(offset));
  };
  Value inBounds;
  if (maskRow)
    inBounds = ult(row, cInt(rows));
  if (maskCol) {
    Value colOk = ult(col, cInt(cols));
    inBounds = inBounds ? andI(inBounds, colOk) : colOk;
  }
  if (!inBounds)
    return load(b, loc);
  Value zero = arith::ConstantOp::create(b, loc, operandType,
                                         b.getZeroAttr(operandType));
  auto ifOp = scf::IfOp::create(
      b, loc, inBounds,
      [&](OpBuilder &nested, Location nestedLoc) {
        scf::YieldOp::create(nested, nestedLoc, load(nested, nestedLoc));
      },
      [&](OpBuilder &nested, Location nestedLoc) {
        scf::YieldOp::create(nested, nestedLoc, zero);
      });
  return ifOp.getResult(0);
}

void KernelBuilder::loadSlice(Value k0, Value buf) {
  // Consecutive threads copy consecutive elements of the contiguous
  // dimension of each operand, so global reads are coalesced.
  auto copy = [&](int64_t rows, int64_t cols,
                  function_ref<void(Value, Value)> body) {
    int64_t elems = rows * cols;
    int64_t rounds = llvm::divideCeil(elems, l.threads());
    for (int64_t r = 0; r < rounds; ++r) {
      Value e = add(tid, cIdx(r * l.threads()));
      auto emit = [&] { body(div(e, cIdx(cols)), rem(e, cIdx(cols))); };
      if ((r + 1) * l.threads() <= elems) {
        emit();
        continue;
      }
      auto ifOp = scf::IfOp::create(b, loc, ult(e, cIdx(elems)),
                                    /*withElseRegion=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      emit();
    }
  };
  Value aSliceBase = mul(buf, cIdx(l.tm * l.tk));
  Value bSliceBase = mul(buf, cIdx(l.tk * l.tn));
  Value k0Int = k0;
  // A[m0 + row, k0 + kk] -> aSlm[row][kk].
  copy(l.tm, l.tk, [&](Value row, Value kk) {
    Value v = loadMasked(aBuf, add(m0, toInt(row)), add(k0Int, toInt(kk)), s.m,
                         s.k, s.k, aBatch, s.maskM, s.maskK);
    Value slm = add(aSliceBase, add(mul(row, cIdx(l.tk)), kk));
    memref::StoreOp::create(b, loc, v, aSlm, slm);
  });
  if (!s.nk) {
    // B[k0 + kk, n0 + col] -> bSlm[kk][col].
    copy(l.tk, l.tn, [&](Value kk, Value col) {
      Value v = loadMasked(bBuf, add(k0Int, toInt(kk)), add(n0, toInt(col)),
                           s.k, s.n, s.n, bBatch, s.maskK, s.maskN);
      Value slm = add(bSliceBase, add(mul(kk, cIdx(l.tn)), col));
      memref::StoreOp::create(b, loc, v, bSlm, slm);
    });
    return;
  }
  // B[n0 + col, k0 + kk] -> bSlm[kk][col] (transposed on the way in).
  copy(l.tn, l.tk, [&](Value col, Value kk) {
    Value v = loadMasked(bBuf, add(n0, toInt(col)), add(k0Int, toInt(kk)), s.n,
                         s.k, s.k, bBatch, s.maskN, s.maskK);
    Value slm = add(bSliceBase, add(mul(kk, cIdx(l.tn)), col));
    memref::StoreOp::create(b, loc, v, bSlm, slm);
  });
}

SmallVector<Value> KernelBuilder::computeSlice(Value buf, ValueRange acc) {
  Value aSliceBase = mul(buf, cIdx(l.tm * l.tk));
  Value bSliceBase = mul(buf, cIdx(l.tk * l.tn));
  scf::ForOp loop = buildLoop(cIdx(l.tk), acc, [&](Value kk, ValueRange iter) {
    auto extend = [&](Value v) -> Value {
      if (v.getType() == accType)
        return v;
      return arith::ExtFOp::create(b, loc, accType, v);
    };
    SmallVector<Value> as, bs;
    for (int64_t i = 0; i < l.rm; ++i) {
      Value row = add(rowBase, cIdx(i));
      as.push_back(extend(memref::LoadOp::create(
          b, loc, aSlm,
          ValueRange{add(aSliceBase, add(mul(row, cIdx(l.tk)), kk))})));
    }
    for (int64_t j = 0; j < l.rn; ++j) {
      Value col = add(colBase, cIdx(j * l.lanesN));
      bs.push_back(extend(memref::LoadOp::create(
          b, loc, bSlm,
          ValueRange{add(bSliceBase, add(mul(kk, cIdx(l.tn)), col))})));
    }
    SmallVector<Value> next;
    for (int64_t i = 0; i < l.rm; ++i)
      for (int64_t j = 0; j < l.rn; ++j)
        next.push_back(
            math::FmaOp::create(b, loc, as[i], bs[j], iter[i * l.rn + j]));
    scf::YieldOp::create(b, loc, next);
  });
  return SmallVector<Value>(loop.getResults());
}

void KernelBuilder::storeTile(ValueRange acc) {
  Block &epilogue = gemm.getEpilogueBlock();
  auto yield = cast<YieldOp>(epilogue.getTerminator());
  // Scalars are read once per thread; rows and columns once per micro-tile
  // row and column.
  SmallVector<Value> scalars(epilogueBufs.size());
  for (auto [i, buf] : llvm::enumerate(epilogueBufs))
    if (gemm.getBroadcastKind(i) == BroadcastKind::scalar)
      scalars[i] = memref::LoadOp::create(b, loc, buf, ValueRange{});

  for (int64_t i = 0; i < l.rm; ++i) {
    Value row = add(m0, toInt(add(rowBase, cIdx(i))));
    for (int64_t j = 0; j < l.rn; ++j) {
      Value col = add(n0, toInt(add(colBase, cIdx(j * l.lanesN))));
      Value inBounds;
      if (s.maskM)
        inBounds = ult(row, cInt(s.m));
      if (s.maskN) {
        Value colOk = ult(col, cInt(s.n));
        inBounds = inBounds ? andI(inBounds, colOk) : colOk;
      }
      OpBuilder::InsertionGuard guard(b);
      if (inBounds) {
        auto ifOp = scf::IfOp::create(b, loc, inBounds,
                                      /*withElseRegion=*/false);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      }
      Value offset = add(add(cBatch, mul(row, cInt(s.n))), col);
      IRMapping map;
      map.map(gemm.getAccArgument(), acc[i * l.rn + j]);
      for (auto [e, buf] : llvm::enumerate(epilogueBufs)) {
        Value v;
        switch (gemm.getBroadcastKind(e)) {
        case BroadcastKind::scalar:
          v = scalars[e];
          break;
        case BroadcastKind::per_row:
          v = memref::LoadOp::create(b, loc, buf, toIndex(row));
          break;
        case BroadcastKind::per_col:
          v = memref::LoadOp::create(b, loc, buf, toIndex(col));
          break;
        case BroadcastKind::full:
          v = memref::LoadOp::create(b, loc, buf, toIndex(offset));
          break;
        }
        map.map(gemm.getEpilogueArgument(e), v);
      }
      for (Operation &op : epilogue.without_terminator())
        b.clone(op, map);
      memref::StoreOp::create(b, loc, map.lookup(yield.getValue()), cBuf,
                              toIndex(offset));
    }
  }
}

void KernelBuilder::build(gpu::LaunchOp launch, Value a, Value bm, Value c,
                          ArrayRef<Value> epilogue) {
  aBuf = a;
  bBuf = bm;
  cBuf = c;
  epilogueBufs.assign(epilogue.begin(), epilogue.end());
  operandType = gemm.getLhsType().getElementType();
  accType = gemm.getAccType();

  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  tid = launch.getThreadIds().x;
  Value pid = toInt(launch.getBlockIds().x);
  batchIdx = toInt(launch.getBlockIds().y);
  std::tie(m0, n0) = getTileOrigin(pid);
  aBatch = mul(batchIdx, cInt(s.m * s.k));
  bBatch = mul(batchIdx, cInt(s.k * s.n));
  cBatch = mul(batchIdx, cInt(s.m * s.n));

  // This thread's micro-tile inside the workgroup tile.
  Value lane = rem(tid, cIdx(l.lanes));
  Value sg = div(tid, cIdx(l.lanes));
  Value sgRow = div(sg, cIdx(l.sgCols)), sgCol = rem(sg, cIdx(l.sgCols));
  rowBase = add(mul(sgRow, cIdx(l.tm / l.sgRows)),
                mul(div(lane, cIdx(l.lanesN)), cIdx(l.rm)));
  colBase = add(mul(sgCol, cIdx(l.tn / l.sgCols)), rem(lane, cIdx(l.lanesN)));

  // Shared local memory: `buffers` slices of A and of B.
  // Numeric address space 3: the OpenCL workgroup space, which both
  // convert-gpu-to-spirv's OpenCL storage-class mapping and the NVVM
  // lowering understand (#gpu.address_space<workgroup> fails the former).
  Attribute workgroup = b.getI64IntegerAttr(3);
  aSlm = memref::AllocOp::create(
      b, loc,
      MemRefType::get({l.buffers * l.tm * l.tk}, operandType,
                      MemRefLayoutAttrInterface(), workgroup));
  bSlm = memref::AllocOp::create(
      b, loc,
      MemRefType::get({l.buffers * l.tk * l.tn}, operandType,
                      MemRefLayoutAttrInterface(), workgroup));

  Value zeroAcc =
      arith::ConstantOp::create(b, loc, accType, b.getZeroAttr(accType));
  SmallVector<Value> init(l.rm * l.rn, zeroAcc);
  Value steps = cIdx(s.kSteps);
  auto k0Of = [&](Value step) { return mul(toInt(step), cInt(l.tk)); };

  scf::ForOp kLoop;
  if (l.buffers == 1) {
    // Load, barrier, compute, barrier.
    kLoop = buildLoop(steps, init, [&](Value step, ValueRange acc) {
      Value buf = cIdx(0);
      loadSlice(k0Of(step), buf);
      gpu::BarrierOp::create(b, loc);
      SmallVector<Value> next = computeSlice(buf, acc);
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, next);
    });
  } else {
    // Double buffering: slice s+1 is copied into the other buffer before
    // slice s is consumed; the barrier that ends step s-1 separates the
    // reads of that buffer from these writes.
    loadSlice(cInt(0), cIdx(0));
    gpu::BarrierOp::create(b, loc);
    kLoop = buildLoop(steps, init, [&](Value step, ValueRange acc) {
      Value nextStep = add(step, cIdx(1));
      auto ifOp = scf::IfOp::create(b, loc, ult(nextStep, steps),
                                    /*withElseRegion=*/false);
      {
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        loadSlice(k0Of(nextStep), rem(nextStep, cIdx(2)));
      }
      SmallVector<Value> next = computeSlice(rem(step, cIdx(2)), acc);
      gpu::BarrierOp::create(b, loc);
      scf::YieldOp::create(b, loc, next);
    });
  }
  storeTile(kLoop.getResults());
  gpu::TerminatorOp::create(b, loc);
}

/// A buffer of `tensor` as a flat identity memref (rank-0 stays rank-0).
Value getFlatBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer = bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                                   /*readOnly=*/true);
  if (type.getRank() <= 1)
    return buffer;
  ReassociationIndices all(type.getRank());
  std::iota(all.begin(), all.end(), 0);
  return memref::CollapseShapeOp::create(b, loc, buffer,
                                         ArrayRef<ReassociationIndices>{all});
}

struct ConvertXPUToGPUPass final
    : xpu::impl::XPUConvertXPUToGPUPassBase<ConvertXPUToGPUPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    registerGPUBarrierMemoryEffectsModel(registry);
  }

  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation()->walk([&](GemmOp gemm) { gemms.push_back(gemm); });
    for (GemmOp gemm : gemms)
      if (failed(convert(gemm)))
        return signalPassFailure();
  }

  LogicalResult convert(GemmOp gemm);
};

LogicalResult ConvertXPUToGPUPass::convert(GemmOp gemm) {
  ConfigAttr config = gemm.getConfigAttr();
  if (!config)
    return gemm.emitError()
           << kPassArg
           << ": xpu.gemm has no #xpu.config; run xpu-select-strategy first";
  if (config.getSchedule() != Schedule::data_parallel)
    return gemm.emitError() << kPassArg << ": schedule "
                            << stringifySchedule(config.getSchedule())
                            << " has no SIMT kernel yet (data_parallel only)";
  if (!allowBF16 && (gemm.getLhsType().getElementType().isBF16() ||
                     gemm.getResultType().getElementType().isBF16()))
    return gemm.emitError()
           << kPassArg
           << ": bf16 operands, but the kernels of this target cannot use "
              "bf16 (OpenCL SPIR-V has no bf16 type); use precision f16 or "
              "f32 here, or xpu-xe-pipeline for DPAS on Intel GPUs";
  FailureOr<TargetAttr> target = resolveTarget(gemm, defaultTarget, kPassArg);
  if (failed(target))
    return failure();
  FailureOr<KernelLayout> layout = getKernelLayout(gemm, config, *target);
  if (failed(layout))
    return failure();
  const KernelLayout &l = *layout;

  GemmShape s;
  s.batched = gemm.isBatched();
  s.batch = gemm.getBatchSize();
  s.m = gemm.getM();
  s.n = gemm.getN();
  s.k = gemm.getK();
  s.nk = gemm.getRhsLayout() == RhsLayout::nk;
  s.maskM = s.m % l.tm != 0;
  s.maskN = s.n % l.tn != 0;
  s.maskK = s.k % l.tk != 0;
  s.tilesM = llvm::divideCeil(s.m, l.tm);
  s.tilesN = llvm::divideCeil(s.n, l.tn);
  s.kSteps = llvm::divideCeil(s.k, l.tk);

  // int64_cast_for_large_batch_offsets: the widest element index any buffer
  // (or a padded tile past its end) can reach decides the offset type.
  auto padded = [](int64_t v, int64_t t) { return llvm::alignTo(v, t); };
  int64_t mP = padded(s.m, l.tm), nP = padded(s.n, l.tn),
          kP = padded(s.k, l.tk);
  int64_t widest = std::max({s.batch * mP * kP, s.batch * kP * nP,
                             s.batch * mP * nP, s.tilesM * s.tilesN * s.batch});
  bool wide = widest > std::numeric_limits<int32_t>::max();

  OpBuilder b(gemm);
  Location loc = gemm.getLoc();
  IntegerType intType = b.getIntegerType(wide ? 64 : 32);
  Value a = getFlatBuffer(b, loc, gemm.getLhs());
  Value rhs = getFlatBuffer(b, loc, gemm.getRhs());
  SmallVector<Value> epilogue;
  for (Value v : gemm.getEpilogueOperands())
    epilogue.push_back(getFlatBuffer(b, loc, v));
  RankedTensorType resType = gemm.getResultType();
  auto cType = MemRefType::get(resType.getShape(), resType.getElementType());
  Value c = memref::AllocOp::create(b, loc, cType);
  Value cFlat = c;
  if (resType.getRank() > 1) {
    ReassociationIndices all(resType.getRank());
    std::iota(all.begin(), all.end(), 0);
    cFlat = memref::CollapseShapeOp::create(
        b, loc, c, ArrayRef<ReassociationIndices>{all});
  }

  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto launch =
      gpu::LaunchOp::create(b, loc, idx(s.tilesM * s.tilesN), idx(s.batch),
                            idx(1), idx(l.threads()), idx(1), idx(1));
  KernelBuilder(b, loc, gemm, l, s, intType)
      .build(launch, a, rhs, cFlat, epilogue);
  b.setInsertionPointAfter(launch);
  Value result = bufferization::ToTensorOp::create(
      b, loc, resType, c, /*restrict=*/true, /*writable=*/true);

  remark::passed(loc, remarkOpts(kPassArg, "Kernel")) << remark::reason(
      "{0}: {1} workgroups{2} of {3} threads ({4}x{5} subgroups of {6} "
      "lanes), group_m {7}; {8}x{9} accumulators per thread; {10} SLM "
      "buffer(s) of {11}x{12} + {12}x{13}; {14} K-steps; masks on "
      "{15}; offsets in i{16}",
      describeGemmShape(gemm), s.tilesM * s.tilesN,
      s.batch > 1 ? llvm::formatv(" x {0}", s.batch).str() : std::string(),
      l.threads(), l.sgRows, l.sgCols, l.lanes, config.getGroupM(), l.rm, l.rn,
      l.buffers, l.tm, l.tk, l.tn, s.kSteps,
      [&] {
        std::string dims;
        for (auto [on, name] :
             {std::pair{s.maskM, "m"}, {s.maskN, "n"}, {s.maskK, "k"}})
          if (on)
            dims += dims.empty() ? name : std::string(", ") + name;
        return dims.empty() ? std::string("none") : dims;
      }(),
      intType.getWidth());
  gemm.replaceAllUsesWith(result);
  gemm.erase();
  ++numKernels;
  return success();
}
} // namespace
