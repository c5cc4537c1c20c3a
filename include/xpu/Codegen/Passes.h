//===- Passes.h - xpu code generation passes --------------------*- C++ -*-===//

#ifndef XPU_CODEGEN_PASSES_H
#define XPU_CODEGEN_PASSES_H

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::xpu {
#define GEN_PASS_DECL
#include "xpu/Codegen/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

#endif // XPU_CODEGEN_PASSES_H
