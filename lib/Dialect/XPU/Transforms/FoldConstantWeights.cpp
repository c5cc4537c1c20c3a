//===- FoldConstantWeights.cpp - weight layouts of constants at compile time //
//
// Weights given as constants (torch-mlir freezes parameters as
// `dense_resource` blobs by default) have no argument for
// xpu-outline-weight-pack to move their layout work into <fn>.pack, and
// upstream folding does not evaluate linalg ops on `dense_resource` data:
// their transposes, 16-bit conversions, pitch padding and epilogue panels
// would run on every call. This pass evaluates those ops at compile time.
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/Transforms/Passes.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUFOLDCONSTANTWEIGHTSPASS
#include "xpu/Dialect/XPU/Transforms/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kPassArg = "xpu-fold-constant-weights";

namespace {

/// The elements of a float tensor constant, as doubles (exact for f64, f32,
/// f16 and bf16 values).
struct Values {
  RankedTensorType type;
  std::vector<double> data;
};

double toDouble(APFloat v) {
  bool lost;
  v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
  return v.convertToDouble();
}

/// `v` (exact in double) in the semantics of `type`.
APFloat fromDouble(double v, FloatType type) {
  APFloat r(v);
  bool lost;
  r.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  return r;
}

/// The values of a `dense` or `dense_resource` float constant; failure with
/// `why` when it is neither or has no data.
FailureOr<Values> readConstant(Value v, std::string &why) {
  Attribute attr;
  if (!matchPattern(v, m_Constant(&attr))) {
    why = "an operand is not a constant";
    return failure();
  }
  auto type = dyn_cast<RankedTensorType>(v.getType());
  auto elt = type ? dyn_cast<FloatType>(type.getElementType()) : FloatType();
  if (!type || !type.hasStaticShape() || !elt) {
    why = "an operand is not a static float tensor";
    return failure();
  }
  Values values{type, {}};
  values.data.reserve(type.getNumElements());
  if (auto dense = dyn_cast<DenseFPElementsAttr>(attr)) {
    for (APFloat x : dense.getValues<APFloat>())
      values.data.push_back(toDouble(x));
    return values;
  }
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    unsigned bytes = elt.getWidth() / 8;
    if (!blob || elt.getWidth() % 8 != 0 ||
        blob->getData().size() != size_t(type.getNumElements()) * bytes) {
      why = "a dense_resource operand has no data of the tensor's size";
      return failure();
    }
    ArrayRef<char> raw = blob->getData();
    for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
      uint64_t bits = 0;
      std::memcpy(&bits, raw.data() + i * bytes, bytes);
      values.data.push_back(toDouble(
          APFloat(elt.getFloatSemantics(), APInt(elt.getWidth(), bits))));
    }
    return values;
  }
  why = "an operand is a constant of another kind";
  return failure();
}

/// Row-major strides of `shape`.
SmallVector<int64_t> getStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = int64_t(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

/// Calls `fn(linear, index)` for every element of `shape`, in order.
void forEachIndex(ArrayRef<int64_t> shape,
                  function_ref<void(int64_t, ArrayRef<int64_t>)> fn) {
  SmallVector<int64_t> index(shape.size(), 0);
  int64_t total = ShapedType::getNumElements(shape);
  for (int64_t linear = 0; linear < total; ++linear) {
    fn(linear, index);
    for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
}

int64_t linearize(ArrayRef<int64_t> index, ArrayRef<int64_t> strides) {
  int64_t l = 0;
  for (auto [i, s] : llvm::zip_equal(index, strides))
    l += i * s;
  return l;
}

/// Evaluates the scalar body of an elementwise linalg.generic.
class BodyEvaluator {
public:
  explicit BodyEvaluator(Block &body) : body(body) {}

  /// Checks that every op of the body can be evaluated.
  LogicalResult check(std::string &why) {
    for (Operation &op : body) {
      bool ok = isa<arith::TruncFOp, arith::ExtFOp, arith::AddFOp,
                    arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::NegFOp,
                    arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
                    arith::MinNumFOp, linalg::YieldOp>(op);
      if (auto cst = dyn_cast<arith::ConstantOp>(op))
        ok = isa<FloatAttr>(cst.getValue());
      for (Value operand : op.getOperands())
        if (Operation *def = operand.getDefiningOp())
          ok &= def->getBlock() == &body;
      if (!ok) {
        why = llvm::formatv("the body has '{0}', which is not evaluated",
                            op.getName().getStringRef());
        return failure();
      }
    }
    return success();
  }

  /// The value the body yields for block arguments `args`.
  double evaluate(ArrayRef<double> args) {
    DenseMap<Value, double> env;
    for (auto [arg, v] : llvm::zip(body.getArguments(), args))
      env[arg] = v;
    for (Operation &op : body) {
      if (auto yield = dyn_cast<linalg::YieldOp>(op))
        return env.lookup(yield.getOperand(0));
      auto type = cast<FloatType>(op.getResult(0).getType());
      auto in = [&](unsigned i) {
        Value v = op.getOperand(i);
        return fromDouble(env.lookup(v), cast<FloatType>(v.getType()));
      };
      APFloat r = llvm::TypeSwitch<Operation *, APFloat>(&op)
                      .Case([&](arith::ConstantOp c) {
                        return cast<FloatAttr>(c.getValue()).getValue();
                      })
                      .Case<arith::TruncFOp, arith::ExtFOp>(
                          [&](Operation *) { return in(0); })
                      .Case([&](arith::NegFOp) { return -in(0); })
                      .Case([&](arith::AddFOp) { return in(0) + in(1); })
                      .Case([&](arith::SubFOp) { return in(0) - in(1); })
                      .Case([&](arith::MulFOp) { return in(0) * in(1); })
                      .Case([&](arith::DivFOp) { return in(0) / in(1); })
                      .Case([&](arith::MaximumFOp) {
                        return llvm::maximum(in(0), in(1));
                      })
                      .Case([&](arith::MinimumFOp) {
                        return llvm::minimum(in(0), in(1));
                      })
                      .Case([&](arith::MaxNumFOp) {
                        return llvm::maxnum(in(0), in(1));
                      })
                      .Case([&](arith::MinNumFOp) {
                        return llvm::minnum(in(0), in(1));
                      });
      // Rounded to the result type, as the op computes.
      bool lost;
      r.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      env[op.getResult(0)] = toDouble(r);
    }
    llvm_unreachable("checked body without a yield");
  }

private:
  Block &body;
};

struct FoldConstantWeightsPass final
    : xpu::impl::XPUFoldConstantWeightsPassBase<FoldConstantWeightsPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// The result of `op` when it can be evaluated; failure with `why`.
  FailureOr<Values> evaluate(Operation *op, std::string &why);
};

/// The ops this pass evaluates.
bool isCandidate(Operation *op) {
  return isa<linalg::TransposeOp, linalg::BroadcastOp, linalg::GenericOp,
             linalg::PackOp, tensor::PadOp>(op);
}

/// The inputs of a candidate (the values it reads; inits it overwrites are
/// not read).
SmallVector<Value> getInputs(Operation *op) {
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    return {pad.getSource()};
  if (auto pack = dyn_cast<linalg::PackOp>(op))
    return {pack.getSource()};
  return llvm::to_vector(cast<linalg::LinalgOp>(op).getDpsInputs());
}

FailureOr<Values> FoldConstantWeightsPass::evaluate(Operation *op,
                                                    std::string &why) {
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (op->getNumResults() != 1 || !resultType || !resultType.hasStaticShape() ||
      !isa<FloatType>(resultType.getElementType())) {
    why = "the result is not one static float tensor";
    return failure();
  }
  if (resultType.getNumElements() > maxElements) {
    why = llvm::formatv("the result has {0} elements, more than max-elements "
                        "({1})",
                        resultType.getNumElements(), maxElements);
    return failure();
  }
  SmallVector<Values> inputs;
  for (Value v : getInputs(op)) {
    FailureOr<Values> in = readConstant(v, why);
    if (failed(in))
      return failure();
    inputs.push_back(std::move(*in));
  }
  ArrayRef<int64_t> shape = resultType.getShape();
  Values out{resultType, std::vector<double>(resultType.getNumElements())};

  if (auto transpose = dyn_cast<linalg::TransposeOp>(op)) {
    // out[i] = in[j] with j[perm[d]] = i[d].
    ArrayRef<int64_t> perm = transpose.getPermutation();
    SmallVector<int64_t> strides = getStrides(inputs[0].type.getShape());
    SmallVector<int64_t> j(shape.size());
    forEachIndex(shape, [&](int64_t linear, ArrayRef<int64_t> i) {
      for (size_t d = 0; d < shape.size(); ++d)
        j[perm[d]] = i[d];
      out.data[linear] = inputs[0].data[linearize(j, strides)];
    });
    return out;
  }
  if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op)) {
    ArrayRef<int64_t> added = broadcast.getDimensions();
    SmallVector<int64_t> strides = getStrides(inputs[0].type.getShape());
    SmallVector<int64_t> j;
    forEachIndex(shape, [&](int64_t linear, ArrayRef<int64_t> i) {
      j.clear();
      for (size_t d = 0; d < shape.size(); ++d)
        if (!llvm::is_contained(added, int64_t(d)))
          j.push_back(i[d]);
      out.data[linear] = inputs[0].data[linearize(j, strides)];
    });
    return out;
  }
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    Value padValue = pad.getConstantPaddingValue();
    FloatAttr padAttr;
    if (!padValue || !matchPattern(padValue, m_Constant(&padAttr)) ||
        !pad.getLow().empty() || !pad.getHigh().empty()) {
      why = "the padding is not static with a constant value";
      return failure();
    }
    double fill = toDouble(padAttr.getValue());
    ArrayRef<int64_t> low = pad.getStaticLow();
    ArrayRef<int64_t> inShape = inputs[0].type.getShape();
    SmallVector<int64_t> strides = getStrides(inShape);
    SmallVector<int64_t> j(shape.size());
    forEachIndex(shape, [&](int64_t linear, ArrayRef<int64_t> i) {
      bool inside = true;
      for (size_t d = 0; d < shape.size(); ++d) {
        j[d] = i[d] - low[d];
        inside &= j[d] >= 0 && j[d] < inShape[d];
      }
      out.data[linear] = inside ? inputs[0].data[linearize(j, strides)] : fill;
    });
    return out;
  }
  if (auto pack = dyn_cast<linalg::PackOp>(op)) {
    // The CPU micro-kernel's panels: result [outer (permuted)..., tiles...];
    // source dim d = inner_dims_pos[k] is outer[d] * tile[k] + inner[k].
    ArrayRef<int64_t> tiles = pack.getStaticInnerTiles();
    ArrayRef<int64_t> dimsPos = pack.getInnerDimsPos();
    ArrayRef<int64_t> outerPerm = pack.getOuterDimsPerm();
    double fill = 0;
    FloatAttr padAttr;
    if (Value padValue = pack.getPaddingValue()) {
      if (!matchPattern(padValue, m_Constant(&padAttr))) {
        why = "the padding value is not a constant";
        return failure();
      }
      fill = toDouble(padAttr.getValue());
    }
    if (llvm::any_of(tiles, ShapedType::isDynamic)) {
      why = "the inner tiles are not static";
      return failure();
    }
    ArrayRef<int64_t> inShape = inputs[0].type.getShape();
    size_t rank = inShape.size();
    SmallVector<int64_t> strides = getStrides(inShape);
    SmallVector<int64_t> outer(rank), j(rank);
    bool padded = false;
    forEachIndex(shape, [&](int64_t linear, ArrayRef<int64_t> i) {
      for (size_t d = 0; d < rank; ++d)
        outer[outerPerm.empty() ? d : outerPerm[d]] = i[d];
      j.assign(outer.begin(), outer.end());
      for (auto [k, d] : llvm::enumerate(dimsPos))
        j[d] = outer[d] * tiles[k] + i[rank + k];
      bool inside = true;
      for (size_t d = 0; d < rank; ++d)
        inside &= j[d] < inShape[d];
      padded |= !inside;
      out.data[linear] = inside ? inputs[0].data[linearize(j, strides)] : fill;
    });
    if (padded && !padAttr) {
      why = "the tiles pad the source, but the pack has no padding value";
      return failure();
    }
    return out;
  }
  auto generic = cast<linalg::GenericOp>(op);
  if (generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      !generic.getIndexingMapsArray().back().isIdentity() ||
      llvm::any_of(generic.getIndexingMapsArray(),
                   [](AffineMap m) { return !m.isProjectedPermutation(); }) ||
      !generic.getRegionOutputArgs()[0].use_empty()) {
    why = "it is not an elementwise generic (parallel loops, projected "
          "permutation maps, identity output map, output not read)";
    return failure();
  }
  BodyEvaluator body(*generic.getBlock());
  if (failed(body.check(why)))
    return failure();
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  SmallVector<SmallVector<int64_t>> strides;
  for (const Values &in : inputs)
    strides.push_back(getStrides(in.type.getShape()));
  SmallVector<double> args(inputs.size() + 1, 0.0);
  SmallVector<int64_t> j;
  forEachIndex(shape, [&](int64_t linear, ArrayRef<int64_t> i) {
    for (auto [k, in] : llvm::enumerate(inputs)) {
      j.clear();
      for (AffineExpr e : maps[k].getResults())
        j.push_back(i[cast<AffineDimExpr>(e).getPosition()]);
      args[k] = in.data[linearize(j, strides[k])];
    }
    out.data[linear] = body.evaluate(args);
  });
  return out;
}

/// A `dense` constant of `values`, rounded to the element type.
DenseElementsAttr toAttr(const Values &values) {
  auto elt = cast<FloatType>(values.type.getElementType());
  unsigned bytes = elt.getWidth() / 8;
  bool splat = llvm::all_equal(values.data);
  size_t count = splat ? 1 : values.data.size();
  std::vector<char> raw(count * bytes);
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits =
        fromDouble(values.data[i], elt).bitcastToAPInt().getZExtValue();
    std::memcpy(raw.data() + i * bytes, &bits, bytes);
  }
  return DenseElementsAttr::getFromRawBuffer(values.type, raw);
}

void FoldConstantWeightsPass::runOnOperation() {
  func::FuncOp func = getOperation();
  SmallVector<Operation *> candidates;
  func.walk([&](Operation *op) {
    if (isCandidate(op))
      candidates.push_back(op);
  });
  // In order: a chain (convert, then transpose, then pad) folds link by link.
  for (Operation *op : candidates) {
    SmallVector<Value> inputs = getInputs(op);
    if (inputs.empty() || llvm::any_of(inputs, [](Value v) {
          return !matchPattern(v, m_Constant());
        }))
      continue;
    std::string why;
    FailureOr<Values> result = evaluate(op, why);
    if (failed(result)) {
      remark::missed(op->getLoc(), remarkOpts(kPassArg, "NotFolded"))
          << remark::reason("'{0}' on constant weights is not folded: {1}",
                            op->getName().getStringRef(), why);
      continue;
    }
    OpBuilder b(op);
    auto cst = arith::ConstantOp::create(b, op->getLoc(), toAttr(*result));
    remark::passed(op->getLoc(), remarkOpts(kPassArg, "Folded"))
        << remark::reason("'{0}' on constant weights folded at compile time "
                          "into a {1} constant",
                          op->getName().getStringRef(),
                          llvm::join(llvm::map_range(result->type.getShape(),
                                                     [](int64_t d) {
                                                       return std::to_string(d);
                                                     }),
                                     "x"));
    op->getResult(0).replaceAllUsesWith(cst.getResult());
    op->erase();
    ++numFolded;
  }
}

} // namespace
