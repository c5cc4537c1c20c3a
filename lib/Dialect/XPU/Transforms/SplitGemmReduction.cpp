//===- SplitGemmReduction.cpp - a GEMM and its row reduction, kept apart --===//
//
// Catalog: reduction_elementwise_fusion (the GEMM side) and the playbook's
// "never serialize over N inside one program". A row reduction over n of a
// GEMM result (softmax's max and sum, layernorm's mean and variance) needs
// the whole row, which one GEMM tile does not hold: folding it into the GEMM
// would serialize the N loop inside one program. The pass leaves the
// reduction a separate op, marks the GEMM with `xpu.reduction_consumer` and
// says in a remark whether the elementwise ops between the two can still
// move into the GEMM's epilogue. It changes nothing else.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/EpilogueUtils.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUSPLITGEMMREDUCTIONPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-split-gemm-reduction";

namespace {

/// The dimensions of the tensor read through `use` that its user reduces:
/// `linalg.reduce` (its `dimensions`), `linalg.softmax` (its `dimension`) or
/// a `linalg.generic` with reduction loops (the tensor dimensions its
/// indexing map sends to a reduction loop). Empty if the user is not a
/// reduction of that tensor.
SmallVector<int64_t> getReducedDims(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto reduce = dyn_cast<linalg::ReduceOp>(user)) {
    if (!reduce.isDpsInput(&use))
      return {};
    return llvm::to_vector(reduce.getDimensions());
  }
  if (auto softmax = dyn_cast<linalg::SoftmaxOp>(user)) {
    if (use.get() != softmax.getInput())
      return {};
    return {static_cast<int64_t>(softmax.getDimension())};
  }
  auto generic = dyn_cast<linalg::GenericOp>(user);
  if (!generic || generic.getNumReductionLoops() == 0 ||
      !generic.isDpsInput(&use))
    return {};
  AffineMap map = generic.getMatchingIndexingMap(&use);
  if (!map.isProjectedPermutation())
    return {};
  SmallVector<utils::IteratorType> iterators = generic.getIteratorTypesArray();
  SmallVector<int64_t> dims;
  for (unsigned i = 0, e = map.getNumResults(); i < e; ++i)
    if (iterators[map.getDimPosition(i)] == utils::IteratorType::reduction)
      dims.push_back(i);
  return dims;
}

/// A reduction reached from a GEMM result, through `chain` elementwise ops.
struct ReductionUse {
  Operation *reduction;
  SmallVector<int64_t> dims;
  SmallVector<Operation *> chain;
};

/// Reductions of the GEMM result or of elementwise linalg.generic chains
/// over it (each reading the previous value through an identity map).
SmallVector<ReductionUse> findReductions(GemmOp gemm) {
  SmallVector<ReductionUse> found;
  SmallVector<std::pair<Value, SmallVector<Operation *>>> worklist;
  worklist.push_back({gemm.getResult(), {}});
  llvm::DenseSet<Operation *> visited;
  while (!worklist.empty()) {
    auto [value, chain] = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      Operation *user = use.getOwner();
      SmallVector<int64_t> dims = getReducedDims(use);
      if (!dims.empty()) {
        found.push_back({user, dims, chain});
        continue;
      }
      auto generic = dyn_cast<linalg::GenericOp>(user);
      if (!generic || !isElementwiseGeneric(generic) ||
          !generic.isDpsInput(&use) ||
          !generic.getMatchingIndexingMap(&use).isIdentity() ||
          !visited.insert(generic).second)
        continue;
      SmallVector<Operation *> next = chain;
      next.push_back(generic);
      worklist.push_back({generic->getResult(0), std::move(next)});
    }
  }
  return found;
}

/// Whether the elementwise ops between the GEMM and a reduction can move into
/// the GEMM's epilogue (xpu-fuse-epilogue's conditions on the GEMM side: the
/// GEMM result has a single user, the first op of the chain).
std::string describeChain(GemmOp gemm, const ReductionUse &use) {
  if (use.chain.empty())
    return "the reduction reads the GEMM result directly";
  int64_t users = llvm::range_size(gemm.getResult().getUsers());
  if (users != 1)
    return llvm::formatv("the {0} elementwise op(s) between them cannot move "
                         "into the epilogue: the GEMM result has {1} users",
                         use.chain.size(), users)
        .str();
  return llvm::formatv("the {0} elementwise op(s) between them are eligible "
                       "for epilogue fusion (the GEMM result has one user)",
                       use.chain.size())
      .str();
}

/// True if `dims` is exactly `{dim}`.
bool isOnly(ArrayRef<int64_t> dims, int64_t dim) {
  return dims.size() == 1 && dims.front() == dim;
}

struct SplitGemmReductionPass final
    : xpu::impl::XPUSplitGemmReductionPassBase<SplitGemmReductionPass> {
  using Base::Base;

  void runOnOperation() override {
    StringAttr markName = StringAttr::get(
        &getContext(), XPUDialect::getReductionConsumerAttrName());
    getOperation().walk([&](GemmOp gemm) {
      std::string shape = describeGemmShape(gemm);
      int64_t rank = gemm.getResultType().getRank();
      bool rowReduction = false;
      for (const ReductionUse &use : findReductions(gemm)) {
        StringRef name = use.reduction->getName().getStringRef();
        if (isOnly(use.dims, rank - 1)) {
          rowReduction = true;
          ++numSplit;
          remark::passed(gemm.getLoc(), remarkOpts(kPassArg, "KeptApart"))
              << remark::reason(
                     "GEMM {0} followed by a row reduction over n={1}: kept "
                     "as a GEMM then a separate reduction (never serialize "
                     "over N inside one program); {2} ({3})",
                     shape, gemm.getN(), describeChain(gemm, use), name);
          continue;
        }
        if (isOnly(use.dims, rank - 2)) {
          remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "NotRowReduction"))
              << remark::reason(
                     "GEMM {0} followed by a column reduction over m={1} "
                     "({2}): not a row reduction, not marked",
                     shape, gemm.getM(), name);
          continue;
        }
        std::string dims;
        llvm::raw_string_ostream os(dims);
        llvm::interleaveComma(use.dims, os);
        remark::missed(gemm.getLoc(), remarkOpts(kPassArg, "NotRowReduction"))
            << remark::reason(
                   "GEMM {0} followed by a reduction over dimensions [{1}] of "
                   "its rank-{2} result ({3}): only a reduction over n alone "
                   "is a row reduction, not marked",
                   shape, dims, rank, name);
      }
      // The mark is recomputed: a GEMM whose row reduction is gone loses it.
      if (rowReduction)
        gemm->setAttr(markName, UnitAttr::get(&getContext()));
      else
        gemm->removeAttr(markName);
    });
  }
};
} // namespace
