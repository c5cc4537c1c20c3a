//===- XeGemmBackend.cpp - the Xe GEMM backend's answers ------------------===//
//
// GemmBackendAttrInterface on #xpu.xe: what the layers above ask of
// convert-xpu-to-xegpu's DPAS kernels.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/GemmBackends.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Utils/GemmBackends.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/LayoutBuilder.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::xpu;

/// The layouts the DPAS kernels read (xpu-materialize-layouts).
static LogicalResult materializeXeLayouts(GemmOp gemm, TargetAttr target,
                                          StringRef passArg,
                                          LayoutRemarkFn remark) {
  auto changed = [&](GemmOp g, StringRef name, const Twine &why) {
    remark(g, name, why, /*changed=*/true);
  };
  std::string why;
  Operation *where = gemm;
  if (failed(checkBackendGemm(GemmBackend::xe, gemm, target, why, where)))
    return where->emitError() << passArg << ": " << why;
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
    int64_t bytes = xe::getElementBytes(elt);
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
  StringRef getBackendName(Attribute) const {
    return stringifyGemmBackend(GemmBackend::xe);
  }
  std::string describeKnobs(Attribute attr) const {
    return llvm::formatv(", grf_mode {0}",
                         cast<XeConfigAttr>(attr).getGrfMode())
        .str();
  }
  LogicalResult checkGemm(Attribute, GemmOp gemm, TargetAttr target,
                          std::string &why, Operation *&where) const {
    return checkBackendGemm(GemmBackend::xe, gemm, target, why, where);
  }
  LogicalResult checkConfig(Attribute, TargetAttr target, ConfigAttr config,
                            int64_t operandBytes, std::string &why,
                            RhsLayout rhsLayout) const {
    return checkBackendConfig(GemmBackend::xe, target, config, operandBytes,
                              why, rhsLayout);
  }
  Type getOperandType(Attribute, GemmOp gemm) const {
    return xe::getDpasOperandType(gemm);
  }
  int64_t getRowPitch(Attribute, TargetAttr target, int64_t cols,
                      Type elt) const {
    return getBackendRowPitch(GemmBackend::xe, target, cols, elt);
  }
  int64_t getBatchRows(Attribute, TargetAttr target, int64_t rows,
                       int64_t pitch, Type elt) const {
    return getBackendBatchRows(GemmBackend::xe, target, rows, pitch, elt);
  }
  int64_t getBufferAlignment(Attribute, TargetAttr target) const {
    return getBackendBufferAlignment(GemmBackend::xe, target);
  }
  int64_t getWorkgroupSlmBytes(Attribute, ConfigAttr config,
                               int64_t operandBytes) const {
    return xpu::getWorkgroupSlmBytes(GemmBackend::xe, config, operandBytes);
  }
  LogicalResult materializeLayouts(Attribute, GemmOp gemm, TargetAttr target,
                                   StringRef passArg,
                                   LayoutRemarkFn remark) const {
    return materializeXeLayouts(gemm, target, passArg, remark);
  }
  int64_t getResidentWorkgroups(Attribute, TargetAttr target, ConfigAttr config,
                                int64_t operandBytes) const {
    return xpu::getResidentWorkgroups(GemmBackend::xe, target, config,
                                      operandBytes);
  }
};
} // namespace

void mlir::xpu::registerXeGemmBackend(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, XPUDialect *) {
    XeConfigAttr::attachInterface<XeGemmBackend>(*ctx);
  });
}
