//===- RunnerUtils.cpp - runner utilities for programs without LLVM -------===//
//
// What compiled code may call from MLIR's runner utilities, for programs and
// packages built by xpu-compile (and `xpu-run --emit-package`): they run
// where neither LLVM nor MLIR is installed, so they cannot load
// libmlir_c_runner_utils.so. The printing functions that @main programs of
// the tests call (printMemrefF32, printF32, printNewline, ...), with the
// output format of MLIR's runner utilities (mlir/ExecutionEngine/
// RunnerUtils.h), and memrefCopy, which memref.copy of non-contiguous
// memrefs lowers to. Plain C++; memory is read on the host (the programs
// print buffers the host can read).
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <vector>

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

/// memref.copy between two memrefs of one shape whose layouts the lowering
/// could not turn into one memcpy: element by element (runs of contiguous
/// innermost elements at once).
XPU_EXPORT void memrefCopy(int64_t elementSize, Unranked *source,
                           Unranked *target) {
  int64_t rank = source->rank;
  Descriptor *src = source->descriptor, *dst = target->descriptor;
  const int64_t *sizes = src->sizesAndStrides;
  const int64_t *srcStrides = src->sizesAndStrides + rank;
  const int64_t *dstStrides = dst->sizesAndStrides + rank;
  auto *from =
      static_cast<const char *>(src->aligned) + src->offset * elementSize;
  auto *to = static_cast<char *>(dst->aligned) + dst->offset * elementSize;
  int64_t total = 1;
  for (int64_t d = 0; d < rank; ++d)
    total *= sizes[d];
  if (total == 0)
    return;
  if (rank == 0) {
    std::memcpy(to, from, elementSize);
    return;
  }
  // The innermost dimension is copied as one run when both sides have
  // stride 1 there.
  bool innerRun = srcStrides[rank - 1] == 1 && dstStrides[rank - 1] == 1;
  int64_t inner = innerRun ? sizes[rank - 1] : 1;
  int64_t outerRank = innerRun ? rank - 1 : rank;
  std::vector<int64_t> index(outerRank, 0);
  for (int64_t done = 0; done < total; done += inner) {
    int64_t srcOffset = 0, dstOffset = 0;
    for (int64_t d = 0; d < outerRank; ++d) {
      srcOffset += index[d] * srcStrides[d];
      dstOffset += index[d] * dstStrides[d];
    }
    std::memcpy(to + dstOffset * elementSize, from + srcOffset * elementSize,
                inner * elementSize);
    for (int64_t d = outerRank - 1; d >= 0; --d) {
      if (++index[d] < sizes[d])
        break;
      index[d] = 0;
    }
  }
}

XPU_EXPORT void printF32(float f) { std::cout << f; }
XPU_EXPORT void printF64(double d) { std::cout << d; }
XPU_EXPORT void printI64(int64_t i) { std::cout << i; }
XPU_EXPORT void printU64(uint64_t u) { std::cout << u; }
XPU_EXPORT void printNewline() { std::cout << "\n"; }
XPU_EXPORT void printComma() { std::cout << ", "; }
XPU_EXPORT void printOpen() { std::cout << "( "; }
XPU_EXPORT void printClose() { std::cout << " )"; }
XPU_EXPORT void printString(const char *s) { std::cout << s; }
