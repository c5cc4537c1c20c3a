//===- GemmBackendInterface.td - what a GEMM backend answers -*- tablegen -*-===//

#ifndef XPU_DIALECT_XPU_IR_GEMMBACKENDINTERFACE_TD
#define XPU_DIALECT_XPU_IR_GEMMBACKENDINTERFACE_TD

include "mlir/IR/OpBase.td"

def XPU_GemmBackendAttrInterface : AttrInterface<"GemmBackendAttrInterface"> {
  let cppNamespace = "::mlir::xpu";
  let description = [{
    What the layers above a GEMM code generator ask of it. The backend
    attribute of a `#xpu.config` (`#xpu.xe<...>`, `#xpu.nvgpu<...>`, or
    `#xpu.simt` for a config without one) implements it; the
    implementations live with their backends under `lib/Conversion/XPUTo*/`
    and are attached by `registerXeGemmBackend`, `registerNVGPUGemmBackend`
    and `registerSimtGemmBackend` (all three: `registerAllGemmBackends`),
    which also add the backend to the xpu dialect's list
    (`XPUDialect::addGemmBackend`; `getRegisteredGemmBackends`,
    `chooseGemmBackend`). `xpu-materialize-layouts`, `xpu-schedule-gemm`,
    the strategy and the register model ask through it and name no
    backend; a pass that meets a backend whose implementation is not
    registered stops with a located error.

    Sizes are in elements unless the name says bytes. `why` receives the
    reason of a failure, `where` the op to blame.
  }];
  let methods = [
    InterfaceMethod<
      "The backend's name in messages: `simt`, `xe`, `nvgpu`.",
      "::llvm::StringRef", "getBackendName">,
    InterfaceMethod<
      "Whether the backend computes `gemm` (its types and epilogue) on "
      "`target`.",
      "::llvm::LogicalResult", "checkGemm",
      (ins "::mlir::xpu::GemmOp":$gemm, "::mlir::xpu::TargetAttr":$target,
           "std::string &":$why, "::mlir::Operation *&":$where)>,
    InterfaceMethod<
      "Whether the backend runs `config` on `target` for operands of "
      "`operandBytes` bytes and a B of layout `rhsLayout`.",
      "::llvm::LogicalResult", "checkConfig",
      (ins "::mlir::xpu::TargetAttr":$target, "::mlir::xpu::ConfigAttr":$config,
           "int64_t":$operandBytes, "std::string &":$why,
           "::mlir::xpu::RhsLayout":$rhsLayout)>,
    InterfaceMethod<
      "Whether `config`'s rules that depend on the GEMM's shape `dims` "
      "(`[batch, m, n, k]`) hold (default: there are none).",
      "::llvm::LogicalResult", "checkConfigForShape",
      (ins "::mlir::xpu::ConfigAttr":$config, "::llvm::ArrayRef<int64_t>":$dims,
           "std::string &":$why), [{}],
      [{ return ::mlir::success(); }]>,
    InterfaceMethod<
      "The operand element type the kernels of `gemm` read.",
      "::mlir::Type", "getOperandType", (ins "::mlir::xpu::GemmOp":$gemm)>,
    InterfaceMethod<
      "The row pitch the backend needs for a 2D buffer of `cols` elements "
      "of `elt` (default: `cols`).",
      "int64_t", "getRowPitch",
      (ins "::mlir::xpu::TargetAttr":$target, "int64_t":$cols,
           "::mlir::Type":$elt), [{}],
      /*defaultImplementation=*/[{ return cols; }]>,
    InterfaceMethod<
      "The rows of one batch's slab of a batched buffer of `rows` rows of "
      "`pitch` elements of `elt` (default: `rows`).",
      "int64_t", "getBatchRows",
      (ins "::mlir::xpu::TargetAttr":$target, "int64_t":$rows,
           "int64_t":$pitch, "::mlir::Type":$elt), [{}],
      /*defaultImplementation=*/[{ return rows; }]>,
    InterfaceMethod<
      "The alignment in bytes of the buffers the lowering allocates "
      "(default: 64, a cache line).",
      "int64_t", "getBufferAlignment",
      (ins "::mlir::xpu::TargetAttr":$target), [{}],
      /*defaultImplementation=*/[{ return 64; }]>,
    InterfaceMethod<
      "Shared local memory bytes one workgroup of `config` uses.",
      "int64_t", "getWorkgroupSlmBytes",
      (ins "::mlir::xpu::ConfigAttr":$config, "int64_t":$operandBytes)>,
    InterfaceMethod<
      "Puts the operands of the configured `gemm` (which `checkGemm` "
      "accepted) in the layout the backend's kernels read, on tensors before the GEMM "
      "(`xpu-materialize-layouts`; errors start with `passArg`). `remark` "
      "reports each decision (changed: false for a GEMM left as it is).",
      "::llvm::LogicalResult", "materializeLayouts",
      (ins "::mlir::xpu::GemmOp":$gemm, "::mlir::xpu::TargetAttr":$target,
           "::llvm::StringRef":$passArg,
           "::mlir::xpu::LayoutRemarkFn":$remark)>,
    InterfaceMethod<
      "Workgroups of `config` that `target` runs at once (the default "
      "program count of persistent and Stream-K schedules).",
      "int64_t", "getResidentWorkgroups",
      (ins "::mlir::xpu::TargetAttr":$target,
           "::mlir::xpu::ConfigAttr":$config, "int64_t":$operandBytes)>,
    InterfaceMethod<
      "Registers per thread that the K loop of the backend's matrix-unit "
      "kernel of `tile` on `subgroups` holds besides its accumulators (the "
      "operand fragments), for operands of `operandType`; std::nullopt when "
      "the register model has no matrix-unit term for the backend (its "
      "kernels run on SIMT lanes, or, on Xe, the GRF model counts the "
      "accumulator and epilogue fragments only).",
      "std::optional<int64_t>", "getMatrixFragmentRegisters",
      (ins "::llvm::ArrayRef<int64_t>":$tile,
           "::llvm::ArrayRef<int64_t>":$subgroups,
           "::mlir::Type":$operandType), [{}],
      /*defaultImplementation=*/[{ return std::nullopt; }]>,
    InterfaceMethod<
      "The backend's knobs as the strategy's remarks list them after the "
      "common fields of a config (`, grf_mode 256`); empty for none.",
      "std::string", "describeKnobs", (ins), [{}],
      /*defaultImplementation=*/[{ return std::string(); }]>,

    // What the strategy asks when it chooses a backend and enumerates its
    // candidates (xpu-select-strategy, StrategyModel.h). The attribute the
    // methods are called on holds the knobs of the candidate at hand.
    InterfaceMethod<
      "Where `backend=auto` asks the backend: the registered backends are "
      "asked in decreasing rank, and the first that takes a GEMM "
      "(`takesGemm`) gets it; 0: never chosen unless named.",
      "int64_t", "getAutoRank", (ins), [{}],
      /*defaultImplementation=*/[{ return 0; }]>,
    InterfaceMethod<
      "Whether `backend=auto` gives the backend a GEMM of `operandType` "
      "operands (tf32: f32 the tensor cores may read as tf32) on `target`. "
      "`why` gets the reason for the remark, either way; empty for none.",
      "bool", "takesGemm",
      (ins "::mlir::xpu::TargetAttr":$target, "::mlir::Type":$operandType,
           "std::string &":$why), [{}],
      /*defaultImplementation=*/[{ return false; }]>,
    InterfaceMethod<
      "The knobs the strategy's candidates start from for `operandType` "
      "operands on `target` (e.g. the instruction family the backend "
      "prefers); the attribute itself for a backend without choices.",
      "::mlir::Attribute", "getCandidateKnobs",
      (ins "::mlir::xpu::TargetAttr":$target, "::mlir::Type":$operandType),
      [{}], /*defaultImplementation=*/[{ return $_attr; }]>,
    InterfaceMethod<
      "tile_k of the candidates for operands of `operandBytes` bytes.",
      "int64_t", "getCandidateTileK",
      (ins "::mlir::xpu::TargetAttr":$target, "int64_t":$operandBytes), [{}],
      /*defaultImplementation=*/[{
        // One 64-byte row of each K slice for 16-bit operands (two mma
        // k-steps), 16 for wider ones.
        return operandBytes <= 2 ? 32 : 16;
      }]>,
    InterfaceMethod<
      "Whether the backend's kernels compute `tileM` x `tileN` workgroup "
      "tiles at all (before the config's other rules).",
      "bool", "isCandidateTile", (ins "int64_t":$tileM, "int64_t":$tileN),
      [{}], /*defaultImplementation=*/[{ return true; }]>,
    InterfaceMethod<
      "The fewest prefetch stages the backend's kernels run.",
      "int64_t", "getMinStages", (ins), [{}],
      /*defaultImplementation=*/[{ return 1; }]>,
    InterfaceMethod<
      "Whether the kernels hold the accumulator in matrix-unit fragments "
      "(the register model's KernelKind::Matrix) rather than per-lane "
      "micro-tiles (KernelKind::Simt).",
      "bool", "usesMatrixUnits", (ins), [{}],
      /*defaultImplementation=*/[{ return true; }]>,
    InterfaceMethod<
      "Whether the kernels read an epilogue operand broadcast as `kind` as "
      "a tile in the accumulator's layout (a fragment the register model "
      "counts from its first use).",
      "bool", "readsEpilogueOperandAsFragment",
      (ins "::mlir::xpu::BroadcastKind":$kind), [{}],
      /*defaultImplementation=*/[{ return false; }]>,
    InterfaceMethod<
      "The registers a thread of the backend's kernels may use on `target` "
      "when the register model's budget is `budget`.",
      "int64_t", "getRegisterBudget",
      (ins "::mlir::xpu::TargetAttr":$target, "int64_t":$budget), [{}],
      /*defaultImplementation=*/[{ return budget; }]>,
    InterfaceMethod<
      "Knobs that give a thread more registers than `budget` on `target` "
      "(`budget` is set to the new one), or null when there are none.",
      "::mlir::Attribute", "growRegisterFile",
      (ins "::mlir::xpu::TargetAttr":$target, "int64_t &":$budget), [{}],
      /*defaultImplementation=*/[{ return ::mlir::Attribute(); }]>,
    InterfaceMethod<
      "Whether xpu-select-strategy may choose Stream-K for these knobs on "
      "`target` where the model predicts a win; when not, `why` says why "
      "(a measurement the model does not capture). A forced `stream_k` "
      "schedule runs either way.",
      "bool", "choosesStreamK",
      (ins "::mlir::xpu::TargetAttr":$target, "std::string &":$why), [{}],
      /*defaultImplementation=*/[{ return true; }]>,
    InterfaceMethod<
      "Knobs that run a `kind` schedule: the attribute itself when it "
      "does; other knobs when it does not and they do (`change` names the "
      "change for the remark, e.g. `cooperative consumers`, and `why` "
      "says why); null when the backend runs no such schedule.",
      "::mlir::Attribute", "getKnobsForSchedule",
      (ins "::mlir::xpu::Schedule":$kind, "std::string &":$change,
           "std::string &":$why), [{}],
      /*defaultImplementation=*/[{ return $_attr; }]>,
    InterfaceMethod<
      "Other knobs that `config` can run with on a GEMM of `dims` (`[batch, "
      "m, n, k]`) with a B of layout `rhsLayout`, for xpu-tune to measure "
      "next to the config's own (nvgpu: thread block clusters for a "
      "data-parallel config, pingpong consumers for a persistent one), with "
      "`why` describing them; the attribute itself when there are none.",
      "::mlir::Attribute", "getAlternativeKnobs",
      (ins "::mlir::xpu::TargetAttr":$target, "::mlir::xpu::ConfigAttr":$config,
           "::llvm::ArrayRef<int64_t>":$dims,
           "::mlir::xpu::RhsLayout":$rhsLayout, "std::string &":$why), [{}],
      /*defaultImplementation=*/[{ return $_attr; }]>
  ];
}

#endif // XPU_DIALECT_XPU_IR_GEMMBACKENDINTERFACE_TD
