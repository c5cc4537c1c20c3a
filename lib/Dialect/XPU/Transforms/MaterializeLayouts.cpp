//===- MaterializeLayouts.cpp - operands in each backend's layout ---------===//
//
// Data tiling before weight packing: each configured xpu.gemm's operands are
// put in the layout its backend reads (GemmBackends.h), on tensors, so that
// the layout work on weights is weight-only computation that
// xpu-outline-weight-pack moves into <fn>.pack (and constant folding does at
// compile time for constant weights). The GEMM reads each packed operand
// through a view of its logical shape, which xpu-schedule-gemm reads
// through (getPackedOperand). Backends: xe (precision, [k, n] B, 2D block
// pitches, epilogue panels), nvgpu (16-byte or TMA row pitches of A and
// B); SIMT kernels read the operands as they are.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/GemmBackends.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUMATERIALIZELAYOUTSPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-materialize-layouts";

namespace {

/// Builds the layout changes of one GEMM's operands, before the GEMM.
class LayoutBuilder {
public:
  LayoutBuilder(OpBuilder &b, GemmOp gemm)
      : b(b), gemm(gemm), loc(gemm.getLoc()) {}

  /// `t` with its last two dimensions swapped.
  Value transposeLast2(Value t) {
    auto type = cast<RankedTensorType>(t.getType());
    unsigned rank = type.getRank();
    SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(perm[rank - 1], perm[rank - 2]);
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[rank - 1], shape[rank - 2]);
    Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
    return linalg::TransposeOp::create(b, loc, t, init, perm).getResult()[0];
  }

  /// Broadcasts `t` to `shape`, adding the dimensions `dims`.
  Value broadcast(Value t, ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
    auto type = cast<RankedTensorType>(t.getType());
    Value init = tensor::EmptyOp::create(b, loc, shape, type.getElementType());
    return linalg::BroadcastOp::create(b, loc, t, init, dims).getResult()[0];
  }

  /// Pads the innermost dimension of `t` with zeros to `pitch` elements and,
  /// when `rows` is given, the one before it to `rows`.
  Value padRows(Value t, int64_t pitch, std::optional<int64_t> rows = {}) {
    auto type = cast<RankedTensorType>(t.getType());
    unsigned rank = type.getRank();
    SmallVector<int64_t> shape(type.getShape());
    int64_t cols = shape.back();
    int64_t oldRows = rows ? shape[rank - 2] : 0;
    if (cols == pitch && (!rows || *rows == oldRows))
      return t;
    SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0));
    SmallVector<OpFoldResult> high(rank, b.getIndexAttr(0));
    shape.back() = pitch;
    high.back() = b.getIndexAttr(pitch - cols);
    if (rows) {
      shape[rank - 2] = *rows;
      high[rank - 2] = b.getIndexAttr(*rows - oldRows);
    }
    Value zero =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
    return tensor::PadOp::create(b, loc, type.clone(shape), t, low, high, zero);
  }

  /// The view of `packed` with the shape `logical`: the leading part of each
  /// dimension; marked as a panel view when it drops dimensions.
  Value view(Value packed, RankedTensorType logical, ArrayRef<int64_t> sizes) {
    if (packed.getType() == logical)
      return packed;
    auto src = cast<RankedTensorType>(packed.getType());
    unsigned rank = src.getRank();
    SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
    SmallVector<OpFoldResult> sz;
    for (int64_t s : sizes)
      sz.push_back(b.getIndexAttr(s));
    auto slice = tensor::ExtractSliceOp::create(b, loc, logical, packed,
                                                offsets, sz, strides);
    if (logical.getRank() != src.getRank())
      slice->setAttr(XPUDialect::getPanelAttrName(), b.getUnitAttr());
    return slice;
  }

  OpBuilder &b;
  GemmOp gemm;
  Location loc;
};

struct MaterializeLayoutsPass final
    : xpu::impl::XPUMaterializeLayoutsPassBase<MaterializeLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<GemmOp> gemms;
    getOperation().walk([&](GemmOp gemm) {
      if (gemm.getConfigAttr())
        gemms.push_back(gemm);
    });
    TargetAttr target = resolveTarget(getOperation());
    for (GemmOp gemm : gemms) {
      GemmBackend backend = getGemmBackend(gemm.getConfigAttr());
      if (backend == GemmBackend::nvgpu) {
        if (failed(materializeNVGPU(gemm, target)))
          return signalPassFailure();
        continue;
      }
      if (backend != GemmBackend::xe) {
        remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "AsTheyAre"))
            << remark::reason(
                   "{0}: the SIMT kernels read the operands as they are "
                   "(rhs {1} transposed on the way into shared memory, "
                   "epilogue vectors read per row and column)",
                   describeGemmShape(gemm),
                   stringifyRhsLayout(gemm.getRhsLayout()));
        continue;
      }
      if (failed(materializeXe(gemm, target)))
        return signalPassFailure();
    }
  }

  LogicalResult materializeXe(GemmOp gemm, TargetAttr target);
  LogicalResult materializeNVGPU(GemmOp gemm, TargetAttr target);
  void remark(GemmOp gemm, StringRef name, const Twine &why) {
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, name))
        << remark::reason("{0}: {1}", describeGemmShape(gemm), why.str());
    ++numChanged;
  }
};

LogicalResult MaterializeLayoutsPass::materializeXe(GemmOp gemm,
                                                    TargetAttr target) {
  std::string why;
  Operation *where = gemm;
  if (failed(checkBackendGemm(GemmBackend::xe, gemm, target, why, where)))
    return where->emitError() << kPassArg << ": " << why;
  OpBuilder b(gemm);
  Location loc = gemm.getLoc();

  // An epilogue that computes in a type the kernel does not (f64, as
  // xpu-demote-f64 leaves it under keep-f64 or after an extf) runs on the
  // host: the kernel stores the f32 accumulator.
  if (!xe::hasDeviceEpilogue(gemm)) {
    RankedTensorType accType = gemm.getResultType().clone(b.getF32Type());
    auto plain =
        GemmOp::create(b, loc, gemm.getLhs(), gemm.getRhs(),
                       gemm.getRhsLayout(), gemm.getAccType(), accType);
    plain.inheritAttributes(gemm);
    b.setInsertionPointAfter(plain);
    Value result = buildEpilogueGeneric(b, gemm, plain.getResult());
    gemm.replaceAllUsesWith(result);
    gemm.erase();
    gemm = plain;
    b.setInsertionPoint(gemm);
    remark(gemm, "HostEpilogue",
           "the epilogue computes in a type the kernel does not (f64, or bf16 "
           "results): the "
           "kernel stores the f32 accumulator and the epilogue runs on the "
           "host");
  }
  LayoutBuilder lb(b, gemm);
  int64_t m = gemm.getM(), n = gemm.getN(), k = gemm.getK();
  ArrayRef<int64_t> tile = gemm.getConfigAttr().getTile();
  int64_t tm = tile[0], tn = tile[1];
  bool batched = gemm.isBatched();
  auto lead = [&](ArrayRef<int64_t> dims) {
    SmallVector<int64_t> s;
    if (batched)
      s.push_back(gemm.getBatchSize());
    s.append(dims.begin(), dims.end());
    return s;
  };

  // Precision: DPAS multiplies bf16 or f16 and accumulates in f32.
  Value lhs = gemm.getLhs(), rhs = gemm.getRhs();
  Type lhsElt = gemm.getLhsType().getElementType();
  Type inElt = xe::getDpasOperandType(gemm);
  if (inElt != lhsElt) {
    TensorElementTypeConverter converter(b.getContext());
    lhs = converter.convert(lhs, cast<FloatType>(inElt));
    rhs = converter.convert(rhs, cast<FloatType>(inElt));
    remark(gemm, "Precision",
           llvm::formatv("{0} operands converted to {1} for DPAS ({1} x {1} "
                         "-> f32; tf32 is not used)",
                         lhsElt, inElt));
  }
  // B as [k, n]: the transform block read packs [k, n] blocks for DPAS
  // (VNNI on the fly).
  if (gemm.getRhsLayout() == RhsLayout::nk) {
    rhs = lb.transposeLast2(rhs);
    gemm.setRhsLayout(RhsLayout::kn);
    remark(gemm, "TransposeRhs",
           "rhs [n, k] transposed to [k, n] (the block reads of B take [k, n] "
           "rows)");
  }
  // Row pitches legal for 2D block I/O, and for batched operands slabs of
  // whole 64-byte blocks (every batch's base address aligned), read through
  // views. The padding is zeros: the kernel reads the columns of a row up
  // to the nearest legal block width (xe::getBlockWidth), and A's padding
  // columns are multiplied into the sum.
  auto pitched = [&](Value t, int64_t rows, int64_t cols, StringRef what) {
    auto type = cast<RankedTensorType>(t.getType());
    Type elt = type.getElementType();
    int64_t bytes = xe::getElementBytes(elt);
    int64_t pitch = xe::getLegalPitch(target, cols, elt);
    bool perBatch = type.getRank() == 3;
    int64_t slabRows =
        perBatch ? xe::getBatchRows(target, rows, pitch, elt) : rows;
    if (pitch == cols && slabRows == rows)
      return t;
    if (pitch != cols)
      remark(gemm, "PadPitch",
             llvm::formatv("{0}: rows of {1} x {2} bytes padded with zeros to "
                           "{3} elements, the narrowest pitch 2D block I/O "
                           "accepts (>= 64 bytes, a multiple of 16)",
                           what, cols, bytes, pitch));
    if (slabRows != rows)
      remark(gemm, "PadBatchRows",
             llvm::formatv("{0}: each batch's {1} rows of {2} bytes padded "
                           "with zero rows to {3}, so that every batch starts "
                           "64-byte aligned (2D block I/O)",
                           what, rows, pitch * bytes, slabRows));
    Value padded =
        lb.padRows(t, pitch, perBatch ? std::optional(slabRows) : std::nullopt);
    return lb.view(padded, type, lead({rows, cols}));
  };
  gemm.getLhsMutable().set(pitched(lhs, m, k, "A"));
  gemm.getRhsMutable().set(pitched(rhs, k, n, "B"));

  // Epilogue operands: full ones pitched; per_col ones as row vectors of
  // whole tiles that the kernel gathers (each lane its own columns) and
  // broadcasts; per_row / scalar ones as tile-wide / tile-sized panels the
  // kernel reads with the accumulator's layout (22.1.8 cannot distribute a
  // column vector broadcast along rows; docs/Intel.md).
  for (auto [i, operand] : llvm::enumerate(gemm.getEpilogueOperands())) {
    auto type = cast<RankedTensorType>(operand.getType());
    Type elt = type.getElementType();
    std::string what = llvm::formatv("epilogue operand #{0}", i).str();
    Value packed;
    SmallVector<int64_t> sizes;
    switch (gemm.getBroadcastKind(i)) {
    case BroadcastKind::full:
      gemm->setOperand(2 + i, pitched(operand, m, n, what));
      continue;
    case BroadcastKind::per_col: {
      // The kernel reads tn columns per tile without a bounds check.
      int64_t cols = llvm::alignTo(n, tn);
      if (cols == n) {
        remark(gemm, "RowVector",
               llvm::formatv("{0} (per_col) read as it is: {1} whole "
                             "{2}-column tiles of a row vector",
                             what, n / tn, tn));
        continue;
      }
      packed = lb.padRows(lb.broadcast(operand, {1, n}, {0}), cols);
      remark(gemm, "RowVector",
             llvm::formatv("{0} (per_col) padded with zeros to {1} columns, "
                           "whole {2}-column tiles of a row vector",
                           what, cols, tn));
      gemm->setOperand(2 + i, lb.view(packed, type, {1, n}));
      continue;
    }
    case BroadcastKind::per_row:
      packed = lb.padRows(lb.broadcast(operand, {m, tn}, {1}),
                          xe::getLegalPitch(target, tn, elt));
      sizes = {m, 1};
      break;
    case BroadcastKind::scalar:
      packed = lb.padRows(lb.broadcast(operand, {tm, tn}, {0, 1}),
                          xe::getLegalPitch(target, tn, elt));
      sizes = {1, 1};
      break;
    }
    auto panelType = cast<RankedTensorType>(packed.getType());
    remark(gemm, "Panel",
           llvm::formatv("{0} ({1}) broadcast to a {2}x{3} panel that the "
                         "kernel reads with the accumulator's layout",
                         what, stringifyBroadcastKind(gemm.getBroadcastKind(i)),
                         panelType.getDimSize(0), panelType.getDimSize(1)));
    gemm->setOperand(2 + i, lb.view(packed, type, sizes));
  }
  return success();
}

LogicalResult MaterializeLayoutsPass::materializeNVGPU(GemmOp gemm,
                                                       TargetAttr target) {
  std::string why;
  Operation *where = gemm;
  if (failed(checkBackendGemm(GemmBackend::nvgpu, gemm, target, why, where)))
    return where->emitError() << kPassArg << ": " << why;
  NVGPUMma mma = gemm.getConfigAttr().getNVGPU().getMma();
  OpBuilder b(gemm);
  LayoutBuilder lb(b, gemm);
  // Rows of A ([m, k]) and B ([n, k] or [k, n]) at the pitch the kernel
  // reads (nvidia::getOperandPitch): cp.async copies 16-byte chunks and a
  // TMA descriptor's row stride is a multiple of 16 bytes; rows that need
  // a new pitch get a multiple of 128 bytes where TMA reads them (wgmma).
  // Zeros: the padding columns of A meet those of an [n, k] B in the sum.
  // The kernel reads the rest as it is: B in either layout (ldmatrix, or
  // .trans for [k, n]), epilogue vectors per row and column.
  bool changed = false;
  auto pitched = [&](Value t, int64_t cols, StringRef what) -> Value {
    auto type = cast<RankedTensorType>(t.getType());
    Type elt = type.getElementType();
    int64_t pitch = nvidia::getOperandPitch(cols, elt, mma);
    if (pitch == cols)
      return t;
    int64_t bytes = xe::getElementBytes(elt);
    remark(gemm, "PadPitch",
           llvm::formatv("{0}: rows of {1} x {2} bytes padded with zeros to "
                         "{3} elements ({4} bytes): {5}",
                         what, cols, bytes, pitch, pitch * bytes,
                         mma == NVGPUMma::wgmma
                             ? "TMA reads rows of 16-byte multiples, and "
                               "rows that need a new pitch get a multiple "
                               "of 128 bytes (one swizzled box row)"
                             : "cp.async copies 16-byte chunks from rows "
                               "that start on 16 bytes"));
    changed = true;
    return lb.view(lb.padRows(t, pitch), type, type.getShape());
  };
  int64_t k = gemm.getK();
  gemm.getLhsMutable().set(pitched(gemm.getLhs(), k, "A"));
  bool nk = gemm.getRhsLayout() == RhsLayout::nk;
  gemm.getRhsMutable().set(pitched(gemm.getRhs(), nk ? k : gemm.getN(),
                                   nk ? "B [n, k]" : "B [k, n]"));
  if (!changed)
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "AsTheyAre"))
        << remark::reason("{0}: the tensor-core kernels read the operands as "
                          "they are ({1} rows of 16-byte multiples, rhs {2}, "
                          "epilogue vectors read per row and column)",
                          describeGemmShape(gemm), stringifyNVGPUMma(mma),
                          stringifyRhsLayout(gemm.getRhsLayout()));
  return success();
}

} // namespace
