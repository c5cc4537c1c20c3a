//===- XPUOps.h - xpu operations --------------------------------*- C++ -*-===//

#ifndef XPU_DIALECT_XPU_IR_XPUOPS_H
#define XPU_DIALECT_XPU_IR_XPUOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "xpu/Dialect/XPU/IR/XPUAttrs.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#define GET_OP_CLASSES
#include "xpu/Dialect/XPU/IR/XPUOps.h.inc"

#endif // XPU_DIALECT_XPU_IR_XPUOPS_H
