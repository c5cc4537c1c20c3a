//===- Remote.cpp - compile trials here, measure them there ---------------===//
//
// A GPU machine without the compiler (the H200) times trials compiled
// elsewhere:
//
//   xpu-tune model.mlir --target=cuda --emit-trials=DIR   (here)
//   python -m xpu_opt.tune_run DIR                        (there)
//   xpu-tune --collect DIR/results.json --db=tuning.json  (here)
//
// DIR/trials.json (format "xpu-tune-trials", version 1) lists every trial
// package with its problem and config; the runner writes DIR/results.json
// (format "xpu-tune-results", version 1) with a time and status per trial.
// docs/Tuning.md describes both.
//
//===----------------------------------------------------------------------===//

#include "Tune.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::xpu;
using namespace mlir::xpu::tune;
namespace json = llvm::json;

static constexpr llvm::StringLiteral kTrialsFormat = "xpu-tune-trials";
static constexpr llvm::StringLiteral kResultsFormat = "xpu-tune-results";
static constexpr int64_t kRemoteVersion = 1;

LogicalResult mlir::xpu::tune::emitTrials(
    const TuneOptions &options, ArrayRef<Problem> problems,
    ArrayRef<std::vector<const Candidate *>> chosen,
    ArrayRef<std::pair<std::string, SmallVector<int64_t>>> inputs,
    StringRef dir, std::string &error) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    error = ("cannot create '" + dir + "': " + ec.message()).str();
    return failure();
  }
  json::Array inputArray;
  for (const auto &[type, shape] : inputs) {
    json::Array dims;
    for (int64_t d : shape)
      dims.push_back(d);
    inputArray.push_back(
        json::Object{{"dtype", type}, {"shape", std::move(dims)}});
  }
  json::Array problemArray;
  unsigned compiled = 0, total = 0;
  for (auto [pi, p] : llvm::enumerate(problems)) {
    json::Array trials;
    std::vector<const Candidate *> list = {&p.defaultConfig};
    list.insert(list.end(), chosen[pi].begin(), chosen[pi].end());
    for (auto [ti, c] : llvm::enumerate(list)) {
      std::string id = llvm::formatv("p{0}t{1}", pi, ti);
      SmallString<256> package(dir);
      llvm::sys::path::append(package, id);
      std::string message;
      // The default compiles as the pipeline would without a database.
      std::string status =
          emitTrial(options, p, ti == 0 ? "" : c->config, package, message);
      ++total;
      if (status == "ok")
        ++compiled;
      else if (ti == 0) {
        error = "the default config does not compile for " + options.target +
                ": " + message;
        return failure();
      }
      llvm::errs() << llvm::formatv("xpu-tune: [{0}/{1}] {2}: {3}{4}\n", ti,
                                    list.size() - 1, c->display,
                                    status == "ok" ? "compiled" : status,
                                    message.empty() ? "" : ": " + message);
      json::Object t{
          {"id", id},
          {"config", ti == 0 && c->config.empty() ? "default" : c->config},
          {"display", c->display},
          {"default", ti == 0},
          {"status", status}};
      if (c->modelRank > 0) {
        t["model_rank"] = c->modelRank;
        t["model_ns"] = c->modelNs;
      }
      if (status == "ok")
        t["package"] = id;
      else
        t["message"] = message;
      trials.push_back(std::move(t));
    }
    problemArray.push_back(
        json::Object{{"target", p.chip},
                     {"signature", p.signature.toJSON()},
                     {"num_candidates", int64_t(p.candidates.size() + 1)},
                     {"trials", std::move(trials)}});
  }
  json::Object manifest{{"format", kTrialsFormat},
                        {"version", kRemoteVersion},
                        {"target", options.target},
                        {"function", options.function},
                        {"pipeline_options", options.pipelineOptions},
                        {"seed", options.seed},
                        {"repeat", options.repeat},
                        {"tolerance", options.tolerance},
                        {"inputs", std::move(inputArray)},
                        {"problems", std::move(problemArray)}};
  SmallString<256> path(dir);
  llvm::sys::path::append(path, "trials.json");
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = ("cannot write '" + path + "': " + ec.message()).str();
    return failure();
  }
  os << llvm::formatv("{0:2}", json::Value(std::move(manifest))) << "\n";
  llvm::outs() << llvm::formatv(
      "xpu-tune: {0} of {1} trial packages compiled into {2}; time them "
      "where the device is with\n  python -m xpu_opt.tune_run {2}\nthen "
      "record them with\n  xpu-tune --collect {2}/results.json "
      "--db=tuning.json\n",
      compiled, total, dir);
  return success();
}

/// Reads a JSON object of `format`, version 1.
static std::optional<json::Value> readRemote(StringRef path, StringRef format,
                                             std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error =
        ("cannot read '" + path + "': " + buffer.getError().message()).str();
    return std::nullopt;
  }
  llvm::Expected<json::Value> value = json::parse((*buffer)->getBuffer());
  if (!value) {
    error =
        ("'" + path + "' is not JSON: " + toString(value.takeError())).str();
    return std::nullopt;
  }
  const json::Object *o = value->getAsObject();
  if (!o || o->getString("format") != format) {
    error = ("'" + path + "' is not an " + format + " file").str();
    return std::nullopt;
  }
  if (o->getInteger("version") != kRemoteVersion) {
    error =
        ("'" + path + "' is of another version than " + Twine(kRemoteVersion) +
         "; emit the trials again with this xpu-tune")
            .str();
    return std::nullopt;
  }
  return std::move(*value);
}

FailureOr<std::vector<CollectedProblem>>
mlir::xpu::tune::collectTrials(StringRef resultsPath, std::string &error) {
  std::optional<json::Value> results =
      readRemote(resultsPath, kResultsFormat, error);
  if (!results)
    return failure();
  SmallString<256> manifestPath(llvm::sys::path::parent_path(resultsPath));
  llvm::sys::path::append(manifestPath, "trials.json");
  std::optional<json::Value> manifest =
      readRemote(manifestPath, kTrialsFormat, error);
  if (!manifest)
    return failure();
  // The runner's measurements by trial id.
  llvm::StringMap<const json::Object *> measured;
  if (const json::Array *a = results->getAsObject()->getArray("trials"))
    for (const json::Value &v : *a)
      if (const json::Object *t = v.getAsObject())
        if (std::optional<StringRef> id = t->getString("id"))
          measured[*id] = t;
  const json::Array *problems = manifest->getAsObject()->getArray("problems");
  if (!problems) {
    error = ("'" + manifestPath + "' has no problems").str();
    return failure();
  }
  std::vector<CollectedProblem> collected;
  for (auto [pi, pv] : llvm::enumerate(*problems)) {
    const json::Object *po = pv.getAsObject();
    json::Path::Root root("problems");
    std::optional<GemmSignature> sig =
        po && po->get("signature")
            ? GemmSignature::fromJSON(*po->get("signature"),
                                      json::Path(root).index(pi))
            : std::nullopt;
    const json::Array *trials = po ? po->getArray("trials") : nullptr;
    if (!sig || !trials || !po->getString("target")) {
      consumeError(root.getError());
      error = ("'" + manifestPath + "': problem " + Twine(pi) + " is malformed")
                  .str();
      return failure();
    }
    CollectedProblem p;
    p.entry.target = po->getString("target")->str();
    p.entry.signature = *sig;
    p.numCandidates = po->getInteger("num_candidates").value_or(0);
    for (const json::Value &tv : *trials) {
      const json::Object *to = tv.getAsObject();
      if (!to)
        continue;
      TuningTrial t;
      t.config = to->getString("config").value_or("").str();
      t.modelRank = to->getInteger("model_rank").value_or(0);
      t.modelNs = to->getNumber("model_ns").value_or(0);
      t.status = to->getString("status").value_or("failed").str();
      t.message = to->getString("message").value_or("").str();
      std::string id = to->getString("id").value_or("").str();
      bool isDefault = to->getBoolean("default").value_or(false);
      if (t.status == "ok") {
        auto it = measured.find(id);
        if (it == measured.end()) {
          ++p.missing;
          continue;
        }
        const json::Object *r = it->second;
        t.status = r->getString("status").value_or("failed").str();
        t.message = r->getString("message").value_or("").str();
        t.timeNs = r->getNumber("time_ns").value_or(-1);
        t.relError = r->getNumber("rel_error").value_or(-1);
      }
      if (isDefault) {
        if (t.status != "ok") {
          error = "the default config's trial " + id + " is " + t.status +
                  (t.message.empty() ? "" : ": " + t.message);
          return failure();
        }
        p.entry.defaultConfig = t.config;
        p.entry.defaultNs = t.timeNs;
      }
      p.displays.push_back(
          to->getString("display").value_or(StringRef(t.config)).str());
      p.entry.trials.push_back(std::move(t));
    }
    collected.push_back(std::move(p));
  }
  return collected;
}
