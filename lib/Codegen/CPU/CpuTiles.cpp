//===- CpuTiles.cpp - per-GEMM tiles of the CPU pipeline ------------------===//

#include "xpu/Codegen/CpuTiles.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::xpu;

static constexpr StringLiteral kRegister = "register_tile";
static constexpr StringLiteral kCache = "cache_tile";

/// "a,b,c".
static std::string joinSizes(ArrayRef<int64_t> sizes) {
  return llvm::join(
      llvm::map_range(sizes, [](int64_t v) { return std::to_string(v); }), ",");
}

std::string CpuTiles::str() const {
  SmallVector<std::string> parts;
  if (!registerTile.empty())
    parts.push_back("register-tile=" + joinSizes(registerTile));
  if (!cacheTile.empty())
    parts.push_back("cache-tile=" + joinSizes(cacheTile));
  return parts.empty() ? std::string("default") : llvm::join(parts, " ");
}

CpuTiles CpuTiles::get(Operation *op) {
  CpuTiles tiles;
  auto dict =
      op->getAttrOfType<DictionaryAttr>(XPUDialect::getCpuTilesAttrName());
  if (!dict)
    return tiles;
  if (auto sizes = dict.getAs<DenseI64ArrayAttr>(kRegister))
    tiles.registerTile.assign(sizes.asArrayRef().begin(),
                              sizes.asArrayRef().end());
  if (auto sizes = dict.getAs<DenseI64ArrayAttr>(kCache))
    tiles.cacheTile.assign(sizes.asArrayRef().begin(),
                           sizes.asArrayRef().end());
  return tiles;
}

void CpuTiles::setOn(Operation *op) const {
  StringRef name = XPUDialect::getCpuTilesAttrName();
  if (empty()) {
    op->removeAttr(name);
    return;
  }
  Builder b(op->getContext());
  SmallVector<NamedAttribute> entries;
  if (!registerTile.empty())
    entries.push_back(
        b.getNamedAttr(kRegister, b.getDenseI64ArrayAttr(registerTile)));
  if (!cacheTile.empty())
    entries.push_back(
        b.getNamedAttr(kCache, b.getDenseI64ArrayAttr(cacheTile)));
  op->setAttr(name, b.getDictionaryAttr(entries));
}

FailureOr<CpuTiles> mlir::xpu::parseCpuTiles(StringRef text,
                                             std::string &error) {
  CpuTiles tiles;
  text = text.trim();
  if (text.empty() || text == "default")
    return tiles;
  SmallVector<StringRef> words;
  text.split(words, ' ', -1, /*KeepEmpty=*/false);
  for (StringRef word : words) {
    auto [key, value] = word.split('=');
    SmallVector<int64_t> *dest = key == "register-tile" ? &tiles.registerTile
                                 : key == "cache-tile"  ? &tiles.cacheTile
                                                        : nullptr;
    size_t count = key == "register-tile" ? 2 : 3;
    if (!dest) {
      error = ("'" + word +
               "' is not register-tile=mr,nr or "
               "cache-tile=mc,nc,kc")
                  .str();
      return failure();
    }
    if (!dest->empty()) {
      error = (key + " is given twice").str();
      return failure();
    }
    SmallVector<StringRef> items;
    value.split(items, ',');
    for (StringRef item : items) {
      int64_t v = 0;
      if (item.trim().getAsInteger(10, v) || v <= 0 || v > (int64_t(1) << 30)) {
        error = (key + " needs sizes in [1, 2^30], got '" + value + "'").str();
        return failure();
      }
      dest->push_back(v);
    }
    if (dest->size() != count) {
      error = (key + " needs " + Twine(count) + " sizes, got '" + value + "'")
                  .str();
      return failure();
    }
  }
  if (!tiles.registerTile.empty() &&
      tiles.registerTile[0] * tiles.registerTile[1] > 4096) {
    error = "register-tile mr x nr must be at most 4096";
    return failure();
  }
  return tiles;
}

SmallVector<int64_t> mlir::xpu::cpuNestCacheTile(int64_t l2Bytes, int64_t k,
                                                 int64_t mr) {
  constexpr int64_t kMaxKBlock = 2048;
  k = std::max<int64_t>(1, k);
  mr = std::max<int64_t>(1, mr);
  int64_t blocks = llvm::divideCeil(k, kMaxKBlock);
  int64_t kc = llvm::divideCeil(k, blocks);
  int64_t rows = std::max<int64_t>(1, l2Bytes / 4 / (kc * 4) / mr) * mr;
  return {rows, 256, kc};
}
