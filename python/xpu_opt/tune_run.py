"""Times the trial packages of `xpu-tune --emit-trials=DIR` where the device
is (the GPU machine needs PyTorch, this package and the runtime, not the
compiler):

    python -m xpu_opt.tune_run DIR [--repeat N] [--warmup N] [--device I]

For each problem of DIR/trials.json the default config's package runs
first: its outputs are the reference. Every trial package is loaded
(xpu_opt.load), called --warmup times, then --repeat times, each call timed
between device synchronizations (CUDA events on CUDA), and the median is
its time; after the trials the default is timed once more and the faster
of its two times kept. Outputs farther from the default's than the
manifest's tolerance (relative L2 over the elements that are numbers in
both; a NaN in one only is a mismatch) make the trial a mismatch; a package that does not load or
run is failed. DIR/results.json (format "xpu-tune-results", version 1)
gets every trial; `xpu-tune --collect DIR/results.json --db=...` records
them. docs/Tuning.md describes both files.
"""

import argparse
import json
import pathlib
import platform
import statistics
import sys
import time

import torch

from ._package import load
from ._program import DTYPES

TRIALS_FORMAT = "xpu-tune-trials"
RESULTS_FORMAT = "xpu-tune-results"
VERSION = 1


def _inputs(manifest, target, device):
    """Seeded inputs of the manifest's types: floats uniform in [-1, 1),
    integers in [0, 8), booleans 0 or 1."""
    generator = torch.Generator().manual_seed(int(manifest.get("seed", 1)))
    values = []
    for spec in manifest["inputs"]:
        dtype = DTYPES[spec["dtype"]]
        shape = spec["shape"]
        if dtype.is_floating_point:
            t = torch.rand(shape, generator=generator, dtype=torch.float64)
            t = (t * 2 - 1).to(dtype)
        elif dtype == torch.bool:
            t = torch.randint(0, 2, shape, generator=generator).bool()
        else:
            t = torch.randint(0, 8, shape, generator=generator, dtype=dtype)
        if target == "cuda":
            t = t.to(torch.device("cuda", device if device is not None
                                  else torch.cuda.current_device()))
        values.append(t)
    return values


def _flat(result):
    if isinstance(result, (tuple, list)):
        return [r for x in result for r in _flat(x)]
    return [result]


def _time_calls(module, inputs, target, warmup, repeat):
    """The median time of one call (ns) and the last call's outputs."""
    cuda = target == "cuda"
    outputs = None
    for _ in range(warmup):
        outputs = module(*inputs)
    if cuda:
        torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        if cuda:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            outputs = module(*inputs)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) * 1e6)
        else:
            began = time.perf_counter()
            outputs = module(*inputs)
            times.append((time.perf_counter() - began) * 1e9)
    return statistics.median(times), [o.detach().to("cpu", torch.float64)
                                      for o in _flat(outputs)]


def _rel_l2(got, ref):
    """Relative L2 distance over the elements that are numbers in both (as
    xpu-tune's own comparison: a NaN in one output and not the other is a
    mismatch, a NaN in both agrees; a model's own NaNs, e.g. BatchNorm
    over the negative running variances of uniform inputs, are no
    trial's fault)."""
    if len(got) != len(ref) or any(g.shape != r.shape
                                   for g, r in zip(got, ref)):
        return float("inf")
    diff = norm = 0.0
    for g, r in zip(got, ref):
        nan_g, nan_r = torch.isnan(g), torch.isnan(r)
        if bool((nan_g != nan_r).any()):
            return float("inf")
        g, r = g[~nan_r], r[~nan_r]
        diff += float(((g - r) ** 2).sum())
        norm += float((r ** 2).sum())
    if diff != diff:  # inf - inf
        return float("inf")
    if norm == 0:
        return 0.0 if diff == 0 else float("inf")
    return (diff / norm) ** 0.5


def run(directory, repeat=None, warmup=2, device=None, log=sys.stderr):
    """Times every trial of `directory` and writes its results.json;
    returns the results."""
    directory = pathlib.Path(directory)
    with open(directory / "trials.json") as f:
        manifest = json.load(f)
    if manifest.get("format") != TRIALS_FORMAT or \
            manifest.get("version") != VERSION:
        raise ValueError(f"xpu_opt.tune_run: {directory}/trials.json is not "
                         f"an {TRIALS_FORMAT} file of version {VERSION}")
    target = manifest["target"]
    repeat = repeat or int(manifest.get("repeat", 5))
    tolerance = float(manifest["tolerance"])
    inputs = _inputs(manifest, target, device)
    results = []
    for problem in manifest["problems"]:
        reference = default_module = default_result = None
        for trial in problem["trials"]:
            if trial["status"] != "ok":
                continue  # did not compile; recorded by the manifest
            result = {"id": trial["id"]}
            try:
                module = load(directory / trial["package"], target=target,
                              device=device)
                ns, outputs = _time_calls(module, inputs, target, warmup,
                                          repeat)
                result["time_ns"] = ns
                if trial.get("default"):
                    reference = outputs
                    default_module, default_result = module, result
                    result["rel_error"] = 0.0
                    result["status"] = "ok"
                elif reference is None:
                    result["status"] = "failed"
                    result["message"] = "the default config did not run"
                else:
                    err = _rel_l2(outputs, reference)
                    result["rel_error"] = err if err != float("inf") else -1
                    ok = err <= tolerance
                    result["status"] = "ok" if ok else "mismatch"
                    if not ok:
                        result["message"] = (f"relative L2 error {err:.1e} > "
                                             f"{tolerance:.1e}")
            except Exception as e:  # noqa: BLE001 (a failed trial, recorded)
                result["status"] = "failed"
                result["message"] = str(e).splitlines()[0] if str(e) else \
                    type(e).__name__
            print(f"xpu_opt.tune_run: {trial['id']} {trial['display']}: "
                  + (f"{result['time_ns'] * 1e-6:.4f} ms, "
                     if "time_ns" in result else "")
                  + result["status"]
                  + (f": {result['message']}" if "message" in result else ""),
                  file=log)
            results.append(result)
        # The default once more after the trials, its faster time kept (as
        # xpu-tune does): measured first, on a GPU still raising its clocks,
        # it would flatter every trial.
        if default_module is not None:
            try:
                ns, _ = _time_calls(default_module, inputs, target, warmup,
                                    repeat)
                if ns < default_result["time_ns"]:
                    default_result["time_ns"] = ns
            except Exception:  # noqa: BLE001 (its first time stands)
                pass
    out = {"format": RESULTS_FORMAT, "version": VERSION,
           "host": platform.node(), "target": target,
           "device": (torch.cuda.get_device_name(device or 0)
                      if target == "cuda" else platform.processor()),
           "repeat": repeat, "warmup": warmup, "trials": results}
    with open(directory / "results.json", "w") as f:
        json.dump(out, f, indent=2)
    return out


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m xpu_opt.tune_run",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("directory")
    p.add_argument("--repeat", type=int, default=None,
                   help="timed calls per trial (default: the manifest's)")
    p.add_argument("--warmup", type=int, default=2,
                   help="untimed calls first (default 2)")
    p.add_argument("--device", type=int, default=None,
                   help="CUDA device index (default: the current one)")
    args = p.parse_args(argv)
    try:
        out = run(args.directory, args.repeat, args.warmup, args.device)
    except (OSError, ValueError, KeyError) as e:
        print(f"error: xpu_opt.tune_run: {e}", file=sys.stderr)
        return 1
    ok = sum(1 for r in out["trials"] if r["status"] == "ok")
    print(f"xpu_opt.tune_run: {ok} of {len(out['trials'])} trials ok; wrote "
          f"{pathlib.Path(args.directory) / 'results.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
