//===- CpuTiles.h - per-GEMM tiles of the CPU pipeline ----------*- C++ -*-===//
//
// The tiles one GEMM of the CPU pipeline uses: the register tile [mr, nr]
// (the packed panels, xpu-cpu-pack-operands) and the cache tile [mc, nc, kc]
// (the loop nest's blocks, xpu-cpu-tile-and-vectorize). A tuning database
// stores them as text ("register-tile=14,32 cache-tile=264,256,640"), the
// IR as the `xpu.cpu_tiles` dictionary on an xpu.gemm and the linalg ops it
// lowers to; either tile may be absent (the pipeline's choice then).
//
//===----------------------------------------------------------------------===//

#ifndef XPU_CODEGEN_CPUTILES_H
#define XPU_CODEGEN_CPUTILES_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mlir::xpu {

struct CpuTiles {
  /// [mr, nr], or empty.
  SmallVector<int64_t> registerTile;
  /// [mc, nc, kc], or empty.
  SmallVector<int64_t> cacheTile;

  bool empty() const { return registerTile.empty() && cacheTile.empty(); }
  /// The text form: "register-tile=mr,nr cache-tile=mc,nc,kc" (the tiles
  /// present), or "default" when none is.
  std::string str() const;
  /// The tiles of `op`'s `xpu.cpu_tiles` attribute (verified by the xpu
  /// dialect); empty when it has none.
  static CpuTiles get(Operation *op);
  /// Sets `op`'s `xpu.cpu_tiles` (removes it when empty).
  void setOn(Operation *op) const;
};

/// The default [mc, nc, kc] of the packed-GEMM loop nest
/// (xpu-cpu-tile-and-vectorize) on a core with `l2Bytes` of L2, for a GEMM
/// of depth `k` whose register tile has `mr` rows: all of k in one block up
/// to 2048 values (equal blocks beyond), and as many whole panels of rows as
/// keep the packed f32 lhs block (mc x kc) within a quarter of the L2. On
/// the Emerald Rapids host of 2026-12-06 (2 MiB L2) xpu-tune's best tiles
/// for six of eight f32 GEMMs were of this kind (docs/Tuning.md). nc is
/// not used by the nest (it walks every column panel).
SmallVector<int64_t> cpuNestCacheTile(int64_t l2Bytes, int64_t k, int64_t mr);

/// Parses the text form (str()); "default" or "" is no tile. Fails with
/// `error` for anything else than register-tile= with 2 and cache-tile= with
/// 3 sizes in [1, 2^30] (mr x nr at most 4096), each at most once.
FailureOr<CpuTiles> parseCpuTiles(StringRef text, std::string &error);

} // namespace mlir::xpu

#endif // XPU_CODEGEN_CPUTILES_H
