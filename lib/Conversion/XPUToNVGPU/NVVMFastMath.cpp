//===- NVVMFastMath.cpp - approximate f32 transcendentals in NVVM kernels -===//
//
// f32 math in the kernels of a gpu.module becomes PTX's approximate
// instructions (ex2.approx, lg2.approx, tanh.approx, div.full) instead of
// libdevice's correctly rounded functions, within the accuracy budget of a
// bf16 GEMM (docs/NVIDIA.md, "Fast math").
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUNVVMFASTMATHPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

static constexpr StringLiteral kPassArg = "xpu-nvvm-fast-math";

/// The ops the pass knows, by the names of its `functions` option.
static constexpr StringLiteral kFunctions[] = {"exp",   "exp2", "log", "log2",
                                               "log1p", "tanh", "erf", "divf"};

/// The first chip with tanh.approx.f32.
static constexpr int64_t kTanhApproxSm = 75;

namespace {
/// Builds the approximations at one op: f32 scalars, or 1-D vectors of f32
/// whose scalar-only intrinsics are applied lane by lane.
class FastMathBuilder {
public:
  FastMathBuilder(RewriterBase &rewriter, Location loc, Type type)
      : b(rewriter), loc(loc), type(type) {}

  Value constant(double value) {
    auto attr = b.getF32FloatAttr(static_cast<float>(value));
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(vector, ArrayRef<Attribute>{attr}));
    return arith::ConstantOp::create(b, loc, attr);
  }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  Value fma(Value x, Value y, Value z) {
    return math::FmaOp::create(b, loc, x, y, z);
  }

  /// ex2.approx.f32 (convert-gpu-to-nvvm refuses llvm.exp2).
  Value ex2(Value x) { return intrinsic("llvm.nvvm.ex2.approx.f32", {x}); }
  /// tanh.approx.f32 (llvm.tanh with `afn`).
  Value tanh(Value x) {
    return LLVM::TanhOp::create(b, loc, type, x, approxFlags());
  }
  /// lg2.approx.f32.
  Value lg2(Value x) { return intrinsic("llvm.nvvm.lg2.approx.f", {x}); }
  /// div.full.f32: 2 ulp over the full range.
  Value div(Value x, Value y) {
    return intrinsic("llvm.nvvm.div.full", {x, y});
  }

private:
  LLVM::FastmathFlagsAttr approxFlags() {
    return LLVM::FastmathFlagsAttr::get(b.getContext(),
                                        LLVM::FastmathFlags::afn);
  }

  /// A call of the scalar f32 intrinsic `name`, lane by lane on vectors.
  Value intrinsic(StringRef name, ArrayRef<Value> args) {
    StringAttr intrin = b.getStringAttr(name);
    Type f32 = b.getF32Type();
    auto vector = dyn_cast<VectorType>(type);
    if (!vector)
      return LLVM::CallIntrinsicOp::create(b, loc, f32, intrin, args)
          .getResult(0);
    Value result = ub::PoisonOp::create(b, loc, vector);
    for (int64_t lane = 0, e = vector.getNumElements(); lane < e; ++lane) {
      SmallVector<Value> lanes;
      for (Value arg : args)
        lanes.push_back(vector::ExtractOp::create(b, loc, arg, lane));
      Value value = LLVM::CallIntrinsicOp::create(b, loc, f32, intrin, lanes)
                        .getResult(0);
      result = vector::InsertOp::create(b, loc, value, result, lane);
    }
    return result;
  }

  RewriterBase &b;
  Location loc;
  Type type;
};
} // namespace

/// f32, or a fixed 1-D vector of f32.
static bool isApproximable(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getRank() == 1 && !vector.isScalable() &&
           vector.getElementType().isF32();
  return type.isF32();
}

/// Below this |u|, ln(1 + u) comes from its Taylor polynomial: lg2.approx's
/// absolute error (about 2^-22) would be a large relative error of a result
/// that small.
static constexpr double kLog1pSeriesBound = 0x1p-5;

/// ln(1 + u) for |u| < kLog1pSeriesBound: u - u^2/2 + ... - u^6/6 (the
/// first term left out is below 2^-30 |u| / 7).
static Value buildLog1pSeries(FastMathBuilder &fm, Value u) {
  Value poly = fm.constant(-1.0 / 6);
  for (int i = 5; i >= 1; --i)
    poly = fm.fma(poly, u, fm.constant((i % 2 ? 1.0 : -1.0) / i));
  return fm.mul(poly, u);
}

/// ln(1 + u) (log2(1 + u) if `base2`) given w = 1 + u, exact when u is the
/// difference x - 1 of an x near 1: the series near 0, else lg2.approx(w)
/// (times ln(2)).
static Value buildLogOfOnePlus(RewriterBase &rewriter, FastMathBuilder &fm,
                               Location loc, Value u, Value w,
                               bool base2 = false) {
  Value viaLg2 = fm.lg2(w);
  Value series = buildLog1pSeries(fm, u);
  if (base2)
    series = fm.mul(series, fm.constant(llvm::numbers::log2e));
  else
    viaLg2 = fm.mul(viaLg2, fm.constant(llvm::numbers::ln2));
  Value small = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT,
                                      math::AbsFOp::create(rewriter, loc, u),
                                      fm.constant(kLog1pSeriesBound));
  return arith::SelectOp::create(rewriter, loc, small, series, viaLg2);
}

/// erf(x) = sign(x) (1 - p(t) exp(-x^2)), t = 1 / (1 + 0.3275911 |x|), with
/// the degree-5 polynomial p of Abramowitz and Stegun's 7.1.26 (absolute
/// error below 1.5e-7 in exact arithmetic).
static Value buildErf(RewriterBase &rewriter, FastMathBuilder &fm, Location loc,
                      Value x) {
  static constexpr double kP = 0.3275911;
  static constexpr double kA[] = {0.254829592, -0.284496736, 1.421413741,
                                  -1.453152027, 1.061405429};
  Value one = fm.constant(1.0);
  Value ax = math::AbsFOp::create(rewriter, loc, x);
  // t rounded correctly (div.rn): p(t) is close to 1 for small |x|, where
  // 1 - p(t) exp(-x^2) cancels, and div.full's 2 ulp on t would take the
  // result outside the budget there.
  Value t = arith::DivFOp::create(rewriter, loc, one,
                                  fm.fma(fm.constant(kP), ax, one));
  Value poly = fm.constant(kA[4]);
  for (int i = 3; i >= 0; --i)
    poly = fm.fma(poly, t, fm.constant(kA[i]));
  poly = fm.mul(poly, t);
  Value minusSquare =
      fm.mul(fm.mul(ax, ax), fm.constant(-llvm::numbers::log2e));
  Value y = fm.sub(one, fm.mul(poly, fm.ex2(minusSquare)));
  return math::CopySignOp::create(rewriter, loc, y, x);
}

/// The approximation of `op` (one of kFunctions), or null.
static Value approximate(RewriterBase &rewriter, Operation *op) {
  Location loc = op->getLoc();
  Value x = op->getOperand(0);
  FastMathBuilder fm(rewriter, loc, x.getType());
  return TypeSwitch<Operation *, Value>(op)
      .Case([&](math::ExpOp) {
        return fm.ex2(fm.mul(x, fm.constant(llvm::numbers::log2e)));
      })
      .Case([&](math::Exp2Op) { return fm.ex2(x); })
      .Case([&](math::LogOp) {
        return buildLogOfOnePlus(rewriter, fm, loc, fm.sub(x, fm.constant(1.0)),
                                 x);
      })
      .Case([&](math::Log2Op) {
        return buildLogOfOnePlus(rewriter, fm, loc, fm.sub(x, fm.constant(1.0)),
                                 x,
                                 /*base2=*/true);
      })
      .Case([&](math::Log1pOp) {
        return buildLogOfOnePlus(rewriter, fm, loc, x,
                                 fm.add(x, fm.constant(1.0)));
      })
      .Case([&](math::TanhOp) { return fm.tanh(x); })
      .Case([&](math::ErfOp) { return buildErf(rewriter, fm, loc, x); })
      .Case([&](arith::DivFOp div) { return fm.div(x, div.getRhs()); })
      .Default([](Operation *) { return Value(); });
}

/// The `functions` name of `op`, or "".
static StringRef getFunctionName(Operation *op) {
  if (isa<arith::DivFOp>(op))
    return "divf";
  StringRef name = op->getName().getStringRef();
  if (!name.consume_front("math."))
    return "";
  return name;
}

/// The SM version of the module's NVVM target (sm_90a: 90), or nullopt.
static std::optional<int64_t> getTargetSm(gpu::GPUModuleOp module) {
  ArrayAttr targets = module.getTargetsAttr();
  if (!targets)
    return std::nullopt;
  for (Attribute target : targets) {
    auto nvvm = dyn_cast<NVVM::NVVMTargetAttr>(target);
    if (!nvvm)
      continue;
    StringRef chip = nvvm.getChip();
    int64_t sm = 0;
    if (chip.consume_front("sm_") && !chip.consumeInteger(10, sm))
      return sm;
  }
  return std::nullopt;
}

namespace {
struct NVVMFastMathPass final
    : xpu::impl::XPUNVVMFastMathPassBase<NVVMFastMathPass> {
  using Base::Base;

  void runOnOperation() override {
    gpu::GPUModuleOp module = getOperation();
    llvm::StringSet<> selected;
    for (const std::string &name : functions) {
      if (!llvm::is_contained(kFunctions, StringRef(name))) {
        InFlightDiagnostic diag = module.emitError()
                                  << kPassArg << ": no approximation of '"
                                  << name << "'; known: ";
        llvm::interleaveComma(kFunctions, diag);
        return signalPassFailure();
      }
      selected.insert(name);
    }
    if (functions.empty())
      for (StringRef name : kFunctions)
        selected.insert(name);
    // tanh.approx.f32 needs sm_75; a module for an older chip keeps
    // libdevice's tanh.
    std::optional<int64_t> sm = getTargetSm(module);
    if (sm && *sm < kTanhApproxSm)
      selected.erase("tanh");

    IRRewriter rewriter(&getContext());
    for (Operation &symbol : module.getBody()->getOperations()) {
      if (!isa<FunctionOpInterface>(symbol))
        continue;
      // Collected first: the approximations build ops (erf's division)
      // that must stay as built.
      SmallVector<Operation *> ops;
      symbol.walk([&](Operation *op) {
        StringRef name = getFunctionName(op);
        if (!name.empty() && selected.contains(name) &&
            op->getNumResults() == 1 &&
            isApproximable(op->getResult(0).getType()))
          ops.push_back(op);
      });
      llvm::MapVector<StringRef, int64_t> counts;
      for (Operation *op : ops) {
        StringRef name = getFunctionName(op);
        rewriter.setInsertionPoint(op);
        Value replacement = approximate(rewriter, op);
        if (!replacement)
          continue;
        rewriter.replaceOp(op, replacement);
        ++counts[name];
      }
      if (counts.empty())
        continue;
      std::string list;
      int64_t total = 0;
      for (auto [name, count] : counts) {
        list +=
            llvm::formatv("{0}{1} x{2}", list.empty() ? "" : ", ", name, count);
        total += count;
      }
      numApproximated += total;
      remark::passed(symbol.getLoc(), xpu::remarkOpts(kPassArg, "FastMath"))
          << remark::reason(
                 "{0}: {1} f32 op(s) on approximate instructions ({2}); "
                 "accuracy budget 2^-10 |f(x)| + 2^-20",
                 cast<SymbolOpInterface>(symbol).getName(), total, list);
    }
  }
};
} // namespace
