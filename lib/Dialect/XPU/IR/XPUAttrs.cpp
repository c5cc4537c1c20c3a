//===- XPUAttrs.cpp - #xpu.target presets, #xpu.config checks ------------===//

#include "xpu/Dialect/XPU/IR/XPUAttrs.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::xpu;

#include "xpu/Dialect/XPU/IR/XPUEnums.cpp.inc"

static ParseResult parseScheduleBody(AsmParser &parser, ScheduleAttr &schedule);
static void printScheduleBody(AsmPrinter &printer, ScheduleAttr schedule);

#define GET_ATTRDEF_CLASSES
#include "xpu/Dialect/XPU/IR/XPUAttrs.cpp.inc"

void XPUDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "xpu/Dialect/XPU/IR/XPUAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

namespace {
/// All fields of a target; the presets are tables of these. Sources of every
/// number are in docs/Design.md ("Target presets").
struct TargetFields {
  std::string vendor;
  SmallVector<int64_t> subgroupSizes;
  int64_t grfCount = 0, grfBytes = 0, slmBytes = 0, computeUnits = 0;
  SmallVector<int64_t> mma;
  int64_t vectorBits = 0, peakF32Gflops = 0, peakBf16Gflops = 0, memGbps = 0;

  TargetAttr get(MLIRContext *ctx, StringRef chip) const {
    return TargetAttr::get(ctx, chip, vendor, subgroupSizes, grfCount, grfBytes,
                           slmBytes, computeUnits, mma, vectorBits,
                           peakF32Gflops, peakBf16Gflops, memGbps);
  }
  static TargetFields from(TargetAttr t) {
    TargetFields f;
    f.vendor = t.getVendor().str();
    f.subgroupSizes.assign(t.getSubgroupSizes().begin(),
                           t.getSubgroupSizes().end());
    f.grfCount = t.getGrfCount();
    f.grfBytes = t.getGrfBytes();
    f.slmBytes = t.getSlmBytes();
    f.computeUnits = t.getComputeUnits();
    f.mma.assign(t.getMma().begin(), t.getMma().end());
    f.vectorBits = t.getVectorBits();
    f.peakF32Gflops = t.getPeakF32Gflops();
    f.peakBf16Gflops = t.getPeakBf16Gflops();
    f.memGbps = t.getMemGbps();
    return f;
  }
};

constexpr StringLiteral kPresetNames[] = {"pvc",   "bmg",    "sm_80",
                                          "sm_90", "sm_90a", "cpu"};

std::optional<TargetFields> getPresetFields(StringRef chip) {
  TargetFields f;
  if (chip == "pvc") {
    // Intel Data Center GPU Max 1550 (Ponte Vecchio).
    f = {"intel",     {16, 32}, 128,   64,     128 * 1024, 128,
         {8, 16, 16}, 512,      52400, 838900, 3277};
  } else if (chip == "bmg") {
    // Intel Arc B580 (Battlemage, Xe2-HPG).
    f = {"intel",     {16, 32}, 128,   64,     128 * 1024, 20,
         {8, 16, 16}, 512,      13670, 116600, 456};
  } else if (chip == "sm_80") {
    // NVIDIA A100 SXM4 80GB (Ampere).
    f = {"nvidia",    {32}, 255,   4,      164 * 1024, 108,
         {16, 8, 16}, 1024, 19500, 312000, 2039};
  } else if (chip == "sm_90" || chip == "sm_90a") {
    // NVIDIA H200 SXM (Hopper); sm_90a is the same chip with the
    // architecture-specific instructions (wgmma, setmaxnreg) enabled.
    f = {"nvidia",    {32}, 255,   4,      228 * 1024, 132,
         {16, 8, 16}, 1024, 66900, 989400, 4800};
  } else if (chip == "cpu") {
    // One x86-64 core with AVX2 + FMA (the CI machines): 16 ymm registers.
    f = {"cpu", {1}, 16, 32, 512 * 1024, 1, {0, 0, 0}, 256, 96, 96, 20};
  } else {
    return std::nullopt;
  }
  return f;
}
} // namespace

ArrayRef<StringRef> TargetAttr::getPresetNames() {
  static const SmallVector<StringRef> names(std::begin(kPresetNames),
                                            std::end(kPresetNames));
  return names;
}

TargetAttr TargetAttr::getPreset(MLIRContext *ctx, StringRef chip) {
  std::optional<TargetFields> f = getPresetFields(chip);
  if (!f)
    return {};
  return f->get(ctx, chip);
}

TargetAttr TargetAttr::lookup(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto t =
            cur->getAttrOfType<TargetAttr>(XPUDialect::getTargetAttrName()))
      return t;
  return {};
}

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef chip, StringRef vendor,
                                 ArrayRef<int64_t> subgroupSizes,
                                 int64_t grfCount, int64_t grfBytes,
                                 int64_t slmBytes, int64_t computeUnits,
                                 ArrayRef<int64_t> mma, int64_t vectorBits,
                                 int64_t peakF32Gflops, int64_t peakBf16Gflops,
                                 int64_t memGbps) {
  // Upper bounds a real device stays far below; they keep every size the
  // cost models derive from a target (register file bytes, work-items,
  // SLM per tile) within 64 bits.
  if (chip.empty())
    return emitError() << "target chip name must not be empty";
  if (vendor != "intel" && vendor != "nvidia" && vendor != "cpu")
    return emitError() << "target vendor must be 'intel', 'nvidia' or 'cpu', "
                          "got '"
                       << vendor << "'";
  if (subgroupSizes.empty())
    return emitError() << "target needs at least one subgroup size";
  for (int64_t s : subgroupSizes)
    if (s <= 0 || s > kMaxSubgroupSize || !llvm::isPowerOf2_64(s))
      return emitError() << "subgroup sizes must be powers of two up to "
                         << kMaxSubgroupSize << ", got " << s;
  if (grfCount <= 0 || grfBytes <= 0)
    return emitError() << "grf_count and grf_bytes must be positive";
  if (grfCount > kMaxGrfCount || grfBytes > kMaxGrfBytes)
    return emitError() << "grf_count must be at most " << kMaxGrfCount
                       << " and grf_bytes at most " << kMaxGrfBytes << ", got "
                       << grfCount << " and " << grfBytes;
  if (slmBytes < 0 || slmBytes > kMaxSlmBytes)
    return emitError() << "slm_bytes must be between 0 and 2^32, got "
                       << slmBytes;
  if (computeUnits <= 0 || computeUnits > kMaxComputeUnits)
    return emitError() << "compute_units must be between 1 and "
                       << kMaxComputeUnits << ", got " << computeUnits;
  if (mma.size() != 3)
    return emitError() << "mma must have 3 sizes [m, n, k], got " << mma.size();
  bool allZero = llvm::all_of(mma, [](int64_t v) { return v == 0; });
  bool allPositive = llvm::all_of(mma, [](int64_t v) { return v > 0; });
  if (!allZero && !allPositive)
    return emitError() << "mma sizes must be all positive, or all zero for a "
                          "target without a matrix engine";
  if (llvm::any_of(mma, [](int64_t v) { return v > kMaxMmaSize; }))
    return emitError() << "mma sizes must be at most " << kMaxMmaSize;
  if (vectorBits <= 0 || vectorBits % 8 != 0 || vectorBits > kMaxVectorBits)
    return emitError() << "vector_bits must be a positive multiple of 8 up to "
                       << kMaxVectorBits << ", got " << vectorBits;
  if (peakF32Gflops <= 0 || peakBf16Gflops <= 0 || memGbps <= 0)
    return emitError() << "peak rates must be positive";
  return success();
}

namespace {
/// Parses `[a, b, ...]` into `values`.
ParseResult parseIntList(AsmParser &parser, SmallVectorImpl<int64_t> &values) {
  values.clear();
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
    int64_t v;
    if (parser.parseInteger(v))
      return failure();
    values.push_back(v);
    return success();
  });
}
} // namespace

Attribute TargetAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  std::string chip;
  SMLoc chipLoc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseString(&chip))
    return {};
  std::optional<TargetFields> preset = getPresetFields(chip);
  TargetFields f = preset.value_or(TargetFields());
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    std::string key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeywordOrString(&key) || parser.parseEqual())
      return {};
    if (!seen.insert(key).second) {
      parser.emitError(keyLoc) << "field '" << key << "' given twice";
      return {};
    }
    ParseResult r = success();
    if (key == "vendor") {
      r = parser.parseString(&f.vendor);
    } else if (key == "subgroup_sizes") {
      r = parseIntList(parser, f.subgroupSizes);
    } else if (key == "mma") {
      r = parseIntList(parser, f.mma);
    } else {
      int64_t *field = llvm::StringSwitch<int64_t *>(key)
                           .Case("grf_count", &f.grfCount)
                           .Case("grf_bytes", &f.grfBytes)
                           .Case("slm_bytes", &f.slmBytes)
                           .Case("compute_units", &f.computeUnits)
                           .Case("vector_bits", &f.vectorBits)
                           .Case("peak_f32_gflops", &f.peakF32Gflops)
                           .Case("peak_bf16_gflops", &f.peakBf16Gflops)
                           .Case("mem_gbps", &f.memGbps)
                           .Default(nullptr);
      if (!field) {
        parser.emitError(keyLoc) << "unknown #xpu.target field '" << key << "'";
        return {};
      }
      r = parser.parseInteger(*field);
    }
    if (failed(r))
      return {};
  }
  if (parser.parseGreater())
    return {};
  if (!preset) {
    static constexpr StringLiteral required[] = {
        "vendor",          "subgroup_sizes",   "grf_count", "grf_bytes",
        "slm_bytes",       "compute_units",    "mma",       "vector_bits",
        "peak_f32_gflops", "peak_bf16_gflops", "mem_gbps"};
    for (StringRef key : required) {
      if (!seen.contains(key)) {
        parser.emitError(chipLoc) << "'" << chip << "' is not a preset ("
                                  << llvm::join(getPresetNames(), ", ")
                                  << "): field '" << key << "' is required";
        return {};
      }
    }
  }
  return TargetAttr::getChecked(
      [&] { return parser.emitError(chipLoc); }, ctx, chip, f.vendor,
      f.subgroupSizes, f.grfCount, f.grfBytes, f.slmBytes, f.computeUnits,
      f.mma, f.vectorBits, f.peakF32Gflops, f.peakBf16Gflops, f.memGbps);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<\"" << getChip() << "\"";
  std::optional<TargetFields> preset = getPresetFields(getChip());
  TargetFields f = TargetFields::from(*this);
  auto printInt = [&](StringRef key, int64_t v, int64_t presetValue) {
    if (!preset || v != presetValue)
      printer << ", " << key << " = " << v;
  };
  auto printList = [&](StringRef key, ArrayRef<int64_t> v,
                       ArrayRef<int64_t> presetValue) {
    if (!preset || v != presetValue) {
      printer << ", " << key << " = [";
      llvm::interleaveComma(v, printer);
      printer << "]";
    }
  };
  if (!preset || f.vendor != preset->vendor)
    printer << ", vendor = \"" << f.vendor << "\"";
  TargetFields p = preset.value_or(TargetFields());
  printList("subgroup_sizes", f.subgroupSizes, p.subgroupSizes);
  printInt("grf_count", f.grfCount, p.grfCount);
  printInt("grf_bytes", f.grfBytes, p.grfBytes);
  printInt("slm_bytes", f.slmBytes, p.slmBytes);
  printInt("compute_units", f.computeUnits, p.computeUnits);
  printList("mma", f.mma, p.mma);
  printInt("vector_bits", f.vectorBits, p.vectorBits);
  printInt("peak_f32_gflops", f.peakF32Gflops, p.peakF32Gflops);
  printInt("peak_bf16_gflops", f.peakBf16Gflops, p.peakBf16Gflops);
  printInt("mem_gbps", f.memGbps, p.memGbps);
  printer << ">";
}

//===----------------------------------------------------------------------===//
// ScheduleAttr
//===----------------------------------------------------------------------===//

void ScheduleAttr::printBody(AsmPrinter &printer) const {
  printer << stringifySchedule(getKind());
  // Default parameters (no program count, the deterministic fix-up) are
  // left out.
  SmallVector<std::string> fields;
  if (getPrograms() != 0)
    fields.push_back("programs = " + std::to_string(getPrograms()));
  if (getFixup() != Fixup::deterministic)
    fields.push_back(("fixup = " + stringifyFixup(getFixup())).str());
  if (fields.empty())
    return;
  printer << "<" << llvm::join(fields, ", ") << ">";
}

ScheduleAttr ScheduleAttr::parseBody(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef kindName;
  if (parser.parseKeyword(&kindName))
    return {};
  std::optional<Schedule> kind = symbolizeSchedule(kindName);
  if (!kind) {
    parser.emitError(loc) << "unknown schedule '" << kindName
                          << "' (data_parallel, persistent, stream_k)";
    return {};
  }
  int64_t programs = 0;
  Fixup fixup = Fixup::deterministic;
  if (succeeded(parser.parseOptionalLess())) {
    llvm::StringSet<> seen;
    auto parseField = [&]() -> ParseResult {
      SMLoc keyLoc = parser.getCurrentLocation();
      StringRef key;
      if (parser.parseKeyword(&key) || parser.parseEqual())
        return failure();
      if (!seen.insert(key).second)
        return parser.emitError(keyLoc) << "field '" << key << "' given twice";
      if (key == "programs")
        return parser.parseInteger(programs);
      if (key == "fixup" && *kind == Schedule::stream_k) {
        StringRef name;
        SMLoc nameLoc = parser.getCurrentLocation();
        if (parser.parseKeyword(&name))
          return failure();
        std::optional<Fixup> f = symbolizeFixup(name);
        if (!f)
          return parser.emitError(nameLoc)
                 << "unknown fixup '" << name << "' (deterministic or atomic)";
        fixup = *f;
        return success();
      }
      return parser.emitError(keyLoc)
             << "unknown field '" << key << "' of schedule "
             << stringifySchedule(*kind)
             << (*kind == Schedule::stream_k ? " (programs, fixup)"
                                             : " (programs)");
    };
    if (parser.parseCommaSeparatedList(parseField) || parser.parseGreater())
      return {};
  }
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    *kind, programs, fixup);
}

Attribute ScheduleAttr::parse(AsmParser &parser, Type) {
  if (parser.parseLess())
    return {};
  ScheduleAttr schedule = parseBody(parser);
  if (!schedule || parser.parseGreater())
    return {};
  return schedule;
}

void ScheduleAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printBody(printer);
  printer << ">";
}

LogicalResult ScheduleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   Schedule kind, int64_t programs,
                                   Fixup fixup) {
  if (programs < 0)
    return emitError() << "schedule programs must not be negative, got "
                       << programs;
  // A program count is a launch grid dimension (at most 2^31 - 1 on every
  // GPU runtime).
  if (programs > std::numeric_limits<int32_t>::max())
    return emitError() << "schedule programs must be below 2^31, got "
                       << programs;
  if (kind == Schedule::data_parallel && programs != 0)
    return emitError() << "a data_parallel schedule has one program per tile "
                          "(no program count)";
  if (kind != Schedule::stream_k && fixup != Fixup::deterministic)
    return emitError() << "only stream_k schedules have a fixup";
  return success();
}

static ParseResult parseScheduleBody(AsmParser &parser,
                                     ScheduleAttr &schedule) {
  ScheduleAttr parsed = ScheduleAttr::parseBody(parser);
  if (!parsed)
    return failure();
  schedule = parsed;
  return success();
}

static void printScheduleBody(AsmPrinter &printer, ScheduleAttr schedule) {
  schedule.printBody(printer);
}

//===----------------------------------------------------------------------===//
// XeConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult XeConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t grfMode) {
  if (grfMode != 128 && grfMode != 256)
    return emitError() << "xe grf_mode must be 128 or 256, got " << grfMode;
  return success();
}

//===----------------------------------------------------------------------===//
// NVGPUConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult
NVGPUConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        NVGPUMma mma, NVGPUPrecision precision) {
  if (mma == NVGPUMma::wgmma && precision == NVGPUPrecision::tf32)
    return emitError() << "nvgpu wgmma kernels take 16-bit operands; tf32 "
                          "runs on mma_sync";
  return success();
}

//===----------------------------------------------------------------------===//
// ConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> tile, int64_t groupM,
                                 ArrayRef<int64_t> subgroups, int64_t stages,
                                 ScheduleAttr schedule, Attribute backend) {
  // Upper bounds far above any useful config (the strategy picks tiles up to
  // 256 and a workgroup has at most 1024 work-items); they keep every size
  // derived from a config (tile area, SLM bytes, work-items) within 64 bits.
  if (tile.size() != 3)
    return emitError() << "config tile must have 3 sizes [m, n, k], got "
                       << tile.size();
  if (llvm::any_of(tile, [](int64_t v) { return v <= 0 || v > kMaxTile; }))
    return emitError() << "config tile sizes must be between 1 and "
                       << kMaxTile;
  if (groupM < 1 || groupM > kMaxGroupM)
    return emitError() << "config group_m must be between 1 and " << kMaxGroupM
                       << ", got " << groupM;
  if (subgroups.size() != 2)
    return emitError() << "config subgroups must be [rows, cols], got "
                       << subgroups.size() << " sizes";
  if (llvm::any_of(subgroups, [](int64_t v) { return v <= 0; }))
    return emitError() << "config subgroup counts must be positive";
  if (tile[0] % subgroups[0] != 0 || tile[1] % subgroups[1] != 0)
    return emitError() << "config subgroups [" << subgroups[0] << ", "
                       << subgroups[1] << "] do not divide the tile ["
                       << tile[0] << ", " << tile[1] << "]";
  // Each count divides its tile size, so the product fits.
  if (subgroups[0] * subgroups[1] > kMaxSubgroups)
    return emitError() << "config subgroups [" << subgroups[0] << ", "
                       << subgroups[1] << "] are more than " << kMaxSubgroups
                       << " subgroups per workgroup";
  if (stages < 1 || stages > kMaxStages)
    return emitError() << "config stages must be between 1 and " << kMaxStages
                       << ", got " << stages;
  if (!schedule)
    return emitError() << "config needs a schedule";
  if (backend && !isa<XeConfigAttr, NVGPUConfigAttr>(backend))
    return emitError() << "config backend must be #xpu.xe<...> or "
                          "#xpu.nvgpu<...>, got "
                       << backend;
  return success();
}
