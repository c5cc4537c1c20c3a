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
/// into blocks, the lanes of a subgroup split a block, and each thread
/// keeps an `rm x rn` register micro-tile: runs of `vm` neighbouring rows
/// `lanesM * vm` rows apart, and runs of `vn` neighbouring columns
/// `lanesN * vn` columns apart (#xpu.simt's `vector`: with 1, `vm = rm`
/// and `vn = 1`, getSimtMicroTile; else both are `vector`).
struct SimtLayout {
  int64_t tm, tn, tk;
  int64_t sgRows, sgCols, lanes;
  int64_t lanesM, lanesN;
  int64_t rm, rn;
  int64_t vm = 1, vn = 1;
  /// #xpu.simt's `vector`: 1 for the scalar layout.
  int64_t vector = 1;
  /// Shared-memory slice buffers: 2 (double buffering) when stages >= 2.
  int64_t buffers;
  int64_t threads() const { return sgRows * sgCols * lanes; }
  bool isVector() const { return vector > 1; }
  /// Elements of one K-row of the A slice in shared memory: k-major
  /// (`[tk][tm + vector]`, padded against bank conflicts of the
  /// transposing stores) in vector layouts, else row-major `[tm][tk]`.
  int64_t aSlmPitch() const { return isVector() ? tm + vector : tk; }
  /// Elements of one K-row of the B slice (`[tk][tn]`, padded in vector
  /// layouts, where an `[n, k]` B is transposed on the way in).
  int64_t bSlmPitch() const { return isVector() ? tn + vector : tn; }
  int64_t aSliceElems() const {
    return isVector() ? tk * aSlmPitch() : tm * tk;
  }
  int64_t bSliceElems() const { return tk * bSlmPitch(); }
};

/// The SIMT kernels' shared memory for `config`: `buffers` A and B slices
/// of `operandBytes`-byte elements, as SimtLayout lays them out.
int64_t getSimtSlmBytes(ConfigAttr config, int64_t operandBytes);

/// Accumulators one SIMT thread may hold: beyond this the kernel would spill
/// on every target we know.
inline constexpr int64_t kSimtMaxAccumulators = 256;

/// The registers the strategy gives a thread of a vector layout's kernel on
/// NVIDIA: two 256-thread workgroups an SM.
inline constexpr int64_t kSimtVectorRegisterBudget = 128;

/// The SIMT layout of `config` on `target` with `lanes` lanes per subgroup,
/// or failure with the reason in `why`.
FailureOr<SimtLayout> getSimtLayout(TargetAttr target, ConfigAttr config,
                                    int64_t lanes, std::string &why);

} // namespace mlir::xpu

#endif // XPU_CONVERSION_XPUTOGPU_SIMTBACKEND_H
