//===- HostTensor.h - xpu-run's inputs and outputs --------------*- C++ -*-===//
//
// The values xpu-run passes to a function and gets back: a shape, an element
// type and the bytes, read from `--input` (`@file.npy`, `2x3xf32=1 2 3 4 5 6`
// or seeded random values) and written to `--output=@file.npy` or printed.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_TOOLS_COMMON_HOSTTENSOR_H
#define XPU_TOOLS_COMMON_HOSTTENSOR_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir {
class Type;
} // namespace mlir

namespace mlir::xpu::run {

/// Element types xpu-run can pass in and out of a function.
enum class ElemKind { F16, BF16, F32, F64, I1, I8, I16, I32, I64 };

/// Size in bytes of one element.
unsigned elemBytes(ElemKind kind);
/// MLIR spelling of the element type (f32, i64, ...).
llvm::StringRef elemName(ElemKind kind);
/// The element kind of an MLIR element type (index counts as i64), or none.
std::optional<ElemKind> elemKindOf(Type type);
/// True for the float kinds.
bool isFloat(ElemKind kind);

/// A dense row-major value on the host; rank 0 for a scalar.
struct HostTensor {
  ElemKind kind = ElemKind::F32;
  llvm::SmallVector<int64_t> shape;
  std::vector<uint8_t> bytes;

  int64_t numElements() const;
  /// `2x3xf32`, the spelling --input uses.
  std::string typeString() const;
  /// Element `i` (row-major) converted to double.
  double get(int64_t i) const;
  /// Sets element `i` from a double (rounded to the element type).
  void set(int64_t i, double v);
};

/// Parses `--input`'s inline form `2x3xf32=1 2 3 4 5 6` (brackets and commas
/// are ignored; a single value fills the tensor; `f32=1.5` is a scalar).
llvm::Expected<HostTensor> parseInline(llvm::StringRef text);
/// Reads a little-endian C-order `.npy` file.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);
/// Writes `t` as `.npy` (bf16, which NumPy has no type for, as float32).
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &t);
/// Values of a seeded generator: uniform in [-1, 1), or in [0.5, 1.5) with
/// `positive` (a variance under a square root, say); integers in [0, 8),
/// booleans 0 or 1.
HostTensor randomTensor(ElemKind kind, llvm::ArrayRef<int64_t> shape,
                        uint64_t seed, bool positive);
/// Prints `2x3xf32=[1 2 3][4 5 6]` (the first `limit` elements, then ...).
void print(llvm::raw_ostream &os, const HostTensor &t, int64_t limit = 64);

} // namespace mlir::xpu::run

#endif // XPU_TOOLS_COMMON_HOSTTENSOR_H
