//===- HostTensor.cpp - xpu-run's inputs and outputs ----------------------===//

#include "HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <unistd.h>

using namespace mlir;
using namespace mlir::xpu::run;
using llvm::StringRef;

unsigned mlir::xpu::run::elemBytes(ElemKind kind) {
  switch (kind) {
  case ElemKind::I1:
  case ElemKind::I8:
    return 1;
  case ElemKind::F16:
  case ElemKind::BF16:
  case ElemKind::I16:
    return 2;
  case ElemKind::F32:
  case ElemKind::I32:
    return 4;
  case ElemKind::F64:
  case ElemKind::I64:
    return 8;
  }
  llvm_unreachable("unknown element kind");
}

StringRef mlir::xpu::run::elemName(ElemKind kind) {
  switch (kind) {
  case ElemKind::F16:
    return "f16";
  case ElemKind::BF16:
    return "bf16";
  case ElemKind::F32:
    return "f32";
  case ElemKind::F64:
    return "f64";
  case ElemKind::I1:
    return "i1";
  case ElemKind::I8:
    return "i8";
  case ElemKind::I16:
    return "i16";
  case ElemKind::I32:
    return "i32";
  case ElemKind::I64:
    return "i64";
  }
  llvm_unreachable("unknown element kind");
}

static std::optional<ElemKind> elemKindFromName(StringRef name) {
  for (ElemKind k : {ElemKind::F16, ElemKind::BF16, ElemKind::F32,
                     ElemKind::F64, ElemKind::I1, ElemKind::I8, ElemKind::I16,
                     ElemKind::I32, ElemKind::I64})
    if (elemName(k) == name)
      return k;
  if (name == "index")
    return ElemKind::I64;
  return std::nullopt;
}

std::optional<ElemKind> mlir::xpu::run::elemKindOf(Type type) {
  if (type.isF16())
    return ElemKind::F16;
  if (type.isBF16())
    return ElemKind::BF16;
  if (type.isF32())
    return ElemKind::F32;
  if (type.isF64())
    return ElemKind::F64;
  if (type.isIndex())
    return ElemKind::I64;
  if (auto i = dyn_cast<IntegerType>(type)) {
    switch (i.getWidth()) {
    case 1:
      return ElemKind::I1;
    case 8:
      return ElemKind::I8;
    case 16:
      return ElemKind::I16;
    case 32:
      return ElemKind::I32;
    case 64:
      return ElemKind::I64;
    default:
      return std::nullopt;
    }
  }
  return std::nullopt;
}

bool mlir::xpu::run::isFloat(ElemKind kind) {
  return kind == ElemKind::F16 || kind == ElemKind::BF16 ||
         kind == ElemKind::F32 || kind == ElemKind::F64;
}

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

std::string HostTensor::typeString() const {
  std::string s;
  for (int64_t d : shape)
    s += std::to_string(d) + "x";
  return s + elemName(kind).str();
}

static double halfToDouble(const llvm::fltSemantics &sem, uint16_t bits) {
  llvm::APFloat f(sem, llvm::APInt(16, bits));
  bool lost;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

static uint16_t doubleToHalf(const llvm::fltSemantics &sem, double v) {
  llvm::APFloat f(v);
  bool lost;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return static_cast<uint16_t>(f.bitcastToAPInt().getZExtValue());
}

double HostTensor::get(int64_t i) const {
  const uint8_t *p = bytes.data() + i * elemBytes(kind);
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (kind) {
  case ElemKind::F16:
    return halfToDouble(llvm::APFloat::IEEEhalf(), load(uint16_t()));
  case ElemKind::BF16:
    return halfToDouble(llvm::APFloat::BFloat(), load(uint16_t()));
  case ElemKind::F32:
    return load(float());
  case ElemKind::F64:
    return load(double());
  case ElemKind::I1:
    return load(uint8_t()) & 1;
  case ElemKind::I8:
    return load(int8_t());
  case ElemKind::I16:
    return load(int16_t());
  case ElemKind::I32:
    return load(int32_t());
  case ElemKind::I64:
    return static_cast<double>(load(int64_t()));
  }
  llvm_unreachable("unknown element kind");
}

void HostTensor::set(int64_t i, double v) {
  uint8_t *p = bytes.data() + i * elemBytes(kind);
  auto store = [&](auto x) { std::memcpy(p, &x, sizeof(x)); };
  switch (kind) {
  case ElemKind::F16:
    return store(doubleToHalf(llvm::APFloat::IEEEhalf(), v));
  case ElemKind::BF16:
    return store(doubleToHalf(llvm::APFloat::BFloat(), v));
  case ElemKind::F32:
    return store(static_cast<float>(v));
  case ElemKind::F64:
    return store(v);
  case ElemKind::I1:
    return store(static_cast<uint8_t>(v != 0));
  case ElemKind::I8:
    return store(static_cast<int8_t>(v));
  case ElemKind::I16:
    return store(static_cast<int16_t>(v));
  case ElemKind::I32:
    return store(static_cast<int32_t>(v));
  case ElemKind::I64:
    return store(static_cast<int64_t>(v));
  }
}

static llvm::Error error(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Allocates `t.bytes` for its shape; fails for sizes that overflow.
static llvm::Error allocate(HostTensor &t) {
  uint64_t n = 1;
  for (int64_t d : t.shape) {
    if (d < 0)
      return error("negative dimension in " + t.typeString());
    if (d && n > (uint64_t(1) << 62) / uint64_t(d))
      return error("the size of " + t.typeString() + " overflows");
    n *= uint64_t(d);
  }
  uint64_t size = n * elemBytes(t.kind);
  long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && pageSize > 0 && size > uint64_t(pages) * uint64_t(pageSize))
    return error(llvm::formatv("{0} needs {1} bytes, more than this "
                               "machine's memory",
                               t.typeString(), size));
  t.bytes.assign(size, 0);
  return llvm::Error::success();
}

/// Parses `2x3xf32` (or `f32`) into a shape and an element kind.
static llvm::Error parseType(StringRef text, HostTensor &t) {
  llvm::SmallVector<StringRef> parts;
  text.trim().split(parts, 'x');
  std::optional<ElemKind> kind = elemKindFromName(parts.back().trim());
  if (!kind)
    return error("unknown element type '" + parts.back().trim() +
                 "' (expected f16, bf16, f32, f64, i1, i8, i16, i32, i64)");
  t.kind = *kind;
  parts.pop_back();
  for (StringRef p : parts) {
    int64_t d;
    if (p.trim().getAsInteger(10, d) || d < 0)
      return error("bad dimension '" + p + "' in '" + text + "'");
    t.shape.push_back(d);
  }
  return llvm::Error::success();
}

llvm::Expected<HostTensor> mlir::xpu::run::parseInline(StringRef text) {
  auto [type, values] = text.split('=');
  if (!text.contains('='))
    return error("expected TYPE=VALUES (e.g. 2x3xf32=1 2 3 4 5 6), @FILE.npy "
                 "or 'random', got '" +
                 text + "'");
  HostTensor t;
  if (llvm::Error e = parseType(type, t))
    return std::move(e);
  std::string cleaned = values.str();
  for (char &c : cleaned)
    if (c == '[' || c == ']' || c == ',')
      c = ' ';
  llvm::SmallVector<StringRef> tokens;
  llvm::SplitString(cleaned, tokens);
  if (llvm::Error e = allocate(t))
    return std::move(e);
  int64_t n = t.numElements();
  if (tokens.empty())
    return error("no values after '=' in '" + text + "'");
  if (static_cast<int64_t>(tokens.size()) != n && tokens.size() != 1)
    return error(llvm::formatv("{0} has {1} elements but {2} values were "
                               "given (give all of them, or one to fill it)",
                               t.typeString(), n, tokens.size()));
  llvm::SmallVector<double> parsed;
  for (StringRef tok : tokens) {
    double v;
    if (tok == "true" || tok == "false")
      v = tok == "true";
    else if (tok.getAsDouble(v))
      return error("bad value '" + tok + "' in '" + text + "'");
    parsed.push_back(v);
  }
  for (int64_t i = 0; i < n; ++i)
    t.set(i, parsed[parsed.size() == 1 ? 0 : i]);
  return t;
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

static std::optional<ElemKind> kindFromDescr(StringRef d) {
  if (d.size() < 2)
    return std::nullopt;
  char order = d[0];
  StringRef code = d.drop_front();
  if (order == '>' && code != "i1" && code != "u1" && code != "b1")
    return std::nullopt;
  if (code == "f2")
    return ElemKind::F16;
  if (code == "f4")
    return ElemKind::F32;
  if (code == "f8")
    return ElemKind::F64;
  if (code == "b1")
    return ElemKind::I1;
  if (code == "i1" || code == "u1")
    return ElemKind::I8;
  if (code == "i2")
    return ElemKind::I16;
  if (code == "i4")
    return ElemKind::I32;
  if (code == "i8")
    return ElemKind::I64;
  return std::nullopt;
}

static StringRef descrOf(ElemKind kind) {
  switch (kind) {
  case ElemKind::F16:
    return "<f2";
  case ElemKind::BF16:
  case ElemKind::F32:
    return "<f4";
  case ElemKind::F64:
    return "<f8";
  case ElemKind::I1:
    return "|b1";
  case ElemKind::I8:
    return "|i1";
  case ElemKind::I16:
    return "<i2";
  case ElemKind::I32:
    return "<i4";
  case ElemKind::I64:
    return "<i8";
  }
  llvm_unreachable("unknown element kind");
}

/// The value of `key` in the header dict, e.g. 'descr': '<f4'.
static StringRef headerValue(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return {};
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return {};
  rest = rest.ltrim();
  if (rest.starts_with("'"))
    return rest.drop_front().take_until([](char c) { return c == '\''; });
  if (rest.starts_with("("))
    return rest.drop_front().take_until([](char c) { return c == ')'; });
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).trim();
}

llvm::Expected<HostTensor> mlir::xpu::run::readNpy(StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return error("cannot read '" + path + "': " + file.getError().message());
  StringRef data = (*file)->getBuffer();
  if (!data.starts_with("\x93NUMPY") || data.size() < 10)
    return error("'" + path + "' is not a .npy file (no \\x93NUMPY magic)");
  uint8_t major = data[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = uint8_t(data[8]) | (uint8_t(data[9]) << 8);
    headerStart = 10;
  } else {
    if (data.size() < 12)
      return error("'" + path + "': truncated .npy header");
    headerLen = uint32_t(uint8_t(data[8])) | (uint32_t(uint8_t(data[9])) << 8) |
                (uint32_t(uint8_t(data[10])) << 16) |
                (uint32_t(uint8_t(data[11])) << 24);
    headerStart = 12;
  }
  if (headerStart + headerLen > data.size())
    return error("'" + path + "': truncated .npy header");
  StringRef header = data.substr(headerStart, headerLen);
  StringRef descr = headerValue(header, "descr");
  std::optional<ElemKind> kind = kindFromDescr(descr);
  if (!kind)
    return error("'" + path + "': unsupported dtype '" + descr +
                 "' (little-endian f2, f4, f8, b1, i1, u1, i2, i4, i8)");
  if (headerValue(header, "fortran_order") != "False")
    return error("'" + path +
                 "': Fortran-order arrays are not supported "
                 "(save a C-order array)");
  HostTensor t;
  t.kind = *kind;
  llvm::SmallVector<StringRef> dims;
  headerValue(header, "shape").split(dims, ',', -1, /*KeepEmpty=*/false);
  for (StringRef d : dims) {
    int64_t v;
    if (d.trim().empty())
      continue;
    if (d.trim().getAsInteger(10, v) || v < 0)
      return error("'" + path + "': bad shape in the .npy header");
    t.shape.push_back(v);
  }
  if (llvm::Error e = allocate(t))
    return std::move(e);
  StringRef payload = data.drop_front(headerStart + headerLen);
  if (payload.size() < t.bytes.size())
    return error(llvm::formatv("'{0}': {1} needs {2} bytes of data, the file "
                               "has {3}",
                               path, t.typeString(), t.bytes.size(),
                               payload.size()));
  std::memcpy(t.bytes.data(), payload.data(), t.bytes.size());
  return t;
}

llvm::Error mlir::xpu::run::writeNpy(StringRef path, const HostTensor &t) {
  HostTensor out = t;
  if (t.kind == ElemKind::BF16) {
    out.kind = ElemKind::F32;
    out.bytes.assign(t.numElements() * 4, 0);
    for (int64_t i = 0, e = t.numElements(); i < e; ++i)
      out.set(i, t.get(i));
  }
  std::string shape;
  for (int64_t d : out.shape)
    shape += std::to_string(d) + ", ";
  if (out.shape.size() > 1)
    shape.resize(shape.size() - 1);
  std::string header =
      llvm::formatv(
          "{{'descr': '{0}', 'fortran_order': False, 'shape': ({1}), }",
          descrOf(out.kind), StringRef(shape).rtrim(' '))
          .str();
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return error("cannot write '" + path + "': " + ec.message());
  os << "\x93NUMPY" << char(1) << char(0) << char(header.size() & 0xff)
     << char(header.size() >> 8) << header;
  os.write(reinterpret_cast<const char *>(out.bytes.data()), out.bytes.size());
  os.close();
  if (os.has_error())
    return error("cannot write '" + path + "': " + os.error().message());
  return llvm::Error::success();
}

HostTensor mlir::xpu::run::randomTensor(ElemKind kind,
                                        llvm::ArrayRef<int64_t> shape,
                                        uint64_t seed, bool positive) {
  HostTensor t;
  t.kind = kind;
  t.shape.assign(shape.begin(), shape.end());
  cantFail(allocate(t));
  // splitmix64: a fixed, documented sequence for every seed.
  uint64_t state = seed * 0x9E3779B97F4A7C15ull + 0x1234567ull;
  auto next = [&] {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  for (int64_t i = 0, e = t.numElements(); i < e; ++i) {
    double u = double(next() >> 11) * 0x1.0p-53; // [0, 1)
    double v;
    if (kind == ElemKind::I1)
      v = u < 0.5 ? 0 : 1;
    else if (!isFloat(kind))
      v = std::floor(u * 8);
    else
      v = positive ? u + 0.5 : 2 * u - 1;
    t.set(i, v);
  }
  return t;
}

/// Shortest form that reads back as the same float32 (%.9g).
static std::string formatValue(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

void mlir::xpu::run::print(llvm::raw_ostream &os, const HostTensor &t,
                           int64_t limit) {
  os << t.typeString() << "=";
  int64_t n = t.numElements();
  if (t.shape.empty()) {
    os << formatValue(t.get(0));
    return;
  }
  int64_t inner = t.shape.back();
  for (int64_t i = 0; i < n && i < limit; ++i) {
    if (inner && i % inner == 0)
      os << "[";
    else
      os << " ";
    double v = t.get(i);
    if (isFloat(t.kind))
      os << formatValue(v);
    else
      os << static_cast<int64_t>(v);
    if (inner && (i + 1) % inner == 0)
      os << "]";
  }
  if (n > limit)
    os << " ... (" << n << " elements; --output=@FILE.npy writes them all)";
}
