//===- EntryPoints.cpp - callable wrappers around a module's functions ----===//

#include "EntryPoints.h"
#include "HostTensor.h"

#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::xpu::run;

std::string mlir::xpu::run::entryName(StringRef function) {
  return ("__xpu_entry_" + function).str();
}

static std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// The functions with a body a user can name, for error messages.
static std::string candidates(ModuleOp module) {
  std::string list;
  for (auto fn : module.getOps<func::FuncOp>()) {
    if (fn.isExternal() || StringRef(fn.getSymName()).starts_with("__xpu"))
      continue;
    list += (list.empty() ? "@" : ", @") + fn.getSymName().str();
  }
  for (auto fn : module.getOps<LLVM::LLVMFuncOp>()) {
    if (fn.isExternal())
      continue;
    list += (list.empty() ? "@" : ", @") + fn.getSymName().str();
  }
  return list.empty() ? "none (the module defines no function)" : list;
}

/// Null when `t` can cross the boundary, else why not.
static std::optional<std::string> unsupported(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t)) {
    if (!elemKindOf(tensor.getElementType()))
      return "element type " + typeStr(tensor.getElementType()) +
             " is not supported (f16, bf16, f32, f64, i1, i8, i16, i32, i64, "
             "index)";
    return std::nullopt;
  }
  if (isa<FloatType, IntegerType, IndexType>(t)) {
    if (!elemKindOf(t))
      return "type " + typeStr(t) + " is not supported";
    return std::nullopt;
  }
  if (isa<BaseMemRefType>(t))
    return "memrefs are not supported (xpu-run calls functions on tensors; "
           "call a bufferized function from a @main with -e main)";
  return "type " + typeStr(t) + " is not supported";
}

/// The argument dimension whose size dimension `dim` of result `result` of
/// `fn` has in every return, if the value bounds prove one.
static std::optional<ArgDim> findArgDim(func::FuncOp fn, unsigned result,
                                        int64_t dim) {
  std::optional<ArgDim> found;
  bool first = true;
  fn.walk([&](func::ReturnOp ret) {
    Value value = ret.getOperand(result);
    std::optional<ArgDim> here;
    for (BlockArgument arg : fn.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      for (int64_t d = 0; d < type.getRank() && !here; ++d) {
        if (!type.isDynamicDim(d))
          continue;
        FailureOr<bool> equal = ValueBoundsConstraintSet::areEqual(
            ValueBoundsConstraintSet::Variable(value, dim),
            ValueBoundsConstraintSet::Variable(arg, d));
        if (succeeded(equal) && *equal)
          here = ArgDim{arg.getArgNumber(), d};
      }
      if (here)
        break;
    }
    if (first)
      found = here;
    else if (!here || !found || here->arg != found->arg ||
             here->dim != found->dim)
      found.reset();
    first = false;
  });
  return found;
}

FailureOr<EntryPlan>
mlir::xpu::run::checkEntry(ModuleOp module, StringRef function,
                           ArrayRef<SmallVector<int64_t>> inputShapes,
                           StringRef tool, bool keepDynamic) {
  auto fn = module.lookupSymbol<func::FuncOp>(function);
  if (!fn || fn.isExternal()) {
    module.emitError() << tool << ": no function @" << function
                       << " with a body in the module; candidates: "
                       << candidates(module);
    return failure();
  }
  EntryPlan plan;
  plan.function = function.str();
  FunctionType type = fn.getFunctionType();
  for (auto [i, argType] : llvm::enumerate(type.getInputs())) {
    Type t = argType;
    if (std::optional<std::string> why = unsupported(t)) {
      fn.emitError() << tool << ": cannot call @" << function << ": argument #"
                     << i << ": " << *why;
      return failure();
    }
    auto tensor = dyn_cast<RankedTensorType>(t);
    bool given = i < inputShapes.size() && !inputShapes[i].empty();
    if (tensor && !tensor.hasStaticShape() && !(keepDynamic && !given)) {
      // Specialize on the shape of the input given for it.
      if (given &&
          inputShapes[i].size() != static_cast<size_t>(tensor.getRank())) {
        fn.emitError() << tool << ": argument #" << i << " of @" << function
                       << " is " << t << " (rank " << tensor.getRank()
                       << "), but its --input has rank "
                       << inputShapes[i].size();
        return failure();
      }
      if (!given) {
        fn.emitError() << tool << ": argument #" << i << " of @" << function
                       << " has the dynamic type " << t
                       << "; give an --input with its shape (from a .npy file "
                          "or inline) and xpu-run specializes on it";
        return failure();
      }
      for (auto [d, size] : llvm::enumerate(tensor.getShape())) {
        if (!ShapedType::isDynamic(size) && size != inputShapes[i][d]) {
          fn.emitError() << tool << ": argument #" << i << " of @" << function
                         << " is " << t << ", but its --input has dimension "
                         << d << " = " << inputShapes[i][d];
          return failure();
        }
      }
      t = RankedTensorType::get(inputShapes[i], tensor.getElementType());
    }
    plan.inputs.push_back(t);
    plan.weights.push_back(fn.getArgAttr(i, "xpu.weight") != nullptr);
  }
  for (auto [i, t] : llvm::enumerate(type.getResults())) {
    if (std::optional<std::string> why = unsupported(t)) {
      fn.emitError() << tool << ": cannot call @" << function << ": result #"
                     << i << ": " << *why;
      return failure();
    }
    auto tensor = dyn_cast<RankedTensorType>(t);
    SmallVector<std::optional<ArgDim>> dims;
    if (tensor)
      dims.resize(tensor.getRank());
    if (tensor && !tensor.hasStaticShape()) {
      if (!keepDynamic || plan.inputs != SmallVector<Type>(type.getInputs())) {
        fn.emitError() << tool << ": result #" << i << " of @" << function
                       << " has the dynamic type " << t
                       << "; xpu-run needs result shapes it can allocate "
                          "(export the model with static shapes)";
        return failure();
      }
      for (auto [d, size] : llvm::enumerate(tensor.getShape())) {
        if (!ShapedType::isDynamic(size))
          continue;
        dims[d] = findArgDim(fn, i, d);
        if (!dims[d]) {
          fn.emitError() << tool << ": dimension " << d << " of result #" << i
                         << " of @" << function << " (" << t
                         << ") is dynamic and not the size of an argument "
                            "dimension: a caller could not allocate it";
          return failure();
        }
      }
    }
    plan.results.push_back(t);
    plan.resultDims.push_back(std::move(dims));
  }
  return plan;
}

/// The memref a caller passes for a value of type `t` (scalars as they are).
static Type boundaryType(Type t) {
  if (auto tensor = dyn_cast<RankedTensorType>(t))
    return MemRefType::get(tensor.getShape(), tensor.getElementType());
  return t;
}

/// Adds `@__xpu_entry_<callee>(inputs..., outs...)` calling @callee, whose
/// arguments have `calleeInputs` types; `inputs` are the static types the
/// caller passes.
static void addWrapper(ModuleOp module, OpBuilder &b, StringRef callee,
                       TypeRange inputs, TypeRange calleeInputs,
                       TypeRange results) {
  Location loc = module.getLoc();
  SmallVector<Type> argTypes;
  for (Type t : inputs)
    argTypes.push_back(boundaryType(t));
  for (Type t : results)
    argTypes.push_back(isa<RankedTensorType>(t)
                           ? boundaryType(t)
                           : MemRefType::get({}, t)); // scalar results
  b.setInsertionPointToEnd(module.getBody());
  auto wrapper = func::FuncOp::create(b, loc, entryName(callee),
                                      b.getFunctionType(argTypes, {}));
  wrapper->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                   b.getUnitAttr());
  // The caller owns each result buffer: 64-byte aligned, aliasing no other
  // argument (xpu-write-results-in-place computes the result in it).
  for (auto [i, t] : llvm::enumerate(results))
    if (isa<RankedTensorType>(t))
      wrapper.setArgAttr(inputs.size() + i,
                         xpu::XPUDialect::getResultBufferAttrName(),
                         b.getUnitAttr());
  Block *body = wrapper.addEntryBlock();
  b.setInsertionPointToStart(body);
  SmallVector<Value> operands;
  for (auto [i, t] : llvm::enumerate(inputs)) {
    Value arg = body->getArgument(i);
    if (auto tensor = dyn_cast<RankedTensorType>(t)) {
      Value v = bufferization::ToTensorOp::create(b, loc, tensor, arg,
                                                  /*restrict=*/true,
                                                  /*writable=*/false);
      if (calleeInputs[i] != t)
        v = tensor::CastOp::create(b, loc, calleeInputs[i], v);
      operands.push_back(v);
    } else {
      operands.push_back(arg);
    }
  }
  auto call = func::CallOp::create(b, loc, callee, results, operands);
  for (auto [i, r] : llvm::enumerate(call.getResults())) {
    Value out = body->getArgument(inputs.size() + i);
    if (isa<RankedTensorType>(r.getType()))
      bufferization::MaterializeInDestinationOp::create(
          b, loc, TypeRange(), r, out, /*restrict=*/true, /*writable=*/true);
    else
      memref::StoreOp::create(b, loc, r, out, ValueRange());
  }
  func::ReturnOp::create(b, loc);
}

/// Reads @F's body as `%p = call @F.pack(...)`, `%r = call @F.packed(...)`,
/// `return %r`: the split xpu-outline-weight-pack leaves.
static std::optional<PackPlan> findPackPlan(func::FuncOp fn) {
  std::string packName = (fn.getSymName() + ".pack").str();
  std::string packedName = (fn.getSymName() + ".packed").str();
  if (!fn.getBody().hasOneBlock())
    return std::nullopt;
  func::CallOp packCall, packedCall;
  for (Operation &op : fn.getBody().front()) {
    auto call = dyn_cast<func::CallOp>(op);
    if (call && call.getCallee() == packName && !packCall)
      packCall = call;
    else if (call && call.getCallee() == packedName && !packedCall)
      packedCall = call;
    else if (!isa<func::ReturnOp>(op))
      return std::nullopt; // anything else: not the plain split
  }
  if (!packCall || !packedCall)
    return std::nullopt;
  auto ret = cast<func::ReturnOp>(fn.getBody().front().getTerminator());
  if (ret.getOperands() != packedCall.getResults())
    return std::nullopt;
  PackPlan plan;
  plan.pack = packName;
  plan.packed = packedName;
  auto classify = [&](Value v) -> std::optional<PlanOperand> {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return PlanOperand{false, arg.getArgNumber()};
    if (v.getDefiningOp() == packCall.getOperation())
      return PlanOperand{true, cast<OpResult>(v).getResultNumber()};
    return std::nullopt;
  };
  for (Value v : packCall.getOperands()) {
    std::optional<PlanOperand> o = classify(v);
    if (!o || o->fromPack)
      return std::nullopt;
    plan.packOperands.push_back(*o);
  }
  for (Value v : packedCall.getOperands()) {
    std::optional<PlanOperand> o = classify(v);
    if (!o)
      return std::nullopt;
    plan.packedOperands.push_back(*o);
  }
  for (Type t : packCall.getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(t);
    if (!tensor || !tensor.hasStaticShape() ||
        !elemKindOf(tensor.getElementType()))
      return std::nullopt;
    plan.packResults.push_back(t);
  }
  return plan;
}

LogicalResult mlir::xpu::run::addEntryWrappers(ModuleOp module,
                                               EntryPlan &plan) {
  auto fn = module.lookupSymbol<func::FuncOp>(plan.function);
  if (!fn || fn.isExternal())
    return module.emitError() << "xpu-run: @" << plan.function
                              << " disappeared before bufferization";
  OpBuilder b(module.getContext());
  addWrapper(module, b, plan.function, plan.inputs,
             fn.getFunctionType().getInputs(), plan.results);
  plan.pack = findPackPlan(fn);
  // A dynamic argument that reaches the parts as it is would need their
  // types specialized too: call @F as a whole then.
  if (plan.pack && plan.inputs != fn.getFunctionType().getInputs())
    plan.pack.reset();
  if (!plan.pack)
    return success();
  auto pack = module.lookupSymbol<func::FuncOp>(plan.pack->pack);
  auto packed = module.lookupSymbol<func::FuncOp>(plan.pack->packed);
  if (!pack || !packed) {
    plan.pack.reset();
    return success();
  }
  addWrapper(module, b, pack.getSymName(), pack.getFunctionType().getInputs(),
             pack.getFunctionType().getInputs(),
             pack.getFunctionType().getResults());
  addWrapper(module, b, packed.getSymName(),
             packed.getFunctionType().getInputs(),
             packed.getFunctionType().getInputs(),
             packed.getFunctionType().getResults());
  return success();
}

static llvm::json::Object typeJSON(Type t) {
  llvm::json::Object o;
  if (auto tensor = dyn_cast<RankedTensorType>(t)) {
    // A dynamic dimension is null: its size is the caller's, at run time.
    llvm::json::Array shape;
    for (int64_t d : tensor.getShape())
      shape.push_back(ShapedType::isDynamic(d) ? llvm::json::Value(nullptr)
                                               : llvm::json::Value(d));
    o["shape"] = std::move(shape);
    o["dtype"] = elemName(*elemKindOf(tensor.getElementType())).str();
  } else {
    o["shape"] = llvm::json::Array();
    o["dtype"] = elemName(*elemKindOf(t)).str();
    o["scalar"] = true;
  }
  return o;
}

static llvm::json::Array operandsJSON(ArrayRef<PlanOperand> ops) {
  llvm::json::Array a;
  for (const PlanOperand &o : ops)
    a.push_back(llvm::json::Object{{"from", o.fromPack ? "pack" : "arg"},
                                   {"index", o.index}});
  return a;
}

llvm::json::Object mlir::xpu::run::planToJSON(const EntryPlan &plan) {
  llvm::json::Array inputs, results;
  for (auto [i, t] : llvm::enumerate(plan.inputs)) {
    llvm::json::Object o = typeJSON(t);
    if (i < plan.weights.size() && plan.weights[i])
      o["weight"] = true;
    inputs.push_back(std::move(o));
  }
  for (auto [i, t] : llvm::enumerate(plan.results)) {
    llvm::json::Object o = typeJSON(t);
    // Where each dynamic dimension's size comes from: {"arg", "dim"}.
    if (i < plan.resultDims.size() &&
        llvm::any_of(plan.resultDims[i],
                     [](const std::optional<ArgDim> &d) { return d; })) {
      llvm::json::Array dims;
      for (const std::optional<ArgDim> &d : plan.resultDims[i])
        dims.push_back(d ? llvm::json::Value(llvm::json::Object{
                               {"arg", d->arg}, {"dim", d->dim}})
                         : llvm::json::Value(nullptr));
      o["dims"] = std::move(dims);
    }
    results.push_back(std::move(o));
  }
  llvm::json::Object o{{"function", plan.function},
                       {"entry", "_mlir_ciface_" + entryName(plan.function)},
                       {"inputs", std::move(inputs)},
                       {"results", std::move(results)}};
  if (plan.pack) {
    llvm::json::Array packResults;
    for (Type t : plan.pack->packResults)
      packResults.push_back(typeJSON(t));
    o["pack"] = llvm::json::Object{
        {"entry", "_mlir_ciface_" + entryName(plan.pack->pack)},
        {"packed_entry", "_mlir_ciface_" + entryName(plan.pack->packed)},
        {"operands", operandsJSON(plan.pack->packOperands)},
        {"packed_operands", operandsJSON(plan.pack->packedOperands)},
        {"results", std::move(packResults)}};
  }
  return o;
}
