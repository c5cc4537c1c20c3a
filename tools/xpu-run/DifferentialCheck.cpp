//===- DifferentialCheck.cpp - run a function before and after a pipeline -===//

#include "DifferentialCheck.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::xpu;
using namespace mlir::xpu::run;

SmallVector<unsigned> mlir::xpu::assertGuardedArguments(Operation *fnOp) {
  auto fn = dyn_cast<func::FuncOp>(fnOp);
  if (!fn || fn.isExternal())
    return {};
  // Values feeding an op that holds (or is) a cf.assert.
  SmallVector<Value> worklist;
  fn.walk([&](cf::AssertOp assertOp) {
    Operation *top = assertOp;
    while (top->getParentOp() != fn.getOperation())
      top = top->getParentOp();
    llvm::append_range(worklist, top->getOperands());
  });
  llvm::SetVector<Value> seen;
  SmallVector<unsigned> args;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v))
      continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner()->getParentOp() == fn.getOperation())
        args.push_back(arg.getArgNumber());
      continue;
    }
    Operation *def = v.getDefiningOp();
    // Through elementwise producers; an init operand (outs) carries no
    // values the assert sees, but following it does no harm.
    llvm::append_range(worklist, def->getOperands());
  }
  llvm::sort(args);
  return args;
}

/// max |a - b| (infinite where exactly one is NaN) and max |b|.
static std::pair<double, double> compare(const HostTensor &got,
                                         const HostTensor &ref) {
  double diff = 0, scale = 0;
  for (int64_t i = 0, e = ref.numElements(); i < e; ++i) {
    double x = got.get(i), y = ref.get(i);
    bool xn = std::isnan(x), yn = std::isnan(y);
    double d = xn && yn   ? 0
               : xn || yn ? std::numeric_limits<double>::infinity()
                          : std::fabs(x - y);
    diff = std::max(diff, d);
    if (!yn)
      scale = std::max(scale, std::fabs(y));
  }
  return {diff, scale};
}

FailureOr<int>
mlir::xpu::runDifferentialCheck(ModuleOp module,
                                const DifferentialCheckOptions &opts) {
  auto fn = module.lookupSymbol<func::FuncOp>(opts.function);
  if (!fn || fn.isExternal()) {
    // checkEntry lists the candidates.
    std::string list;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isExternal())
        list += (list.empty() ? "@" : ", @") + f.getSymName().str();
    return module.emitError()
           << "xpu-run: --compare-function: no function @" << opts.function
           << " with a body in the module; candidates: "
           << (list.empty() ? "none" : list);
  }
  FunctionType type = fn.getFunctionType();
  // Arguments may also be integer tensors (an unused BatchNorm counter,
  // say; random values in [0, 8)); results are compared as floats.
  auto checkTypes = [&](TypeRange types, StringRef what,
                        bool integersToo) -> LogicalResult {
    for (auto [i, t] : llvm::enumerate(types)) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape() ||
          !elemKindOf(tensor.getElementType()) ||
          (!integersToo && !isa<FloatType>(tensor.getElementType())))
        return fn.emitError()
               << "xpu-run: cannot compare @" << opts.function << ": " << what
               << " #" << i << " has type " << t << "; only statically shaped "
               << (integersToo ? "" : "float ") << "tensors are supported";
    }
    return success();
  };
  if (failed(checkTypes(type.getInputs(), "argument", true)) ||
      failed(checkTypes(type.getResults(), "result", false)))
    return failure();
  if (type.getNumResults() == 0)
    return fn.emitError() << "xpu-run: @" << opts.function
                          << " has no results to compare";
  SmallVector<unsigned> positive = opts.positiveArgs;
  SmallVector<unsigned> guarded = assertGuardedArguments(fn);
  for (unsigned i : guarded) {
    if (llvm::is_contained(positive, i))
      continue;
    positive.push_back(i);
    llvm::outs() << "xpu-run compare: argument #" << i << " of @"
                 << opts.function
                 << " reaches a cf.assert of the model: its random values "
                    "are drawn from [0.5, 1.5)\n";
  }

  // The reference: the module as given, on the CPU, not optimized.
  OwningOpRef<ModuleOp> reference = module.clone();
  CompileOptions refOptions;
  refOptions.target = allTargets().data(); // cpu
  refOptions.pipelineOptions = "optimize=false";
  refOptions.progress = opts.compile.progress;
  FailureOr<EntryPlan> refPlan = checkEntry(*reference, opts.function);
  if (failed(refPlan) ||
      failed(compileModule(*reference, refOptions, &*refPlan)))
    return failure();

  // The version under test. A pipeline given without its anchor runs on the
  // module.
  std::string text = opts.pipeline;
  if (!StringRef(text).trim().starts_with("builtin.module("))
    text = "builtin.module(" + text + ")";
  std::string errors;
  llvm::raw_string_ostream es(errors);
  FailureOr<OpPassManager> parsed = parsePassPipeline(text, es);
  if (failed(parsed))
    return module.emitError() << "xpu-run: --compare-pipeline: cannot parse '"
                              << opts.pipeline << "'";
  PassManager pm(module.getContext());
  static_cast<OpPassManager &>(pm) = *parsed;
  if (failed(pm.run(module)))
    return module.emitError()
           << "xpu-run: --compare-pipeline '" << opts.pipeline << "' failed";
  fn = module.lookupSymbol<func::FuncOp>(opts.function);
  if (!fn || fn.getFunctionType() != type)
    return module.emitError()
           << "xpu-run: --compare-pipeline changed the signature of @"
           << opts.function;
  CompileOptions testOptions = opts.compile;
  testOptions.pipelineOptions += " optimize=false";
  FailureOr<EntryPlan> testPlan = checkEntry(module, opts.function);
  if (failed(testPlan) ||
      failed(compileModule(module, testOptions, &*testPlan)))
    return failure();

  FailureOr<std::unique_ptr<Program>> refProgram = Program::create(
      *reference, *refOptions.target, opts.sharedLibs, opts.optLevel);
  if (failed(refProgram))
    return failure();
  FailureOr<std::unique_ptr<Program>> testProgram = Program::create(
      module, *testOptions.target, opts.sharedLibs, opts.optLevel);
  if (failed(testProgram))
    return failure();

  bool ok = true;
  Location loc = module.getLoc();
  for (int64_t seed = 1; seed <= opts.seeds; ++seed) {
    std::vector<HostTensor> inputs;
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      auto tensor = cast<RankedTensorType>(t);
      bool pos = seed % 2 == 0 || llvm::is_contained(positive, i);
      inputs.push_back(randomTensor(*elemKindOf(tensor.getElementType()),
                                    tensor.getShape(), seed * 1000 + i, pos));
    }
    std::vector<HostTensor> outs[2];
    Program *programs[2] = {refProgram->get(), testProgram->get()};
    for (int which = 0; which < 2; ++which) {
      Program &p = *programs[which];
      std::vector<Buffer> in, out;
      for (auto [i, t] : llvm::enumerate(type.getInputs())) {
        FailureOr<Buffer> b = p.allocate(t, &inputs[i], loc);
        if (failed(b))
          return failure();
        in.push_back(*b);
      }
      for (Type t : type.getResults()) {
        FailureOr<Buffer> b = p.allocate(t, nullptr, loc);
        if (failed(b))
          return failure();
        out.push_back(*b);
      }
      SmallVector<Buffer *> inPtrs, outPtrs;
      for (Buffer &b : in)
        inPtrs.push_back(&b);
      for (Buffer &b : out)
        outPtrs.push_back(&b);
      if (failed(p.call(opts.function, inPtrs, outPtrs, loc)))
        return failure();
      for (Buffer &b : out) {
        outs[which].push_back(p.read(b));
        p.release(b);
      }
      for (Buffer &b : in)
        p.release(b);
    }
    for (size_t j = 0; j < outs[0].size(); ++j) {
      auto [diff, scale] = compare(outs[1][j], outs[0][j]);
      double rel = diff / std::max(scale, 1.0);
      bool pass = rel <= opts.tolerance;
      ok &= pass;
      llvm::outs() << llvm::formatv("xpu-run compare: seed {0}, result {1}: "
                                    "max relative error {2:e} (tolerance "
                                    "{3:e})\n",
                                    seed, j, rel, opts.tolerance);
    }
  }
  llvm::outs() << (ok ? "xpu-run compare: PASS\n" : "xpu-run compare: FAIL\n");
  llvm::outs().flush();
  return ok ? 0 : 1;
}
