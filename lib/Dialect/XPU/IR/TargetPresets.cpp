//===- TargetPresets.cpp - the chips xpu-opt knows, as one table ----------===//
//
// Adding a chip is one row here. Sources of every number are in
// docs/Design.md ("Target presets"); the limits and capabilities are those
// the backends were written against (Intel's 2D block I/O restrictions, the
// CUDA C++ Programming Guide's "Technical Specifications per Compute
// Capability").
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/TargetPresets.h"

#include "mlir/Support/LLVM.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::xpu;

namespace {
constexpr int64_t kSimd16And32[] = {16, 32};
constexpr int64_t kWarp32[] = {32};
constexpr int64_t kScalar[] = {1};
/// DPAS for 16-bit operands: A 8x16, B 16x16, C 8x16.
constexpr int64_t kDpas8x16x16[] = {8, 16, 16};
/// mma.sync m16n8k16.
constexpr int64_t kMma16x8x16[] = {16, 8, 16};
constexpr int64_t kNoMma[] = {0, 0, 0};
/// 2D block I/O (cl_intel_subgroup_2d_block_io, "Restrictions"; pvc and
/// Xe2), in bytes: the row pitch is at least 64 and a multiple of 16; the
/// width at least 64 and a multiple of 4; the base address 64-byte aligned.
constexpr int64_t kXeBlock2d[] = {64, 16, 64, 4, 64};

constexpr int64_t KiB = 1024;

// One row per chip, one line per group of columns:
//   chip, vendor, description;
//   subgroup sizes, grf_count, grf_bytes, slm_bytes, compute_units, mma;
//   vector_bits, peak f32 and bf16 GFLOP/s, memory GB/s;
//   threads per unit (Xe: 128-GRF mode, 8 engines x 8 threads; NVIDIA:
//   warps per SM), the same in the 256-GRF mode (0: no such mode), blocks
//   per unit, 32-bit registers per unit, max workgroup size, max shared
//   bytes of one workgroup;
//   wgmma, tma, dpas, 2D block limits.
// clang-format off
const TargetPreset kPresets[] = {
    {"pvc", "intel", "Intel Data Center GPU Max 1550 (Ponte Vecchio)",
     kSimd16And32, 128, 64, 128 * KiB, 128, kDpas8x16x16,
     512, 52400, 838900, 3277,
     64, 32, 64, 64 * 128 * 64 / 4, 1024, 128 * KiB,
     false, false, true, kXeBlock2d},
    {"bmg", "intel", "Intel Arc B580 (Battlemage, Xe2-HPG)",
     kSimd16And32, 128, 64, 128 * KiB, 20, kDpas8x16x16,
     512, 13670, 116600, 456,
     64, 32, 64, 64 * 128 * 64 / 4, 1024, 128 * KiB,
     false, false, true, kXeBlock2d},
    {"sm_80", "nvidia", "NVIDIA A100 SXM4 80GB (Ampere)",
     kWarp32, 255, 4, 164 * KiB, 108, kMma16x8x16,
     1024, 19500, 312000, 2039,
     64, 0, 32, 65536, 1024, 163 * KiB,
     false, false, false, {}},
    {"sm_90", "nvidia", "NVIDIA H200 SXM (Hopper)",
     kWarp32, 255, 4, 228 * KiB, 132, kMma16x8x16,
     1024, 66900, 989400, 4800,
     64, 0, 32, 65536, 1024, 227 * KiB,
     false, true, false, {}},
    // The same chip with the architecture-specific instructions (wgmma,
    // setmaxnreg) enabled.
    {"sm_90a", "nvidia", "NVIDIA H200 SXM (Hopper, sm_90a features)",
     kWarp32, 255, 4, 228 * KiB, 132, kMma16x8x16,
     1024, 66900, 989400, 4800,
     64, 0, 32, 65536, 1024, 227 * KiB,
     true, true, false, {}},
    // One x86-64 core with AVX2 + FMA (the CI machines): 16 ymm registers;
    // slm_bytes is its L2.
    {"cpu", "cpu", "one x86-64 core with AVX2 and FMA",
     kScalar, 16, 32, 512 * KiB, 1, kNoMma,
     256, 96, 96, 20,
     1, 0, 1, 16 * 8, 1024, 512 * KiB,
     false, false, false, {}},
};
// clang-format on

/// Targets without an #xpu.target get this row of kPresets.
constexpr size_t kDefaultPreset = 0;

/// The chip a pipeline compiles for when its options name none, per vendor.
constexpr StringLiteral kPipelineDefaults[][2] = {
    {"intel", "pvc"}, {"nvidia", "sm_90"}, {"cpu", "cpu"}};
} // namespace

ArrayRef<TargetPreset> mlir::xpu::getTargetPresets() { return kPresets; }

const TargetPreset *mlir::xpu::lookupTargetPreset(StringRef chip) {
  const TargetPreset *it = llvm::find_if(
      kPresets, [&](const TargetPreset &p) { return p.chip == chip; });
  return it == std::end(kPresets) ? nullptr : it;
}

const TargetPreset &mlir::xpu::getDefaultTargetPreset() {
  return kPresets[kDefaultPreset];
}

const TargetPreset *mlir::xpu::getVendorDefaultPreset(StringRef vendor) {
  const TargetPreset *it = llvm::find_if(
      kPresets, [&](const TargetPreset &p) { return p.vendor == vendor; });
  return it == std::end(kPresets) ? nullptr : it;
}

const TargetPreset *mlir::xpu::getPipelineDefaultPreset(StringRef vendor) {
  for (const auto &entry : kPipelineDefaults)
    if (entry[0] == vendor)
      return lookupTargetPreset(entry[1]);
  return nullptr;
}

SmallVector<StringRef>
mlir::xpu::listPresets(function_ref<bool(const TargetPreset &)> filter) {
  SmallVector<StringRef> names;
  for (const TargetPreset &p : kPresets)
    if (!filter || filter(p))
      names.push_back(p.chip);
  return names;
}

SmallVector<StringRef> mlir::xpu::listPresets(StringRef vendor) {
  return listPresets([&](const TargetPreset &p) { return p.vendor == vendor; });
}

void mlir::xpu::printTargetPresetsAsJson(raw_ostream &os) {
  auto list = [](ArrayRef<int64_t> values) {
    return llvm::json::Array(values);
  };
  for (const TargetPreset &p : kPresets) {
    llvm::json::Object o{
        {"chip", p.chip},
        {"vendor", p.vendor},
        {"description", p.description},
        {"default", &p == &getDefaultTargetPreset()},
        {"pipeline_default", &p == getPipelineDefaultPreset(p.vendor)},
        {"subgroup_sizes", list(p.subgroupSizes)},
        {"grf_count", p.grfCount},
        {"grf_bytes", p.grfBytes},
        {"slm_bytes", p.slmBytes},
        {"compute_units", p.computeUnits},
        {"mma", list(p.mma)},
        {"vector_bits", p.vectorBits},
        {"peak_f32_gflops", p.peakF32Gflops},
        {"peak_bf16_gflops", p.peakBf16Gflops},
        {"mem_gbps", p.memGbps},
        {"threads_per_unit", p.threadsPerUnit},
        {"large_grf_threads_per_unit", p.largeGrfThreadsPerUnit},
        {"blocks_per_unit", p.blocksPerUnit},
        {"registers_per_unit", p.registersPerUnit},
        {"max_workgroup_size", p.maxWorkgroupSize},
        {"max_block_slm_bytes", p.maxBlockSlmBytes},
        {"wgmma", p.wgmma},
        {"tma", p.tma},
        {"dpas", p.dpas},
        {"block_2d", list(p.block2d)},
    };
    os << llvm::json::Value(std::move(o)) << "\n";
  }
}
