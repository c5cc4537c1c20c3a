//===- ScheduleGemm.cpp - xpu.gemm -> programs, tiles and K ranges --------===//
//
// The schedule layer shared by every GPU backend (docs/Design.md, "The
// schedule layer"): the host side of a GEMM (operand buffers, result,
// workspace) and its programs as an scf.forall mapped to GPU blocks whose
// body calls xpu.gemm_tile / xpu.gemm_fixup. The arithmetic of the plan is
// in SchedulePlan.h, shared with the strategy's cost model.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/Dialect/XPU/Utils/SchedulePlan.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSCHEDULEGEMMPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-schedule-gemm";

namespace {

/// The buffers of one scheduled GEMM.
struct GemmBuffers {
  Value lhs, rhs, result;
  SmallVector<Value> epilogue;
  Value workspace;
};

/// Builds the index arithmetic of a program body.
class ProgramBuilder {
public:
  ProgramBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  }
  Value sub(Value x, Value y) {
    return b.createOrFold<arith::SubIOp>(loc, x, y);
  }
  Value mul(Value x, Value y) {
    return b.createOrFold<arith::MulIOp>(loc, x, y);
  }
  Value div(Value x, Value y) {
    return b.createOrFold<arith::DivUIOp>(loc, x, y);
  }
  Value rem(Value x, Value y) {
    return b.createOrFold<arith::RemUIOp>(loc, x, y);
  }
  Value min(Value x, Value y) {
    return b.createOrFold<arith::MinUIOp>(loc, x, y);
  }
  Value max(Value x, Value y) {
    return b.createOrFold<arith::MaxUIOp>(loc, x, y);
  }
  Value ult(Value x, Value y) {
    return b.createOrFold<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return b.createOrFold<arith::SelectOp>(loc, cond, x, y);
  }

  OpBuilder &b;
  Location loc;
};

class GemmScheduler {
public:
  GemmScheduler(GemmOp gemm, ConfigAttr config, const SchedulePlan &plan,
                GemmBackendAttrInterface backend, TargetAttr target)
      : gemm(gemm), config(config), plan(plan), backend(backend),
        target(target), dynamicM(ShapedType::isDynamic(gemm.getM())) {
    ArrayRef<int64_t> tile = config.getTile();
    tm = tile[0];
    tn = tile[1];
    tk = tile[2];
  }

  /// Rewrites the GEMM; returns its result tensor.
  Value run(OpBuilder &b);

private:
  void buildHost(OpBuilder &b, Location loc);
  /// (batch, m0, n0) of tile `t` in the GROUP_SIZE_M order.
  std::tuple<Value, Value, Value> getTileOrigin(ProgramBuilder &pb, Value t);
  /// One xpu.gemm_tile.
  void emitTile(OpBuilder &b, Location loc, TileResult result, Value t,
                Value kBegin, Value kEnd, Value slot);
  void buildMainPrograms(OpBuilder &b, Location loc);
  void buildFixupPrograms(OpBuilder &b, Location loc);
  /// The program that owns split K-step `iter` (SchedulePlan::getOwner).
  Value getOwner(ProgramBuilder &pb, Value iter);
  scf::ForallOp createPrograms(OpBuilder &b, Location loc, OpFoldResult count);

  GemmOp gemm;
  ConfigAttr config;
  const SchedulePlan &plan;
  GemmBackendAttrInterface backend;
  TargetAttr target;
  int64_t tm, tn, tk;
  GemmBuffers bufs;
  /// A dynamic m (data-parallel, unbatched): the rows and the row count of
  /// tiles, read on the host at run time; `plan` then counts one row of
  /// tiles.
  bool dynamicM;
  Value rows, tilesM;
};

/// A read-only buffer of `tensor` with the identity layout.
Value toBuffer(OpBuilder &b, Location loc, Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  return bufferization::ToBufferOp::create(b, loc, memrefType, tensor,
                                           /*readOnly=*/true);
}

void GemmScheduler::buildHost(OpBuilder &b, Location loc) {
  if (dynamicM) {
    ProgramBuilder pb(b, loc);
    rows = tensor::DimOp::create(b, loc, gemm.getLhs(), 0);
    tilesM = pb.div(pb.add(rows, pb.c(tm - 1)), pb.c(tm));
  }
  bufs.lhs = toBuffer(b, loc, getPackedOperand(gemm.getLhs()));
  bufs.rhs = toBuffer(b, loc, getPackedOperand(gemm.getRhs()));
  for (Value v : gemm.getEpilogueOperands())
    bufs.epilogue.push_back(toBuffer(b, loc, getPackedOperand(v)));
  // The result in the backend's layout: rows of its row pitch and, when
  // batched, batch slabs of its batch rows; sliced back after the kernels.
  RankedTensorType resType = gemm.getResultType();
  Type resElt = resType.getElementType();
  SmallVector<int64_t> shape(resType.getShape());
  shape.back() = backend.getRowPitch(target, shape.back(), resElt);
  if (gemm.isBatched())
    shape[1] = backend.getBatchRows(target, shape[1], shape.back(), resElt);
  SmallVector<Value> dynamicSizes;
  if (dynamicM)
    dynamicSizes.push_back(rows);
  bufs.result = memref::AllocOp::create(
      b, loc, MemRefType::get(shape, resElt), dynamicSizes,
      b.getI64IntegerAttr(backend.getBufferAlignment(target)));
  if (plan.skTiles == 0)
    return;
  auto wsType =
      MemRefType::get({plan.getWorkspaceSlots(), tm, tn}, b.getF32Type());
  bufs.workspace = memref::AllocOp::create(
      b, loc, wsType, b.getI64IntegerAttr(backend.getBufferAlignment(target)));
  if (plan.fixup == Fixup::atomic) {
    // streamk_output_must_be_prezeroed: atomic adds accumulate onto it.
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0));
    linalg::FillOp::create(b, loc, zero, bufs.workspace);
  }
}

std::tuple<Value, Value, Value> GemmScheduler::getTileOrigin(ProgramBuilder &pb,
                                                             Value t) {
  // Tiles are numbered batch-major; inside a batch, group_m rows of tiles
  // are walked column by column (Triton's GROUP_SIZE_M), so that the
  // programs running together share rows of A and columns of B in cache.
  int64_t perBatch = plan.tilesM * plan.tilesN;
  int64_t groupM = std::min(config.getGroupM(), plan.tilesM);
  Value batch = plan.tiles == perBatch ? pb.c(0) : pb.div(t, pb.c(perBatch));
  Value local = plan.tiles == perBatch ? t : pb.rem(t, pb.c(perBatch));
  Value pidM, pidN;
  if (dynamicM) {
    // Groups of group_m tile rows, the last one as tall as what is left.
    Value inGroup = pb.c(config.getGroupM() * plan.tilesN);
    Value firstM = pb.mul(pb.div(local, inGroup), pb.c(config.getGroupM()));
    Value groupSize = pb.min(pb.sub(tilesM, firstM), pb.c(config.getGroupM()));
    Value pos = pb.rem(local, inGroup);
    pidM = pb.add(firstM, pb.rem(pos, groupSize));
    pidN = pb.div(pos, groupSize);
  } else if (groupM == plan.tilesM) {
    // One group: the tiles are walked column by column.
    pidM = pb.rem(local, pb.c(plan.tilesM));
    pidN = pb.div(local, pb.c(plan.tilesM));
  } else {
    Value inGroup = pb.c(groupM * plan.tilesN);
    Value firstM = pb.mul(pb.div(local, inGroup), pb.c(groupM));
    Value groupSize = pb.min(pb.sub(pb.c(plan.tilesM), firstM), pb.c(groupM));
    Value pos = pb.rem(local, inGroup);
    pidM = pb.add(firstM, pb.rem(pos, groupSize));
    pidN = pb.div(pos, groupSize);
  }
  return {batch, pb.mul(pidM, pb.c(tm)), pb.mul(pidN, pb.c(tn))};
}

void GemmScheduler::emitTile(OpBuilder &b, Location loc, TileResult result,
                             Value t, Value kBegin, Value kEnd, Value slot) {
  ProgramBuilder pb(b, loc);
  auto [batch, m0, n0] = getTileOrigin(pb, t);
  bool output = result == TileResult::output;
  SmallVector<Value> epilogue;
  ArrayAttr broadcasts = b.getArrayAttr({});
  if (output) {
    epilogue = bufs.epilogue;
    broadcasts = gemm.getBroadcasts();
  }
  auto tile = GemmTileOp::create(
      b, loc, result, bufs.lhs, bufs.rhs, output ? bufs.result : bufs.workspace,
      slot, epilogue, batch, m0, n0, kBegin, kEnd, rows,
      b.getDenseI64ArrayAttr(
          {gemm.getBatchSize(), gemm.getM(), gemm.getN(), gemm.getK()}),
      gemm.getRhsLayout(), gemm.getAccType(), broadcasts, config);
  Region &region = tile.getEpilogue();
  if (output) {
    IRMapping map;
    gemm.getEpilogue().cloneInto(&region, map);
    return;
  }
  Block *block = new Block();
  region.push_back(block);
  Value acc = block->addArgument(gemm.getAccType(), loc);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(block);
  YieldOp::create(b, loc, acc);
}

scf::ForallOp GemmScheduler::createPrograms(OpBuilder &b, Location loc,
                                            OpFoldResult count) {
  MLIRContext *ctx = b.getContext();
  ArrayAttr mapping = b.getArrayAttr(
      {gpu::GPUBlockMappingAttr::get(ctx, gpu::MappingId::DimX)});
  auto forall = scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{count},
                                      ValueRange{}, mapping);
  return forall;
}

Value GemmScheduler::getOwner(ProgramBuilder &pb, Value iter) {
  int64_t q = plan.itersPerProgram, r = plan.extraIters;
  // Programs [0, r) take q + 1 K-steps, the others q.
  Value early = pb.div(iter, pb.c(q + 1));
  if (q == 0)
    return early;
  if (r == 0)
    return pb.div(iter, pb.c(q));
  Value late =
      pb.add(pb.c(r), pb.div(pb.sub(iter, pb.c(r * (q + 1))), pb.c(q)));
  return pb.select(pb.ult(iter, pb.c(r * (q + 1))), early, late);
}

void GemmScheduler::buildMainPrograms(OpBuilder &b, Location loc) {
  // A dynamic m: one program per tile, counted at run time.
  OpFoldResult programs = b.getIndexAttr(plan.programs);
  if (dynamicM) {
    ProgramBuilder hb(b, loc);
    programs = hb.mul(tilesM, hb.c(plan.tilesN));
  }
  scf::ForallOp forall = createPrograms(b, loc, programs);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getBody()->getTerminator());
  ProgramBuilder pb(b, loc);
  Value pid = forall.getInductionVar(0);
  Value kAll = pb.c(gemm.getK());
  Value zero = pb.c(0);

  if (plan.kind == Schedule::data_parallel) {
    emitTile(b, loc, TileResult::output, pid, zero, kAll, Value());
    return;
  }
  // Whole tiles: tile t on program t mod programs (persistent_kernel_basic_
  // tile_loop); for Stream-K only the data-parallel waves.
  if (plan.dpTiles > 0) {
    if (plan.dpTiles <= plan.programs) {
      // At most one tile per program: no loop.
      if (plan.dpTiles == plan.programs) {
        emitTile(b, loc, TileResult::output, pid, zero, kAll, Value());
      } else {
        auto inRange =
            scf::IfOp::create(b, loc, pb.ult(pid, pb.c(plan.dpTiles)),
                              /*withElseRegion=*/false);
        OpBuilder::InsertionGuard inner(b);
        b.setInsertionPoint(inRange.thenBlock()->getTerminator());
        emitTile(b, loc, TileResult::output, pid, pb.c(0), pb.c(gemm.getK()),
                 Value());
      }
    } else {
      auto loop = scf::ForOp::create(b, loc, pid, pb.c(plan.dpTiles),
                                     pb.c(plan.programs));
      OpBuilder::InsertionGuard inner(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      ProgramBuilder lb(b, loc);
      emitTile(b, loc, TileResult::output, loop.getInductionVar(), lb.c(0),
               lb.c(gemm.getK()), Value());
    }
  }
  if (plan.skTiles == 0)
    return;

  // streamk_iteration_distribution: program p takes K-steps [s, e) of the
  // split tiles, q or q + 1 of them; each tile it touches is one piece
  // (streamk_mac_loop_partial_tile).
  int64_t q = plan.itersPerProgram, r = plan.extraIters;
  int64_t iters = plan.itersPerTile;
  Value s = pb.mul(pid, pb.c(q));
  Value count = pb.c(q);
  if (r > 0) {
    s = pb.add(s, pb.min(pid, pb.c(r)));
    count = pb.select(pb.ult(pid, pb.c(r)), pb.c(q + 1), pb.c(q));
  }
  Value e = pb.add(s, count);
  // Programs without K-steps (q = 0) skip the split part.
  if (q == 0) {
    auto any =
        scf::IfOp::create(b, loc, pb.ult(s, e), /*withElseRegion=*/false);
    b.setInsertionPoint(any.thenBlock()->getTerminator());
  }
  ProgramBuilder ib(b, loc);
  Value firstTile = ib.div(s, ib.c(iters));
  Value endTile = ib.add(ib.div(ib.sub(e, ib.c(1)), ib.c(iters)), ib.c(1));
  auto loop = scf::ForOp::create(b, loc, firstTile, endTile, ib.c(1));
  b.setInsertionPoint(loop.getBody()->getTerminator());
  ProgramBuilder lb(b, loc);
  Value j = loop.getInductionVar();
  Value tileBegin = lb.mul(j, lb.c(iters));
  Value kb = lb.sub(lb.max(s, tileBegin), tileBegin);
  Value ke = lb.sub(lb.min(e, lb.add(tileBegin, lb.c(iters))), tileBegin);
  Value kBegin = lb.mul(kb, lb.c(tk));
  Value kEnd = lb.min(lb.mul(ke, lb.c(tk)), lb.c(gemm.getK()));
  Value slot;
  TileResult result;
  if (plan.fixup == Fixup::atomic) {
    slot = j;
    result = TileResult::atomic_add;
  } else {
    // Deterministic: piece c of tile j (c = p - owner of the tile's first
    // K-step) has its own slot j * slotsPerTile + c.
    Value piece = lb.sub(pid, getOwner(lb, tileBegin));
    slot = lb.add(lb.mul(j, lb.c(plan.slotsPerTile)), piece);
    result = TileResult::partial;
  }
  emitTile(b, loc, result, lb.add(j, lb.c(plan.dpTiles)), kBegin, kEnd, slot);
}

void GemmScheduler::buildFixupPrograms(OpBuilder &b, Location loc) {
  scf::ForallOp forall = createPrograms(b, loc, b.getIndexAttr(plan.skTiles));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(forall.getBody()->getTerminator());
  ProgramBuilder pb(b, loc);
  Value j = forall.getInductionVar(0);
  Value first, count;
  if (plan.fixup == Fixup::atomic) {
    first = j;
    count = pb.c(1);
  } else {
    int64_t iters = plan.itersPerTile;
    Value tileBegin = pb.mul(j, pb.c(iters));
    Value owner0 = getOwner(pb, tileBegin);
    Value owner1 = getOwner(pb, pb.add(tileBegin, pb.c(iters - 1)));
    first = pb.mul(j, pb.c(plan.slotsPerTile));
    count = pb.add(pb.sub(owner1, owner0), pb.c(1));
  }
  auto [batch, m0, n0] = getTileOrigin(pb, pb.add(j, pb.c(plan.dpTiles)));
  auto fixup = GemmFixupOp::create(
      b, loc, bufs.workspace, first, count, bufs.result, bufs.epilogue, batch,
      m0, n0,
      b.getDenseI64ArrayAttr(
          {gemm.getBatchSize(), gemm.getM(), gemm.getN(), gemm.getK()}),
      gemm.getAccType(), gemm.getBroadcasts(), config);
  IRMapping map;
  gemm.getEpilogue().cloneInto(&fixup.getEpilogue(), map);
}

Value GemmScheduler::run(OpBuilder &b) {
  Location loc = gemm.getLoc();
  buildHost(b, loc);
  buildMainPrograms(b, loc);
  if (plan.skTiles > 0)
    buildFixupPrograms(b, loc);
  RankedTensorType resType = gemm.getResultType();
  auto resultMemref = cast<MemRefType>(bufs.result.getType());
  Value result = bufferization::ToTensorOp::create(
      b, loc,
      RankedTensorType::get(resultMemref.getShape(), resType.getElementType()),
      bufs.result, /*restrict=*/true, /*writable=*/true);
  if (resultMemref.getShape() == resType.getShape())
    return result;
  unsigned rank = resType.getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : resType.getShape())
    sizes.push_back(ShapedType::isDynamic(d) ? OpFoldResult(rows)
                                             : b.getIndexAttr(d));
  return tensor::ExtractSliceOp::create(b, loc, resType, result, offsets, sizes,
                                        strides);
}

struct ScheduleGemmPass final
    : xpu::impl::XPUScheduleGemmPassBase<ScheduleGemmPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation()->walk([&](GemmOp gemm) { gemms.push_back(gemm); });
    for (GemmOp gemm : gemms)
      if (failed(schedule(gemm)))
        return signalPassFailure();
  }

  LogicalResult schedule(GemmOp gemm);
};

LogicalResult ScheduleGemmPass::schedule(GemmOp gemm) {
  ConfigAttr config = gemm.getConfigAttr();
  if (!config)
    return gemm.emitError()
           << kPassArg
           << ": xpu.gemm has no #xpu.config; run xpu-select-strategy first";
  TargetAttr target = resolveTarget(gemm);
  FailureOr<GemmBackendAttrInterface> backend =
      lookupGemmBackend(config, gemm.getLoc(), kPassArg);
  if (failed(backend))
    return failure();
  int64_t operandBytes = llvm::divideCeil(
      backend->getOperandType(gemm).getIntOrFloatBitWidth(), 8);
  int64_t resident =
      backend->getResidentWorkgroups(target, config, operandBytes);
  std::string why;
  // A dynamic m is planned for one row of tiles; the programs are counted
  // at run time, one per tile, which only the data-parallel schedule does.
  bool dynamicM = ShapedType::isDynamic(gemm.getM());
  if (gemm.isBatched() && gemm.hasDynamicShape())
    return gemm.emitError()
           << kPassArg << ": cannot schedule " << describeGemmShape(gemm)
           << ": a dynamic batched GEMM (the GPU kernels take "
              "a dynamic m of unbatched GEMMs only)";
  if (dynamicM && config.getSchedule().getKind() != Schedule::data_parallel)
    return gemm.emitError()
           << kPassArg << ": cannot schedule " << describeGemmShape(gemm)
           << ": a dynamic m needs the data_parallel schedule (programs "
              "counted at run time), the config asks for "
           << stringifySchedule(config.getSchedule().getKind());
  FailureOr<SchedulePlan> plan = planSchedule(
      config.getSchedule(),
      {gemm.getBatchSize(), dynamicM ? config.getTile()[0] : gemm.getM(),
       gemm.getN(), gemm.getK()},
      config.getTile(), resident, why);
  if (failed(plan))
    return gemm.emitError() << kPassArg << ": cannot schedule "
                            << describeGemmShape(gemm) << ": " << why;

  OpBuilder b(gemm);
  Value result = GemmScheduler(gemm, config, *plan, *backend, target).run(b);
  std::string workspace;
  if (plan->skTiles > 0) {
    int64_t tileElems = config.getTile()[0] * config.getTile()[1];
    workspace = llvm::formatv("; workspace {0} slot(s) of {1}x{2} f32 = {3} "
                              "bytes",
                              plan->getWorkspaceSlots(), config.getTile()[0],
                              config.getTile()[1],
                              plan->getWorkspaceSlots() * tileElems * 4);
  }
  std::string planText =
      dynamicM ? llvm::formatv("data_parallel, ceil(m / {0}) x {1} programs "
                               "counted at run time (m is dynamic)",
                               config.getTile()[0], plan->tilesN)
                     .str()
               : describeSchedulePlan(*plan);
  remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "Scheduled"))
      << remark::reason("{0} for the {1} backend: {2}; {3} workgroups run at "
                        "once on {4}{5}",
                        describeGemmShape(gemm), backend->getBackendName(),
                        planText, resident, target.getChip(), workspace);
  gemm.replaceAllUsesWith(result);
  gemm.erase();
  ++numScheduled;
  return success();
}

} // namespace
