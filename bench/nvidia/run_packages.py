#!/usr/bin/env python3
"""Runs, on the GPU machine, the packages build_packages.py made: PyTorch,
the packages and xpu_opt's source are all it needs (no LLVM, no torch-mlir,
no compiler; xpu_opt.load starts no process).

For every package of DIR/manifest.json: xpu_opt.load, three calls with
fresh PyTorch CUDA tensors (cudaMalloc memory from PyTorch's allocator, not
managed memory) of the saved inputs (function packages also get the
weights), the second one's views that start one element into their
storage (no longer 16-byte aligned), each compared with its float64
reference:

    max |got - ref| / max(max |ref|, 1)  <=  the package's tolerance,

then fast.benchmark (wall time per call, waiting for the kernels, and the
kernels' device time from the runtime's CUDA events). One line per package:

    PASS|FAIL|CRASH|SKIP  name  error / tolerance  ms per call  kernel ms

Packages run in a worker process; one that ends the process (a segfault:
host code reading device memory) is reported as CRASH and the next worker
goes on from the package after it. Exits 1 if any package failed, crashed
or could not be built.

  python3 bench/nvidia/run_packages.py DIR [--only SUBSTRING] [--repeat 5]
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def misaligned(x):
    """`x`'s values in a view that starts one element into its storage."""
    import torch
    flat = torch.empty(x.numel() + 1, dtype=x.dtype, device=x.device)
    view = flat[1:].view(x.shape)
    view.copy_(x)
    return view


def worker(args):
    """Runs the packages named on stdin's first line, printing START, then
    one RESULT line (JSON) each."""
    sys.path.insert(0, str(ROOT / "python"))
    import torch
    import xpu_opt
    manifest = json.loads((args.dir / "manifest.json").read_text())
    by_name = {e["name"]: e for e in manifest["packages"]}
    names = json.loads(sys.stdin.readline())
    cuda = args.target == "cuda"
    if cuda:
        torch.cuda.init()
    to = (lambda x: x.cuda()) if cuda else (lambda x: x.clone())
    checks = {}
    for name in names:
        e = by_name[name]
        print("START " + name, flush=True)
        result = {"name": name}
        try:
            if e["check"] not in checks:
                checks[e["check"]] = torch.load(args.dir / e["check"])
            check = checks[e["check"]]
            fast = xpu_opt.load(args.dir / e["dir"], target=args.target)
            worst = 0.0
            for call, (inputs, ref) in enumerate(zip(check["inputs"],
                                                     check["refs"])):
                # Fresh CUDA tensors each call; misaligned views in the
                # second.
                def place(x):
                    return misaligned(to(x)) if call == 1 else to(x)
                fresh = [place(x) for x in inputs]
                if e["kind"] == "function":
                    fresh += [place(w) for w in check["weights"]]
                got = fast(*fresh)
                got_leaves = torch.utils._pytree.tree_leaves(got)
                ref_leaves = torch.utils._pytree.tree_leaves(ref)
                assert len(got_leaves) == len(ref_leaves), \
                    f"{len(got_leaves)} results, {len(ref_leaves)} expected"
                for g, r in zip(got_leaves, ref_leaves):
                    assert g.is_cuda == cuda, f"a result on {g.device}"
                    g, r = g.double().cpu(), r.double()
                    assert g.shape == r.shape, f"shape {g.shape} != {r.shape}"
                    scale = max(r.abs().max().item(), 1.0) if r.numel() else 1
                    err = (g - r).abs().max().item() / scale \
                        if r.numel() else 0.0
                    if err != err:  # NaN
                        err = float("inf")
                    worst = max(worst, err)
            result["error"] = worst
            result["ok"] = worst <= e["tol"]
            timing = fast.benchmark(*fresh, repeat=args.repeat, warmup=1)
            result["ms"] = timing["median"] * 1e3
            result["kernel_ms"] = sum(ns for _, _, ns in timing["kernels"]
                                      if ns > 0) / 1e6 / args.repeat
            result["kernels"] = [k[0] for k in timing["kernels"]]
        except Exception as exc:  # noqa: BLE001 - reported per package
            result["ok"] = False
            result["exception"] = f"{type(exc).__name__}: {exc}"[:600]
        print("RESULT " + json.dumps(result), flush=True)
    return 0


def report(e, result, status):
    tol = e.get("tol", 0)
    if "exception" in result:
        detail = result["exception"].replace("\n", " ")
    elif "error" in result:
        detail = "error %.2e / tol %.0e  %8.3f ms  kernels %8.3f ms" % (
            result["error"], tol, result.get("ms", float("nan")),
            result.get("kernel_ms", float("nan")))
    else:
        detail = result.get("why", "")
    print("%-5s %-52s %s" % (status, e["name"], detail), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=pathlib.Path)
    ap.add_argument("--only", default="")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--target", default="cuda", help=argparse.SUPPRESS)
    ap.add_argument("--timeout", type=float, default=280,
                    help="seconds for all packages (default 280: the rest "
                    "is reported as not run)")
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    manifest = json.loads((args.dir / "manifest.json").read_text())
    print("built from %s on %s (torch %s)" % (
        manifest.get("built_from"), manifest.get("date"),
        manifest.get("torch")), flush=True)
    entries = [e for e in manifest["packages"]
               if not args.only or args.only in e["name"]]
    counts = {"PASS": 0, "FAIL": 0, "CRASH": 0, "SKIP": 0}
    todo = []
    for e in entries:
        if e.get("error"):
            counts["FAIL"] += 1
            report(e, {"why": "not built: " + e["error"].splitlines()[0]},
                   "FAIL")
        elif not e.get("check"):
            counts["SKIP"] += 1
            report(e, {"why": "no check data"}, "SKIP")
        else:
            todo.append(e)
    by_name = {e["name"]: e for e in todo}
    deadline = time.time() + args.timeout
    start = time.time()
    while todo and time.time() < deadline:
        cmd = [sys.executable, str(pathlib.Path(__file__).resolve()),
               str(args.dir), "--worker", "--repeat", str(args.repeat),
               "--target", args.target]
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True,
                                env=dict(os.environ, PYTHONUNBUFFERED="1"))
        proc.stdin.write(json.dumps([e["name"] for e in todo]) + "\n")
        proc.stdin.close()
        current = None
        for line in proc.stdout:
            if line.startswith("START "):
                current = line[6:].strip()
            elif line.startswith("RESULT "):
                result = json.loads(line[7:])
                e = by_name[result["name"]]
                status = "PASS" if result.get("ok") else "FAIL"
                counts[status] += 1
                report(e, result, status)
                todo = [x for x in todo if x["name"] != result["name"]]
                current = None
            if time.time() > deadline:
                proc.kill()
                break
        proc.wait()
        if current is not None:
            # The worker died in this package: report it, go on after it.
            counts["CRASH"] += 1
            report(by_name[current], {"why": f"the process ended with "
                                      f"status {proc.returncode} in it"},
                   "CRASH")
            todo = [x for x in todo if x["name"] != current]
        elif todo and proc.returncode != 0:
            for e in todo:
                counts["FAIL"] += 1
                report(e, {"why": f"worker failed ({proc.returncode}) "
                           "before it"}, "FAIL")
            todo = []
    for e in todo:
        counts["FAIL"] += 1
        report(e, {"why": "not run: out of time"}, "FAIL")
    print("packages: %d PASS, %d FAIL, %d CRASH, %d SKIP in %.0f s" % (
        counts["PASS"], counts["FAIL"], counts["CRASH"], counts["SKIP"],
        time.time() - start), flush=True)
    return 0 if counts["FAIL"] == counts["CRASH"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
