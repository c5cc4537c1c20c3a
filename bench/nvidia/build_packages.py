#!/usr/bin/env python3
"""Builds, on this machine (no GPU), a package for every model of the
NVIDIA workload set, through the paths users take, and what checking them
on the GPU machine needs (run_packages.py runs them there from PyTorch CUDA
tensors: cudaMalloc memory, never managed memory):

* the GEMM + epilogue workloads of the CPU integration tests
  (test/Integration/CPU/*.mlir and reductions/, the list of
  build_workloads.py): their @forward with `xpu-compile --target=cuda`, once
  per precision/schedule variant of build_workloads.VARIANTS; function
  packages (every argument is passed, weights included);
* the KernelBench-style models of examples/pytorch (the BatchNorm ones
  included) and of --models DIRs: `xpu_opt.build(model, inputs,
  target="cuda", chip="sm_90a", precision=P)` (module packages: the
  weights travel in the package) and `xpu-compile --target=cuda` on the
  exported MLIR (function packages); f32 models with precision bf16 and
  f32, the others in their own precision.

Each model gets three sets of random inputs and their float64 reference
(NumPy for the workloads, from the %{check} expression of the test file;
PyTorch for the modules), saved in checks/<model>.pt with torch.save.

  .venv/bin/python bench/nvidia/build_packages.py --out DIR [--archive F]
      [--only SUBSTRING] [--models DIR] [--build build] [--jobs 2]
      [--target cpu]   (a check of the harness itself, here: CPU packages,
                        one f32 variant of each workload)

DIR/manifest.json lists every package (directory, kind, check file,
tolerance); --archive also writes DIR as one .tar.xz (packages repeat the
runtime library, which compresses away) to carry to the GPU machine.
"""

import argparse
import concurrent.futures
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
sys.path.insert(0, str(ROOT / "test" / "lib"))

import build_workloads  # noqa: E402

# Tolerance of each precision, on max |got - ref| / max(max |ref|, 1)
# (run_workloads.sh's): bf16 operands round to 8-bit mantissas (unit
# roundoff u = 2^-8), tf32 to 11 bits (u = 2^-11 = 4.9e-4). A product of two
# rounded operands is off by up to 2u, and the largest error of thousands of
# outputs reaches that relative to the largest output, so tf32 gets 4u
# (2e-3) and bf16 about 5u.
TOL = {"f32": 1e-5, "tf32": 2e-3, "bf16": 2e-2, "f64": 1e-12, "f16": 7.8e-3}
# The KernelBench models' variants: (tag, precision), chip sm_90a.
# xpu-nvvm-pipeline has no f64 GEMMs: an f64 model is demoted (f32 and
# bf16, as the f32 ones).
MODEL_VARIANTS = {"f32": (("bf16-90a", "bf16"), ("f32-90a", "f32")),
                  "f64": (("bf16-90a", "bf16"), ("f32-90a", "f32")),
                  "bf16": (("bf16-90a", "bf16"),),
                  "f16": (("f16-90a", "f16"),)}
SETS = 3


def workload_precision(tag):
    return "bf16" if tag.startswith("bf16") else (
        "tf32" if tag.startswith("tf32") else "f32")


# The workloads ----------------------------------------------------------------

def forward_only(text):
    """The test file without @main and the printing declarations."""
    cut = [i for i in (text.find("func.func @main"),
                       text.find("func.func private @print")) if i >= 0]
    return text[:min(cut)] if cut else text


def workload_checks(path, interface, seed):
    """Three input sets for the @forward of the test file `path` (random,
    positive where the spec says :pos) and the float64 references of its
    %{check} expression; None if the spec does not describe @forward's
    arguments."""
    import numpy as np
    import refcheck
    import torch
    spec = refcheck.spec_arguments(path)
    names, pos, shapes, expr, tol, index = [], [], [], None, 1e-5, 0
    i = 0
    while i < len(spec):
        if spec[i] == "--input":
            name, rest = spec[i + 1].split("=", 1)
            names.append(name)
            pos.append(rest.endswith(":pos"))
            shapes.append([int(d) for d in rest.split("@")[0].split("x")])
            i += 2
        elif spec[i] == "--expr":
            expr = spec[i + 1]
            i += 2
        elif spec[i] == "--tol":
            tol = float(spec[i + 1])
            i += 2
        elif spec[i] == "--index":
            index = int(spec[i + 1])
            i += 2
        else:
            i += 1
    inputs = interface["inputs"]
    if index != 0 or len(names) != len(inputs) or expr is None:
        return None, "the check does not describe @forward's arguments"
    dtypes = {"f32": torch.float32, "f64": torch.float64,
              "bf16": torch.bfloat16, "f16": torch.float16}
    sets, refs = [], []
    g = torch.Generator().manual_seed(seed)
    for _ in range(SETS):
        env = {"np": np, "gelu": refcheck.gelu, "sigmoid": refcheck.sigmoid}
        args = []
        for name, p, shape, spec_in in zip(names, pos, shapes, inputs):
            if spec_in["dtype"] not in dtypes:
                return None, f"argument {name} is {spec_in['dtype']}"
            # The check's shape (a scale is [1] there, 0-d in @forward).
            # Weights as nn.Linear initializes them, U(-b, b) with b =
            # 1/sqrt(fan_in), so that a GEMM's sums are of order one as in
            # a model: with unit weights an epilogue that saturates (tanh,
            # clamp) leaves max |ref| at 1 while the sums, and with them the
            # rounding error of 16-bit or tf32 operands, grow with sqrt(k).
            if p:
                v = torch.rand(shape, generator=g, dtype=torch.float64) + 0.5
            elif spec_in.get("weight") and len(shape) >= 2:
                bound = shape[-1] ** -0.5
                v = (torch.rand(shape, generator=g, dtype=torch.float64)
                     * 2 - 1) * bound
            else:
                v = torch.randn(shape, generator=g, dtype=torch.float64)
            v = v.to(dtypes[spec_in["dtype"]])
            if v.numel() != torch.Size(spec_in["shape"]).numel():
                return None, f"argument {name} is {spec_in['shape']}"
            args.append(v.reshape(spec_in["shape"]))
            env[name] = v.double().numpy()
        ref = np.asarray(eval(expr, env), dtype=np.float64)
        sets.append(args)
        refs.append(torch.from_numpy(ref.copy()))
    return {"inputs": sets, "refs": refs, "weights": []}, tol


def xpu_compile(args, source, out, options, text=None):
    if args.target != "cuda":  # the NVVM options mean nothing there
        options = " ".join(o for o in options.split()
                           if o.startswith("precision="))
    cmd = [str(args.build / "bin" / "xpu-compile"), source,
           f"--target={args.target}", "-o", str(out),
           "--xpu-pipeline-options=" + options]
    r = subprocess.run(cmd, input=text, capture_output=True, text=True)
    return None if r.returncode == 0 else (r.stderr.strip()[-1500:] or
                                           f"exit status {r.returncode}")


def build_workload(args, path, tag, options):
    name = f"wl.{path.stem}.{tag}"
    out = args.out / "pkgs" / name
    text = forward_only(path.read_text()) + "\n" + (
        ROOT / "test" / "Integration" / "CPU" / "Inputs" / "gen.mlir"
    ).read_text()
    error = xpu_compile(args, "-", out, options, text)
    return {"name": name, "kind": "function", "dir": f"pkgs/{name}",
            "model": f"wl.{path.stem}", "variant": tag,
            "precision": workload_precision(tag), "source":
            str(path.relative_to(ROOT)), "error": error}


def workloads(args):
    cpu = ROOT / "test" / "Integration" / "CPU"
    paths = sorted(list(cpu.glob("*.mlir")) +
                   list((cpu / "reductions").glob("*.mlir")))
    jobs = []
    for path in paths:
        text = path.read_text()
        if "%{check}" not in text or "func.func @forward" not in text:
            continue
        variants = (build_workloads.VARIANTS if args.target == "cuda"
                    else (("f32", "precision=f32"),))
        for tag, options in variants:
            jobs.append((path, tag, options))
    return jobs


# The KernelBench models -------------------------------------------------------

def model_jobs(args):
    dirs = [ROOT / "examples" / "pytorch"] + [pathlib.Path(d)
                                             for d in args.models]
    return sorted(p for d in dirs for p in d.glob("*.py")
                  if not p.name.startswith("_"))


def build_model(args, path):
    """Packages and checks of one KernelBench file: (entries, messages)."""
    import torch
    import xpu_opt
    from xpu_opt import _kernelbench
    from xpu_opt._program import DTYPES
    model, inputs = _kernelbench.load(path)
    names = {v: k for k, v in DTYPES.items()}
    dtype = names.get(inputs[0].dtype, "f32") if inputs else "f32"
    stem = f"kb.{path.stem}"
    # Checks: three input sets, the weights, float64 references.
    g = torch.Generator().manual_seed(11)
    sets, refs = [], []
    ref_model = __import__("copy").deepcopy(model).double()
    for _ in range(SETS):
        fresh = [torch.randn(x.shape, generator=g).to(x.dtype)
                 if x.is_floating_point() else x.clone() for x in inputs]
        sets.append(fresh)
        with torch.no_grad():
            refs.append(ref_model(*[x.double() if x.is_floating_point()
                                    else x for x in fresh]))
    weights = [w.detach().clone() for w in list(model.parameters()) +
               list(model.buffers())]
    torch.save({"inputs": sets, "refs": refs, "weights": weights},
               args.out / "checks" / f"{stem}.pt")
    mlir = args.out / "checks" / f"{stem}.mlir"
    mlir.write_text(xpu_opt.export(model, inputs))
    entries = []
    for tag, precision in MODEL_VARIANTS.get(dtype, ()):
        tol = max(TOL[precision], TOL.get(dtype, 0))
        if path.stem == "linear_gelu_tanh":
            tol = max(tol, 1e-4)  # torch-mlir's sqrt(2/pi) (zoo.py)
        common = {"model": stem, "variant": tag, "precision": precision,
                  "check": f"checks/{stem}.pt", "tol": tol,
                  "source": str(path.relative_to(ROOT))
                  if path.is_relative_to(ROOT) else str(path)}
        name = f"{stem}.{tag}.module"
        out = args.out / "pkgs" / name
        try:
            xpu_opt.build(model, inputs, target=args.target,
                          chip="sm_90a" if args.target == "cuda" else None,
                          precision=precision).save(out)
            error = None
        except Exception as e:  # noqa: BLE001 - reported, the rest goes on
            error = f"{type(e).__name__}: {str(e)[:1500]}"
        entries.append(dict(common, name=name, kind="module",
                            dir=f"pkgs/{name}", error=error))
        name = f"{stem}.{tag}.function"
        out = args.out / "pkgs" / name
        error = xpu_compile(args, str(mlir), out,
                            f"chip=sm_90a precision={precision}")
        entries.append(dict(common, name=name, kind="function",
                            dir=f"pkgs/{name}", error=error))
    return entries


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, type=pathlib.Path)
    ap.add_argument("--build", default=ROOT / "build", type=pathlib.Path)
    ap.add_argument("--archive", type=pathlib.Path)
    ap.add_argument("--only", default="")
    ap.add_argument("--models", action="append", default=[],
                    help="another directory of KernelBench-style files")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--target", default="cuda", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.build = args.build.resolve()
    os.environ.setdefault("XPU_OPT_BUILD_DIR", str(args.build))
    (args.out / "pkgs").mkdir(parents=True, exist_ok=True)
    (args.out / "checks").mkdir(parents=True, exist_ok=True)
    start = time.time()
    import torch

    entries = []
    for path in model_jobs(args):
        if args.only and args.only not in path.stem:
            continue
        for e in build_model(args, path):
            print("%-48s %s" % (e["name"], "ok" if not e["error"] else
                                "FAILED: " + e["error"].splitlines()[0]),
                  flush=True)
            entries.append(e)

    jobs = [j for j in workloads(args)
            if not args.only or args.only in j[0].stem]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        built = list(pool.map(lambda j: build_workload(args, *j), jobs))
    checked = {}
    for e, (path, tag, _) in zip(built, jobs):
        if path.stem not in checked and not e["error"]:
            interface = json.loads((args.out / e["dir"] /
                                    "interface.json").read_text())
            checks, tol = workload_checks(str(path), interface,
                                          len(checked) + 1)
            if checks is not None:
                torch.save(checks, args.out / "checks" /
                           f"wl.{path.stem}.pt")
            checked[path.stem] = (checks is not None, tol)
        ok, tol = checked.get(path.stem, (False, 1e-5))
        e["check"] = f"checks/wl.{path.stem}.pt" if ok else None
        if not ok and not e["error"]:
            e["error"] = f"no check: {tol}"
        e["tol"] = max(tol if ok else 0, TOL[e["precision"]])
        print("%-48s %s" % (e["name"], "ok" if not e["error"] else
                            "FAILED: " + e["error"].splitlines()[0]),
              flush=True)
        entries.append(e)

    rev = subprocess.run(["git", "-C", str(ROOT), "describe", "--always",
                          "--dirty"], capture_output=True, text=True)
    manifest = {"built_from": rev.stdout.strip(), "date": time.ctime(),
                "torch": torch.__version__, "packages": entries}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    failed = [e for e in entries if e["error"]]
    print(f"{len(entries)} packages, {len(failed)} failed to build, "
          f"{time.time() - start:.0f} s", flush=True)
    if args.archive:
        with tarfile.open(args.archive, "w:xz") as tar:
            tar.add(args.out, arcname=args.out.name)
        print(f"{args.archive}: {args.archive.stat().st_size >> 10} KiB")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
