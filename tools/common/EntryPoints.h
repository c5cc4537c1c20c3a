//===- EntryPoints.h - callable wrappers of functions -----------*- C++ -*-===//
//
// xpu-run, and the packages xpu-compile and `xpu-run --emit-package` write
// (Package.h; the Python package loads them), call a function of a tensor
// module through a wrapper added before bufferization:
//
//   func.func @__xpu_entry_F(%in0: memref<...>, ..., %out0: memref<...>, ...)
//       attributes {llvm.emit_c_interface}
//
// reads its inputs with `bufferization.to_tensor restrict`, calls @F and
// writes each result into the caller's buffer
// (`bufferization.materialize_in_destination`). The caller owns every
// buffer, so nothing crosses the boundary that the caller must free, and a
// GPU target gets the device-visible buffers it needs from the caller.
//
// When `xpu-outline-weight-pack` split @F into `@F.pack(weights) -> packed`
// and `@F.packed(...)`, the plan says which of @F's arguments feed each part,
// so that a caller packs once per weight set and then calls `.packed` only.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_TOOLS_COMMON_ENTRYPOINTS_H
#define XPU_TOOLS_COMMON_ENTRYPOINTS_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace mlir::xpu::run {

/// Where an operand of `.pack` or `.packed` comes from.
struct PlanOperand {
  /// True: result `index` of `.pack`; false: argument `index` of @F.
  bool fromPack = false;
  unsigned index = 0;
};

/// How @F splits into a pack part, run once per weight set, and the rest.
struct PackPlan {
  std::string pack, packed;
  SmallVector<PlanOperand> packOperands;
  SmallVector<PlanOperand> packedOperands;
  /// Result types of `.pack` (the packed weights).
  SmallVector<Type> packResults;
};

/// An argument dimension: where the size of a dynamic result dimension
/// comes from.
struct ArgDim {
  unsigned arg = 0;
  int64_t dim = 0;
};

/// A function xpu-run can call, and how.
struct EntryPlan {
  std::string function;
  /// Argument and result types of @F as the caller sees them: static, or
  /// with the dynamic dimensions of @F kept (checkEntry's `keepDynamic`).
  SmallVector<Type> inputs, results;
  /// For each result, for each of its dimensions: the argument dimension
  /// whose size it has when it is dynamic (the caller allocates the result
  /// from it), std::nullopt when static.
  SmallVector<SmallVector<std::optional<ArgDim>>> resultDims;
  /// For each input: the argument is marked `xpu.weight`.
  SmallVector<bool> weights;
  std::optional<PackPlan> pack;
};

/// Name of the wrapper of `function`.
std::string entryName(StringRef function);

/// Checks that @`function` exists, has a body and a signature xpu-run can
/// call (statically shaped tensors and scalars of supported element types;
/// `inputShapes`, when given, specialize dynamic argument dimensions).
/// With `keepDynamic`, dynamic argument dimensions that `inputShapes` does
/// not specialize stay dynamic, and each dynamic result dimension must have
/// the size of an argument dimension (found through the value bounds of
/// @F's body), which the caller allocates the result from. Errors name the
/// function and list the candidates.
FailureOr<EntryPlan> checkEntry(ModuleOp module, StringRef function,
                                ArrayRef<SmallVector<int64_t>> inputShapes = {},
                                StringRef tool = "xpu-run",
                                bool keepDynamic = false);

/// Adds the wrappers of `plan.function` (and of its `.pack` / `.packed`
/// parts, filling `plan.pack`, when the module has them). Run on tensors,
/// before bufferization.
LogicalResult addEntryWrappers(ModuleOp module, EntryPlan &plan);

/// The plan as a JSON object (the part of a package's interface that
/// describes the entry points; Package.h adds the rest).
llvm::json::Object planToJSON(const EntryPlan &plan);

} // namespace mlir::xpu::run

#endif // XPU_TOOLS_COMMON_ENTRYPOINTS_H
