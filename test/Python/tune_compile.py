"""xpu_opt.compile(..., tune=N): the GEMMs are tuned on first use into the
cache's tuning database and the module compiles with it; the result matches
PyTorch in float64; a second compile measures nothing; bad tune values are
refused. Prints PASS or FAIL per case."""

import argparse
import os
import pathlib
import sys

import torch

import xpu_opt


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--target", default="opencl")
    args = p.parse_args()
    cache = pathlib.Path(os.environ["XPU_OPT_CACHE_DIR"])
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(128, 96),
                                torch.nn.ReLU()).eval()
    x = torch.rand(64, 128) * 2 - 1
    ok = True
    fast = xpu_opt.compile(model, (x,), target=args.target, tune=2)
    with torch.no_grad():
        ref = model.double()(x.double())
        model.float()
    y = fast(x).double()
    err = float((y - ref).norm() / ref.norm())
    ok &= check(err <= 1e-5, f"tuned module matches PyTorch in float64 "
                f"(relative L2 {err:.1e} <= 1e-5, {args.target})")
    db = cache / "tuning.json"
    import json
    entries = json.loads(db.read_text())["entries"]
    ok &= check(len(entries) == 1 and len(entries[0]["trials"]) == 3,
                "the cache's database has the GEMM with the default and "
                "2 trials")
    snapshots = list((cache / "tuning").glob("*.json"))
    ok &= check(len(snapshots) == 1 and
                snapshots[0].read_bytes() == db.read_bytes(),
                "the package was compiled with a snapshot of it")
    before = db.stat().st_mtime_ns, db.read_bytes()
    xpu_opt.compile(model, (x,), target=args.target, tune=2)
    ok &= check(db.read_bytes() == before[1],
                "a second compile with tune=2 measures nothing")
    for bad, expected in [(-1, "tune must be a trial count"),
                          (True, "tune must be a trial count")]:
        try:
            xpu_opt.compile(model, (x,), target=args.target, tune=bad)
            ok &= check(False, f"tune={bad!r} is refused")
        except ValueError as e:
            ok &= check(expected in str(e), f"tune={bad!r} is refused: {e}")
    print("ALL PASSED" if ok else "SOME FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
