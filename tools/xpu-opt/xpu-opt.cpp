//===- xpu-opt.cpp - the xpu optimizer driver -----------------------------===//
//
// mlir-opt with the xpu dialect, passes and pipelines registered, plus
// `--xpu-remarks` to print what every xpu pass applied and refused and
// `--xpu-list-targets` to print the #xpu.target presets (one JSON object per
// line: what tools and Python read instead of spelling chip names).
//
//===----------------------------------------------------------------------===//

#include "xpu/Config/Version.h"
#include "xpu/Dialect/XPU/IR/TargetPresets.h"
#include "xpu/Dialect/XPU/Utils/Remarks.h"
#include "xpu/InitAll.h"

#include "Dialect/TestGemmBackend.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--xpu-list-targets" || arg == "-xpu-list-targets") {
      mlir::xpu::printTargetPresetsAsJson(llvm::outs());
      return 0;
    }
  }
  mlir::DialectRegistry registry;
  mlir::xpu::registerAllXPU(registry);
  // test/lib: a GEMM backend for tests (#xpu_test.backend).
  mlir::xpu::test::registerTestGemmBackend(registry);
  // Like mlir-opt, every upstream pass is available too.
  mlir::registerAllPasses();
  // gpu-module-to-binary translates XeVM kernels to LLVM IR.
  mlir::registerAllGPUToLLVMIRTranslations(registry);

  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "xpu-opt " << XPU_VERSION_STRING << " (built against LLVM/MLIR "
       << XPU_LLVM_VERSION_STRING << ")\n";
  });

  // `--xpu-remarks` is upstream's remark filter on the xpu categories.
  std::string filter =
      std::string("--remarks-filter=") + mlir::xpu::kRemarkCategoryFilter.str();
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    if (llvm::StringRef(argv[i]) == "--xpu-remarks" ||
        llvm::StringRef(argv[i]) == "-xpu-remarks")
      args.push_back(filter.data());
    else
      args.push_back(argv[i]);
  }
  args.push_back(nullptr);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      static_cast<int>(args.size()) - 1, args.data(),
      "xpu-opt: GEMM + epilogue optimizer for Intel Xe, NVIDIA and CPU "
      "(--xpu-remarks prints what each xpu pass did and why, "
      "--xpu-list-targets the #xpu.target presets)\n",
      registry));
}
