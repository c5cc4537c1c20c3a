//===- Passes.td - xpu code generation passes --------------*- tablegen -*-===//

#ifndef XPU_CODEGEN_PASSES_TD
#define XPU_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def XPUCPUTileAndVectorizePass
    : Pass<"xpu-cpu-tile-and-vectorize", "func::FuncOp"> {
  let summary = "Tile linalg GEMMs and elementwise ops for CPU caches and "
                "registers, then vectorize them";
  let description = [{
    The CPU GEMM strategy, on tensors, before bufferization:

    * a contraction whose rhs is read transposed (`[n, k]`, nn.Linear) first
      gets its rhs packed to `[k, n]` by a `linalg.transpose` (O(nk) work
      against O(mnk)), so the micro-kernel streams contiguous rows of B;
      the transpose is tiled 8x8 and vectorized, and a packed row stride
      that is a multiple of 1 KiB gets one cache line of padding so that the
      rows of a B panel do not all map to the same L1 set;
    * cache tiling: `cache-tile` = [mc, nc, kc], loops in n, k, m order
      (a kc x nc block of B stays in L2 while the m loop walks it);
    * register tiling: `register-tile` = [mr, nr], loops in n, m order with
      the k loop innermost and unit k steps, so the mr x nr accumulator tile
      lives in vector registers across the k loop once
      `xpu-cpu-hoist-vector-transfers` has hoisted its loads and stores;
    * the register tile is vectorized to `vector.contract`; tiles cut by the
      shape's edge are vectorized with masks;
    * elementwise `linalg.generic` ops (the epilogue) are tiled to
      `[1, ..., 1, elementwise-width]` and vectorized.

    Ops that cannot be vectorized (for example a body with `cf.assert`) stay
    scalar, with a remark (`--xpu-remarks`).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    ListOption<"cacheTile", "cache-tile", "int64_t",
               "Cache tile [mc, nc, kc] of the GEMM">,
    ListOption<"registerTile", "register-tile", "int64_t",
               "Register tile [mr, nr] of the GEMM micro-kernel">,
    Option<"elementwiseWidth", "elementwise-width", "int64_t",
           /*default=*/"16",
           "Vector width of elementwise ops (innermost tile size)">
  ];
  let statistics = [
    Statistic<"numGemms", "num-gemms", "Contractions tiled and vectorized">,
    Statistic<"numElementwise", "num-elementwise",
              "Elementwise ops tiled and vectorized">,
    Statistic<"numScalar", "num-scalar", "Ops left scalar">
  ];
}

def XPUCPUHoistVectorTransfersPass
    : Pass<"xpu-cpu-hoist-vector-transfers", "func::FuncOp"> {
  let summary = "Keep GEMM accumulator tiles in registers across the k loop";
  let description = [{
    After bufferization, moves the `vector.transfer_read` /
    `vector.transfer_write` pairs of a loop-invariant buffer slice out of
    the loops that do not change it (upstream's
    `linalg::hoistRedundantVectorTransfers`), so the accumulator of the GEMM
    micro-kernel is loaded once before the k loop and stored once after it.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
}

def XPUCPULowerVectorsPass
    : Pass<"xpu-cpu-lower-vectors", "func::FuncOp"> {
  let summary = "Lower n-D vector ops of the CPU micro-kernels to 1-D vectors";
  let description = [{
    Runs after bufferization and `xpu-cpu-hoist-vector-transfers` and applies
    upstream's vector lowering patterns in stages, like upstream's CPU matmul
    recipes (`lower_contraction outerproduct`, `transfer_to_scf
    max_transfer_rank = 1`, `lower_transfer max_transfer_rank = 1`, ...), so
    that every vector op that reaches `convert-vector-to-llvm` is 1-D:

    1. `vector.mask` of transfers folded into the transfers; transfer
       permutation maps lowered to minor identities plus
       broadcasts/transposes; leading unit dims cast away;
    2. `vector.contract` lowered to `vector.outerproduct` (one per k
       element; the `mr x nr` accumulator becomes `mr` rows of `nr` lanes);
    3. `vector.outerproduct` lowered to broadcast + `vector.fma` rows,
       multi-reductions, broadcasts and masks (`vector.create_mask`,
       `vector.constant_mask`) lowered to 1-D ops;
    4. transfers unrolled to rank 1 (`transfer_to_scf` with full unroll) and
       rank-1 transfers lowered to `vector.load` / `vector.store` /
       `vector.maskedload` where possible;
    5. `vector.shape_cast`, `vector.transpose`, `vector.broadcast` and strided
       slice inserts/extracts lowered to 1-D shuffles, extracts and inserts.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

#endif // XPU_CODEGEN_PASSES_TD
