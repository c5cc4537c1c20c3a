//===- DifferentialCheck.cpp - run a function before and after a pipeline -===//
//
// `xpu-run --compare-pipeline=P --compare-function=F`: the module is compiled
// twice into one program, once as given (the reference, its functions
// renamed with a `__xpu_ref` suffix) and once after the pass pipeline P; a
// generated driver calls both versions of F on the same random inputs for
// several seeds and reports, per result, the error relative to the
// reference's scale, max |opt - ref| / max(max |ref|, 1), against the
// tolerance. NaNs must agree in position. The driver exits with status 1 when
// a check fails.
//
//===----------------------------------------------------------------------===//

#include "DifferentialCheck.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;

static constexpr llvm::StringLiteral kRefSuffix = "__xpu_ref";

namespace {
std::string str(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

/// A function that fills a tensor of `type` with values derived from the
/// element's linear index and a seed: odd seeds give values in [-1, 1)
/// (negatives included), even seeds values in [0.5, 1.5) (for operands that
/// must be positive, such as a variance under a square root).
std::string genFunction(StringRef name, RankedTensorType type) {
  int64_t rank = type.getRank();
  std::string shape, maps, iters, elt = str(type.getElementType());
  std::string body;
  llvm::raw_string_ostream os(body);
  os << "    %lin0 = arith.constant 0 : index\n";
  for (int64_t d = 0; d < rank; ++d) {
    os << llvm::formatv("    %idx{0} = linalg.index {0} : index\n"
                        "    %n{0} = arith.constant {1} : index\n"
                        "    %m{0} = arith.muli %lin{0}, %n{0} : index\n"
                        "    %lin{2} = arith.addi %m{0}, %idx{0} : index\n",
                        d, type.getDimSize(d), d + 1);
  }
  os << llvm::formatv("    %li = arith.index_cast %lin{0} : index to i64\n"
                      "    %lf = arith.sitofp %li : i64 to f64\n"
                      "    %c1 = arith.constant 12.9898 : f64\n"
                      "    %c2 = arith.constant 78.233 : f64\n"
                      "    %c3 = arith.constant 43758.5453 : f64\n"
                      "    %a = arith.mulf %lf, %c1 : f64\n"
                      "    %b = arith.mulf %seed, %c2 : f64\n"
                      "    %x = arith.addf %a, %b : f64\n"
                      "    %sn = math.sin %x : f64\n"
                      "    %s = arith.mulf %sn, %c3 : f64\n"
                      "    %fl = math.floor %s : f64\n"
                      "    %u = arith.subf %s, %fl : f64\n"
                      "    %two = arith.constant 2.0 : f64\n"
                      "    %one = arith.constant 1.0 : f64\n"
                      "    %half = arith.constant 0.5 : f64\n"
                      "    %u2 = arith.mulf %u, %two : f64\n"
                      "    %signed = arith.subf %u2, %one : f64\n"
                      "    %pos = arith.addf %u, %half : f64\n"
                      "    %si = arith.fptosi %seed : f64 to i64\n"
                      "    %i2 = arith.constant 2 : i64\n"
                      "    %rem = arith.remsi %si, %i2 : i64\n"
                      "    %i0 = arith.constant 0 : i64\n"
                      "    %even = arith.cmpi eq, %rem, %i0 : i64\n"
                      "    %v = arith.select %even, %pos, %signed : f64\n",
                      rank);
  std::string cast = elt == "f64"
                         ? "    %r = arith.addf %v, %zero : f64\n"
                         : "    %r = arith.truncf %v : f64 to " + elt + "\n";
  if (elt == "f64")
    os << "    %zero = arith.constant 0.0 : f64\n";
  os << cast;
  for (int64_t d = 0; d < rank; ++d) {
    maps += (d ? ", d" : "d") + std::to_string(d);
    iters += std::string(d ? ", " : "") + "\"parallel\"";
  }
  return llvm::formatv(R"(
func.func private @{0}(%seed: f64) -> {1} {
  %e = tensor.empty() : {1}
  %t = linalg.generic {indexing_maps = [affine_map<({2}) -> ({2})>],
                       iterator_types = [{3}]} outs(%e : {1}) {
  ^bb0(%out: {4}):
{5}    linalg.yield %r : {4}
  } -> {1}
  return %t : {1}
}
)",
                       name, str(type), maps, iters, elt, body)
      .str();
}

/// A function returning max |a - b| (+inf where exactly one is NaN) and
/// max |b|, in f64.
std::string cmpFunction(StringRef name, RankedTensorType type) {
  int64_t rank = type.getRank();
  std::string maps, iters, elt = str(type.getElementType());
  for (int64_t d = 0; d < rank; ++d) {
    maps += (d ? ", d" : "d") + std::to_string(d);
    iters += std::string(d ? ", " : "") + "\"reduction\"";
  }
  std::string ext = [&](StringRef v, StringRef out) {
    return elt == "f64"
               ? llvm::formatv("    %{1} = arith.addf %{0}, %zero : f64\n", v,
                               out)
                     .str()
               : llvm::formatv("    %{1} = arith.extf %{0} : {2} to f64\n", v,
                               out, elt)
                     .str();
  }("x", "xd") + [&](StringRef v, StringRef out) {
    return elt == "f64"
               ? llvm::formatv("    %{1} = arith.addf %{0}, %zero : f64\n", v,
                               out)
                     .str()
               : llvm::formatv("    %{1} = arith.extf %{0} : {2} to f64\n", v,
                               out, elt)
                     .str();
  }("y", "yd");
  return llvm::formatv(R"(
func.func private @{0}(%a: {1}, %b: {1}) -> (f64, f64) {
  %zero = arith.constant 0.0 : f64
  %e0 = tensor.empty() : tensor<f64>
  %e1 = tensor.empty() : tensor<f64>
  %init0 = linalg.fill ins(%zero : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %init1 = linalg.fill ins(%zero : f64) outs(%e1 : tensor<f64>) -> tensor<f64>
  %r:2 = linalg.generic {indexing_maps = [affine_map<({2}) -> ({2})>, affine_map<({2}) -> ({2})>,
                                          affine_map<({2}) -> ()>, affine_map<({2}) -> ()>],
                         iterator_types = [{3}]}
      ins(%a, %b : {1}, {1}) outs(%init0, %init1 : tensor<f64>, tensor<f64>) {
  ^bb0(%x: {4}, %y: {4}, %d: f64, %m: f64):
{5}    %diff = arith.subf %xd, %yd : f64
    %ad = math.absf %diff : f64
    %xn = arith.cmpf uno, %xd, %xd : f64
    %yn = arith.cmpf uno, %yd, %yd : f64
    %one_nan = arith.xori %xn, %yn : i1
    %both_nan = arith.andi %xn, %yn : i1
    %inf = arith.constant 0x7FF0000000000000 : f64
    %ad1 = arith.select %both_nan, %zero, %ad : f64
    %ad2 = arith.select %one_nan, %inf, %ad1 : f64
    %gt = arith.cmpf ogt, %ad2, %d : f64
    %nd = arith.select %gt, %ad2, %d : f64
    %ay = math.absf %yd : f64
    %ay1 = arith.select %yn, %zero, %ay : f64
    %gm = arith.cmpf ogt, %ay1, %m : f64
    %nm = arith.select %gm, %ay1, %m : f64
    linalg.yield %nd, %nm : f64, f64
  } -> (tensor<f64>, tensor<f64>)
  %dv = tensor.extract %r#0[] : tensor<f64>
  %mv = tensor.extract %r#1[] : tensor<f64>
  return %dv, %mv : f64, f64
}
)",
                       name, str(type), maps, iters, elt, ext)
      .str();
}
} // namespace

LogicalResult
mlir::xpu::buildDifferentialCheck(ModuleOp module,
                                  const DifferentialCheckOptions &opts) {
  MLIRContext *ctx = module.getContext();
  auto fn = module.lookupSymbol<func::FuncOp>(opts.function);
  if (!fn || fn.isExternal())
    return module.emitError() << "xpu-run: --compare-function: no function @"
                              << opts.function << " with a body in the module";
  FunctionType type = fn.getFunctionType();
  auto checkTypes = [&](TypeRange types, StringRef what) -> LogicalResult {
    for (auto [i, t] : llvm::enumerate(types)) {
      auto tensor = dyn_cast<RankedTensorType>(t);
      if (!tensor || !tensor.hasStaticShape() ||
          !isa<FloatType>(tensor.getElementType()))
        return fn.emitError() << "xpu-run: cannot compare @" << opts.function
                              << ": " << what << " #" << i << " has type " << t
                              << "; only statically shaped float tensors are "
                                 "supported";
    }
    return success();
  };
  if (failed(checkTypes(type.getInputs(), "argument")) ||
      failed(checkTypes(type.getResults(), "result")))
    return failure();
  if (type.getNumResults() == 0)
    return fn.emitError() << "xpu-run: @" << opts.function
                          << " has no results to compare";

  // The reference: a copy of the module as given, every function renamed.
  OwningOpRef<ModuleOp> reference = module.clone();
  for (auto f : llvm::make_early_inc_range(reference->getOps<func::FuncOp>())) {
    if (f.isExternal())
      continue;
    std::string newName = (f.getSymName() + kRefSuffix).str();
    if (failed(SymbolTable::replaceAllSymbolUses(
            f, StringAttr::get(ctx, newName), *reference)))
      return f.emitError() << "xpu-run: could not rename @" << f.getSymName();
    f.setSymName(newName);
  }

  // The version under test.
  // A pipeline given without its anchor runs on the module.
  std::string text = opts.pipeline;
  if (!StringRef(text).trim().starts_with("builtin.module("))
    text = "builtin.module(" + text + ")";
  FailureOr<OpPassManager> parsed = parsePassPipeline(text, llvm::errs());
  if (failed(parsed))
    return module.emitError() << "xpu-run: --compare-pipeline: cannot parse '"
                              << opts.pipeline << "'";
  PassManager pm(ctx);
  static_cast<OpPassManager &>(pm) = *parsed;
  if (failed(pm.run(module)))
    return module.emitError()
           << "xpu-run: --compare-pipeline '" << opts.pipeline << "' failed";
  fn = module.lookupSymbol<func::FuncOp>(opts.function);
  if (!fn || fn.getFunctionType() != type)
    return module.emitError()
           << "xpu-run: --compare-pipeline changed the signature of @"
           << opts.function;

  // Merge the reference in (external declarations are shared).
  for (Operation &op : llvm::make_early_inc_range(*reference->getBody())) {
    auto f = dyn_cast<func::FuncOp>(op);
    if (f && f.isExternal() && module.lookupSymbol(f.getSymName()))
      continue;
    op.remove();
    module.getBody()->push_back(&op);
  }

  // The driver.
  std::string driverText;
  llvm::raw_string_ostream os(driverText);
  llvm::DenseMap<Type, std::string> gens, cmps;
  for (Type t : type.getInputs())
    if (!gens.count(t)) {
      std::string name = llvm::formatv("__xpu_gen{0}", gens.size()).str();
      os << genFunction(name, cast<RankedTensorType>(t));
      gens[t] = name;
    }
  for (Type t : type.getResults())
    if (!cmps.count(t)) {
      std::string name = llvm::formatv("__xpu_cmp{0}", cmps.size()).str();
      os << cmpFunction(name, cast<RankedTensorType>(t));
      cmps[t] = name;
    }
  std::string argTypes, resTypes;
  llvm::raw_string_ostream at(argTypes), rt(resTypes);
  llvm::interleaveComma(type.getInputs(), at);
  llvm::interleaveComma(type.getResults(), rt);
  // Declarations so the driver verifies on its own; they are dropped when
  // merged into the module that defines them.
  os << llvm::formatv("func.func private @{0}({1}) -> ({2})\n"
                      "func.func private @{0}{3}({1}) -> ({2})\n",
                      opts.function, argTypes, resTypes, kRefSuffix);
  os << "func.func private @exit(i32)\n";
  os << "func.func @" << kDriverName << "() {\n";
  os << "  %ok0 = arith.constant true\n";
  os << llvm::formatv("  %tol = arith.constant {0:e} : f64\n", opts.tolerance);
  os << "  %one = arith.constant 1.0 : f64\n";
  unsigned check = 0;
  for (int64_t seed = 1; seed <= opts.seeds; ++seed) {
    os << llvm::formatv("  %seed{0} = arith.constant {0}.0 : f64\n"
                        "  %pseed{0} = arith.constant {1}.0 : f64\n",
                        seed, 2 * seed);
    std::string args;
    for (auto [i, t] : llvm::enumerate(type.getInputs())) {
      // Even seeds draw positive values.
      bool positive = llvm::is_contained(opts.positiveArgs, i);
      os << llvm::formatv(
          "  %a{0}_{1} = call @{2}(%{4}seed{0}) : (f64) -> {3}\n", seed, i,
          gens[t], str(t), positive ? "p" : "");
      args += llvm::formatv("{0}%a{1}_{2}", i ? ", " : "", seed, i).str();
    }
    unsigned n = type.getNumResults();
    os << llvm::formatv("  %o{0}:{1} = call @{2}({3}) : ({4}) -> ({5})\n", seed,
                        n, opts.function, args, argTypes, resTypes);
    os << llvm::formatv("  %r{0}:{1} = call @{2}{6}({3}) : ({4}) -> ({5})\n",
                        seed, n, opts.function, args, argTypes, resTypes,
                        kRefSuffix);
    for (auto [j, t] : llvm::enumerate(type.getResults())) {
      unsigned c = check++;
      os << llvm::formatv(
          "  %d{0}:2 = call @{1}(%o{2}#{3}, %r{2}#{3}) : ({4}, {4}) -> (f64, "
          "f64)\n"
          "  %big{0} = arith.cmpf ogt, %d{0}#1, %one : f64\n"
          "  %scale{0} = arith.select %big{0}, %d{0}#1, %one : f64\n"
          "  %rel{0} = arith.divf %d{0}#0, %scale{0} : f64\n"
          "  %pass{0} = arith.cmpf ole, %rel{0}, %tol : f64\n"
          "  %ok{5} = arith.andi %ok{0}, %pass{0} : i1\n"
          "  vector.print str \"xpu-run compare: seed {2}, result {3}: max "
          "relative error \"\n"
          "  vector.print %rel{0} : f64 punctuation <no_punctuation>\n"
          "  vector.print str \" (tolerance {6:e})\\n\"\n",
          c, cmps[t], seed, j, str(t), c + 1, opts.tolerance);
    }
  }
  os << llvm::formatv("  scf.if %ok{0} {{\n"
                      "    vector.print str \"xpu-run compare: PASS\\n\"\n"
                      "  } else {{\n"
                      "    vector.print str \"xpu-run compare: FAIL\\n\"\n"
                      "    %status = arith.constant 1 : i32\n"
                      "    func.call @exit(%status) : (i32) -> ()\n"
                      "  }\n"
                      "  return\n}\n",
                      check);

  Block driver;
  if (failed(parseSourceString(driverText, &driver, ParserConfig(ctx))))
    return module.emitError() << "xpu-run: internal error: the comparison "
                                 "driver did not parse:\n"
                              << driverText;
  for (Operation &op : llvm::make_early_inc_range(driver)) {
    auto f = dyn_cast<func::FuncOp>(op);
    if (f && f.isExternal() && module.lookupSymbol(f.getSymName()))
      continue;
    op.remove();
    module.getBody()->push_back(&op);
  }
  return success();
}
