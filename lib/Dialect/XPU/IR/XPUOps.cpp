//===- XPUOps.cpp - xpu.gemm: syntax, verifier, canonicalization ---------===//

#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Utils/SizeArithmetic.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::xpu;

//===----------------------------------------------------------------------===//
// GemmOp: builders and helpers
//===----------------------------------------------------------------------===//

static ArrayAttr getBroadcastArray(MLIRContext *ctx,
                                   ArrayRef<BroadcastKind> kinds) {
  SmallVector<Attribute> attrs;
  for (BroadcastKind k : kinds)
    attrs.push_back(BroadcastKindAttr::get(ctx, k));
  return ArrayAttr::get(ctx, attrs);
}

void GemmOp::build(OpBuilder &builder, OperationState &state, Value lhs,
                   Value rhs, RhsLayout rhsLayout, Type accType,
                   RankedTensorType resultType, ValueRange epilogueOperands,
                   ArrayRef<BroadcastKind> kinds) {
  MLIRContext *ctx = builder.getContext();
  state.addOperands({lhs, rhs});
  state.addOperands(epilogueOperands);
  state.addAttribute(getRhsLayoutAttrName(state.name),
                     RhsLayoutAttr::get(ctx, rhsLayout));
  state.addAttribute(getAccTypeAttrName(state.name), TypeAttr::get(accType));
  state.addAttribute(getBroadcastsAttrName(state.name),
                     getBroadcastArray(ctx, kinds));
  state.addTypes(resultType);
  Region *region = state.addRegion();
  Block *block = new Block();
  region->push_back(block);
  block->addArgument(accType, state.location);
  for (Value v : epilogueOperands)
    block->addArgument(cast<ShapedType>(v.getType()).getElementType(),
                       state.location);
}

void GemmOp::build(OpBuilder &builder, OperationState &state, Value lhs,
                   Value rhs, RhsLayout rhsLayout, Type accType,
                   RankedTensorType resultType) {
  build(builder, state, lhs, rhs, rhsLayout, accType, resultType, ValueRange(),
        {});
  Block &block = state.regions.front()->front();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&block);
  YieldOp::create(builder, state.location, block.getArgument(0));
}

BroadcastKind GemmOp::getBroadcastKind(unsigned i) {
  return cast<BroadcastKindAttr>(getBroadcasts()[i]).getValue();
}

bool GemmOp::hasIdentityEpilogue() {
  Block &block = getEpilogueBlock();
  if (block.getNumArguments() != 1 || !llvm::hasSingleElement(block))
    return false;
  auto yield = dyn_cast<YieldOp>(block.front());
  return yield && yield.getValue() == block.getArgument(0);
}

void GemmOp::inheritAttributes(GemmOp other) {
  setConfigAttr(other.getConfigAttr());
  (*this)->setDiscardableAttrs(other->getDiscardableAttrDictionary());
}

//===----------------------------------------------------------------------===//
// GemmOp: custom syntax
//
//   xpu.gemm %lhs, %rhs rhs_layout(nk) acc(f32)
//       [epilogue[(%e per_col : tensor<Nxf32>, ...)] { ^bb0(...): ... }]
//       [attr-dict] : (lhs-type, rhs-type) -> result-type
//===----------------------------------------------------------------------===//

ParseResult GemmOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *ctx = parser.getContext();
  OpAsmParser::UnresolvedOperand lhs, rhs;
  std::string layoutName;
  Type accType;
  SMLoc layoutLoc;
  if (parser.parseOperand(lhs) || parser.parseComma() ||
      parser.parseOperand(rhs) || parser.parseKeyword("rhs_layout") ||
      parser.parseLParen())
    return failure();
  layoutLoc = parser.getCurrentLocation();
  if (parser.parseKeywordOrString(&layoutName) || parser.parseRParen())
    return failure();
  std::optional<RhsLayout> layout = symbolizeRhsLayout(layoutName);
  if (!layout)
    return parser.emitError(layoutLoc)
           << "expected rhs layout 'kn' or 'nk', got '" << layoutName << "'";
  if (parser.parseKeyword("acc") || parser.parseLParen() ||
      parser.parseType(accType) || parser.parseRParen())
    return failure();

  SmallVector<OpAsmParser::UnresolvedOperand> epiOperands;
  SmallVector<Type> epiTypes;
  SmallVector<BroadcastKind> kinds;
  Region *region = result.addRegion();
  bool hasEpilogue = succeeded(parser.parseOptionalKeyword("epilogue"));
  if (hasEpilogue) {
    if (succeeded(parser.parseOptionalLParen()) &&
        failed(parser.parseOptionalRParen())) {
      do {
        OpAsmParser::UnresolvedOperand operand;
        std::string kindName;
        Type type;
        if (parser.parseOperand(operand))
          return failure();
        SMLoc kindLoc = parser.getCurrentLocation();
        if (parser.parseKeywordOrString(&kindName))
          return failure();
        std::optional<BroadcastKind> kind = symbolizeBroadcastKind(kindName);
        if (!kind)
          return parser.emitError(kindLoc)
                 << "expected broadcast kind 'scalar', 'per_row', 'per_col' "
                    "or 'full', got '"
                 << kindName << "'";
        if (parser.parseColonType(type))
          return failure();
        epiOperands.push_back(operand);
        epiTypes.push_back(type);
        kinds.push_back(*kind);
      } while (succeeded(parser.parseOptionalComma()));
      if (parser.parseRParen())
        return failure();
    }
    if (parser.parseRegion(*region, /*arguments=*/{}))
      return failure();
  }

  SmallVector<Type> operandTypes;
  Type resultType;
  SMLoc typesLoc;
  if (parser.parseOptionalAttrDict(result.attributes) || parser.parseColon())
    return failure();
  typesLoc = parser.getCurrentLocation();
  if (parser.parseLParen() || parser.parseTypeList(operandTypes) ||
      parser.parseRParen() || parser.parseArrow() ||
      parser.parseType(resultType))
    return failure();
  if (operandTypes.size() != 2)
    return parser.emitError(typesLoc)
           << "expected the types of lhs and rhs, got " << operandTypes.size()
           << " types";
  if (parser.resolveOperand(lhs, operandTypes[0], result.operands) ||
      parser.resolveOperand(rhs, operandTypes[1], result.operands) ||
      parser.resolveOperands(epiOperands, epiTypes, parser.getNameLoc(),
                             result.operands))
    return failure();

  if (!hasEpilogue) {
    // The identity epilogue: yield the accumulator.
    Block *block = new Block();
    region->push_back(block);
    BlockArgument acc = block->addArgument(accType, result.location);
    OpBuilder builder(ctx);
    builder.setInsertionPointToEnd(block);
    YieldOp::create(builder, result.location, acc);
  }

  result.addAttribute(GemmOp::getRhsLayoutAttrName(result.name),
                      RhsLayoutAttr::get(ctx, *layout));
  result.addAttribute(GemmOp::getAccTypeAttrName(result.name),
                      TypeAttr::get(accType));
  result.addAttribute(GemmOp::getBroadcastsAttrName(result.name),
                      getBroadcastArray(ctx, kinds));
  result.addTypes(resultType);
  return success();
}

void GemmOp::print(OpAsmPrinter &p) {
  p << " " << getLhs() << ", " << getRhs() << " rhs_layout("
    << stringifyRhsLayout(getRhsLayout()) << ") acc(" << getAccType() << ")";
  if (!getEpilogueOperands().empty() || !hasIdentityEpilogue()) {
    p << " epilogue";
    if (!getEpilogueOperands().empty()) {
      p << "(";
      llvm::interleaveComma(
          llvm::enumerate(getEpilogueOperands()), p, [&](auto it) {
            p << it.value() << " "
              << stringifyBroadcastKind(getBroadcastKind(it.index())) << " : "
              << it.value().getType();
          });
      p << ")";
    }
    p << " ";
    p.printRegion(getEpilogue(), /*printEntryBlockArgs=*/true,
                  /*printBlockTerminators=*/true);
  }
  p.printOptionalAttrDict(
      (*this)->getAttrs(),
      {getRhsLayoutAttrName(), getAccTypeAttrName(), getBroadcastsAttrName()});
  p << " : (" << getLhs().getType() << ", " << getRhs().getType() << ") -> "
    << getResult().getType();
}

bool GemmOp::isValidAccumulatorType(Type operand, Type acc) {
  if (operand == acc)
    return true;
  auto operandFloat = dyn_cast<FloatType>(operand);
  auto accFloat = dyn_cast<FloatType>(acc);
  return operandFloat && accFloat &&
         accFloat.getWidth() > operandFloat.getWidth();
}

std::string GemmOp::checkSizeLimits(ArrayRef<RankedTensorType> types,
                                    ArrayRef<StringRef> what) {
  for (auto [type, name] : llvm::zip_equal(types, what)) {
    // A dynamic dimension counts as 1 here: its size is checked where it
    // is known, at run time.
    SmallVector<int64_t> shape =
        llvm::map_to_vector(type.getShape(), [](int64_t d) {
          return ShapedType::isDynamic(d) ? 1 : d;
        });
    for (auto [i, d] : llvm::enumerate(shape))
      if (d == 0)
        return llvm::formatv("{0} dimension {1} of '{2}' is 0: xpu.gemm takes "
                             "no zero-size dimensions",
                             name, i, type)
            .str();
    if (!type.getElementType().isIntOrFloat())
      continue;
    int64_t bytes = satMul(
        satProduct(shape),
        llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8));
    if (bytes > kMaxTensorBytes)
      return llvm::formatv("{0} '{1}' holds {2} bytes, more than the 2^48 an "
                           "xpu.gemm tensor may hold",
                           name, type,
                           isSaturated(bytes) ? std::string("over 2^63")
                                              : std::to_string(bytes))
          .str();
  }
  return "";
}

//===----------------------------------------------------------------------===//
// GemmOp: verifier
//===----------------------------------------------------------------------===//

/// Checks that the dimensions of `type` are static except those in
/// `dynamicDims` (the batch and m dimensions).
static LogicalResult verifyStaticExcept(GemmOp op, RankedTensorType type,
                                        StringRef what,
                                        ArrayRef<int64_t> dynamicDims) {
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    if (ShapedType::isDynamic(d) &&
        !llvm::is_contained(dynamicDims, static_cast<int64_t>(i)))
      return op.emitOpError()
             << "dynamic shapes are supported in the batch and m dimensions "
                "only: "
             << what << " dimension " << i << " of " << type << " is dynamic";
  return success();
}

/// Two sizes of one dimension agree: equal, or one of them dynamic.
static bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

SmallVector<OpFoldResult> GemmOp::getMixedResultSizes(OpBuilder &b,
                                                      Location loc) {
  SmallVector<OpFoldResult> sizes;
  for (auto [i, d] : llvm::enumerate(getResultType().getShape())) {
    if (!ShapedType::isDynamic(d)) {
      sizes.push_back(b.getIndexAttr(d));
      continue;
    }
    // Only the batch and m dimensions may be dynamic (the verifier says
    // so): they are those of the lhs.
    sizes.push_back(
        tensor::DimOp::create(b, loc, getLhs(), static_cast<int64_t>(i))
            .getResult());
  }
  return sizes;
}

LogicalResult GemmOp::verify() {
  RankedTensorType lhsType = getLhsType(), rhsType = getRhsType(),
                   resType = getResultType();
  int64_t rank = lhsType.getRank();
  if (rank != 2 && rank != 3)
    return emitOpError() << "lhs must be a rank-2 [m, k] or rank-3 [b, m, k] "
                            "tensor, got rank "
                         << rank;
  if (rhsType.getRank() != rank)
    return emitOpError() << "rhs rank (" << rhsType.getRank()
                         << ") must match lhs rank (" << rank << ")";
  if (resType.getRank() != rank)
    return emitOpError() << "result rank (" << resType.getRank()
                         << ") must match lhs rank (" << rank << ")";
  // [b?, m]: the dimensions that may be dynamic in the lhs and the result;
  // the rhs (a weight) only in its batch dimension.
  SmallVector<int64_t> rows = {rank - 2};
  SmallVector<int64_t> batch;
  if (rank == 3) {
    rows.insert(rows.begin(), 0);
    batch.push_back(0);
  }
  if (failed(verifyStaticExcept(*this, lhsType, "lhs", rows)) ||
      failed(verifyStaticExcept(*this, rhsType, "rhs", batch)) ||
      failed(verifyStaticExcept(*this, resType, "result", rows)))
    return failure();

  Type lhsElt = lhsType.getElementType(), rhsElt = rhsType.getElementType();
  if (!isa<FloatType>(lhsElt) || !isa<FloatType>(rhsElt))
    return emitOpError() << "lhs and rhs must have float elements, got "
                         << lhsElt << " and " << rhsElt;
  if (lhsElt != rhsElt)
    return emitOpError() << "lhs and rhs element types differ: " << lhsElt
                         << " vs " << rhsElt;
  auto accType = dyn_cast<FloatType>(getAccType());
  if (!accType)
    return emitOpError() << "accumulator type must be a float type, got "
                         << getAccType();
  if (!isValidAccumulatorType(lhsElt, accType))
    return emitOpError() << "accumulator type " << accType
                         << " cannot hold every value of the operand type "
                         << lhsElt
                         << " (it must be the same type or a wider float)";
  if (!isa<FloatType>(resType.getElementType()))
    return emitOpError() << "result must have float elements, got "
                         << resType.getElementType();

  // Shapes: lhs [b, m, k], rhs [b, k, n] (kn) or [b, n, k] (nk),
  // result [b, m, n].
  ArrayRef<int64_t> l = lhsType.getShape(), r = rhsType.getShape(),
                    o = resType.getShape();
  unsigned b = rank - 2;
  auto str = [](int64_t d) {
    return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
  };
  if (rank == 3 && (l[0] != o[0] || !compatible(l[0], r[0])))
    return emitOpError() << "batch sizes differ: lhs " << str(l[0]) << ", rhs "
                         << str(r[0]) << ", result " << str(o[0]);
  bool nk = getRhsLayout() == RhsLayout::nk;
  int64_t m = l[b], k = l[b + 1];
  int64_t rk = nk ? r[b + 1] : r[b], rn = nk ? r[b] : r[b + 1];
  if (rk != k)
    return emitOpError() << "contraction sizes differ: lhs has k = " << k
                         << ", rhs (" << stringifyRhsLayout(getRhsLayout())
                         << ") has k = " << rk;
  if (o[b] != m || o[b + 1] != rn)
    return emitOpError() << "result shape " << resType
                         << " does not match [m, n] = [" << str(m) << ", " << rn
                         << "]";

  // Epilogue operands against their broadcast kinds.
  if (getBroadcasts().size() != getEpilogueOperands().size())
    return emitOpError() << "has " << getEpilogueOperands().size()
                         << " epilogue operands but " << getBroadcasts().size()
                         << " broadcast kinds";
  for (auto [i, v] : llvm::enumerate(getEpilogueOperands())) {
    auto type = cast<RankedTensorType>(v.getType());
    if (!type.getElementType().isIntOrFloat())
      return emitOpError() << "epilogue operand #" << i
                           << " must have integer or float elements";
    BroadcastKind kind = getBroadcastKind(i);
    SmallVector<int64_t> expected;
    switch (kind) {
    case BroadcastKind::scalar:
      break;
    case BroadcastKind::per_row:
      expected = {m};
      break;
    case BroadcastKind::per_col:
      expected = {rn};
      break;
    case BroadcastKind::full:
      expected.assign(o.begin(), o.end());
      break;
    }
    // A dynamic dimension of the result is dynamic in the operand too: the
    // operand's size is then the result's, whatever it is at run time.
    if (type.getShape() != ArrayRef<int64_t>(expected)) {
      InFlightDiagnostic diag = emitOpError()
                                << "epilogue operand #" << i << " is "
                                << stringifyBroadcastKind(kind)
                                << " and must have shape [";
      llvm::interleaveComma(llvm::map_range(expected, str), diag);
      return diag << "], got " << type;
    }
  }

  // Limits of the lowerings, once the shapes are known to be consistent.
  SmallVector<RankedTensorType> types = {lhsType, rhsType, resType};
  SmallVector<StringRef> names = {"lhs", "rhs", "result"};
  for (Value v : getEpilogueOperands()) {
    types.push_back(cast<RankedTensorType>(v.getType()));
    names.push_back("epilogue operand");
  }
  std::string limit = checkSizeLimits(types, names);
  if (!limit.empty())
    return emitOpError() << limit;
  return success();
}

LogicalResult GemmOp::verifyRegions() {
  Block &block = getEpilogueBlock();
  unsigned numExpected = getEpilogueOperands().size() + 1;
  if (block.getNumArguments() != numExpected)
    return emitOpError() << "epilogue block must have " << numExpected
                         << " arguments (the accumulator, then one per "
                            "epilogue operand), got "
                         << block.getNumArguments();
  if (block.getArgument(0).getType() != getAccType())
    return emitOpError() << "epilogue block argument #0 must have the "
                            "accumulator type "
                         << getAccType() << ", got "
                         << block.getArgument(0).getType();
  for (auto [i, v] : llvm::enumerate(getEpilogueOperands())) {
    Type elt = cast<ShapedType>(v.getType()).getElementType();
    if (getEpilogueArgument(i).getType() != elt)
      return emitOpError() << "epilogue block argument #" << i + 1
                           << " must have the element type of epilogue "
                              "operand #"
                           << i << " (" << elt << "), got "
                           << getEpilogueArgument(i).getType();
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return emitOpError() << "epilogue must end with xpu.yield";
  // The epilogue runs once per output element in no defined order, on the
  // host or the device: an effect in it has no meaning, and the op is Pure.
  for (Operation &op : block.without_terminator()) {
    if (isMemoryEffectFree(&op))
      continue;
    InFlightDiagnostic diag =
        op.emitOpError() << "may have memory effects, which an xpu.gemm "
                            "epilogue must not have (it runs once per output "
                            "element, in no defined order)";
    diag.attachNote(getLoc()) << "in the epilogue of this xpu.gemm";
    return diag;
  }
  Type resElt = getResultType().getElementType();
  if (yield.getValue().getType() != resElt)
    return yield.emitOpError() << "yields " << yield.getValue().getType()
                               << " but the result element type is " << resElt;
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp: canonicalization
//===----------------------------------------------------------------------===//

namespace {
/// Rebuilds `op` keeping only the epilogue operands in `keep`; block
/// arguments of dropped operands are replaced by `replacement[i]` (the
/// argument of a kept duplicate), or must be unused.
void rebuildWithOperands(PatternRewriter &rewriter, GemmOp op,
                         ArrayRef<unsigned> keep,
                         ArrayRef<std::optional<unsigned>> replacement) {
  SmallVector<Value> operands;
  SmallVector<BroadcastKind> kinds;
  for (unsigned i : keep) {
    operands.push_back(op.getEpilogueOperands()[i]);
    kinds.push_back(op.getBroadcastKind(i));
  }
  auto newOp = GemmOp::create(rewriter, op.getLoc(), op.getLhs(), op.getRhs(),
                              op.getRhsLayout(), op.getAccType(),
                              op.getResultType(), operands, kinds);
  newOp.inheritAttributes(op);
  Block &oldBlock = op.getEpilogueBlock();
  Block &newBlock = newOp.getEpilogueBlock();
  SmallVector<Value> argMap(oldBlock.getNumArguments());
  argMap[0] = newBlock.getArgument(0);
  for (auto [newIdx, oldIdx] : llvm::enumerate(keep))
    argMap[oldIdx + 1] = newBlock.getArgument(newIdx + 1);
  for (unsigned i = 0, e = op.getEpilogueOperands().size(); i < e; ++i) {
    if (argMap[i + 1])
      continue;
    if (replacement[i])
      argMap[i + 1] = argMap[*replacement[i] + 1];
    else
      argMap[i + 1] = Value(); // unused
  }
  // Unused arguments still need a value of the right type for the merge.
  for (unsigned i = 0, e = argMap.size(); i < e; ++i)
    if (!argMap[i])
      argMap[i] = newBlock.getArgument(0);
  rewriter.mergeBlocks(&oldBlock, &newBlock, argMap);
  rewriter.replaceOp(op, newOp.getResult());
}

/// Drops epilogue operands whose block argument has no use.
struct DropUnusedEpilogueOperands final : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    SmallVector<unsigned> keep;
    unsigned n = op.getEpilogueOperands().size();
    for (unsigned i = 0; i < n; ++i)
      if (!op.getEpilogueArgument(i).use_empty())
        keep.push_back(i);
    if (keep.size() == n)
      return rewriter.notifyMatchFailure(op, "every epilogue operand is used");
    rebuildWithOperands(rewriter, op, keep,
                        SmallVector<std::optional<unsigned>>(n));
    return success();
  }
};

/// Merges epilogue operands that are the same value with the same kind.
struct MergeDuplicateEpilogueOperands final : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op,
                                PatternRewriter &rewriter) const override {
    unsigned n = op.getEpilogueOperands().size();
    SmallVector<unsigned> keep;
    SmallVector<std::optional<unsigned>> replacement(n);
    for (unsigned i = 0; i < n; ++i) {
      for (unsigned j : keep) {
        if (op.getEpilogueOperands()[i] == op.getEpilogueOperands()[j] &&
            op.getBroadcastKind(i) == op.getBroadcastKind(j)) {
          replacement[i] = j;
          break;
        }
      }
      if (!replacement[i])
        keep.push_back(i);
    }
    if (keep.size() == n)
      return rewriter.notifyMatchFailure(op, "no duplicate epilogue operand");
    rebuildWithOperands(rewriter, op, keep, replacement);
    return success();
  }
};
} // namespace

void GemmOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<DropUnusedEpilogueOperands, MergeDuplicateEpilogueOperands>(
      context);
}

//===----------------------------------------------------------------------===//
// GemmTileOp: custom syntax (XPUScheduleOps.cpp has its verifier)
//===----------------------------------------------------------------------===//

/// `output`, `partial` or `atomic_add`, as a bare keyword.
static ParseResult parseTileResultKeyword(OpAsmParser &parser,
                                          TileResultAttr &result) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<TileResult> value = symbolizeTileResult(keyword);
  if (!value)
    return parser.emitError(loc) << "expected output, partial or atomic_add, "
                                    "got '"
                                 << keyword << "'";
  result = TileResultAttr::get(parser.getContext(), *value);
  return success();
}

static void printTileResultKeyword(OpAsmPrinter &printer, Operation *,
                                   TileResultAttr result) {
  printer << stringifyTileResult(result.getValue());
}

#define GET_OP_CLASSES
#include "xpu/Dialect/XPU/IR/XPUOps.cpp.inc"
