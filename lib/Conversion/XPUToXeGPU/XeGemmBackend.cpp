//===- XeGemmBackend.cpp - the Xe GEMM backend ----------------------------===//
//
// The rules of convert-xpu-to-xegpu's DPAS kernels (XeBackend.h) and
// GemmBackendAttrInterface on #xpu.xe: what the layers above ask of them.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GemmBackends.h"
#include "xpu/Conversion/XPUToXeGPU/XeBackend.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/LayoutBuilder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <numeric>

using namespace mlir;
using namespace mlir::xpu;

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

bool xe::isDpasOperandType(Type t) { return t.isF16() || t.isBF16(); }

int64_t xe::getLegalPitch(TargetAttr target, int64_t cols, Type elt) {
  int64_t bytes = getElementBytes(elt);
  return std::max<int64_t>(
      llvm::alignTo(cols, target.getBlock2dPitchAlign() / bytes),
      target.getBlock2dMinPitch() / bytes);
}

int64_t xe::getBlockWidth(TargetAttr target, int64_t cols, Type elt) {
  // In elements (no byte products that could overflow): a multiple of the
  // width alignment (4 bytes), at least the minimum width (64 bytes).
  int64_t bytes = getElementBytes(elt);
  int64_t align = std::max<int64_t>(1, target.getBlock2dWidthAlign() / bytes);
  return std::max<int64_t>(
      llvm::alignTo(cols, align),
      llvm::divideCeil(target.getBlock2dMinWidth(), bytes));
}

int64_t xe::getBatchRows(TargetAttr target, int64_t rows, int64_t pitch,
                         Type elt) {
  // Rows come in groups of base / gcd(row bytes, base); only the row bytes
  // modulo the base alignment matter.
  int64_t base = target.getBlock2dBaseAlign();
  int64_t rowBytes = (pitch % base) * getElementBytes(elt);
  int64_t group = base / std::gcd(rowBytes, base);
  return llvm::alignTo(rows, group);
}

bool xe::isKernelType(Type t) {
  return t.isF32() || isDpasOperandType(t) ||
         (t.isSignlessInteger() && t.getIntOrFloatBitWidth() <= 32);
}

bool xe::isKernelResultType(Type t) { return isKernelType(t) && !t.isBF16(); }

bool xe::hasDeviceEpilogue(GemmOp gemm) {
  if (!isKernelResultType(gemm.getResultType().getElementType()))
    return false;
  for (Value operand : gemm.getEpilogueOperands())
    if (!isKernelType(getElementTypeOrSelf(operand.getType())))
      return false;
  WalkResult walk = gemm.getEpilogue().walk([](Operation *op) {
    for (Type t : op->getResultTypes())
      if (!isKernelResultType(t))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !walk.wasInterrupted();
}

Type xe::getDpasOperandType(GemmOp gemm) {
  Type lhsElt = gemm.getLhsType().getElementType();
  return isDpasOperandType(lhsElt) ? lhsElt
                                   : Type(BFloat16Type::get(gemm.getContext()));
}

LogicalResult xe::checkGemm(GemmOp gemm, TargetAttr target, std::string &why,
                            Operation *&where) {
  where = gemm;
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  if (!target.isIntel() || !target.hasDpas() || !target.hasBlock2d())
    return fail(llvm::formatv(
        "the target '{0}' is not an Intel Xe target ({1})", target.getChip(),
        llvm::join(listPresets([](const TargetPreset &p) {
                     return p.dpas && !p.block2d.empty();
                   }),
                   ", ")));
  if (!llvm::is_contained(target.getSubgroupSizes(), kLanes) ||
      target.getMma() != ArrayRef<int64_t>{kDpasM, kDpasN, kDpasK})
    return fail(llvm::formatv("the target '{0}' needs 16-lane subgroups and "
                              "an 8x16x16 DPAS",
                              target.getChip()));
  Type lhsElt = gemm.getLhsType().getElementType();
  if (!isDpasOperandType(lhsElt) && !lhsElt.isF32())
    return fail(llvm::formatv("{0} operands: DPAS takes f16 or bf16 (f32 is "
                              "converted to bf16; run xpu-demote-f64 for f64)",
                              lhsElt));
  if (!gemm.getAccType().isF32())
    return fail(llvm::formatv("accumulator {0}: DPAS accumulates in f32",
                              gemm.getAccType()));
  if (!isa<FloatType>(gemm.getResultType().getElementType()))
    return fail(llvm::formatv("result element type {0} is not a float",
                              gemm.getResultType().getElementType()));
  Block &block = gemm.getEpilogueBlock();
  for (Operation &op : block.without_terminator()) {
    where = &op;
    // Scalar constants become splats of the accumulator's shape.
    if (isa<arith::ConstantOp>(op) && isScalarConstant(op.getResult(0)))
      continue;
    if (op.getNumRegions() != 0 || !op.hasTrait<OpTrait::Vectorizable>() ||
        op.getNumResults() != 1)
      return fail(llvm::formatv("epilogue op '{0}' is not an elementwise op "
                                "that can run on vectors",
                                op.getName()));
    for (Value v : op.getOperands())
      if (v.getParentRegion() != &gemm.getEpilogue() && !isScalarConstant(v))
        return fail("the epilogue uses a value defined outside the GEMM that "
                    "is not a scalar constant");
  }
  where = gemm;
  Value yielded = block.getTerminator()->getOperand(0);
  if (yielded.getParentRegion() != &gemm.getEpilogue() &&
      !isScalarConstant(yielded))
    return fail("the epilogue yields a value defined outside the GEMM that is "
                "not a scalar constant");
  return success();
}

LogicalResult xe::checkConfig(TargetAttr target, ConfigAttr config,
                              std::string &why) {
  ArrayRef<int64_t> tile = config.getTile();
  ArrayRef<int64_t> sg = config.getSubgroups();
  auto fail = [&](const Twine &reason) {
    why = reason.str();
    return failure();
  };
  if (!target.isIntel())
    return fail(llvm::formatv("#xpu.xe knobs on the non-Intel target '{0}'",
                              target.getChip()));
  if (!target.hasDpas() || !target.hasBlock2d())
    return fail(llvm::formatv("#xpu.xe knobs on the target '{0}' without "
                              "DPAS and 2D block I/O",
                              target.getChip()));
  int64_t grfMode = config.getGrfMode();
  if (tile[0] % sg[0] != 0 || tile[1] % sg[1] != 0 ||
      (tile[0] / sg[0]) % kDpasM != 0 || (tile[1] / sg[1]) % kDpasN != 0 ||
      tile[2] % kDpasK != 0)
    return fail(llvm::formatv(
        "tile [{0}, {1}, {2}] on subgroups [{3}, {4}]: each subgroup block "
        "must be a multiple of 8x16 and tile_k a multiple of 16 (DPAS)",
        tile[0], tile[1], tile[2], sg[0], sg[1]));
  int64_t subgroups = sg[0] * sg[1];
  if (subgroups * kLanes > target.getMaxWorkgroupSize())
    return fail(llvm::formatv("{0} subgroups of 16 lanes exceed {1} "
                              "work-items per workgroup",
                              subgroups, target.getMaxWorkgroupSize()));
  int64_t threads = target.getThreadsPerUnit(grfMode);
  if (subgroups > threads)
    return fail(llvm::formatv("{0} subgroups > {1} hardware threads of an "
                              "Xe-core in {2}-GRF mode",
                              subgroups, threads, grfMode));
  return success();
}

//===----------------------------------------------------------------------===//
// GemmBackendAttrInterface
//===----------------------------------------------------------------------===//

/// The layouts the DPAS kernels read (xpu-materialize-layouts).
static LogicalResult materializeXeLayouts(GemmOp gemm, TargetAttr target,
                                          StringRef passArg,
                                          LayoutRemarkFn remark) {
  auto changed = [&](GemmOp g, StringRef name, const Twine &why) {
    remark(g, name, why, /*changed=*/true);
  };
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
    changed(gemm, "HostEpilogue",
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
    changed(gemm, "Precision",
            llvm::formatv("{0} operands converted to {1} for DPAS ({1} x {1} "
                          "-> f32; tf32 is not used)",
                          lhsElt, inElt));
  }
  // B as [k, n]: the transform block read packs [k, n] blocks for DPAS
  // (VNNI on the fly).
  if (gemm.getRhsLayout() == RhsLayout::nk) {
    rhs = lb.transposeLast2(rhs);
    gemm.setRhsLayout(RhsLayout::kn);
    changed(gemm, "TransposeRhs",
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
    int64_t bytes = getElementBytes(elt);
    int64_t pitch = xe::getLegalPitch(target, cols, elt);
    bool perBatch = type.getRank() == 3;
    int64_t slabRows =
        perBatch ? xe::getBatchRows(target, rows, pitch, elt) : rows;
    if (pitch == cols && slabRows == rows)
      return t;
    if (pitch != cols)
      changed(gemm, "PadPitch",
              llvm::formatv("{0}: rows of {1} x {2} bytes padded with zeros to "
                            "{3} elements, the narrowest pitch 2D block I/O "
                            "accepts (>= 64 bytes, a multiple of 16)",
                            what, cols, bytes, pitch));
    if (slabRows != rows)
      changed(gemm, "PadBatchRows",
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
        changed(gemm, "RowVector",
                llvm::formatv("{0} (per_col) read as it is: {1} whole "
                              "{2}-column tiles of a row vector",
                              what, n / tn, tn));
        continue;
      }
      packed = lb.padRows(lb.broadcast(operand, {1, n}, {0}), cols);
      changed(gemm, "RowVector",
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
    changed(gemm, "Panel",
            llvm::formatv("{0} ({1}) broadcast to a {2}x{3} panel that the "
                          "kernel reads with the accumulator's layout",
                          what,
                          stringifyBroadcastKind(gemm.getBroadcastKind(i)),
                          panelType.getDimSize(0), panelType.getDimSize(1)));
    gemm->setOperand(2 + i, lb.view(packed, type, sizes));
  }
  return success();
}

namespace {
struct XeGemmBackend final
    : GemmBackendAttrInterface::ExternalModel<XeGemmBackend, XeConfigAttr> {
  StringRef getBackendName(Attribute) const { return "xe"; }
  std::string describeKnobs(Attribute attr) const {
    return llvm::formatv(", grf_mode {0}",
                         cast<XeConfigAttr>(attr).getGrfMode())
        .str();
  }
  LogicalResult checkGemm(Attribute, GemmOp gemm, TargetAttr target,
                          std::string &why, Operation *&where) const {
    return xe::checkGemm(gemm, target, why, where);
  }
  LogicalResult checkConfig(Attribute, TargetAttr target, ConfigAttr config,
                            int64_t, std::string &why, RhsLayout) const {
    return xe::checkConfig(target, config, why);
  }
  Type getOperandType(Attribute, GemmOp gemm) const {
    return xe::getDpasOperandType(gemm);
  }
  // A target without 2D block I/O is refused by checkGemm.
  int64_t getRowPitch(Attribute, TargetAttr target, int64_t cols,
                      Type elt) const {
    return target.hasBlock2d() ? xe::getLegalPitch(target, cols, elt) : cols;
  }
  int64_t getBatchRows(Attribute, TargetAttr target, int64_t rows,
                       int64_t pitch, Type elt) const {
    return target.hasBlock2d() ? xe::getBatchRows(target, rows, pitch, elt)
                               : rows;
  }
  int64_t getBufferAlignment(Attribute, TargetAttr target) const {
    return target.hasBlock2d() ? target.getBlock2dBaseAlign() : 64;
  }
  int64_t getWorkgroupSlmBytes(Attribute, ConfigAttr, int64_t) const {
    // 2D block loads read A and B straight into registers.
    return 0;
  }
  LogicalResult materializeLayouts(Attribute, GemmOp gemm, TargetAttr target,
                                   StringRef passArg,
                                   LayoutRemarkFn remark) const {
    return materializeXeLayouts(gemm, target, passArg, remark);
  }
  int64_t getResidentWorkgroups(Attribute, TargetAttr target, ConfigAttr config,
                                int64_t) const {
    // One hardware thread per subgroup; no shared memory.
    ArrayRef<int64_t> sg = config.getSubgroups();
    int64_t perUnit =
        target.getThreadsPerUnit(config.getGrfMode()) / (sg[0] * sg[1]);
    return target.getComputeUnits() * std::max<int64_t>(perUnit, 1);
  }

  // The strategy: every GEMM on an Intel target, in 128-GRF mode first.
  int64_t getAutoRank(Attribute) const { return 2; }
  bool takesGemm(Attribute, TargetAttr target, Type, std::string &) const {
    return target.isIntel();
  }
  Attribute getCandidateKnobs(Attribute attr, TargetAttr, Type) const {
    return XeConfigAttr::get(attr.getContext(), xe::kSmallGrfMode);
  }
  bool readsEpilogueOperandAsFragment(Attribute, BroadcastKind kind) const {
    // full, per_row and scalar operands are read as tiles in the
    // accumulator's layout (convert-xpu-to-xegpu); a per_col operand is a
    // row vector broadcast to the accumulator, 2 registers at 32-column
    // blocks, no fragment.
    return kind != BroadcastKind::per_col;
  }
  Attribute growRegisterFile(Attribute attr, TargetAttr,
                             int64_t &budget) const {
    if (cast<XeConfigAttr>(attr).getGrfMode() >= xe::kLargeGrfMode)
      return {};
    budget = xe::kLargeGrfMode;
    return XeConfigAttr::get(attr.getContext(), xe::kLargeGrfMode);
  }
};
} // namespace

void mlir::xpu::registerXeGemmBackend(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, XPUDialect *dialect) {
    XeConfigAttr::attachInterface<XeGemmBackend>(*ctx);
    dialect->addGemmBackend(XeConfigAttr::get(ctx, xe::kSmallGrfMode));
  });
}
