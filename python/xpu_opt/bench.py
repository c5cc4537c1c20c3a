"""xpu-bench: a KernelBench-style model file compiled for a target, checked
against PyTorch and timed.

    python -m xpu_opt.bench examples/pytorch/linear_relu.py --target=cpu

Prints the error of xpu_opt's result relative to a float64 PyTorch
reference (max |got - ref| / max(max |ref|, 1)), PyTorch's and xpu_opt's
wall time per call, and on a device each kernel's launches and device time.
Exits 1 when the error exceeds --tol.
"""

import argparse
import statistics
import sys
import time


def _time(fn, args, repeat, warmup):
    for _ in range(warmup):
        fn(*args)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def relative_error(got, ref):
    """max |got - ref| / max(max |ref|, 1), in float64."""
    import torch
    got, ref = got.double(), ref.double()
    scale = max(ref.abs().max().item(), 1.0) if ref.numel() else 1.0
    return (got - ref).abs().max().item() / scale if ref.numel() else 0.0


def reference(model, inputs):
    """The model in float64 on float64 copies of its inputs (the model and
    integer inputs are left as they are)."""
    import copy

    import torch
    ref_model = copy.deepcopy(model).double()
    ref_inputs = [t.double() if t.is_floating_point() else t for t in inputs]
    with torch.no_grad():
        return ref_model(*ref_inputs)


def main(argv=None):
    p = argparse.ArgumentParser(prog="xpu-bench", description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("file", help="KernelBench-style model file")
    p.add_argument("--target", default="cpu")
    p.add_argument("--precision", default=None)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--warmup", type=int, default=2)
    p.add_argument("--tol", type=float, default=1e-4)
    args = p.parse_args(argv)

    import torch

    import xpu_opt
    from xpu_opt import _kernelbench
    # xpu_opt's CPU code runs on one thread: so does PyTorch here.
    torch.set_num_threads(1)
    model, inputs = _kernelbench.load(args.file)
    start = time.perf_counter()
    try:
        fast = xpu_opt.compile(model, inputs, target=args.target,
                               precision=args.precision)
    except (xpu_opt.CompileError, xpu_opt.TargetUnavailable,
            xpu_opt.DeviceError) as e:
        print(e, file=sys.stderr)
        return 1
    compile_s = time.perf_counter() - start
    got = fast(*inputs)
    ref = reference(model, inputs)
    err = relative_error(got, ref)
    with torch.no_grad():
        eager = _time(model, inputs, args.repeat, args.warmup)
    timing = fast.benchmark(*inputs, repeat=args.repeat, warmup=args.warmup)
    print(f"model: {args.file}  target: {args.target}  "
          f"precision: {fast.precision}")
    print(f"compile: {compile_s:.2f} s (cached after the first time)")
    print(f"max relative error vs float64 PyTorch: {err:.3e} "
          f"(tolerance {args.tol:.0e})")
    print(f"wall time per call: PyTorch eager (1 thread) {eager * 1e3:.3f} ms, "
          f"xpu_opt {timing['median'] * 1e3:.3f} ms "
          f"(median of {args.repeat})")
    if timing["kernels"]:
        print(f"{'kernel':40} {'launches':>10} {'device ms/launch':>18}")
        for name, launches, ns in timing["kernels"]:
            each = f"{ns / 1e6 / max(launches, 1):.3f}" if ns >= 0 else "n/a"
            print(f"{name:40} {launches:>10} {each:>18}")
    return 0 if err <= args.tol else 1


if __name__ == "__main__":
    sys.exit(main())
