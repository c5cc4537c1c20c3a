//===- LowerStridedCopies.cpp - strided memref.copy as linalg.copy --------===//
//
// A memref.copy between strided views otherwise becomes a call of the
// runtime's element-by-element memrefCopy. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Codegen/Passes.h"
#include "xpu/Dialect/XPU/Utils/MemRefUtils.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUCPULOWERSTRIDEDCOPIESPASS
#include "xpu/Codegen/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

namespace {
struct LowerStridedCopiesPass final
    : xpu::impl::XPUCPULowerStridedCopiesPassBase<LowerStridedCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto src = dyn_cast<MemRefType>(copy.getSource().getType());
      auto dst = dyn_cast<MemRefType>(copy.getTarget().getType());
      if (!src || !dst || !isStaticStrided(src) || !isStaticStrided(dst))
        return;
      // Contiguous on both sides: the LLVM lowering's memcpy.
      if (memref::isStaticShapeAndContiguousRowMajor(src) &&
          memref::isStaticShapeAndContiguousRowMajor(dst))
        return;
      copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
      ++numRewritten;
    }
  }
};
} // namespace
