//===- SPIRVLegalizeHugeMemRefs.cpp - kernel memrefs of 2^31+ elements ----===//
//
// convert-gpu-to-spirv (MLIR 22.1.8) gives a statically shaped memref of an
// OpenCL kernel the type "pointer to an array of N elements", with N held in
// 32 bits: a buffer of 2^32 elements (a 65536 x 65536 result) became an
// array of length 0, which spirv-val rejects. Dynamically shaped memrefs
// are pointers to their element, with no length. This pass gives every
// kernel argument of more than 2^31 - 1 elements a dynamic leading
// dimension (its strides and offset, which the kernel's address arithmetic
// needs, stay static), and casts the operand at each launch.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Verifier.h"

#include <limits>

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSPIRVLEGALIZEHUGEMEMREFSPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

namespace {
/// `type` with a dynamic leading dimension, if it has more elements than a
/// 32-bit signed count holds (and static strides to keep); else null.
MemRefType getRelaxedType(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || memref.getRank() == 0 ||
      memref.getNumElements() <= std::numeric_limits<int32_t>::max())
    return nullptr;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)))
    return nullptr;
  SmallVector<int64_t> shape(memref.getShape());
  shape[0] = ShapedType::kDynamic;
  // An identity layout of the new shape would have a dynamic stride for
  // every outer dimension: keep the strides explicit.
  MemRefLayoutAttrInterface layout =
      memref.getLayout().isIdentity() && memref.getRank() > 1
          ? StridedLayoutAttr::get(memref.getContext(), offset, strides)
          : memref.getLayout();
  return MemRefType::get(shape, memref.getElementType(), layout,
                         memref.getMemorySpace());
}

struct SPIRVLegalizeHugeMemRefsPass final
    : xpu::impl::XPUSPIRVLegalizeHugeMemRefsPassBase<
          SPIRVLegalizeHugeMemRefsPass> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    SymbolTableCollection symbols;
    DenseMap<Operation *, SmallVector<std::pair<unsigned, MemRefType>>> changed;
    WalkResult result = top.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return WalkResult::advance();
      SmallVector<std::pair<unsigned, MemRefType>> args;
      for (BlockArgument arg : func.getArguments())
        if (MemRefType relaxed = getRelaxedType(arg.getType()))
          args.push_back({arg.getArgNumber(), relaxed});
      if (args.empty())
        return WalkResult::advance();
      SmallVector<Type> inputs(func.getArgumentTypes());
      for (auto [i, type] : args) {
        func.getArgument(i).setType(type);
        inputs[i] = type;
      }
      func.setFunctionType(
          FunctionType::get(&getContext(), inputs, func.getResultTypes()));
      // The users read the argument's shape only through its strides; one
      // that needs the static shape is reported here, not miscompiled.
      if (failed(verify(func)))
        return WalkResult::interrupt();
      changed[func] = std::move(args);
      numRelaxed += changed[func].size();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    if (changed.empty())
      return;
    top.walk([&](gpu::LaunchFuncOp launch) {
      auto func = symbols.lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      auto it = changed.find(func);
      if (!func || it == changed.end())
        return;
      OpBuilder b(launch);
      for (auto [i, type] : it->second) {
        OpOperand &operand = launch.getKernelOperandsMutable()[i];
        operand.set(
            memref::CastOp::create(b, launch.getLoc(), type, operand.get()));
      }
    });
  }
};
} // namespace
