#!/usr/bin/env python3
"""KernelBench-style models on one CPU core: xpu_opt against PyTorch eager
and torch.compile (Inductor's C++ backend), measured in one process
(make bench, after bench-cpu-bf16.py).

The models are bench/kernelbench/problems.py's CPU_PROBLEMS: every level-2
GEMM + epilogue chain of the KernelBench set on a 256 x 1024 by 1024 x 1024
Linear (the two-GEMM #45 on 1024 x 512 -> 1024 -> 256) and four level-1
GEMMs at a quarter to an eighth of KernelBench's sizes. Two forms:

  f32    xpu_opt.compile(model, target="cpu", pipeline_options="threads=1")
         against the f32 model eager and under torch.compile
  bf16   with --bf16: precision="bf16" (the GEMMs on AMX or avx512_bf16
         where the host has them) against eager and torch.compile of the
         model under torch.autocast("cpu", bfloat16)

The process is pinned to one core (--core) with torch.set_num_threads(1).
Time: wall time per call, the minimum and the median over --reps calls
after three warm-up calls (torch.compile's first call, which compiles, is
reported apart as "compile s", as is xpu_opt's). Error: max |got - ref| /
max(max |ref|, 1) against the model in float64; an f32 row must stay within
1e-4, a bf16 row within 3e-2 (operands rounded to 8 bits, f32 sums), or
the script exits 1 after the table.

xpu_opt.compile's default weight contract (freeze=False: every call
compares the weights with those it packed) unless --freeze.

Usage: scripts/bench-cpu-models.py [--only SUBSTR] [--reps 20] [--core 1]
           [--bf16] [--freeze]
"""

import argparse
import datetime
import math
import os
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "kernelbench"))
sys.path.insert(0, str(ROOT / "python"))

import problems  # noqa: E402
import torch  # noqa: E402

TOL = {"f32": 1e-4, "bf16": 3e-2}


def timed(fn, xs, reps):
    """(min, median) seconds per call of fn(*xs) after three warm-ups."""
    with torch.no_grad():
        for _ in range(3):
            fn(*xs)
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            fn(*xs)
            times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def first_call(fn, xs):
    """(result, seconds) of the first call (where compilers compile)."""
    t = time.perf_counter()
    with torch.no_grad():
        y = fn(*xs)
    return y, time.perf_counter() - t


def rel_error(got, ref):
    got = got.double()
    return float((got - ref).abs().max() / max(float(ref.abs().max()), 1.0))


def flops(model, xs):
    """2 m n k of the model's GEMMs."""
    if isinstance(model, problems.Matmul):
        a, b = xs
        if model.kind == "bmm":
            return 2 * a.shape[0] * a.shape[1] * a.shape[2] * b.shape[2]
        n = b.shape[0] if model.kind == "mm_bt" else b.shape[1]
        return 2 * a.shape[0] * a.shape[1] * n
    total, rows = 0, xs[0].shape[0]
    for layer in model.modules():
        if isinstance(layer, torch.nn.Linear):
            total += 2 * rows * layer.in_features * layer.out_features
    return total


def bench_one(name, form, reps, freeze):
    import xpu_opt
    # Every LinearChain shares one forward: without a reset, Dynamo
    # recompiles it per problem and falls back to eager past its limit.
    torch._dynamo.reset()
    model, xs = problems.make(name, table=problems.CPU_PROBLEMS)
    with torch.no_grad():
        ref = model.double()(*[x.double() for x in xs])
    model.float()
    row = {"problem": name, "form": form, "gflop": flops(model, xs) / 1e9}
    if form == "bf16":
        def under_autocast(fn):
            def call(*args):
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    return fn(*args)
            return call
        eager = under_autocast(model)
        compiled = under_autocast(torch.compile(model))
    else:
        eager, compiled = model, torch.compile(model)
    t = time.perf_counter()
    fast = xpu_opt.compile(model, tuple(xs), target="cpu",
                           precision=form, pipeline_options="threads=1",
                           freeze=freeze)
    row["xpu compile s"] = time.perf_counter() - t
    y, _ = first_call(fast, xs)
    row["xpu error"] = rel_error(y, ref)
    y, row["inductor compile s"] = first_call(compiled, xs)
    row["compile error"] = rel_error(y.float(), ref)
    row["eager error"] = rel_error(eager(*xs).float(), ref)
    for label, fn in (("xpu", fast), ("eager", eager), ("compile", compiled)):
        row[label] = timed(fn, xs, reps)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--core", type=int, default=1)
    ap.add_argument("--freeze", action="store_true",
                    help="xpu_opt's freezing contract (weights copied at "
                         "compile time) instead of the default, which "
                         "compares the weights with the packed ones on "
                         "every call")
    ap.add_argument("--bf16", action="store_true",
                    help="also the bf16 form (precision=bf16 against "
                         "torch.autocast)")
    args = ap.parse_args()
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    if args.core >= 0:
        os.sched_setaffinity(0, {args.core})
    torch.set_num_threads(1)
    forms = ["f32"] + (["bf16"] if args.bf16 else [])
    names = [n for n in problems.CPU_NAMES if args.only in n]
    if not names:
        ap.error(f"--only {args.only!r} matches no problem "
                 f"({', '.join(problems.CPU_NAMES)})")
    now = datetime.datetime.now(datetime.timezone.utc)
    print(f"bench-cpu-models: {now:%Y-%m-%d %H:%M} UTC, torch "
          f"{torch.__version__}, pinned to core {args.core}, one thread, "
          f"{args.reps} calls, xpu_opt freeze={args.freeze}", flush=True)
    with os.popen("uptime") as f:
        print("bench-cpu-models: load before: %s" % f.read().strip())
    rows, failed = [], []
    for name in names:
        for form in forms:
            row = bench_one(name, form, args.reps, args.freeze)
            rows.append(row)
            for label in ("xpu", "eager", "compile"):
                if row[f"{label} error"] > TOL[form]:
                    failed.append(f"{name} {form} {label}: error "
                                  f"{row[f'{label} error']:.1e} > {TOL[form]}")
            print(f"bench-cpu-models: {name} {form}: xpu "
                  f"{row['xpu'][0] * 1e3:.3f} ms, eager "
                  f"{row['eager'][0] * 1e3:.3f} ms, compile "
                  f"{row['compile'][0] * 1e3:.3f} ms", flush=True)
    with os.popen("uptime") as f:
        print("bench-cpu-models: load after: %s" % f.read().strip())
    print()
    print("| problem | form | xpu min / median ms (GFLOP/s) | eager min ms "
          "| torch.compile min ms | xpu vs eager | xpu vs torch.compile "
          "| xpu error | compile s (xpu, Inductor) |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = {form: [] for form in forms}
    for r in rows:
        x_min, x_med = r["xpu"]
        vs_eager = r["eager"][0] / x_min
        vs_compile = r["compile"][0] / x_min
        ratios[r["form"]].append((vs_eager, vs_compile))
        print(f"| {r['problem']} | {r['form']} | {x_min * 1e3:.3f} / "
              f"{x_med * 1e3:.3f} ({r['gflop'] / x_min:.1f}) | "
              f"{r['eager'][0] * 1e3:.3f} | {r['compile'][0] * 1e3:.3f} | "
              f"{vs_eager:.2f}x | {vs_compile:.2f}x | {r['xpu error']:.1e} | "
              f"{r['xpu compile s']:.2f}, {r['inductor compile s']:.1f} |")
    for form, pairs in ratios.items():
        geo = [math.exp(statistics.fmean(math.log(p[i]) for p in pairs))
               for i in (0, 1)]
        print(f"| **geomean** | {form} | | | | **{geo[0]:.2f}x** | "
              f"**{geo[1]:.2f}x** | | |")
    print()
    print("xpu vs X = (X min time) / (xpu min time): above 1 xpu_opt is "
          "faster.")
    for line in failed:
        print(f"bench-cpu-models: FAIL {line}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
