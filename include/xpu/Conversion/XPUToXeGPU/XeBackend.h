//===- XeBackend.h - the Xe GEMM backend's rules ----------------*- C++ -*-===//
//
// The rules of convert-xpu-to-xegpu's DPAS kernels with 2D block I/O: which
// GEMMs and configs they run and the layouts they read. The kernels and the
// backend's GemmBackendAttrInterface model on #xpu.xe (XeGemmBackend.cpp)
// read them here, so that a config the strategy accepts is one the kernels
// lower.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_CONVERSION_XPUTOXEGPU_XEBACKEND_H
#define XPU_CONVERSION_XPUTOXEGPU_XEBACKEND_H

#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include <string>

namespace mlir::xpu::xe {

/// Lanes of a subgroup: DPAS runs on SIMD16 on pvc and bmg.
inline constexpr int64_t kLanes = 16;
/// DPAS shape for 16-bit operands: A 8x16, B 16x16, C 8x16.
inline constexpr int64_t kDpasM = 8, kDpasN = 16, kDpasK = 16;
/// The GRF modes of an Xe hardware thread: 128 registers, or 256 with half
/// the threads (the target's `large_grf_threads_per_unit`).
inline constexpr int64_t kSmallGrfMode = 128, kLargeGrfMode = 256;
// The 2D block surface rules (minimum and alignment of the row pitch and
// the width, base alignment) are the target's `block_2d` limits: a row's
// width (bytes a block message may touch) is at most its pitch.

/// f16 and bf16: the operand types of DPAS.
bool isDpasOperandType(Type t);
/// The smallest row pitch >= `cols` elements that 2D block I/O on `target`
/// accepts.
int64_t getLegalPitch(TargetAttr target, int64_t cols, Type elt);
/// The smallest surface width >= `cols` elements that 2D block I/O accepts
/// (>= 64 bytes, a multiple of 4): the width of the descriptors of a
/// surface with `cols` logical columns. It is at most getLegalPitch(cols),
/// so a row padded to a legal pitch holds it.
int64_t getBlockWidth(TargetAttr target, int64_t cols, Type elt);
/// The smallest row count >= `rows` whose rows of `pitch` elements fill a
/// multiple of the base alignment (64 bytes): the rows of one batch's slab
/// of a batched surface, so that every batch's base address stays aligned.
int64_t getBatchRows(TargetAttr target, int64_t rows, int64_t pitch, Type elt);
/// Types the Xe kernel loads, stores and computes its epilogue in (f32,
/// f16, bf16, integers up to 32 bits).
bool isKernelType(Type t);
/// Types the Xe kernel may compute and store: not bf16, which XeVM's SPIR-V
/// declares as a bfloat OpTypeFloat that needs SPV_KHR_bfloat16 (the
/// serializer stops with a fatal error). bf16 loads (DPAS operands,
/// epilogue operands read through extf) are 16-bit data and stay in the
/// kernel.
bool isKernelResultType(Type t);
/// True when the epilogue of `gemm` can run in the kernel (every value a
/// kernel type, every result a kernel result type: f64 epilogues, bf16
/// results); else the kernel stores the f32 accumulator and the epilogue
/// runs on the host.
bool hasDeviceEpilogue(GemmOp gemm);
/// The operand element type the kernel reads: the lhs type if DPAS takes
/// it, else bf16.
Type getDpasOperandType(GemmOp gemm);

/// Whether the DPAS kernels compute `gemm` (its types and epilogue) on
/// `target`; `why` says why not and `where` is the op to blame.
LogicalResult checkGemm(GemmOp gemm, TargetAttr target, std::string &why,
                        Operation *&where);
/// Whether the DPAS kernels run `config` on `target`: subgroup blocks of
/// whole DPAS shapes, work-items and hardware threads in its GRF mode.
LogicalResult checkConfig(TargetAttr target, ConfigAttr config,
                          std::string &why);

} // namespace mlir::xpu::xe

#endif // XPU_CONVERSION_XPUTOXEGPU_XEBACKEND_H
