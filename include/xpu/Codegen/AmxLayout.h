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

#include <optional>

namespace mlir::xpu {

/// tdpbf16ps: a [16, 32] bf16 lhs tile times a [32, 16] rhs tile (16 rows
/// of 16 bf16 pairs, the VNNI layout) into a [16, 16] f32 tile. The int8
/// instructions (tdpbssd, tdpbsud, tdpbusd, tdpbuud) take the same 64-byte
/// tile rows: a [16, 64] i8 lhs tile times 16 rows of 16 i8 quadruples into
/// a [16, 16] i32 tile.
inline constexpr int64_t kAmxRows = 16;
inline constexpr int64_t kAmxCols = 16;
inline constexpr int64_t kAmxK = 32;
inline constexpr int64_t kAmxPair = 2;
/// Bytes of one tile row.
inline constexpr int64_t kAmxRowBytes = 64;
/// The micro-kernel's block of output tiles: 2 x 2 tiles (four
/// accumulators, two lhs and two rhs tiles: all eight tile registers).
/// M and N are padded to multiples of kAmxBlock, K to the kind's k step.
inline constexpr int64_t kAmxBlock = 32;

/// What one AMX k step multiplies: `group` consecutive k values of one
/// column sit together in an rhs tile row (the VNNI layout), and a step
/// covers `k` = 16 x `group` k values (one 64-byte lhs tile row).
struct AmxKind {
  int64_t group;
  int64_t k() const { return kAmxCols * group; }
};
/// bf16 operands into f32 (tdpbf16ps): pairs, 32 k values a step.
inline constexpr AmxKind kAmxBf16Kind{kAmxPair};
/// i8 operands into i32 (tdpb[su][su]d): quadruples, 64 k values a step.
inline constexpr AmxKind kAmxInt8Kind{4};

/// The indexing maps of the AMX contraction of `kind`, a linalg.generic
/// over (m1, mi, n1, n, k1, k2, kk) with k2 < 16 and kk < kind.group (for
/// bf16, group 2):
///   lhs [M1, K1, 32, 32] bf16 at (m1, k1, mi, k2 * 2 + kk) (a linalg.pack
///     of the [m, k] lhs into zero-padded 32x32 blocks),
///   rhs [N1, K1, 16, 16, 2] bf16 at (n1, k1, k2, n, kk) (VNNI panels of 16
///     columns: rhs[n1][k1][k2][n][kk] = W[n1 * 16 + n][k1 * 32 + k2 * 2 +
///     kk]),
///   acc [M1, 32, N1, 16] f32 at (m1, mi, n1, n) (an [M1 * 32, N1 * 16]
///     matrix).
/// For i8, group 4: lhs blocks [M1, K1, 32, 64], rhs [N1, K1, 16, 16, 4],
/// acc i32.
llvm::SmallVector<AffineMap> getAmxGemmIndexingMaps(MLIRContext *ctx,
                                                    AmxKind kind);

/// The kind whose indexing maps `maps` are, or none.
std::optional<AmxKind> matchAmxGemmIndexingMaps(ArrayRef<AffineMap> maps);

} // namespace mlir::xpu

#endif // XPU_CODEGEN_AMXLAYOUT_H
