//===- LowerAmxGemm.cpp - the AMX GEMM as tile loads and tile products ----===//
//
// Lowers the AMX contraction that xpu-cpu-pack-operands builds (AmxLayout.h),
// on buffers, to loops of amx.tile_load / amx.tile_mulf (bf16) or
// amx.tile_muli (i8) / amx.tile_store.
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Codegen/AmxLayout.h"
#include "xpu/Codegen/Passes.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPULOWERAMXGEMMPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-cpu-lower-amx-gemm";
/// The function that asks Linux for the AMX tile state (once per call of a
/// function that uses AMX; the request is idempotent and cheap).
static constexpr StringLiteral kRequestAmx = "__xpu_cpu_request_amx";
static constexpr StringLiteral kRefusedMessage = "__xpu_cpu_amx_refused";
/// 32-row blocks per band of rows: 256 rows, whose f32 accumulators for a
/// group of 16 panels (256 KiB) stay in L2 across the k groups.
static constexpr int64_t kAmxRowBlocks = 8;

SmallVector<AffineMap> mlir::xpu::getAmxGemmIndexingMaps(MLIRContext *ctx,
                                                         AmxKind kind) {
  AffineExpr m1, mi, n1, n, k1, k2, kk;
  bindDims(ctx, m1, mi, n1, n, k1, k2, kk);
  auto map = [&](ArrayRef<AffineExpr> exprs) {
    return AffineMap::get(7, 0, exprs, ctx);
  };
  return {map({m1, k1, mi, k2 * kind.group + kk}), map({n1, k1, k2, n, kk}),
          map({m1, mi, n1, n})};
}

std::optional<AmxKind>
mlir::xpu::matchAmxGemmIndexingMaps(ArrayRef<AffineMap> maps) {
  if (maps.empty())
    return std::nullopt;
  MLIRContext *ctx = maps.front().getContext();
  for (AmxKind kind : {kAmxBf16Kind, kAmxInt8Kind})
    if (ArrayRef<AffineMap>(getAmxGemmIndexingMaps(ctx, kind)) == maps)
      return kind;
  return std::nullopt;
}

namespace {
/// The static strides of `type`, or failure.
FailureOr<SmallVector<int64_t>> staticStrides(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return failure();
  return strides;
}

/// The AMX contraction's buffers when `op` is one whose shapes and strides
/// the micro-kernel handles; the reason otherwise.
struct AmxGemm {
  Value lhs, rhs, acc;
  AmxKind kind = kAmxBf16Kind;
  /// i8 operands: which of them are unsigned (zero-extended in the body).
  bool integer = false, zextLhs = false, zextRhs = false;
  /// The zero fill of `acc` right before the contraction, folded into the
  /// nest (zero tiles instead of loads in the first k group); or null.
  linalg::FillOp zeroFill;
  bool zeroInit = false;
  int64_t m1 = 0, n1 = 0, k1 = 0;
  int64_t accStride = 0;
};

/// Matches the body `acc + ext(lhs) * ext(rhs)` of an AMX contraction:
/// extf/mulf/addf for bf16, extsi or extui/muli/addi for i8 (recording
/// which operands are zero-extended in `g`).
bool matchAmxBody(linalg::GenericOp op, AmxGemm &g) {
  Block *body = op.getBlock();
  if (body->getOperations().size() != 5)
    return false;
  Value yielded = cast<linalg::YieldOp>(body->getTerminator()).getOperand(0);
  Operation *add = yielded.getDefiningOp();
  if (!add || !isa<arith::AddFOp, arith::AddIOp>(add) ||
      g.integer != isa<arith::AddIOp>(add) ||
      add->getOperand(0) != body->getArgument(2))
    return false;
  Operation *mul = add->getOperand(1).getDefiningOp();
  if (!mul || !isa<arith::MulFOp, arith::MulIOp>(mul) ||
      g.integer != isa<arith::MulIOp>(mul))
    return false;
  // The extension of block argument `i`; `zext` is set for an extui.
  auto extended = [&](Value v, unsigned i, bool &zext) {
    Operation *ext = v.getDefiningOp();
    if (!ext || ext->getOperand(0) != body->getArgument(i))
      return false;
    zext = isa<arith::ExtUIOp>(ext);
    return g.integer ? isa<arith::ExtSIOp, arith::ExtUIOp>(ext)
                     : isa<arith::ExtFOp>(ext);
  };
  return extended(mul->getOperand(0), 0, g.zextLhs) &&
         extended(mul->getOperand(1), 1, g.zextRhs);
}

FailureOr<AmxGemm> matchAmxGemm(linalg::GenericOp op, std::string &reason) {
  std::optional<AmxKind> kind =
      matchAmxGemmIndexingMaps(op.getIndexingMapsArray());
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 7 || !kind)
    return failure(); // Not an AMX contraction: nothing to say.
  AmxGemm g;
  g.kind = *kind;
  g.integer = kind->group == kAmxInt8Kind.group;
  g.lhs = op.getDpsInputOperand(0)->get();
  g.rhs = op.getDpsInputOperand(1)->get();
  g.acc = op.getDpsInitOperand(0)->get();
  auto lhsType = cast<MemRefType>(g.lhs.getType());
  auto rhsType = cast<MemRefType>(g.rhs.getType());
  auto accType = cast<MemRefType>(g.acc.getType());
  auto isOperand = [&](Type t) {
    return g.integer ? t.isInteger(8) : t.isBF16();
  };
  auto isAcc = [&](Type t) { return g.integer ? t.isInteger(32) : t.isF32(); };
  if (!lhsType.hasStaticShape() || !rhsType.hasStaticShape() ||
      !accType.hasStaticShape() || !isOperand(lhsType.getElementType()) ||
      !isOperand(rhsType.getElementType()) ||
      !isAcc(accType.getElementType())) {
    reason = g.integer ? "its buffers are not static i8, i8 and i32"
                       : "its buffers are not static bf16, bf16 and f32";
    return failure();
  }
  // The body must be the product of the operands as they are (a fused
  // producer would change what the tiles compute).
  if (!matchAmxBody(op, g)) {
    reason = g.integer ? "its body is not acc + ext(lhs) * ext(rhs) on i32"
                       : "its body is not acc + extf(lhs) * extf(rhs)";
    return failure();
  }
  int64_t kStep = g.kind.k(), group = g.kind.group;
  g.m1 = lhsType.getDimSize(0);
  g.k1 = lhsType.getDimSize(1);
  g.n1 = rhsType.getDimSize(0);
  if (lhsType.getShape().drop_front(2) != ArrayRef<int64_t>{kAmxBlock, kStep} ||
      g.n1 % (kAmxBlock / kAmxCols) != 0 || rhsType.getDimSize(1) != g.k1 ||
      rhsType.getShape().drop_front(2) !=
          ArrayRef<int64_t>{kStep / group, kAmxCols, group} ||
      accType.getShape() !=
          ArrayRef<int64_t>{g.m1, kAmxBlock, g.n1, kAmxCols}) {
    reason = llvm::formatv("its shapes are not whole 32x32 blocks and "
                           "{0}-deep k steps",
                           kStep);
    return failure();
  }
  FailureOr<SmallVector<int64_t>> lhsStrides = staticStrides(lhsType);
  FailureOr<SmallVector<int64_t>> rhsStrides = staticStrides(rhsType);
  FailureOr<SmallVector<int64_t>> accStrides = staticStrides(accType);
  // Tile rows are contiguous: 64 bytes of an lhs block, a 16x16xgroup
  // panel step of the rhs, 16 elements of the accumulator.
  if (failed(lhsStrides) || failed(rhsStrides) || failed(accStrides) ||
      ArrayRef(*lhsStrides).drop_front(2) != ArrayRef<int64_t>{kStep, 1} ||
      ArrayRef(*rhsStrides).drop_front(2) !=
          ArrayRef<int64_t>{kAmxCols * group, group, 1} ||
      ArrayRef(*accStrides).drop_front(2) != ArrayRef<int64_t>{kAmxCols, 1}) {
    reason = "its buffers' rows are not contiguous";
    return failure();
  }
  g.accStride = (*accStrides)[1];
  // A zero fill of the accumulator earlier in the block, with nothing in
  // between that touches the buffer: the nest can start from zero tiles.
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (fill && fill.hasPureBufferSemantics() &&
        fill.getOutputs()[0] == g.acc &&
        (matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ||
         matchPattern(fill.getInputs()[0], m_Zero()))) {
      g.zeroFill = fill;
      g.zeroInit = true;
      break;
    }
    if (llvm::is_contained(prev->getOperands(), g.acc) ||
        prev->getNumRegions() != 0)
      break;
  }
  return g;
}

/// Declares (once) `__xpu_cpu_request_amx`: the arch_prctl system call that
/// asks Linux for the AMX tile data state; where the kernel refuses, it
/// writes one line to stderr and exits with status 1 (a tile instruction
/// would raise SIGILL).
func::FuncOp getOrCreateRequestAmx(ModuleOp module) {
  if (auto fn = module.lookupSymbol<func::FuncOp>(kRequestAmx))
    return fn;
  MLIRContext *ctx = module.getContext();
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location loc = module.getLoc();
  std::string message =
      "xpu: Linux refused the AMX tile state "
      "(arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) failed); "
      "compile without AMX (xpu-cpu-pipeline chip=x86-64-v4)\n";
  auto i8 = IntegerType::get(ctx, 8);
  auto arrayType = LLVM::LLVMArrayType::get(i8, message.size());
  LLVM::GlobalOp::create(b, loc, arrayType, /*isConstant=*/true,
                         LLVM::Linkage::Internal, kRefusedMessage,
                         b.getStringAttr(message));
  auto exitFn = module.lookupSymbol<func::FuncOp>("exit");
  if (!exitFn) {
    exitFn = func::FuncOp::create(b, loc, "exit",
                                  FunctionType::get(ctx, {b.getI32Type()}, {}));
    exitFn.setPrivate();
  }
  auto fn =
      func::FuncOp::create(b, loc, kRequestAmx, FunctionType::get(ctx, {}, {}));
  fn.setPrivate();
  b.setInsertionPointToStart(fn.addEntryBlock());
  auto i64 = b.getI64Type();
  auto c64 = [&](int64_t v) {
    return arith::ConstantIntOp::create(b, loc, i64, v).getResult();
  };
  auto syscall = [&](ArrayRef<Value> args, StringRef constraints) {
    return LLVM::InlineAsmOp::create(
               b, loc, i64, args, "syscall", constraints,
               /*has_side_effects=*/true, /*is_align_stack=*/false,
               LLVM::TailCallKind::None, /*asm_dialect=*/nullptr,
               /*operand_attrs=*/nullptr)
        .getResult(0);
  };
  // SYS_arch_prctl (158), ARCH_REQ_XCOMP_PERM (0x1023), XFEATURE_XTILEDATA
  // (18).
  Value status = syscall({c64(158), c64(0x1023), c64(18)},
                         "={rax},{rax},{rdi},{rsi},~{rcx},~{r11},~{memory}");
  Value refused =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, status, c64(0));
  auto ifOp = scf::IfOp::create(b, loc, refused, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  Value text = LLVM::AddressOfOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx), kRefusedMessage);
  Value textInt = LLVM::PtrToIntOp::create(b, loc, i64, text);
  // SYS_write (1) to stderr (2).
  syscall({c64(1), c64(2), textInt, c64(message.size())},
          "={rax},{rax},{rdi},{rsi},{rdx},~{rcx},~{r11},~{memory}");
  func::CallOp::create(
      b, loc, exitFn,
      ValueRange{arith::ConstantIntOp::create(b, loc, b.getI32Type(), 1)});
  b.setInsertionPointAfter(ifOp);
  func::ReturnOp::create(b, loc);
  return fn;
}

/// The loop nest: groups of `nb` rhs column panels, then bands of rows, then
/// k in groups of `group` steps, then 32-row blocks and pairs of panels:
/// one 32x32 output block (2x2 tiles) accumulates one k group at a time.
void emitAmxGemm(OpBuilder &b, Location loc, const AmxGemm &g, int64_t nb,
                 int64_t group, int64_t unroll, bool parallel) {
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Type operand = g.integer ? Type(b.getI8Type()) : Type(b.getBF16Type());
  Type accElt = g.integer ? Type(b.getI32Type()) : Type(b.getF32Type());
  int64_t kStep = g.kind.k(), vnni = g.kind.group;
  auto lhsTile = amx::TileType::get({kAmxRows, kStep}, operand);
  auto rhsTile = amx::TileType::get({kStep / vnni, kAmxCols * vnni}, operand);
  auto accTile = amx::TileType::get({kAmxRows, kAmxCols}, accElt);
  Value zero = idx(0), one = idx(1), two = idx(2), sixteen = idx(kAmxRows);
  Value lhsStride = idx(kStep), accStride = idx(g.accStride);
  Value rhsStride = idx(kAmxCols * vnni);
  auto add = [&](Value a, Value c) {
    return arith::AddIOp::create(b, loc, a, c).getResult();
  };
  auto forLoop = [&](Value lb, Value ub, Value step,
                     function_ref<void(Value)> body) {
    scf::ForOp::create(b, loc, lb, ub, step, ValueRange{},
                       [&](OpBuilder &, Location, Value iv, ValueRange) {
                         body(iv);
                         scf::YieldOp::create(b, loc);
                       });
  };
  // `steps` k steps from k step `k` of the 32x32 block (i, panels j and
  // j + 1): the accumulators are loaded (or zeroed) before, carried in tile
  // registers through a loop of `unroll` steps per iteration, and stored
  // after.
  auto emitSteps = [&](Value i, Value j, Value k, int64_t steps,
                       bool zeroInit) {
    Value j1 = add(j, one);
    // (row within the block, rhs panel) of the four accumulators.
    SmallVector<std::pair<Value, Value>> tiles = {
        {zero, j}, {zero, j1}, {sixteen, j}, {sixteen, j1}};
    auto accAt = [&](Value row, Value panel) {
      return SmallVector<Value>{i, row, panel, zero};
    };
    SmallVector<Value> c;
    for (auto [row, panel] : tiles)
      c.push_back(zeroInit
                      ? amx::TileZeroOp::create(b, loc, accTile).getResult()
                      : amx::TileLoadOp::create(b, loc, accTile, g.acc,
                                                accAt(row, panel), accStride)
                            .getResult());
    // One k step: two lhs and two rhs tiles, four tdpbf16ps (or tdpb*d).
    auto step = [&](Value ks, ValueRange acc) -> SmallVector<Value> {
      auto lhsAt = [&](Value row) {
        return amx::TileLoadOp::create(b, loc, lhsTile, g.lhs,
                                       ValueRange{i, ks, row, zero}, lhsStride)
            .getResult();
      };
      auto rhsAt = [&](Value panel) {
        return amx::TileLoadOp::create(b, loc, rhsTile, g.rhs,
                                       ValueRange{panel, ks, zero, zero, zero},
                                       rhsStride)
            .getResult();
      };
      Value a0 = lhsAt(zero), a1 = lhsAt(sixteen);
      Value b0 = rhsAt(j), b1 = rhsAt(j1);
      auto mul = [&](Value lhs, Value rhs, Value sum) -> Value {
        if (g.integer)
          return amx::TileMulIOp::create(b, loc, accTile, lhs, rhs, sum,
                                         g.zextLhs, g.zextRhs);
        return amx::TileMulFOp::create(b, loc, accTile, lhs, rhs, sum);
      };
      return {mul(a0, b0, acc[0]), mul(a0, b1, acc[1]), mul(a1, b0, acc[2]),
              mul(a1, b1, acc[3])};
    };
    int64_t body = std::min(unroll, steps);
    int64_t looped = steps / body * body;
    if (looped > body) {
      auto loop = scf::ForOp::create(
          b, loc, k, add(k, idx(looped)), idx(body), c,
          [&](OpBuilder &, Location, Value kk, ValueRange carried) {
            SmallVector<Value> acc(carried);
            for (int64_t s = 0; s < body; ++s)
              acc = step(add(kk, idx(s)), acc);
            scf::YieldOp::create(b, loc, acc);
          });
      c = llvm::to_vector_of<Value>(loop.getResults());
    } else {
      looped = 0;
    }
    for (int64_t s = looped; s < steps; ++s)
      c = step(add(k, idx(s)), c);
    for (auto [tile, at] : llvm::zip(c, tiles))
      amx::TileStoreOp::create(b, loc, g.acc, accAt(at.first, at.second), tile,
                               accStride);
  };
  // For one group of panels [jc, jEnd) and `steps` k steps from `k`: every
  // 32-row block, every pair of panels. The lhs slice of a block (2 KiB per
  // k step) is read again for every pair, the group's rhs slice (half of
  // L2) for every block.
  auto emitBlocks = [&](Value ic, Value iEnd, Value jc, Value jEnd, Value k,
                        int64_t steps, bool zeroInit) {
    forLoop(ic, iEnd, one, [&](Value i) {
      forLoop(jc, jEnd, two,
              [&](Value j) { emitSteps(i, j, k, steps, zeroInit); });
    });
  };
  // The first k group starts from zero tiles when the accumulator's zero
  // fill was folded in (then nothing else initializes it).
  int64_t main = g.k1 / group * group;
  // Rows in bands of kAmxRowBlocks blocks, so that the accumulators of a
  // band and panel group stay in L2 across the k groups.
  auto emitGroup = [&](Value jc) {
    Value jEnd = arith::MinSIOp::create(b, loc, add(jc, idx(nb)), idx(g.n1));
    forLoop(zero, idx(g.m1), idx(kAmxRowBlocks), [&](Value ic) {
      Value iEnd = arith::MinSIOp::create(b, loc, add(ic, idx(kAmxRowBlocks)),
                                          idx(g.m1));
      int64_t first = g.zeroInit ? group : 0;
      if (g.zeroInit)
        emitBlocks(ic, iEnd, jc, jEnd, zero, group, /*zeroInit=*/true);
      if (first < main)
        forLoop(idx(first), idx(main), idx(group), [&](Value k) {
          emitBlocks(ic, iEnd, jc, jEnd, k, group, false);
        });
      if (main != g.k1)
        emitBlocks(ic, iEnd, jc, jEnd, idx(main), g.k1 - main, false);
    });
  };
  // The panel groups write disjoint columns: with `parallel`, an
  // scf.forall (run on threads by the CPU pipeline).
  if (!parallel) {
    forLoop(zero, idx(g.n1), idx(nb), emitGroup);
    return;
  }
  scf::ForallOp::create(b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(0)},
                        ArrayRef<OpFoldResult>{b.getIndexAttr(g.n1)},
                        ArrayRef<OpFoldResult>{b.getIndexAttr(nb)},
                        ValueRange{}, std::nullopt,
                        [&](OpBuilder &, Location, ValueRange ivs) {
                          emitGroup(ivs[0]);
                          scf::InParallelOp::create(b, loc);
                        });
}

struct LowerAmxGemmPass final
    : xpu::impl::XPUCPULowerAmxGemmPassBase<LowerAmxGemmPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::GenericOp, AmxGemm>> gemms;
    module.walk([&](linalg::GenericOp op) {
      std::string reason;
      FailureOr<AmxGemm> g = matchAmxGemm(op, reason);
      if (succeeded(g)) {
        gemms.push_back({op, *g});
      } else if (!reason.empty()) {
        remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotLowered"))
            << remark::reason("AMX contraction left to the scalar loops: {0}",
                              reason);
      }
    });
    if (gemms.empty())
      return;
    func::FuncOp request = getOrCreateRequestAmx(module);
    for (auto [op, g] : gemms) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      func::CallOp::create(b, loc, request, ValueRange{});
      // Panels of the rhs per pass over the rows: as many 16-column panels
      // as fit in half of `l2-bytes` (at least one pair).
      int64_t panelBytes = g.k1 * kAmxCols * kAmxRowBytes;
      int64_t nb = std::max<int64_t>(2, (l2Bytes / 2) / panelBytes) & ~1;
      // With threads, at least 8 groups where the panels allow it.
      if (parallel)
        nb = std::min(nb, std::max<int64_t>(2, g.n1 / 8 & ~1));
      int64_t group = kSteps > 0 ? std::min<int64_t>(kSteps, g.k1) : g.k1;
      emitAmxGemm(b, loc, g, std::min(nb, g.n1), group,
                  std::max<int64_t>(1, kUnroll), parallel);
      op.erase();
      if (g.zeroFill)
        g.zeroFill.erase();
      ++numLowered;
      std::string instruction = "tdpbf16ps";
      if (g.integer)
        instruction = llvm::formatv("tdpb{0}{1}d", g.zextLhs ? "u" : "s",
                                    g.zextRhs ? "u" : "s");
      remark::passed(loc, remarkOpts(kPassArg, "Lowered")) << remark::reason(
          "AMX GEMM {0}x{1}x{2} (padded): 2x2 blocks of 16x16 {3} tiles, "
          "{4} over k in steps of {5}, the accumulators in tile "
          "registers for {6} of the {7} steps at a time, {8} rhs panels of 16 "
          "columns per pass over the rows",
          g.m1 * kAmxBlock, g.n1 * kAmxCols, g.k1 * g.kind.k(),
          g.integer ? "i32" : "f32", instruction, g.kind.k(), group, g.k1,
          std::min(nb, g.n1));
    }
  }
};
} // namespace
