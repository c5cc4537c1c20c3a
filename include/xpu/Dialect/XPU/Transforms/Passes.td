//===- Passes.td - xpu transformation passes ---------------*- tablegen -*-===//

#ifndef XPU_DIALECT_XPU_TRANSFORMS_PASSES_TD
#define XPU_DIALECT_XPU_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def XPURaisePass : Pass<"xpu-raise", "func::FuncOp"> {
  let summary = "Raise torch-mlir style linalg contractions to xpu.gemm";
  let description = [{
    Recognizes the GEMMs torch-mlir emits for PyTorch models and rewrites
    them into `xpu.gemm`:

    * `linalg.matmul` and `linalg.batch_matmul`, with default or explicit
      (MLIR 22 transposed-operand) `indexing_maps`;
    * a `linalg.transpose` of the rhs (nn.Linear's `weight.t()`) is absorbed
      into `rhs_layout(nk)` instead of being copied;
    * the zero `linalg.fill` of the accumulator is absorbed; any other
      initial value becomes a `full` epilogue operand that is added to the
      accumulator.

    Elementwise consumers (bias add, activations) are left as they are; the
    fusion pass moves them into the epilogue. What is not recognized is left
    unchanged and a remark (`--xpu-remarks`) says why. With `strict`, a
    contraction that cannot be raised because its shapes are dynamic is an
    error instead, which is what a pipeline that needs static shapes wants.
    With `dynamic-rows` (what `xpu-cpu-pipeline` uses), a contraction whose
    batch and m dimensions are dynamic (`?`: the rows a model is called on)
    is raised too; dynamic k and n dimensions are still refused.

    Before:
    ```mlir
    %wt = linalg.transpose ins(%w : tensor<256x128xf32>)
            outs(%e0 : tensor<128x256xf32>) permutation = [1, 0]
    %z  = linalg.fill ins(%cst : f32) outs(%e1 : tensor<64x256xf32>) -> tensor<64x256xf32>
    %y  = linalg.matmul ins(%x, %wt : tensor<64x128xf32>, tensor<128x256xf32>)
            outs(%z : tensor<64x256xf32>) -> tensor<64x256xf32>
    ```
    After:
    ```mlir
    %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
           : (tensor<64x128xf32>, tensor<256x128xf32>) -> tensor<64x256xf32>
    ```
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"strict", "strict", "bool", /*default=*/"false",
           "Report contractions with dynamic shapes as errors instead of "
           "leaving them unchanged">,
    Option<"dynamicRows", "dynamic-rows", "bool", /*default=*/"false",
           "Also raise contractions whose batch and m dimensions are "
           "dynamic (k and n static): only the CPU lowering takes them">
  ];
  let statistics = [
    Statistic<"numRaised", "num-raised", "Contractions raised to xpu.gemm">,
    Statistic<"numTransposesAbsorbed", "num-transposes-absorbed",
              "rhs transposes absorbed into rhs_layout(nk)">,
    Statistic<"numRefused", "num-refused",
              "Contractions left unchanged, with a remark">
  ];
}

def XPUAttachTargetPass : Pass<"xpu-attach-target", "ModuleOp"> {
  let summary = "Attach the #xpu.target preset a module is compiled for";
  let description = [{
    Sets the module's `xpu.target` attribute to the preset `chip` (`pvc`,
    `bmg`, `sm_90`, `cpu`) unless the module already carries a target, which
    is kept (a target written by hand, with its overrides, wins; a remark
    says so when it names another chip). Every pass that reads the hardware
    (fusion guard, analysis, strategy, schedule, layouts, backends) reads
    this attribute, and falls back to the `pvc` preset without it; the
    pipelines' `chip=` / `target=` options feed this pass. An unknown chip
    is an error.

    ```mlir
    module {}
    // xpu-attach-target{chip=bmg}
    module attributes {xpu.target = #xpu.target<"bmg">} {}
    ```
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect"];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"pvc\"",
           "Target preset: pvc, bmg, sm_90 or cpu">
  ];
}

def XPUCheckVectorSizesPass : Pass<"xpu-check-vector-sizes", "ModuleOp"> {
  let summary = "Reject vector values too large for the lowerings to unroll";
  let description = [{
    Upstream's `convert-math-to-libm` (the host lowering of every pipeline)
    turns vector math into one libm call per element, and the CPU's n-D
    vector lowering unrolls rows: a hand-written `vector<2147483648xf32>`
    would make a pipeline run for hours while its memory grows. Every code
    generation pipeline runs this pass first; it emits an error at the first
    operation with an operand or result vector of more than `max-elements`
    elements and fails. Nothing is changed otherwise. The GEMM kernels' own
    vectors (tiles, micro-kernels, fragments) have a few thousand elements.

    ```mlir
    // error: xpu-check-vector-sizes: 'vector<2147483648xf32>' has more than
    // 65536 elements, which the lowerings would unroll element by element
    %e = math.exp %x : vector<2147483648xf32>
    ```
  }];
  let options = [
    Option<"maxElements", "max-elements", "int64_t",
           /*default=*/"65536",
           "The most elements a vector value may have">
  ];
}

def XPUDetachTargetPass : Pass<"xpu-detach-target", "ModuleOp"> {
  let summary = "Remove the module's #xpu.target once nothing reads it";
  let description = [{
    The code generation pipelines attach a target (`xpu-attach-target`)
    for the passes that read the hardware; at their end, once the module
    is in the LLVM dialect, this pass removes the `xpu.target` attribute so
    that tools without the xpu dialect (stock `mlir-runner`,
    `mlir-translate`) read the result. Nothing else is changed.
  }];
}

def XPUMaterializeLayoutsPass
    : Pass<"xpu-materialize-layouts", "func::FuncOp"> {
  let summary = "Put each configured GEMM's operands in the layout its GPU "
                "backend reads (data tiling), before weight packing";
  let description = [{
    Catalog: mem_layout_transform_prepack, mem_wrapper_one_time_device_moves,
    dtype_prepack_bf16. Runs on tensors after `xpu-select-strategy` and
    before `xpu-outline-weight-pack`, so that every layout change of a
    weight is weight-only computation and moves into `<fn>.pack` (or is
    folded at compile time for constant weights). The config's backend
    decides the layout:

    * `simt` (`convert-xpu-to-gpu`): nothing. The kernels read `[n, k]` and
      `[k, n]` rhs operands as they are (transposed on the way into shared
      memory) and per-row, per-column and scalar epilogue operands directly;
    * `xe` (`convert-xpu-to-xegpu`): f32 operands converted to bf16 (DPAS),
      an `[n, k]` rhs transposed to `[k, n]` (the transform block read packs
      `[k, n]` for DPAS: VNNI on the fly), rows padded with zeros to the
      narrowest pitch 2D block I/O accepts (>= 64 bytes, a multiple of 16;
      the kernel's descriptors read a row up to the narrowest legal width,
      so the padding must be zeros), batched operands padded with zero rows
      until each batch's slab is a whole number of 64-byte blocks (every
      batch's base address aligned), `per_col` / `per_row` / `scalar`
      epilogue operands broadcast to
      tile-high / tile-wide / tile-sized panels that the kernel reads with
      the accumulator's layout, and an epilogue that computes in a type the
      kernel does not (f64) split off to the host;
    * `nvgpu` (`convert-xpu-to-nvgpu`): rows of A and B that are not a
      multiple of 16 bytes padded with zeros to 16 bytes (cp.async copies
      16-byte chunks) or, for `#xpu.nvgpu<mma = wgmma>`, to a multiple of
      128 bytes (TMA reads rows of 16-byte multiples; one swizzled box row
      is 128 bytes). The kernels read `[n, k]` and `[k, n]` B and the
      epilogue operands as they are.

    The GEMM keeps its semantics: it reads a packed operand through a view,
    a `tensor.extract_slice` of the logical shape (panels: row 0, marked
    `xpu.panel`), which `xpu-schedule-gemm` reads through to the packed
    tensor. Each layout change is a remark.
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numChanged", "num-changed", "Operands given a backend layout">
  ];
}

//===----------------------------------------------------------------------===//
// The catalog (shared/seed) as passes.
//===----------------------------------------------------------------------===//

def XPUFuseEpiloguePass : Pass<"xpu-fuse-epilogue", "func::FuncOp"> {
  let summary = "Move elementwise consumers of a GEMM into its epilogue, "
                "guarded by a register-pressure estimate";
  let description = [{
    Catalog: elementwise_chain_fusion, gemm_bias_activation_fusion,
    gemm_activation_fusion, gemm_matrix_add_epilogue,
    fusion_register_pressure_guard.

    Elementwise `linalg.generic` consumers of an `xpu.gemm` result are first
    merged into one chain (upstream elementwise fusion), then the chain is
    moved into the GEMM's epilogue region. Each other input of the chain
    becomes an epilogue operand with its broadcast kind (`scalar`, `per_row`,
    `per_col`, `full`; size-1 and 0-d operands and `tensor.expand_shape`d
    vectors included).

    The register estimate, from `#xpu.target` (the module's, attached by
    `xpu-attach-target`, else the `pvc` preset) and the GEMM's `#xpu.config` (else the target's
    default tile): every value that depends on the accumulator is a fragment
    of `tile_m * tile_n / threads` elements per thread; the peak number of
    such fragments live at once in the region (transcendentals count one
    extra temporary) times the registers of one fragment, plus a reserve for
    operand tiles and addresses, must fit the register budget (the GRF mode
    of the config on Xe; the per-thread register limit on sm_90). A GEMM
    without a config may also take the larger register file of the backend
    the strategy would choose (Xe: 256 GRFs instead of 128, the catalog's
    `grf_mode='large'`) before its epilogue is split; `xpu-select-strategy`
    then gives it a config that holds the epilogue (`grf_mode = 256` or a
    smaller tile), and the remark says so. When the whole chain does not
    fit, it is cut at the last point
    where one accumulator-dependent value is live and the estimate fits: the
    prefix is fused and the rest stays a separate elementwise kernel. A GEMM
    result with other users is not fused (that would recompute the GEMM).
    Every decision is a remark with the numbers.

    Before:
    ```mlir
    %g = xpu.gemm %x, %w rhs_layout(nk) acc(f32) : ...
    %y = linalg.generic {... (d0, d1) -> (d1) ...} ins(%g, %bias ...) {
      addf, math.tanh
    }
    ```
    After:
    ```mlir
    %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
           epilogue(%bias per_col : tensor<256xf32>) { addf, math.tanh } : ...
    ```
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numFused", "num-fused", "Elementwise ops moved into epilogues">,
    Statistic<"numSplit", "num-split",
              "Chains split by the register-pressure guard">,
    Statistic<"numRefused", "num-refused", "Consumers left unfused">
  ];
}

def XPUSimplifyEpiloguePass : Pass<"xpu-simplify-epilogue", "func::FuncOp"> {
  let summary = "Remove no-op and redundant work from GEMM epilogues";
  let description = [{
    Catalog: skip_fusion_when_noop_or_redundant,
    fusion_skip_when_dead_or_constant.

    Inside `xpu.gemm` epilogues: multiply or divide by one, add or subtract
    zero, double negation, a clamp / min / max proven inactive by the
    known range of its input (e.g. `max(relu(x), 0)`, `min(sigmoid(x), 1)`,
    torch-mlir's `select(cmpf ugt, x, 0)` relu), and epilogue operands that
    are splat constants (`arith.constant dense<c>`, `linalg.fill` or
    `tensor.splat` of a constant: read as a scalar constant, so 1 and 0
    then fold away) or that nothing reads are removed. Dead epilogue
    operands are dropped by the xpu.gemm canonicalizer, which runs with the
    patterns. Each simplification is a `passed` remark; a rewrite refused
    only for floating-point reasons is a `missed` remark.

    Rewrites are exact in IEEE-754 (no fast-math unless the op has the
    flag): `x * 1`, `x / 1`, `x - 0.0`, `x + (-0.0)` and `-(-x)` always;
    `x + 0.0` (and `x - (-0.0)`) turns -0.0 into +0.0, so it is removed only
    when x is proven never -0.0 (the accumulator, which starts at +0.0; a
    sum with such a value; a relu) or the op has `nsz`. Clamps compare
    signed zeros by their bits and must return a NaN x unchanged:
    `maximumf`/`minimumf` and unordered `cmpf` predicates do, `maxnumf`/
    `minnumf` and ordered predicates return the constant for NaN and are
    removed only when x is proven not NaN or the op has `nnan`. Only ops in
    epilogues are touched, and nothing is constant-folded.
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numSimplified", "num-simplified", "Epilogue ops removed">
  ];
}

def XPUWidenEpiloguePass : Pass<"xpu-widen-epilogue", "func::FuncOp"> {
  let summary = "Compute 16-bit float epilogue arithmetic in f32 and round "
                "once, at the store";
  let description = [{
    A model cast to bf16 (or f16) writes its epilogue in that type: every
    elementwise op's result is rounded to 16 bits before the next op reads
    it, which is what PyTorch eager computes, op by op. Inside a fused
    `xpu.gemm` epilogue the value never leaves the registers, so the
    rounding after each op only costs conversions (and keeps the backends
    from using their f32 instructions: a bf16 `math.tanh` becomes an
    expansion instead of `tanh.approx.f32`). This pass computes the
    epilogue's 16-bit arithmetic in f32, as torch.compile's Inductor does
    for the pointwise ops it fuses:

    * an `arith` or `math` op whose float operands and results are all one
      16-bit float type (bf16 or f16) is recreated on f32 values, with its
      attributes (fast-math flags, predicates); its operands come from the
      f32 value they were rounded from (`arith.truncf` f32 -> 16 bits), an
      `arith.extf` of them, an f32 copy of a constant (exact), or an
      `arith.extf` made once;
    * a 16-bit result that something else reads (the `xpu.yield`, an op
      this pass does not widen) is rounded from the f32 value there, so the
      GEMM's result type does not change and the stored value is rounded
      exactly once;
    * `arith.extf` of a widened value reads the f32 value directly.

    Bit casts, integer conversions, ops in nested regions and ops on
    vectors are left as they are. The result differs from op-by-op
    rounding by at most the rounding the intermediate steps no longer do,
    and is closer to the exact value. Each widened GEMM is a `passed`
    remark; pipelines run this pass unless `round-each-op=true`.

    Before:
    ```mlir
    %t = arith.truncf %acc : f32 to bf16
    %n = arith.negf %t : bf16
    %e = math.exp %n : bf16
    xpu.yield %e : bf16
    ```
    After:
    ```mlir
    %n = arith.negf %acc : f32
    %e = math.exp %n : f32
    %r = arith.truncf %e : f32 to bf16
    xpu.yield %r : bf16
    ```
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numWidened", "num-widened", "Epilogue ops computed in f32">
  ];
}

def XPUFoldAffineIntoWeightsPass
    : Pass<"xpu-fold-affine-into-weights", "func::FuncOp"> {
  let summary = "Fold BatchNorm (inference), per-channel scales and affine "
                "maps after a GEMM into its weights and bias";
  let description = [{
    Catalog: algebraic_weight_folding, level_3_algebraic_fusion.

    For `y = (x W^T + b) * s + t` with `s`, `t` per output channel (n), the
    epilogue is rewritten to `x (W * s[:, None])^T + (b * s + t)`: the
    scale moves into the weight (computed on weights only, so
    `xpu-outline-weight-pack` moves it into `<fn>.pack`) and the epilogue is
    a bias add. BatchNorm in inference form (`(y - mean) * gamma /
    sqrt(var + eps) + beta`, both torch-mlir forms: the decomposed `[C]`
    form with `1/sqrt(var+eps)` and the `expand_shape` `[1, C]` form with
    `rsqrt`) and scalar scales fold the same way. Refused, with a remark:
    a non-linear op before the affine part, per-row (m-dependent) factors,
    factors that depend on the input, and anything not provably inference
    mode (statistics computed from the batch).

    The epilogue is read symbolically from the accumulator: every value
    computed from it by add/sub/mul/div/neg with factors that do not depend
    on it is `coef * acc + offset`, where coef and offset are built from
    `per_col` and `scalar` operands and constants. The walk stops at the
    first op that is not linear in the accumulator; the folded part ends at
    the latest affine value that everything after it reads (GELU reads `y`,
    `0.5 * y` and `y^3`: the fold ends at `y`). `S = coef` and `T = offset`
    become `linalg.generic`s on the operands (0-d when they read only
    scalars; an operand read as it is is used directly), the rhs is scaled
    by `S` along n (rows for `rhs_layout(nk)`, columns for `kn`; bf16/f16
    weights are scaled in the accumulator type and rounded back), and the
    epilogue becomes `acc + T` followed by what came after the folded part.
    Batched GEMMs, factors read from memory, from non-constant values
    outside the epilogue or from loop-carried values, and rhs operands
    computed from the input are left alone with a remark.

    Exactness: unlike `xpu-simplify-epilogue`, whose rewrites are exact in
    IEEE-754, every fold reassociates floating-point arithmetic
    (`(x W^T + b) * s + t` is rounded differently from
    `x (W * s)^T + (b * s + t)`), so it needs permission: the option
    `reassociate=true` (`xpu-optimize{reassociate=true}` and the code
    generation pipelines pass it when asked), or `fastmath<reassoc>` (or
    `fast`) on every affine op folded. Without either, the GEMM is left as
    it is with a `missed` remark that says so.
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"reassociate", "reassociate", "bool", /*default=*/"false",
           "Fold even where the affine ops do not carry fastmath<reassoc>: "
           "the result is rounded differently from the f32 epilogue">
  ];
  let statistics = [
    Statistic<"numFolded", "num-folded", "Affine epilogues folded into weights">,
    Statistic<"numRefused", "num-refused", "Epilogues left as they are">
  ];
}

def XPUFoldConstantWeightsPass
    : Pass<"xpu-fold-constant-weights", "func::FuncOp"> {
  let summary = "Evaluate the layout work on constant weights at compile time";
  let description = [{
    Weights given as constants (torch-mlir freezes parameters as
    `dense_resource` blobs by default) reach no argument that
    `xpu-outline-weight-pack` could move their layout work to `<fn>.pack`
    for, and upstream folding does not evaluate linalg ops on
    `dense_resource` data, so their transposes, 16-bit conversions, row
    pitch padding and epilogue panels would run on every call. This pass
    evaluates, in order (so that chains fold link by link), every op of
    these kinds whose inputs are all `dense` or `dense_resource` float
    constants, and replaces it with a `dense` constant of its result:

    * `linalg.transpose`, `linalg.broadcast`;
    * `tensor.pad` with static sizes and a constant padding value;
    * `linalg.pack` with static inner tiles (the CPU micro-kernel's panels);
    * an elementwise `linalg.generic` (parallel loops, projected permutation
      input maps, identity output map, output not read) whose body uses
      `arith` float ops only (`truncf`, `extf`, `addf`, `subf`, `mulf`,
      `divf`, `negf`, `maximumf`, `minimumf`, `maxnumf`, `minnumf`, float
      constants), each rounded to its result type as the op computes.

    An op of these kinds on constants that is not folded (another body op,
    a dynamic pad, a result above `max-elements`, a resource without data)
    stays, with a missed remark that says why. The GPU pipelines run it
    after `xpu-materialize-layouts`, the CPU pipeline after
    `xpu-cpu-pack-operands`, each before `xpu-outline-weight-pack`.

    Before:
    ```mlir
    %w = arith.constant dense_resource<w> : tensor<48x64xf32>
    %t = linalg.transpose ins(%w : tensor<48x64xf32>)
           outs(%e : tensor<64x48xf32>) permutation = [1, 0]
    ```
    After:
    ```mlir
    %t = arith.constant dense<...> : tensor<64x48xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"maxElements", "max-elements", "int64_t", /*default=*/"16777216",
           "Largest result (elements) evaluated at compile time">
  ];
  let statistics = [
    Statistic<"numFolded", "num-folded", "ops on constant weights folded">
  ];
}

def XPUOutlineWeightPackPass : Pass<"xpu-outline-weight-pack", "ModuleOp"> {
  let summary = "Outline computation on weights into <fn>.pack, run once";
  let description = [{
    Catalog: dtype_prepack_bf16 (pack time), model_class_pattern
    (`_pack_weights`), mem_wrapper_one_time_device_moves.

    Everything in `<fn>` that depends only on weights and constants moves
    into `<fn>.pack(weights) -> packed`; `<fn>.packed(inputs, packed)` holds
    the rest; `<fn>` keeps its signature and calls both, so callers stay
    correct, but it packs the weights on every call: a runtime that calls
    `<fn>` repeatedly with the same weights should call `<fn>.pack` once and
    `<fn>.packed` per input. Both parts are public with a C interface
    (`llvm.emit_c_interface`) and are marked `xpu.pack_part` ("pack" or
    "packed") so that a later run does not split them again. Weights are the
    arguments marked `xpu.weight` (the Python package marks a module's
    parameters and buffers): packing is a promise that `.pack` reads weights
    only, so a function without marks (`a @ b` of two inputs) is left whole.
    Callers still repack whenever an operand of `.pack` changes.
    Computation on constants only is folded at compile time instead.

    Only public, single-block functions with tensor arguments are split
    (private functions are helpers). An op moves when all its operands (and
    the values its regions read) come from weights, constants or moved ops
    and it has no side effects; linalg ops on tensors move even when their
    body holds a `cf.assert` (torch-mlir's guard in `1/sqrt(var + eps)`).
    Constants, and views of weights (reshapes, casts, slices: they compute
    nothing, and the slices `xpu-materialize-layouts` leaves hide a row
    pitch or a panel), are cloned where they are read; pack returns what a
    view reads. `<fn>.packed` takes the non-weight arguments, then the
    weight arguments the rest reads as they are, then pack's results.
    Functions without weights or weight-only computation, with several
    blocks, or whose `.pack`/`.packed` names are taken are left alone with a
    remark.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect"];
  let options = [
    Option<"weights", "weights", "std::string", /*default=*/"\"marked\"",
           "Which arguments are weights: 'marked' (default), the arguments "
           "marked xpu.weight (an unmarked argument may be an activation); "
           "'auto' is a deprecated spelling of it (a warning says so)">
  ];
  let statistics = [
    Statistic<"numOutlined", "num-outlined", "Functions split into pack and "
                                             "packed parts">
  ];
}

def XPUExpandFPowIPass : Pass<"xpu-expand-fpowi", "func::FuncOp"> {
  let summary = "Lower math.fpowi, which no backend lowers, to multiplications "
                "or math.powf";
  let description = [{
    torch-mlir emits `math.fpowi` for `x ** n` (GELU's tanh approximation
    computes `x ** 3`). The LLVM lowering rejects its vector form and SPIR-V
    has no pattern for it, so every code generation pipeline runs this pass
    first:

    * a constant exponent `n` becomes multiplications by repeated squaring
      (upstream's `math-expand-ops` expansion; a negative `n` divides 1 by
      the product, with the IEEE results for zero);
    * any other exponent becomes `math.powf(|x|, sitofp(n))` with the sign of
      `x` copied when `n` is odd (`math.copysign`), which is exact in sign for
      every `n` and as accurate as `powf`.

    Scalars and vectors of any float type are handled; the exponent's
    integer type does not matter.

    Before:
    ```mlir
    %c3 = arith.constant 3 : i64
    %y = math.fpowi %x, %c3 : f32, i64
    ```
    After:
    ```mlir
    %0 = arith.mulf %x, %x : f32
    %y = arith.mulf %0, %x : f32
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
  let statistics = [
    Statistic<"numGeneral", "num-general",
              "math.fpowi with a non-constant exponent lowered to math.powf">
  ];
}

def XPUDemoteF64Pass : Pass<"xpu-demote-f64", "func::FuncOp"> {
  let summary = "Compute f64 GEMMs and epilogues in f32";
  let description = [{
    Catalog: dtype_float64_to_float32, dtype_input_conversion.

    An `xpu.gemm` that has f64 anywhere (operands, accumulator, epilogue
    operands, values inside the epilogue, result) is computed in f32, since
    Xe GPUs run f64 at a fraction of the f32 rate or not at all:

    * f64 lhs / rhs and f64 epilogue operands are truncated to f32 once, by
      an elementwise `linalg.generic` (`arith.truncf`) placed right after
      their definition (at the function entry for arguments), so a weight's
      conversion depends only on the weight and a tensor used twice is
      converted once;
    * the accumulator becomes f32;
    * the epilogue is retyped: f64 block arguments and results of arith and
      math ops become f32, f64 constants are rounded to f32, and the
      `arith.extf` / `arith.truncf` between f32 and f64 that this makes
      redundant are removed;
    * an f64 result is extended back with `arith.extf`, so the function's
      signature and its callers do not change.

    GEMMs in functions named in `keep`, GEMMs marked `xpu.keep_f64`, and
    GEMMs whose epilogue cannot be computed in f32 (an `arith.bitcast` of an
    f64, f64 vectors, f64 values in nested regions, ops from other dialects
    on f64, a constant beyond the f32 range) stay in f64. Every demotion and
    every GEMM kept in f64 is a remark. Values of f64 operands beyond the
    f32 range become infinities: the demotion assumes f32 range suffices.

    Before:
    ```mlir
    %y = xpu.gemm %x, %w rhs_layout(nk) acc(f64) : (tensor<64x128xf64>, tensor<32x128xf64>) -> tensor<64x32xf64>
    ```
    After:
    ```mlir
    %x32 = linalg.generic ... ins(%x : tensor<64x128xf64>) { arith.truncf }
    %w32 = linalg.generic ... ins(%w : tensor<32x128xf64>) { arith.truncf }
    %g = xpu.gemm %x32, %w32 rhs_layout(nk) acc(f32) : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xf32>
    %y = linalg.generic ... ins(%g : tensor<64x32xf32>) { arith.extf }
    ```
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    ListOption<"keep", "keep", "std::string",
               "Functions whose GEMMs stay in f64">
  ];
  let statistics = [
    Statistic<"numDemoted", "num-demoted", "GEMMs demoted to f32">
  ];
}

def XPUPrepackBF16Pass : Pass<"xpu-prepack-bf16", "func::FuncOp"> {
  let summary = "Use bf16 or f16 GEMM operands with f32 accumulation";
  let description = [{
    Catalog: dtype_prepack_bf16.

    With `precision=bf16` (the pass's default) or `f16`, the lhs and rhs of
    an `xpu.gemm` with f32 operands and an f32 accumulator are truncated to
    the 16-bit type (`arith.truncf`, round to nearest even) by an elementwise
    `linalg.generic` placed right after their definition, and the GEMM
    accumulates them in f32; the epilogue operands (bias, scales) and the
    result keep their types. A weight argument's conversion sits at the
    function entry and depends only on the weight, so
    `xpu-outline-weight-pack` moves it to pack time; a tensor used by several
    GEMMs is converted once. Two operands need no conversion kernel: one
    that is the elementwise `arith.extf` of a 16-bit tensor of the target
    type (a bf16 model's activation widened by torch-mlir) is replaced by
    that tensor (the round trip is exact), and one that another `xpu.gemm`
    produces for this GEMM alone is rounded by that GEMM's epilogue, whose
    result becomes 16-bit (a remark says which).

    Left unchanged, with a remark: GEMMs whose operands are already bf16 or
    f16, other operand types (f64: run `xpu-demote-f64` first), and f32
    operands accumulated in another type. `precision=f32` (the default of
    every pipeline) changes nothing and says so in a remark per GEMM; any
    other value is an error on each function.

    Before:
    ```mlir
    %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<32xf32>) {...}
           : (tensor<64x128xf32>, tensor<32x128xf32>) -> tensor<64x32xf32>
    ```
    After:
    ```mlir
    %x16 = linalg.generic ... ins(%x : tensor<64x128xf32>) { arith.truncf }
    %w16 = linalg.generic ... ins(%w : tensor<32x128xf32>) { arith.truncf }
    %y = xpu.gemm %x16, %w16 rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<32xf32>) {...}
           : (tensor<64x128xbf16>, tensor<32x128xbf16>) -> tensor<64x32xf32>
    ```
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"bf16\"",
           "Operand precision: f32 (no change), bf16 or f16">
  ];
  let statistics = [
    Statistic<"numConverted", "num-converted", "GEMMs given 16-bit operands">
  ];
}

def XPUSplitGemmReductionPass
    : Pass<"xpu-split-gemm-reduction", "func::FuncOp"> {
  let summary = "Mark GEMMs whose result feeds a row reduction, which stays a "
                "separate op";
  let description = [{
    Catalog: reduction_elementwise_fusion (the GEMM side), the playbook's
    "never serialize over N inside one program".

    An analysis that changes no computation. For each `xpu.gemm` it follows
    the result, directly or through elementwise `linalg.generic` ops that
    read it through an identity map, to reductions: `linalg.reduce`
    (`dimensions`), `linalg.softmax` (`dimension`) and `linalg.generic` with
    reduction loops (the result dimensions its indexing map sends to a
    reduction loop). A reduction over the last result dimension alone (n: a
    row reduction, e.g. softmax's max and sum, layernorm's mean) needs whole
    rows, which one GEMM tile does not hold, so it stays a separate op after
    the GEMM: the GEMM gets the unit attribute `xpu.reduction_consumer` for
    later passes and a remark reports the pair and whether the elementwise
    ops in between are eligible for epilogue fusion (the GEMM result has a
    single user). Column reductions (over m), batch and multi-dimension
    reductions are reported as missed and do not mark the GEMM. The mark is
    recomputed on every run: a GEMM that no longer feeds a row reduction
    loses it. (k is contracted inside the GEMM, so a reduction over k is not
    visible here.)
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect"];
  let statistics = [
    Statistic<"numSplit", "num-split", "GEMM + row reduction pairs kept apart">
  ];
}

def XPUAnalyzePass : Pass<"xpu-analyze", "func::FuncOp"> {
  let summary = "Classify each function and report its roofline numbers";
  let description = [{
    The compiler's answer to the playbook's analyze_kernel.py: each function
    is classified (gemm, gemm_epilogue, gemm_reduction, reduction,
    elementwise, or none) and its shapes, FLOPs, bytes moved, arithmetic
    intensity against the `#xpu.target` ridge point, and the recommended
    levels and passes are reported as analysis remarks on the function. The
    IR is not changed.

    GEMMs are `xpu.gemm`, `linalg.matmul` and `linalg.batch_matmul`. A GEMM
    with a reduction computed from its result is `gemm_reduction` (this
    wins over elementwise work, unlike the script, since the reduction
    decides the strategy); with a non-identity epilogue or elementwise
    consumers `gemm_epilogue`; else `gemm`.

    Numbers: a GEMM is `2*b*m*n*k` FLOPs plus one FLOP per epilogue op
    (constants aside) per output element; other linalg ops count their
    payload ops per iteration; bytes are each op's operands and results at
    their element size (unfused: what fusion saves); zero fills are
    absorbed. Dynamic shapes are reported without numbers. The ridge is
    `peak_f32_gflops / mem_gbps` of the module's `#xpu.target` (else the
    `pvc` preset), or `peak_bf16_gflops / mem_gbps` when every
    GEMM has bf16/f16 operands.

    Recommendations: `xpu-raise` for unraised matmuls; level_1
    `xpu-select-strategy` for every GEMM; level_2 `xpu-prepack-bf16` for
    f32 GEMMs (compute-bound: the bf16 peak; memory-bound: half the operand
    bytes), `xpu-demote-f64` for f64; level_3
    `xpu-fold-affine-into-weights` for a per-channel scale after the GEMM;
    `xpu-split-gemm-reduction` or `xpu-fuse-epilogue` for reductions or
    elementwise ops fed by a GEMM.
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect"];
}

def XPUSelectStrategyPass : Pass<"xpu-select-strategy", "func::FuncOp"> {
  let summary = "Attach a #xpu.config (tiles, subgroups, stages, GRF mode, "
                "swizzle) to every xpu.gemm from a cost model";
  let description = [{
    Catalog: level_1_baseline_xpu (tile swizzling with GROUP_SIZE_M,
    autotuned tiles), the `grf_mode='256'` advice and
    fusion_register_pressure_guard. The cost model, its formulas and the
    sources of its numbers are in `docs/Strategy.md`.

    For each `xpu.gemm` without a config, every candidate workgroup tile of
    the grid `{256, 128, 64, 32, 16, 8} x {256, 128, 64, 32, 16}` whose m and
    n are multiples of the target's `mma` shape is scored on the module's
    `#xpu.target` (`xpu-attach-target`; else the `pvc` preset), for the
    backend of the `backend` option: a registered backend's name, or
    `auto`, the first registered backend, by rank, that takes the GEMM
    (`xe` on Intel targets; on NVIDIA targets `nvgpu` for the GEMMs the
    tensor cores take, 16-bit operands or f32 with `tf32`, with
    `mma = wgmma` for 16-bit operands on `sm_90a` and `mma_sync` otherwise
    or under a Stream-K schedule; `simt` for the others). The pass asks the
    backend through `GemmBackendAttrInterface` (its knobs, tile_k, tiles,
    register file, rules; `docs/Strategy.md`, "Backends"):

    * subgroups: `[clamp(tile_m / 32, 1, 8), clamp(tile_n / 32, 1, 8)]`
      halved (columns first) to at most 32 subgroups on Xe; 64x64 blocks and
      at most 8 warps on NVIDIA; each block a multiple of the `mma` shape;
    * tile_k: 32 for 16-bit operands, 16 otherwise (16 for SIMT kernels
      on Xe, 64 for wgmma);
    * stages: 1 when `ceil(K / tile_k)` is 1, 2 below 4, 3 below 16, else 4,
      lowered until `stages * (tile_m + tile_n) * tile_k * operand bytes`
      fits `slm_bytes` (else the candidate is rejected);
    * registers: the fusion guard's model (`RegisterModel`, accumulator
      fragment times the epilogue's peak live fragments, plus the reserve;
      with `backend=simt` on Xe, the SIMT micro-tile's accumulators and K-loop
      operands) picks `grf_mode` 128 when it fits, else 256 on Xe, else
      rejects; the budget is `grf_count` (255) on NVIDIA, where `grf_mode` is
      0;
    * time: `ceil(tiles / compute_units)` waves times the roofline time of
      one tile on one compute unit (its share of the peak rate and of the
      memory bandwidth); the fastest candidate wins, ties going to the
      larger tile area, then the wider tile.

    `group_m` is 8 (Triton's GROUP_SIZE_M), 1 when the grid has one row of
    tiles. The schedule is then scored on the chosen tile
    (`docs/Strategy.md`, "Schedule"): Stream-K when the last wave leaves
    more than `stream-k-threshold` of the machine idle and it models
    faster, persistent when the grid has at least 4 waves and persistent
    programs model at least `persistent-gain` faster, else data-parallel;
    `schedule=` forces one for every GEMM. Every decision is a remark with
    the numbers: tile, waves, wave efficiency, useful work, model time,
    registers and SLM bytes, then tiles, programs, waves and the modeled
    efficiency and time of data-parallel and of the chosen schedule.

    A config written by hand is kept (a remark says so, with the same
    numbers) when it is valid for the target: Xe knobs (`#xpu.xe<grf_mode =
    128 | 256>`) only on Intel targets; tensor-core knobs (`#xpu.nvgpu<mma
    = mma_sync | wgmma, precision = native | tf32>`) only on NVIDIA targets
    and within the nvgpu backend's rules (wgmma: sm_90a, its tile shapes,
    tile_k 64, data-parallel); a schedule that can be planned; subgroup blocks multiples of the `mma` shape; at most
    1024 work-items per workgroup and, on Xe, at most 64 subgroups (32 in
    256-GRF mode, the hardware threads of one Xe-core); its SLM within
    `slm_bytes`. Otherwise it is an error on the GEMM. A hand config over the
    register estimate is kept with a missed remark (the estimate is a
    model, spills are not an error).

    With `tuning-db=PATH` (a database `xpu-tune` wrote; `docs/Tuning.md`),
    a GEMM without a config whose target chip and signature (batch, m, n,
    k, element types, rhs layout, epilogue) have an entry gets the entry's
    measured best config instead of the model's, after the checks of a
    hand-written config, with a remark that names the database and the
    measured gain over the default config. An entry whose config no longer
    parses or passes those checks (or is for another backend than
    `backend`) is ignored with a warning on the GEMM, and the model
    chooses. A database that cannot be read, or of another format version,
    is an error.

    On a `cpu` target nothing is attached: the CPU tiles are options of
    `xpu-cpu-tile-and-vectorize`, which does not read `#xpu.config`; a
    missed remark says so (hand configs are left as they are). When no
    candidate fits (a custom target with little SLM, an epilogue beyond
    every register budget) the GEMM keeps no config and a missed remark
    gives the counts.

    Before:
    ```mlir
    module attributes {xpu.target = #xpu.target<"pvc">} {
      %c = xpu.gemm %a, %b rhs_layout(kn) acc(f32)
             : (tensor<4096x4096xbf16>, tensor<4096x4096xbf16>) -> tensor<4096x4096xf32>
    }
    ```
    After:
    ```mlir
    %c = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<
           tile = [256, 256, 32], group_m = 8, subgroups = [8, 4], stages = 4,
           schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : ...
    ```
  }];
  let dependentDialects = ["::mlir::xpu::XPUDialect"];
  let options = [
    Option<"backend", "backend", "std::string", /*default=*/"\"auto\"",
           "GEMM backend the configs are for: a registered backend's name "
           "(simt: convert-xpu-to-gpu, xe: convert-xpu-to-xegpu, nvgpu: "
           "convert-xpu-to-nvgpu) or auto (xe on Intel targets; nvgpu on "
           "NVIDIA targets for the GEMMs the tensor cores take, simt for the "
           "others; simt elsewhere)">,
    Option<"schedule", "schedule", "std::string", /*default=*/"\"auto\"",
           "Work schedule of every GEMM: auto (the cost model chooses), "
           "data_parallel, persistent or stream_k (a config written by hand "
           "keeps its own)">,
    Option<"programs", "programs", "int64_t", /*default=*/"0",
           "Program count of persistent and Stream-K schedules (0: the "
           "workgroups the target runs at once)">,
    Option<"fixup", "fixup", "std::string", /*default=*/"\"deterministic\"",
           "Stream-K fix-up: deterministic (fixed summation order) or atomic">,
    Option<"streamKThreshold", "stream-k-threshold", "double",
           /*default=*/"0.2",
           "With schedule=auto, Stream-K is chosen when the last wave leaves "
           "more than this fraction of the machine idle and it models faster">,
    Option<"persistentGain", "persistent-gain", "double", /*default=*/"0.1",
           "With schedule=auto, persistent programs are chosen when the grid "
           "has at least 4 waves and they model at least this fraction "
           "faster">,
    Option<"tf32", "tf32", "bool", /*default=*/"false",
           "NVIDIA: f32 GEMMs run on tensor cores in tf32 (xpu-nvvm-pipeline "
           "precision=tf32): backend=auto gives them nvgpu configs with "
           "precision = tf32, and the register model is mma.sync's">,
    Option<"tuningDb", "tuning-db", "std::string", /*default=*/"\"\"",
           "Tuning database (xpu-tune's JSON file): GEMMs with a valid "
           "entry for the target get its measured best config">,
    Option<"simtVector", "simt-vector", "int64_t", /*default=*/"0",
           "Micro-tile layout of the GEMMs given to the SIMT kernels "
           "(#xpu.simt's vector: 1, 2 or 4); 0, the default: the backend's "
           "choice for the target (4 on NVIDIA, else 1)">
  ];
  let statistics = [
    Statistic<"numSelected", "num-selected", "GEMMs given a config">,
    Statistic<"numTuned", "num-tuned",
              "GEMMs given the config of a tuning database entry">,
    Statistic<"numStale", "num-stale",
              "Tuning database entries ignored (no longer valid)">,
    Statistic<"numKept", "num-kept", "Hand-written configs kept">,
    Statistic<"numSkipped", "num-skipped",
              "GEMMs left without a config (cpu target, nothing fits)">
  ];
}

def XPUWriteResultsInPlacePass
    : Pass<"xpu-write-results-in-place", "ModuleOp"> {
  let summary = "Computes a called function's result in the caller's "
                "result buffer instead of copying it there";
  let description = [{
    After bufferization (the pipelines run it right after
    `one-shot-bufferize`). A function that returns a buffer it allocates,
    called by a function that copies that result into an argument marked
    `xpu.result_buffer` (the entry points of packages and `xpu-run`, which
    own the result buffers), makes the call copy the whole result once more
    (a device-to-device copy per call on the GPUs). For each such call
    whose callee returns, as result `i`, a `memref.alloc` of the same
    static type with an identity layout and at most 64-byte alignment, used
    by nothing but the return, the pass moves the callee's body to a
    private function `<callee>.in_place` that takes the destination as an
    extra argument in place of the allocation, calls it with the caller's
    buffer and drops the copy. The callee keeps its signature (it may be
    public, with its own C interface) and becomes a thin function that
    allocates the buffer and calls `<callee>.in_place`, so the body (and
    the kernels outlined from it, named after `<callee>.in_place`) exists
    once. The `xpu.result_buffer` marks are removed afterwards. A remark
    names each result written in place and each one left with its copy,
    with the reason.

    Before:
    ```mlir
    func.func @f(%x: memref<4x8xf32>) -> memref<4x8xf32> {
      %a = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
      ...
      return %a : memref<4x8xf32>
    }
    func.func @entry(%x: memref<4x8xf32>,
                     %out: memref<4x8xf32> {xpu.result_buffer}) {
      %r = call @f(%x) : (memref<4x8xf32>) -> memref<4x8xf32>
      memref.copy %r, %out : memref<4x8xf32> to memref<4x8xf32>
      return
    }
    ```
    After:
    ```mlir
    func.func @f(%x: memref<4x8xf32>) -> memref<4x8xf32> {
      %a = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
      call @f.in_place(%x, %a) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
      return %a : memref<4x8xf32>
    }
    func.func private @f.in_place(%x: memref<4x8xf32>,
                                  %out: memref<4x8xf32>) { ... }
    func.func @entry(%x: memref<4x8xf32>, %out: memref<4x8xf32>) {
      call @f.in_place(%x, %out) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numInPlace", "in-place", "Results written in place">,
    Statistic<"numCopied", "copied", "Results left with their copy">
  ];
}

#endif // XPU_DIALECT_XPU_TRANSFORMS_PASSES_TD
