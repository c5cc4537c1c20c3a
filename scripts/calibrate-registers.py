#!/usr/bin/env python3
"""The register model against Intel's compiler: a table for docs/Strategy.md.

For every model of the corpus, every path and chip (xpu-xe-pipeline on pvc
and bmg, xpu-spirv-pipeline on pvc and bmg), compiles the model, reads the
strategy's register estimate and budget from its remark (xpu-select-strategy
"selected ..." or "kept ..."), compiles the GEMM's kernel with ocloc in the
GRF mode embedded in it and in the other one, and prints one markdown row:
what the model says (fits: estimate <= budget) against what IGC did (fits:
no spill). A row where the model says "fits" and IGC spills is UNSAFE; the
script exits 1 if there is one.

Usage (after scripts/setup.sh and a build):
  scripts/calibrate-registers.py [--opt build/bin/xpu-opt]
      [--ocloc .vendor/intel-ocloc/bin/ocloc] [MODEL.mlir ...]
Without models, the corpus is the suite's: test/Integration/CPU/*.mlir (with
their input generator), test/Pipelines/Inputs/*.mlir and test/Vendor/IGC/
Inputs/*.mlir. Takes a few minutes.
"""

import argparse
import datetime
import glob
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "test", "lib"))
import igccheck  # noqa: E402
import spirv_module  # noqa: E402

PATHS = (("xe", "pvc"), ("xe", "bmg"), ("spirv", "pvc"), ("spirv", "bmg"))
DECISION = re.compile(
    r"(?:selected for|kept the config written by hand on) .*?tile \[(\d+), "
    r"(\d+), (\d+)\], subgroups \[(\d+), (\d+)\], [^:]*?(?:grf_mode (\d+))?:"
    r".*?(\d+) registers per thread \(budget (\d+)\)")
WORKGROUP = 4  # SPIR-V storage class of shared local memory


def has_workgroup_memory(module):
    return any(kind == spirv_module.OP_TYPE_POINTER and ops[0] == WORKGROUP
               for kind, ops in module.types.values())


def gemm_kernels(path, spvs):
    """The SPIR-V files of GEMM kernels, in order."""
    result = []
    for spv in spvs:
        if path == "xe":
            if "_xe_gemm" in os.path.basename(spv):
                result.append(spv)
            continue
        with open(spv, "rb") as f:
            if has_workgroup_memory(spirv_module.Module(f.read())):
                result.append(spv)
    return result


class Options:
    require = []
    no_compile = False

    def __init__(self, options):
        self.options = options


def compile_kernel(ocloc, spv, chip, extra):
    records = igccheck.check_file(ocloc, spv, [chip], Options(extra))
    return records[0]


def measure(args, model, inputs, path, chip):
    rows = []
    name = os.path.splitext(os.path.basename(model))[0]
    source = open(model, "rb").read() + inputs
    with tempfile.TemporaryDirectory() as tmp:
        if path == "xe":
            flag = "--xpu-xe-pipeline=chip=%s dump-binaries=%s" % (chip, tmp)
        else:
            flag = "--xpu-spirv-pipeline=target=%s dump-binaries=%s" % (chip,
                                                                         tmp)
        run = subprocess.run([args.opt, flag, "--xpu-remarks",
                              "--mlir-disable-threading", "-o", os.devnull],
                             input=source, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        if run.returncode != 0:
            return [(name, path, chip, "xpu-opt failed")]
        decisions = DECISION.findall(run.stderr.decode())
        spvs = sorted(os.path.join(tmp, f) for f in os.listdir(tmp)
                      if f.endswith(".spv"))
        kernels = gemm_kernels(path, spvs)
        if len(decisions) != len(kernels):
            return [(name, path, chip, "%d decisions, %d GEMM kernels" %
                     (len(decisions), len(kernels)))]
        for decision, spv in zip(decisions, kernels):
            # SIMT configs carry no GRF mode: their kernels get the generic
            # one (getGenericKernelGrfMode), 256 on Xe.
            tm, tn, tk, sr, sc, grf, registers, budget = (
                int(v) if v else 256 for v in decision)
            planned = compile_kernel(args.ocloc, spv, chip, "")
            other = "" if planned["grf"] == 256 else \
                "-ze-opt-large-register-file"
            alternative = compile_kernel(args.ocloc, spv, chip, other) \
                if other else None
            rows.append((name, path, chip, (tm, tn, tk), (sr, sc), registers,
                         budget, planned, alternative))
    return rows


def format_row(row):
    if len(row) == 4:
        return "| %s | %s | %s | %s | | | | | |" % row
    (name, path, chip, tile, sg, registers, budget, planned, alt) = row
    model_fits = registers <= budget
    igc_fits = planned["spill"] == 0
    verdict = "agree" if model_fits == igc_fits else (
        "UNSAFE" if model_fits else "model safer")
    at256 = ("%d" % alt["spill"]) if alt else "-"
    return ("| %s | %s | %s | %dx%dx%d on [%d, %d] | %d / %d (%s) | %d "
            "| %d | %s | %s |" % (
                name, "Xe (DPAS)" if path == "xe" else "generic (SIMT)", chip,
                tile[0], tile[1], tile[2], sg[0], sg[1], registers, budget,
                "fits" if model_fits else "spills", planned["grf"],
                planned["spill"], at256, verdict))


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("models", nargs="*")
    ap.add_argument("--opt", default=os.path.join(ROOT, "build", "bin",
                                                  "xpu-opt"))
    ap.add_argument("--ocloc", default=os.path.join(
        ROOT, ".vendor", "intel-ocloc", "bin", "ocloc"))
    args = ap.parse_args()
    cpu = sorted(glob.glob(os.path.join(ROOT, "test", "Integration", "CPU",
                                        "*.mlir")))
    others = sorted(glob.glob(os.path.join(ROOT, "test", "Pipelines", "Inputs",
                                           "*.mlir")) +
                    glob.glob(os.path.join(ROOT, "test", "Vendor", "IGC",
                                           "Inputs", "*.mlir")))
    gen = open(os.path.join(ROOT, "test", "Integration", "CPU", "Inputs",
                            "gen.mlir"), "rb").read()
    corpus = [(m, b"") for m in args.models] if args.models else \
        [(m, gen) for m in cpu] + [(m, b"") for m in others]

    version = open(os.path.join(os.path.dirname(args.ocloc), "..",
                                "VERSION")).read().strip() \
        if os.path.exists(os.path.join(os.path.dirname(args.ocloc), "..",
                                       "VERSION")) else "?"
    print("Generated %s by `scripts/calibrate-registers.py` with %s." %
          (datetime.date.today().isoformat(), version))
    print()
    print("| model | kernel | chip | tile on subgroups | model: registers / "
          "budget | IGC GRF | IGC spill (bytes) | spill in 256-GRF mode | "
          "verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    unsafe = 0
    for model, inputs in corpus:
        for path, chip in PATHS:
            for row in measure(args, model, inputs, path, chip):
                line = format_row(row)
                unsafe += "UNSAFE" in line
                print(line, flush=True)
    print()
    print("%d unsafe rows (model says fits, IGC spills)." % unsafe)
    return 1 if unsafe else 0


if __name__ == "__main__":
    sys.exit(main())
