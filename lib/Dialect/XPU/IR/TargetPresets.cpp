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
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

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

/// AMX: tdpbf16ps multiplies a 16x32 bf16 tile by a 32x16 one (16 rows of
/// bf16 pairs) into a 16x16 f32 tile.
constexpr int64_t kAmxBf16[] = {16, 16, 32};

constexpr int64_t KiB = 1024;
constexpr int64_t MiB = 1024 * KiB;

// The CPU facts (TargetPresets.h), from Intel's optimization reference
// manual (Golden Cove: two 512-bit FMA ports on server parts, 48 KiB L1d,
// 2 MiB L2; AMX tiles of 16 rows x 64 bytes) and AMD's Zen 4 software
// optimization guide (512-bit instructions on 256-bit units, 32 KiB L1d,
// 1 MiB L2); LLVM's names for the features.
// llvmCpu, features; fmaPorts, fmaBits; l1d, l2; amx.
#define XPU_X86_64_V3_FEATURES "avx,avx2,bmi,bmi2,f16c,fma,lzcnt,movbe"
#define XPU_X86_64_V4_FEATURES                                                 \
  XPU_X86_64_V3_FEATURES ",avx512f,avx512bw,avx512cd,avx512dq,avx512vl"
const CpuFacts kAvx2Core = {
    "x86-64-v3", XPU_X86_64_V3_FEATURES, 2, 256, 32 * KiB, 512 * KiB, false};
const CpuFacts kAvx512Core = {
    "x86-64-v4", XPU_X86_64_V4_FEATURES, 2, 512, 48 * KiB, 1 * MiB, false};
const CpuFacts kSapphireRapids = {"sapphirerapids",
                                  XPU_X86_64_V4_FEATURES
                                  ",avx512bf16,avx512fp16,avx512vnni,amx-tile,"
                                  "amx-bf16,amx-int8",
                                  2,
                                  512,
                                  48 * KiB,
                                  2 * MiB,
                                  true};
// Cooper Lake: the first Xeon with avx512bf16 (and VNNI), no AMX; also
// what a Sapphire or Emerald Rapids guest whose hypervisor hides AMX has.
// vdpbf16ps issues on one port there: its bf16 peak is half the f32 one
// (81 against 140 GFLOP/s measured on an Emerald Rapids guest,
// docs/Performance.md), so its bf16 GEMMs take the f32 panels.
const CpuFacts kCooperLake = {"cooperlake",
                              XPU_X86_64_V4_FEATURES ",avx512bf16,avx512vnni",
                              2,
                              512,
                              32 * KiB,
                              1 * MiB,
                              false};
const CpuFacts kZen4 = {
    "znver4", XPU_X86_64_V4_FEATURES ",avx512bf16,avx512vnni,sse4a",
    2,        256,
    32 * KiB, 1 * MiB,
    false};
#undef XPU_X86_64_V4_FEATURES
#undef XPU_X86_64_V3_FEATURES

// One row per chip, one line per group of columns:
//   chip, vendor, description;
//   subgroup sizes, grf_count, grf_bytes, slm_bytes, compute_units, mma;
//   vector_bits, peak f32 and bf16 GFLOP/s, memory GB/s;
//   threads per unit (Xe: 128-GRF mode, 8 engines x 8 threads; NVIDIA:
//   warps per SM), the same in the 256-GRF mode (0: no such mode), blocks
//   per unit, 32-bit registers per unit, max workgroup size, max shared
//   bytes of one workgroup;
//   wgmma, tma, dpas, 2D block limits;
//   the CPU facts (null on GPUs).
// A CPU row is one core at a nominal 3 GHz: peak f32 = FMA ports x lanes
// of an FMA unit x 2 x 3; bf16 with AMX 1024 flop per cycle (one 16x16x32
// tdpbf16ps per 16 cycles), with avx512bf16 twice f32 on Zen 4 and half of
// it on Intel cores (vdpbf16ps on one port).
// clang-format off
const TargetPreset kPresets[] = {
    {"pvc", "intel", "Intel Data Center GPU Max 1550 (Ponte Vecchio)",
     kSimd16And32, 128, 64, 128 * KiB, 128, kDpas8x16x16,
     512, 52400, 838900, 3277,
     64, 32, 64, 64 * 128 * 64 / 4, 1024, 128 * KiB,
     false, false, true, kXeBlock2d, nullptr},
    {"bmg", "intel", "Intel Arc B580 (Battlemage, Xe2-HPG)",
     kSimd16And32, 128, 64, 128 * KiB, 20, kDpas8x16x16,
     512, 13670, 116600, 456,
     64, 32, 64, 64 * 128 * 64 / 4, 1024, 128 * KiB,
     false, false, true, kXeBlock2d, nullptr},
    {"sm_80", "nvidia", "NVIDIA A100 SXM4 80GB (Ampere)",
     kWarp32, 255, 4, 164 * KiB, 108, kMma16x8x16,
     1024, 19500, 312000, 2039,
     64, 0, 32, 65536, 1024, 163 * KiB,
     false, false, false, {}, nullptr},
    {"sm_90", "nvidia", "NVIDIA H200 SXM (Hopper)",
     kWarp32, 255, 4, 228 * KiB, 132, kMma16x8x16,
     1024, 66900, 989400, 4800,
     64, 0, 32, 65536, 1024, 227 * KiB,
     false, true, false, {}, nullptr},
    // The same chip with the architecture-specific instructions (wgmma,
    // setmaxnreg) enabled.
    {"sm_90a", "nvidia", "NVIDIA H200 SXM (Hopper, sm_90a features)",
     kWarp32, 255, 4, 228 * KiB, 132, kMma16x8x16,
     1024, 66900, 989400, 4800,
     64, 0, 32, 65536, 1024, 227 * KiB,
     true, true, false, {}, nullptr},
    // One x86-64 core with AVX2 + FMA (the CI machines): 16 ymm registers;
    // slm_bytes is its L2.
    {"cpu", "cpu", "one x86-64 core with AVX2 and FMA",
     kScalar, 16, 32, 512 * KiB, 1, kNoMma,
     256, 96, 96, 20,
     1, 0, 1, 16 * 8, 1024, 512 * KiB,
     false, false, false, {}, &kAvx2Core},
    // The x86-64 micro-architecture levels: any core with AVX2 + FMA (16
    // ymm registers), any with AVX-512 F/BW/CD/DQ/VL (32 zmm registers).
    {"x86-64-v3", "cpu", "one x86-64-v3 core (AVX2, FMA)",
     kScalar, 16, 32, 512 * KiB, 1, kNoMma,
     256, 96, 96, 20,
     1, 0, 1, 16 * 8, 1024, 512 * KiB,
     false, false, false, {}, &kAvx2Core},
    {"x86-64-v4", "cpu", "one x86-64-v4 core (AVX-512)",
     kScalar, 32, 64, 1 * MiB, 1, kNoMma,
     512, 192, 192, 20,
     1, 0, 1, 32 * 16, 1024, 1 * MiB,
     false, false, false, {}, &kAvx512Core},
    {"sapphirerapids", "cpu",
     "one Intel Xeon Sapphire Rapids core (AVX-512, AVX512-BF16, AMX)",
     kScalar, 32, 64, 2 * MiB, 1, kAmxBf16,
     512, 192, 3072, 20,
     1, 0, 1, 32 * 16, 1024, 2 * MiB,
     false, false, false, {}, &kSapphireRapids},
    {"cooperlake", "cpu",
     "one Intel Xeon core with AVX-512, AVX512-BF16 and VNNI, no AMX "
     "(Cooper Lake)",
     kScalar, 32, 64, 1 * MiB, 1, kNoMma,
     512, 192, 96, 20,
     1, 0, 1, 32 * 16, 1024, 1 * MiB,
     false, false, false, {}, &kCooperLake},
    {"znver4", "cpu", "one AMD Zen 4 core (AVX-512 on 256-bit units)",
     kScalar, 32, 64, 1 * MiB, 1, kNoMma,
     512, 96, 192, 20,
     1, 0, 1, 32 * 16, 1024, 1 * MiB,
     false, false, false, {}, &kZen4},
};
// clang-format on

/// Targets without an #xpu.target get this row of kPresets.
constexpr size_t kDefaultPreset = 0;

/// The chip a pipeline compiles for when its options name none, per vendor.
constexpr StringLiteral kPipelineDefaults[][2] = {
    {"intel", "pvc"}, {"nvidia", "sm_90"}, {"cpu", "cpu"}};
} // namespace

ArrayRef<TargetPreset> mlir::xpu::getTargetPresets() { return kPresets; }

bool HostCpu::hasFeature(StringRef feature) const {
  return llvm::is_contained(features, feature);
}

const HostCpu &mlir::xpu::getHostCpu() {
  static const HostCpu host = [] {
    HostCpu h;
    h.name = llvm::sys::getHostCPUName().str();
    for (const auto &f : llvm::sys::getHostCPUFeatures())
      if (f.second)
        h.features.push_back(f.first().str());
    llvm::sort(h.features);
    return h;
  }();
  return host;
}

SmallVector<std::string> mlir::xpu::getMissingHostFeatures(StringRef features) {
  SmallVector<std::string> missing;
  SmallVector<StringRef> list;
  features.split(list, ',', -1, /*KeepEmpty=*/false);
  for (StringRef f : list) {
    f = f.trim();
    if (f.starts_with("-"))
      continue;
    f.consume_front("+");
    if (!f.empty() && !getHostCpu().hasFeature(f))
      missing.push_back(f.str());
  }
  return missing;
}

const TargetPreset &mlir::xpu::getHostCpuPreset() {
  static const TargetPreset *host = [] {
    // Most capable first; `cpu` (AVX2 + FMA) is the last resort, as before
    // the host was detected.
    for (StringRef chip :
         {"sapphirerapids", "znver4", "cooperlake", "x86-64-v4"}) {
      const TargetPreset *p = lookupTargetPreset(chip);
      if (p && getMissingHostFeatures(p->cpu->features).empty())
        return p;
    }
    return lookupTargetPreset("cpu");
  }();
  return *host;
}

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
    if (p.cpu) {
      SmallVector<StringRef> features;
      StringRef(p.cpu->features).split(features, ',');
      o["llvm_cpu"] = p.cpu->llvmCpu;
      o["features"] = llvm::json::Array(features);
      o["fma_ports"] = p.cpu->fmaPorts;
      o["fma_bits"] = p.cpu->fmaBits;
      o["l1d_bytes"] = p.cpu->l1dBytes;
      o["l2_bytes"] = p.cpu->l2Bytes;
      o["amx"] = p.cpu->amx;
      // The preset `chip=host` picks on this machine.
      o["host"] = &p == &getHostCpuPreset();
    }
    os << llvm::json::Value(std::move(o)) << "\n";
  }
}
