//===- EpilogueUtils.h - reading elementwise ops as GEMM epilogues -*- C++
//-*-===//
//
// Shared by the passes that move elementwise linalg ops into xpu.gemm
// epilogues (fusion) or read them (weight folding, simplification,
// analysis): how an operand of an elementwise op over the GEMM result's
// iteration space is broadcast, and how to turn it into an epilogue operand.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_EPILOGUEUTILS_H
#define XPU_DIALECT_XPU_UTILS_EPILOGUEUTILS_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::xpu {

/// Classifies an operand of type `operandType`, read through `map` by an
/// elementwise op whose iteration space is a GEMM result of rank 2
/// `(m, n)` or 3 `(b, m, n)`. Unit dimensions read at constant 0 (torch-mlir's
/// size-1 broadcasts) are allowed anywhere. Returns the broadcast kind, or
/// failure with the reason in `reason`.
FailureOr<BroadcastKind> classifyBroadcast(AffineMap map,
                                           RankedTensorType operandType,
                                           std::string &reason);

/// Returns `value` shaped as an epilogue operand of `kind` for a result of
/// type `resultType`: unit dimensions are collapsed away with
/// tensor.collapse_shape (or the source of a tensor.expand_shape that only
/// added them is reused).
Value materializeEpilogueOperand(OpBuilder &builder, Location loc, Value value,
                                 BroadcastKind kind,
                                 RankedTensorType resultType);

/// True if `op` is an elementwise linalg.generic over a GEMM-shaped
/// iteration space: all loops parallel, one result, identity output map,
/// tensor semantics.
bool isElementwiseGeneric(linalg::GenericOp op);

/// True for math ops that lower to a polynomial or a library call
/// (exp, log, tanh, erf, sqrt, ...): they cost extra temporaries.
bool isTranscendental(Operation *op);

/// The instructions one element of an epilogue body takes, estimated: one
/// per operation, 8 for a division or remainder, 24 for a math function
/// (a polynomial on the CPU, libdevice's expansion on NVIDIA). Backends
/// compare it with the code size they accept as straight-line code.
int64_t estimateEpilogueInstructions(Block &epilogue);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_EPILOGUEUTILS_H
