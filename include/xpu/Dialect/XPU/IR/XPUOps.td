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
    * `acc(T)` is the accumulation type.
    * Each epilogue operand comes with its broadcast kind: `scalar` (0-d),
      `per_row` (`[m]`), `per_col` (`[n]`) or `full` (the result's shape).
      Batched GEMMs share `scalar`, `per_row` and `per_col` operands across
      the batch.
    * The epilogue block takes the accumulator element followed by one
      element of each epilogue operand and yields the output element. When
      there is no epilogue the region is the identity and is not printed.

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
