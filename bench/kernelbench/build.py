#!/usr/bin/env python3
"""Builds, on this machine (ptxas, no GPU), the packages of the KernelBench
benchmark (problems.py) that run.py times on the GPU machine: for every
problem, two forms users have,

  f32   the f32 model, compiled with precision=bf16 (the peers run it under
        torch.autocast(bfloat16));
  bf16  the model cast to bf16 by the user (bf16 weights and inputs),

each exported by xpu_opt.export (the weights become arguments) and
compiled by `xpu-compile --target=cuda` for sm_90a into a function package
(the weights travel with the caller, not in the package). Prints the
export and compile time of each; DIR/manifest.json lists them.

  .venv/bin/python bench/kernelbench/build.py --out DIR [--only SUBSTRING]
      [--build build] [--archive F] [--tuning-db F] [--precise]
      [--direct-store] [--staged-store]

With --tuning-db (the database of tune.py's H200 run) the bf16 form is
compiled a second time with `tuning-db=F`, into <name>.bf16.tuned, which
run.py times next to the default; with --precise, once more with
`fast-math=off` (libdevice's functions in the kernels), into
<name>.bf16.precise; with --direct-store, with `tma-store=false` (the wgmma
kernels store C from the registers), into <name>.bf16.direct; with
--staged-store, with `tma-store-staged=true` (staged epilogues store their
results with TMA too), into <name>.bf16.staged.
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

FORMS = ("f32", "bf16")
OPTIONS = "chip=sm_90a precision=bf16"
# The bf16 form's second builds, timed by run.py next to the default:
# tuned (--tuning-db) and precise (--precise: libdevice's functions instead
# of the approximate instructions of xpu-nvvm-fast-math).
VARIANTS = {"": lambda args: "",
            "tuned": lambda args: f" tuning-db={args.tuning_db}",
            "precise": lambda args: " fast-math=off",
            "direct": lambda args: " tma-store=false",
            "staged": lambda args: " tma-store-staged=true"}


def build(args, name, form, variant=""):
    import torch
    import xpu_opt
    model, xs = problems.make(name)
    if form == "bf16":
        model = model.to(torch.bfloat16)
        xs = [x.to(torch.bfloat16) for x in xs]
    suffix = "." + variant if variant else ""
    options = OPTIONS + VARIANTS[variant](args)
    entry = {"name": f"{name}.{form}{suffix}", "problem": name, "form": form,
             "dir": f"pkgs/{name}.{form}{suffix}", "options": options}
    start = time.time()
    try:
        text = xpu_opt.export(model, tuple(xs))
    except Exception as e:  # noqa: BLE001 - reported, the rest goes on
        entry["error"] = f"export: {type(e).__name__}: {str(e)[:800]}"
        return entry
    entry["export_s"] = round(time.time() - start, 2)
    del model
    mlir = args.out / "mlir" / f"{name}.{form}.mlir"
    mlir.write_text(text)
    start = time.time()
    r = subprocess.run([str(args.build / "bin" / "xpu-compile"), str(mlir),
                        "--target=cuda", "-o", str(args.out / entry["dir"]),
                        "--xpu-pipeline-options=" + options],
                       capture_output=True, text=True)
    entry["compile_s"] = round(time.time() - start, 2)
    if r.returncode != 0:
        entry["error"] = "xpu-compile: " + (r.stderr.strip()[-800:] or
                                            f"exit {r.returncode}")
    return entry


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--build", default=ROOT / "build", type=pathlib.Path)
    ap.add_argument("--only", default="")
    ap.add_argument("--archive", type=pathlib.Path)
    ap.add_argument("--tuning-db", type=pathlib.Path)
    ap.add_argument("--precise", action="store_true",
                    help="also the bf16 form with fast-math=off")
    ap.add_argument("--direct-store", action="store_true",
                    help="also the bf16 form with tma-store=false")
    ap.add_argument("--staged-store", action="store_true",
                    help="also the bf16 form with tma-store-staged=true")
    args = ap.parse_args()
    if args.tuning_db:
        args.tuning_db = args.tuning_db.resolve()
    args.build = args.build.resolve()
    os.environ.setdefault("XPU_OPT_BUILD_DIR", str(args.build))
    for d in ("pkgs", "mlir"):
        (args.out / d).mkdir(parents=True, exist_ok=True)
    entries = []
    host = [p[0] for p in problems.HOST_PROBLEMS]
    for name in problems.NAMES + host:
        if args.only and args.only not in name:
            continue
        forms = [(f, "") for f in FORMS]
        if args.tuning_db:
            forms.append(("bf16", "tuned"))
        if args.precise:
            forms.append(("bf16", "precise"))
        if args.direct_store:
            forms.append(("bf16", "direct"))
        if args.staged_store:
            forms.append(("bf16", "staged"))
        for form, variant in forms:
            e = build(args, name, form, variant)
            print("%-44s %s" % (e["name"], "FAILED " + e["error"].splitlines()[0]
                                if e.get("error") else
                                f"export {e['export_s']:6.2f} s  "
                                f"compile {e['compile_s']:6.2f} s"),
                  flush=True)
            entries.append(e)
    rev = subprocess.run(["git", "-C", str(ROOT), "describe", "--always",
                          "--dirty"], capture_output=True, text=True)
    (args.out / "manifest.json").write_text(json.dumps(
        {"built_from": rev.stdout.strip(), "date": time.ctime(),
         "packages": entries}, indent=1))
    if args.archive:
        with tarfile.open(args.archive, "w:xz") as tar:
            tar.add(args.out, arcname=args.out.name,
                    filter=lambda t: None if "/mlir" in t.name else t)
        print(f"{args.archive}: {args.archive.stat().st_size >> 10} KiB")
    return 1 if any(e.get("error") for e in entries) else 0


if __name__ == "__main__":
    sys.exit(main())
