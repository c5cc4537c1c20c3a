"""The problems of the NVIDIA benchmark, as MLIR and as PyTorch.

Each problem is a small PyTorch-style model. `mlir(problem, dtype)` writes it
in the linalg-on-tensors form torch-mlir emits (a transposed nn.Linear
weight, a matmul into a zero fill, broadcast linalg.generic epilogues), with
bf16 operands accumulated in f32 where the model is bf16; `torch_forward`
(in run.py, on the GPU machine) computes the same function with PyTorch.
Used by build.py (here) and run.py (there); no third-party imports.
"""

from dataclasses import dataclass, field

ID2 = "affine_map<(d0, d1) -> (d0, d1)>"
COL2 = "affine_map<(d0, d1) -> (d1)>"
ROW2 = "affine_map<(d0, d1) -> (d0)>"
ID3 = "affine_map<(d0, d1, d2) -> (d0, d1, d2)>"


@dataclass
class Problem:
    name: str
    # gemm (A @ B, B [k, n]), bmm (batched), linear_gelu, linear_bn_relu,
    # linear_softmax, linear_residual (x @ W^T + b, W [n, k]).
    kind: str
    m: int
    n: int
    k: int
    batch: int = 1
    # Variants compiled for it: bf16 (bf16 model), tf32 (f32 model with
    # precision=tf32), f32 (f32 model, SIMT kernels); bf16-persistent,
    # bf16-stream-k and bf16-wgmma-persistent force those schedules
    # (build.py's VARIANTS).
    variants: tuple = ("bf16",)
    # Extra bf16 variants with hand-written configs (tile, warps, stages,
    # chip), for choosing the strategy's NVIDIA defaults.
    configs: tuple = ()
    # torch.compile peer (compiles take device time: only where fusion
    # matters).
    compile: bool = False
    # PyTorch peers timed next to it (run.py's names).
    peers: tuple = ("eager f32", "eager tf32", "eager bf16", "cuBLAS bf16",
                    "cuBLAS tf32")

    @property
    def flops(self):
        return 2 * self.batch * self.m * self.n * self.k


PROBLEMS = [
    Problem("gemm_2048", "gemm", 2048, 2048, 2048,
            variants=("bf16", "bf16-wgmma", "tf32", "tf32-wgmma", "f32")),
    # configs: (tile, warps, stages, chip); the mma.sync sweep of run 3
    # (bench/nvidia/NOTES.md) is left out now, the wgmma one stays.
    Problem("gemm_4096", "gemm", 4096, 4096, 4096,
            variants=("bf16", "bf16-wgmma", "tf32", "tf32-wgmma", "f32",
                      "bf16-wgmma-persistent", "bf16-wgmma-direct",
                      "tf32-wgmma-direct"),
            compile=True,
            configs=(((128, 128, 64), (2, 2), 4, "sm_90a"),
                     ((64, 256, 64), (1, 4), 4, "sm_90a"),
                     # The default tile alone and in clusters of 2 along M
                     # (B multicast), same run.
                     ((128, 256, 64), (2, 4), 4, "sm_90a"),
                     ((128, 256, 64), (2, 4), 4, "sm_90a", 2),
                     ((128, 128, 64), (2, 2), 4, "sm_90a", 2),
                     # Pingpong consumers (persistent, one SM each).
                     ((128, 128, 64), (2, 2), 6, "sm_90a", "pingpong"),
                     ((128, 128, 64), (2, 2), 7, "sm_90a", "pingpong"),
                     ((64, 256, 64), (1, 4), 5, "sm_90a", "pingpong"))),
    Problem("gemm_8192", "gemm", 8192, 8192, 8192,
            variants=("bf16", "bf16-wgmma", "tf32", "tf32-wgmma",
                      "bf16-wgmma-direct"),
            configs=(((128, 256, 64), (2, 4), 4, "sm_90a"),
                     ((128, 256, 64), (2, 4), 4, "sm_90a", 2),
                     ((128, 128, 64), (2, 2), 6, "sm_90a", "pingpong"))),
    Problem("gemm_odd", "gemm", 8205, 5921, 2949,
            variants=("bf16", "bf16-wgmma", "tf32", "tf32-wgmma",
                      "bf16-persistent",
                      "bf16-stream-k", "bf16-wgmma-persistent",
                      "bf16-wgmma-direct")),
    Problem("bmm_64x1024", "bmm", 1024, 1024, 1024, batch=64,
            variants=("bf16", "bf16-wgmma", "tf32-wgmma",
                      "bf16-wgmma-direct")),
    Problem("linear_gelu", "linear_gelu", 4096, 4096, 4096,
            variants=("bf16", "bf16-wgmma", "tf32", "tf32-wgmma",
                      "bf16-persistent",
                      "bf16-stream-k", "bf16-wgmma-persistent",
                      "bf16-wgmma-stream-k", "bf16-wgmma-direct",
                      "bf16-wgmma-staged-tma"),
            compile=True,
            # The GELU epilogue on cooperative and pingpong consumers.
            configs=(((128, 256, 64), (2, 4), 4, "sm_90a"),
                     ((128, 128, 64), (2, 2), 6, "sm_90a", "pingpong"),
                     ((128, 128, 64), (2, 2), 7, "sm_90a", "pingpong"),
                     ((64, 256, 64), (1, 4), 5, "sm_90a", "pingpong"))),
    Problem("linear_bn_relu", "linear_bn_relu", 4096, 4096, 4096,
            variants=("bf16", "bf16-wgmma", "bf16-wgmma-direct",
                      "bf16-wgmma-staged-tma"),
            compile=True),
    Problem("linear_softmax", "linear_softmax", 4096, 4096, 4096,
            variants=("bf16", "bf16-wgmma"), compile=True),
    Problem("linear_residual", "linear_residual", 4096, 4096, 4096,
            variants=("bf16", "bf16-wgmma", "bf16-wgmma-direct"),
            compile=True),
]


# Problems for finding out where a kernel loses time, not for the table:
# the wgmma kernel on GEMMs whose M, N or K alone is not a multiple of its
# tile (8205x5921x2949 ran 6x slower than mma.sync with wgmma: NOTES.md),
# next to a GEMM of about the same size where all three are. build.py
# --set edges compiles them; run.py times whatever the manifest holds.
DIAGNOSTIC = [
    Problem(name, "gemm", m, n, k, variants=("bf16-wgmma",),
            peers=("cuBLAS bf16",))
    for name, m, n, k in (("edge_none", 8192, 6144, 3072),
                          ("edge_m", 8205, 6144, 3072),
                          ("edge_n", 8192, 5921, 3072),
                          ("edge_k", 8192, 6144, 2949),
                          ("edge_all", 8205, 5921, 2949))]

# Batched GEMMs (the table's and KernelBench l1_03's, 128 x 512x2048x1024),
# where wgmma trails cuBLAS most: the schedules and wgmma tiles side by
# side. build.py --set bmm compiles them.
BATCHED = [
    Problem(name, "bmm", m, n, k, batch=b,
            variants=("bf16-wgmma", "bf16-wgmma-persistent", "tf32-wgmma",
                      "bf16-wgmma-direct"),
            peers=("cuBLAS bf16", "cuBLAS tf32"),
            configs=(((128, 128, 64), (2, 2), 4, "sm_90a"),
                     ((128, 128, 64), (2, 2), 6, "sm_90a"),
                     ((128, 256, 64), (2, 4), 3, "sm_90a"),
                     ((64, 256, 64), (1, 4), 4, "sm_90a")))
    for name, b, m, n, k in (("bmm_64x1024_diag", 64, 1024, 1024, 1024),
                             ("bmm_kb03", 128, 512, 2048, 1024))]

# 4096x4096 GEMMs of growing K, to split a kernel's time into what every
# tile costs once (prologue, epilogue, launch) and what each k tile costs
# (the main loop), against cuBLAS at the same shapes: the time of one wave
# is a + b K. build.py --set ksweep compiles them.
KSWEEP = [
    Problem("ksweep_%d" % k, "gemm", 4096, 4096, k,
            variants=("bf16-wgmma", "bf16-wgmma-persistent",
                      "bf16-wgmma-direct"),
            peers=("cuBLAS bf16",))
    for k in (256, 512, 1024, 2048, 4096)]

# f32 GEMMs on the SIMT kernels (TF32 off), against eager f32 with TF32
# off (cuBLAS SGEMM): the strategy's pick and hand-written layouts.
_SIMT_CONFIGS = (((128, 128, 16), (4, 2), 2, "sm_90", ("simt", 4)),
                 ((128, 128, 8), (4, 2), 2, "sm_90", ("simt", 4)),
                 ((128, 256, 8), (4, 2), 2, "sm_90", ("simt", 4)),
                 ((64, 256, 8), (2, 4), 2, "sm_90", ("simt", 4)),
                 # The strategy's pick for f32 on sm_90 before the runs of 4.
                 ((32, 32, 16), (1, 1), 2, "sm_90", ("simt", 1)))
SIMT = [
    Problem(name, kind, m, n, k, batch=b, variants=("f32",),
            peers=("eager f32", "eager tf32"), configs=_SIMT_CONFIGS
            if kind == "gemm" else ())
    for name, kind, b, m, n, k in (
        ("simt_gemm_2048", "gemm", 1, 2048, 2048, 2048),
        ("simt_gemm_4096", "gemm", 1, 4096, 4096, 4096),
        ("simt_gemm_odd", "gemm", 1, 8205, 5921, 2949),
        ("simt_bmm_64x1024", "bmm", 64, 1024, 1024, 1024),
        ("simt_linear_gelu", "linear_gelu", 1, 4096, 4096, 4096))]

# GEMMs whose tiles fill the machine badly (a fraction of a wave, or a
# small last wave), where Stream-K should pay, next to the odd shape: the
# strategy's pick (bf16-wgmma) against forced data-parallel, persistent and
# Stream-K programs on wgmma, and Stream-K on mma.sync. build.py --set
# streamk compiles them.
STREAMK = [
    Problem(name, "gemm", m, n, k,
            variants=("bf16-wgmma", "bf16-wgmma-data-parallel",
                      "bf16-wgmma-stream-k", "bf16-wgmma-persistent",
                      "bf16-stream-k"),
            peers=("cuBLAS bf16",), compile=name == "sk_odd")
    for name, m, n, k in (("sk_1536x2048x16384", 1536, 2048, 16384),
                          ("sk_2048x2560x8192", 2048, 2560, 8192),
                          ("sk_3072x3072x8192", 3072, 3072, 8192),
                          ("sk_4096x4096x4096", 4096, 4096, 4096),
                          ("sk_odd", 8205, 5921, 2949),
                          # Operands that fit the H100's 50 MB L2.
                          ("sk_1024x1024x8192", 1024, 1024, 8192),
                          ("sk_1536x2048x4096", 1536, 2048, 4096),
                          ("sk_2048x2560x2048", 2048, 2560, 2048),
                          ("sk_3072x3072x2048", 3072, 3072, 2048))]

SETS = {"bench": PROBLEMS, "edges": DIAGNOSTIC, "bmm": BATCHED,
        "ksweep": KSWEEP, "simt": SIMT, "streamk": STREAMK}


def find(name):
    for p in [p for ps in SETS.values() for p in ps]:
        if p.name == name:
            return p
    raise KeyError(name)


def _t(shape, dtype):
    return "tensor<%sx%s>" % ("x".join(str(s) for s in shape), dtype)


class _Writer:
    """Builds one function; `types` maps each value to (shape, dtype)."""

    def __init__(self):
        self.lines = []
        self.n = 0
        self.types = {}

    def v(self):
        self.n += 1
        return "%%v%d" % self.n

    def add(self, line):
        self.lines.append("  " + line)

    def generic(self, maps, ins, out_shape, out_dtype, body, iters=None,
                init=None):
        """A linalg.generic over `ins`; `body(args)` gets (name, dtype) of
        each block argument, all converted to f32 first, and returns the
        region's lines and the yielded f32 value (converted to out_dtype)."""
        iters = iters or ["parallel"] * len(out_shape)
        if init is None:
            init = self.v()
            self.add("%s = tensor.empty() : %s" % (init, _t(out_shape, out_dtype)))
        res = self.v()
        block, pre, f32args = [], [], []
        for i, x in enumerate(ins):
            dt = self.types[x][1]
            a = "%%a%d" % i
            block.append("%s: %s" % (a, dt))
            if dt != "f32":
                pre.append("%s_f = arith.extf %s : %s to f32" % (a, a, dt))
                a = a + "_f"
            f32args.append(a)
        lines, yielded = body(f32args)
        if out_dtype != "f32":
            lines.append("%%yt = arith.truncf %s : f32 to %s" % (yielded, out_dtype))
            yielded = "%yt"
        self.add('%s = linalg.generic {indexing_maps = [%s], iterator_types = [%s]} '
                 'ins(%s : %s) outs(%s : %s) {' % (
                     res, ", ".join(maps), ", ".join('"%s"' % i for i in iters),
                     ", ".join(ins),
                     ", ".join(_t(*self.types[x]) for x in ins),
                     init, _t(out_shape, out_dtype)))
        self.add("^bb0(%s, %%out: %s):" % (", ".join(block), out_dtype))
        for line in pre + lines:
            self.add("  " + line)
        self.add("  linalg.yield %s : %s" % (yielded, out_dtype))
        self.add("} -> %s" % _t(out_shape, out_dtype))
        self.types[res] = (out_shape, out_dtype)
        return res


def mlir(p, dtype):
    """MLIR of problem `p` with `dtype` (bf16 or f32) tensors."""
    w = _Writer()
    args = []

    def arg(name, shape, weight=False):
        # Weights are marked: xpu-outline-weight-pack packs marked arguments
        # only (an unmarked one may be an activation), once per input set.
        v = "%" + name
        w.types[v] = (shape, dtype)
        args.append("%s: %s%s" % (v, _t(shape, dtype),
                                  " {xpu.weight}" if weight else ""))
        return v

    m, n, k, b = p.m, p.n, p.k, p.batch
    batched = p.kind == "bmm"
    linear = p.kind not in ("gemm", "bmm")
    if batched:
        a, bb, out_shape = arg("a", (b, m, k)), arg("b", (b, k, n)), (b, m, n)
    elif not linear:
        # The GEMM's B is the weight (packed once per input set, as a
        # model's weight would be); both operands of a bmm are activations.
        a, bb, out_shape = arg("a", (m, k)), arg("b", (k, n), True), (m, n)
    else:
        a, wt = arg("x", (m, k)), arg("w", (n, k), True)
        bias = arg("bias", (n,), True)
        out_shape = (m, n)
        if p.kind == "linear_bn_relu":
            gamma, beta = arg("gamma", (n,), True), arg("beta", (n,), True)
            mean, var = arg("mean", (n,), True), arg("var", (n,), True)
        if p.kind == "linear_residual":
            resid = arg("resid", (m, n))

    cst = w.v()
    w.add("%s = arith.constant 0.000000e+00 : f32" % cst)
    if linear:
        # torch-mlir: the weight transposed by linalg.transpose.
        e = w.v()
        w.add("%s = tensor.empty() : %s" % (e, _t((k, n), dtype)))
        bb = w.v()
        w.add("%s = linalg.transpose ins(%s : %s) outs(%s : %s) permutation = [1, 0]"
              % (bb, wt, _t((n, k), dtype), e, _t((k, n), dtype)))
        w.types[bb] = ((k, n), dtype)
    # The product accumulates in f32 (cuBLAS does for bf16 too).
    e = w.v()
    w.add("%s = tensor.empty() : %s" % (e, _t(out_shape, "f32")))
    z = w.v()
    w.add("%s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
          % (z, cst, e, _t(out_shape, "f32"), _t(out_shape, "f32")))
    y = w.v()
    op = "linalg.batch_matmul" if batched else "linalg.matmul"
    w.add("%s = %s ins(%s, %s : %s, %s) outs(%s : %s) -> %s" % (
        y, op, a, bb, _t(*w.types[a]), _t(*w.types[bb]), z,
        _t(out_shape, "f32"), _t(out_shape, "f32")))
    w.types[y] = (out_shape, "f32")

    if linear:
        y = w.generic([ID2, COL2, ID2], [y, bias], out_shape, "f32",
                      lambda a_: (["%%r = arith.addf %s, %s : f32" % tuple(a_)],
                                  "%r"))
    if p.kind == "linear_gelu":
        # nn.GELU(): 0.5 x (1 + erf(x / sqrt(2)))
        def gelu(a_):
            x = a_[0]
            return ["%c = arith.constant 0.707106769 : f32",
                    "%h = arith.constant 5.000000e-01 : f32",
                    "%one = arith.constant 1.000000e+00 : f32",
                    "%%s = arith.mulf %s, %%c : f32" % x,
                    "%e = math.erf %s : f32",
                    "%p = arith.addf %e, %one : f32",
                    "%%q = arith.mulf %s, %%h : f32" % x,
                    "%r = arith.mulf %q, %p : f32"], "%r"
        y = w.generic([ID2, ID2], [y], out_shape, "f32", gelu)
    elif p.kind == "linear_bn_relu":
        # BatchNorm1d (eval), then ReLU.
        def bn_relu(a_):
            y_, mu, var_, g, bt = a_
            return ["%eps = arith.constant 1.000000e-05 : f32",
                    "%zero = arith.constant 0.000000e+00 : f32",
                    "%%d = arith.subf %s, %s : f32" % (y_, mu),
                    "%%ve = arith.addf %s, %%eps : f32" % var_,
                    "%sd = math.sqrt %ve : f32",
                    "%nrm = arith.divf %d, %sd : f32",
                    "%%sc = arith.mulf %%nrm, %s : f32" % g,
                    "%%sh = arith.addf %%sc, %s : f32" % bt,
                    "%gt = arith.cmpf ugt, %sh, %zero : f32",
                    "%r = arith.select %gt, %sh, %zero : f32"], "%r"
        y = w.generic([ID2, COL2, COL2, COL2, COL2, ID2],
                      [y, mean, var, gamma, beta], out_shape, "f32", bn_relu)
    elif p.kind == "linear_residual":
        y = w.generic([ID2, ID2, ID2], [y, resid], out_shape, "f32",
                      lambda a_: (["%%r = arith.addf %s, %s : f32" % tuple(a_)],
                                  "%r"))
    elif p.kind == "linear_softmax":
        # softmax over dim 1 as torch-mlir decomposes it: row max, exp of the
        # difference, row sum, division.
        def row_fill(value):
            e_ = w.v()
            w.add("%s = tensor.empty() : %s" % (e_, _t((m,), "f32")))
            f = w.v()
            w.add("%s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s"
                  % (f, value, e_, _t((m,), "f32"), _t((m,), "f32")))
            return f
        ninf = w.v()
        w.add("%s = arith.constant 0xFF800000 : f32" % ninf)
        red = ["parallel", "reduction"]
        mx = w.generic([ID2, ROW2], [y], (m,), "f32",
                       lambda a_: (["%%r = arith.maximumf %s, %%out : f32" % a_[0]],
                                   "%r"), iters=red, init=row_fill(ninf))
        ex = w.generic([ID2, ROW2, ID2], [y, mx], out_shape, "f32",
                       lambda a_: (["%%d = arith.subf %s, %s : f32" % tuple(a_),
                                    "%r = math.exp %d : f32"], "%r"))
        sm = w.generic([ID2, ROW2], [ex], (m,), "f32",
                       lambda a_: (["%%r = arith.addf %s, %%out : f32" % a_[0]],
                                   "%r"), iters=red, init=row_fill(cst))
        y = w.generic([ID2, ROW2, ID2], [ex, sm], out_shape, "f32",
                      lambda a_: (["%%r = arith.divf %s, %s : f32" % tuple(a_)],
                                  "%r"))
    if dtype != "f32":
        maps = [ID3, ID3] if batched else [ID2, ID2]
        y = w.generic(maps, [y], out_shape, dtype, lambda a_: ([], a_[0]))
    w.add("return %s : %s" % (y, _t(out_shape, dtype)))
    head = "func.func @forward(%s) -> %s {" % (", ".join(args),
                                                _t(out_shape, dtype))
    return "\n".join(["// %s (%s), generated by bench/nvidia/problems.py"
                      % (p.name, dtype), head] + w.lines + ["}", ""])


def xpu_gemm_with_config(p, config):
    """A bf16 GEMM (or batched GEMM) written as xpu.gemm with a config, for
    the config sweep: tensor-core knobs (#xpu.nvgpu) for wgmma on sm_90a
    where the tile suits it, else mma.sync."""
    (tm, tn, tk), (wr, wc), stages, chip = config[:4]
    cluster_m, pingpong = _config_extras(config)
    simt = _simt_vector(config)
    wgmma = (chip == "sm_90a" and tm in (64, 128) and tn % 64 == 0
             and tn <= 256 and tk == 64)
    mma = "wgmma" if wgmma else "mma_sync"
    if cluster_m > 1:
        mma += ", cluster_m = %d" % cluster_m
    schedule = "data_parallel"
    if pingpong:
        mma += ", consumers = pingpong"
        schedule = "persistent"
    m, n, k, b = p.m, p.n, p.k, p.batch
    backend = ("#xpu.nvgpu<mma = %s>" % mma if simt is None else
               "" if simt == 1 else "#xpu.simt<vector = %d>" % simt)
    attr = ("{config = #xpu.config<tile = [%d, %d, %d], group_m = 8, "
            "subgroups = [%d, %d], stages = %d, schedule = %s%s>}" % (
                tm, tn, tk, wr, wc, stages, schedule,
                ", backend = " + backend if backend else ""))
    if simt is not None:
        # An f32 GEMM on the SIMT kernels (run.py's "f32" variants).
        pre = (b,) if p.kind == "bmm" else ()
        ta, tb, tc = _t(pre + (m, k), "f32"), _t(pre + (k, n), "f32"), \
            _t(pre + (m, n), "f32")
        return "\n".join([
            "func.func @forward(%%a: %s, %%b: %s) -> %s {" % (ta, tb, tc),
            "  %%g = xpu.gemm %%a, %%b rhs_layout(kn) acc(f32) %s "
            ": (%s, %s) -> %s" % (attr, ta, tb, tc),
            "  return %%g : %s" % tc,
            "}", ""]).replace("%%", "%")
    if p.kind == "linear_gelu":
        # x @ W^T + b, then GELU (erf), as run.py's reference: the
        # epilogue that pingpong consumers should hide.
        tx, tw, tv, tc = _t((m, k), "bf16"), _t((n, k), "bf16"), \
            _t((n,), "bf16"), _t((m, n), "bf16")
        return "\n".join([
            "func.func @forward(%%x: %s, %%w: %s, %%bias: %s) -> %s {" % (
                tx, tw, tv, tc),
            "  %%g = xpu.gemm %%x, %%w rhs_layout(nk) acc(f32) "
            "epilogue(%%bias per_col : %s) {" % tv,
            "  ^bb0(%acc: f32, %c: bf16):",
            "    %half = arith.constant 0.5 : f32",
            "    %one = arith.constant 1.0 : f32",
            "    %rsqrt2 = arith.constant 0.707106769 : f32",
            "    %cf = arith.extf %c : bf16 to f32",
            "    %v = arith.addf %acc, %cf : f32",
            "    %s = arith.mulf %v, %rsqrt2 : f32",
            "    %e = math.erf %s : f32",
            "    %q = arith.addf %e, %one : f32",
            "    %h = arith.mulf %v, %half : f32",
            "    %r = arith.mulf %h, %q : f32",
            "    %t = arith.truncf %r : f32 to bf16",
            "    xpu.yield %t : bf16",
            "  } %s : (%s, %s) -> %s" % (attr, tx, tw, tc),
            "  return %%g : %s" % tc,
            "}", ""]).replace("%%", "%")
    pre = (b,) if p.kind == "bmm" else ()
    ta, tb, tc = _t(pre + (m, k), "bf16"), _t(pre + (k, n), "bf16"), \
        _t(pre + (m, n), "bf16")
    return "\n".join([
        "func.func @forward(%%a: %s, %%b: %s) -> %s {" % (ta, tb, tc),
        "  %%g = xpu.gemm %%a, %%b rhs_layout(kn) acc(f32) epilogue {",
        "  ^bb0(%acc: f32):",
        "    %t = arith.truncf %acc : f32 to bf16",
        "    xpu.yield %t : bf16",
        "  } %s : (%s, %s) -> %s" % (attr, ta, tb, tc),
        "  return %%g : %s" % tc,
        "}", ""]).replace("%%", "%")


def _config_extras(config):
    """The optional elements after (tile, warps, stages, chip): an int is
    cluster_m, "pingpong" asks for pingpong consumers (persistent)."""
    extras = config[4:]
    cluster_m = next((e for e in extras if isinstance(e, int)), 1)
    return cluster_m, "pingpong" in extras


def _simt_vector(config):
    """("simt", V) among the extras: an f32 GEMM on the SIMT kernels with
    #xpu.simt<vector = V>; None otherwise."""
    return next((e[1] for e in config[4:]
                 if isinstance(e, tuple) and e[0] == "simt"), None)


def config_name(config):
    """configs: (tile, warps, stages, chip[, cluster_m][, "pingpong"]
    [, ("simt", V)]); SIMT configs are f32 variants ("f32-cfg...")."""
    (tm, tn, tk), (wr, wc), stages, chip = config[:4]
    cluster_m, pingpong = _config_extras(config)
    suffix = "_c%d" % cluster_m if cluster_m > 1 else ""
    if pingpong:
        suffix += "_pp"
    simt = _simt_vector(config)
    prefix = "" if simt is None else "f32-v%d-" % simt
    return "%scfg%dx%dx%d_w%dx%d_s%d_%s%s" % (prefix, tm, tn, tk, wr, wc,
                                              stages, chip, suffix)
