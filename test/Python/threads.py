"""Compiled modules called from several threads (issue 21, part 4), on one
target. Run in a child process whose exit status is checked, so that a
crash (the runtime's 'pointer ... not inside memory from mgpuMemAlloc'
exit, a fault) is a FAIL line, not the end of the test:

* one compiled module (with a weight-packing part) called by 4 threads, 40
  calls each, every call on inputs of its own;
* two compiled modules called at once (on a device, one runtime);
* 3 threads compiling different modules at once (one cache).

Every result is compared with its float64 PyTorch reference (xpu_testlib),
tolerance 1e-5 relative to max(max |ref|, 1) (f32 dot products, K = 64).

    threads.py --target=cpu|opencl
"""

import argparse
import pathlib
import sys
import threading

import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import xpu_testlib as t  # noqa: E402

TOL = 1e-5


def model(width, seed):
    torch.manual_seed(seed)
    m = nn.Sequential(nn.Linear(64, width), nn.BatchNorm1d(width),
                      nn.ReLU()).eval()
    with torch.no_grad():
        m[1].running_mean.uniform_(-0.5, 0.5)
        m[1].running_var.uniform_(0.5, 1.5)
    return m


def hammer(jobs, threads, calls):
    """Runs `calls` calls of each (fast, module) of `jobs` in each of
    `threads` threads; returns the errors (strings) seen."""
    work = []
    for job, (fast, module) in enumerate(jobs):
        for th in range(threads):
            inputs = [torch.randn(16, 64) for _ in range(calls)]
            refs = [t.reference(module, [x]) for x in inputs]
            work.append((fast, inputs, refs, f"module {job} thread {th}"))
    errors, worst = [], [0.0]
    start = threading.Barrier(len(work))

    def run(fast, inputs, refs, name):
        start.wait()
        for i, (x, ref) in enumerate(zip(inputs, refs)):
            try:
                err = t.rel_error(fast(x), ref)
                worst[0] = max(worst[0], err)
                if not err <= TOL:
                    errors.append(f"{name} call {i}: error {err:.2e}")
            except Exception as e:  # noqa: BLE001
                errors.append(f"{name} call {i}: {type(e).__name__}: {e}")
    pool = [threading.Thread(target=run, args=w) for w in work]
    for th in pool:
        th.start()
    for th in pool:
        th.join()
    return errors, worst[0]


def child(target):
    import xpu_opt

    @t.case(f"one module, 4 threads x 40 calls on {target}")
    def _():
        m = model(48, 1)
        fast = xpu_opt.compile(m, torch.randn(16, 64), target=target)
        errors, worst = hammer([(fast, m)], 4, 40)
        assert not errors, f"{len(errors)} bad calls: {errors[:3]}"
        assert fast.variant((torch.randn(16, 64),)).pack_count == 1, \
            "packed more than once"
        return f"160 calls, max relative error {worst:.2e}"

    @t.case(f"two modules at once, 2 threads each x 30 calls on {target}")
    def _():
        jobs = []
        for width, seed in ((48, 2), (40, 3)):
            m = model(width, seed)
            jobs.append((xpu_opt.compile(m, torch.randn(16, 64),
                                         target=target), m))
        errors, worst = hammer(jobs, 2, 30)
        assert not errors, f"{len(errors)} bad calls: {errors[:3]}"
        return f"120 calls, max relative error {worst:.2e}"

    @t.case(f"3 threads compiling different modules at once on {target}")
    def _():
        results, start = {}, threading.Barrier(3)

        def build(width):
            start.wait()
            try:
                m = model(width, width)
                fast = xpu_opt.compile(m, torch.randn(16, 64), target=target)
                x = torch.randn(16, 64)
                results[width] = t.rel_error(fast(x), t.reference(m, [x]))
            except Exception as e:  # noqa: BLE001
                results[width] = f"{type(e).__name__}: {e}"
        pool = [threading.Thread(target=build, args=(w,))
                for w in (24, 32, 56)]
        for th in pool:
            th.start()
        for th in pool:
            th.join()
        bad = {w: r for w, r in results.items()
               if not isinstance(r, float) or not r <= TOL}
        assert len(results) == 3 and not bad, f"{results}"

    t.finish()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--target", required=True)
    p.add_argument("--child", action="store_true")
    args = p.parse_args()
    if args.child:
        return child(args.target)
    import subprocess
    result = subprocess.run([sys.executable, __file__, "--target",
                             args.target, "--child"], capture_output=True,
                            text=True, timeout=900)
    sys.stdout.write(result.stdout)

    @t.case(f"the threaded calls ended with exit status 0 on {args.target}")
    def _():
        assert result.returncode == 0, (
            f"exit status {result.returncode}; stderr:\n{result.stderr}")
    t.finish()


if __name__ == "__main__":
    main()
