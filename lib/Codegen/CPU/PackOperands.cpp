//===- PackOperands.cpp - CPU GEMM operands in micro-kernel layout --------===//
//
// Rewrites each statically shaped f32 linalg.matmul / linalg.batch_matmul
// into linalg.pack of both operands into the panels the CPU micro-kernel
// reads, a linalg.generic contraction of the panels, and linalg.unpack of
// the result. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Codegen/AmxLayout.h"
#include "xpu/Codegen/CpuTiles.h"
#include "xpu/Codegen/DotPairLayout.h"
#include "xpu/Codegen/Passes.h"
#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Dialect/XPU/IR/XPUAttrs.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPUPACKOPERANDSPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-cpu-pack-operands";

namespace {
/// Which operand of a matmul is read transposed, from its indexing maps.
struct MatmulForm {
  bool batched = false;
  bool rhsTransposed = false; // rhs is [b?, n, k]
};

/// The form of `op` if it is a floating-point matmul that reads its lhs as
/// [b?, m, k] and its rhs as [b?, k, n] or [b?, n, k], with static k and n
/// (the batch and m dimensions may be dynamic: the packing and the loops
/// then read them at run time); otherwise the reason it is left alone.
FailureOr<MatmulForm> matchMatmul(linalg::LinalgOp op, std::string &reason) {
  MatmulForm form;
  form.batched = isa<linalg::BatchMatmulOp>(op.getOperation());
  if (!op.hasPureTensorSemantics()) {
    reason = "it has buffer semantics";
    return failure();
  }
  // Loops (b?, m, n, k): only b and m may be dynamic.
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t b = form.batched ? 1 : 0;
  if (ShapedType::isDynamic(ranges[b + 1]) ||
      ShapedType::isDynamic(ranges[b + 2])) {
    reason = "its k or n dimension is dynamic";
    return failure();
  }
  MLIRContext *ctx = op->getContext();
  SmallVector<AffineMap> defaults =
      form.batched ? linalg::BatchMatmulOp::getDefaultIndexingMaps(ctx)
                   : linalg::MatmulOp::getDefaultIndexingMaps(ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  unsigned rank = defaults[1].getNumResults();
  if (maps.size() != 3 || maps[0] != defaults[0] || maps[2] != defaults[2] ||
      maps[1].getNumResults() != rank) {
    reason = "its lhs or result is not read in [b?, m, k] / [b?, m, n] order, "
             "or an operand is broadcast";
    return failure();
  }
  if (maps[1] != defaults[1]) {
    SmallVector<unsigned> perm = llvm::to_vector(llvm::seq<unsigned>(0, rank));
    std::swap(perm[rank - 1], perm[rank - 2]);
    AffineMap transposed =
        AffineMap::getPermutationMap(perm, ctx).compose(defaults[1]);
    if (maps[1] != transposed) {
      reason = "its rhs is read neither as [b?, k, n] nor as [b?, n, k]";
      return failure();
    }
    form.rhsTransposed = true;
  }
  return form;
}

/// The register model of the f32 micro-kernel on `target`'s vector
/// registers: a tile row is two vectors of f32 (nr = 2 x lanes), each row
/// two accumulators, and two registers hold the rhs vectors and one the
/// broadcast lhs value: mr = (registers - 3) / 2 rows. 16 ymm registers give
/// 6x16, 32 zmm registers 14x32.
SmallVector<int64_t> cpuRegisterTile(TargetAttr target) {
  int64_t lanes = std::max<int64_t>(1, target.getVectorBits() / 32);
  int64_t rows = std::max<int64_t>(1, (target.getGrfCount() - 3) / 2);
  return {rows, 2 * lanes};
}

/// True if the operands of `op` are all f32: the packed micro-kernel is
/// tuned and tested for f32; other element types keep the matmul tiling
/// (bf16 ones go to AMX where the target has it).
bool isAllF32(linalg::LinalgOp op) {
  return llvm::all_of(op->getOperandTypes(), [](Type t) {
    return cast<ShapedType>(t).getElementType().isF32();
  });
}

/// True if `op` multiplies bf16 operands into an f32 result (its body
/// widens them).
bool isBf16IntoF32(linalg::LinalgOp op) {
  auto elementType = [](Value v) {
    return cast<ShapedType>(v.getType()).getElementType();
  };
  return elementType(op.getDpsInputOperand(0)->get()).isBF16() &&
         elementType(op.getDpsInputOperand(1)->get()).isBF16() &&
         elementType(op.getDpsInitOperand(0)->get()).isF32();
}

/// What a narrow product (bf16 or i8 operands) computes: its AMX kind
/// (AmxLayout.h) and, for i8 operands, which are read unsigned.
struct NarrowProduct {
  AmxKind kind = kAmxBf16Kind;
  bool integer = false, zextLhs = false, zextRhs = false;
};

/// The narrow product of `op` if it multiplies bf16 operands into an f32
/// result, or i8 operands into an i32 result (with `int8` only), that
/// starts from zero: the AMX form (AmxLayout.h) and the pair-dot form
/// (DotPairLayout.h) compute exactly that (a batched one once per batch).
std::optional<NarrowProduct> matchNarrowProduct(linalg::LinalgOp op,
                                                bool int8) {
  Type lhs = cast<ShapedType>(op.getDpsInputOperand(0)->get().getType())
                 .getElementType();
  Type rhs = cast<ShapedType>(op.getDpsInputOperand(1)->get().getType())
                 .getElementType();
  Value init = op.getDpsInitOperand(0)->get();
  Type acc = cast<ShapedType>(init.getType()).getElementType();
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  Value fillValue = fill.getInputs()[0];
  if (lhs.isBF16() && rhs.isBF16() && acc.isF32() &&
      matchPattern(fillValue, m_AnyZeroFloat()))
    return NarrowProduct{};
  if (!int8 || !lhs.isInteger(8) || !rhs.isInteger(8) || !acc.isInteger(32) ||
      !matchPattern(fillValue, m_Zero()))
    return std::nullopt;
  // The matmul's body says how each operand is extended (linalg's
  // cast_signed or cast_unsigned).
  NarrowProduct product{kAmxInt8Kind, /*integer=*/true};
  for (auto [i, zext] : llvm::enumerate(
           std::array<bool *, 2>{&product.zextLhs, &product.zextRhs})) {
    Value arg = op.getBlock()->getArgument(i);
    if (!arg.hasOneUse() ||
        !isa<arith::ExtSIOp, arith::ExtUIOp>(*arg.user_begin()))
      return std::nullopt;
    *zext = isa<arith::ExtUIOp>(*arg.user_begin());
  }
  return product;
}

/// True if `target` has AMX tiles for bf16: a CPU whose matrix instruction
/// is tdpbf16ps's [16, 16, 32].
bool hasAmx(TargetAttr target) {
  return target && target.isCpu() &&
         target.getMma() == ArrayRef<int64_t>{kAmxRows, kAmxCols, kAmxK};
}

/// True if `target` is a CPU preset whose LLVM features name `feature` (a
/// chip that is not a preset does not say).
bool presetHasFeature(TargetAttr target, StringRef feature) {
  if (!target || !target.isCpu())
    return false;
  const TargetPreset *preset = lookupTargetPreset(target.getChip());
  if (!preset || !preset->cpu)
    return false;
  SmallVector<StringRef> features;
  StringRef(preset->cpu->features).split(features, ',');
  return llvm::is_contained(features, feature);
}

/// True if `target` also has AMX's int8 instructions (every AMX CPU preset
/// so far).
bool hasAmxInt8(TargetAttr target) {
  return hasAmx(target) && presetHasFeature(target, "amx-int8");
}

/// The pair dot products `target` has on 512-bit vectors and that beat
/// its f32 path: vdpbf16ps (avx512bf16) for bf16 where the target's bf16
/// peak is above its f32 peak (Zen 4: one vdpbf16ps does twice an FMA's
/// work at the same rate; Intel cores without AMX issue it on one port,
/// at half the rate of their two FMA ports, and the f32 panels are
/// faster), vpdpwssd (avx512vnni) for i8 widened to i16.
struct DotPairSupport {
  bool bf16 = false, int8 = false;
  bool any() const { return bf16 || int8; }
};
DotPairSupport getDotPairSupport(TargetAttr target) {
  if (!target || !target.isCpu() || target.getVectorBits() != 512)
    return {};
  return {presetHasFeature(target, "avx512bf16") &&
              target.getPeakBf16Gflops() > target.getPeakF32Gflops(),
          presetHasFeature(target, "avx512vnni")};
}

/// `value` converted elementwise to `type` by `convert`.
Value convertElements(
    OpBuilder &b, Location loc, Value value, Type type,
    function_ref<Value(OpBuilder &, Location, Value)> convert) {
  auto shaped = cast<RankedTensorType>(value.getType());
  Value empty = tensor::EmptyOp::create(
      b, loc, tensor::getMixedSizes(b, loc, value), type);
  AffineMap id = b.getMultiDimIdentityMap(shaped.getRank());
  return linalg::GenericOp::create(
             b, loc, empty.getType(), ValueRange{value}, ValueRange{empty},
             ArrayRef<AffineMap>{id, id},
             SmallVector<utils::IteratorType>(shaped.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange args) {
               linalg::YieldOp::create(nb, nl, convert(nb, nl, args[0]));
             })
      .getResult(0);
}

/// `value` (bf16) widened to f32 elementwise: exact.
Value widenToF32(OpBuilder &b, Location loc, Value value) {
  return convertElements(b, loc, value, b.getF32Type(),
                         [](OpBuilder &nb, Location nl, Value v) -> Value {
                           return arith::ExtFOp::create(nb, nl, nb.getF32Type(),
                                                        v);
                         });
}

/// `value` packed with `tiles` on `dims`, outer dims in `outerPerm` order.
Value pack(OpBuilder &b, Location loc, Value value, ArrayRef<int64_t> dims,
           ArrayRef<int64_t> tiles, ArrayRef<int64_t> outerPerm) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> tileSizes =
      getAsIndexOpFoldResult(b.getContext(), tiles);
  Value dest = linalg::PackOp::createDestinationTensor(b, loc, value, tileSizes,
                                                       dims, outerPerm);
  // Zero padding only where a tile does not divide its dimension (or may
  // not: a dynamic one).
  std::optional<Value> padding;
  if (llvm::any_of(llvm::zip(dims, tiles), [&](auto pair) {
        int64_t size = type.getDimSize(std::get<0>(pair));
        return ShapedType::isDynamic(size) || size % std::get<1>(pair) != 0;
      }))
    padding = arith::ConstantOp::create(b, loc, type.getElementType(),
                                        b.getZeroAttr(type.getElementType()));
  return linalg::PackOp::create(b, loc, value, dest, dims, tileSizes, padding,
                                outerPerm)
      .getResult();
}

struct PackOperandsPass final
    : xpu::impl::XPUCPUPackOperandsPassBase<PackOperandsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<int64_t> reg(registerTile.begin(), registerTile.end());
    TargetAttr target = TargetAttr::lookup(getOperation());
    bool useAmx = amx && hasAmx(target);
    bool useAmxInt8 = amx && hasAmxInt8(target);
    DotPairSupport dots =
        dotPairs ? getDotPairSupport(target) : DotPairSupport{};
    if (reg.empty()) {
      // Without a CPU #xpu.target: the AVX2 tile.
      reg = target && target.isCpu() ? cpuRegisterTile(target)
                                     : SmallVector<int64_t>{6, 16};
    }
    if (reg.size() != 2 || reg[0] <= 0 || reg[1] <= 0) {
      getOperation().emitError()
          << kPassArg << ": register-tile needs 2 positive sizes [mr, nr]";
      return signalPassFailure();
    }
    SmallVector<linalg::LinalgOp> matmuls;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : matmuls) {
      std::string reason;
      FailureOr<MatmulForm> form = matchMatmul(op, reason);
      // An empty dimension leaves nothing to pack (and no k block to cut).
      if (succeeded(form) &&
          llvm::is_contained(op.getStaticLoopRanges(), int64_t(0))) {
        reason = "it has an empty dimension: nothing to multiply";
        form = failure();
      }
      // The AMX form is built for static shapes.
      bool isStatic = llvm::all_of(op->getOperandTypes(), [](Type t) {
        return cast<ShapedType>(t).hasStaticShape();
      });
      std::optional<NarrowProduct> amxProduct;
      if (succeeded(form) && useAmx && isStatic)
        amxProduct = matchNarrowProduct(op, useAmxInt8);
      if (amxProduct) {
        rewriteMatmulForAmx(rewriter, op, *form, *amxProduct);
        ++numAmx;
        continue;
      }
      // Without AMX (or where its static form does not apply), bf16 and i8
      // products take the AVX-512 pair dot products where the chip has them.
      std::optional<NarrowProduct> dotProduct;
      if (succeeded(form) && dots.any())
        dotProduct = matchNarrowProduct(op, dots.int8);
      if (dotProduct && (dotProduct->integer ? dots.int8 : dots.bf16)) {
        rewriteMatmulForDotPairs(rewriter, op, *form, *dotProduct,
                                 dotPairTile(target, CpuTiles::get(op), reg));
        ++numDotPairs;
        continue;
      }
      // Elsewhere bf16 operands are widened to f32 (exactly) and take the
      // f32 panels.
      bool widenBf16 = succeeded(form) && isBf16IntoF32(op);
      if (succeeded(form) && !isAllF32(op) && !widenBf16) {
        reason = useAmx ? "its element types are neither all f32 nor bf16 "
                          "(i8) operands into a zero-filled f32 (i32) "
                          "result (AMX)"
                 : dots.any()
                     ? "its element types are neither all f32 nor bf16 (i8) "
                       "operands into a zero-filled f32 (i32) result (pair "
                       "dot products)"
                     : "its element types are not all f32";
        form = failure();
      }
      if (failed(form)) {
        remark::missed(op.getLoc(), remarkOpts(kPassArg, "NotPacked"))
            << remark::reason("{0} left in place: {1}",
                              op->getName().getStringRef(), reason);
        continue;
      }
      // A tuned register tile of this GEMM (xpu-cpu-apply-tuning-db) comes
      // first.
      CpuTiles tiles = CpuTiles::get(op);
      ArrayRef<int64_t> r = tiles.registerTile.empty()
                                ? ArrayRef<int64_t>(reg)
                                : ArrayRef<int64_t>(tiles.registerTile);
      Value lhs = op.getDpsInputOperand(0)->get();
      Value rhs = op.getDpsInputOperand(1)->get();
      if (widenBf16) {
        rewriter.setInsertionPoint(op);
        lhs = widenToF32(rewriter, op.getLoc(), lhs);
        rhs = widenToF32(rewriter, op.getLoc(), rhs);
      }
      rewriteMatmul(rewriter, op, *form, lhs, rhs, r[0], r[1], tiles);
      ++numPacked;
    }
  }

  /// bf16 (i8) lhs [b?, m, k] and rhs [b?, k, n] or [b?, n, k] into a
  /// zero-filled f32 (i32) [b?, m, n], in the AMX form (buildAmxProduct); a
  /// batched one in an scf.for over the batch, one AMX product per batch
  /// inserted into the result.
  void rewriteMatmulForAmx(RewriterBase &rewriter, linalg::LinalgOp op,
                           MatmulForm form, NarrowProduct amx) {
    Location loc = op.getLoc();
    rewriter.setInsertionPoint(op);
    Value lhs = op.getDpsInputOperand(0)->get();
    Value rhs = op.getDpsInputOperand(1)->get();
    auto resultType =
        cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
    Type accType = resultType.getElementType();
    if (!form.batched) {
      Value result = buildAmxProduct(rewriter, loc, lhs, rhs, form, amx,
                                     op->getName().getStringRef());
      // A padded result that is returned as it is would be copied out of
      // its strided view by the runtime's generic memref.copy: a
      // linalg.copy (loops, which LLVM vectorizes) is faster.
      if (result.getDefiningOp<tensor::ExtractSliceOp>() &&
          llvm::any_of(op->getUsers(), [](Operation *user) {
            return user->hasTrait<OpTrait::IsTerminator>();
          })) {
        Value dest = tensor::EmptyOp::create(rewriter, loc,
                                             resultType.getShape(), accType);
        result =
            linalg::CopyOp::create(rewriter, loc, result, dest).getResult(0);
      }
      rewriter.replaceOp(op, result);
      return;
    }
    // [b, rows, cols] -> the [rows, cols] matrix of batch `i`, and back.
    ArrayRef<int64_t> shape = resultType.getShape();
    auto matrixSlice = [&](Value i, ArrayRef<int64_t> dims) {
      SmallVector<OpFoldResult> offsets = {i, rewriter.getIndexAttr(0),
                                           rewriter.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1),
                                         rewriter.getIndexAttr(dims[1]),
                                         rewriter.getIndexAttr(dims[2])};
      SmallVector<OpFoldResult> strides(3, rewriter.getIndexAttr(1));
      return std::make_tuple(offsets, sizes, strides);
    };
    auto matrixOf = [&](Value batched, Value i) -> Value {
      auto type = cast<RankedTensorType>(batched.getType());
      auto [offsets, sizes, strides] = matrixSlice(i, type.getShape());
      auto matrix = RankedTensorType::get(type.getShape().drop_front(),
                                          type.getElementType());
      return tensor::ExtractSliceOp::create(rewriter, loc, matrix, batched,
                                            offsets, sizes, strides);
    };
    Value init = tensor::EmptyOp::create(rewriter, loc, shape, accType);
    Value lb = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value ub = arith::ConstantIndexOp::create(rewriter, loc, shape[0]);
    Value step = arith::ConstantIndexOp::create(rewriter, loc, 1);
    auto loop = scf::ForOp::create(
        rewriter, loc, lb, ub, step, ValueRange{init},
        [&](OpBuilder &, Location, Value i, ValueRange carried) {
          Value lhsMatrix = matrixOf(lhs, i);
          Value rhsMatrix = matrixOf(rhs, i);
          Value product = buildAmxProduct(rewriter, loc, lhsMatrix, rhsMatrix,
                                          form, amx, "each batch's matrix");
          auto [offsets, sizes, strides] = matrixSlice(i, shape);
          Value next = tensor::InsertSliceOp::create(
              rewriter, loc, product, carried[0], offsets, sizes, strides);
          scf::YieldOp::create(rewriter, loc, next);
        });
    remark::passed(loc, remarkOpts(kPassArg, "PackedForAmx")) << remark::reason(
        "{0} ({1}): one AMX product per batch, in an "
        "scf.for over the {2} batches",
        op->getName().getStringRef(), describe(amx), shape[0]);
    rewriter.replaceOp(op, loop.getResult(0));
  }

  /// "bf16 into f32", or the i8 operands' signedness into i32.
  static std::string describe(NarrowProduct amx) {
    if (!amx.integer)
      return "bf16 into f32";
    return llvm::formatv("{0} i8 times {1} i8 into i32",
                         amx.zextLhs ? "unsigned" : "signed",
                         amx.zextRhs ? "unsigned" : "signed");
  }

  /// bf16 (i8) lhs [m, k] and rhs [k, n] or [n, k] multiplied into a
  /// zero-filled f32 (i32) [m, n] in the AMX form (AmxLayout.h): the lhs
  /// packed into zero-padded 32 x k-step blocks, the rhs copied into a zero
  /// [Np, Kp] one (weight-only work, outlined into <fn>.pack when the rhs is
  /// a weight) and relaid into VNNI panels [N1, K1, 16, 16, group], the
  /// contraction into [M1, 32, N1, 16], and the [m, n] corner of its
  /// [Mp, Np] view (an extract_slice where it is padded) as the result.
  /// `what` names the product in the remark.
  Value buildAmxProduct(RewriterBase &rewriter, Location loc, Value lhs,
                        Value rhs, MatmulForm form, NarrowProduct amx,
                        StringRef what) {
    MLIRContext *ctx = rewriter.getContext();
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto rhsType = cast<RankedTensorType>(rhs.getType());
    int64_t m = lhsType.getDimSize(0), k = lhsType.getDimSize(1);
    int64_t n = rhsType.getDimSize(form.rhsTransposed ? 0 : 1);
    int64_t mp = llvm::alignTo(m, kAmxBlock), np = llvm::alignTo(n, kAmxBlock);
    int64_t kStep = amx.kind.k(), group = amx.kind.group;
    int64_t kp = llvm::alignTo(k, kStep);
    Type operand = lhsType.getElementType();
    Type accType =
        amx.integer ? Type(rewriter.getI32Type()) : Type(rewriter.getF32Type());
    auto zeros = [&](ArrayRef<int64_t> shape, Type elt) {
      Value empty = tensor::EmptyOp::create(rewriter, loc, shape, elt);
      Value zero = arith::ConstantOp::create(rewriter, loc, elt,
                                             rewriter.getZeroAttr(elt));
      return linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
    };
    // `source` read through `map` (identity or transposed) into the
    // [rows, cols] corner of a zero [rowsPadded, colsPadded] tensor.
    auto padded = [&](Value source, int64_t rows, int64_t cols,
                      int64_t rowsPadded, int64_t colsPadded,
                      bool transposed) -> Value {
      if (!transposed && rows == rowsPadded && cols == colsPadded)
        return source;
      Value dest = zeros({rowsPadded, colsPadded}, operand);
      SmallVector<OpFoldResult> offsets(2, rewriter.getIndexAttr(0));
      SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(rows),
                                         rewriter.getIndexAttr(cols)};
      SmallVector<OpFoldResult> strides(2, rewriter.getIndexAttr(1));
      Value corner = tensor::ExtractSliceOp::create(rewriter, loc, dest,
                                                    offsets, sizes, strides);
      AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
      AffineMap in =
          transposed
              ? AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, ctx)
              : id;
      Value copy = linalg::GenericOp::create(
                       rewriter, loc, corner.getType(), ValueRange{source},
                       ValueRange{corner}, ArrayRef<AffineMap>{in, id},
                       SmallVector<utils::IteratorType>(
                           2, utils::IteratorType::parallel),
                       [&](OpBuilder &b, Location l, ValueRange args) {
                         linalg::YieldOp::create(b, l, args[0]);
                       })
                       .getResult(0);
      return tensor::InsertSliceOp::create(rewriter, loc, copy, dest, offsets,
                                           sizes, strides);
    };
    // The lhs in zero-padded 32 x kStep blocks: a linalg.pack, which
    // xpu-cpu-tile-and-vectorize vectorizes (and no elementwise producer
    // is fused into the contraction through it).
    int64_t m1 = mp / kAmxBlock;
    Value lhsBlocks =
        pack(rewriter, loc, lhs, {0, 1}, {kAmxBlock, kStep}, /*outerPerm=*/{});
    // The rhs as [n, k]: an x·Wᵀ weight is read as it is, a [k, n] one
    // transposed.
    Value rhsPadded = padded(rhs, n, k, np, kp, !form.rhsTransposed);

    // VNNI panels: vnni[n1][k1][k2][j][kk] = rhs[n1 * 16 + j][k1 * kStep +
    // k2 * group + kk].
    int64_t n1 = np / kAmxCols, k1 = kp / kStep;
    SmallVector<int64_t> vnniShape = {n1, k1, kStep / group, kAmxCols, group};
    AffineExpr dn1, dk1, dk2, dj, dkk;
    bindDims(ctx, dn1, dk1, dk2, dj, dkk);
    AffineMap vnniIn = AffineMap::get(
        5, 0, {dn1 * kAmxCols + dj, dk1 * kStep + dk2 * group + dkk}, ctx);
    Value vnni =
        linalg::GenericOp::create(
            rewriter, loc, RankedTensorType::get(vnniShape, operand),
            ValueRange{rhsPadded},
            ValueRange{
                tensor::EmptyOp::create(rewriter, loc, vnniShape, operand)},
            ArrayRef<AffineMap>{vnniIn,
                                AffineMap::getMultiDimIdentityMap(5, ctx)},
            SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
            [&](OpBuilder &b, Location l, ValueRange args) {
              linalg::YieldOp::create(b, l, args[0]);
            })
            .getResult(0);

    // The contraction over (m1, mi, n1, n, k1, k2, kk).
    Value acc = zeros({m1, kAmxBlock, n1, kAmxCols}, accType);
    SmallVector<utils::IteratorType> iterators(4,
                                               utils::IteratorType::parallel);
    iterators.append(3, utils::IteratorType::reduction);
    Value product =
        linalg::GenericOp::create(
            rewriter, loc, acc.getType(), ValueRange{lhsBlocks, vnni},
            ValueRange{acc}, getAmxGemmIndexingMaps(ctx, amx.kind), iterators,
            [&](OpBuilder &b, Location l, ValueRange args) {
              if (!amx.integer) {
                Value a = arith::ExtFOp::create(b, l, accType, args[0]);
                Value w = arith::ExtFOp::create(b, l, accType, args[1]);
                Value mul = arith::MulFOp::create(b, l, a, w);
                linalg::YieldOp::create(
                    b, l,
                    arith::AddFOp::create(b, l, args[2], mul).getResult());
                return;
              }
              auto extend = [&](Value v, bool zext) -> Value {
                if (zext)
                  return arith::ExtUIOp::create(b, l, accType, v);
                return arith::ExtSIOp::create(b, l, accType, v);
              };
              Value a = extend(args[0], amx.zextLhs);
              Value w = extend(args[1], amx.zextRhs);
              Value mul = arith::MulIOp::create(b, l, a, w);
              linalg::YieldOp::create(
                  b, l, arith::AddIOp::create(b, l, args[2], mul).getResult());
            })
            .getResult(0);
    Value flat = tensor::CollapseShapeOp::create(
        rewriter, loc, RankedTensorType::get({mp, np}, accType), product,
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
    Value result = flat;
    if (m != mp || n != np)
      result = tensor::ExtractSliceOp::create(
          rewriter, loc, flat,
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(0),
                                 rewriter.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(m),
                                 rewriter.getIndexAttr(n)},
          ArrayRef<OpFoldResult>{rewriter.getIndexAttr(1),
                                 rewriter.getIndexAttr(1)});
    remark::passed(loc, remarkOpts(kPassArg, "PackedForAmx")) << remark::reason(
        "{0} ({1}) in the AMX form: lhs packed into 32x{2} blocks ({3}x{4} "
        "padded), rhs ({5}) into VNNI panels {6}x{7}x16x16x{8}, {9} tiles "
        "{3}x{10}",
        what, describe(amx), kStep, mp, kp,
        form.rhsTransposed ? "[n, k]" : "[k, n]", n1, k1, group,
        amx.integer ? "i32" : "f32", np);
    return result;
  }

  /// The register tile of a pair-dot GEMM: a tuned one (xpu-cpu-apply-
  /// tuning-db), else `reg` (the pass's option or the target's model),
  /// whichever comes first with columns that fill whole 16-lane
  /// accumulators; else the f32 micro-kernel's model of the target (14 x
  /// 32 on 32 zmm registers: two accumulators a row, two rhs vectors and
  /// the broadcast lhs pair).
  static std::pair<int64_t, int64_t>
  dotPairTile(TargetAttr target, const CpuTiles &tiles, ArrayRef<int64_t> reg) {
    for (ArrayRef<int64_t> r : {ArrayRef<int64_t>(tiles.registerTile), reg})
      if (r.size() == 2 && r[1] % kDotLanes == 0)
        return {r[0], r[1]};
    SmallVector<int64_t> model = cpuRegisterTile(target);
    return {model[0], model[1]};
  }

  /// bf16 (i8) lhs [b?, m, k] and rhs [b?, k, n] or [b?, n, k] multiplied
  /// into a zero-filled f32 (i32) [b?, m, n] in the pair-dot form
  /// (DotPairLayout.h): i8 operands widened to i16 as the matmul extends
  /// them (vpdpwssd multiplies signed 16-bit pairs, which hold any i8 or u8
  /// value), the lhs packed into [b?, M1, K2, mr, 2], the rhs into
  /// [b?, N1, K2, nr, 2] (weight-only work: <fn>.pack for a weight), the
  /// contraction into the panel accumulator [b?, M1, N1, mr, nr] and its
  /// unpacking. xpu-cpu-tile-and-vectorize builds its loop nest.
  void rewriteMatmulForDotPairs(RewriterBase &rewriter, linalg::LinalgOp op,
                                MatmulForm form, NarrowProduct product,
                                std::pair<int64_t, int64_t> tile) {
    auto [mr, nr] = tile;
    Location loc = op.getLoc();
    MLIRContext *ctx = op->getContext();
    rewriter.setInsertionPoint(op);
    int64_t b = form.batched ? 1 : 0;
    Value lhs = op.getDpsInputOperand(0)->get();
    Value rhs = op.getDpsInputOperand(1)->get();
    Value init = op.getDpsInitOperand(0)->get();
    auto resultType = cast<RankedTensorType>(init.getType());
    Type accType = resultType.getElementType();
    if (product.integer) {
      Type i16 = rewriter.getI16Type();
      auto widen = [&](Value v, bool zext) {
        return convertElements(
            rewriter, loc, v, i16,
            [&](OpBuilder &nb, Location nl, Value x) -> Value {
              if (zext)
                return arith::ExtUIOp::create(nb, nl, i16, x);
              return arith::ExtSIOp::create(nb, nl, i16, x);
            });
      };
      lhs = widen(lhs, product.zextLhs);
      rhs = widen(rhs, product.zextRhs);
    }
    auto shifted = [&](ArrayRef<int64_t> v) {
      return llvm::map_to_vector(v, [&](int64_t x) { return x + b; });
    };
    SmallVector<int64_t> rhsOuter;
    if (form.batched)
      rhsOuter.push_back(0);
    llvm::append_range(rhsOuter, shifted({1, 0}));
    Value packedLhs = pack(rewriter, loc, lhs, shifted({0, 1}), {mr, kDotPair},
                           /*outerPerm=*/{});
    // [b?, N1, K2, nr, 2] from either rhs layout: n is tiled by nr and k by
    // the pair; a [k, n] rhs has its outer dimensions swapped.
    Value packedRhs =
        form.rhsTransposed
            ? pack(rewriter, loc, rhs, shifted({0, 1}), {nr, kDotPair}, {})
            : pack(rewriter, loc, rhs, shifted({1, 0}), {nr, kDotPair},
                   rhsOuter);
    SmallVector<int64_t> resultDims = shifted({0, 1});
    SmallVector<int64_t> resultTiles = {mr, nr};
    auto fill = init.getDefiningOp<linalg::FillOp>();
    Value dest = linalg::PackOp::createDestinationTensor(
        rewriter, loc, init, getAsIndexOpFoldResult(ctx, resultTiles),
        resultDims, {});
    Value packedInit =
        linalg::FillOp::create(rewriter, loc, fill.getInputs(), dest)
            .getResult(0);
    SmallVector<utils::IteratorType> iterators(6 + b,
                                               utils::IteratorType::parallel);
    iterators[b + 2] = iterators[b + 5] = utils::IteratorType::reduction;
    auto contraction = linalg::GenericOp::create(
        rewriter, loc, TypeRange{packedInit.getType()},
        ValueRange{packedLhs, packedRhs}, ValueRange{packedInit},
        getDotPairGemmIndexingMaps(ctx, form.batched), iterators,
        [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value sum;
          if (product.integer) {
            Value a = arith::ExtSIOp::create(nb, nl, accType, args[0]);
            Value w = arith::ExtSIOp::create(nb, nl, accType, args[1]);
            sum = arith::AddIOp::create(nb, nl, args[2],
                                        arith::MulIOp::create(nb, nl, a, w));
          } else {
            Value a = arith::ExtFOp::create(nb, nl, accType, args[0]);
            Value w = arith::ExtFOp::create(nb, nl, accType, args[1]);
            sum = arith::AddFOp::create(nb, nl, args[2],
                                        arith::MulFOp::create(nb, nl, a, w));
          }
          linalg::YieldOp::create(nb, nl, sum);
        });
    CpuTiles::get(op).setOn(contraction);
    Value unpackDest = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, init), accType);
    Value unpacked = linalg::UnPackOp::create(
                         rewriter, loc, contraction.getResult(0), unpackDest,
                         resultDims, getAsIndexOpFoldResult(ctx, resultTiles))
                         .getResult();
    remark::passed(loc, remarkOpts(kPassArg, "PackedForDotPairs"))
        << remark::reason(
               "{0} ({4}) in the pair-dot form ({5}): lhs packed into "
               "{1}-row panels of k pairs, rhs ({2}) into {3}-column panels "
               "of k pairs, a contraction into [{1}, {3}] {6} tiles",
               op->getName().getStringRef(), mr,
               form.rhsTransposed ? "[n, k]" : "[k, n]", nr, describe(product),
               product.integer ? "vpdpwssd on i16 pairs" : "vdpbf16ps",
               product.integer ? "i32" : "f32");
    rewriter.replaceOp(op, unpacked);
  }

  /// lhs [b?, m, k] -> [b?, M1, k, mr]; rhs [b?, k, n] or [b?, n, k] ->
  /// [b?, N1, k, nr]; the product accumulates into [b?, M1, N1, mr, nr],
  /// unpacked to [b?, m, n].
  /// `tiles` (the GEMM's own, or none) go on the contraction, for
  /// xpu-cpu-tile-and-vectorize's cache tile.
  void rewriteMatmul(RewriterBase &rewriter, linalg::LinalgOp op,
                     MatmulForm form, Value lhs, Value rhs, int64_t mr,
                     int64_t nr, const CpuTiles &tiles) {
    Location loc = op.getLoc();
    MLIRContext *ctx = op->getContext();
    rewriter.setInsertionPoint(op);
    int64_t b = form.batched ? 1 : 0;
    Value init = op.getDpsInitOperand(0)->get();
    auto resultType = cast<RankedTensorType>(init.getType());

    // Dimensions past the batch one, and an outer permutation that keeps
    // the batch dimension first.
    auto shifted = [&](ArrayRef<int64_t> v) {
      return llvm::map_to_vector(v, [&](int64_t x) { return x + b; });
    };
    auto withBatch = [&](ArrayRef<int64_t> v) {
      SmallVector<int64_t> r;
      if (form.batched)
        r.push_back(0);
      llvm::append_range(r, shifted(v));
      return r;
    };
    Value packedLhs =
        pack(rewriter, loc, lhs, shifted({0}), {mr}, /*outerPerm=*/{});
    // The rhs panel of nr columns is contiguous along k, whichever way the
    // weight was laid out.
    Value packedRhs =
        form.rhsTransposed
            ? pack(rewriter, loc, rhs, shifted({0}), {nr}, {})
            : pack(rewriter, loc, rhs, shifted({1}), {nr}, withBatch({1, 0}));

    // The accumulator: a fill of the packed shape when the matmul starts
    // from a constant, else the init packed like the result.
    SmallVector<int64_t> resultDims = shifted({0, 1});
    SmallVector<int64_t> resultTiles = {mr, nr};
    Value packedInit;
    if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
      Value dest = linalg::PackOp::createDestinationTensor(
          rewriter, loc, init, getAsIndexOpFoldResult(ctx, resultTiles),
          resultDims, {});
      packedInit = linalg::FillOp::create(rewriter, loc, fill.getInputs(), dest)
                       .getResult(0);
    } else {
      packedInit = pack(rewriter, loc, init, resultDims, resultTiles, {});
    }

    // The contraction over (b?, M1, N1, k, mr, nr).
    unsigned numLoops = 5 + b;
    auto dim = [&](unsigned i) { return getAffineDimExpr(i + b, ctx); };
    auto map = [&](ArrayRef<AffineExpr> exprs) {
      SmallVector<AffineExpr> all;
      if (form.batched)
        all.push_back(getAffineDimExpr(0, ctx));
      llvm::append_range(all, exprs);
      return AffineMap::get(numLoops, 0, all, ctx);
    };
    SmallVector<AffineMap> maps = {map({dim(0), dim(2), dim(3)}),
                                   map({dim(1), dim(2), dim(4)}),
                                   map({dim(0), dim(1), dim(3), dim(4)})};
    SmallVector<utils::IteratorType> iterators(numLoops,
                                               utils::IteratorType::parallel);
    iterators[b + 2] = utils::IteratorType::reduction;
    auto product = linalg::GenericOp::create(
        rewriter, loc, TypeRange{packedInit.getType()},
        ValueRange{packedLhs, packedRhs}, ValueRange{packedInit}, maps,
        iterators, [&](OpBuilder &nb, Location nl, ValueRange args) {
          Value mul = arith::MulFOp::create(nb, nl, args[0], args[1]);
          Value add = arith::AddFOp::create(nb, nl, args[2], mul);
          linalg::YieldOp::create(nb, nl, add);
        });
    tiles.setOn(product);

    Value dest = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, init),
        resultType.getElementType());
    Value unpacked = linalg::UnPackOp::create(
                         rewriter, loc, product.getResult(0), dest, resultDims,
                         getAsIndexOpFoldResult(ctx, resultTiles))
                         .getResult();
    bool widened = lhs != op.getDpsInputOperand(0)->get();
    remark::passed(loc, remarkOpts(kPassArg, "Packed"))
        << remark::reason("{0}: {4}lhs packed into {1}-row panels, rhs ({2}) "
                          "into {3}-column panels, a contraction of panels "
                          "into [{1}, {3}] tiles",
                          op->getName().getStringRef(), mr,
                          form.rhsTransposed ? "[n, k]" : "[k, n]", nr,
                          widened ? "bf16 operands widened to f32 (neither "
                                    "the AMX nor the pair-dot form applies), "
                                  : "");
    rewriter.replaceOp(op, unpacked);
  }
};
} // namespace
