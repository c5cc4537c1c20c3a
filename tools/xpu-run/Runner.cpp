//===- Runner.cpp - call the functions of a JIT-compiled program ----------===//

#include "Runner.h"

#include "xpu/Config/BuildPaths.h"
#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Runtime/XPURuntime.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <cstring>

using namespace mlir;
using namespace mlir::xpu::run;

//===----------------------------------------------------------------------===//
// Program
//===----------------------------------------------------------------------===//

Program::~Program() = default;

/// Fails with one error naming the function, its CPU and the features this
/// host lacks when a function of `module` is compiled for features the
/// host does not have (xpu-cpu-target-features): running it would raise
/// SIGILL.
static LogicalResult checkHostFeatures(ModuleOp module) {
  LogicalResult result = success();
  module.walk([&](LLVM::LLVMFuncOp fn) {
    LLVM::TargetFeaturesAttr features = fn.getTargetFeaturesAttr();
    if (fn.isExternal() || features.nullOrEmpty())
      return WalkResult::advance();
    SmallVector<std::string> missing =
        xpu::getMissingHostFeatures(features.getFeaturesString());
    if (missing.empty())
      return WalkResult::advance();
    result = fn.emitError()
             << "xpu-run: '" << fn.getSymName() << "' is compiled for "
             << fn.getTargetCpu().value_or("its CPU")
             << " and uses features this host's CPU (" << xpu::getHostCpu().name
             << ") lacks: " << llvm::join(missing, ", ")
             << "; compile for this host (chip=host) or run on such a CPU";
    return WalkResult::interrupt();
  });
  return result;
}

FailureOr<std::unique_ptr<Program>>
Program::create(ModuleOp module, const TargetInfo &target,
                ArrayRef<std::string> sharedLibs, unsigned optLevel,
                bool deviceOnly) {
  if (failed(checkHostFeatures(module)))
    return failure();
  auto program = std::unique_ptr<Program>(new Program());
  SmallVector<std::string> libs(sharedLibs.begin(), sharedLibs.end());
  FailureOr<std::string> runtime = runtimeLibraryPath(target, module.getLoc());
  if (failed(runtime))
    return failure();
  if (!runtime->empty()) {
    libs.push_back(*runtime);
    std::string error;
    auto library = llvm::sys::DynamicLibrary::getPermanentLibrary(
        runtime->c_str(), &error);
    if (!library.isValid())
      return module.emitError() << "xpu-run: cannot load the runtime library '"
                                << *runtime << "': " << error;
    program->memAlloc_ = reinterpret_cast<void *(*)(uint64_t, void *, bool)>(
        library.getAddressOfSymbol("mgpuMemAlloc"));
    program->memFree_ = reinterpret_cast<void (*)(void *, void *)>(
        library.getAddressOfSymbol("mgpuMemFree"));
    program->profileStart_ = reinterpret_cast<void (*)()>(
        library.getAddressOfSymbol("xpuRuntimeProfileStart"));
    program->profileStop_ = reinterpret_cast<int (*)(XPUKernelProfile *, int)>(
        library.getAddressOfSymbol("xpuRuntimeProfileStop"));
    program->lastError_ = reinterpret_cast<int (*)(char *, size_t)>(
        library.getAddressOfSymbol("xpuRuntimeGetLastError"));
    if (!program->memAlloc_ || !program->memFree_ || !program->lastError_)
      return module.emitError() << "xpu-run: '" << *runtime
                                << "' does not export mgpuMemAlloc/mgpuMemFree/"
                                   "xpuRuntimeGetLastError";
    program->memcpy_ =
        reinterpret_cast<void (*)(void *, void *, size_t, void *)>(
            library.getAddressOfSymbol("mgpuMemcpy"));
    program->streamSynchronize_ = reinterpret_cast<void (*)(void *)>(
        library.getAddressOfSymbol("mgpuStreamSynchronize"));
    if (deviceOnly) {
      auto setDeviceOnly = reinterpret_cast<void (*)(int)>(
          library.getAddressOfSymbol("xpuRuntimeSetDeviceOnlyMemory"));
      if (!setDeviceOnly || !program->memcpy_ || !program->streamSynchronize_)
        return module.emitError()
               << "xpu-run: '" << *runtime
               << "' does not export xpuRuntimeSetDeviceOnlyMemory, "
                  "mgpuMemcpy and mgpuStreamSynchronize";
      setDeviceOnly(1);
      program->deviceOnly_ = true;
    }
  }
  SmallVector<StringRef> libRefs(libs.begin(), libs.end());
  ExecutionEngineOptions engineOptions;
  auto transformer = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel =
      static_cast<llvm::CodeGenOptLevel>(std::min(optLevel, 3u));
  engineOptions.sharedLibPaths = libRefs;
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine = [&] {
    Progress progress(true, "compiling the host code to machine code");
    return ExecutionEngine::create(module, engineOptions);
  }();
  if (!engine)
    return module.emitError() << "xpu-run: cannot JIT-compile the module: "
                              << llvm::toString(engine.takeError());
  program->engine_ = std::move(*engine);
  {
    Progress progress(
        !runtime->empty(),
        llvm::formatv("loading the kernels on {0}", target.name).str());
    program->engine_->initialize();
  }
  // The kernel modules loaded in global constructors.
  if (failed(program->checkRuntime()))
    return failure();
  return program;
}

LogicalResult Program::checkRuntime() const {
  return lastError_ && lastError_(nullptr, 0) > 0 ? failure() : success();
}

FailureOr<Buffer> Program::allocate(Type t, const HostTensor *value,
                                    Location loc, bool deviceOnly) {
  Buffer b;
  Type elt = t;
  if (auto tensor = dyn_cast<RankedTensorType>(t)) {
    elt = tensor.getElementType();
    b.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  } else {
    b.isScalar = true;
  }
  b.kind = *elemKindOf(elt);
  if (b.isScalar) {
    if (value) {
      double v = value->get(0);
      switch (b.kind) {
      case ElemKind::F32: {
        float f = static_cast<float>(v);
        std::memcpy(&b.scalar, &f, sizeof(f));
        break;
      }
      case ElemKind::F64:
        std::memcpy(&b.scalar, &v, sizeof(v));
        break;
      case ElemKind::F16:
      case ElemKind::BF16: {
        HostTensor h = *value;
        std::memcpy(&b.scalar, h.bytes.data(), 2);
        break;
      }
      default:
        b.scalar = static_cast<int64_t>(v);
      }
    }
    return b;
  }
  uint64_t n = 1;
  for (int64_t d : b.shape)
    n *= uint64_t(d);
  b.bytes = n * elemBytes(b.kind);
  uint64_t physical = physicalMemoryBytes();
  if (physical && b.bytes > physical)
    return emitError(loc) << llvm::formatv(
               "xpu-run: a buffer of type {0} needs {1} bytes, more than this "
               "machine's {2} bytes of memory",
               t, b.bytes, physical);
  size_t rounded = std::max<size_t>((b.bytes + 63) / 64 * 64, 64);
  b.deviceOnly = deviceOnly && deviceOnly_;
  b.data = memAlloc_ ? memAlloc_(rounded, nullptr,
                                 /*isHostShared=*/!b.deviceOnly)
                     : std::aligned_alloc(64, rounded);
  if (!b.data)
    return emitError(loc) << llvm::formatv(
               "xpu-run: cannot allocate {0} bytes for a buffer of type {1}",
               b.bytes, t);
  if (b.deviceOnly) {
    // Filled through the runtime: the host cannot touch the memory.
    std::vector<uint8_t> zeros;
    const void *from = value ? value->bytes.data() : nullptr;
    if (!from) {
      zeros.assign(b.bytes, 0);
      from = zeros.data();
    }
    memcpy_(b.data, const_cast<void *>(from), b.bytes, nullptr);
    streamSynchronize_(nullptr);
    if (failed(checkRuntime()))
      return failure();
  } else if (value) {
    std::memcpy(b.data, value->bytes.data(), b.bytes);
  } else {
    std::memset(b.data, 0, b.bytes);
  }
  auto ptr = reinterpret_cast<int64_t>(b.data);
  b.descriptor = {ptr, ptr, 0};
  for (int64_t d : b.shape)
    b.descriptor.push_back(d);
  int64_t stride = 1;
  SmallVector<int64_t> strides(b.shape.size());
  for (int64_t d = static_cast<int64_t>(b.shape.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= b.shape[d];
  }
  b.descriptor.insert(b.descriptor.end(), strides.begin(), strides.end());
  return b;
}

void Program::release(Buffer &b) {
  if (!b.data)
    return;
  if (memFree_)
    memFree_(b.data, nullptr);
  else
    std::free(b.data);
  b.data = nullptr;
}

HostTensor Program::read(const Buffer &b) const {
  HostTensor t;
  t.kind = b.kind;
  t.shape = b.shape;
  if (b.isScalar) {
    t.bytes.assign(elemBytes(b.kind), 0);
    std::memcpy(t.bytes.data(), &b.scalar, elemBytes(b.kind));
    return t;
  }
  if (b.deviceOnly) {
    t.bytes.assign(b.bytes, 0);
    memcpy_(t.bytes.data(), b.data, b.bytes, nullptr);
    streamSynchronize_(nullptr);
    return t;
  }
  t.bytes.assign(static_cast<const uint8_t *>(b.data),
                 static_cast<const uint8_t *>(b.data) + b.bytes);
  return t;
}

LogicalResult Program::prepare(StringRef function, Location loc) {
  if (entries_.count(function))
    return success();
  std::string symbol = "_mlir_ciface_" + entryName(function);
  llvm::Expected<void (*)(void **)> fn = engine_->lookupPacked(symbol);
  if (!fn)
    return emitError(loc) << "xpu-run: the compiled program has no '" << symbol
                          << "': " << llvm::toString(fn.takeError());
  entries_.try_emplace(function, *fn);
  return success();
}

LogicalResult Program::call(StringRef function, ArrayRef<Buffer *> inputs,
                            ArrayRef<Buffer *> outputs, Location loc) {
  if (failed(prepare(function, loc)))
    return failure();
  auto it = entries_.find(function);
  size_t n = inputs.size() + outputs.size();
  SmallVector<void *> descriptors(n), args(n);
  size_t i = 0;
  for (ArrayRef<Buffer *> group : {inputs, outputs}) {
    for (Buffer *b : group) {
      if (b->isScalar) {
        args[i] = &b->scalar;
      } else {
        descriptors[i] = b->descriptor.data();
        args[i] = &descriptors[i];
      }
      ++i;
    }
  }
  it->second(args.data());
  return checkRuntime();
}

bool Program::profileStart() {
  if (!profileStart_ || !profileStop_)
    return false;
  profileStart_();
  return true;
}

std::vector<KernelStats> Program::profileStop() {
  std::vector<KernelStats> stats;
  if (!profileStop_)
    return stats;
  std::vector<XPUKernelProfile> raw(4096);
  int count = profileStop_(raw.data(), static_cast<int>(raw.size()));
  if (count > static_cast<int>(raw.size()))
    llvm::errs() << "xpu-run: " << count << " kernels ran; the first "
                 << raw.size() << " are shown\n";
  for (int i = 0; i < count && i < static_cast<int>(raw.size()); ++i)
    stats.push_back({raw[i].name, raw[i].launches, raw[i].deviceNanoseconds});
  return stats;
}
