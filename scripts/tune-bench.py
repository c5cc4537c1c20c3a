#!/usr/bin/env python3
"""Tunes the GEMMs of `make bench` (scripts/bench-cpu.py's cases) with
xpu-tune and prints one line per case: the default and tuned times, the
speedup, the tuning time and, where the target has a cost model, its rank
of the measured best and the rank correlation (docs/Tuning.md).

  scripts/tune-bench.py [--build build] [--target cpu] [--max-trials 10]
                        [--quick] [--db tuning.json]
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_bench():
    spec = importlib.util.spec_from_file_location(
        "bench_cpu", os.path.join(ROOT, "scripts", "bench-cpu.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--target", default="cpu")
    p.add_argument("--max-trials", type=int, default=10)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--quick", action="store_true",
                   help="only bench-cpu.py's quick cases")
    p.add_argument("--db", default=None,
                   help="database to write (default: a temporary file)")
    args = p.parse_args()
    bench = load_bench()
    tmp = tempfile.mkdtemp(prefix="tune-bench-")
    db = args.db or os.path.join(tmp, "tuning.json")
    print(f"{'case':36} {'default ms':>11} {'tuned ms':>9} {'speedup':>8} "
          f"{'tune s':>7} {'trials':>6} {'model rank':>10} {'rho':>6}")
    for name, m, n, k, layout, epilogue in bench.CASES:
        if args.quick and name not in bench.QUICK:
            continue
        text = bench.forward_mlir(m, n, k, layout, epilogue)
        # The weight and bias are packed once, as a model's are.
        for arg in ("%w", "%b"):
            start = text.find(arg + ": tensor<")
            if start >= 0:
                end = text.find(">", start) + 1
                text = text[:end] + " {xpu.weight}" + text[end:]
        path = os.path.join(tmp, name.replace(" ", "_").replace("/", "_") +
                            ".mlir")
        with open(path, "w") as f:
            f.write(text + "\n")
        began = time.time()
        result = subprocess.run(
            [os.path.join(args.build, "bin", "xpu-tune"), path,
             f"--target={args.target}", f"--db={db}",
             f"--max-trials={args.max_trials}", f"--repeat={args.repeat}"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        seconds = time.time() - began
        if result.returncode != 0:
            print(f"{name:36} xpu-tune failed: "
                  f"{result.stderr.strip().splitlines()[-1]}")
            continue
        with open(db) as f:
            entries = json.load(f)["entries"]
        key = f"1x{m}x{n}x{k} "
        entry = next(e for e in entries if e["key"].startswith(key) and
                     e["signature"]["rhs_layout"] == layout)
        rank = entry.get("model_rank_of_best")
        rho = entry.get("rank_correlation")
        print(f"{name:36} {entry['default_ns'] * 1e-6:11.3f} "
              f"{entry['best_ns'] * 1e-6:9.3f} "
              f"{entry['default_ns'] / entry['best_ns']:7.2f}x "
              f"{seconds:7.1f} {len(entry['trials']) - 1:6d} "
              f"{str(rank) if rank else '-':>10} "
              f"{('%.2f' % rho) if rho is not None else '-':>6}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
