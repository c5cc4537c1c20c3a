//===- RegisterPressure.h - register estimate of GEMM epilogues -*- C++ -*-===//
//
// The fusion_register_pressure_guard of the catalog: how many registers per
// thread a GEMM epilogue needs on a target. Used by xpu-fuse-epilogue to
// decide how far to fuse, and by the strategy to choose the GRF mode.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_REGISTERPRESSURE_H
#define XPU_DIALECT_XPU_UTILS_REGISTERPRESSURE_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

namespace mlir::xpu {

/// Registers of one accumulator fragment and the budget of a thread.
///
/// A fragment is one f32 value per accumulator element the thread holds:
/// `tile_m * tile_n / threads` elements (the GEMM's #xpu.config, else the
/// target's default tile: 128x128 on 32 subgroups on Xe, on 8 warps on
/// sm_90). On Xe a hardware thread runs a whole subgroup, so a per-lane f32
/// costs `lanes * 4` bytes of its GRF; on NVIDIA a register is 4 bytes of
/// one lane, and the kernel kind decides the reserve and the cost of a live
/// epilogue value (see get()). The budget is the config's GRF mode, else the
/// target's register count; a reserve covers addresses and loop state (the A
/// and B tiles are dead when the epilogue runs on Xe).
struct RegisterModel {
  TargetAttr target;
  int64_t fragmentRegisters = 0;
  int64_t budget = 0;
  int64_t reserved = 0;

  /// The model for `gemm` with its own config.
  static RegisterModel get(GemmOp gemm, TargetAttr target);
  /// The model for a candidate `config` (null: the target's default tile)
  /// of a GEMM with `operandType` operands (null: unknown). On NVIDIA
  /// targets 16-bit and tf32 operands run on mma.sync tensor cores
  /// (accumulators, operand fragments, epilogue on register pairs), others
  /// as SIMT kernels (accumulators plus a micro-tile per live epilogue
  /// value).
  static RegisterModel get(TargetAttr target, ConfigAttr config,
                           Type operandType = {});
  /// Registers per thread with `peakLiveFragments` fragments live.
  int64_t estimate(int64_t peakLiveFragments) const;
  /// CPU targets apply the epilogue per vector tile: no guard.
  bool enabled() const { return !target.isCpu(); }
};

/// The largest number of accumulator-dependent values (fragments) live at
/// once while `ops` run in order, where `accRoots` are the accumulator values
/// entering and `result` is the value leaving (needed after the last op).
/// At each op, the fragments live across it count, plus its result, which can
/// take the register of an operand read for the last time there; a
/// transcendental op (see isTranscendental) needs one more temporary.
int64_t peakLiveFragments(ArrayRef<Operation *> ops, ArrayRef<Value> accRoots,
                          Value result);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_REGISTERPRESSURE_H
