//===- XPUDialect.h - xpu dialect -------------------------------*- C++ -*-===//

#ifndef XPU_DIALECT_XPU_IR_XPUDIALECT_H
#define XPU_DIALECT_XPU_IR_XPUDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dialect.h"

#include "xpu/Dialect/XPU/IR/XPUDialect.h.inc"

#endif // XPU_DIALECT_XPU_IR_XPUDIALECT_H
