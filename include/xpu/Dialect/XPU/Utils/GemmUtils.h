//===- GemmUtils.h - small helpers shared by the xpu.gemm passes -*- C++
//-*-===//

#ifndef XPU_DIALECT_XPU_UTILS_GEMMUTILS_H
#define XPU_DIALECT_XPU_UTILS_GEMMUTILS_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mlir::xpu {

/// Bytes of one element of `t` (a bit width rounded up to bytes).
int64_t getElementBytes(Type t);

/// Whether `v` is a scalar constant: the one value defined outside an
/// xpu.gemm epilogue that the GPU backends let it capture (they splat it).
bool isScalarConstant(Value v);

/// How the lanes of a subgroup split its `blockM x blockN` block in the SIMT
/// kernels (convert-xpu-to-gpu): along n first (at most `lanes` columns, so
/// that neighbouring lanes touch neighbouring columns), then along m; each
/// lane keeps an `rm x rn` register micro-tile (rounded up where the lanes do
/// not divide the block). The one owner of the micro-tile: the SIMT backend's
/// layout and the register model read it here.
struct SimtMicroTile {
  int64_t lanesM, lanesN, rm, rn;
};
SimtMicroTile getSimtMicroTile(int64_t blockM, int64_t blockN, int64_t lanes);

/// The #xpu.target of the module enclosing `op` (written by hand or attached
/// by xpu-attach-target), else the default preset (TargetAttr::getDefault:
/// `pvc`).
TargetAttr resolveTarget(Operation *op);

/// "64x32x128" (m x n x k), "4x(64x32x128)" when batched: how remarks name a
/// GEMM.
std::string describeGemmShape(GemmOp gemm);
/// The same from the sizes of a GEMM (`batched`: operands of rank 3).
std::string describeGemmShape(int64_t batch, int64_t m, int64_t n, int64_t k,
                              bool batched);

/// The indexing map that reads an epilogue operand of `kind` from the
/// GEMM result's iteration space (b?, m, n) of `rank` dimensions.
AffineMap getEpilogueBroadcastMap(BroadcastKind kind, unsigned rank,
                                  MLIRContext *ctx);

/// Clones the ops of an epilogue block (`xpu.gemm`, `xpu.gemm_tile` or
/// `xpu.gemm_fixup`) at the builder's insertion point with the accumulator
/// argument mapped to `acc` and the operand arguments to `operands`;
/// returns the value the block yields. Values the block captures from
/// above are used as they are.
Value cloneEpilogue(OpBuilder &builder, Block &epilogue, Value acc,
                    ValueRange operands);

/// Applies the epilogue of `gemm` to the accumulator tensor `acc` (the
/// result's shape, any element type the block accepts) as one elementwise
/// linalg.generic that reads each epilogue operand through its broadcast
/// map; the result has the GEMM's result type.
Value buildEpilogueGeneric(OpBuilder &builder, GemmOp gemm, Value acc);

/// The tensor that holds a GEMM operand in a backend's layout, looking
/// through the views that xpu-materialize-layouts leaves: a zero-offset,
/// unit-stride tensor.extract_slice that narrows the last dimension (a row
/// pitch) and possibly the one before it (rows padded so that each batch's
/// slab starts aligned), or one marked `xpu.panel` that takes row 0 /
/// column 0 / element (0, 0) of a rank-2 panel of equal rows (columns).
/// Returns `value` itself when it is no such view.
Value getPackedOperand(Value value);

/// Converts float tensors to another element type (arith.truncf or
/// arith.extf in an elementwise linalg.generic) placed right after the
/// definition of the value (after the conversions already made of earlier
/// block arguments), so that it dominates every use of the value and a
/// weight's conversion depends only on the weight. Each value is converted
/// once.
class TensorElementTypeConverter {
public:
  explicit TensorElementTypeConverter(MLIRContext *ctx) : builder(ctx) {}

  Value convert(Value value, FloatType eltType);

private:
  OpBuilder builder;
  DenseMap<std::pair<Value, Type>, Value> cache;
  DenseMap<Block *, Operation *> lastArgConversion;
};

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_GEMMUTILS_H
