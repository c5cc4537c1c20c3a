//===- Passes.h - xpu transformation passes ---------------------*- C++ -*-===//

#ifndef XPU_DIALECT_XPU_TRANSFORMS_PASSES_H
#define XPU_DIALECT_XPU_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

namespace mlir::xpu {
#define GEN_PASS_DECL
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_TRANSFORMS_PASSES_H
