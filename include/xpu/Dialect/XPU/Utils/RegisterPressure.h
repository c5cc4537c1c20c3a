//===- RegisterPressure.h - register estimate of GEMM epilogues -*- C++ -*-===//
//
// The fusion_register_pressure_guard of the catalog: how many registers per
// thread a GEMM epilogue needs on a target. Used by xpu-fuse-epilogue to
// decide how far to fuse, and by the strategy to choose the GRF mode.
// Calibrated against Intel's compiler (IGC) on pvc and bmg:
// docs/Strategy.md, "Calibration".
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_REGISTERPRESSURE_H
#define XPU_DIALECT_XPU_UTILS_REGISTERPRESSURE_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include <string>

namespace mlir::xpu {

/// The kind of kernel a GEMM becomes, which decides where its registers go.
enum class KernelKind {
  /// The accumulator in matrix-engine fragments and the epilogue applied to
  /// whole fragments: convert-xpu-to-xegpu's DPAS kernels (and NVIDIA mma).
  Matrix,
  /// convert-xpu-to-gpu's SIMT kernels: each thread a micro-tile of scalar
  /// FMAs fed from shared local memory, the epilogue applied per element.
  Simt,
};

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
///
/// SIMT kernels on Xe (calibrated at SIMD16 against IGC): the accumulators
/// stay live through the epilogue, which needs one register per live value
/// of one element; the K loop keeps the micro-tile's A column and B row of
/// 3/4 of a slice's `tile_k` steps in flight (IGC unrolls the slice loop and
/// issues its SLM loads ahead), and the reserve is larger (64-bit addresses
/// of the slice copies and masked loads).
struct RegisterModel {
  TargetAttr target;
  KernelKind kind = KernelKind::Matrix;
  int64_t fragmentRegisters = 0;
  /// SIMT on Xe: registers of one value per element the thread holds (1 at
  /// SIMD16) and of the K loop's operands in flight; 0 otherwise.
  int64_t elementRegisters = 0;
  int64_t operandRegisters = 0;
  int64_t budget = 0;
  int64_t reserved = 0;

  /// Reserve of SIMT kernels on Xe; 16 for every other kernel.
  static constexpr int64_t kSimtReserve = 64;

  /// The model for `gemm` with its own config.
  static RegisterModel get(GemmOp gemm, TargetAttr target,
                           KernelKind kind = KernelKind::Matrix);
  /// The model for a candidate `config` (null: the target's default tile)
  /// of a GEMM with `operandType` operands (null: unknown). On NVIDIA
  /// targets 16-bit and tf32 operands run on mma.sync tensor cores
  /// (accumulators, operand fragments, epilogue on register pairs), others
  /// as SIMT kernels (accumulators plus a micro-tile per live epilogue
  /// value); `kind` selects Xe's SIMT model.
  static RegisterModel get(TargetAttr target, ConfigAttr config,
                           KernelKind kind = KernelKind::Matrix,
                           Type operandType = {});
  /// Registers per thread with `peakLiveFragments` fragments live.
  int64_t estimate(int64_t peakLiveFragments) const;
  /// The terms of `estimate` for remarks, e.g. "64 per accumulator fragment
  /// x 3 live + 16 reserved".
  std::string describe(int64_t peakLiveFragments) const;
  /// CPU targets apply the epilogue per vector tile: no guard.
  bool enabled() const { return !target.isCpu(); }
};

/// The GRF mode of the kernels that carry no plan of their own (the kernels
/// of xpu-spirv-pipeline, whose GEMM configs do not reach them): 256 on an
/// Xe target when even the smallest SIMT GEMM kernel (an 8x16 tile on one
/// subgroup) needs more than 128 registers by the model, else 0 (the
/// device compiler's default).
int64_t getGenericKernelGrfMode(TargetAttr target);

/// The largest number of accumulator-dependent values (fragments) live at
/// once while `ops` run in order, where `accRoots` are the accumulator values
/// entering and `result` is the value leaving (needed after the last op).
/// At each op, the fragments live across it count, plus its result, which can
/// take the register of an operand read for the last time there; a
/// transcendental op (see isTranscendental) needs one more temporary for
/// itself and one for every transcendental op before it (IGC does not
/// overlap chained transcendental expansions: tanh then GELU spills where
/// either alone does not; docs/Strategy.md, "Calibration"). `panels` are
/// values read as accumulator-sized tiles (the Xe kernel's full, per_row and
/// scalar epilogue operands; not per_col ones, which are row vectors) just
/// before the first op that uses them: fragments from there to their last
/// use, as is everything computed from them.
int64_t peakLiveFragments(ArrayRef<Operation *> ops, ArrayRef<Value> accRoots,
                          Value result, ArrayRef<Value> panels = {});

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_REGISTERPRESSURE_H
