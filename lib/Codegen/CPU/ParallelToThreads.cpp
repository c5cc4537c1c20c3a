//===- ParallelToThreads.cpp - parallel loops as a pthread fork-join ------===//
//
// Lowers each `omp.parallel { omp.wsloop { omp.loop_nest } }` (what
// convert-scf-to-openmp makes of an scf.parallel, with its body already in
// the LLVM dialect) to an outlined function run by a fork-join of POSIX
// threads. The generated code calls pthread_create, pthread_join and
// sysconf from the C library only: no OpenMP runtime, so xpu-run,
// mlir-runner and every host of the JIT or of an object file run it as they
// are. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Codegen/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPUPARALLELTOTHREADSPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

static constexpr StringLiteral kPassArg = "xpu-cpu-parallel-to-threads";
static constexpr StringLiteral kForkJoinName = "__xpu_cpu_fork_join";
/// sysconf(_SC_NPROCESSORS_ONLN) on Linux (glibc and musl).
static constexpr int32_t kScNProcessorsOnln = 84;

namespace {
/// Declares `name` with `type` in `module` unless it exists.
LLVM::LLVMFuncOp declare(OpBuilder &b, ModuleOp module, StringRef name,
                         LLVM::LLVMFunctionType type) {
  if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return fn;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(module.getBody());
  return LLVM::LLVMFuncOp::create(b, module.getLoc(), name, type);
}

Value constI64(OpBuilder &b, Location loc, int64_t v) {
  return LLVM::ConstantOp::create(b, loc, b.getI64Type(),
                                  b.getI64IntegerAttr(v));
}

struct ParallelToThreadsPass final
    : xpu::impl::XPUCPUParallelToThreadsPassBase<ParallelToThreadsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (threads < 0) {
      module.emitError() << kPassArg << ": threads must be >= 0 (0: one per "
                         << "online core, read at run time), got " << threads;
      return signalPassFailure();
    }
    // Innermost first: an outer region is outlined with the fork-join of
    // the inner one already in it.
    SmallVector<omp::ParallelOp> parallels;
    module.walk([&](omp::ParallelOp op) { parallels.push_back(op); });
    unsigned counter = 0;
    for (omp::ParallelOp op : parallels) {
      if (failed(lower(op, counter++)))
        return signalPassFailure();
      ++numParallel;
    }
  }

  /// The loop nest of `op` if it has the form convert-scf-to-openmp gives a
  /// one-dimensional scf.parallel without reductions, else null.
  omp::LoopNestOp matchSimpleLoop(omp::ParallelOp op) {
    if (op->getNumOperands() != 0 || !op.getRegion().hasOneBlock())
      return {};
    Block &body = op.getRegion().front();
    if (body.getOperations().size() != 2)
      return {};
    auto wsloop = dyn_cast<omp::WsloopOp>(body.front());
    if (!wsloop || wsloop->getNumOperands() != 0)
      return {};
    auto nest = dyn_cast<omp::LoopNestOp>(wsloop.getRegion().front().front());
    if (!nest || nest.getLoopLowerBounds().size() != 1 ||
        nest.getLoopInclusive())
      return {};
    return nest;
  }

  LogicalResult lower(omp::ParallelOp op, unsigned index) {
    omp::LoopNestOp nest = matchSimpleLoop(op);
    if (!nest)
      return op.emitError() << kPassArg
                            << ": only one-dimensional parallel loops "
                               "without clauses or reductions are supported";
    auto parent = op->getParentOfType<LLVM::LLVMFuncOp>();
    if (!parent)
      return op.emitError() << kPassArg << ": not in an llvm.func";
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    Location loc = op.getLoc();
    OpBuilder b(ctx);
    Type i64 = b.getI64Type();
    Type i32 = b.getI32Type();
    auto ptr = LLVM::LLVMPointerType::get(ctx);

    // What the body reads from outside travels in one shared struct:
    // {lb, ub, step, threads, captured...}.
    Value lb = nest.getLoopLowerBounds()[0];
    Value ub = nest.getLoopUpperBounds()[0];
    Value step = nest.getLoopSteps()[0];
    if (lb.getType() != i64 || ub.getType() != i64 || step.getType() != i64)
      return op.emitError() << kPassArg << ": loop bounds must be i64";
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(nest.getRegion(), captured);
    SmallVector<Type> fields = {i64, i64, i64, i64};
    for (Value v : captured) {
      if (!LLVM::isCompatibleType(v.getType()))
        return op.emitError()
               << kPassArg << ": the body reads a value of "
               << "type " << v.getType() << " that is not an LLVM type";
      fields.push_back(v.getType());
    }
    auto sharedType = LLVM::LLVMStructType::getLiteral(ctx, fields);
    auto threadArgType = LLVM::LLVMStructType::getLiteral(ctx, {ptr, i64});
    auto threadFnType = LLVM::LLVMFunctionType::get(ptr, {ptr});

    // The thread body: its share of the iterations.
    b.setInsertionPoint(parent);
    std::string name =
        (parent.getSymName() + "_par" + std::to_string(index)).str();
    auto threadFn = LLVM::LLVMFuncOp::create(b, loc, name, threadFnType,
                                             LLVM::Linkage::Internal);
    Block *entry = threadFn.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    Value arg = entry->getArgument(0);
    auto field = [&](OpBuilder &fb, Value base, Type structType, int32_t i) {
      return LLVM::GEPOp::create(fb, loc, ptr, structType, base,
                                 ArrayRef<LLVM::GEPArg>{0, i});
    };
    Value shared =
        LLVM::LoadOp::create(b, loc, ptr, field(b, arg, threadArgType, 0));
    Value tid =
        LLVM::LoadOp::create(b, loc, i64, field(b, arg, threadArgType, 1));
    SmallVector<Value> loaded;
    for (auto [i, t] : llvm::enumerate(fields))
      loaded.push_back(LLVM::LoadOp::create(
          b, loc, t, field(b, shared, sharedType, int32_t(i))));
    Value tLb = loaded[0], tUb = loaded[1], tStep = loaded[2],
          tCount = loaded[3];
    // n = ceil((ub - lb) / step); per = ceil(n / threads);
    // [lb + tid * per * step, min(ub, that + per * step)).
    Value one = constI64(b, loc, 1);
    Value span = LLVM::SubOp::create(b, loc, tUb, tLb);
    Value n = LLVM::SDivOp::create(
        b, loc,
        LLVM::SubOp::create(b, loc, LLVM::AddOp::create(b, loc, span, tStep),
                            one),
        tStep);
    Value per = LLVM::SDivOp::create(
        b, loc,
        LLVM::SubOp::create(b, loc, LLVM::AddOp::create(b, loc, n, tCount),
                            one),
        tCount);
    Value chunk = LLVM::MulOp::create(b, loc, per, tStep);
    Value begin = LLVM::AddOp::create(b, loc, tLb,
                                      LLVM::MulOp::create(b, loc, tid, chunk));
    Value endRaw = LLVM::AddOp::create(b, loc, begin, chunk);
    Value end = LLVM::SMinOp::create(b, loc, endRaw, tUb);

    Block *header = new Block();
    header->addArgument(i64, loc);
    Block *exit = new Block();
    threadFn.getBody().push_back(header);
    LLVM::BrOp::create(b, loc, ValueRange{begin}, header);

    IRMapping mapping;
    for (auto [i, v] : llvm::enumerate(captured))
      mapping.map(v, loaded[4 + i]);
    Region &body = threadFn.getBody();
    nest.getRegion().cloneInto(&body, body.end(), mapping);
    Block *bodyEntry = mapping.lookup(&nest.getRegion().front());
    body.push_back(exit);

    b.setInsertionPointToEnd(header);
    Value iv = header->getArgument(0);
    Value more =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, iv, end);
    LLVM::CondBrOp::create(b, loc, more, bodyEntry, ValueRange{iv}, exit,
                           ValueRange{});
    Value bodyIv = bodyEntry->getArgument(0);
    for (Block &block :
         llvm::make_range(bodyEntry->getIterator(), exit->getIterator())) {
      auto yield = dyn_cast<omp::YieldOp>(block.getTerminator());
      if (!yield)
        continue;
      b.setInsertionPoint(yield);
      Value next = LLVM::AddOp::create(b, loc, bodyIv, tStep);
      LLVM::BrOp::create(b, loc, ValueRange{next}, header);
      yield.erase();
    }
    b.setInsertionPointToEnd(exit);
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    LLVM::ReturnOp::create(b, loc, null);

    // The fork: the shared struct on the caller's stack (in its entry
    // block, so a parallel loop inside a loop does not grow the stack), the
    // thread count, one call of the fork-join helper.
    LLVM::LLVMFuncOp forkJoin = getOrCreateForkJoin(module);
    b.setInsertionPointToStart(&parent.getBody().front());
    Value sharedAlloca =
        LLVM::AllocaOp::create(b, loc, ptr, sharedType, constI64(b, loc, 1));
    b.setInsertionPoint(op);
    Value count;
    if (threads > 0) {
      count = constI64(b, loc, threads);
    } else {
      auto sysconf = declare(b, module, "sysconf",
                             LLVM::LLVMFunctionType::get(i64, {i32}));
      Value name32 = LLVM::ConstantOp::create(
          b, loc, i32, b.getI32IntegerAttr(kScNProcessorsOnln));
      count =
          LLVM::CallOp::create(b, loc, sysconf, ValueRange{name32}).getResult();
    }
    // At least one thread, at most one per iteration.
    Value cSpan = LLVM::SubOp::create(b, loc, ub, lb);
    Value cOne = constI64(b, loc, 1);
    Value iterations = LLVM::SDivOp::create(
        b, loc,
        LLVM::SubOp::create(b, loc, LLVM::AddOp::create(b, loc, cSpan, step),
                            cOne),
        step);
    count = LLVM::SMinOp::create(b, loc, count, iterations);
    count = LLVM::SMaxOp::create(b, loc, count, cOne);
    SmallVector<Value> values = {lb, ub, step, count};
    llvm::append_range(values, captured);
    for (auto [i, v] : llvm::enumerate(values))
      LLVM::StoreOp::create(b, loc, v,
                            field(b, sharedAlloca, sharedType, int32_t(i)));
    Value fnAddr = LLVM::AddressOfOp::create(b, loc, threadFn);
    LLVM::CallOp::create(b, loc, forkJoin,
                         ValueRange{fnAddr, sharedAlloca, count});
    op.erase();
    return success();
  }

  /// `void __xpu_cpu_fork_join(ptr fn, ptr shared, i64 threads)`: starts
  /// fn({shared, t}) on a new thread for t = 1 .. threads-1 (on the calling
  /// thread if pthread_create fails), runs fn({shared, 0}) itself and joins
  /// the threads it started.
  LLVM::LLVMFuncOp getOrCreateForkJoin(ModuleOp module) {
    if (auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(kForkJoinName))
      return fn;
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    Location loc = module.getLoc();
    Type i64 = b.getI64Type(), i32 = b.getI32Type();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    auto voidType = LLVM::LLVMVoidType::get(ctx);
    auto threadArgType = LLVM::LLVMStructType::getLiteral(ctx, {ptr, i64});
    auto threadFnType = LLVM::LLVMFunctionType::get(ptr, {ptr});
    auto create =
        declare(b, module, "pthread_create",
                LLVM::LLVMFunctionType::get(i32, {ptr, ptr, ptr, ptr}));
    auto join = declare(b, module, "pthread_join",
                        LLVM::LLVMFunctionType::get(i32, {i64, ptr}));

    b.setInsertionPointToEnd(module.getBody());
    auto fn = LLVM::LLVMFuncOp::create(
        b, loc, kForkJoinName,
        LLVM::LLVMFunctionType::get(voidType, {ptr, ptr, i64}),
        LLVM::Linkage::Internal);
    Block *entry = fn.addEntryBlock(b);
    Value threadFn = entry->getArgument(0), shared = entry->getArgument(1),
          count = entry->getArgument(2);
    Region &r = fn.getBody();
    auto newBlock = [&](ArrayRef<Type> args = {}) {
      Block *block = new Block();
      for (Type t : args)
        block->addArgument(t, loc);
      r.push_back(block);
      return block;
    };
    Block *forkHead = newBlock({i64}), *forkBody = newBlock(),
          *inlineRun = newBlock(), *forkNext = newBlock(), *self = newBlock(),
          *joinHead = newBlock({i64}), *joinBody = newBlock(),
          *joinCall = newBlock(), *joinNext = newBlock(), *done = newBlock();

    b.setInsertionPointToStart(entry);
    Value args = LLVM::AllocaOp::create(b, loc, ptr, threadArgType, count);
    Value handles = LLVM::AllocaOp::create(b, loc, ptr, i64, count);
    Value zero = constI64(b, loc, 0), one = constI64(b, loc, 1);
    Value null = LLVM::ZeroOp::create(b, loc, ptr);
    LLVM::BrOp::create(b, loc, ValueRange{one}, forkHead);

    auto argAt = [&](Value t) {
      return LLVM::GEPOp::create(b, loc, ptr, threadArgType, args,
                                 ArrayRef<LLVM::GEPArg>{t});
    };
    auto fillArg = [&](Value argPtr, Value t) {
      LLVM::StoreOp::create(b, loc, shared,
                            LLVM::GEPOp::create(b, loc, ptr, threadArgType,
                                                argPtr,
                                                ArrayRef<LLVM::GEPArg>{0, 0}));
      LLVM::StoreOp::create(b, loc, t,
                            LLVM::GEPOp::create(b, loc, ptr, threadArgType,
                                                argPtr,
                                                ArrayRef<LLVM::GEPArg>{0, 1}));
    };
    auto handleAt = [&](Value t) {
      return LLVM::GEPOp::create(b, loc, ptr, i64, handles,
                                 ArrayRef<LLVM::GEPArg>{t});
    };

    // for (t = 1; t < count; ++t) start or run fn({shared, t})
    b.setInsertionPointToEnd(forkHead);
    Value t = forkHead->getArgument(0);
    LLVM::CondBrOp::create(
        b, loc,
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, t, count),
        forkBody, self);
    b.setInsertionPointToEnd(forkBody);
    Value argPtr = argAt(t);
    fillArg(argPtr, t);
    Value rc =
        LLVM::CallOp::create(b, loc, create,
                             ValueRange{handleAt(t), null, threadFn, argPtr})
            .getResult();
    Value failedCreate = LLVM::ICmpOp::create(
        b, loc, LLVM::ICmpPredicate::ne, rc,
        LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(0)));
    LLVM::CondBrOp::create(b, loc, failedCreate, inlineRun, forkNext);
    b.setInsertionPointToEnd(inlineRun);
    LLVM::CallOp::create(b, loc, threadFnType, ValueRange{threadFn, argPtr});
    LLVM::StoreOp::create(b, loc, zero, handleAt(t));
    LLVM::BrOp::create(b, loc, forkNext);
    b.setInsertionPointToEnd(forkNext);
    LLVM::BrOp::create(b, loc, ValueRange{LLVM::AddOp::create(b, loc, t, one)},
                       forkHead);

    // The calling thread takes share 0.
    b.setInsertionPointToEnd(self);
    Value selfArg = argAt(zero);
    fillArg(selfArg, zero);
    LLVM::CallOp::create(b, loc, threadFnType, ValueRange{threadFn, selfArg});
    LLVM::BrOp::create(b, loc, ValueRange{one}, joinHead);

    // for (t = 1; t < count; ++t) if (handles[t]) pthread_join(handles[t])
    b.setInsertionPointToEnd(joinHead);
    Value jt = joinHead->getArgument(0);
    LLVM::CondBrOp::create(
        b, loc,
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::slt, jt, count),
        joinBody, done);
    b.setInsertionPointToEnd(joinBody);
    Value handle = LLVM::LoadOp::create(b, loc, i64, handleAt(jt));
    Value started =
        LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, handle, zero);
    LLVM::CondBrOp::create(b, loc, started, joinCall, joinNext);
    b.setInsertionPointToEnd(joinCall);
    LLVM::CallOp::create(b, loc, join, ValueRange{handle, null});
    LLVM::BrOp::create(b, loc, joinNext);
    b.setInsertionPointToEnd(joinNext);
    LLVM::BrOp::create(b, loc, ValueRange{LLVM::AddOp::create(b, loc, jt, one)},
                       joinHead);
    b.setInsertionPointToEnd(done);
    LLVM::ReturnOp::create(b, loc, ValueRange{});
    return fn;
  }
};
} // namespace
