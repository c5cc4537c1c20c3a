//===- AmxLayout.h - the AMX GEMM layout of the CPU pipeline ----*- C++ -*-===//
//
// The form of a bf16 GEMM for AMX that xpu-cpu-pack-operands builds and
// xpu-cpu-lower-amx-gemm lowers: one definition of the shapes and maps, for
// both.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_CODEGEN_AMXLAYOUT_H
#define XPU_CODEGEN_AMXLAYOUT_H

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::xpu {

/// tdpbf16ps: a [16, 32] bf16 lhs tile times a [32, 16] rhs tile (16 rows
/// of 16 bf16 pairs, the VNNI layout) into a [16, 16] f32 tile.
inline constexpr int64_t kAmxRows = 16;
inline constexpr int64_t kAmxCols = 16;
inline constexpr int64_t kAmxK = 32;
inline constexpr int64_t kAmxPair = 2;
/// The micro-kernel's block of output tiles: 2 x 2 tiles (four f32
/// accumulators, two lhs and two rhs tiles: all eight tile registers).
/// M and N are padded to multiples of kAmxBlock, K to kAmxK.
inline constexpr int64_t kAmxBlock = 32;

/// The indexing maps of the AMX contraction, a linalg.generic over
/// (m1, mi, n1, n, k1, k2, kk):
///   lhs [M1, K1, 32, 32] bf16 at (m1, k1, mi, k2 * 2 + kk) (a linalg.pack
///     of the [m, k] lhs into zero-padded 32x32 blocks),
///   rhs [N1, K1, 16, 16, 2] bf16 at (n1, k1, k2, n, kk) (VNNI panels of 16
///     columns: rhs[n1][k1][k2][n][kk] = W[n1 * 16 + n][k1 * 32 + k2 * 2 +
///     kk]),
///   acc [M1, 32, N1, 16] f32 at (m1, mi, n1, n) (an [M1 * 32, N1 * 16]
///     matrix).
llvm::SmallVector<AffineMap> getAmxGemmIndexingMaps(MLIRContext *ctx);

} // namespace mlir::xpu

#endif // XPU_CODEGEN_AMXLAYOUT_H
