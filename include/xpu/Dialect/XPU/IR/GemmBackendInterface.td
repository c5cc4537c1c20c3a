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
    and `registerSimtGemmBackend` (all three: `registerAllGemmBackends`).
    `xpu-materialize-layouts`, `xpu-schedule-gemm` and the strategy ask
    through it (`lookupGemmBackend`) and name no backend; a pass that meets
    a backend whose implementation is not registered stops with a located
    error.

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
      "The operand element type the kernels of `gemm` read.",
      "::mlir::Type", "getOperandType", (ins "::mlir::xpu::GemmOp":$gemm)>,
    InterfaceMethod<
      "The row pitch the backend needs for a 2D buffer of `cols` elements "
      "of `elt`.",
      "int64_t", "getRowPitch",
      (ins "::mlir::xpu::TargetAttr":$target, "int64_t":$cols,
           "::mlir::Type":$elt)>,
    InterfaceMethod<
      "The rows of one batch's slab of a batched buffer of `rows` rows of "
      "`pitch` elements of `elt`.",
      "int64_t", "getBatchRows",
      (ins "::mlir::xpu::TargetAttr":$target, "int64_t":$rows,
           "int64_t":$pitch, "::mlir::Type":$elt)>,
    InterfaceMethod<
      "The alignment in bytes of the buffers the lowering allocates.",
      "int64_t", "getBufferAlignment",
      (ins "::mlir::xpu::TargetAttr":$target)>,
    InterfaceMethod<
      "Shared local memory bytes one workgroup of `config` uses.",
      "int64_t", "getWorkgroupSlmBytes",
      (ins "::mlir::xpu::ConfigAttr":$config, "int64_t":$operandBytes)>,
    InterfaceMethod<
      "Puts the operands of the configured `gemm` in the layout the "
      "backend's kernels read, on tensors before the GEMM "
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
      /*defaultImplementation=*/[{ return std::string(); }]>
  ];
}

#endif // XPU_DIALECT_XPU_IR_GEMMBACKENDINTERFACE_TD
