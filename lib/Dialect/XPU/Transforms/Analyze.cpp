//===- Analyze.cpp - classify kernels and report their roofline -----------===//
//
// The compiler's version of the playbook's scripts/analyze_kernel.py: instead
// of pattern-matching PyTorch source, it reads the IR of each function,
// classifies it (gemm, gemm_epilogue, gemm_reduction, reduction,
// elementwise), computes FLOPs and bytes from the static shapes and reports
// the arithmetic intensity against the #xpu.target ridge point together with
// the optimization levels and passes that apply. The IR is not changed.
//
// Counting rules (what the remarks' numbers mean):
// * a GEMM is 2*b*m*n*k FLOPs; every op of its epilogue (constants and the
//   yield aside) is one FLOP per output element; an unraised
//   linalg.matmul whose init is not a zero fill adds the init (one add per
//   element, plus its bytes);
// * other linalg ops: the payload ops (constants and the yield aside) times
//   the iteration count; tensor arith/math elementwise ops: one FLOP per
//   element; pure data movement (transpose, copy, broadcast) moves bytes and
//   no FLOPs; linalg.fill is not counted (the zero init a GEMM or reduction
//   absorbs);
// * bytes are each op's operands and results at their element type's size,
//   as if every op were its own kernel (what fusion then saves).
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/IR/XPUAttrs.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/EpilogueUtils.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUANALYZEPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-analyze";

namespace {
/// A count that is unknown when a shape is dynamic.
using Count = std::optional<uint64_t>;

Count mul(Count a, Count b) {
  if (!a || !b)
    return std::nullopt;
  return llvm::SaturatingMultiply(*a, *b);
}
Count add(Count a, Count b) {
  if (!a || !b)
    return std::nullopt;
  return llvm::SaturatingAdd(*a, *b);
}
Count dim(int64_t d) {
  if (ShapedType::isDynamic(d))
    return std::nullopt;
  return static_cast<uint64_t>(d);
}

uint64_t elementBytes(Type t) {
  if (t.isIntOrFloat())
    return llvm::divideCeil(t.getIntOrFloatBitWidth(), 8);
  return 8; // index and anything else: a 64-bit word.
}

/// Bytes of a tensor value; scalars count their element size.
Count bytesOf(Value v) {
  auto shaped = dyn_cast<ShapedType>(v.getType());
  if (!shaped)
    return elementBytes(v.getType());
  if (!shaped.hasStaticShape())
    return std::nullopt;
  return mul(static_cast<uint64_t>(shaped.getNumElements()),
             elementBytes(shaped.getElementType()));
}

/// Ops that compute (everything in a payload but constants and
/// terminators).
unsigned countComputeOps(Block &block) {
  unsigned n = 0;
  for (Operation &op : block)
    if (!op.hasTrait<OpTrait::IsTerminator>() &&
        !op.hasTrait<OpTrait::ConstantLike>())
      ++n;
  return n;
}

std::string fmt(Count c) { return c ? std::to_string(*c) : std::string("?"); }
std::string fmtDim(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

/// True if `v` is computed only from per-channel (`argOk`) block arguments
/// and constants: a factor a weight-folding pass can move into the weights.
bool isChannelConstant(Value v, function_ref<bool(BlockArgument)> argOk,
                       unsigned depth = 0) {
  if (depth > 8)
    return false;
  if (matchPattern(v, m_Constant()))
    return true;
  if (auto arg = dyn_cast<BlockArgument>(v))
    return argOk(arg);
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() != 0 || !isPure(def))
    return false;
  return llvm::all_of(def->getOperands(), [&](Value x) {
    return isChannelConstant(x, argOk, depth + 1);
  });
}

/// A multiply or divide by a per-channel factor in `block`.
bool hasPerChannelScale(Block &block, function_ref<bool(BlockArgument)> argOk) {
  for (Operation &op : block) {
    if (!isa<arith::MulFOp, arith::DivFOp>(op))
      continue;
    bool lhs = isChannelConstant(op.getOperand(0), argOk);
    bool rhs = isChannelConstant(op.getOperand(1), argOk);
    if (lhs != rhs)
      return true;
  }
  return false;
}

struct GemmInfo {
  Operation *op;
  Type elementType;
  int64_t b = 1, m, n, k;
  Count gemmFlops, epilogueFlops, bytes;
  unsigned epilogueOps = 0;
  bool perChannelScale = false;
};

enum class OpClass { Gemm, Reduction, Elementwise, DataMovement, Ignored };

struct FunctionAnalysis {
  SmallVector<GemmInfo> gemms;
  unsigned numElementwise = 0, numReductions = 0;
  unsigned numConsumers = 0;      // elementwise ops fed by a GEMM
  unsigned numGemmReductions = 0; // reductions fed by a GEMM
  bool consumerScale = false;     // a per-channel scale in a consumer
  bool unraised = false;          // linalg.matmul / batch_matmul left
  Count flops = 0, bytes = 0;
};

GemmInfo analyzeGemm(GemmOp op) {
  GemmInfo g;
  g.op = op;
  g.elementType = op.getLhsType().getElementType();
  g.b = op.isBatched() ? op.getLhsType().getDimSize(0) : 1;
  g.m = op.getM();
  g.n = op.getN();
  g.k = op.getK();
  Count outputs = mul(mul(dim(g.b), dim(g.m)), dim(g.n));
  g.gemmFlops = mul(mul(outputs, dim(g.k)), 2);
  g.epilogueOps = countComputeOps(op.getEpilogueBlock());
  g.epilogueFlops = mul(outputs, g.epilogueOps);
  g.bytes = add(add(bytesOf(op.getLhs()), bytesOf(op.getRhs())),
                bytesOf(op.getResult()));
  for (Value v : op.getEpilogueOperands())
    g.bytes = add(g.bytes, bytesOf(v));
  g.perChannelScale =
      hasPerChannelScale(op.getEpilogueBlock(), [&](BlockArgument arg) {
        // The accumulator, or a value captured from an enclosing block.
        if (arg.getOwner() != &op.getEpilogueBlock() || arg.getArgNumber() == 0)
          return false;
        BroadcastKind kind = op.getBroadcastKind(arg.getArgNumber() - 1);
        return kind == BroadcastKind::per_col || kind == BroadcastKind::scalar;
      });
  return g;
}

bool isZeroFill(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

GemmInfo analyzeMatmul(linalg::LinalgOp op) {
  GemmInfo g;
  g.op = op;
  g.elementType = getElementTypeOrSelf(op.getDpsInputOperand(0)->get());
  // Loops are (b?, m, n, k) for both named ops, whatever their maps.
  SmallVector<int64_t> loops = op.getStaticLoopRanges();
  bool batched = isa<linalg::BatchMatmulOp>(op.getOperation());
  if (loops.size() == (batched ? 4u : 3u)) {
    unsigned o = batched ? 1 : 0;
    g.b = batched ? loops[0] : 1;
    g.m = loops[o];
    g.n = loops[o + 1];
    g.k = loops[o + 2];
  } else {
    g.m = g.n = g.k = ShapedType::kDynamic;
  }
  Count outputs = mul(mul(dim(g.b), dim(g.m)), dim(g.n));
  g.gemmFlops = mul(mul(outputs, dim(g.k)), 2);
  Value init = op.getDpsInitOperand(0)->get();
  g.bytes = add(add(bytesOf(op.getDpsInputOperand(0)->get()),
                    bytesOf(op.getDpsInputOperand(1)->get())),
                bytesOf(op->getResult(0)));
  g.epilogueFlops = 0;
  if (!isZeroFill(init)) {
    // out = init + a * b: the init is read and added (torch.addmm).
    g.epilogueOps = 1;
    g.epilogueFlops = outputs;
    g.bytes = add(g.bytes, bytesOf(init));
  }
  return g;
}

/// Iteration count of a linalg op.
Count iterations(linalg::LinalgOp op) {
  Count n = 1;
  for (int64_t r : op.getStaticLoopRanges())
    n = mul(n, dim(r));
  return n;
}

/// Bytes a linalg op moves: inputs, results, and inits its payload reads.
Count linalgBytes(linalg::LinalgOp op) {
  Count bytes = 0;
  for (OpOperand *in : op.getDpsInputOperands())
    bytes = add(bytes, bytesOf(in->get()));
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.payloadUsesValueFromOperand(&init) && !isZeroFill(init.get()))
      bytes = add(bytes, bytesOf(init.get()));
  for (Value r : op->getResults())
    bytes = add(bytes, bytesOf(r));
  return bytes;
}

/// A per-channel multiply or divide in an elementwise consumer of `gemmOut`.
bool consumerHasPerChannelScale(linalg::GenericOp op,
                                const DenseSet<Operation *> &derived) {
  if (!isElementwiseGeneric(op))
    return false;
  Block &body = op.getRegion().front();
  return hasPerChannelScale(body, [&](BlockArgument arg) {
    if (arg.getOwner() != &body || arg.getArgNumber() >= op.getNumDpsInputs())
      return false;
    OpOperand *operand = op.getDpsInputOperand(arg.getArgNumber());
    Operation *def = operand->get().getDefiningOp();
    if (def && derived.contains(def))
      return false;
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    if (!type)
      return false;
    std::string reason;
    FailureOr<BroadcastKind> kind =
        classifyBroadcast(op.getMatchingIndexingMap(operand), type, reason);
    return succeeded(kind) &&
           (*kind == BroadcastKind::per_col || *kind == BroadcastKind::scalar);
  });
}

FunctionAnalysis analyzeFunction(func::FuncOp func) {
  FunctionAnalysis fa;
  // Ops computed from a GEMM result (transitively).
  DenseSet<Operation *> derived;
  auto fedByGemm = [&](Operation *op) {
    return llvm::any_of(op->getOperands(), [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && derived.contains(def);
    });
  };
  func.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (auto gemm = dyn_cast<GemmOp>(op)) {
      GemmInfo g = analyzeGemm(gemm);
      fa.flops = add(fa.flops, add(g.gemmFlops, g.epilogueFlops));
      fa.bytes = add(fa.bytes, g.bytes);
      fa.gemms.push_back(g);
      derived.insert(op);
      return WalkResult::skip(); // the epilogue is counted with the GEMM
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op) && linalgOp &&
        linalgOp.hasPureTensorSemantics()) {
      GemmInfo g = analyzeMatmul(linalgOp);
      fa.flops = add(fa.flops, add(g.gemmFlops, g.epilogueFlops));
      fa.bytes = add(fa.bytes, g.bytes);
      fa.gemms.push_back(g);
      fa.unraised = true;
      derived.insert(op);
      return WalkResult::skip();
    }
    bool fed = fedByGemm(op);
    if (linalgOp) {
      if (isa<linalg::FillOp>(op))
        return WalkResult::skip();
      Block *body = linalgOp.getBlock();
      unsigned ops = body ? countComputeOps(*body) : 0;
      fa.flops = add(fa.flops, mul(iterations(linalgOp), ops));
      fa.bytes = add(fa.bytes, linalgBytes(linalgOp));
      if (fed)
        derived.insert(op);
      if (linalgOp.getNumReductionLoops() > 0) {
        ++fa.numReductions;
        if (fed)
          ++fa.numGemmReductions;
      } else if (ops > 0) {
        ++fa.numElementwise;
        if (fed) {
          ++fa.numConsumers;
          if (auto generic = dyn_cast<linalg::GenericOp>(op))
            fa.consumerScale |= consumerHasPerChannelScale(generic, derived);
        }
      }
      return WalkResult::skip();
    }
    // Elementwise arith / math ops on tensors.
    if (op->hasTrait<OpTrait::Elementwise>() && op->getNumResults() == 1 &&
        isa<RankedTensorType>(op->getResult(0).getType()) &&
        !op->hasTrait<OpTrait::ConstantLike>()) {
      auto type = cast<RankedTensorType>(op->getResult(0).getType());
      Count elements =
          type.hasStaticShape() ? Count(type.getNumElements()) : std::nullopt;
      fa.flops = add(fa.flops, elements);
      Count bytes = bytesOf(op->getResult(0));
      for (Value v : op->getOperands())
        bytes = add(bytes, bytesOf(v));
      fa.bytes = add(fa.bytes, bytes);
      ++fa.numElementwise;
      if (fed) {
        derived.insert(op);
        ++fa.numConsumers;
      }
      return WalkResult::advance();
    }
    // Shape ops (reshape, extract_slice, ...) pass a GEMM result on.
    if (fed && isPure(op))
      derived.insert(op);
    return WalkResult::advance();
  });
  return fa;
}

StringRef classify(const FunctionAnalysis &fa) {
  if (!fa.gemms.empty()) {
    // A reduction after a GEMM decides the strategy (it must stay out of
    // the GEMM's epilogue), so it wins over elementwise work; the playbook
    // script checks elementwise ops first, which hides that warning's class.
    if (fa.numGemmReductions > 0)
      return "gemm_reduction";
    bool epilogue = llvm::any_of(
        fa.gemms, [](const GemmInfo &g) { return g.epilogueOps > 0; });
    if (epilogue || fa.numConsumers > 0)
      return "gemm_epilogue";
    return "gemm";
  }
  if (fa.numReductions > 0)
    return "reduction";
  if (fa.numElementwise > 0)
    return "elementwise";
  return "none";
}

bool is16Bit(Type t) { return t.isBF16() || t.isF16(); }

/// FLOP per byte at which `target` turns compute bound for `elementType`
/// operands (the 16-bit matrix-engine peak for bf16/f16, else f32).
double ridge(TargetAttr target, bool sixteenBit) {
  double peak =
      sixteenBit ? target.getPeakBf16Gflops() : target.getPeakF32Gflops();
  return peak / static_cast<double>(target.getMemGbps());
}

std::optional<double> intensity(Count flops, Count bytes) {
  if (!flops || !bytes || *bytes == 0)
    return std::nullopt;
  return static_cast<double>(*flops) / static_cast<double>(*bytes);
}

struct AnalyzePass final : xpu::impl::XPUAnalyzePassBase<AnalyzePass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    markAllAnalysesPreserved();
    if (func.isExternal())
      return;
    TargetAttr target = resolveTarget(func);

    FunctionAnalysis fa = analyzeFunction(func);
    StringRef cls = classify(fa);
    Location loc = func.getLoc();
    unsigned epilogueOps = 0;
    for (const GemmInfo &g : fa.gemms)
      epilogueOps += g.epilogueOps;
    remark::analysis(loc, remarkOpts(kPassArg, "Class")) << remark::reason(
        "class {0}: {1} GEMM(s), {2} epilogue op(s) per element, {3} "
        "elementwise op(s) ({4} fed by a GEMM), {5} reduction(s) ({6} fed by "
        "a GEMM)",
        cls, fa.gemms.size(), epilogueOps, fa.numElementwise, fa.numConsumers,
        fa.numReductions, fa.numGemmReductions);

    bool allSixteenBit = !fa.gemms.empty();
    bool anyF32ComputeBound = false, anyF32MemoryBound = false;
    bool anyF64 = false, anyScale = fa.consumerScale;
    for (auto [i, g] : llvm::enumerate(fa.gemms)) {
      bool sixteen = is16Bit(g.elementType);
      allSixteenBit &= sixteen;
      anyF64 |= g.elementType.isF64();
      anyScale |= g.perChannelScale;
      std::string shape =
          llvm::formatv("gemm #{0} ({1}, {2}): b={3} m={4} n={5} k={6}", i,
                        g.op->getName().getStringRef(), g.elementType,
                        fmtDim(g.b), fmtDim(g.m), fmtDim(g.n), fmtDim(g.k))
              .str();
      std::optional<double> ai =
          intensity(add(g.gemmFlops, g.epilogueFlops), g.bytes);
      if (!ai) {
        remark::analysis(loc, remarkOpts(kPassArg, "Gemm")) << remark::reason(
            "{0}: dynamic shape, FLOPs and bytes not computed", shape);
        continue;
      }
      double r = ridge(target, sixteen);
      bool computeBound = *ai >= r;
      if (!sixteen && !g.elementType.isF64()) {
        anyF32ComputeBound |= computeBound;
        anyF32MemoryBound |= !computeBound;
      }
      remark::analysis(loc, remarkOpts(kPassArg, "Gemm")) << remark::reason(
          "{0}: {1} FLOP + {2} epilogue FLOP, {3} bytes, {4:F2} FLOP/byte: "
          "{5} (ridge {6:F2})",
          shape, fmt(g.gemmFlops), fmt(g.epilogueFlops), fmt(g.bytes), *ai,
          computeBound ? "compute-bound" : "memory-bound", r);
    }

    double functionRidge = ridge(target, allSixteenBit);
    std::string ridgeText = llvm::formatv(
        "target {0}: ridge {1:F2} FLOP/byte ({2} {3} GFLOP/s / {4} GB/s)",
        target.getChip(), functionRidge,
        allSixteenBit ? target.getPeakBf16Gflops() : target.getPeakF32Gflops(),
        allSixteenBit ? "bf16" : "f32", target.getMemGbps());
    if (std::optional<double> ai = intensity(fa.flops, fa.bytes)) {
      remark::analysis(loc, remarkOpts(kPassArg, "Roofline")) << remark::reason(
          "{0}; total {1} FLOP, {2} bytes, {3:F2} FLOP/byte: {4}", ridgeText,
          fmt(fa.flops), fmt(fa.bytes), *ai,
          *ai >= functionRidge ? "compute-bound" : "memory-bound");
    } else {
      remark::analysis(loc, remarkOpts(kPassArg, "Roofline")) << remark::reason(
          "{0}; {1}", ridgeText,
          fa.bytes && *fa.bytes == 0
              ? "nothing computed"
              : "dynamic shapes: totals and verdict not computed");
    }

    SmallVector<std::string> recs;
    if (fa.unraised)
      recs.push_back("xpu-raise first (linalg.matmul / batch_matmul left)");
    if (!fa.gemms.empty()) {
      recs.push_back("level_1: xpu-select-strategy (tiling + GROUP_SIZE_M "
                     "swizzle)");
      if (anyF64)
        recs.push_back("level_2: xpu-demote-f64 (f64 GEMM)");
      if (anyF32ComputeBound)
        recs.push_back(llvm::formatv("level_2: xpu-prepack-bf16 (compute-bound "
                                     "f32 GEMM: bf16 peak {0} vs f32 {1} "
                                     "GFLOP/s)",
                                     target.getPeakBf16Gflops(),
                                     target.getPeakF32Gflops())
                           .str());
      else if (anyF32MemoryBound)
        recs.push_back("level_2: xpu-prepack-bf16 (memory-bound f32 GEMM: "
                       "bf16 operands halve its operand bytes)");
      if (anyScale)
        recs.push_back("level_3: xpu-fold-affine-into-weights (per-channel "
                       "scale after the GEMM)");
      if (fa.numGemmReductions > 0)
        recs.push_back("xpu-split-gemm-reduction (a reduction follows the "
                       "GEMM: keep it out of the epilogue)");
      else if (fa.numConsumers > 0)
        recs.push_back("xpu-fuse-epilogue (elementwise consumers of the GEMM)");
    } else if (cls == "reduction") {
      recs.push_back("no GEMM level applies: memory-bound reduction, tile "
                     "several rows per workgroup");
    } else if (cls == "elementwise") {
      recs.push_back("no GEMM level applies: memory-bound, fuse the "
                     "elementwise chain into one kernel");
    } else {
      recs.push_back("nothing to optimize");
    }
    remark::analysis(loc, remarkOpts(kPassArg, "Recommend"))
        << remark::reason("recommend: {0}", llvm::join(recs, "; "));
  }
};
} // namespace
