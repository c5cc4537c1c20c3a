#!/usr/bin/env python3
"""Builds the NVIDIA benchmark's libraries on this machine (no GPU needed).

For every problem of problems.py and each of its variants, writes the model
as MLIR, compiles it with `xpu-compile --target=cuda --emit=shared` into a
shared library (`<dir>/<problem>.<variant>.so` and its package interface,
tools/common/Package.h) with, besides the package's entry wrappers, the C
interfaces of @forward, @forward.pack and @forward.packed (c-interfaces=true:
they return the result buffers they allocate, so the timed calls make no
copy into caller buffers), described from the interface in the manifest,
checks every kernel with `ptxas -v` (registers, spills) and writes
`<dir>/manifest.json` for run.py, next to a copy of libxpu_cuda_runtime.so.
The directory can be carried to the GPU machine as it is.

  bench/nvidia/build.py --build build --out DIR [--only gemm_4096,...]
                        [--set bench|edges]
"""

import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import problems  # noqa: E402

VARIANTS = {
    # variant: (model dtype, xpu-nvvm-pipeline precision, chip, schedule[,
    # more pipeline options])
    "bf16": ("bf16", "f32", "sm_90", "auto"),     # mma.sync (stage 1)
    "bf16-wgmma": ("bf16", "f32", "sm_90a", "auto"),  # TMA + wgmma (stage 2)
    "tf32": ("f32", "tf32", "sm_90", "auto"),     # mma.sync m16n8k8
    "tf32-wgmma": ("f32", "tf32", "sm_90a", "auto"),  # TMA + wgmma k8
    "f32": ("f32", "f32", "sm_90", "auto"),
    # The schedule layer's persistent and Stream-K programs on mma.sync.
    "bf16-persistent": ("bf16", "f32", "sm_90", "persistent"),
    "bf16-stream-k": ("bf16", "f32", "sm_90", "stream_k"),
    # Persistent programs on wgmma (one mbarrier ring across their tiles).
    "bf16-wgmma-persistent": ("bf16", "f32", "sm_90a", "persistent"),
    # Stream-K on wgmma: whole tiles and K pieces on one mbarrier ring;
    # and data-parallel forced, to compare the strategy's pick with.
    "bf16-wgmma-stream-k": ("bf16", "f32", "sm_90a", "stream_k"),
    "bf16-wgmma-data-parallel": ("bf16", "f32", "sm_90a", "data_parallel"),
    # Data-parallel wgmma tiles store C from the registers, not with TMA
    # through shared memory (the default), to compare the two.
    "bf16-wgmma-direct": ("bf16", "f32", "sm_90a", "auto", "tma-store=false"),
    "tf32-wgmma-direct": ("f32", "tf32", "sm_90a", "auto", "tma-store=false"),
    # Staged epilogues (heavy chains over the f32 tile staged in the ring)
    # store their results with TMA too.
    "bf16-wgmma-staged-tma": ("bf16", "f32", "sm_90a", "auto",
                              "tma-store-staged=true"),
}


def ptxas_report(ptxas, ptx, chip):
    out = subprocess.run([ptxas, "-v", "-arch=" + chip, ptx, "-o", os.devnull],
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("ptxas failed on %s:\n%s" % (ptx, out.stderr))
    regs = [int(x) for x in re.findall(r"Used (\d+) registers", out.stderr)]
    spills = [int(a) + int(b) for a, b in
              re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads",
                         out.stderr)]
    return {"registers": max(regs or [0]), "spill_bytes": sum(spills)}


def build_one(args, job):
    name, variant, text, precision, chip, schedule, extra = job
    base = os.path.join(args.out, "%s.%s" % (name, variant))
    src = base + ".mlir"
    with open(src, "w") as f:
        f.write(text)
    dump = os.path.join(args.out, "kernels", "%s.%s" % (name, variant))
    opts = ("chip=%s precision=%s schedule=%s device-results=true "
            "c-interfaces=true dump-binaries=%s %s" % (chip, precision,
                                                       schedule, dump, extra))
    cmd = [os.path.join(args.build, "bin", "xpu-compile"), src, "--target=cuda",
           "--emit=shared", "-o", base + ".so", "--interface=" + base + ".json",
           "--xpu-pipeline-options=" + opts, "--xpu-remarks"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("xpu-compile failed for %s.%s:\n%s" %
                         (name, variant, out.stderr))
    remarks = [l for l in out.stderr.splitlines()
               if "convert-xpu-to-nvgpu" in l or "convert-xpu-to-gpu" in l]
    kernels = {}
    for f in sorted(os.listdir(dump)):
        if f.endswith(".ptx"):
            kernels[f[:-4]] = ptxas_report(args.ptxas, os.path.join(dump, f),
                                           chip)
    with open(base + ".json") as f:
        interface = json.load(f)
    return {"problem": name, "variant": variant, "precision": precision,
            "chip": chip,
            "lib": os.path.basename(base + ".so"),
            "functions": c_interfaces(interface), "kernels": kernels,
            "remarks": remarks}


def c_interfaces(interface):
    """The C interfaces (`_mlir_ciface_<fn>`: result descriptors first,
    then the arguments) of @forward, @forward.pack and @forward.packed as
    run.py calls them, from the package interface: each argument's shape,
    element type and, for an argument of @forward, its position there."""
    fn, inputs = interface["function"], interface["inputs"]

    def arg(i):
        return {"shape": inputs[i]["shape"], "type": inputs[i]["dtype"],
                "arg": i}

    def value(v):
        return {"shape": v["shape"], "type": v["dtype"]}
    funcs = [{"name": fn, "args": [arg(i) for i in range(len(inputs))],
              "results": [value(r) for r in interface["results"]]}]
    pack = interface.get("pack")
    if pack:
        packed = [value(r) for r in pack["results"]]
        funcs.append({"name": fn + ".pack",
                      "args": [arg(o["index"]) for o in pack["operands"]],
                      "results": packed})
        funcs.append({"name": fn + ".packed",
                      "args": [arg(o["index"]) if o["from"] == "arg"
                               else packed[o["index"]]
                               for o in pack["packed_operands"]],
                      "results": [value(r) for r in interface["results"]]})
    return funcs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--set", default="bench", choices=sorted(problems.SETS),
                    help="bench: the table's problems; edges: diagnostic "
                    "GEMMs with one dimension off the tile; bmm: batched "
                    "GEMMs under each schedule and wgmma tile")
    ap.add_argument("--ptxas", default=shutil.which("ptxas")
                    or "/usr/local/cuda/bin/ptxas")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    only = set(filter(None, args.only.split(",")))
    jobs = []
    for p in problems.SETS[args.set]:
        if only and p.name not in only:
            continue
        for v in p.variants:
            dtype, precision, chip, schedule, *extra = VARIANTS[v]
            jobs.append((p.name, v, problems.mlir(p, dtype), precision, chip,
                         schedule, " ".join(extra)))
        for c in p.configs:
            jobs.append((p.name, problems.config_name(c),
                         problems.xpu_gemm_with_config(p, c), "f32", c[3],
                         "auto", ""))
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        entries = list(pool.map(lambda j: build_one(args, j), jobs))
    shutil.copy(os.path.join(args.build, "lib", "libxpu_cuda_runtime.so"),
                args.out)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump({"entries": entries}, f, indent=1)
    for e in entries:
        k = ", ".join("%s %d regs %d B spill" % (n, r["registers"],
                                                  r["spill_bytes"])
                      for n, r in e["kernels"].items())
        print("%-18s %-26s %s" % (e["problem"], e["variant"], k))


if __name__ == "__main__":
    main()
