//===- EmbedXeBuildOptions.cpp - compiler options inside Xe SPIR-V --------===//
//
// The options of an #xevm.target reach ocloc only; a SPIR-V object that Level
// Zero compiles at load time would lose them (the 256-GRF mode, for one).
// They are written into the module as OpModuleProcessed, which the xpu Level
// Zero and OpenCL runtimes read back. The generic SPIR-V kernels of an Xe
// target (#spirv.target_env objects, which carry no options) get the GRF
// mode the register model plans for them.
//
//===----------------------------------------------------------------------===//

#include "xpu/Conversion/Passes.h"
#include "xpu/Dialect/XPU/IR/XPUOps.h"
#include "xpu/Dialect/XPU/Utils/GemmUtils.h"
#include "xpu/Dialect/XPU/Utils/RegisterPressure.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/XeVMDialect.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

namespace mlir::xpu {
#define GEN_PASS_DEF_XPUEMBEDXEBUILDOPTIONSPASS
#include "xpu/Conversion/Passes.h.inc"
} // namespace mlir::xpu

using namespace mlir;

/// The prefix the runtimes look for (runtime/LevelZero, runtime/OpenCL).
static constexpr StringLiteral kPrefix = "xpu.build-options: ";
static constexpr StringLiteral kPassArg = "xpu-embed-xe-build-options";
/// IGC's option for 256-GRF mode.
static constexpr StringLiteral kLargeGrfOption = "-ze-opt-large-register-file";

namespace {
constexpr uint32_t kSpirvMagic = 0x07230203;
constexpr unsigned kHeaderWords = 5;
constexpr uint32_t kOpModuleProcessed = 330;

/// Opcodes that may precede OpModuleProcessed in a module's logical layout:
/// capabilities, extensions, imports, memory model, entry points, execution
/// modes and the debug instructions.
bool precedesModuleProcessed(uint32_t opcode) {
  switch (opcode) {
  case 17:  // OpCapability
  case 10:  // OpExtension
  case 11:  // OpExtInstImport
  case 14:  // OpMemoryModel
  case 15:  // OpEntryPoint
  case 16:  // OpExecutionMode
  case 331: // OpExecutionModeId
  case 7:   // OpString
  case 4:   // OpSourceExtension
  case 3:   // OpSource
  case 2:   // OpSourceContinued
  case 5:   // OpName
  case 6:   // OpMemberName
  case 330: // OpModuleProcessed
    return true;
  default:
    return false;
  }
}

/// Returns `spirv` with OpModuleProcessed "<prefix><options>" inserted, or
/// failure if `spirv` is not a well-formed SPIR-V word stream.
FailureOr<std::string> embed(StringRef spirv, StringRef options) {
  if (spirv.size() % 4 != 0 || spirv.size() < kHeaderWords * 4)
    return failure();
  auto word = [&](size_t i) {
    return llvm::support::endian::read32le(spirv.data() + 4 * i);
  };
  if (word(0) != kSpirvMagic)
    return failure();
  size_t numWords = spirv.size() / 4;
  size_t at = kHeaderWords;
  while (at < numWords && precedesModuleProcessed(word(at) & 0xffff)) {
    uint32_t count = word(at) >> 16;
    if (count == 0 || at + count > numWords)
      return failure();
    at += count;
  }
  // The literal string: UTF-8, nul-terminated, padded to whole words.
  std::string text = (kPrefix + options).str();
  size_t stringWords = text.size() / 4 + 1;
  text.resize(stringWords * 4, '\0');
  std::string inst(4, '\0');
  llvm::support::endian::write32le(
      inst.data(), uint32_t((1 + stringWords) << 16) | kOpModuleProcessed);
  inst += text;
  std::string result = spirv.str();
  result.insert(at * 4, inst);
  return result;
}

struct EmbedXeBuildOptionsPass final
    : xpu::impl::XPUEmbedXeBuildOptionsPassBase<EmbedXeBuildOptionsPass> {
  using Base::Base;

  void runOnOperation() override {
    // The options of generic SPIR-V kernels: those of the target's SIMT
    // kernels, when there is an Xe target.
    std::string genericOptions;
    ModuleOp module = getOperation();
    if (xpu::TargetAttr target = xpu::TargetAttr::lookup(module))
      if (xpu::getGenericKernelGrfMode(target) == 256)
        genericOptions = kLargeGrfOption;

    WalkResult result = module.walk([&](gpu::BinaryOp binary) {
      SmallVector<Attribute> objects;
      bool changed = false;
      for (Attribute attr : binary.getObjects()) {
        objects.push_back(attr);
        auto object = dyn_cast<gpu::ObjectAttr>(attr);
        if (!object)
          continue;
        SmallVector<StringRef> parts;
        if (auto target = dyn_cast<xevm::XeVMTargetAttr>(object.getTarget())) {
          auto options = target.getFlags()
                             ? dyn_cast_or_null<ArrayAttr>(
                                   target.getFlags().get("cmd-options"))
                             : ArrayAttr();
          if (options)
            for (Attribute option : options)
              if (auto str = dyn_cast<StringAttr>(option))
                parts.push_back(str.getValue());
        } else if (isa<spirv::TargetEnvAttr>(object.getTarget()) &&
                   !genericOptions.empty()) {
          parts.push_back(genericOptions);
        }
        if (parts.empty())
          continue;
        StringRef bytes = object.getObject().getValue();
        if (bytes.size() < 4 ||
            llvm::support::endian::read32le(bytes.data()) != kSpirvMagic)
          continue;
        FailureOr<std::string> embedded = embed(bytes, llvm::join(parts, " "));
        if (failed(embedded)) {
          binary.emitError()
              << kPassArg << ": object of '" << binary.getSymName()
              << "' is not well-formed SPIR-V";
          return WalkResult::interrupt();
        }
        objects.back() = gpu::ObjectAttr::get(
            &getContext(), object.getTarget(), object.getFormat(),
            StringAttr::get(&getContext(), *embedded), object.getProperties(),
            object.getKernels());
        changed = true;
      }
      if (changed)
        binary.setObjectsAttr(ArrayAttr::get(&getContext(), objects));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
