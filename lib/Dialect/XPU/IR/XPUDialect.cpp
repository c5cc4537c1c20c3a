//===- XPUDialect.cpp - xpu dialect registration and attr checks ---------===//

#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/IR/XPUAttrs.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::xpu;

#include "xpu/Dialect/XPU/IR/XPUDialect.cpp.inc"

void XPUDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "xpu/Dialect/XPU/IR/XPUOps.cpp.inc"
      >();
  registerAttributes();
}

LogicalResult XPUDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == getTargetAttrName()) {
    if (!isa<TargetAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getTargetAttrName()
             << "' must be an #xpu.target attribute, got " << attr.getValue();
    return success();
  }
  if (attr.getName() == getWeightAttrName())
    return op->emitError() << "'" << getWeightAttrName()
                           << "' marks function arguments; it is not an "
                              "operation attribute";
  if (attr.getName() == getKeepF64AttrName() ||
      attr.getName() == getReductionConsumerAttrName()) {
    if (!isa<GemmOp>(op))
      return op->emitError()
             << "'" << attr.getName().getValue() << "' marks an xpu.gemm, not '"
             << op->getName() << "'";
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << attr.getName().getValue()
             << "' is a unit attribute, got " << attr.getValue();
    return success();
  }
  if (attr.getName() == getPackPartAttrName()) {
    auto part = dyn_cast<StringAttr>(attr.getValue());
    if (!part || (part.getValue() != "pack" && part.getValue() != "packed"))
      return op->emitError()
             << "'" << getPackPartAttrName()
             << "' must be \"pack\" or \"packed\", got " << attr.getValue();
    return success();
  }
  if (attr.getName() == getPanelAttrName()) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError()
             << "'" << getPanelAttrName() << "' is a unit attribute, got "
             << attr.getValue();
    return success();
  }
  if (attr.getName() == getCpuTilesAttrName()) {
    auto dict = dyn_cast<DictionaryAttr>(attr.getValue());
    if (!dict)
      return op->emitError()
             << "'" << getCpuTilesAttrName()
             << "' must be a dictionary of register_tile and cache_tile, got "
             << attr.getValue();
    for (NamedAttribute entry : dict) {
      size_t size = entry.getName() == "register_tile" ? 2
                    : entry.getName() == "cache_tile"  ? 3
                                                       : 0;
      if (size == 0)
        return op->emitError()
               << "'" << getCpuTilesAttrName() << "' has an unknown entry '"
               << entry.getName().getValue()
               << "' (expected register_tile or cache_tile)";
      auto sizes = dyn_cast<DenseI64ArrayAttr>(entry.getValue());
      if (!sizes || sizes.size() != static_cast<int64_t>(size) ||
          llvm::any_of(sizes.asArrayRef(), [](int64_t v) {
            return v <= 0 || v > (int64_t(1) << 30);
          }))
        return op->emitError()
               << "'" << getCpuTilesAttrName() << "' entry '"
               << entry.getName().getValue() << "' must be " << size
               << " sizes in [1, 2^30] (array<i64>), got " << entry.getValue();
    }
    return success();
  }
  return op->emitError() << "unknown xpu attribute '"
                         << attr.getName().getValue() << "'";
}

LogicalResult XPUDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != getWeightAttrName() && name != getResultBufferAttrName())
    return op->emitError() << "unknown xpu argument attribute '" << name << "'";
  if (!isa<UnitAttr>(attr.getValue()))
    return op->emitError() << "'" << name << "' is a unit attribute, got "
                           << attr.getValue();
  // A weight stays a weight when bufferization makes a memref of it. The
  // argument's type comes from the function type where the op has one: a
  // malformed function may have fewer block arguments than its signature
  // (its own verifier reports that after this one).
  Type type;
  if (auto function = dyn_cast<FunctionOpInterface>(op);
      function && argIndex < function.getNumArguments())
    type = function.getArgumentTypes()[argIndex];
  else if (Region &region = op->getRegion(regionIndex);
           !region.empty() && argIndex < region.getNumArguments())
    type = region.getArgument(argIndex).getType();
  else
    return op->emitError() << "'" << name << "' marks argument #" << argIndex
                           << ", which the op does not have";
  if (name == getResultBufferAttrName()) {
    auto memref = dyn_cast<MemRefType>(type);
    // (A dynamic dimension's size is the caller's, at run time.)
    if (!memref || !memref.getLayout().isIdentity())
      return op->emitError() << "'" << name
                             << "' marks a memref of identity layout, "
                                "argument #"
                             << argIndex << " is " << type;
    return success();
  }
  if (!isa<TensorType, BaseMemRefType>(type))
    return op->emitError() << "'" << name
                           << "' marks a tensor (or memref) argument, "
                              "argument #"
                           << argIndex << " is neither";
  return success();
}
