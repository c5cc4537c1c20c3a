//===- GemmPrograms.cpp - GEMM programs to GPU kernels --------------------===//

#include "xpu/Conversion/XPUSchedule/GemmPrograms.h"
#include "xpu/Dialect/XPU/IR/GemmBackendInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

#include <limits>

using namespace mlir;
using namespace mlir::xpu;

static bool isGemmPrograms(scf::ForallOp forall) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || mapping->size() != 1 ||
      !isa<gpu::GPUBlockMappingAttr>((*mapping)[0]))
    return false;
  WalkResult walk = forall.getBody()->walk([](Operation *op) {
    return isa<GemmTileOp, GemmFixupOp>(op) ? WalkResult::interrupt()
                                            : WalkResult::advance();
  });
  return walk.wasInterrupted();
}

SmallVector<scf::ForallOp> mlir::xpu::collectGemmPrograms(Operation *root) {
  SmallVector<scf::ForallOp> result;
  root->walk([&](scf::ForallOp forall) {
    if (isGemmPrograms(forall))
      result.push_back(forall);
  });
  return result;
}

FailureOr<ConfigAttr> mlir::xpu::getProgramsConfig(scf::ForallOp programs) {
  // The launches take the induction variable for the program id.
  if (!programs.isNormalized())
    return programs.emitError()
           << "GEMM programs must count from 0 in steps of 1 (the program id "
              "is the induction variable)";
  ConfigAttr config;
  GemmTileOp dynamicTile;
  WalkResult walk = programs.getBody()->walk([&](Operation *op) {
    ConfigAttr c;
    if (auto tile = dyn_cast<GemmTileOp>(op)) {
      // The SIMT kernels (configs without knobs, or #xpu.simt ones) and
      // the Xe ones read a dynamic m at run time, not the tensor-core ones.
      Attribute knobs = tile.getConfig().getBackend();
      if (tile.hasDynamicM() && knobs &&
          !isa<SimtConfigAttr, XeConfigAttr>(knobs)) {
        dynamicTile = tile;
        return WalkResult::interrupt();
      }
      c = tile.getConfig();
    } else if (auto fixup = dyn_cast<GemmFixupOp>(op))
      c = fixup.getConfig();
    else
      return WalkResult::advance();
    if (config && c != config)
      return WalkResult::interrupt();
    config = c;
    return WalkResult::advance();
  });
  if (dynamicTile) {
    auto backend = dyn_cast<GemmBackendAttrInterface>(
        getGemmBackendAttr(dynamicTile.getConfig()));
    return dynamicTile.emitError()
           << "a tile with a dynamic m and a config for the "
           << (backend ? backend.getBackendName() : StringRef("unknown"))
           << " backend, whose kernels need static shapes (the SIMT and Xe "
              "kernels read the rows at run time)";
  }
  if (walk.wasInterrupted() || !config)
    return programs.emitError()
           << "the GEMM tiles of one kernel must share one #xpu.config";
  return config;
}

int64_t mlir::xpu::getProgramCount(scf::ForallOp programs) {
  return programs.getStaticUpperBound()[0];
}

/// Lowers every tile op nested in `body` with `emitter`, after its
/// beginKernel at the start of `body`.
static LogicalResult emitTiles(RewriterBase &rewriter, Block &body,
                               Location loc, GemmTileEmitter &emitter) {
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&body);
    if (failed(emitter.beginKernel(rewriter, loc)))
      return failure();
  }
  SmallVector<Operation *> ops;
  body.walk([&](Operation *op) {
    if (isa<GemmTileOp, GemmFixupOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    rewriter.setInsertionPoint(op);
    LogicalResult r = isa<GemmTileOp>(op)
                          ? emitter.emitTile(rewriter, cast<GemmTileOp>(op))
                          : emitter.emitFixup(rewriter, cast<GemmFixupOp>(op));
    if (failed(r))
      return failure();
  }
  return success();
}

FailureOr<gpu::LaunchOp>
mlir::xpu::lowerProgramsToLaunch(RewriterBase &rewriter, scf::ForallOp programs,
                                 int64_t threads, GemmTileEmitter &emitter) {
  Location loc = programs.getLoc();
  rewriter.setInsertionPoint(programs);
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  // The count may be a value (a dynamic m, read on the host).
  Value count = getValueOrCreateConstantIndexOp(
      rewriter, loc, programs.getMixedUpperBound()[0]);
  auto launch = gpu::LaunchOp::create(rewriter, loc, count, idx(1), idx(1),
                                      idx(threads), idx(1), idx(1));
  Block &body = launch.getBody().front();
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&body);
    IRMapping map;
    map.map(programs.getInductionVar(0), launch.getBlockIds().x);
    for (Operation &op : programs.getBody()->without_terminator())
      rewriter.clone(op, map);
    gpu::TerminatorOp::create(rewriter, loc);
  }
  rewriter.eraseOp(programs);
  if (failed(emitTiles(rewriter, body, loc, emitter)))
    return failure();
  return launch;
}

FailureOr<gpu::GPUFuncOp> mlir::xpu::lowerProgramsToKernel(
    RewriterBase &rewriter, scf::ForallOp programs, ModuleOp module,
    StringRef name, ArrayAttr targets, int64_t threads,
    GemmTileEmitter &emitter, int64_t dynamicSharedBytes, int64_t clusterSize) {
  Location loc = programs.getLoc();
  // A dynamic count (a dynamic m) is read on the host.
  int64_t count = getProgramCount(programs);

  // What the body reads from above: constants are cloned into the kernel,
  // everything else is passed.
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(programs.getRegion(), captured);
  SmallVector<Value> args;
  SmallVector<Operation *> constants;
  for (Value v : captured) {
    Operation *def = v.getDefiningOp();
    if (def && def->hasTrait<OpTrait::ConstantLike>())
      constants.push_back(def);
    else
      args.push_back(v);
  }
  SmallVector<Type> argTypes;
  for (Value v : args)
    argTypes.push_back(v.getType());

  gpu::GPUFuncOp kernel;
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToEnd(module.getBody());
    auto gpuModule = gpu::GPUModuleOp::create(rewriter, loc, name, targets);
    rewriter.setInsertionPointToStart(gpuModule.getBody());
    kernel = gpu::GPUFuncOp::create(rewriter, loc, name,
                                    rewriter.getFunctionType(argTypes, {}));
    kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                    rewriter.getUnitAttr());
    kernel.setKnownBlockSizeAttr(
        rewriter.getDenseI32ArrayAttr({static_cast<int32_t>(threads), 1, 1}));
    // The grid is the program count: with it, integer range analysis bounds
    // the program id, so the kernels' tile arithmetic can be narrowed to
    // 32 bits where it fits (xpu-xe-pipeline).
    if (!ShapedType::isDynamic(count) &&
        count <= std::numeric_limits<int32_t>::max())
      kernel.setKnownGridSizeAttr(
          rewriter.getDenseI32ArrayAttr({static_cast<int32_t>(count), 1, 1}));
    Block &entry = kernel.getBody().front();
    rewriter.setInsertionPointToStart(&entry);
    IRMapping map;
    for (Operation *cst : constants)
      rewriter.clone(*cst, map);
    for (auto [v, arg] : llvm::zip(args, entry.getArguments()))
      map.map(v, arg);
    Value pid = gpu::BlockIdOp::create(rewriter, loc, gpu::Dimension::x);
    map.map(programs.getInductionVar(0), pid);
    for (Operation &op : programs.getBody()->without_terminator())
      rewriter.clone(op, map);
    gpu::ReturnOp::create(rewriter, loc);
  }

  rewriter.setInsertionPoint(programs);
  auto idx = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, v);
  };
  Value shared;
  if (dynamicSharedBytes != 0)
    shared = arith::ConstantIntOp::create(rewriter, loc, rewriter.getI32Type(),
                                          dynamicSharedBytes);
  std::optional<gpu::KernelDim3> cluster;
  if (clusterSize > 1)
    cluster = gpu::KernelDim3{idx(clusterSize), idx(1), idx(1)};
  gpu::LaunchFuncOp::create(
      rewriter, loc, kernel,
      gpu::KernelDim3{ShapedType::isDynamic(count)
                          ? cast<Value>(programs.getMixedUpperBound()[0])
                          : idx(count),
                      idx(1), idx(1)},
      gpu::KernelDim3{idx(threads), idx(1), idx(1)}, shared, args,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/ValueRange(), cluster);
  rewriter.eraseOp(programs);
  if (failed(emitTiles(rewriter, kernel.getBody().front(), loc, emitter)))
    return failure();
  return kernel;
}
