//===- TuningDatabase.cpp - measured configs of GEMMs, as JSON ------------===//
//
// The format is in docs/Tuning.md, "The database".
//
//===----------------------------------------------------------------------===//

#include "xpu/Dialect/XPU/Utils/TuningDatabase.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"

#include "mlir/IR/TypeUtilities.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace mlir;
using namespace mlir::xpu;
namespace json = llvm::json;

static std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

GemmSignature GemmSignature::get(GemmOp gemm) {
  GemmSignature s;
  s.batch = gemm.getBatchSize();
  s.m = gemm.getM();
  s.n = gemm.getN();
  s.k = gemm.getK();
  s.lhsType = typeName(gemm.getLhsType().getElementType());
  s.rhsType = typeName(gemm.getRhsType().getElementType());
  s.accType = typeName(gemm.getAccType());
  s.resultType = typeName(gemm.getResultType().getElementType());
  s.rhsLayout = stringifyRhsLayout(gemm.getRhsLayout()).str();
  unsigned numOperands = gemm.getEpilogueOperands().size();
  if (numOperands == 0 && gemm.hasIdentityEpilogue())
    return s;
  SmallVector<std::string> operands, ops;
  for (unsigned i = 0; i < numOperands; ++i)
    operands.push_back(
        (stringifyBroadcastKind(gemm.getBroadcastKind(i)) + ":" +
         typeName(getElementTypeOrSelf(gemm.getEpilogueOperands()[i])))
            .str());
  for (Operation &op : gemm.getEpilogueBlock().without_terminator())
    ops.push_back(op.getName().getStringRef().str());
  s.epilogue = llvm::join(operands, ",") + "|" + llvm::join(ops, ",");
  return s;
}

std::string GemmSignature::key() const {
  return llvm::formatv("{0}x{1}x{2}x{3} {4}*{5}->{6} acc {7} {8} {9}", batch, m,
                       n, k, lhsType, rhsType, resultType, accType, rhsLayout,
                       epilogue);
}

json::Object GemmSignature::toJSON() const {
  return json::Object{{"batch", batch},
                      {"m", m},
                      {"n", n},
                      {"k", k},
                      {"lhs_type", lhsType},
                      {"rhs_type", rhsType},
                      {"acc_type", accType},
                      {"result_type", resultType},
                      {"rhs_layout", rhsLayout},
                      {"epilogue", epilogue}};
}

std::optional<GemmSignature> GemmSignature::fromJSON(const json::Value &v,
                                                     json::Path path) {
  GemmSignature s;
  json::ObjectMapper o(v, path);
  if (!o || !o.map("batch", s.batch) || !o.map("m", s.m) || !o.map("n", s.n) ||
      !o.map("k", s.k) || !o.map("lhs_type", s.lhsType) ||
      !o.map("rhs_type", s.rhsType) || !o.map("acc_type", s.accType) ||
      !o.map("result_type", s.resultType) ||
      !o.map("rhs_layout", s.rhsLayout) || !o.map("epilogue", s.epilogue))
    return std::nullopt;
  return s;
}

//===----------------------------------------------------------------------===//
// Entries
//===----------------------------------------------------------------------===//

std::optional<double> mlir::xpu::spearmanCorrelation(ArrayRef<double> a,
                                                     ArrayRef<double> b) {
  if (a.size() != b.size() || a.size() < 3)
    return std::nullopt;
  auto ranks = [](ArrayRef<double> v) {
    std::vector<size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    llvm::stable_sort(order, [&](size_t x, size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (size_t i = 0; i < order.size();) {
      size_t j = i;
      while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]])
        ++j;
      double average = (double(i) + double(j)) / 2 + 1;
      for (size_t t = i; t <= j; ++t)
        r[order[t]] = average;
      i = j + 1;
    }
    return r;
  };
  std::vector<double> ra = ranks(a), rb = ranks(b);
  double n = ra.size();
  double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
  double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
  double cov = 0, va = 0, vb = 0;
  for (size_t i = 0; i < ra.size(); ++i) {
    cov += (ra[i] - ma) * (rb[i] - mb);
    va += (ra[i] - ma) * (ra[i] - ma);
    vb += (rb[i] - mb) * (rb[i] - mb);
  }
  if (va == 0 || vb == 0)
    return std::nullopt;
  return cov / std::sqrt(va * vb);
}

bool TuningEntry::recomputeBest() {
  const TuningTrial *best = nullptr;
  for (const TuningTrial &t : trials)
    if (t.status == "ok" && t.timeNs >= 0 && (!best || t.timeNs < best->timeNs))
      best = &t;
  modelRankOfBest.reset();
  rankCorrelation.reset();
  if (!best) {
    bestConfig.clear();
    bestNs = -1;
    return false;
  }
  bestConfig = best->config;
  bestNs = best->timeNs;
  if (best->modelRank > 0)
    modelRankOfBest = best->modelRank;
  SmallVector<double> predicted, measured;
  for (const TuningTrial &t : trials) {
    if (t.status != "ok" || t.timeNs < 0 || t.modelRank <= 0)
      continue;
    predicted.push_back(t.modelNs);
    measured.push_back(t.timeNs);
  }
  rankCorrelation = spearmanCorrelation(predicted, measured);
  return true;
}

static json::Object trialToJSON(const TuningTrial &t) {
  json::Object o{{"config", t.config}, {"status", t.status}};
  if (t.timeNs >= 0)
    o["time_ns"] = t.timeNs;
  if (t.relError >= 0)
    o["rel_error"] = t.relError;
  if (t.modelRank > 0) {
    o["model_rank"] = t.modelRank;
    o["model_ns"] = t.modelNs;
  }
  if (!t.message.empty())
    o["message"] = t.message;
  return o;
}

static bool trialFromJSON(const json::Value &v, TuningTrial &t,
                          json::Path path) {
  json::ObjectMapper o(v, path);
  return o && o.map("config", t.config) && o.map("status", t.status) &&
         o.mapOptional("time_ns", t.timeNs) &&
         o.mapOptional("rel_error", t.relError) &&
         o.mapOptional("model_rank", t.modelRank) &&
         o.mapOptional("model_ns", t.modelNs) &&
         o.mapOptional("message", t.message);
}

json::Object TuningEntry::toJSON() const {
  json::Array trialArray;
  for (const TuningTrial &t : trials)
    trialArray.push_back(trialToJSON(t));
  json::Object o{{"target", target},        {"signature", signature.toJSON()},
                 {"key", signature.key()},  {"best_config", bestConfig},
                 {"best_ns", bestNs},       {"default_config", defaultConfig},
                 {"default_ns", defaultNs}, {"trials", std::move(trialArray)}};
  if (modelRankOfBest)
    o["model_rank_of_best"] = *modelRankOfBest;
  if (rankCorrelation)
    o["rank_correlation"] = *rankCorrelation;
  return o;
}

std::optional<TuningEntry> TuningEntry::fromJSON(const json::Value &v,
                                                 json::Path path) {
  TuningEntry e;
  json::ObjectMapper o(v, path);
  if (!o || !o.map("target", e.target) || !o.map("best_config", e.bestConfig) ||
      !o.map("best_ns", e.bestNs) ||
      !o.mapOptional("default_config", e.defaultConfig) ||
      !o.mapOptional("default_ns", e.defaultNs) ||
      !o.mapOptional("model_rank_of_best", e.modelRankOfBest) ||
      !o.mapOptional("rank_correlation", e.rankCorrelation))
    return std::nullopt;
  const json::Object *object = v.getAsObject();
  const json::Value *sig = object->get("signature");
  if (!sig) {
    path.field("signature").report("missing value");
    return std::nullopt;
  }
  std::optional<GemmSignature> s =
      GemmSignature::fromJSON(*sig, path.field("signature"));
  if (!s)
    return std::nullopt;
  e.signature = std::move(*s);
  if (const json::Value *trials = object->get("trials")) {
    const json::Array *array = trials->getAsArray();
    if (!array) {
      path.field("trials").report("expected an array");
      return std::nullopt;
    }
    for (auto [i, t] : llvm::enumerate(*array)) {
      TuningTrial trial;
      if (!trialFromJSON(t, trial, path.field("trials").index(i)))
        return std::nullopt;
      e.trials.push_back(std::move(trial));
    }
  }
  return e;
}

//===----------------------------------------------------------------------===//
// The file
//===----------------------------------------------------------------------===//

std::optional<TuningDatabase>
TuningDatabase::parse(StringRef text, StringRef path, std::string &error) {
  auto fail = [&](const Twine &why) {
    error = ("tuning database '" + path + "': " + why).str();
    return std::nullopt;
  };
  llvm::Expected<json::Value> value = json::parse(text);
  if (!value)
    return fail("not JSON: " + llvm::toString(value.takeError()));
  const json::Object *object = value->getAsObject();
  if (!object)
    return fail("expected a JSON object");
  std::optional<StringRef> format = object->getString("format");
  if (!format || *format != kFormat)
    return fail("not an xpu tuning database (\"format\" must be \"" + kFormat +
                "\")");
  std::optional<int64_t> version = object->getInteger("version");
  if (!version)
    return fail("no \"version\"");
  if (*version != kVersion)
    return fail("version " + Twine(*version) +
                ", but this compiler reads "
                "version " +
                Twine(kVersion) +
                "; tune again with this "
                "xpu-tune");
  const json::Array *entries = object->getArray("entries");
  if (!entries)
    return fail("no \"entries\" array");
  TuningDatabase db;
  json::Path::Root root("entries");
  for (auto [i, e] : llvm::enumerate(*entries)) {
    std::optional<TuningEntry> entry =
        TuningEntry::fromJSON(e, json::Path(root).index(i));
    if (!entry) {
      std::string why;
      llvm::raw_string_ostream os(why);
      os << llvm::toString(root.getError());
      return fail(why);
    }
    db.insert(std::move(*entry));
  }
  return db;
}

std::optional<TuningDatabase> TuningDatabase::read(StringRef path,
                                                   std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = ("cannot read tuning database '" + path +
             "': " + buffer.getError().message())
                .str();
    return std::nullopt;
  }
  return parse((*buffer)->getBuffer(), path, error);
}

std::optional<TuningDatabase> TuningDatabase::readOrEmpty(StringRef path,
                                                          std::string &error) {
  if (!llvm::sys::fs::exists(path))
    return TuningDatabase();
  return read(path, error);
}

json::Value TuningDatabase::toJSON() const {
  json::Array array;
  for (const TuningEntry &e : entries)
    array.push_back(e.toJSON());
  return json::Object{{"format", kFormat},
                      {"version", kVersion},
                      {"entries", std::move(array)}};
}

bool TuningDatabase::write(StringRef path, std::string &error) const {
  std::string temp = (path + ".tmp").str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temp, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      error = ("cannot write tuning database '" + path + "': " + ec.message())
                  .str();
      return false;
    }
    os << llvm::formatv("{0:2}", toJSON()) << "\n";
    os.close();
    if (os.has_error()) {
      error = ("cannot write tuning database '" + path +
               "': " + os.error().message())
                  .str();
      llvm::sys::fs::remove(temp);
      return false;
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(temp, path)) {
    error =
        ("cannot write tuning database '" + path + "': " + ec.message()).str();
    llvm::sys::fs::remove(temp);
    return false;
  }
  return true;
}

TuningEntry *TuningDatabase::lookup(StringRef target,
                                    const GemmSignature &signature) {
  std::string key = signature.key();
  for (TuningEntry &e : entries)
    if (e.target == target && e.signature.key() == key)
      return &e;
  return nullptr;
}

const TuningEntry *
TuningDatabase::lookup(StringRef target, const GemmSignature &signature) const {
  return const_cast<TuningDatabase *>(this)->lookup(target, signature);
}

void TuningDatabase::insert(TuningEntry entry) {
  if (TuningEntry *old = lookup(entry.target, entry.signature)) {
    *old = std::move(entry);
    return;
  }
  entries.push_back(std::move(entry));
}

void TuningDatabase::merge(const TuningDatabase &other) {
  for (const TuningEntry &e : other.entries) {
    TuningEntry *mine = lookup(e.target, e.signature);
    if (!mine) {
      entries.push_back(e);
      continue;
    }
    for (const TuningTrial &t : e.trials)
      if (llvm::none_of(mine->trials, [&](const TuningTrial &m) {
            return m.config == t.config;
          }))
        mine->trials.push_back(t);
    if (mine->defaultNs < 0)
      mine->defaultNs = e.defaultNs;
    if (mine->defaultConfig.empty())
      mine->defaultConfig = e.defaultConfig;
    mine->recomputeBest();
  }
}
