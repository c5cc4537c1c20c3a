//===- GemmPrograms.h - what a GPU backend implements -----------*- C++ -*-===//
//
// The contract between the schedule layer and the GPU backends.
//
// `xpu-schedule-gemm` writes the host side of every configured xpu.gemm
// (operand buffers, result buffer, Stream-K workspace) and its programs: an
// scf.forall over program ids, mapped to `#gpu.block<x>`, whose body walks
// tiles and K ranges with scf loops and calls two ops, each executed by all
// work-items of one workgroup on one tile:
//
//   xpu.gemm_tile  <output | partial | atomic_add> lhs, rhs into dest[slot]
//                  at [batch, m0, n0] k [k0, k1]
//       computes the accumulators of the tile at (batch, m0, n0) over
//       k in [k0, k1) (elements; multiples of tile_k except at the end of K),
//       then either applies the epilogue and stores the output tile
//       (`output`), stores the f32 accumulators to workspace slot `slot`
//       (`partial`), or adds them there with masked float atomics
//       (`atomic_add`);
//   xpu.gemm_fixup ws[first, count] into dest at [batch, m0, n0]
//       sums workspace slots first .. first + count - 1 in that order,
//       applies the epilogue and stores the output tile (Stream-K).
//
// A backend provides a GemmTileEmitter that lowers these two ops inside a
// workgroup, and calls lowerProgramsToLaunch (kernels that go through
// gpu-kernel-outlining, like the SIMT ones) or lowerProgramsToKernel (a
// kernel in its own gpu.module, like the Xe ones, which need per-kernel
// compiler options) for each forall. Nothing else of the schedule is the
// backend's business: tile order, program counts, K ranges and workspace
// slots come from the IR.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_CONVERSION_XPUSCHEDULE_GEMMPROGRAMS_H
#define XPU_CONVERSION_XPUSCHEDULE_GEMMPROGRAMS_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::xpu {

/// Lowers the tile ops of one kernel; one instance per kernel.
class GemmTileEmitter {
public:
  virtual ~GemmTileEmitter() = default;

  /// Called once with the builder at the start of the kernel body (every
  /// work-item runs it), before any tile op is lowered: thread coordinates,
  /// shared memory.
  virtual LogicalResult beginKernel(OpBuilder &b, Location loc) {
    return success();
  }
  /// Replaces `op` (its operands are usable where it stands).
  virtual LogicalResult emitTile(RewriterBase &rewriter, GemmTileOp op) = 0;
  /// Replaces `op`.
  virtual LogicalResult emitFixup(RewriterBase &rewriter, GemmFixupOp op) = 0;
};

/// The scf.forall ops nested in `root` that hold GEMM programs (mapped to
/// GPU blocks, calling xpu.gemm_tile or xpu.gemm_fixup), in program order.
SmallVector<scf::ForallOp> collectGemmPrograms(Operation *root);

/// The config shared by the tile ops of `programs`; an error at the forall
/// when it does not count from 0 in steps of 1 or its tile ops disagree,
/// and at a tile with a dynamic m whose config
/// is not for the SIMT kernels (the only ones that read the rows at run
/// time).
FailureOr<ConfigAttr> getProgramsConfig(scf::ForallOp programs);

/// The grid size of `programs` (its static upper bound).
int64_t getProgramCount(scf::ForallOp programs);

/// Replaces `programs` by a gpu.launch with one workgroup of `threads`
/// work-items per program (the program id is the block id x), then lowers
/// its tile ops with `emitter`. Returns the launch.
FailureOr<gpu::LaunchOp> lowerProgramsToLaunch(RewriterBase &rewriter,
                                               scf::ForallOp programs,
                                               int64_t threads,
                                               GemmTileEmitter &emitter);

/// Replaces `programs` by a gpu.launch_func of a new kernel `name` in its own
/// gpu.module (with `targets`) with `threads` work-items per workgroup. The
/// values the body reads from above become kernel arguments (constants are
/// cloned in). The launch passes `dynamicSharedBytes` of dynamic shared
/// memory when it is not 0, and launches workgroups in thread block clusters
/// of `clusterSize` along x when it is more than 1 (the program count is a
/// multiple of it). Then lowers the tile ops with `emitter`. Returns the
/// kernel.
FailureOr<gpu::GPUFuncOp>
lowerProgramsToKernel(RewriterBase &rewriter, scf::ForallOp programs,
                      ModuleOp module, StringRef name, ArrayAttr targets,
                      int64_t threads, GemmTileEmitter &emitter,
                      int64_t dynamicSharedBytes = 0, int64_t clusterSize = 1);

} // namespace mlir::xpu

#endif // XPU_CONVERSION_XPUSCHEDULE_GEMMPROGRAMS_H
