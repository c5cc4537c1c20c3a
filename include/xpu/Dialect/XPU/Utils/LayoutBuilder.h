//===- LayoutBuilder.h - operand layout changes on tensors ------*- C++ -*-===//
//
// The tensor operations a GEMM backend's layout rewrite
// (GemmBackendAttrInterface::materializeLayouts, run by
// xpu-materialize-layouts) builds before the GEMM: transposes, broadcasts,
// zero padding of rows, and views of the logical shape that
// xpu-schedule-gemm reads through.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_LAYOUTBUILDER_H
#define XPU_DIALECT_XPU_UTILS_LAYOUTBUILDER_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace mlir::xpu {

/// Builds the layout changes of one GEMM's operands, before the GEMM.
class LayoutBuilder {
public:
  LayoutBuilder(OpBuilder &b, GemmOp gemm) : b(b), loc(gemm.getLoc()) {}

  /// `t` with its last two dimensions swapped.
  Value transposeLast2(Value t);
  /// Broadcasts `t` to `shape`, adding the dimensions `dims`; a dynamic
  /// dimension of `shape` is `t`'s.
  Value broadcast(Value t, ArrayRef<int64_t> shape, ArrayRef<int64_t> dims);
  /// Pads the innermost dimension of `t` with zeros to `pitch` elements and,
  /// when `rows` is given, the one before it to `rows`.
  Value padRows(Value t, int64_t pitch, std::optional<int64_t> rows = {});
  /// The view of `packed` with the shape `logical`: the leading part of each
  /// dimension (all of a dynamic one); marked as a panel view when it drops
  /// dimensions.
  Value view(Value packed, RankedTensorType logical, ArrayRef<int64_t> sizes);

private:
  OpBuilder &b;
  Location loc;
};

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_LAYOUTBUILDER_H
