//===- XPUAttrs.cpp - #xpu.target syntax, #xpu.config checks -------------===//

#include "xpu/Dialect/XPU/IR/XPUAttrs.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"
#include "xpu/Dialect/XPU/IR/TargetPresets.h"
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
/// All fields of a target, mutable while a target is parsed.
struct TargetFields {
  std::string vendor;
  SmallVector<int64_t> subgroupSizes;
  int64_t grfCount = 0, grfBytes = 0, slmBytes = 0, computeUnits = 0;
  SmallVector<int64_t> mma;
  int64_t vectorBits = 0, peakF32Gflops = 0, peakBf16Gflops = 0, memGbps = 0;
  int64_t threadsPerUnit = 0, largeGrfThreadsPerUnit = 0, blocksPerUnit = 0;
  int64_t registersPerUnit = 0, maxWorkgroupSize = 0, maxBlockSlmBytes = 0;
  bool wgmma = false, tma = false, dpas = false;
  SmallVector<int64_t> block2d;

  static TargetFields from(const TargetPreset &p) {
    TargetFields f;
    f.vendor = p.vendor.str();
    f.subgroupSizes.assign(p.subgroupSizes.begin(), p.subgroupSizes.end());
    f.grfCount = p.grfCount;
    f.grfBytes = p.grfBytes;
    f.slmBytes = p.slmBytes;
    f.computeUnits = p.computeUnits;
    f.mma.assign(p.mma.begin(), p.mma.end());
    f.vectorBits = p.vectorBits;
    f.peakF32Gflops = p.peakF32Gflops;
    f.peakBf16Gflops = p.peakBf16Gflops;
    f.memGbps = p.memGbps;
    f.setLimits(p);
    return f;
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
    f.threadsPerUnit = t.getThreadsPerUnit();
    f.largeGrfThreadsPerUnit = t.getLargeGrfThreadsPerUnit();
    f.blocksPerUnit = t.getBlocksPerUnit();
    f.registersPerUnit = t.getRegistersPerUnit();
    f.maxWorkgroupSize = t.getMaxWorkgroupSize();
    f.maxBlockSlmBytes = t.getMaxBlockSlmBytes();
    f.wgmma = t.hasWgmma();
    f.tma = t.hasTma();
    f.dpas = t.hasDpas();
    f.block2d.assign(t.getBlock2d().begin(), t.getBlock2d().end());
    return f;
  }
  /// Takes the limits and capabilities of `o`.
  void copyLimits(const TargetFields &o) {
    threadsPerUnit = o.threadsPerUnit;
    largeGrfThreadsPerUnit = o.largeGrfThreadsPerUnit;
    blocksPerUnit = o.blocksPerUnit;
    registersPerUnit = o.registersPerUnit;
    maxWorkgroupSize = o.maxWorkgroupSize;
    maxBlockSlmBytes = o.maxBlockSlmBytes;
    wgmma = o.wgmma;
    tma = o.tma;
    dpas = o.dpas;
    block2d = o.block2d;
  }
  /// Takes the limits and capabilities of `p`.
  void setLimits(const TargetPreset &p) {
    threadsPerUnit = p.threadsPerUnit;
    largeGrfThreadsPerUnit = p.largeGrfThreadsPerUnit;
    blocksPerUnit = p.blocksPerUnit;
    registersPerUnit = p.registersPerUnit;
    maxWorkgroupSize = p.maxWorkgroupSize;
    maxBlockSlmBytes = p.maxBlockSlmBytes;
    wgmma = p.wgmma;
    tma = p.tma;
    dpas = p.dpas;
    block2d.assign(p.block2d.begin(), p.block2d.end());
  }
};

/// The fields of a target written without them: the preset `chip`, else
/// (a chip of the user's) the limits of its vendor's first preset, with
/// the shared memory of a workgroup at most the chip's `slmBytes`.
std::optional<TargetFields> getBaseFields(StringRef chip, StringRef vendor,
                                          int64_t slmBytes) {
  if (const TargetPreset *p = lookupTargetPreset(chip))
    return TargetFields::from(*p);
  if (const TargetPreset *p = getVendorDefaultPreset(vendor)) {
    TargetFields f;
    f.setLimits(*p);
    f.maxBlockSlmBytes = std::min(f.maxBlockSlmBytes, slmBytes);
    return f;
  }
  return std::nullopt;
}
} // namespace

ArrayRef<StringRef> TargetAttr::getPresetNames() {
  static const SmallVector<StringRef> names = listPresets();
  return names;
}

TargetAttr TargetAttr::getPreset(MLIRContext *ctx, StringRef chip) {
  const TargetPreset *p = lookupTargetPreset(chip);
  if (!p)
    return {};
  TargetFields f = TargetFields::from(*p);
  return TargetAttr::get(
      ctx, chip, f.vendor, f.subgroupSizes, f.grfCount, f.grfBytes, f.slmBytes,
      f.computeUnits, f.mma, f.vectorBits, f.peakF32Gflops, f.peakBf16Gflops,
      f.memGbps, f.threadsPerUnit, f.largeGrfThreadsPerUnit, f.blocksPerUnit,
      f.registersPerUnit, f.maxWorkgroupSize, f.maxBlockSlmBytes, f.wgmma,
      f.tma, f.dpas, f.block2d);
}

TargetAttr TargetAttr::getDefault(MLIRContext *ctx) {
  return getPreset(ctx, getDefaultTargetPreset().chip);
}

TargetAttr TargetAttr::lookup(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto t =
            cur->getAttrOfType<TargetAttr>(XPUDialect::getTargetAttrName()))
      return t;
  return {};
}

LogicalResult
TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError, StringRef chip,
                   StringRef vendor, ArrayRef<int64_t> subgroupSizes,
                   int64_t grfCount, int64_t grfBytes, int64_t slmBytes,
                   int64_t computeUnits, ArrayRef<int64_t> mma,
                   int64_t vectorBits, int64_t peakF32Gflops,
                   int64_t peakBf16Gflops, int64_t memGbps,
                   int64_t threadsPerUnit, int64_t largeGrfThreadsPerUnit,
                   int64_t blocksPerUnit, int64_t registersPerUnit,
                   int64_t maxWorkgroupSize, int64_t maxBlockSlmBytes,
                   bool wgmma, bool tma, bool dpas, ArrayRef<int64_t> block2d) {
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
  auto inRange = [](int64_t v, int64_t lo, int64_t hi) {
    return v >= lo && v <= hi;
  };
  if (!inRange(threadsPerUnit, 1, kMaxUnitCount) ||
      !inRange(blocksPerUnit, 1, kMaxUnitCount) ||
      !inRange(maxWorkgroupSize, 1, kMaxUnitCount))
    return emitError() << "threads_per_unit, blocks_per_unit and "
                          "max_workgroup_size must be between 1 and "
                       << kMaxUnitCount << ", got " << threadsPerUnit << ", "
                       << blocksPerUnit << " and " << maxWorkgroupSize;
  if (!inRange(largeGrfThreadsPerUnit, 0, threadsPerUnit))
    return emitError() << "large_grf_threads_per_unit must be between 0 and "
                          "threads_per_unit ("
                       << threadsPerUnit << "), got " << largeGrfThreadsPerUnit;
  if (!inRange(registersPerUnit, 1, kMaxRegistersPerUnit))
    return emitError() << "registers_per_unit must be between 1 and 2^32, got "
                       << registersPerUnit;
  if (!inRange(maxBlockSlmBytes, 0, slmBytes))
    return emitError() << "max_block_slm_bytes must be between 0 and "
                          "slm_bytes ("
                       << slmBytes << "), got " << maxBlockSlmBytes;
  if ((wgmma || dpas) && allZero)
    return emitError() << "wgmma and dpas need a matrix instruction shape "
                          "(mma is [0, 0, 0])";
  if (!block2d.empty() &&
      (block2d.size() != 5 || llvm::any_of(block2d, [&](int64_t v) {
         return !inRange(v, 1, kMaxBlock2dBytes);
       })))
    return emitError() << "block_2d must be [] or 5 sizes [min_pitch, "
                          "pitch_align, min_width, width_align, base_align] "
                          "between 1 and "
                       << kMaxBlock2dBytes;
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

namespace {
/// Parses `true` or `false` into `value`.
ParseResult parseBool(AsmParser &parser, bool &value) {
  SMLoc loc = parser.getCurrentLocation();
  value = succeeded(parser.parseOptionalKeyword("true"));
  if (value || succeeded(parser.parseOptionalKeyword("false")))
    return success();
  return parser.emitError(loc, "expected true or false");
}
} // namespace

/// Parses `(, key = value)*`: each key a keyword or string given at most
/// once (`seen` collects them), its value read by `parseField(key,
/// keyLoc)`.
static ParseResult parseKeyedFields(
    AsmParser &parser, llvm::StringSet<> &seen,
    function_ref<ParseResult(StringRef key, SMLoc keyLoc)> parseField) {
  while (succeeded(parser.parseOptionalComma())) {
    std::string key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeywordOrString(&key) || parser.parseEqual())
      return failure();
    if (!seen.insert(key).second)
      return parser.emitError(keyLoc) << "field '" << key << "' given twice";
    if (parseField(key, keyLoc))
      return failure();
  }
  return success();
}

Attribute TargetAttr::parse(AsmParser &parser, Type) {
  MLIRContext *ctx = parser.getContext();
  std::string chip;
  SMLoc chipLoc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseString(&chip))
    return {};
  const TargetPreset *preset = lookupTargetPreset(chip);
  TargetFields f = preset ? TargetFields::from(*preset) : TargetFields();
  auto parseField = [&](StringRef key, SMLoc keyLoc) -> ParseResult {
    ParseResult r = success();
    if (key == "vendor") {
      r = parser.parseString(&f.vendor);
    } else if (key == "subgroup_sizes") {
      r = parseIntList(parser, f.subgroupSizes);
    } else if (key == "mma") {
      r = parseIntList(parser, f.mma);
    } else if (key == "block_2d") {
      r = parseIntList(parser, f.block2d);
    } else if (bool *flag = llvm::StringSwitch<bool *>(key)
                                .Case("wgmma", &f.wgmma)
                                .Case("tma", &f.tma)
                                .Case("dpas", &f.dpas)
                                .Default(nullptr)) {
      r = parseBool(parser, *flag);
    } else {
      int64_t *field =
          llvm::StringSwitch<int64_t *>(key)
              .Case("grf_count", &f.grfCount)
              .Case("grf_bytes", &f.grfBytes)
              .Case("slm_bytes", &f.slmBytes)
              .Case("compute_units", &f.computeUnits)
              .Case("vector_bits", &f.vectorBits)
              .Case("peak_f32_gflops", &f.peakF32Gflops)
              .Case("peak_bf16_gflops", &f.peakBf16Gflops)
              .Case("mem_gbps", &f.memGbps)
              .Case("threads_per_unit", &f.threadsPerUnit)
              .Case("large_grf_threads_per_unit", &f.largeGrfThreadsPerUnit)
              .Case("blocks_per_unit", &f.blocksPerUnit)
              .Case("registers_per_unit", &f.registersPerUnit)
              .Case("max_workgroup_size", &f.maxWorkgroupSize)
              .Case("max_block_slm_bytes", &f.maxBlockSlmBytes)
              .Default(nullptr);
      if (!field)
        return parser.emitError(keyLoc)
               << "unknown #xpu.target field '" << key << "'";
      r = parser.parseInteger(*field);
    }
    return r;
  };
  llvm::StringSet<> seen;
  if (parseKeyedFields(parser, seen, parseField) || parser.parseGreater())
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
    // Limits and capabilities left out are those of the vendor.
    if (std::optional<TargetFields> base =
            getBaseFields(chip, f.vendor, f.slmBytes)) {
      TargetFields given = f;
      f.copyLimits(*base);
      auto keep = [&](StringRef key, auto &field, const auto &value) {
        if (seen.contains(key))
          field = value;
      };
      keep("threads_per_unit", f.threadsPerUnit, given.threadsPerUnit);
      keep("large_grf_threads_per_unit", f.largeGrfThreadsPerUnit,
           given.largeGrfThreadsPerUnit);
      keep("blocks_per_unit", f.blocksPerUnit, given.blocksPerUnit);
      keep("registers_per_unit", f.registersPerUnit, given.registersPerUnit);
      keep("max_workgroup_size", f.maxWorkgroupSize, given.maxWorkgroupSize);
      keep("max_block_slm_bytes", f.maxBlockSlmBytes, given.maxBlockSlmBytes);
      keep("wgmma", f.wgmma, given.wgmma);
      keep("tma", f.tma, given.tma);
      keep("dpas", f.dpas, given.dpas);
      keep("block_2d", f.block2d, given.block2d);
    }
  }
  return TargetAttr::getChecked(
      [&] { return parser.emitError(chipLoc); }, ctx, chip, f.vendor,
      f.subgroupSizes, f.grfCount, f.grfBytes, f.slmBytes, f.computeUnits,
      f.mma, f.vectorBits, f.peakF32Gflops, f.peakBf16Gflops, f.memGbps,
      f.threadsPerUnit, f.largeGrfThreadsPerUnit, f.blocksPerUnit,
      f.registersPerUnit, f.maxWorkgroupSize, f.maxBlockSlmBytes, f.wgmma,
      f.tma, f.dpas, f.block2d);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<\"" << getChip() << "\"";
  bool isPreset = lookupTargetPreset(getChip()) != nullptr;
  TargetFields f = TargetFields::from(*this);
  // A preset prints the fields that differ from it; another chip its first
  // eleven fields and the limits that differ from its vendor's.
  TargetFields base = getBaseFields(getChip(), getVendor(), getSlmBytes())
                          .value_or(TargetFields());
  bool hasBase = getVendorDefaultPreset(getVendor()) || isPreset;
  auto printInt = [&](StringRef key, int64_t v, int64_t baseValue,
                      bool always) {
    if (always || v != baseValue)
      printer << ", " << key << " = " << v;
  };
  auto printList = [&](StringRef key, ArrayRef<int64_t> v,
                       ArrayRef<int64_t> baseValue, bool always) {
    if (always || v != baseValue) {
      printer << ", " << key << " = [";
      llvm::interleaveComma(v, printer);
      printer << "]";
    }
  };
  auto printBool = [&](StringRef key, bool v, bool baseValue) {
    if (!hasBase || v != baseValue)
      printer << ", " << key << " = " << (v ? "true" : "false");
  };
  bool all = !isPreset;
  if (all || f.vendor != base.vendor)
    printer << ", vendor = \"" << f.vendor << "\"";
  printList("subgroup_sizes", f.subgroupSizes, base.subgroupSizes, all);
  printInt("grf_count", f.grfCount, base.grfCount, all);
  printInt("grf_bytes", f.grfBytes, base.grfBytes, all);
  printInt("slm_bytes", f.slmBytes, base.slmBytes, all);
  printInt("compute_units", f.computeUnits, base.computeUnits, all);
  printList("mma", f.mma, base.mma, all);
  printInt("vector_bits", f.vectorBits, base.vectorBits, all);
  printInt("peak_f32_gflops", f.peakF32Gflops, base.peakF32Gflops, all);
  printInt("peak_bf16_gflops", f.peakBf16Gflops, base.peakBf16Gflops, all);
  printInt("mem_gbps", f.memGbps, base.memGbps, all);
  printInt("threads_per_unit", f.threadsPerUnit, base.threadsPerUnit, !hasBase);
  printInt("large_grf_threads_per_unit", f.largeGrfThreadsPerUnit,
           base.largeGrfThreadsPerUnit, !hasBase);
  printInt("blocks_per_unit", f.blocksPerUnit, base.blocksPerUnit, !hasBase);
  printInt("registers_per_unit", f.registersPerUnit, base.registersPerUnit,
           !hasBase);
  printInt("max_workgroup_size", f.maxWorkgroupSize, base.maxWorkgroupSize,
           !hasBase);
  printInt("max_block_slm_bytes", f.maxBlockSlmBytes, base.maxBlockSlmBytes,
           !hasBase);
  printBool("wgmma", f.wgmma, base.wgmma);
  printBool("tma", f.tma, base.tma);
  printBool("dpas", f.dpas, base.dpas);
  printList("block_2d", f.block2d, base.block2d, !hasBase);
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
// SimtConfigAttr
//===----------------------------------------------------------------------===//

LogicalResult
SimtConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t vector) {
  if (vector != 1 && vector != 2 && vector != 4)
    return emitError() << "simt vector must be 1, 2 or 4, got " << vector;
  return success();
}

//===----------------------------------------------------------------------===//
// NVGPUConfigAttr
//===----------------------------------------------------------------------===//

Attribute NVGPUConfigAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  NVGPUMma mma = NVGPUMma::mma_sync;
  NVGPUPrecision precision = NVGPUPrecision::native;
  int64_t clusterM = 1;
  NVGPUConsumers consumers = NVGPUConsumers::cooperative;
  // Reads an enum keyword of `what` into `value`.
  auto parseEnum = [&](auto &value, auto symbolize, StringRef what,
                       StringRef values) -> ParseResult {
    std::string word;
    SMLoc at = parser.getCurrentLocation();
    if (parser.parseKeywordOrString(&word))
      return failure();
    auto parsed = symbolize(word);
    if (!parsed)
      return parser.emitError(at) << "unknown nvgpu " << what << " '" << word
                                  << "' (expected one of: " << values << ")";
    value = *parsed;
    return success();
  };
  if (parser.parseLess() || parser.parseKeyword("mma") || parser.parseEqual() ||
      parseEnum(
          mma, [](StringRef w) { return symbolizeNVGPUMma(w); }, "mma",
          "mma_sync, wgmma"))
    return {};
  auto parseField = [&](StringRef key, SMLoc keyLoc) -> ParseResult {
    if (key == "precision")
      return parseEnum(
          precision, [](StringRef w) { return symbolizeNVGPUPrecision(w); },
          "precision", "native, tf32");
    if (key == "cluster_m")
      return parser.parseInteger(clusterM);
    if (key == "consumers")
      return parseEnum(
          consumers, [](StringRef w) { return symbolizeNVGPUConsumers(w); },
          "consumers", "cooperative, pingpong");
    return parser.emitError(keyLoc)
           << "unknown nvgpu field '" << key
           << "' (expected 'precision', 'cluster_m' or 'consumers')";
  };
  llvm::StringSet<> seen;
  if (parseKeyedFields(parser, seen, parseField) || parser.parseGreater())
    return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(),
                    mma, precision, clusterM, consumers);
}

void NVGPUConfigAttr::print(AsmPrinter &printer) const {
  printer << "<mma = " << stringifyNVGPUMma(getMma());
  if (getPrecision() != NVGPUPrecision::native)
    printer << ", precision = " << stringifyNVGPUPrecision(getPrecision());
  if (getClusterM() != 1)
    printer << ", cluster_m = " << getClusterM();
  if (getConsumers() != NVGPUConsumers::cooperative)
    printer << ", consumers = " << stringifyNVGPUConsumers(getConsumers());
  printer << ">";
}

LogicalResult
NVGPUConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        NVGPUMma mma, NVGPUPrecision precision,
                        int64_t clusterM, NVGPUConsumers consumers) {
  if (clusterM != 1 && clusterM != 2)
    return emitError() << "nvgpu cluster_m must be 1 or 2, got " << clusterM;
  if (clusterM != 1 && mma != NVGPUMma::wgmma)
    return emitError() << "nvgpu cluster_m = " << clusterM
                       << " needs mma = wgmma (the clustered kernel "
                          "multicasts TMA loads)";
  if (consumers == NVGPUConsumers::pingpong && mma != NVGPUMma::wgmma)
    return emitError() << "nvgpu consumers = pingpong needs mma = wgmma "
                          "(mma.sync kernels have no consumer warpgroups)";
  if (consumers == NVGPUConsumers::pingpong && clusterM != 1)
    return emitError() << "nvgpu consumers = pingpong runs persistent "
                          "programs, and cluster_m = "
                       << clusterM << " data-parallel ones";
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
  // A config without a backend is for the SIMT kernels with their default
  // layout (#xpu.simt): that one is not written.
  if (auto simt = dyn_cast_if_present<SimtConfigAttr>(backend);
      simt && simt.getVector() == 1)
    return emitError() << "config backend #xpu.simt is written by leaving "
                          "the backend out (only #xpu.simt<vector = 2 or 4> "
                          "is written)";
  if (backend && !isa<XeConfigAttr, NVGPUConfigAttr, SimtConfigAttr>(backend) &&
      !isa<GemmBackendAttrInterface>(backend))
    return emitError() << "config backend must be #xpu.xe<...>, "
                          "#xpu.nvgpu<...>, #xpu.simt<...> or another GEMM "
                          "backend attribute, got "
                       << backend;
  return success();
}
