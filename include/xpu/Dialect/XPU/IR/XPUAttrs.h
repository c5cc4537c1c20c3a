//===- XPUAttrs.h - xpu attributes and enums --------------------*- C++ -*-===//

#ifndef XPU_DIALECT_XPU_IR_XPUATTRS_H
#define XPU_DIALECT_XPU_IR_XPUATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "xpu/Dialect/XPU/IR/XPUEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "xpu/Dialect/XPU/IR/XPUAttrs.h.inc"

#endif // XPU_DIALECT_XPU_IR_XPUATTRS_H
