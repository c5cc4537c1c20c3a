//===- DotPairLayout.cpp - the pair-dot GEMM layout -----------------------===//

#include "xpu/Codegen/DotPairLayout.h"

#include "mlir/IR/AffineExpr.h"

using namespace mlir;
using namespace mlir::xpu;

SmallVector<AffineMap> mlir::xpu::getDotPairGemmIndexingMaps(MLIRContext *ctx,
                                                             bool batched) {
  unsigned b = batched ? 1 : 0;
  unsigned numLoops = 6 + b;
  auto map = [&](ArrayRef<unsigned> dims) {
    SmallVector<AffineExpr> exprs;
    if (batched)
      exprs.push_back(getAffineDimExpr(0, ctx));
    for (unsigned d : dims)
      exprs.push_back(getAffineDimExpr(d + b, ctx));
    return AffineMap::get(numLoops, 0, exprs, ctx);
  };
  // (M1, N1, K2, mr, nr, kk) = dims 0..5 past the batch.
  return {map({0, 2, 3, 5}), map({1, 2, 4, 5}), map({0, 1, 3, 4})};
}

std::optional<bool>
mlir::xpu::matchDotPairGemmIndexingMaps(ArrayRef<AffineMap> maps) {
  if (maps.size() != 3)
    return std::nullopt;
  MLIRContext *ctx = maps.front().getContext();
  for (bool batched : {false, true})
    if (ArrayRef<AffineMap>(getDotPairGemmIndexingMaps(ctx, batched)) == maps)
      return batched;
  return std::nullopt;
}
