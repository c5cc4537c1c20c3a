//===- DotPairLayout.h - the pair-dot GEMM layout ---------------*- C++ -*-===//
//
// The form of a bf16 (or widened int8) GEMM for the AVX-512 pair dot
// products (vdpbf16ps, vpdpwssd) that xpu-cpu-pack-operands builds and
// xpu-cpu-tile-and-vectorize lowers: one definition of the maps, for both.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_CODEGEN_DOTPAIRLAYOUT_H
#define XPU_CODEGEN_DOTPAIRLAYOUT_H

#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace mlir::xpu {

/// vdpbf16ps and vpdpwssd add, in each 32-bit lane, the products of one
/// pair of 16-bit values of each operand: k is consumed two at a time.
inline constexpr int64_t kDotPair = 2;
/// 32-bit lanes of one 512-bit register: the accumulator vectors of a tile
/// row (nr is a multiple of it).
inline constexpr int64_t kDotLanes = 16;

/// The indexing maps of the pair-dot contraction (bf16 into f32, or i16
/// into i32), a linalg.generic over
/// (b?, M1, N1, K2, mr, nr, kk) with kk < kDotPair:
///   lhs [b?, M1, K2, mr, 2] at (b?, M1, K2, mr, kk): mr-row panels of the
///     [b?, m, k] lhs whose row values come in k pairs (a linalg.pack with
///     inner tiles [mr, 2]);
///   rhs [b?, N1, K2, nr, 2] at (b?, N1, K2, nr, kk): nr-column panels, each
///     column's k pair next to each other (the VNNI layout);
///   acc [b?, M1, N1, mr, nr] at (b?, M1, N1, mr, nr), as the f32 panel
///     contraction's.
llvm::SmallVector<AffineMap> getDotPairGemmIndexingMaps(MLIRContext *ctx,
                                                        bool batched);

/// Whether `maps` are the pair-dot contraction's: none, or whether it is
/// batched.
std::optional<bool> matchDotPairGemmIndexingMaps(ArrayRef<AffineMap> maps);

} // namespace mlir::xpu

#endif // XPU_CODEGEN_DOTPAIRLAYOUT_H
