//===- VectorLimits.cpp - vector sizes the lowerings can unroll -----------===//

#include "xpu/Dialect/XPU/Utils/VectorLimits.h"
#include "xpu/Dialect/XPU/Utils/SizeArithmetic.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

LogicalResult mlir::xpu::checkVectorSizes(Operation *root, int64_t maxElements,
                                          StringRef passArg) {
  WalkResult walk = root->walk([&](Operation *op) {
    for (Type t : llvm::concat<const Type>(op->getOperandTypes(),
                                           op->getResultTypes())) {
      auto vec = dyn_cast<VectorType>(t);
      if (!vec || satProduct(vec.getShape()) <= maxElements)
        continue;
      op->emitError() << passArg << ": " << vec << " has more than "
                      << maxElements
                      << " elements, which the lowerings would unroll "
                         "element by element";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
