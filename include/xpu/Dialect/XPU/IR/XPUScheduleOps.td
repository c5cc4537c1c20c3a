//===- XPUScheduleOps.td - one workgroup's GEMM tile -------*- tablegen -*-===//
//
// The contract between the schedule layer (xpu-schedule-gemm) and the GPU
// backends: the programs of a scheduled GEMM are an scf.forall whose body
// walks tiles (and K ranges) with scf loops and calls these two ops, each of
// which one workgroup executes on one tile. A backend lowers only these ops
// (its "tile emitter"); docs/Design.md explains the choice.
//
//===----------------------------------------------------------------------===//

#ifndef XPU_DIALECT_XPU_IR_XPUSCHEDULEOPS_TD
#define XPU_DIALECT_XPU_IR_XPUSCHEDULEOPS_TD

include "xpu/Dialect/XPU/IR/XPUAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def XPU_GemmTileOp : XPU_Op<"gemm_tile", [
    SingleBlock, AttrSizedOperandSegments]> {
  let summary = "One workgroup's GEMM tile over a K range";
  let description = [{
    Executed by every work-item of one workgroup, together: computes the
    accumulators of the output tile at `(batch, m0, n0)` (the tile is
    `config.tile[0] x config.tile[1]`) over `k in [k_begin, k_end)`
    (elements; multiples of `config.tile[2]` except at the end of K), then,
    by `result`:

    * `output`: applies the epilogue region to every accumulator and stores
      the tile into `dest` (the GEMM's result buffer); elements outside the
      logical `m x n` are not written, except that a backend may write the
      columns of a row between `n` and the row pitch (the Xe 2D block
      stores write at least 64 bytes of a row: padding the caller slices
      off);
    * `partial`: stores the f32 accumulators as they are into slot `slot`
      of the Stream-K workspace `dest` (`memref<S x tile[0] x tile[1] x
      f32>`), every element of the slot;
    * `atomic_add`: adds them to slot `slot` with float atomics, masked at
      the edges of the logical `m x n` (streamk_atomic_add_needs_mask); the
      workspace is zeroed before the kernel runs.

    Operands are the buffers as the backend reads them: `lhs` `[b?, m,
    pitch]`, `rhs` `[b?, k, pitch]` (`rhs_layout(kn)`) or `[b?, n, pitch]`
    (`nk`), `dest` `[b?, m, pitch]` for `output`; the logical sizes are
    `dims = [batch, m, n, k]`, so a row pitch wider than the logical width
    (padding for 2D block I/O) is visible in the types, and so are padded
    rows (`[b, rows, pitch]` with more rows than the logical ones: each
    batch's slab then starts 64-byte aligned). The padding columns of a
    row of `lhs` (and of an `nk` `rhs`), between `k` and the pitch, must
    hold zeros: a backend may read them (the Xe one reads rows up to the
    nearest legal 2D block width) and multiply them into the sum.
    Epilogue operands are read by their broadcast kinds: `scalar` rank 0,
    `per_row` `[m]`, `per_col` `[n]`, `full` like the result; a rank-2
    `per_row`, `per_col` or `scalar` operand is a panel whose rows are all
    equal (what the Xe backend reads with the accumulator's layout).

    A dynamic `m` (`?` in `dims`, the rows of a dynamic batch) is read at
    run time from the `rows` operand, which is present exactly then. Only an
    unbatched `output` tile has one: `lhs`, `dest` and the `full` and
    `per_row` epilogue operands then have a dynamic first dimension, and the
    rows from `rows` on are masked as a static edge is.

    ```mlir
    xpu.gemm_tile output %a, %b into %c epilogue(%bias : memref<48xf32>)
        at [%bi, %m0, %n0] k [%c0, %c16]
        {acc_type = f32, broadcasts = [#xpu.broadcast<per_col>],
         config = #xpu.config<...>, dims = array<i64: 1, 32, 48, 16>,
         rhs_layout = #xpu.rhs_layout<nk>} : memref<32x16xf32>,
        memref<48x16xf32>, memref<32x48xf32> {
    ^bb0(%acc: f32, %bias: f32):
      %r = arith.addf %acc, %bias : f32
      xpu.yield %r : f32
    }
    ```
  }];
  let arguments = (ins
    XPU_TileResultAttr:$result,
    Arg<AnyMemRef, "lhs buffer", [MemRead]>:$lhs,
    Arg<AnyMemRef, "rhs buffer", [MemRead]>:$rhs,
    Arg<AnyMemRef, "result buffer or workspace", [MemRead, MemWrite]>:$dest,
    Optional<Index>:$slot,
    Arg<Variadic<AnyMemRef>, "epilogue operands", [MemRead]>:$epilogueOperands,
    Index:$batch, Index:$m0, Index:$n0, Index:$kBegin, Index:$kEnd,
    Optional<Index>:$rows,
    DenseI64ArrayAttr:$dims,
    XPU_RhsLayoutAttr:$rhs_layout,
    TypeAttr:$acc_type,
    XPU_BroadcastKindArrayAttr:$broadcasts,
    XPU_ConfigAttr:$config
  );
  let regions = (region SizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    custom<TileResultKeyword>($result) $lhs `,` $rhs `into` $dest
    (`[` $slot^ `]`)?
    (`epilogue` `(` $epilogueOperands^ `:` type($epilogueOperands) `)`)?
    `at` ` ` `[` $batch `,` $m0 `,` $n0 `]` `k` ` ` `[` $kBegin `,` $kEnd `]`
    (`rows` `(` $rows^ `)`)?
    attr-dict `:` type($lhs) `,` type($rhs) `,` type($dest) $epilogue
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    bool isBatched() { return getLhsType().getRank() == 3; }
    ::mlir::MemRefType getLhsType() {
      return ::llvm::cast<::mlir::MemRefType>(getLhs().getType());
    }
    ::mlir::MemRefType getRhsType() {
      return ::llvm::cast<::mlir::MemRefType>(getRhs().getType());
    }
    ::mlir::MemRefType getDestType() {
      return ::llvm::cast<::mlir::MemRefType>(getDest().getType());
    }
    int64_t getBatchSize() { return getDims()[0]; }
    /// The logical rows; ShapedType::kDynamic when `rows` holds them.
    int64_t getM() { return getDims()[1]; }
    bool hasDynamicM() { return ::mlir::ShapedType::isDynamic(getM()); }
    int64_t getN() { return getDims()[2]; }
    int64_t getK() { return getDims()[3]; }
    BroadcastKind getBroadcastKind(unsigned i);
    ::mlir::Block &getEpilogueBlock() { return getEpilogue().front(); }
    ::mlir::BlockArgument getAccArgument() {
      return getEpilogueBlock().getArgument(0);
    }
    ::mlir::BlockArgument getEpilogueArgument(unsigned i) {
      return getEpilogueBlock().getArgument(i + 1);
    }
  }];
}

def XPU_GemmFixupOp : XPU_Op<"gemm_fixup", [SingleBlock]> {
  let summary = "Completes one Stream-K tile from its workspace slots";
  let description = [{
    Executed by every work-item of one workgroup, together: sums the f32
    partial tiles in slots `[first_slot, first_slot + num_slots)` of the
    Stream-K workspace `workspace` (`memref<S x tile[0] x tile[1] x f32>`)
    in slot order (a fixed summation order: the result does not depend on
    which program finished first), applies the epilogue region to the
    complete sum and stores the output tile at `(batch, m0, n0)` into
    `dest`, masked at the edges of the logical `m x n` (`dims = [batch, m,
    n, k]`). This is where a Stream-K tile's epilogue runs, exactly once.
    Epilogue operands are read as by `xpu.gemm_tile`.

    ```mlir
    xpu.gemm_fixup %ws [%first, %count] into %c at [%bi, %m0, %n0]
        {acc_type = f32, broadcasts = [], config = #xpu.config<...>,
         dims = array<i64: 1, 32, 48, 64>} : memref<6x16x16xf32>,
        memref<32x48xf32> {
    ^bb0(%acc: f32):
      xpu.yield %acc : f32
    }
    ```
  }];
  let arguments = (ins
    Arg<AnyMemRef, "workspace", [MemRead]>:$workspace,
    Index:$firstSlot, Index:$numSlots,
    Arg<AnyMemRef, "result buffer", [MemWrite]>:$dest,
    Arg<Variadic<AnyMemRef>, "epilogue operands", [MemRead]>:$epilogueOperands,
    Index:$batch, Index:$m0, Index:$n0,
    DenseI64ArrayAttr:$dims,
    TypeAttr:$acc_type,
    XPU_BroadcastKindArrayAttr:$broadcasts,
    XPU_ConfigAttr:$config
  );
  let regions = (region SizedRegion<1>:$epilogue);
  let assemblyFormat = [{
    $workspace `[` $firstSlot `,` $numSlots `]` `into` $dest
    (`epilogue` `(` $epilogueOperands^ `:` type($epilogueOperands) `)`)?
    `at` ` ` `[` $batch `,` $m0 `,` $n0 `]`
    attr-dict `:` type($workspace) `,` type($dest) $epilogue
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::MemRefType getDestType() {
      return ::llvm::cast<::mlir::MemRefType>(getDest().getType());
    }
    int64_t getBatchSize() { return getDims()[0]; }
    int64_t getM() { return getDims()[1]; }
    int64_t getN() { return getDims()[2]; }
    int64_t getK() { return getDims()[3]; }
    BroadcastKind getBroadcastKind(unsigned i);
    ::mlir::Block &getEpilogueBlock() { return getEpilogue().front(); }
    ::mlir::BlockArgument getAccArgument() {
      return getEpilogueBlock().getArgument(0);
    }
    ::mlir::BlockArgument getEpilogueArgument(unsigned i) {
      return getEpilogueBlock().getArgument(i + 1);
    }
  }];
}

#endif // XPU_DIALECT_XPU_IR_XPUSCHEDULEOPS_TD
