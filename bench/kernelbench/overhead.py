#!/usr/bin/env python3
"""Where the host time of a call goes, on the GPU machine: a module package
whose GEMM takes a few microseconds of device time (problems.HOST_PROBLEMS,
built by build.py) called from PyTorch, against eager PyTorch and
torch.compile of the same model.

  back-to-back   calls without a synchronization between them (median of 5
                 runs of --calls calls, per call): the host's time per call,
                 since the GPU keeps up;
  synchronized   one call between two torch.cuda.synchronize() (run.py's
                 measure): the host time plus the launch latency and the
                 device time;
  layers         xpu's call split by layer (back-to-back): the whole
                 LoadedModule call, _Variant.run (no input checks, no output
                 structure), and the compiled host code alone (ctypes call
                 of the entry point with prepared arguments);
  profile        cProfile of --calls xpu calls, the functions with the most
                 own time.

  python3 bench/kernelbench/overhead.py DIR [--calls 2000]
"""

import argparse
import cProfile
import ctypes
import io
import pathlib
import pstats
import statistics
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1] / "python"))

import torch  # noqa: E402

import problems  # noqa: E402
from run import bind_weights  # noqa: E402


def per_call_us(fn, calls, sync_each=False):
    fn()
    fn()
    torch.cuda.synchronize()
    runs = []
    for _ in range(5):
        if sync_each:
            times = []
            for _ in range(calls // 10):
                torch.cuda.synchronize()
                t0 = time.perf_counter()
                fn()
                torch.cuda.synchronize()
                times.append(time.perf_counter() - t0)
            runs.append(statistics.median(times) * 1e6)
            continue
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
        runs.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(runs)


def raw_entry(fast, xs):
    """The compiled host code alone: the packed entry point called through
    ctypes with the arguments of one call, prepared once."""
    v = fast.variant(xs)
    args = list(xs) + fast._device_weights()
    fast(*xs)  # packs
    c_args, tensors, keep = v._c_args(args)
    from xpu_opt._program import DTYPES, descriptor
    results = [torch.empty(s["shape"], dtype=DTYPES[s["dtype"]],
                           device="cuda") for s in v.plan["results"]]
    outs = [descriptor(r.data_ptr(), r.shape) for r in results]
    ops = [ctypes.byref(v.packed_descs[o["index"]]) if o["from"] == "pack"
           else c_args[o["index"]] for o in v.pack["packed_operands"]]
    call_args = ops + [ctypes.byref(d) for d in outs]
    entry = v.program.packed_entry

    def fn():
        entry(*call_args)
    fn.keep = (keep, tensors, results, outs)
    return fn


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=pathlib.Path)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--work", type=pathlib.Path,
                    default=pathlib.Path("/tmp/xpu-overhead"))
    args = ap.parse_args()
    import xpu_opt
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}")
    for name, *_ in problems.HOST_PROBLEMS:
        for form in ("f32", "bf16"):
            pkg = args.dir / "pkgs" / f"{name}.{form}"
            if not pkg.exists():
                print(f"{name}.{form}: no package in {args.dir}")
                continue
            model, xs = problems.make(name)
            model = model.cuda()
            xs = [x.cuda() for x in xs]
            if form == "bf16":
                model = model.to(torch.bfloat16)
                xs = [x.to(torch.bfloat16) for x in xs]
            fast = xpu_opt.load(bind_weights(pkg, model, len(xs),
                                             args.work / f"{name}.{form}"),
                                target="cuda")
            autocast = form == "f32"

            def eager():
                if autocast:
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        return model(*xs)
                return model(*xs)
            compiled = torch.compile(eager)
            v = fast.variant(xs)
            weights = fast._device_weights()
            rows = [("xpu (LoadedModule call)", lambda: fast(*xs)),
                    ("xpu _Variant.run", lambda: v.run(list(xs) + weights, 1)),
                    ("xpu compiled host code only", raw_entry(fast, xs)),
                    ("eager" + (" autocast" if autocast else ""), eager),
                    ("torch.compile", compiled)]
            print(f"\n{name}.{form}: us per call")
            print(f"{'':32s} {'back-to-back':>13s} {'synchronized':>13s}")
            with torch.no_grad():
                for label, fn in rows:
                    b2b = per_call_us(fn, args.calls)
                    sync = per_call_us(fn, args.calls, sync_each=True)
                    print(f"{label:32s} {b2b:13.1f} {sync:13.1f}", flush=True)
                prof = cProfile.Profile()
                prof.enable()
                for _ in range(args.calls):
                    fast(*xs)
                prof.disable()
                torch.cuda.synchronize()
            out = io.StringIO()
            pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(18)
            print("\n".join(line for line in out.getvalue().splitlines()
                            if line.strip())[:4000])
    return 0


if __name__ == "__main__":
    sys.exit(main())
