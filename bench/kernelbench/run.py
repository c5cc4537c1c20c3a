#!/usr/bin/env python3
"""Times, on the GPU machine, the KernelBench packages of build.py against
the peers users have, in one process and on one stream, and checks every
result against float64:

  f32 form   xpu (f32 model, precision=bf16)      vs  eager and torch.compile
             of the f32 model under torch.autocast(bfloat16)
  bf16 form  xpu (the model cast to bf16)          vs  eager and torch.compile
             of the bf16 model
  gemm       cuBLAS bf16 on the problem's (first) GEMM alone (torch.matmul /
             F.linear of bf16 tensors, no bias)

and, where build.py made them, the bf16 form's variants: tuned (its
--tuning-db), precise (--precise: fast-math=off, libdevice's functions) and
direct (--direct-store: tma-store=false, the wgmma kernels' stores from the
registers) and staged (--staged-store: tma-store-staged=true, staged
epilogues' results stored with TMA).

The xpu rows run module packages made on the spot from the function
package and the model's weights (bind_weights: what xpu_opt.build(...).save
writes, without carrying gigabytes of weights from the build machine).
Time: wall time per call with the GPU drained before and after
(torch.cuda.synchronize), median of --reps calls alternating two input
sets, after two warm-up calls of each set (torch.compile's first call, which
compiles, is reported apart). Error: max |got - ref| / max(max |ref|, 1)
against the model in float64 on the same (f32 or bf16-rounded) weights
and inputs; every row is checked against --tol.

  python3 bench/kernelbench/run.py DIR [--only SUBSTRING] [--reps 20]
      [--json FILE] [--no-compile] [--profile]
"""

import argparse
import copy
import json
import pathlib
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "common"))
sys.path.insert(0, str(ROOT / "python"))

import torch  # noqa: E402

import problems  # noqa: E402


def weights_of(model):
    """The function packages' weight arguments: named_parameters() then
    named_buffers() (xpu_opt.export's order)."""
    return [p.detach() for _, p in model.named_parameters()] + \
        [b for _, b in model.named_buffers()]


def bind_weights(fn_dir, model, num_inputs, out):
    """A module package (xpu_opt's format: xpu_opt.json, weights.bin, v0/)
    made of the function package `fn_dir` and `model`'s weights, what
    xpu_opt.build(model, ...).save(out) writes: its callable takes the
    inputs only and reads the weights it holds, as a deployed model does.
    (A function package compares every weight argument with what it packed
    at each call: the contract of live weights, not what a user of a
    frozen model pays.) `out` must be new to the process: a library is
    loaded once per path. Uses the package format's private helpers."""
    import shutil
    from xpu_opt import _package
    interface = json.loads((fn_dir / "interface.json").read_text())
    meta = _package._function_meta(interface)
    names = [n for n, _ in model.named_parameters()] + \
        [n for n, _ in model.named_buffers()]
    weights = weights_of(model)
    meta["num_inputs"] = num_inputs
    meta["weights"] = [[n, list(w.shape), str(w.dtype).replace("torch.", "")]
                       for n, w in zip(names, weights)]
    if out.exists():
        shutil.rmtree(out)
    shutil.copytree(fn_dir, out / "v0")
    entries, offset = [], 0
    with open(out / "weights.bin", "wb") as f:
        for n, w in zip(names, weights):
            data = _package._tensor_bytes(w)
            pad = -offset % 64
            f.write(b"\0" * pad)
            offset += pad
            f.write(data)
            entries.append({"name": n, "dtype": _package._DTYPE_NAMES[w.dtype],
                            "shape": list(w.shape), "offset": offset,
                            "nbytes": len(data)})
            offset += len(data)
    (out / "xpu_opt.json").write_text(json.dumps(
        {"format": _package.MODULE_FORMAT, "version": _package.MODULE_VERSION,
         "target": "cuda", "chip": interface.get("chip"),
         "precision": "bf16", "producer": "bench/kernelbench/run.py",
         "weights": entries,
         "variants": [{"directory": "v0", "meta": meta}]}))
    return out


def wall_ms(fn, sets, reps):
    for s in sets:
        fn(s)
        fn(s)
    times = []
    for i in range(reps):
        s = sets[i % len(sets)]
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn(s)
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def device_us(fn, sets):
    """Device time per call (us) of everything `fn` runs on the GPU
    (kernels, copies, fills: bench/common/profiler.py), and the 8 longest
    items."""
    from profiler import kernel_times
    items = kernel_times(lambda i: fn(sets[i]), len(sets))
    top = sorted(items.items(), key=lambda kv: -kv[1])[:8]
    return sum(items.values()), [(k[:60], round(v, 1)) for k, v in top]


def rel_error(got, ref):
    got, ref = got.double(), ref.double()
    if got.shape != ref.shape:
        return float("inf")
    scale = max(ref.abs().max().item(), 1.0)
    err = (got - ref).abs().max().item() / scale
    return err if err == err else float("inf")


def run_problem(args, name, log):
    import xpu_opt
    from torch.nn import functional as F
    model, _ = problems.make(name)
    model = model.cuda()
    sets = [[x.cuda() for x in problems.inputs(name, s)] for s in (101, 202)]
    bf16 = torch.bfloat16
    model_b = copy.deepcopy(model).to(bf16)
    sets_b = [[x.to(bf16) for x in s] for s in sets]
    with torch.no_grad():
        ref = copy.deepcopy(model).double()(*[x.double() for x in sets[0]])
        ref_b = copy.deepcopy(model_b).double()(
            *[x.double() for x in sets_b[0]])
    rows = {}

    def measure(label, fn, check_set, reference):
        try:
            with torch.no_grad():
                err = rel_error(fn(check_set), reference)
                ms = wall_ms(fn, sets if check_set is sets[0] else sets_b,
                             args.reps)
            rows[label] = {"ms": ms, "rel_error": err}
            if args.profile:
                total, top = device_us(fn, sets if check_set is sets[0]
                                       else sets_b)
                rows[label]["device_us"] = round(total, 1)
                rows[label]["top"] = top
        except Exception as e:  # noqa: BLE001 - reported, the rest goes on
            rows[label] = {"error": f"{type(e).__name__}: {str(e)[:300]}"}

    autocast = torch.autocast("cuda", dtype=bf16)

    def under_autocast(m):
        def fn(xs):
            with autocast:
                return m(*xs)
        return fn

    # Every problem compiles afresh (the chains share LinearChain.forward,
    # whose cache would hit dynamo's recompile limit).
    torch._dynamo.reset()
    # The f32 form.
    pkg = args.dir / "pkgs" / f"{name}.f32"
    n = len(sets[0])
    if pkg.exists():
        fast = xpu_opt.load(bind_weights(pkg, model, n, args.work / f"{name}.f32"),
                            target="cuda")
        measure("xpu f32->bf16", lambda xs: fast(*xs), sets[0], ref)
    measure("eager autocast", under_autocast(model), sets[0], ref)
    if args.compile:
        compiled = torch.compile(under_autocast(model))
        t0 = time.perf_counter()
        with torch.no_grad():
            compiled(sets[0])
        compile_s = time.perf_counter() - t0
        measure("compile autocast", compiled, sets[0], ref)
        rows["compile autocast"]["compile_s"] = round(compile_s, 1)
    # The bf16 form.
    pkg = args.dir / "pkgs" / f"{name}.bf16"
    if pkg.exists():
        fast_b = xpu_opt.load(bind_weights(pkg, model_b, n,
                                           args.work / f"{name}.bf16"), target="cuda")
        measure("xpu bf16", lambda xs: fast_b(*xs), sets_b[0], ref_b)
    # build.py --tuning-db: the tuned configs; --precise: fast-math=off.
    for variant in ("tuned", "precise", "direct", "staged"):
        pkg = args.dir / "pkgs" / f"{name}.bf16.{variant}"
        if pkg.exists():
            other = xpu_opt.load(bind_weights(pkg, model_b, n, args.work /
                                              f"{name}.bf16.{variant}"),
                                 target="cuda")
            measure(f"xpu bf16 {variant}", lambda xs, f=other: f(*xs),
                    sets_b[0], ref_b)
    measure("eager bf16", lambda xs: model_b(*xs), sets_b[0], ref_b)
    if args.compile:
        compiled_b = torch.compile(model_b)
        t0 = time.perf_counter()
        with torch.no_grad():
            compiled_b(*sets_b[0])
        compile_s = time.perf_counter() - t0
        measure("compile bf16", lambda xs: compiled_b(*xs), sets_b[0], ref_b)
        rows["compile bf16"]["compile_s"] = round(compile_s, 1)
    # cuBLAS on the bare (first) GEMM, bf16.
    a, b, kind = problems.bare_gemm(name, model_b, sets_b[0])
    if kind == "linear":
        gemm = lambda xs: F.linear(xs[0], b)  # noqa: E731
    elif kind == "bmm":
        gemm = lambda xs: torch.bmm(xs[0], xs[1])  # noqa: E731
    elif kind == "mm_bt":
        gemm = lambda xs: torch.matmul(xs[0], xs[1].T)  # noqa: E731
    else:
        gemm = lambda xs: torch.matmul(xs[0], xs[1])  # noqa: E731
    with torch.no_grad():
        rows["cuBLAS gemm bf16"] = {"ms": wall_ms(gemm, sets_b, args.reps)}
    result = {"problem": name, "rows": rows}
    log.write(json.dumps(result) + "\n")
    log.flush()
    del model, model_b, sets, sets_b
    torch.cuda.empty_cache()
    return result


COLS = ["xpu f32->bf16", "eager autocast", "compile autocast", "xpu bf16",
        "xpu bf16 tuned", "xpu bf16 precise", "eager bf16", "compile bf16",
        "cuBLAS gemm bf16", "xpu bf16 direct", "xpu bf16 staged"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=pathlib.Path)
    ap.add_argument("--only", default="",
                    help="comma-separated substrings of the problems to run")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--tol", type=float, default=2e-2)
    ap.add_argument("--json", type=pathlib.Path)
    ap.add_argument("--no-compile", dest="compile", action="store_false")
    ap.add_argument("--profile", action="store_true",
                    help="also the device time per call of every row")
    ap.add_argument("--work", type=pathlib.Path, default=pathlib.Path(
        "/tmp/xpu-kernelbench"), help="where the module packages go")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; "
          f"built from {json.loads((args.dir / 'manifest.json').read_text())['built_from']}",
          flush=True)
    log = open(args.json, "w") if args.json else open("/dev/null", "w")
    results = []
    for name in problems.NAMES:
        if args.only and not any(o in name for o in args.only.split(",")):
            continue
        r = run_problem(args, name, log)
        results.append(r)
        cells = []
        for c in COLS:
            x = r["rows"].get(c, {})
            if "ms" in x:
                bad = "!" if x.get("rel_error", 0) > args.tol else ""
                cells.append(f"{x['ms']:8.3f}{bad:1}")
            else:
                cells.append("     n/a " if not x else "   ERROR ")
        print(f"{name:36s} " + " ".join(cells), flush=True)
        for c, x in r["rows"].items():
            if "error" in x:
                print(f"  {c}: {x['error']}", flush=True)
    # Ratios: peers' time / xpu's time (above 1: xpu is faster).
    print("\nratios (peer ms / xpu ms), errors (max rel.):")
    geo = {}
    for r in results:
        rows = r["rows"]
        def ratio(peer, ours):
            if "ms" in rows.get(peer, {}) and "ms" in rows.get(ours, {}):
                v = rows[peer]["ms"] / rows[ours]["ms"]
                geo.setdefault((peer, ours), []).append(v)
                return f"{v:5.2f}"
            return "  n/a"
        errs = " ".join(f"{rows[c]['rel_error']:.1e}" if "rel_error" in
                        rows.get(c, {}) else "   n/a " for c in COLS[:8])
        print(f"{r['problem']:36s} vs eager ac {ratio('eager autocast', 'xpu f32->bf16')} "
              f"vs compile ac {ratio('compile autocast', 'xpu f32->bf16')} "
              f"vs eager bf16 {ratio('eager bf16', 'xpu bf16')} "
              f"vs compile bf16 {ratio('compile bf16', 'xpu bf16')} "
              f"vs cuBLAS {ratio('cuBLAS gemm bf16', 'xpu bf16')} "
              f"tuned {ratio('xpu bf16', 'xpu bf16 tuned')} "
              f"precise/fast {ratio('xpu bf16 precise', 'xpu bf16')} "
              f"direct/tma {ratio('xpu bf16 direct', 'xpu bf16')} "
              f"default/staged {ratio('xpu bf16', 'xpu bf16 staged')}  "
              f"errors {errs}")
    if args.profile:
        print("\ndevice time per call (us; profiler), xpu's 8 longest items:")
        for r in results:
            rows = r["rows"]
            cells = " ".join(f"{rows.get(c, {}).get('device_us', float('nan')):8.1f}"
                             for c in COLS)
            print(f"{r['problem']:36s} {cells}")
            for c in ("xpu f32->bf16", "xpu bf16"):
                if "top" in rows.get(c, {}):
                    print(f"    {c}: {rows[c]['top']}")
    import math
    for (peer, ours), v in geo.items():
        g = math.exp(sum(map(math.log, v)) / len(v))
        print(f"geomean {peer} / {ours}: {g:.2f} over {len(v)}")
    bad = [(r["problem"], c) for r in results for c, x in r["rows"].items()
           if c.startswith("xpu") and ("error" in x or
                                       x.get("rel_error", 0) > args.tol)]
    print(f"xpu rows over tolerance {args.tol} or failed: {bad or 'none'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
