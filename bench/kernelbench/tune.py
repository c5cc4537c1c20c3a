#!/usr/bin/env python3
"""The H200 tuning run of the KernelBench set (docs/Tuning.md, "The H200
tuning run"), in the three steps of "compile here, measure there":

  emit     (here) exports every problem's bf16 model (problems.py, as
           build.py does) and compiles its trials with
           `xpu-tune --target=cuda --emit-trials=DIR/<problem>`;
  (there)  `python -m xpu_opt.tune_run DIR/<problem>` on the GPU machine
           for every problem, which writes DIR/<problem>/results.json;
  collect  (here) records every results.json in the database with
           `xpu-tune --collect` and prints, per problem, the default
           config's time, the best trial's and their ratio, with the cost
           model's rank of the best and its rank correlation.

  .venv/bin/python bench/kernelbench/tune.py emit --out DIR [--only S]
      [--max-trials 10] [--archive F]
  .venv/bin/python bench/kernelbench/tune.py collect --out DIR --db F.json
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tarfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "python"))

import problems  # noqa: E402

OPTIONS = "chip=sm_90a precision=bf16"


def emit(args):
    import torch
    import xpu_opt
    os.environ.setdefault("XPU_OPT_BUILD_DIR", str(args.build))
    (args.out / "mlir").mkdir(parents=True, exist_ok=True)
    failed = 0
    for name in problems.NAMES:
        if args.only and args.only not in name:
            continue
        start = time.time()
        model, xs = problems.make(name)
        model = model.to(torch.bfloat16)
        mlir = args.out / "mlir" / f"{name}.bf16.mlir"
        mlir.write_text(xpu_opt.export(model, tuple(
            x.to(torch.bfloat16) for x in xs)))
        del model
        r = subprocess.run(
            [str(args.build / "bin" / "xpu-tune"), str(mlir), "--target=cuda",
             "--xpu-pipeline-options=" + OPTIONS,
             f"--max-trials={args.max_trials}",
             "--emit-trials=" + str(args.out / name)],
            capture_output=True, text=True)
        status = "ok" if r.returncode == 0 else \
            "FAILED " + (r.stderr.strip().splitlines() or ["?"])[-1]
        failed += r.returncode != 0
        print(f"{name:40s} {time.time() - start:6.1f} s  {status}", flush=True)
    if args.archive:
        with tarfile.open(args.archive, "w:xz") as tar:
            tar.add(args.out, arcname=args.out.name,
                    filter=lambda t: None if "/mlir" in t.name else t)
        print(f"{args.archive}: {args.archive.stat().st_size >> 10} KiB")
    return 1 if failed else 0


def collect(args):
    """Records every results.json of DIR in the database; prints a row per
    GEMM (a problem of xpu-tune: two chained GEMMs are two rows)."""
    failed = 0
    rows = []
    for name in problems.NAMES:
        results = args.out / name / "results.json"
        if not results.exists():
            continue
        r = subprocess.run(
            [str(args.build / "bin" / "xpu-tune"), "--collect", str(results),
             "--db=" + str(args.db), "--resume"],
            capture_output=True, text=True)
        if r.returncode != 0:
            failed += 1
            print(f"{name}: {r.stderr.strip()}", file=sys.stderr)
            continue
        measured = {t["id"]: t for t in
                    json.loads(results.read_text())["trials"]}
        manifest = json.loads((args.out / name / "trials.json").read_text())
        for i, gemm in enumerate(manifest["problems"]):
            ok = [(t, measured[t["id"]]) for t in gemm["trials"]
                  if measured.get(t["id"], {}).get("status") == "ok"]
            rows.append((name if len(manifest["problems"]) == 1
                         else f"{name}[{i}]", gemm, ok))
    entries = json.loads(args.db.read_text())["entries"]
    print("%-40s %6s %10s %10s %6s %5s %6s" % (
        "problem", "ok", "default", "best", "gain", "rank", "rho"))
    gains = []
    for name, gemm, ok in rows:
        default = [m["time_ns"] for t, m in ok if t.get("default")]
        if not default:
            print(f"{name:40s} (the default did not run)")
            continue
        best = min(m["time_ns"] for _, m in ok)
        gains.append(default[0] / best)
        entry = next((e for e in entries
                      if e["target"] == gemm["target"] and
                      e["signature"] == gemm["signature"]), {})
        rho = entry.get("rank_correlation")
        print("%-40s %6d %8.1fus %8.1fus %5.2fx %5s %6s" % (
            name, len(ok), default[0] / 1e3, best / 1e3, default[0] / best,
            entry.get("model_rank_of_best", "-"),
            "-" if rho is None else "%.2f" % rho))
    if gains:
        geo = 1.0
        for g in gains:
            geo *= g
        geo **= 1 / len(gains)
        print(f"{len(gains)} GEMMs: geomean gain {geo:.3f}x, "
              f"{sum(g >= 1.1 for g in gains)} at >= 1.1x, "
              f"{sum(g < 1.0 for g in gains)} below 1x")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("step", choices=("emit", "collect"))
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--build", default=ROOT / "build", type=pathlib.Path)
    ap.add_argument("--only", default="")
    ap.add_argument("--max-trials", type=int, default=10)
    ap.add_argument("--archive", type=pathlib.Path)
    ap.add_argument("--db", type=pathlib.Path)
    args = ap.parse_args()
    args.build = args.build.resolve()
    if args.step == "collect" and not args.db:
        ap.error("collect needs --db")
    return emit(args) if args.step == "emit" else collect(args)


if __name__ == "__main__":
    sys.exit(main())
