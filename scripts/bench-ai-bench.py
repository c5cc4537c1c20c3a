#!/usr/bin/env python3
"""Times KernelBench-style models under ai-bench-suite's timer: PyTorch eager
against xpu_opt's compiled callable on each target given.

    .venv/bin/pip install --no-deps ai-bench-suite==0.2.0b1 pyyaml python-dotenv
    .venv/bin/python scripts/bench-ai-bench.py examples/pytorch/*.py --targets cpu,opencl

ai-bench's KernelBenchRunner loads `Model` classes from its own kernel
directories by YAML spec and has a fixed set of backends (pytorch,
pytorch-compile, triton, helion), so a compiler cannot be plugged into it;
its timer, ai_bench.harness.testing.time(fn, args, warmup, rep, device),
is what the runner times every backend with, and it takes any callable:
this script hands it the model (eager) and the xpu_opt callable. On the CPU
the timer is the mean torch.profiler CPU time of the calls (extremes
trimmed), in microseconds.
"""

import argparse
import platform
import sys
import time

import torch

import xpu_opt
from xpu_opt import _kernelbench
from xpu_opt.bench import reference, relative_error


def main():
    p = argparse.ArgumentParser()
    p.add_argument("files", nargs="+")
    p.add_argument("--targets", default="cpu")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--rep", type=int, default=20)
    args = p.parse_args()
    try:
        from ai_bench.harness import testing
    except ImportError:
        sys.exit("bench-ai-bench: ai-bench-suite is not installed (see the "
                 "docstring)")
    cpu = torch.device("cpu")
    # xpu_opt's CPU code is single-threaded: compare with one PyTorch thread.
    torch.set_num_threads(1)
    print(f"bench-ai-bench: {time.strftime('%c')}, {platform.processor() or platform.machine()}, "
          f"torch {torch.__version__} (1 thread), ai_bench timer (mean us, {args.rep} reps)")
    print(f"| {'model':28} | {'target':7} | {'eager us':>10} | {'xpu_opt us':>10} | {'speedup':>7} | {'rel. error':>10} |")
    print(f"|{'-' * 30}|{'-' * 9}|{'-' * 12}|{'-' * 12}|{'-' * 9}|{'-' * 12}|")
    for path in args.files:
        model, inputs = _kernelbench.load(path)
        with torch.no_grad():
            eager = testing.time(model, inputs, warmup=args.warmup,
                                 rep=args.rep, device=cpu)
        ref = reference(model, inputs)
        for target in args.targets.split(","):
            try:
                fast = xpu_opt.compile(model, inputs, target=target)
            except (xpu_opt.CompileError, xpu_opt.TargetUnavailable) as e:
                print(f"| {path.split('/')[-1]:28} | {target:7} | {eager:10.1f} | {'-':>10} | {'-':>7} | {str(e).splitlines()[0][:40]} |")
                continue
            err = relative_error(fast(*inputs), ref)
            t = testing.time(fast, inputs, warmup=args.warmup, rep=args.rep,
                             device=cpu)
            print(f"| {path.split('/')[-1]:28} | {target:7} | {eager:10.1f} | {t:10.1f} | {eager / t:6.2f}x | {err:10.2e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
