//===- WriteResultsInPlace.cpp - results in the caller's buffers ----------===//
//
// After bufferization, a call whose result the caller copies into a buffer
// it was given for that result (`xpu.result_buffer`) calls a clone of the
// callee that computes the result in that buffer. See the pass description
// in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/FormatVariadic.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUWRITERESULTSINPLACEPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-write-results-in-place";

namespace {

/// One result of a call computed in the caller's buffer.
struct InPlaceResult {
  unsigned index;
  BlockArgument destination;
  memref::CopyOp copy;
};

/// The single return of `fn`, or null.
func::ReturnOp getSingleReturn(func::FuncOp fn) {
  func::ReturnOp result;
  for (Block &block : fn.getBody()) {
    auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
    if (!ret)
      continue;
    if (result)
      return {};
    result = ret;
  }
  return result;
}

struct WriteResultsInPlacePass final
    : xpu::impl::XPUWriteResultsInPlacePassBase<WriteResultsInPlacePass> {
  void runOnOperation() override;

private:
  /// Why result `i` of `call` keeps its copy into `copy`'s target; empty
  /// when it can be computed in place.
  std::string whyNotInPlace(func::CallOp call, func::FuncOp callee, unsigned i,
                            memref::CopyOp copy);
  /// The clone of `callee` that takes the buffers of the results in `mask`
  /// as extra arguments (created once per callee, which then calls it);
  /// null when the callee already has a clone for another mask.
  func::FuncOp getInPlaceClone(func::FuncOp callee, const llvm::BitVector &mask,
                               SymbolTable &symbols);

  /// Callee -> its in-place clone and the results it writes in place.
  llvm::DenseMap<Operation *, std::pair<func::FuncOp, llvm::BitVector>> clones;
};

std::string WriteResultsInPlacePass::whyNotInPlace(func::CallOp call,
                                                   func::FuncOp callee,
                                                   unsigned i,
                                                   memref::CopyOp copy) {
  Value result = call.getResult(i);
  auto destination = cast<BlockArgument>(copy.getTarget());
  if (result.getType() != destination.getType())
    return llvm::formatv("the result is {0} and its buffer {1}",
                         result.getType(), destination.getType());
  if (llvm::is_contained(call.getOperands(), destination))
    return "the call also reads the result's buffer";
  // Nothing between the call and the copy may touch the buffer.
  for (Operation *op = call->getNextNode(); op && op != copy;
       op = op->getNextNode())
    if (llvm::is_contained(op->getOperands(), destination))
      return "the buffer is used between the call and the copy";
  func::ReturnOp ret = getSingleReturn(callee);
  if (!ret)
    return llvm::formatv("@{0} has more than one return", callee.getSymName());
  Value returned = ret.getOperand(i);
  if (llvm::count(ret.getOperands(), returned) != 1)
    return "the callee returns the same buffer twice";
  auto alloc = returned.getDefiningOp<memref::AllocOp>();
  if (!alloc)
    return "the callee does not return a buffer it allocates";
  if (alloc.getType() != result.getType())
    return llvm::formatv("the callee allocates {0}", alloc.getType());
  // The thin callee would allocate it again, from sizes its clone computes.
  if (!alloc.getType().hasStaticShape())
    return llvm::formatv("the callee allocates the dynamically shaped {0}",
                         alloc.getType());
  if (std::optional<uint64_t> alignment = alloc.getAlignment();
      alignment && *alignment > XPUDialect::kResultBufferAlignment)
    return llvm::formatv("the callee aligns its buffer to {0} bytes, more "
                         "than the {1} a result buffer has",
                         *alignment, XPUDialect::kResultBufferAlignment);
  return {};
}

func::FuncOp WriteResultsInPlacePass::getInPlaceClone(
    func::FuncOp callee, const llvm::BitVector &mask, SymbolTable &symbols) {
  auto it = clones.find(callee.getOperation());
  if (it != clones.end())
    return it->second.second == mask ? it->second.first : func::FuncOp();
  // The body moves to a private clone that takes the masked results'
  // buffers as arguments, and the callee becomes a thin function that
  // allocates them and calls it: its signature (a public C interface) stays,
  // and the kernels are generated once, from the clone.
  func::FuncOp clone = callee.clone();
  clone.setPrivate();
  clone->removeAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName());
  clone.setSymName((callee.getSymName() + ".in_place").str());
  // LLVM would inline the clone into the thin callee and into each C
  // wrapper of it: the kernels compiled three or four times over.
  OpBuilder attrs(clone);
  clone->setAttr("passthrough",
                 attrs.getArrayAttr({attrs.getStringAttr("noinline")}));
  symbols.insert(clone, std::next(Block::iterator(callee)));
  func::ReturnOp ret = getSingleReturn(clone);
  SmallVector<memref::AllocOp> allocs;
  for (unsigned i : mask.set_bits()) {
    auto alloc = ret.getOperand(i).getDefiningOp<memref::AllocOp>();
    unsigned index = clone.getNumArguments();
    (void)clone.insertArgument(index, alloc.getType(), {}, alloc.getLoc());
    alloc.replaceAllUsesWith(clone.getArgument(index));
    allocs.push_back(alloc);
  }
  SmallVector<Value> kept;
  for (auto [i, v] : llvm::enumerate(ret.getOperands()))
    if (!mask.test(i))
      kept.push_back(v);
  OpBuilder b(ret);
  func::ReturnOp::create(b, ret.getLoc(), kept);
  ret.erase();
  (void)clone.eraseResults(mask);

  // The callee: allocate (as the body did), call, return.
  callee.getBody().dropAllReferences();
  callee.getBody().getBlocks().clear();
  Block *entry = callee.addEntryBlock();
  b.setInsertionPointToStart(entry);
  SmallVector<Value> operands(entry->getArguments());
  SmallVector<Value> buffers;
  for (memref::AllocOp alloc : allocs) {
    Operation *copy = b.clone(*alloc);
    buffers.push_back(copy->getResult(0));
    operands.push_back(buffers.back());
    alloc.erase();
  }
  auto call = func::CallOp::create(b, callee.getLoc(), clone, operands);
  SmallVector<Value> results;
  unsigned nextKept = 0, nextBuffer = 0;
  for (unsigned i = 0, e = mask.size(); i < e; ++i)
    results.push_back(mask.test(i) ? buffers[nextBuffer++]
                                   : call.getResult(nextKept++));
  func::ReturnOp::create(b, callee.getLoc(), results);
  clones[callee.getOperation()] = {clone, mask};
  return clone;
}

void WriteResultsInPlacePass::runOnOperation() {
  ModuleOp module = getOperation();
  SymbolTable symbols(module);
  SmallVector<func::CallOp> calls;
  module.walk([&](func::CallOp call) {
    auto caller = call->getParentOfType<func::FuncOp>();
    for (unsigned i = 0, e = caller.getNumArguments(); i < e; ++i)
      if (caller.getArgAttr(i, XPUDialect::getResultBufferAttrName())) {
        calls.push_back(call);
        return;
      }
  });
  for (func::CallOp call : calls) {
    auto caller = call->getParentOfType<func::FuncOp>();
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!callee || callee.isExternal())
      continue;
    SmallVector<InPlaceResult> inPlace;
    for (auto [i, result] : llvm::enumerate(call.getResults())) {
      if (!result.hasOneUse())
        continue;
      auto copy = dyn_cast<memref::CopyOp>(*result.getUsers().begin());
      if (!copy || copy.getSource() != result ||
          copy->getBlock() != call->getBlock())
        continue;
      auto destination = dyn_cast<BlockArgument>(copy.getTarget());
      if (!destination || destination.getOwner() != &caller.front() ||
          !caller.getArgAttr(destination.getArgNumber(),
                             XPUDialect::getResultBufferAttrName()))
        continue;
      std::string why = whyNotInPlace(call, callee, i, copy);
      if (!why.empty()) {
        ++numCopied;
        remark::missed(call.getLoc(), remarkOpts(kPassArg, "Copied"))
            << remark::reason("result #{0} of @{1} is copied into the "
                              "caller's buffer: {2}",
                              i, callee.getSymName(), why);
        continue;
      }
      inPlace.push_back({static_cast<unsigned>(i), destination, copy});
    }
    if (inPlace.empty())
      continue;
    llvm::BitVector mask(call.getNumResults());
    for (const InPlaceResult &r : inPlace)
      mask.set(r.index);
    func::FuncOp clone = getInPlaceClone(callee, mask, symbols);
    if (!clone) {
      numCopied += inPlace.size();
      remark::missed(call.getLoc(), remarkOpts(kPassArg, "Copied"))
          << remark::reason("@{0} is already written in place for other "
                            "results by another call: its results are copied",
                            callee.getSymName());
      continue;
    }
    SmallVector<Value> operands(call.getOperands());
    for (const InPlaceResult &r : inPlace)
      operands.push_back(r.destination);
    OpBuilder b(call);
    auto newCall = func::CallOp::create(b, call.getLoc(), clone, operands);
    unsigned next = 0;
    for (auto [i, result] : llvm::enumerate(call.getResults()))
      if (!mask.test(i))
        result.replaceAllUsesWith(newCall.getResult(next++));
    for (InPlaceResult &r : inPlace) {
      ++numInPlace;
      remark::passed(call.getLoc(), remarkOpts(kPassArg, "InPlace"))
          << remark::reason("result #{0} of @{1} is computed in the caller's "
                            "buffer (argument #{2} of @{3}) by @{4}: no copy",
                            r.index, callee.getSymName(),
                            r.destination.getArgNumber(), caller.getSymName(),
                            clone.getSymName());
      r.copy.erase();
    }
    call.erase();
  }
  // The promise is used: it means nothing to the C interfaces and LLVM.
  module.walk([](func::FuncOp fn) {
    for (unsigned i = 0, e = fn.getNumArguments(); i < e; ++i)
      fn.removeArgAttr(i, XPUDialect::getResultBufferAttrName());
  });
}

} // namespace
