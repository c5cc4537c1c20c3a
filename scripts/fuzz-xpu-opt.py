#!/usr/bin/env python3
"""Feeds truncated and mutated inputs to xpu-opt and reports crashes.

Bad input must give a diagnostic and a non-zero exit, never a crash: a run
that dies from a signal, or prints a stack dump or an LLVM fatal error, is a
crash. Mutations are derived from a fixed seed, so a failure reproduces; the
offending input is written next to the report.

  fuzz-xpu-opt.py --xpu-opt build/bin/xpu-opt [--runs N] [--seed S] FILE...
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile

PIPELINES = [
    [],  # parse, verify, print
    ["--pass-pipeline=builtin.module(func.func(xpu-raise),xpu-lower-to-linalg)"],
    ["--pass-pipeline=builtin.module(func.func(xpu-raise{strict=true}),"
     "xpu-lower-to-linalg,func.func(xpu-cpu-tile-and-vectorize))"],
    ["--canonicalize"],
    ["--xpu-cpu-pipeline"],
    ["--xpu-optimize"],
    ["--xpu-optimize=precision=bf16"],
    ["--pass-pipeline=builtin.module(func.func(xpu-raise,xpu-fuse-epilogue,"
     "xpu-fold-affine-into-weights,xpu-simplify-epilogue,xpu-demote-f64,"
     "xpu-prepack-bf16,xpu-split-gemm-reduction,xpu-analyze),"
     "xpu-outline-weight-pack)"],
    # The GPU paths: strategy + tiled SIMT kernels to SPIR-V, and XeGPU.
    ["--pass-pipeline=builtin.module(func.func(xpu-raise,xpu-select-strategy,"
     "convert-xpu-to-gpu))"],
    ["--xpu-spirv-pipeline"],
    ["--xpu-xe-pipeline=chip=bmg"],
]

TOKEN_SWAPS = [
    ("f32", "f16"), ("f32", "i32"), ("f32", "f64"), ("f16", "bf16"),
    ("kn", "nk"), ("nk", "kn"), ("per_col", "per_row"), ("per_row", "full"),
    ("full", "scalar"), ("scalar", "per_col"), ("parallel", "reduction"),
    ("linalg.matmul", "linalg.batch_matmul"), ("xpu.yield", "linalg.yield"),
    ("linalg.yield", "xpu.yield"), ("arith.addf", "arith.addi"),
    ("(d0, d1)", "(d1, d0)"), ("[1, 0]", "[0, 1]"), ("tensor<", "memref<"),
    ("acc(f32)", "acc(f16)"), ("epilogue(", "epilogue (("),
]


def mutate(text, rng):
    kind = rng.randrange(6)
    if kind == 0:  # truncate anywhere
        return text[: rng.randrange(len(text) + 1)]
    lines = text.split("\n")
    if kind == 1 and len(lines) > 1:  # drop a line
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if kind == 2 and len(lines) > 1:  # duplicate a line
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return "\n".join(lines)
    if kind == 3:  # change a number (shapes, permutations, seeds)
        nums = list(re.finditer(r"\b\d+\b", text))
        if nums:
            m = rng.choice(nums)
            new = str(rng.choice([0, 1, 2, 3, 7, 64, 2**31, 2**40]))
            return text[: m.start()] + new + text[m.end():]
    if kind == 4:  # make a dimension dynamic
        dims = list(re.finditer(r"(?<=[<x])\d+(?=x)", text))
        if dims:
            m = rng.choice(dims)
            return text[: m.start()] + "?" + text[m.end():]
    # swap a token for a related one
    present = [s for s in TOKEN_SWAPS if s[0] in text]
    if not present:
        return text[: len(text) // 2]
    a, b = rng.choice(present)
    starts = [m.start() for m in re.finditer(re.escape(a), text)]
    s = rng.choice(starts)
    return text[:s] + b + text[s + len(a):]


def is_crash(proc):
    if proc.returncode < 0 or proc.returncode > 1:
        return True
    err = proc.stderr
    return ("Stack dump" in err or "LLVM ERROR" in err or
            "Assertion" in err or "UNREACHABLE" in err)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--xpu-opt", required=True)
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=tempfile.gettempdir(),
                    help="where crashing inputs are written")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    corpus = []
    for f in args.files:
        with open(f) as fh:
            # Fuzz each split chunk on its own: they are independent inputs.
            corpus += [c for c in fh.read().split("// -----") if c.strip()]

    crashes = 0
    rejected = 0
    for run in range(args.runs):
        text = mutate(rng.choice(corpus), rng)
        pipeline = rng.choice(PIPELINES)
        with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as t:
            t.write(text)
            path = t.name
        try:
            proc = subprocess.run([args.xpu_opt, path, "-o", os.devnull] + pipeline,
                                  capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            print("HANG: run %d (%s) on %s" % (run, " ".join(pipeline), path))
            crashes += 1
            continue
        if is_crash(proc):
            crashes += 1
            keep = os.path.join(args.out, "xpu-opt-crash-%d.mlir" % run)
            os.replace(path, keep)
            print("CRASH: run %d, exit %d, xpu-opt %s %s" %
                  (run, proc.returncode, keep, " ".join(pipeline)))
            print("\n".join(proc.stderr.splitlines()[:8]))
            continue
        if proc.returncode != 0:
            rejected += 1
            if not re.search(r":\d+:\d+: error:|error:", proc.stderr):
                crashes += 1
                print("NO DIAGNOSTIC: run %d exits %d without an error message"
                      % (run, proc.returncode))
        os.unlink(path)
    print("%d runs: %d rejected with a diagnostic, %d crashes" %
          (args.runs, rejected, crashes))
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
