#!/usr/bin/env python3
"""Compile time of the CPU models: xpu-compile on each of
bench/kernelbench/problems.py's CPU_PROBLEMS, exported once to MLIR (as
xpu_opt.compile exports them), for one or more xpu-compile binaries in
the same run (say, a build of main and one of a branch).

Each binary compiles each model into a package (--emit=package, what
xpu_opt.compile asks for: the pipeline, LLVM's optimizer and code
generator, and the link) --reps times, alternating binaries, and the
table gives the minimum wall time per model and binary, then the
geomean; --emit=obj leaves the link out. Torch's export, which
xpu_opt.compile caches on disk, is not included.

Usage: scripts/bench-compile-time.py [--xpu-compile build/bin/xpu-compile
           ...] [--reps 3] [--only SUBSTR] [--precision f32|bf16]
           [--emit package|obj] [--core 1]
"""

import argparse
import math
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "kernelbench"))
sys.path.insert(0, str(ROOT / "python"))


def export_all(names, out):
    """Writes each problem's MLIR (xpu_opt.export) to out/<name>.mlir."""
    import problems
    import xpu_opt
    paths = {}
    for name in names:
        model, xs = problems.make(name, table=problems.CPU_PROBLEMS)
        path = out / f"{name}.mlir"
        path.write_text(str(xpu_opt.export(model, tuple(xs))))
        paths[name] = path
    return paths


def compile_once(binary, mlir, options, emit, out):
    cmd = [binary, str(mlir), "--target=cpu", f"--emit={emit}",
           f"--xpu-pipeline-options={options}", "-o", str(out)]
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--xpu-compile", action="append", default=[])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--precision", default="f32", choices=["f32", "bf16"])
    ap.add_argument("--emit", default="package", choices=["package", "obj"])
    ap.add_argument("--core", type=int, default=None,
                    help="pin to this core (taskset semantics)")
    args = ap.parse_args()
    binaries = args.xpu_compile or [str(ROOT / "build/bin/xpu-compile")]
    if args.reps < 1:
        sys.exit("bench-compile-time.py: --reps must be at least 1")
    if args.core is not None:
        os.sched_setaffinity(0, {args.core})
    import problems
    names = [n for n in problems.CPU_NAMES if args.only in n]
    if not names:
        sys.exit(f"bench-compile-time.py: no problem matches {args.only!r}")
    options = "threads=1" + (" precision=bf16" if args.precision == "bf16"
                             else "")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        paths = export_all(names, tmp)
        best = {(n, b): math.inf for n in names for b in binaries}
        for _ in range(args.reps):
            for name in names:
                for b in binaries:
                    out = tmp / f"out.{args.emit}"
                    subprocess.run(["rm", "-rf", str(out)], check=True)
                    t = compile_once(b, paths[name], options, args.emit, out)
                    best[name, b] = min(best[name, b], t)
    labels = [f"binary {i} s" for i in range(len(binaries))]
    print(f"xpu-compile --emit={args.emit} --xpu-pipeline-options="
          f"\"{options}\", minimum of {args.reps}; binaries: " +
          ", ".join(f"{i}: {b}" for i, b in enumerate(binaries)))
    print("| problem | " + " | ".join(labels) + " |")
    print("|---" * (len(binaries) + 1) + "|")
    for name in names:
        print(f"| {name} | " + " | ".join(
            f"{best[name, b]:.2f}" for b in binaries) + " |")
    geo = [math.exp(sum(math.log(best[n, b]) for n in names) / len(names))
           for b in binaries]
    print("| **geomean** | " + " | ".join(f"**{g:.2f}**" for g in geo) +
          " |")
    print("| **max** | " + " | ".join(
        f"{max(best[n, b] for n in names):.2f}" for b in binaries) + " |")


if __name__ == "__main__":
    main()
