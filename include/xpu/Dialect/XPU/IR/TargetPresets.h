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

/// What a CPU preset knows beyond #xpu.target's fields: the name LLVM gives
/// the CPU, the instruction set the generated code may use, and the core's
/// numbers that CPU tile sizes are derived from. (Registers, vector width
/// and the L2 are #xpu.target's grf_count, vector_bits and slm_bytes; the
/// AMX tile shape is its mma.)
struct CpuFacts {
  /// The CPU name LLVM's X86 backend knows (`target-cpu`).
  llvm::StringLiteral llvmCpu;
  /// LLVM feature names, comma-separated without `+`, that the code may
  /// use (`target-features`) and the host must have to run it.
  llvm::StringLiteral features;
  /// Vector FMA instructions issued per cycle, and the width in bits of
  /// each FMA unit (256 on a core that splits 512-bit vectors in two).
  int64_t fmaPorts, fmaBits;
  int64_t l1dBytes, l2Bytes;
  /// AMX tiles (amx-tile, amx-bf16): 8 tiles of 16 rows x 64 bytes.
  bool amx;
};

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
  /// CPU presets only: the facts #xpu.target does not hold; null on GPUs.
  const CpuFacts *cpu;

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
/// The CPU this process runs on, as LLVM's host queries see it.
struct HostCpu {
  /// llvm::sys::getHostCPUName(), e.g. `sapphirerapids`.
  std::string name;
  /// The features llvm::sys::getHostCPUFeatures() reports enabled, sorted.
  llvm::SmallVector<std::string> features;
  bool hasFeature(llvm::StringRef feature) const;
};
/// The host, detected once.
const HostCpu &getHostCpu();
/// The most capable CPU preset whose features the host has (the first in
/// the table's order of preference); the pipeline's `chip=host`.
const TargetPreset &getHostCpuPreset();
/// The features of the comma-separated `features` (as CpuFacts lists
/// them, optionally with `+`) that the host lacks; `-feature` entries are
/// ignored.
llvm::SmallVector<std::string> getMissingHostFeatures(llvm::StringRef features);

/// One JSON object per line and preset, with every field: what
/// `xpu-opt --xpu-list-targets` prints.
void printTargetPresetsAsJson(llvm::raw_ostream &os);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_IR_TARGETPRESETS_H
