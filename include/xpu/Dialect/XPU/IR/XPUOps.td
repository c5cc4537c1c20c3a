//===- XPUOps.td - xpu operations --------------------------*- tablegen -*-===//

#ifndef XPU_DIALECT_XPU_IR_XPUOPS_TD
#define XPU_DIALECT_XPU_IR_XPUOPS_TD

include "xpu/Dialect/XPU/IR/XPUAttrs.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

def XPU_GemmOp : XPU_Op<"gemm", [
    Pure, SingleBlock]> {
  let summary = "GEMM (optionally batched) with an elementwise epilogue";
  let description = [{
    Computes `acc[b, m, n] = sum_k lhs[b, m, k] * rhs[b, k, n]` in the
    accumulator type (operands are converted to it first), then applies the
    epilogue region to every accumulator element and stores what it yields.

    * `lhs` is `[m, k]` or `[b, m, k]`.
    * `rhs` is `[k, n]` / `[b, k, n]` with `rhs_layout(kn)`, or `[n, k]` /
      `[b, n, k]` with `rhs_layout(nk)` (nn.Linear weights are `[n, k]`: the
      layout says so instead of a copied transpose).
    * `acc(T)` is the accumulation type: the operand type or a wider float
      type (so `acc(f16)` with bf16 operands is rejected).
    * Each epilogue operand comes with its broadcast kind: `scalar` (0-d),
      `per_row` (`[m]`), `per_col` (`[n]`) or `full` (the result's shape).
      Batched GEMMs share `scalar`, `per_row` and `per_col` operands across
      the batch.
    * The epilogue block takes the accumulator element followed by one
      element of each epilogue operand and yields the output element. When
      there is no epilogue the region is the identity and is not printed.
    * The epilogue must be free of memory effects: it runs once per output
      element, in no defined order, and a lowering may run it on the device
      or on the host, so a load, store or call in it has no defined meaning.
      The verifier rejects such ops (rather than the op taking on the
      effects of its region, as `linalg.generic` does): `xpu.gemm` is `Pure`,
      so canonicalization may erase an unused GEMM and CSE may merge two.
    * The batch and `m` dimensions may be dynamic (`?`: the batch of rows a
      model is called on, known at run time); `k` and `n` (the weights'
      dimensions) are static. A dynamic dimension is read from the lhs at
      run time, and the epilogue operands that have it (`per_row`, `full`)
      have it dynamic too. Only the CPU lowering takes dynamic GEMMs; the
      GPU strategies reject them with an error at the op.
    * Every dimension is non-zero, and no tensor holds more than 2^48 bytes
      (the virtual address space of every target): the lowerings tile every
      dimension and compute offsets in 64 bits. `xpu-raise` leaves
      contractions outside these limits to linalg.

    Example (nn.Linear + bias + tanh):

    ```mlir
    %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
           epilogue(%b per_col : tensor<256xf32>) {
      ^bb0(%acc: f32, %bias: f32):
        %t = arith.addf %acc, %bias : f32
        %r = math.tanh %t : f32
        xpu.yield %r : f32
    } : (tensor<64x128xf32>, tensor<256x128xf32>) -> tensor<64x256xf32>
    ```
  }];
  let arguments = (ins
    AnyRankedTensor:$lhs,
    AnyRankedTensor:$rhs,
    Variadic<AnyRankedTensor>:$epilogueOperands,
    XPU_RhsLayoutAttr:$rhs_layout,
    TypeAttr:$acc_type,
    XPU_BroadcastKindArrayAttr:$broadcasts,
    OptionalAttr<XPU_ConfigAttr>:$config
  );
  let results = (outs AnyRankedTensor:$result);
  let regions = (region SizedRegion<1>:$epilogue);

  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let hasCanonicalizer = 1;
  let skipDefaultBuilders = 1;

  let builders = [
    /// A GEMM with the identity epilogue; the result element type is the
    /// accumulator type.
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs,
                   "RhsLayout":$rhsLayout, "::mlir::Type":$accType,
                   "::mlir::RankedTensorType":$resultType)>,
    /// A GEMM with epilogue operands and an empty epilogue region: the caller
    /// fills the block (arguments are created) and its terminator.
    OpBuilder<(ins "::mlir::Value":$lhs, "::mlir::Value":$rhs,
                   "RhsLayout":$rhsLayout, "::mlir::Type":$accType,
                   "::mlir::RankedTensorType":$resultType,
                   "::mlir::ValueRange":$epilogueOperands,
                   "::llvm::ArrayRef<BroadcastKind>":$kinds)>
  ];

  let extraClassDeclaration = [{
    bool isBatched() { return getLhsType().getRank() == 3; }
    ::mlir::RankedTensorType getLhsType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getLhs().getType());
    }
    ::mlir::RankedTensorType getRhsType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getRhs().getType());
    }
    ::mlir::RankedTensorType getResultType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getResult().getType());
    }
    /// Problem sizes.
    int64_t getBatchSize() { return isBatched() ? getLhsType().getDimSize(0) : 1; }
    int64_t getM() { return getResultType().getDimSize(getResultType().getRank() - 2); }
    int64_t getN() { return getResultType().getDimSize(getResultType().getRank() - 1); }
    int64_t getK() { return getLhsType().getDimSize(getLhsType().getRank() - 1); }
    /// True if the batch or m dimension is dynamic (ShapedType::kDynamic in
    /// getBatchSize() / getM()).
    bool hasDynamicShape() { return !getResultType().hasStaticShape(); }
    /// The sizes of the result: static ones as attributes, the dynamic
    /// batch and m read from the lhs with tensor.dim.
    ::llvm::SmallVector<::mlir::OpFoldResult>
    getMixedResultSizes(::mlir::OpBuilder &b, ::mlir::Location loc);
    BroadcastKind getBroadcastKind(unsigned i);
    ::mlir::Block &getEpilogueBlock() { return getEpilogue().front(); }
    /// The block argument that carries the accumulator element.
    ::mlir::BlockArgument getAccArgument() { return getEpilogueBlock().getArgument(0); }
    /// The block argument that carries epilogue operand `i`.
    ::mlir::BlockArgument getEpilogueArgument(unsigned i) {
      return getEpilogueBlock().getArgument(i + 1);
    }
    /// True when the epilogue yields the accumulator unchanged.
    bool hasIdentityEpilogue();
    /// Takes the config and the discardable attributes (marks such as
    /// xpu.keep_f64) of `other`, which this op replaces.
    void inheritAttributes(GemmOp other);
    /// True if products of `operand` elements accumulate in `acc`: the
    /// same type, or a float type wide enough that every operand value
    /// converts exactly (arith.extf: strictly wider; f16 and bf16 are both
    /// 16 bits and neither holds the other).
    static bool isValidAccumulatorType(::mlir::Type operand, ::mlir::Type acc);
    /// Largest tensor an xpu.gemm takes or returns, in bytes.
    static constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;
    /// Why a GEMM on these statically shaped tensors cannot be an xpu.gemm
    /// (a zero-size dimension, a tensor of more than kMaxTensorBytes), with
    /// `what` naming each type; empty when it can.
    static std::string checkSizeLimits(
        ::llvm::ArrayRef<::mlir::RankedTensorType> types,
        ::llvm::ArrayRef<::llvm::StringRef> what);
  }];
}

def XPU_YieldOp : XPU_Op<"yield", [
    Pure, Terminator, ReturnLike,
    ParentOneOf<["GemmOp", "GemmTileOp", "GemmFixupOp"]>]> {
  let summary = "Yields the output element of an xpu.gemm epilogue";
  let description = [{
    Terminates the epilogue region of `xpu.gemm` (and of the tile ops that
    `xpu-schedule-gemm` makes of it) with the value stored to the output
    element; its type is the result's element type.

    ```mlir
    xpu.yield %r : f32
    ```
  }];
  let arguments = (ins AnyType:$value);
  let assemblyFormat = "$value attr-dict `:` type($value)";
}

include "xpu/Dialect/XPU/IR/XPUScheduleOps.td"

#endif // XPU_DIALECT_XPU_IR_XPUOPS_TD
