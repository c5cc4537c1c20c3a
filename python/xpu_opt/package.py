"""Packages from the command line: build here, run there.

    python -m xpu_opt.package build MODEL.py -o DIR --target=cuda \\
        [--chip=sm_90a] [--precision=bf16]
    python -m xpu_opt.package show DIR
    python -m xpu_opt.package run DIR [--repeat=20]

`build` compiles a KernelBench-style model file (class Model,
get_inputs(), get_init_inputs()) for a target, which this machine need not
have (xpu_opt.build), and saves the package into DIR. `show` prints what a
package is for and what it takes. `run` loads it (xpu_opt.load: no
compiler, no torch-mlir) and calls it on random inputs of its shapes, on
its target's device: prints the output's shapes and the time per call (and
each kernel's device time on a device). `show` and `run` need only PyTorch
and this package's source.
"""

import argparse
import json
import pathlib
import sys


def _build(args):
    from . import _kernelbench, build
    model, inputs = _kernelbench.load(args.model)
    package = build(model, inputs, target=args.target, chip=args.chip,
                    precision=args.precision)
    package.save(args.output)
    print(f"{args.output}: {args.target} ({package.chip}), "
          f"precision {package.precision}")
    return 0


def _interfaces(path):
    path = pathlib.Path(path)
    manifest = path / "xpu_opt.json"
    if manifest.exists():
        data = json.loads(manifest.read_text())
        return data, [json.loads((path / v["directory"] / "interface.json")
                                 .read_text()) for v in data["variants"]]
    return None, [json.loads((path / "interface.json").read_text())]


def _show(args):
    manifest, interfaces = _interfaces(args.package)
    first = interfaces[0]
    print(f"{args.package}: target {first['target']}, chip {first['chip']} "
          f"({first['binary_format']}), host {first['host']['triple']} "
          f"{first['host']['cpu']}, interface version {first['version']}")
    print(f"  made by {first['producer']}: {first['pipeline']} "
          f"{first['pipeline_options']}".rstrip())
    if manifest:
        print(f"  weights: {len(manifest['weights'])} "
              f"({sum(w['nbytes'] for w in manifest['weights'])} bytes), "
              f"precision {manifest['precision']}")
    for i, interface in enumerate(interfaces):
        shapes = ", ".join(
            ("weight " if s.get("weight") else "") +
            f"{s['dtype']}{s['shape']}" for s in interface["inputs"])
        results = ", ".join(f"{s['dtype']}{s['shape']}"
                            for s in interface["results"])
        pack = " (weights packed once)" if interface.get("pack") else ""
        print(f"  variant {i}: ({shapes}) -> ({results}){pack}")
    return 0


def _run(args):
    import torch

    from . import load
    from ._program import DTYPES
    fast = load(args.package)
    manifest, interfaces = _interfaces(args.package)
    interface = interfaces[0]
    specs = interface["inputs"]
    if manifest:  # the module's inputs; its weights are in the package
        specs = specs[:manifest["variants"][0]["meta"]["num_inputs"]]
    device = "cuda" if fast.target == "cuda" else "cpu"
    g = torch.Generator().manual_seed(0)

    def random(spec):
        dtype = DTYPES[spec["dtype"]]
        if dtype.is_floating_point:
            t = torch.randn(spec["shape"], generator=g, dtype=torch.float64)
            if spec.get("weight"):
                t = t.abs() + 0.5  # a variance, say, stays positive
            return t.to(dtype).to(device)
        return torch.zeros(spec["shape"], dtype=dtype, device=device)
    inputs = [random(s) for s in specs]
    out = fast(*inputs)
    leaves = torch.utils._pytree.tree_leaves(out)
    print(f"{args.package}: output " + ", ".join(
        f"{str(t.dtype).replace('torch.', '')}{list(t.shape)}"
        for t in leaves if isinstance(t, torch.Tensor)))
    timing = fast.benchmark(*inputs, repeat=args.repeat)
    print(f"wall time per call: median {timing['median'] * 1e3:.3f} ms "
          f"({timing['calls']} calls)")
    for name, launches, ns in timing["kernels"]:
        per = f"{ns / launches / 1e6:.3f} ms" if ns >= 0 else "n/a"
        print(f"  {name}: {launches} launches, {per} each")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m xpu_opt.package",
                                description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="compile a model file into a package")
    b.add_argument("model")
    b.add_argument("-o", "--output", required=True)
    b.add_argument("--target", default="cpu")
    b.add_argument("--chip", default=None)
    b.add_argument("--precision", default=None)
    s = sub.add_parser("show", help="what a package is for and takes")
    s.add_argument("package")
    r = sub.add_parser("run", help="load a package and time it")
    r.add_argument("package")
    r.add_argument("--repeat", type=int, default=20)
    args = p.parse_args(argv)
    return {"build": _build, "show": _show, "run": _run}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
