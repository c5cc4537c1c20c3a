//===- TargetPresets.h - the #xpu.target presets ----------------*- C++ -*-===//
//
// The chips xpu-opt knows, as data: one row of TargetPresets.cpp per chip,
// with every hardware fact the compiler reads. #xpu.target<"chip"> is built
// from its row; pipeline options, the tools and Python (through
// `xpu-opt --xpu-list-targets`) list and check chips with these functions
// instead of spelling chip names.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_IR_TARGETPRESETS_H
#define XPU_DIALECT_XPU_IR_TARGETPRESETS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir::xpu {

/// One chip: the fields of #xpu.target (see XPUAttrs.td for their meaning).
struct TargetPreset {
  llvm::StringLiteral chip;
  llvm::StringLiteral vendor;
  /// The device, for listings ("Intel Data Center GPU Max 1550").
  llvm::StringLiteral description;
  llvm::ArrayRef<int64_t> subgroupSizes;
  int64_t grfCount, grfBytes, slmBytes, computeUnits;
  llvm::ArrayRef<int64_t> mma;
  int64_t vectorBits, peakF32Gflops, peakBf16Gflops, memGbps;
  // Limits.
  int64_t threadsPerUnit, largeGrfThreadsPerUnit, blocksPerUnit;
  int64_t registersPerUnit, maxWorkgroupSize, maxBlockSlmBytes;
  // Capabilities.
  bool wgmma, tma, dpas;
  llvm::ArrayRef<int64_t> block2d;

  bool isIntel() const { return vendor == "intel"; }
  bool isNvidia() const { return vendor == "nvidia"; }
  bool isCpu() const { return vendor == "cpu"; }
};

/// Every preset, in listing order.
llvm::ArrayRef<TargetPreset> getTargetPresets();
/// The preset named `chip`, or null.
const TargetPreset *lookupTargetPreset(llvm::StringRef chip);
/// The preset of targets that name none: what passes assume when a module
/// has no #xpu.target.
const TargetPreset &getDefaultTargetPreset();
/// The limits and capabilities of a target of `vendor` that is not a
/// preset and leaves them out: those of the vendor's first preset; null for
/// an unknown vendor.
const TargetPreset *getVendorDefaultPreset(llvm::StringRef vendor);
/// The chip a pipeline for `vendor` compiles for when its options name
/// none (`sm_90` for NVIDIA); null for an unknown vendor.
const TargetPreset *getPipelineDefaultPreset(llvm::StringRef vendor);
/// Names of the presets for which `filter` holds (all when null), for
/// option checks and messages: `listPresets([](auto &p) { return p.dpas; })`.
llvm::SmallVector<llvm::StringRef>
listPresets(llvm::function_ref<bool(const TargetPreset &)> filter = nullptr);
/// Names of the presets of `vendor` ("intel", "nvidia", "cpu").
llvm::SmallVector<llvm::StringRef> listPresets(llvm::StringRef vendor);
/// One JSON object per line and preset, with every field: what
/// `xpu-opt --xpu-list-targets` prints.
void printTargetPresetsAsJson(llvm::raw_ostream &os);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_IR_TARGETPRESETS_H
