//===- Passes.td - xpu code generation passes --------------*- tablegen -*-===//

#ifndef XPU_CODEGEN_PASSES_TD
#define XPU_CODEGEN_PASSES_TD

include "mlir/Pass/PassBase.td"

def XPUCPUPackOperandsPass
    : Pass<"xpu-cpu-pack-operands", "func::FuncOp"> {
  let summary = "Pack both GEMM operands into the panels the CPU "
                "micro-kernel reads (linalg.pack, a contraction of panels, "
                "linalg.unpack)";
  let description = [{
    The CPU data layout, on tensors, before `xpu-outline-weight-pack` (so
    that packing a weight is weight-only work that moves into `<fn>.pack`,
    and is folded at compile time for constant weights). Each statically
    shaped f32 `linalg.matmul` / `linalg.batch_matmul` whose rhs is read as
    `[b?, k, n]` or as `[b?, n, k]` becomes:

    * `linalg.pack` of the lhs `[b?, m, k]` into `[b?, ceil(m/mr), k, mr]`:
      one contiguous panel per `mr` rows (the `mr` values of one k next to
      each other), zero-padded at the edge;
    * `linalg.pack` of the rhs into `[b?, ceil(n/nr), k, nr]`: one
      contiguous panel per `nr` columns, the same for both rhs layouts (a
      `[k, n]` weight is as fast as the `x·Wᵀ` form) and free of cache-set
      conflicts for any leading dimension, zero-padded at the edge;
    * a `linalg.generic` contraction over `(b?, M1, N1, k, mr, nr)` (the
      mmt4d form without its unit k0 dimension) into a
      `[b?, M1, N1, mr, nr]` accumulator (a fill of the packed shape, or
      the packed init);
    * `linalg.unpack` back to `[b?, m, n]`, which drops the padding.

    On a target with AMX (`sapphirerapids`, or the host with `chip=host`),
    a `linalg.matmul` of bf16 operands into a zero-filled f32 result
    (`precision=bf16`) takes the AMX form of `include/xpu/Codegen/AmxLayout.h`
    instead: the lhs copied into a zero `[Mp, Kp]` bf16 tensor (M padded to
    32, K to 32), the rhs into a zero `[Np, Kp]` one and relaid into VNNI
    panels `[Np/16, Kp/32, 16, 16, 2]` (weight-only work: `<fn>.pack` for a
    weight), a `linalg.generic` contraction into `[Mp, Np/16, 16]` f32, and
    the `[m, n]` corner of it as the result; `xpu-cpu-lower-amx-gemm`
    lowers the contraction after bufferization. A statically shaped
    `linalg.batch_matmul` of that kind (a bmm of two activations) becomes
    an `scf.for` over the batch whose body slices out one batch's matrices,
    builds that AMX form for them and inserts its `[m, n]` result into the
    `[b, m, n]` one.

    The int8 form is the same with AMX's int8 instructions (every AMX CPU
    preset has `amx-int8`): a `linalg.matmul` or `linalg.batch_matmul` of
    i8 operands into a zero-filled i32 result (an integer IR's quantized
    GEMM; no precision option is involved) gets lhs blocks of 32 rows by 64
    k values, VNNI panels of quadruples `[Np/16, Kp/64, 16, 16, 4]` and an
    i32 accumulator, and its body keeps the matmul's `arith.extsi` (or
    `arith.extui`) per operand, which `xpu-cpu-lower-amx-gemm` turns into
    `tdpbssd` (`tdpbusd`, ...).

    Without AMX (or where its static form does not apply: a dynamic batch),
    on a CPU target with 512-bit vectors, the same bf16 matmuls take the
    pair-dot form of `include/xpu/Codegen/DotPairLayout.h` where the chip
    has `avx512bf16` (`vdpbf16ps`), and the i8 ones where it has
    `avx512vnni` (`vpdpwssd`, on the operands widened to i16 as the matmul
    extends each, `arith.extsi` or `arith.extui`): the lhs packed into
    `[b?, ceil(m/mr), ceil(k/2), mr, 2]`, the rhs into
    `[b?, ceil(n/nr), ceil(k/2), nr, 2]` (each column's k pair together;
    weight-only work for a weight), a `linalg.generic` contraction into the
    panel accumulator `[b?, M1, N1, mr, nr]` and its unpacking, which
    `xpu-cpu-tile-and-vectorize` turns into its loop nest with the dot
    products (`znver4`, `cooperlake`, or the host with `chip=host` where
    it has them). A
    bf16 matmul that takes neither form is widened to f32 (exact) and takes
    the f32 panels; an i8 one without AMX or VNNI keeps the vectorized
    matmul tiling.

    Every register tile of the packed problem is full, whatever the shape:
    `xpu-cpu-tile-and-vectorize` vectorizes it without masks. Other
    contractions are left alone, with a remark (`--xpu-remarks`).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    ListOption<"registerTile", "register-tile", "int64_t",
               "Register tile [mr, nr]: the packed panel sizes (default: "
               "from the module's CPU #xpu.target, (registers - 3) / 2 rows "
               "of two vectors: 6,16 with 16 ymm registers, 14,32 with 32 "
               "zmm; 6,16 without a CPU target)">,
    Option<"amx", "amx", "bool", /*default=*/"true",
           "On a target with AMX (a CPU #xpu.target whose mma is "
           "[16, 16, 32]), rewrite bf16 matmuls into a zero-filled f32 "
           "result (and i8 ones into a zero-filled i32 result) into the AMX "
           "form that xpu-cpu-lower-amx-gemm lowers">,
    Option<"dotPairs", "dot-pairs", "bool", /*default=*/"true",
           "Without the AMX form, on a CPU #xpu.target with 512-bit vectors "
           "and avx512bf16 (avx512vnni), rewrite the same bf16 (i8) "
           "matmuls into the pair-dot form (vdpbf16ps, vpdpwssd)">
  ];
  let statistics = [
    Statistic<"numPacked", "num-packed", "Matmuls rewritten to packed form">,
    Statistic<"numAmx", "num-amx", "bf16 matmuls rewritten to the AMX form">,
    Statistic<"numDotPairs", "num-dot-pairs",
              "bf16 and i8 matmuls rewritten to the pair-dot form">
  ];
}

def XPUCPUTileAndVectorizePass
    : Pass<"xpu-cpu-tile-and-vectorize", "func::FuncOp"> {
  let summary = "Tile linalg GEMMs and elementwise ops for CPU caches and "
                "registers, then vectorize them";
  let description = [{
    The CPU GEMM strategy, on tensors, before bufferization.

    A packed GEMM (the panel contraction of `xpu-cpu-pack-operands`) whose
    result is only unpacked becomes one loop nest (a batched one only
    without `parallel`; with it, batched GEMMs are tiled on their own,
    below):

    * row blocks of `mc` rows (`cache-tile`[0], whole panels), then k blocks
      of at most `kc` (`cache-tile`[2]; equal blocks, the last one
      shorter); default 264 rows and k 640 (an lhs block that fits a 1 MiB
      L2);
    * per row block and k block, the rows of the lhs are packed into an
      `mc/mr x kb x mr` buffer (absorbing the lhs `linalg.pack`; an lhs that
      comes packed is read in place);
    * batched, with an rhs packed in the function (an activation: a
      weight's packing is in `<fn>.pack`): the rhs panels of one batch are
      packed at the top of each iteration of the batch loop, from that
      batch's slice (with the elementwise producer the packing absorbs),
      instead of all batches' before the nest;
    * then every column panel, and in it every row panel of the block: one
      `mr x nr` register tile, whose accumulator starts from the fill (or
      the unpacked init) in the first k block and from the partial sums in
      the result after; the k loop accumulates `vector.outerproduct`s of the
      packed panels in registers;
    * after the last k block the tile goes straight into the `[b?, m, n]`
      result (masked where the shape's edge cuts it): no unpack. An
      elementwise consumer of the product (bias, activation: identity maps
      on the product, projected permutations elsewhere, elementwise body)
      is applied to the tile in registers first and replaces the unpack's
      result. An epilogue whose straight-line code on the tile would be
      long (`xpu::estimateEpilogueInstructions` per element times `mr`
      above 256, and a result of the accumulator's type) is applied row
      by row instead: the tile is stored as it is, then a loop up to the
      last row of the matrix reads, transforms and writes one row at a time
      (one copy of the epilogue's code instead of `mr`; LLVM's code
      generation of the copies dominated the compile time of f32 models);
    * with `parallel`, the row blocks are an `scf.forall` (at least 4 of
      them where the rows have that many panels): each iteration packs its
      own lhs block and writes its rows through a slice of the result
      (`tensor.parallel_insert_slice`).

    The pair-dot contraction (DotPairLayout.h: bf16 into f32, or i16 into
    i32) gets the same nest, not parallel when batched, with k taken in
    pairs: the lhs block is `mc/mr x kb/2 x 2*mr` (16 k values of an
    `mr`-row panel per step, transposed as 32-bit pairs), and each k pair
    of a tile is `mr x nr/16` dot products on 16-lane accumulators, the lhs
    pair of a row broadcast as one 32-bit value: `x86vector.avx512.dot`
    (`vdpbf16ps`) for bf16, `vpdpwssd` for i16 as side-effect-free
    `llvm.inline_asm` (x86vector has no op for it, and an
    `llvm.call_intrinsic` has unknown memory effects, which the buffer
    deallocation after this pass rejects). A pair-dot contraction that the
    nest does not take is left to the scalar lowering, with a remark.

    Other packed GEMMs (the product has other users than the unpack, or
    batched with `parallel`): cache tiles of panels in n, k, m order, one register tile
    per step, the k remainder split off so every k loop is static. Plain
    matmuls:

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
      `[1, ..., 1, elementwise-width]` and vectorized;
    * row reductions (a `linalg.generic` whose only reduction loop is the
      innermost: softmax's max and sum, logsumexp, sums along rows) are
      tiled one row at a time; a row longer than `elementwise-width` is
      reduced in chunks of that width into a vector of partial results
      (upstream's partial-reduction tiling) that one
      `vector.multi_reduction` merges.

    Ops that cannot be vectorized (for example a body with `cf.assert`) stay
    scalar, with a remark (`--xpu-remarks`).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect"];
  let options = [
    ListOption<"cacheTile", "cache-tile", "int64_t",
               "Cache tile [mc, nc, kc] of the GEMM (default 264,256,640 "
               "for the packed-GEMM nest, 64,256,256 otherwise)">,
    ListOption<"registerTile", "register-tile", "int64_t",
               "Register tile [mr, nr] of the GEMM micro-kernel">,
    Option<"elementwiseWidth", "elementwise-width", "int64_t",
           /*default=*/"16",
           "Vector width of elementwise ops (innermost tile size)">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Make the outermost loop of a packed GEMM (batches, else column "
           "blocks) an scf.forall, for xpu-cpu-parallel-to-threads">
  ];
  let statistics = [
    Statistic<"numGemms", "num-gemms", "Contractions tiled and vectorized">,
    Statistic<"numElementwise", "num-elementwise",
              "Elementwise ops tiled and vectorized">,
    Statistic<"numReductions", "num-reductions",
              "Row reductions tiled and vectorized">,
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
    Then unrolls each such k loop (vector iter_args, a `vector.contract` or
    `vector.outerproduct` in its body) by `k-unroll`, with a remainder loop
    where the trip count is not a multiple: fewer loop-control instructions
    between the FMAs.
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect"];
  let options = [
    Option<"kUnroll", "k-unroll", "int64_t", /*default=*/"4",
           "Unroll factor of the micro-kernel k loops (1: no unrolling)">
  ];
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
       broadcasts/transposes; leading unit dims cast away, other unit dims
       of elementwise ops and transfers dropped with shape casts;
    2. `vector.contract` lowered to `vector.outerproduct` (one per k
       element; the `mr x nr` accumulator becomes `mr` rows of `nr` lanes);
    3. `vector.outerproduct` lowered to broadcast + `vector.fma` rows,
       multi-reductions, broadcasts and masks (`vector.create_mask`,
       `vector.constant_mask`) lowered to 1-D ops;
    4. transfers unrolled to rank 1 (`transfer_to_scf` with full unroll) and
       rank-1 transfers lowered to `vector.load` / `vector.store` /
       `vector.maskedload` where possible;
    5. `vector.shape_cast`, `vector.transpose`, `vector.broadcast` and strided
       slice inserts/extracts lowered to 1-D shuffles, extracts and inserts;
       a 2-D transpose (the packing blocks) is first split into blocks of at
       most 8 x 8, each one 64-lane shuffle (a 256-lane shuffle per 32 x 8
       block made LLVM's instruction selection slow).
  }];
  let dependentDialects = ["::mlir::vector::VectorDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect"];
}

def XPUCPUApproximateMathPass
    : Pass<"xpu-cpu-approximate-math", "func::FuncOp"> {
  let summary = "Replace transcendental math ops by polynomial "
                "approximations that vectorize";
  let description = [{
    On the CPU, a vector `math.exp`, `math.erf`, `math.tanh`, ... without an
    LLVM intrinsic is otherwise unrolled into one scalar libm call per lane
    (`convert-math-to-libm`). This pass applies upstream's polynomial
    approximations (`populateMathPolynomialApproximationPatterns`, with the
    f32 expansions around them) to the functions listed in `functions`, on
    scalars and vectors alike, so that epilogues and reductions stay in
    vector registers. The accuracy of each one is measured against NumPy in
    float64 by `test/Integration/CPU/math` (max error in f32 ulps over a
    dense sweep of its range and tails); `docs/Performance.md` lists the
    bounds.
  }];
  let dependentDialects = ["::mlir::math::MathDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect"];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "math ops to approximate, by name without the `math.` prefix "
               "(default: exp, expm1, log, log1p, log2, tanh, erf, erfc)">
  ];
  let statistics = [
    Statistic<"numApproximated", "num-approximated",
              "Math ops replaced by polynomial approximations">
  ];
}

def XPUCPUApplyTuningDbPass
    : Pass<"xpu-cpu-apply-tuning-db", "ModuleOp"> {
  let summary = "Give each xpu.gemm the CPU tiles its tuning database entry "
                "measured fastest";
  let description = [{
    The CPU pipeline's use of a tuning database (`xpu-tune --target=cpu`,
    docs/Tuning.md). It runs on `xpu.gemm` ops, after the
    target-independent catalog (where `xpu-tune` keys its problems): a GEMM
    whose `#xpu.target` chip and signature (`GemmSignature`) have an entry
    gets the entry's best config, CPU tiles in their text form
    (`register-tile=mr,nr cache-tile=mc,nc,kc`, either may be absent), as
    its `xpu.cpu_tiles` attribute, with a remark that names the database
    and the measured gain. `xpu-lower-to-linalg` keeps the attribute on the
    matmul, `xpu-cpu-pack-operands` packs with its register tile and
    `xpu-cpu-tile-and-vectorize` blocks the loop nest with its cache tile;
    for that GEMM they take precedence over the pipeline's `register-tile`
    and `cache-tile` options. An entry whose best config is the default
    leaves the GEMM alone (a remark says so); one whose config does not
    parse, or that no trial completed, is ignored with a warning on the
    GEMM. A database that cannot be read is an error.
  }];
  let options = [
    Option<"tuningDb", "tuning-db", "std::string", /*default=*/"",
           "The tuning database (xpu-tune's JSON file); empty: nothing to "
           "do">
  ];
  let statistics = [
    Statistic<"numTuned", "num-tuned", "GEMMs given tiles from the database">,
    Statistic<"numStale", "num-stale", "Entries ignored with a warning">
  ];
}

def XPUCPULowerStridedCopiesPass
    : Pass<"xpu-cpu-lower-strided-copies", "func::FuncOp"> {
  let summary = "Copy between strided views with loops instead of the "
                "runtime's memrefCopy";
  let description = [{
    Bufferization writes a value into part of a larger buffer with
    `memref.copy` when it could not compute it there (a padded operand: the
    value, then `tensor.insert_slice` into a zero buffer). The LLVM
    lowering turns a `memref.copy` between contiguous buffers into
    `memcpy`, and any other one into a call of the runtime's `memrefCopy`,
    which walks the strided views one element at a time. This pass
    rewrites each `memref.copy` between statically shaped views with
    static strides, where either side is not contiguous, into
    `linalg.copy`: loops (`convert-linalg-to-loops`) over a unit-stride
    innermost dimension, which LLVM vectorizes. Contiguous copies and
    dynamically shaped ones are left alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
  let statistics = [
    Statistic<"numRewritten", "num-rewritten",
              "Strided memref.copy ops rewritten to linalg.copy">
  ];
}

def XPUCPUParallelToThreadsPass
    : Pass<"xpu-cpu-parallel-to-threads", "ModuleOp"> {
  let summary = "Run parallel loops on POSIX threads (fork-join), without "
                "an OpenMP runtime";
  let description = [{
    The last step of the CPU pipeline's multithreading. The parallel loops
    (`scf.forall` over the GEMM's column blocks, made `scf.parallel` and
    then `omp.parallel { omp.wsloop { omp.loop_nest } }` by
    `convert-scf-to-openmp`, with bodies already in the LLVM dialect) become:

    * an outlined `llvm.func internal @<fn>_par<i>(ptr)` that runs one
      contiguous share of the iterations, reading what the body uses from a
      shared struct `{lb, ub, step, threads, captured values...}`;
    * at the loop's place: the shared struct (on the stack), the thread
      count (`threads`, or `sysconf(_SC_NPROCESSORS_ONLN)` when it is 0,
      never more than the iterations) and a call of
      `__xpu_cpu_fork_join(fn, shared, threads)`, which starts threads
      1..n-1 with `pthread_create` (running a share on the calling thread
      if that fails), runs share 0 itself and joins the others.

    Only the C library is called, so the result runs under xpu-run,
    mlir-runner, the JIT of any host and as an object file. Other OpenMP
    forms (more than one loop, reductions, clauses) are errors.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"threads", "threads", "int64_t", /*default=*/"0",
           "Threads per parallel loop; 0: one per online core, read at run "
           "time">
  ];
  let statistics = [
    Statistic<"numParallel", "num-parallel", "Parallel loops lowered">
  ];
}

def XPUCPULowerAmxGemmPass
    : Pass<"xpu-cpu-lower-amx-gemm", "ModuleOp"> {
  let summary = "Lower the AMX form of bf16 and int8 GEMMs to tile loads, "
                "tdpbf16ps or tdpb[su][su]d and tile stores";
  let description = [{
    Runs on buffers, after bufferization. Each `linalg.generic` in the AMX
    form that `xpu-cpu-pack-operands` builds for bf16 GEMMs on an AMX
    target (`include/xpu/Codegen/AmxLayout.h`: a zero-padded `[Mp, Kp]`
    bf16 lhs, the rhs in VNNI panels `[N1, K1, 16, 16, 2]`, an
    `[Mp, N1, 16]` f32 accumulator; Mp and N1 x 16 multiples of 32, Kp of
    32) becomes a loop nest of upstream `amx` ops:

    * rhs column panels in groups that fit in half of `l2-bytes` (an
      `scf.forall` over the groups with `parallel`), then bands of 256
      rows, then k in groups of `k-steps` steps of 32 (by default all of
      k), then 32-row blocks of the lhs, then pairs of panels: one 32x32 output block as 2x2
      `!amx.tile<16x16xf32>` accumulators, loaded from the accumulator
      buffer (so the product adds to what it holds), or zero tiles in the
      first k group when a zero `linalg.fill` of the buffer comes right
      before (the fill is then removed);
    * the group's k steps in an `scf.for` of `k-unroll` steps per
      iteration that carries the four accumulator tiles; per step two lhs
      tiles (`16x32xbf16`) and two rhs tiles (16 rows of 16 bf16 pairs,
      one contiguous 1 KiB panel step), four `amx.tile_mulf` (tdpbf16ps):
      all eight tile registers;
    * the four tiles stored back (`tilestored`).

    The int8 form (lhs blocks `[32, 64]` i8, VNNI panels of quadruples
    `[N1, K1, 16, 16, 4]`, an i32 accumulator; Kp a multiple of 64) is
    lowered the same way with `16x64xi8` operand tiles, `16x16xi32`
    accumulators and `amx.tile_muli`; its body's `arith.extsi`/`extui` per
    operand choose `tdpbssd`, `tdpbsud`, `tdpbusd` or `tdpbuud`.

    Before the nest, a call of `__xpu_cpu_request_amx` (added to the module
    once) asks Linux for the AMX tile state (`arch_prctl(ARCH_REQ_XCOMP_PERM,
    XFEATURE_XTILEDATA)`); where the kernel refuses, it prints one line to
    stderr and exits with status 1 instead of the SIGILL the first tile
    instruction would raise. `convert-to-llvm{filter-dialects=amx,cf}` lowers
    the `amx` ops and the branches that carry tiles (`x86_amx` block
    arguments). A contraction in this form whose buffers are not padded or
    contiguous is left to the scalar loops (correct, slow) with a remark.
  }];
  let dependentDialects = ["::mlir::amx::AMXDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"l2Bytes", "l2-bytes", "int64_t", /*default=*/"2097152",
           "L2 cache bytes of one core: half of it holds the rhs panels of "
           "one pass over the rows">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Distribute the groups of rhs panels (disjoint output columns) "
           "over an scf.forall, at least 8 groups where the panels allow">,
    Option<"kSteps", "k-steps", "int64_t", /*default=*/"0",
           "k steps of 32 per accumulator group: the 2x2 f32 tiles of a "
           "32x32 block are loaded (or zeroed) and stored once per group "
           "(0, the default: all of k, one store per block)">,
    Option<"kUnroll", "k-unroll", "int64_t", /*default=*/"2",
           "k steps per iteration of the loop that carries the "
           "accumulator tiles within a group">
  ];
  let statistics = [
    Statistic<"numLowered", "num-lowered", "AMX GEMMs lowered">
  ];
}

def XPUCPUTargetFeaturesPass
    : Pass<"xpu-cpu-target-features", "ModuleOp"> {
  let summary = "Mark every LLVM function with the CPU it is compiled for "
                "(target-cpu, target-features)";
  let description = [{
    The last step of the CPU pipeline: every `llvm.func` with a body gets
    `target_cpu` and `target_features`, which LLVM IR carries as the
    `"target-cpu"` and `"target-features"` function attributes. The code
    generator then uses that CPU's instructions whatever machine compiles
    it (the JIT of xpu-run, an object file of xpu-compile), and a runner
    can check before calling the code that the host has every feature
    listed (xpu-run does: a chip the host cannot run is one error line, not
    an illegal instruction).

    ```mlir
    // xpu-opt --xpu-cpu-target-features="cpu=x86-64-v3 features=avx2,fma"
    llvm.func @f() attributes {target_cpu = "x86-64-v3",
        target_features = #llvm.target_features<["+avx2", "+fma"]>}
    ```

    The CPU pipeline passes the LLVM name and features of its `chip` (the
    host's own name and every feature it reports for `chip=host`). An empty
    `cpu` is an error; functions that already carry either attribute keep
    it.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let options = [
    Option<"cpu", "cpu", "std::string", /*default=*/"\"\"",
           "LLVM CPU name (x86-64-v3, sapphirerapids, ...)">,
    Option<"features", "features", "std::string", /*default=*/"\"\"",
           "LLVM feature names the code may use, comma-separated, with or "
           "without a leading +">
  ];
  let statistics = [
    Statistic<"numMarked", "num-marked", "Functions marked">
  ];
}

#endif // XPU_CODEGEN_PASSES_TD
