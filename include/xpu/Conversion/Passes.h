//===- Passes.h - xpu conversion passes -------------------------*- C++ -*-===//

#ifndef XPU_CONVERSION_PASSES_H
#define XPU_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "xpu/Conversion/XPUToLinalg/XPUToLinalg.h"

namespace mlir::xpu {
#define GEN_PASS_DECL
#include "xpu/Conversion/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

#endif // XPU_CONVERSION_PASSES_H
