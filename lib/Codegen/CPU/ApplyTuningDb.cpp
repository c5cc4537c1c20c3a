//===- ApplyTuningDb.cpp - CPU tiles from a tuning database ---------------===//
//
// Gives each xpu.gemm the CPU tiles (CpuTiles.h) its tuning database entry
// measured fastest. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Codegen/CpuTiles.h"
#include "xpu/Codegen/Passes.h"
#include "xpu/Dialect/XPU/IR/XPUAttrs.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/Dialect/XPU/Utils/TuningDatabase.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <memory>

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPUAPPLYTUNINGDBPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-cpu-apply-tuning-db";

namespace {
struct ApplyTuningDbPass final
    : xpu::impl::XPUCPUApplyTuningDbPassBase<ApplyTuningDbPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    database.reset();
    if (tuningDb.empty())
      return success();
    std::string error;
    std::optional<TuningDatabase> db = TuningDatabase::read(tuningDb, error);
    if (!db)
      return emitError(UnknownLoc::get(ctx)) << kPassArg << ": " << error;
    database = std::make_shared<const TuningDatabase>(std::move(*db));
    return success();
  }

  void runOnOperation() override {
    if (!database)
      return;
    getOperation().walk([&](GemmOp gemm) { apply(gemm); });
  }

  /// Sets the tiles of `gemm`'s entry, if it has a usable one.
  void apply(GemmOp gemm) {
    TargetAttr target = resolveTarget(gemm);
    const TuningEntry *entry =
        database->lookup(target.getChip(), GemmSignature::get(gemm));
    if (!entry)
      return;
    auto ignore = [&](const Twine &why) {
      gemm.emitWarning() << kPassArg << ": ignoring the entry of tuning "
                         << "database '" << tuningDb << "' for this GEMM on "
                         << target.getChip() << ": " << why
                         << "; the pipeline's tiles are used";
      ++numStale;
    };
    if (entry->bestConfig.empty())
      return ignore("no trial of it succeeded");
    std::string error;
    FailureOr<CpuTiles> tiles = parseCpuTiles(entry->bestConfig, error);
    if (failed(tiles))
      return ignore("its config '" + entry->bestConfig +
                    "' is not CPU tiles: " + error);
    std::string gain = "no measured default";
    if (entry->defaultNs > 0 && entry->bestNs > 0)
      gain = llvm::formatv("{0:f2}x the default tiles ({1} ns vs {2} ns)",
                           entry->defaultNs / entry->bestNs,
                           std::llround(entry->bestNs),
                           std::llround(entry->defaultNs));
    if (tiles->empty()) {
      remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "TuningDatabase"))
          << remark::reason("tuning database '{0}' on {1} measured the "
                            "default tiles fastest: left to the pipeline",
                            tuningDb.getValue(), target.getChip());
      return;
    }
    tiles->setOn(gemm);
    ++numTuned;
    remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "TuningDatabase"))
        << remark::reason("tiles from tuning database '{0}' on {1}, measured "
                          "{2}: {3}",
                          tuningDb.getValue(), target.getChip(), gain,
                          tiles->str());
  }

  /// The database of `tuning-db`, read once (initialize) and shared by the
  /// pass's clones.
  std::shared_ptr<const TuningDatabase> database;
};
} // namespace
