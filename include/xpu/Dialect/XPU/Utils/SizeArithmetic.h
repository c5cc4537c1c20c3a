//===- SizeArithmetic.h - overflow-free size arithmetic ---------*- C++ -*-===//
//
// Sizes, element counts, byte counts and costs computed from shapes and
// attributes: a tensor dimension may be as large as 2^63 - 1, so products of
// a few of them overflow int64_t (undefined behaviour). These helpers
// saturate instead: a non-negative result that does not fit is INT64_MAX,
// which every budget check then rejects and every cost model ranks last.
// Header-only, so that the verifiers (XPUDialect) can use it too.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_SIZEARITHMETIC_H
#define XPU_DIALECT_XPU_UTILS_SIZEARITHMETIC_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/MathExtras.h"

#include <cstdint>
#include <limits>

namespace mlir::xpu {

/// The value saturated results take.
inline constexpr int64_t kSaturatedSize = std::numeric_limits<int64_t>::max();

/// a * b for sizes (a, b >= 0), INT64_MAX when it does not fit.
inline int64_t satMul(int64_t a, int64_t b) {
  int64_t result;
  if (llvm::MulOverflow(a, b, result))
    return kSaturatedSize;
  return result;
}

/// The product of every size, saturated.
template <typename... Ts>
inline int64_t satMul(int64_t a, int64_t b, Ts... rest) {
  return satMul(satMul(a, b), rest...);
}

/// a + b for sizes (a, b >= 0), INT64_MAX when it does not fit.
inline int64_t satAdd(int64_t a, int64_t b) {
  int64_t result;
  if (llvm::AddOverflow(a, b, result))
    return kSaturatedSize;
  return result;
}

/// The product of `sizes` (1 for none), saturated.
inline int64_t satProduct(llvm::ArrayRef<int64_t> sizes) {
  int64_t result = 1;
  for (int64_t s : sizes)
    result = satMul(result, s);
  return result;
}

/// ceil(a / b) * b for a >= 0, b > 0, saturated.
inline int64_t satAlignTo(int64_t a, int64_t b) {
  return satMul(llvm::divideCeil(a, b), b);
}

/// True when `v` is the saturated value, i.e. the exact result did not fit.
inline bool isSaturated(int64_t v) { return v == kSaturatedSize; }

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_SIZEARITHMETIC_H
