//===- NVVMPasses.cpp - small passes of the NVVM pipeline -----------------===//
//
// What xpu-nvvm-pipeline needs around upstream's NVVM lowering on LLVM
// 22.1.8: bf16 mma.sync, dynamic shared memory for the SIMT kernels and its
// linkage, PTX-valid kernel names, CUDA device or managed buffers, and the
// PTX / cubin of every kernel in files.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Conversion/XPUToNVGPU/XPUToNVGPU.h"
#include "xpu/Dialect/XPU/IR/XPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUNVGPUBF16MMATONVVMPASS
#define GEN_PASS_DEF_XPUSHAREDALLOCSTODYNAMICPASS
#define GEN_PASS_DEF_XPUSANITIZEKERNELNAMESPASS
#define GEN_PASS_DEF_XPUEXTERNDYNAMICSHAREDMEMORYPASS
#define GEN_PASS_DEF_XPULOWERSUBGROUPREDUCEPASS
#define GEN_PASS_DEF_XPUCUDABUFFERSPASS
#define GEN_PASS_DEF_XPUDUMPNVVMBINARIESPASS
#define GEN_PASS_DEF_XPUEXPORTCINTERFACESPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;
using namespace mlir::xpu;

//===----------------------------------------------------------------------===//
// xpu-nvgpu-bf16-mma-to-nvvm
//===----------------------------------------------------------------------===//

namespace {
struct BF16MmaSyncToNVVM final : OpRewritePattern<nvgpu::MmaSyncOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(nvgpu::MmaSyncOp op,
                                PatternRewriter &rewriter) const override {
    VectorType aType = op.getMatrixA().getType();
    if (!aType.getElementType().isBF16())
      return rewriter.notifyMatchFailure(op, "not bf16");
    VectorType cType = op.getMatrixC().getType();
    if (!cType.getElementType().isF32())
      return rewriter.notifyMatchFailure(op, "bf16 mma accumulates in f32");
    Location loc = op.getLoc();
    Type i32 = rewriter.getI32Type();
    // Each row of a bf16 fragment is one 32-bit register (1-D bitcasts:
    // n-D ones do not lower to NVVM directly).
    auto registers = [&](Value v) {
      auto type = cast<VectorType>(v.getType());
      auto regType = VectorType::get({1}, i32);
      SmallVector<Value> regs;
      for (int64_t r = 0; r < type.getDimSize(0); ++r) {
        Value row =
            vector::ExtractOp::create(rewriter, loc, v, ArrayRef<int64_t>{r});
        Value reg = vector::BitCastOp::create(rewriter, loc, regType, row);
        regs.push_back(vector::ExtractOp::create(rewriter, loc, reg,
                                                 ArrayRef<int64_t>{0}));
      }
      return regs;
    };
    SmallVector<Value> a = registers(op.getMatrixA());
    SmallVector<Value> b = registers(op.getMatrixB());
    SmallVector<Value> c;
    for (int64_t r = 0; r < cType.getDimSize(0); ++r)
      for (int64_t e = 0; e < cType.getDimSize(1); ++e)
        c.push_back(vector::ExtractOp::create(rewriter, loc, op.getMatrixC(),
                                              ArrayRef<int64_t>{r, e}));
    std::array<int64_t, 3> shape = op.getMmaShapeAsArray();
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rewriter.getContext(),
        SmallVector<Type>(c.size(), rewriter.getF32Type()));
    Value mma = NVVM::MmaOp::create(
        rewriter, loc, resultType, a, b, c, shape, std::nullopt, std::nullopt,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                      NVVM::MMATypes::bf16},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    Value result = ub::PoisonOp::create(rewriter, loc, cType);
    for (int64_t i = 0, e = c.size(); i < e; ++i) {
      Value x = LLVM::ExtractValueOp::create(rewriter, loc, mma, i);
      SmallVector<int64_t> at = {i / cType.getDimSize(1),
                                 i % cType.getDimSize(1)};
      result = vector::InsertOp::create(rewriter, loc, x, result, at);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct NVGPUBF16MmaToNVVMPass final
    : xpu::impl::XPUNVGPUBF16MmaToNVVMPassBase<NVGPUBF16MmaToNVVMPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateXPUNVGPUBF16MmaPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

void mlir::xpu::populateXPUNVGPUBF16MmaPatterns(RewritePatternSet &patterns) {
  patterns.add<BF16MmaSyncToNVVM>(patterns.getContext());
}

//===----------------------------------------------------------------------===//
// xpu-shared-allocs-to-dynamic
//===----------------------------------------------------------------------===//

namespace {
bool isWorkgroupSpace(Attribute space) {
  if (auto i = dyn_cast_or_null<IntegerAttr>(space))
    return i.getInt() == 3;
  if (auto g = dyn_cast_or_null<gpu::AddressSpaceAttr>(space))
    return g.getValue() == gpu::AddressSpace::Workgroup;
  return false;
}

struct SharedAllocsToDynamicPass final
    : xpu::impl::XPUSharedAllocsToDynamicPassBase<SharedAllocsToDynamicPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    Attribute workgroup =
        gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
    getOperation()->walk([&](gpu::LaunchOp launch) {
      if (launch.getDynamicSharedMemorySize())
        return;
      SmallVector<memref::AllocOp> allocs;
      for (Operation &op : launch.getBody().front())
        if (auto alloc = dyn_cast<memref::AllocOp>(op))
          if (isWorkgroupSpace(alloc.getType().getMemorySpace()) &&
              alloc.getType().hasStaticShape() &&
              alloc.getType().getLayout().isIdentity())
            allocs.push_back(alloc);
      if (allocs.empty())
        return;
      OpBuilder b(ctx);
      b.setInsertionPointToStart(&launch.getBody().front());
      Location loc = launch.getLoc();
      Value base = gpu::DynamicSharedMemoryOp::create(
          b, loc,
          MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                          MemRefLayoutAttrInterface(), workgroup));
      int64_t offset = 0;
      for (memref::AllocOp alloc : allocs) {
        MemRefType type = alloc.getType();
        int64_t bytes = type.getNumElements() *
                        llvm::divideCeil(type.getElementTypeBitWidth(), 8);
        b.setInsertionPoint(alloc);
        Value at = arith::ConstantIndexOp::create(b, loc, offset);
        auto viewType = MemRefType::get(type.getShape(), type.getElementType(),
                                        MemRefLayoutAttrInterface(), workgroup);
        Value view = memref::ViewOp::create(b, alloc.getLoc(), viewType, base,
                                            at, ValueRange());
        if (viewType != type)
          view =
              memref::MemorySpaceCastOp::create(b, alloc.getLoc(), type, view);
        for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
          if (isa<memref::DeallocOp>(user))
            user->erase();
        alloc.replaceAllUsesWith(view);
        alloc.erase();
        offset = llvm::alignTo(offset + bytes, 16);
      }
      b.setInsertionPoint(launch);
      launch.getDynamicSharedMemorySizeMutable().assign(
          arith::ConstantIntOp::create(b, loc, b.getI32Type(), offset));
    });
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// xpu-sanitize-kernel-names
//===----------------------------------------------------------------------===//

namespace {
std::string sanitize(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) || c == '_' || c == '$' ? c : '_');
  if (out.empty() || llvm::isDigit(out.front()))
    out.insert(out.begin(), '_');
  return out;
}

struct SanitizeKernelNamesPass final
    : xpu::impl::XPUSanitizeKernelNamesPassBase<SanitizeKernelNamesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable top(module);
    auto fresh = [](SymbolTable &table, StringRef name) {
      std::string base = sanitize(name), out = base;
      for (unsigned i = 0; table.lookup(out); ++i)
        out = llvm::formatv("{0}_{1}", base, i).str();
      return out;
    };
    for (auto gpuModule :
         llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>())) {
      SymbolTable inner(gpuModule);
      for (auto func :
           llvm::make_early_inc_range(gpuModule.getOps<gpu::GPUFuncOp>())) {
        if (sanitize(func.getName()) == func.getName())
          continue;
        std::string name = fresh(inner, func.getName());
        // Launches name the kernel as @module::@kernel.
        auto oldRef =
            SymbolRefAttr::get(gpuModule.getNameAttr(),
                               {FlatSymbolRefAttr::get(func.getNameAttr())});
        auto newRef =
            SymbolRefAttr::get(gpuModule.getNameAttr(),
                               {FlatSymbolRefAttr::get(&getContext(), name)});
        module.walk([&](gpu::LaunchFuncOp launch) {
          if (launch.getKernel() == oldRef)
            launch.setKernelAttr(newRef);
        });
        if (failed(inner.rename(func, StringAttr::get(&getContext(), name))))
          return signalPassFailure();
      }
      if (sanitize(gpuModule.getName()) == gpuModule.getName())
        continue;
      std::string name = fresh(top, gpuModule.getName());
      if (failed(top.rename(gpuModule, StringAttr::get(&getContext(), name))))
        return signalPassFailure();
    }
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// xpu-extern-dynamic-shared-memory
//===----------------------------------------------------------------------===//

namespace {
struct LowerSubgroupReducePass final
    : xpu::impl::XPULowerSubgroupReducePassBase<LowerSubgroupReducePass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateGpuLowerSubgroupReduceToShufflePatterns(patterns, subgroupSize);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

namespace {
struct ExternDynamicSharedMemoryPass final
    : xpu::impl::XPUExternDynamicSharedMemoryPassBase<
          ExternDynamicSharedMemoryPass> {
  void runOnOperation() override {
    getOperation()->walk([&](LLVM::GlobalOp global) {
      auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
      if (global.getAddrSpace() != 3 || !array || array.getNumElements() != 0)
        return;
      global.setLinkage(LLVM::Linkage::External);
      global.setAlignment(1024);
    });
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// xpu-cuda-buffers
//===----------------------------------------------------------------------===//

namespace {
bool isInGPUCode(Operation *op) {
  return op->getParentOfType<gpu::GPUModuleOp>() ||
         op->getParentOfType<gpu::LaunchOp>() ||
         op->getParentOfType<gpu::GPUFuncOp>();
}

bool isContiguousCopy(memref::CopyOp copy) {
  auto src = cast<MemRefType>(copy.getSource().getType());
  auto dst = cast<MemRefType>(copy.getTarget().getType());
  return src.getLayout().isIdentity() && dst.getLayout().isIdentity();
}

struct CudaBuffersPass final
    : xpu::impl::XPUCudaBuffersPassBase<CudaBuffersPass> {
  using Base::Base;

  /// True when host code may read or write the memory of `value` (or of a
  /// view of it).
  bool touchedByHost(Value value) {
    for (Operation *user : value.getUsers()) {
      // A TMA descriptor is made on the host from the buffer's address,
      // sizes and strides; only the copy engine reads the memory.
      if (isa<gpu::LaunchFuncOp, memref::DeallocOp, gpu::DeallocOp,
              gpu::MemcpyOp, gpu::MemsetOp,
              memref::ExtractAlignedPointerAsIndexOp,
              nvgpu::TmaCreateDescriptorOp>(user))
        continue;
      // Contiguous copies become gpu.memcpy below; strided ones stay on the
      // host.
      if (auto copy = dyn_cast<memref::CopyOp>(user)) {
        if (isContiguousCopy(copy))
          continue;
        return true;
      }
      // Deallocation helpers read the base buffer's pointer only.
      if (auto metadata = dyn_cast<memref::ExtractStridedMetadataOp>(user)) {
        if (touchedByHost(metadata.getBaseBuffer()))
          return true;
        continue;
      }
      if (isa<func::ReturnOp>(user)) {
        if (deviceResults)
          continue;
        return true;
      }
      if (isa<ViewLikeOpInterface>(user) ||
          isa<memref::CollapseShapeOp, memref::ExpandShapeOp,
              memref::ReinterpretCastOp, memref::CastOp>(user)) {
        for (Value r : user->getResults())
          if (isa<BaseMemRefType>(r.getType()) && touchedByHost(r))
            return true;
        continue;
      }
      return true;
    }
    return false;
  }

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](Operation *op) {
      if (isInGPUCode(op))
        return;
      if (auto alloc = dyn_cast<memref::AllocOp>(op))
        allocs.push_back(alloc);
      else if (auto dealloc = dyn_cast<memref::DeallocOp>(op))
        deallocs.push_back(dealloc);
      else if (auto copy = dyn_cast<memref::CopyOp>(op))
        copies.push_back(copy);
    });
    auto tokenType = gpu::AsyncTokenType::get(ctx);
    IRRewriter rewriter(ctx);
    for (memref::AllocOp alloc : allocs) {
      if (alloc.getType().getMemorySpace())
        continue;
      Location loc = alloc.getLoc();
      rewriter.setInsertionPoint(alloc);
      if (touchedByHost(alloc.getResult())) {
        auto shared = gpu::AllocOp::create(
            rewriter, loc, alloc.getType(), Type(), ValueRange(),
            alloc.getDynamicSizes(), alloc.getSymbolOperands(),
            rewriter.getUnitAttr());
        rewriter.replaceOp(alloc, shared.getMemref());
        ++numManaged;
        continue;
      }
      // gpu-to-llvm lowers device allocations in their async form only.
      auto start = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange());
      auto device = gpu::AllocOp::create(
          rewriter, loc, alloc.getType(), tokenType,
          ValueRange{start.getAsyncToken()}, alloc.getDynamicSizes(),
          alloc.getSymbolOperands(), UnitAttr());
      gpu::WaitOp::create(rewriter, loc, Type(),
                          ValueRange{device.getAsyncToken()});
      rewriter.replaceOp(alloc, device.getMemref());
      ++numDevice;
    }
    for (memref::CopyOp copy : copies) {
      // Contiguous copies only; strided ones stay host copies of managed
      // memory.
      if (!isContiguousCopy(copy))
        continue;
      Location loc = copy.getLoc();
      rewriter.setInsertionPoint(copy);
      auto start = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange());
      auto memcpy = gpu::MemcpyOp::create(rewriter, loc, tokenType,
                                          ValueRange{start.getAsyncToken()},
                                          copy.getTarget(), copy.getSource());
      gpu::WaitOp::create(rewriter, loc, Type(),
                          ValueRange{memcpy.getAsyncToken()});
      rewriter.eraseOp(copy);
    }
    for (memref::DeallocOp dealloc : deallocs) {
      Value memref = dealloc.getMemref();
      if (cast<BaseMemRefType>(memref.getType()).getMemorySpace())
        continue;
      Location loc = dealloc.getLoc();
      rewriter.setInsertionPoint(dealloc);
      auto start = gpu::WaitOp::create(rewriter, loc, tokenType, ValueRange());
      auto free = gpu::DeallocOp::create(
          rewriter, loc, tokenType, ValueRange{start.getAsyncToken()}, memref);
      gpu::WaitOp::create(rewriter, loc, Type(),
                          ValueRange{free.getAsyncToken()});
      rewriter.eraseOp(dealloc);
    }
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// xpu-dump-nvvm-binaries
//===----------------------------------------------------------------------===//

namespace {
struct DumpNVVMBinariesPass final
    : xpu::impl::XPUDumpNVVMBinariesPassBase<DumpNVVMBinariesPass> {
  using Base::Base;

  LogicalResult write(Operation *at, StringRef name, StringRef bytes) {
    SmallString<128> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
    if (ec)
      return at->emitError() << "xpu-dump-nvvm-binaries: cannot write '" << path
                             << "': " << ec.message();
    os << bytes;
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      module.emitError() << "xpu-dump-nvvm-binaries: cannot create directory '"
                         << dir << "': " << ec.message();
      return signalPassFailure();
    }
    if (ptx) {
      for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
        ArrayAttr targets = gpuModule.getTargetsAttr();
        if (!targets || targets.empty())
          continue;
        auto target = dyn_cast<gpu::TargetAttrInterface>(targets[0]);
        if (!target || !isa<NVVM::NVVMTargetAttr>(targets[0]))
          continue;
        gpu::TargetOptions options({}, {}, {}, {},
                                   gpu::CompilationTarget::Assembly);
        std::optional<SmallVector<char, 0>> ptxText =
            target.serializeToObject(gpuModule, options);
        if (!ptxText) {
          gpuModule.emitError()
              << "xpu-dump-nvvm-binaries: could not generate PTX";
          return signalPassFailure();
        }
        StringRef text(ptxText->data(), ptxText->size());
        text = text.rtrim('\0');
        if (failed(
                write(gpuModule, (gpuModule.getName() + ".ptx").str(), text)))
          return signalPassFailure();
      }
      return;
    }
    WalkResult result = module.walk([&](gpu::BinaryOp binary) {
      for (auto [i, attr] : llvm::enumerate(binary.getObjects())) {
        auto object = dyn_cast<gpu::ObjectAttr>(attr);
        if (!object)
          continue;
        StringRef ext = "cubin";
        if (object.getFormat() == gpu::CompilationTarget::Fatbin)
          ext = "fatbin";
        else if (object.getFormat() == gpu::CompilationTarget::Assembly)
          ext = "ptx";
        std::string name =
            i == 0 ? llvm::formatv("{0}.{1}", binary.getSymName(), ext).str()
                   : llvm::formatv("{0}.{1}.{2}", binary.getSymName(), i, ext)
                         .str();
        if (failed(write(binary, name, object.getObject().getValue())))
          return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// xpu-export-c-interfaces
//===----------------------------------------------------------------------===//

namespace {
struct ExportCInterfacesPass final
    : xpu::impl::XPUExportCInterfacesPassBase<ExportCInterfacesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringSet<> entries;
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        entries.insert(func.getSymName());
    MLIRContext *ctx = &getContext();
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      StringRef name = func.getSymName();
      bool packing = false;
      for (StringRef suffix : {".pack", ".packed"})
        if (name.ends_with(suffix) &&
            entries.contains(name.drop_back(suffix.size())))
          packing = true;
      if (!packing && !entries.contains(name))
        continue;
      func.setPublic();
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    UnitAttr::get(ctx));
      // The C wrapper would carry xpu.weight onto descriptor pointers, where
      // it means nothing (and LLVM's translation warns about it); the weights
      // were outlined before this pass.
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        func.removeArgAttr(i, xpu::XPUDialect::getWeightAttrName());
    }
  }
};
} // namespace
