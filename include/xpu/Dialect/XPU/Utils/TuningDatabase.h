//===- TuningDatabase.h - measured configs of GEMMs, as JSON ----*- C++ -*-===//
//
// The tuning database that `xpu-tune` writes and `xpu-select-strategy`
// (option `tuning-db`) reads: per target chip and GEMM signature, the
// fastest measured config, its time, the default config's time and every
// trial. docs/Tuning.md documents the file format; kVersion is its version,
// and a file of another version is refused.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_UTILS_TUNINGDATABASE_H
#define XPU_DIALECT_XPU_UTILS_TUNINGDATABASE_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::xpu {

class GemmOp;

/// What makes two GEMMs the same problem for a tuner.
struct GemmSignature {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  /// Element types as MLIR spells them (f32, bf16, ...).
  std::string lhsType, rhsType, accType, resultType;
  /// kn or nk.
  std::string rhsLayout = "kn";
  /// The epilogue: each operand's broadcast kind and element type, then the
  /// names of its ops in order ("identity" when there is none); e.g.
  /// "per_col:f32|arith.addf,math.tanh".
  std::string epilogue = "identity";

  /// The signature of `gemm` as xpu-select-strategy sees it.
  static GemmSignature get(GemmOp gemm);
  /// One line: "1x128x256x64 f32*f32->f32 acc f32 kn per_col:f32|...".
  std::string key() const;
  llvm::json::Object toJSON() const;
  static std::optional<GemmSignature> fromJSON(const llvm::json::Value &v,
                                               llvm::json::Path path);
  bool operator==(const GemmSignature &o) const { return key() == o.key(); }
};

/// One measured candidate.
struct TuningTrial {
  /// The config: a `#xpu.config<...>` attribute on GPU targets, the
  /// pipeline options (`cache-tile=... register-tile=... threads=...`) on
  /// the CPU.
  std::string config;
  /// ok, compile-error, run-error, mismatch or refused; only ok trials are
  /// ever chosen.
  std::string status = "ok";
  /// Median time of one call of the whole function (ns); -1 when not
  /// measured.
  double timeNs = -1;
  /// Relative L2 error against the default config's output; -1 when not
  /// compared.
  double relError = -1;
  /// The cost model's rank (1 = predicted fastest) and predicted time
  /// (ns); 0 when the model has none for the target.
  int64_t modelRank = 0;
  double modelNs = 0;
  /// Why a trial failed (the first line of the error).
  std::string message;
};

/// The tuned problem: one GEMM signature on one target.
struct TuningEntry {
  /// The #xpu.target chip (pvc, sm_90a, ...; cpu for the host).
  std::string target;
  GemmSignature signature;
  /// The fastest ok trial's config and time, and the default's time (ns).
  std::string bestConfig;
  double bestNs = -1, defaultNs = -1;
  /// The config the cost model chose (empty on the CPU: the default
  /// options).
  std::string defaultConfig;
  std::vector<TuningTrial> trials;
  /// The cost model's rank of the measured best, and the Spearman rank
  /// correlation of predicted and measured times over the ok trials that
  /// have both (absent with fewer than 3 such trials).
  std::optional<int64_t> modelRankOfBest;
  std::optional<double> rankCorrelation;

  /// Chooses the fastest ok trial as the best and updates the model's
  /// statistics; false when no trial is ok (bestConfig is then empty).
  bool recomputeBest();
  llvm::json::Object toJSON() const;
  static std::optional<TuningEntry> fromJSON(const llvm::json::Value &v,
                                             llvm::json::Path path);
};

/// The whole file.
class TuningDatabase {
public:
  /// The format version this compiler reads and writes.
  static constexpr int64_t kVersion = 1;
  /// The value of the file's "format" member.
  static constexpr llvm::StringLiteral kFormat = "xpu-tuning-db";

  /// Reads `path`; `error` says why not (missing file, bad JSON, another
  /// version, a malformed entry) in one line that names the path.
  static std::optional<TuningDatabase> read(StringRef path, std::string &error);
  /// Reads `path`, or an empty database when it does not exist.
  static std::optional<TuningDatabase> readOrEmpty(StringRef path,
                                                   std::string &error);
  /// Parses the text of a database file (`path` only names it in errors).
  static std::optional<TuningDatabase> parse(StringRef text, StringRef path,
                                             std::string &error);
  /// Writes the database to `path` (atomically: a temporary file renamed);
  /// `error` says why not.
  bool write(StringRef path, std::string &error) const;
  llvm::json::Value toJSON() const;

  /// The entry for `signature` on `target`, or null.
  const TuningEntry *lookup(StringRef target,
                            const GemmSignature &signature) const;
  TuningEntry *lookup(StringRef target, const GemmSignature &signature);
  /// Adds `entry`, replacing the entry of the same target and signature.
  void insert(TuningEntry entry);
  /// Adds the entries of `other`: an entry of a problem both have gets the
  /// trials of both (a config measured in both keeps this database's
  /// trial) and its best is chosen again over them.
  void merge(const TuningDatabase &other);

  ArrayRef<TuningEntry> getEntries() const { return entries; }

private:
  std::vector<TuningEntry> entries;
};

/// Spearman's rank correlation of two equally long lists (ties get their
/// average rank); nothing with fewer than 3 values or a constant list.
std::optional<double> spearmanCorrelation(ArrayRef<double> a,
                                          ArrayRef<double> b);

} // namespace mlir::xpu

#endif // XPU_DIALECT_XPU_UTILS_TUNINGDATABASE_H
