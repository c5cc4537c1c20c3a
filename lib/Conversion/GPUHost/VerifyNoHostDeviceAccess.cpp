//===- VerifyNoHostDeviceAccess.cpp - host code never touches device data -===//
//
// Catalog: no_device_to_host_scalar_sync, and the soundness rule behind it:
// on a GPU target the host must not read or write memory that only the
// device can reach (a caller's CUDA tensor, a device allocation). Managed
// memory and OpenCL SVM hide such accesses; plain device memory crashes on
// them. This pass proves their absence on the host code after bufferization
// and buffer placement, where every access is an op on a memref whose
// origin is known, and rejects the module at the first offending op
// otherwise.
//
// The rule. A memref is host-visible when every definition it can come
// from (through views, casts, scf results, calls and private-function
// arguments) is one of
//   * memref.alloc / memref.alloca in host code (host memory);
//   * memref.get_global (host constants; xpu-host-buffers-to-gpu registers
//     them for the kernels);
//   * gpu.alloc host_shared (shared virtual / managed memory that a
//     pipeline chose on purpose because host code touches the buffer).
// Everything else is device memory: arguments of public functions (the
// caller's buffers: device memory on a GPU target), gpu.alloc without
// host_shared, results of external calls and values of unknown origin.
// A host access is an op outside GPU code with a read or write effect on a
// memref (loads, stores, copies, linalg ops, vector transfers), a call of
// an external function with a memref operand, or an op with memref operands
// whose effects are unknown. Runtime operations (gpu.launch_func,
// gpu.memcpy, gpu.memset, gpu.dealloc, ...) and ops that read only a
// buffer's address and shape (TMA descriptors, extract_aligned_pointer) are
// not host accesses.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUVERIFYNOHOSTDEVICEACCESSPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
bool isMemRef(Value v) { return isa<BaseMemRefType>(v.getType()); }

/// Where device memory comes from: the value that makes a memref
/// device-only, and why.
struct DeviceRoot {
  Value value;
  std::string why;
};

class OriginAnalysis {
public:
  explicit OriginAnalysis(ModuleOp module) : symbols(module) {
    module.walk([&](func::CallOp call) {
      callers[call.getCalleeAttr().getAttr()].push_back(call);
    });
    // A private function whose symbol is used other than by func.call may
    // be called from anywhere: its arguments count as device memory.
    module.walk([&](Operation *op) {
      if (isa<func::CallOp>(op))
        return;
      op->getAttrDictionary().walk(
          [&](SymbolRefAttr ref) { escaped.insert(ref.getRootReference()); });
    });
  }

  /// The device root `v` may come from, or std::nullopt when every
  /// definition it may come from is host-visible.
  std::optional<DeviceRoot> getDeviceRoot(Value v) {
    auto it = cache.find(v);
    if (it != cache.end())
      return it->second;
    // Cycles (loop-carried buffers): the other definitions decide.
    cache[v] = std::nullopt;
    std::optional<DeviceRoot> root = compute(v);
    cache[v] = root;
    return root;
  }

private:
  std::optional<DeviceRoot> anyOf(ValueRange values) {
    for (Value v : values)
      if (std::optional<DeviceRoot> root = getDeviceRoot(v))
        return root;
    return std::nullopt;
  }

  std::optional<DeviceRoot> compute(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return computeArgument(arg);
    Operation *def = v.getDefiningOp();
    unsigned index = cast<OpResult>(v).getResultNumber();
    if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def))
      return std::nullopt;
    if (auto alloc = dyn_cast<gpu::AllocOp>(def)) {
      if (alloc.getHostShared())
        return std::nullopt;
      return DeviceRoot{v, "a device allocation (gpu.alloc without "
                           "host_shared)"};
    }
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      return getDeviceRoot(view.getViewSource());
    if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(def))
      return getDeviceRoot(metadata.getSource());
    if (isa<memref::CastOp, memref::ReinterpretCastOp, memref::CollapseShapeOp,
            memref::ExpandShapeOp, memref::MemorySpaceCastOp>(def))
      return getDeviceRoot(def->getOperand(0));
    if (auto select = dyn_cast<arith::SelectOp>(def))
      return anyOf({select.getTrueValue(), select.getFalseValue()});
    if (auto ifOp = dyn_cast<scf::IfOp>(def)) {
      SmallVector<Value> yielded;
      for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
        if (!region->empty())
          yielded.push_back(region->front().getTerminator()->getOperand(index));
      return anyOf(yielded);
    }
    if (auto loop = dyn_cast<scf::ForOp>(def))
      return anyOf({loop.getInitArgs()[index], loop.getYieldedValues()[index]});
    if (auto call = dyn_cast<func::CallOp>(def)) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal())
        return DeviceRoot{v, "the result of external function @" +
                                 call.getCallee().str()};
      std::optional<DeviceRoot> root;
      callee.walk([&](func::ReturnOp ret) {
        if (!root)
          root = getDeviceRoot(ret.getOperand(index));
      });
      return root;
    }
    return DeviceRoot{v, "a buffer of unknown origin ('" +
                             def->getName().getStringRef().str() + "')"};
  }

  std::optional<DeviceRoot> computeArgument(BlockArgument arg) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      if (arg.getArgNumber() == 0)
        return std::nullopt;
      unsigned i = arg.getArgNumber() - 1;
      return anyOf({loop.getInitArgs()[i], loop.getYieldedValues()[i]});
    }
    auto func = dyn_cast<func::FuncOp>(parent);
    if (!func || !arg.getOwner()->isEntryBlock())
      return DeviceRoot{arg, "a block argument of unknown origin"};
    std::string name = func.getSymName().str();
    auto it = callers.find(func.getSymNameAttr());
    if (func.isPublic() || escaped.contains(func.getSymNameAttr()) ||
        it == callers.end())
      return DeviceRoot{arg, "argument #" + std::to_string(arg.getArgNumber()) +
                                 " of @" + name +
                                 " (a caller's buffer: device memory on a "
                                 "GPU target)"};
    for (func::CallOp call : it->second)
      if (std::optional<DeviceRoot> root =
              getDeviceRoot(call.getOperand(arg.getArgNumber())))
        return root;
    return std::nullopt;
  }

  SymbolTable symbols;
  DenseMap<StringAttr, SmallVector<func::CallOp>> callers;
  DenseSet<StringAttr> escaped;
  DenseMap<Value, std::optional<DeviceRoot>> cache;
};

/// The memrefs `op` reads or writes on the host, with the kind of access.
void getHostAccesses(Operation *op, SymbolTable &symbols,
                     SmallVectorImpl<std::pair<Value, StringRef>> &accesses) {
  // The runtime reaches device memory through the driver; descriptors and
  // pointers read only a buffer's address and shape.
  if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()) ||
      isa<nvgpu::TmaCreateDescriptorOp, memref::ExtractAlignedPointerAsIndexOp,
          memref::ExtractStridedMetadataOp, memref::DeallocOp>(op))
    return;
  if (auto call = dyn_cast<func::CallOp>(op)) {
    // A defined callee's own accesses are checked where they are.
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (callee && !callee.isExternal())
      return;
    for (Value operand : call.getOperands())
      if (isMemRef(operand))
        accesses.push_back({operand, "passes to external function"});
    return;
  }
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects) {
    if (op->getNumRegions() != 0 || op->hasTrait<OpTrait::IsTerminator>())
      return;
    for (Value operand : op->getOperands())
      if (isMemRef(operand))
        accesses.push_back({operand, "may access (unknown effects)"});
    return;
  }
  SmallVector<MemoryEffects::EffectInstance> instances;
  effects.getEffects(instances);
  for (const MemoryEffects::EffectInstance &effect : instances) {
    Value value = effect.getValue();
    if (!value || !isMemRef(value))
      continue;
    if (isa<MemoryEffects::Read>(effect.getEffect()))
      accesses.push_back({value, "reads"});
    else if (isa<MemoryEffects::Write>(effect.getEffect()))
      accesses.push_back({value, "writes"});
  }
}

struct VerifyNoHostDeviceAccessPass final
    : xpu::impl::XPUVerifyNoHostDeviceAccessPassBase<
          VerifyNoHostDeviceAccessPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OriginAnalysis origins(module);
    SymbolTable symbols(module);
    bool failed = false;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp, gpu::LaunchOp, gpu::BinaryOp>(op))
        return WalkResult::skip();
      SmallVector<std::pair<Value, StringRef>> accesses;
      getHostAccesses(op, symbols, accesses);
      for (auto [value, how] : accesses) {
        ++numAccesses;
        std::optional<DeviceRoot> root = origins.getDeviceRoot(value);
        if (!root)
          continue;
        InFlightDiagnostic diag = op->emitError()
                                  << "host code " << how << " device memory: '"
                                  << op->getName() << "' on " << root->why
                                  << "; run it in a kernel, or copy what the "
                                     "host needs with gpu.memcpy";
        diag.attachNote(root->value.getLoc()) << "the device memory comes "
                                                 "from here";
        failed = true;
        break;
      }
      // A linalg op's body works on elements, not buffers.
      return op->getNumRegions() != 0 && isa<MemoryEffectOpInterface>(op) &&
                     !op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::skip()
                 : WalkResult::advance();
    });
    if (failed)
      signalPassFailure();
  }
};
} // namespace
