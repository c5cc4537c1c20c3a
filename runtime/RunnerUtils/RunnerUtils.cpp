//===- RunnerUtils.cpp - printMemref* for programs without LLVM -----------===//
//
// The printing functions that @main programs of the tests call
// (printMemrefF32, printF32, printNewline, ...), with the output format of
// MLIR's runner utilities (mlir/ExecutionEngine/RunnerUtils.h), for
// executables built by `xpu-compile --emit=exe`: they run where neither LLVM
// nor MLIR is installed. Plain C++; memory is read on the host (the
// programs print buffers the host can read).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <iostream>

#define XPU_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

/// The descriptor of a ranked memref of any rank: two pointers, the offset,
/// then `rank` sizes and `rank` strides.
struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  int64_t sizesAndStrides[];
};

struct Unranked {
  int64_t rank;
  Descriptor *descriptor;
};

template <typename T>
void printElements(const T *data, int64_t rank, const int64_t *sizes,
                   const int64_t *strides, int64_t offset, int64_t dim,
                   int64_t indent) {
  if (rank == 0) {
    std::cout << +data[offset];
    return;
  }
  std::cout << "[";
  for (int64_t i = 0; i < sizes[dim]; ++i) {
    int64_t at = offset + i * strides[dim];
    if (dim + 1 == rank) {
      std::cout << +data[at];
    } else {
      printElements(data, rank, sizes, strides, at, dim + 1, indent + 1);
    }
    if (i + 1 < sizes[dim]) {
      std::cout << ", ";
      if (dim + 1 < rank) {
        std::cout << "\n";
        for (int64_t s = 0; s <= indent; ++s)
          std::cout << " ";
      }
    }
  }
  std::cout << "]";
}

template <typename T> void printMemref(int64_t rank, Descriptor *d) {
  const int64_t *sizes = d->sizesAndStrides;
  const int64_t *strides = d->sizesAndStrides + rank;
  std::cout << "Unranked Memref base@ = " << d->aligned << " rank = " << rank
            << " offset = " << d->offset << " sizes = [";
  for (int64_t i = 0; i < rank; ++i)
    std::cout << (i ? ", " : "") << sizes[i];
  std::cout << "] strides = [";
  for (int64_t i = 0; i < rank; ++i)
    std::cout << (i ? ", " : "") << strides[i];
  std::cout << "] data = \n";
  if (rank == 0)
    std::cout << "[";
  printElements(static_cast<const T *>(d->aligned), rank, sizes, strides,
                d->offset, 0, 0);
  if (rank == 0)
    std::cout << "]";
  std::cout << std::endl;
}

} // namespace

#define XPU_PRINT_MEMREF(Suffix, T)                                            \
  XPU_EXPORT void printMemref##Suffix(int64_t rank, void *d) {                 \
    printMemref<T>(rank, static_cast<Descriptor *>(d));                        \
  }                                                                            \
  XPU_EXPORT void _mlir_ciface_printMemref##Suffix(Unranked *m) {              \
    printMemref<T>(m->rank, m->descriptor);                                    \
  }

XPU_PRINT_MEMREF(F32, float)
XPU_PRINT_MEMREF(F64, double)
XPU_PRINT_MEMREF(I32, int32_t)
XPU_PRINT_MEMREF(I64, int64_t)
XPU_PRINT_MEMREF(I8, int8_t)

XPU_EXPORT void printF32(float f) { std::cout << f; }
XPU_EXPORT void printF64(double d) { std::cout << d; }
XPU_EXPORT void printI64(int64_t i) { std::cout << i; }
XPU_EXPORT void printU64(uint64_t u) { std::cout << u; }
XPU_EXPORT void printNewline() { std::cout << "\n"; }
XPU_EXPORT void printComma() { std::cout << ", "; }
XPU_EXPORT void printOpen() { std::cout << "( "; }
XPU_EXPORT void printClose() { std::cout << " )"; }
XPU_EXPORT void printString(const char *s) { std::cout << s; }
