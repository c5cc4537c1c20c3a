//===- SimtBackend.h - the SIMT GEMM backend's rules ------------*- C++ -*-===//
//
// The layout of convert-xpu-to-gpu's portable SIMT kernels (shared-memory
// slices, register micro-tiles), read by the kernels and by the backend's
// GemmBackendAttrInterface model on #xpu.simt (SimtGemmBackend.cpp), so
// that a config the strategy accepts is one the kernels lower.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_CONVERSION_XPUTOGPU_SIMTBACKEND_H
#define XPU_CONVERSION_XPUTOGPU_SIMTBACKEND_H

#include "xpu/Dialect/XPU/IR/XPUAttrs.h"

#include <string>

namespace mlir::xpu {

/// How a SIMT workgroup is laid out: the config's subgroups split the tile
/// into blocks, the lanes of a subgroup split a block (getSimtMicroTile),
/// and each thread keeps an `rm x rn` register micro-tile.
struct SimtLayout {
  int64_t tm, tn, tk;
  int64_t sgRows, sgCols, lanes;
  int64_t lanesM, lanesN;
  int64_t rm, rn;
  /// Shared-memory slice buffers: 2 (double buffering) when stages >= 2.
  int64_t buffers;
  int64_t threads() const { return sgRows * sgCols * lanes; }
};

/// Accumulators one SIMT thread may hold: beyond this the kernel would spill
/// on every target we know.
inline constexpr int64_t kSimtMaxAccumulators = 256;

/// The SIMT layout of `config` on `target` with `lanes` lanes per subgroup,
/// or failure with the reason in `why`.
FailureOr<SimtLayout> getSimtLayout(TargetAttr target, ConfigAttr config,
                                    int64_t lanes, std::string &why);

} // namespace mlir::xpu

#endif // XPU_CONVERSION_XPUTOGPU_SIMTBACKEND_H
