//===- MemRefUtils.cpp - memref layout queries ----------------------------===//

#include "xpu/Dialect/XPU/Utils/MemRefUtils.h"

using namespace mlir;

bool mlir::xpu::isStaticStrided(MemRefType type) {
  if (!type.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  return succeeded(type.getStridesAndOffset(strides, offset)) &&
         !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}
