//===- XPUDialect.td - xpu dialect definition --------------*- tablegen -*-===//

#ifndef XPU_DIALECT_XPU_IR_XPUDIALECT_TD
#define XPU_DIALECT_XPU_IR_XPUDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def XPU_Dialect : Dialect {
  let name = "xpu";
  let cppNamespace = "::mlir::xpu";
  let summary = "GEMM + epilogue workloads for Intel Xe, NVIDIA and CPU targets";
  let description = [{
    The `xpu` dialect models the workload that dominates inference: a GEMM
    (optionally batched) whose accumulator is passed, element by element,
    through an epilogue (bias, per-channel scale, BatchNorm in inference form,
    activations, clamps, residual adds) before it is stored.

    `xpu.gemm` carries the GEMM and its epilogue in one op so that fusion is
    a matter of moving elementwise computation into its region.
    `#xpu.target` describes the hardware the cost models read, and
    `#xpu.config` records the strategy chosen for one GEMM.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    void registerAttributes();
    /// Name of the module attribute that holds the `#xpu.target`.
    static constexpr ::llvm::StringLiteral getTargetAttrName() {
      return ::llvm::StringLiteral("xpu.target");
    }
    /// Name of the function argument attribute that marks a weight.
    static constexpr ::llvm::StringLiteral getWeightAttrName() {
      return ::llvm::StringLiteral("xpu.weight");
    }
    /// Name of the function argument attribute that marks a buffer the
    /// caller passes for a result: a memref of static shape, aligned to 64
    /// bytes, that aliases no other argument and that the function may
    /// write at any time (xpu-write-results-in-place computes the result in
    /// it).
    static constexpr ::llvm::StringLiteral getResultBufferAttrName() {
      return ::llvm::StringLiteral("xpu.result_buffer");
    }
    /// The alignment in bytes a caller gives an `xpu.result_buffer`.
    static constexpr int64_t kResultBufferAlignment = 64;
    /// Name of the unit attribute that keeps an xpu.gemm in f64
    /// (xpu-demote-f64 leaves it alone).
    static constexpr ::llvm::StringLiteral getKeepF64AttrName() {
      return ::llvm::StringLiteral("xpu.keep_f64");
    }
    /// Name of the unit attribute that marks an xpu.gemm whose result feeds
    /// a row reduction (set by xpu-split-gemm-reduction): the reduction stays
    /// a separate op after the GEMM.
    static constexpr ::llvm::StringLiteral getReductionConsumerAttrName() {
      return ::llvm::StringLiteral("xpu.reduction_consumer");
    }
    /// Name of the unit attribute that xpu-materialize-layouts puts on a
    /// rank-reducing tensor.extract_slice that reads row 0 (or column 0, or
    /// element (0, 0)) of an epilogue panel whose rows (columns) are all
    /// equal: the backend reads the panel itself.
    static constexpr ::llvm::StringLiteral getPanelAttrName() {
      return ::llvm::StringLiteral("xpu.panel");
    }
    /// Name of the string attribute that xpu-outline-weight-pack puts on the
    /// functions it creates: "pack" on `<fn>.pack`, "packed" on
    /// `<fn>.packed` (they are public, and are not outlined again).
    static constexpr ::llvm::StringLiteral getPackPartAttrName() {
      return ::llvm::StringLiteral("xpu.pack_part");
    }
    /// Name of the dictionary attribute that gives one GEMM of the CPU
    /// pipeline its own tiles (xpu-cpu-apply-tuning-db, from a tuning
    /// database): `register_tile = array<i64: mr, nr>` and/or
    /// `cache_tile = array<i64: mc, nc, kc>`, on an xpu.gemm and the linalg
    /// ops it lowers to (include/xpu/Codegen/CpuTiles.h).
    static constexpr ::llvm::StringLiteral getCpuTilesAttrName() {
      return ::llvm::StringLiteral("xpu.cpu_tiles");
    }

    /// The GEMM backends registered with the dialect: one attribute of
    /// each (its default knobs) implementing GemmBackendAttrInterface,
    /// added by the extension that attaches the interface
    /// (getRegisteredGemmBackends in GemmBackendInterface.h).
    ::llvm::ArrayRef<::mlir::Attribute> getGemmBackends() const {
      return gemmBackends;
    }
    void addGemmBackend(::mlir::Attribute backend);

  private:
    ::llvm::SmallVector<::mlir::Attribute> gemmBackends;

  public:
  }];
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
}

class XPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<XPU_Dialect, mnemonic, traits>;

class XPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<XPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // XPU_DIALECT_XPU_IR_XPUDIALECT_TD
