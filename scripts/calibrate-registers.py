#!/usr/bin/env python3
"""The register model against the vendors' compilers: tables for
docs/Strategy.md.

Intel (default, --vendor intel):

For every model of the corpus, every path and chip (xpu-xe-pipeline on pvc
and bmg, xpu-spirv-pipeline on pvc and bmg), compiles the model, reads the
strategy's register estimate and budget from its remark (xpu-select-strategy
"selected ..." or "kept ..."), compiles the GEMM's kernel with ocloc in the
GRF mode embedded in it and in the other one, and prints one markdown row:
what the model says (fits: estimate <= budget) against what IGC did (fits:
no spill). A row where the model says "fits" and IGC spills is UNSAFE; the
script exits 1 if there is one.

NVIDIA (--vendor nvidia): for every model and every variant of
xpu-nvvm-pipeline (mma.sync bf16 and tf32 on sm_90, mma.sync bf16 on sm_80,
wgmma on sm_90a, SIMT f32 on sm_90), compiles the model to PTX, reads each
GEMM's register estimate from the strategy's remark, and compiles each GEMM
kernel with ptxas -v twice: as generated (the tensor-core kernels carry the
estimate as .maxnreg, so ptxas must fit it or spill) and with .maxnreg
removed (what ptxas allocates when free). A row where the model says "fits"
and ptxas spills is UNSAFE.

Usage (after scripts/setup.sh and a build):
  scripts/calibrate-registers.py [--vendor intel|nvidia]
      [--opt build/bin/xpu-opt] [--ocloc .vendor/intel-ocloc/bin/ocloc]
      [--ptxas /usr/local/cuda/bin/ptxas] [--inputs FILE] [MODEL.mlir ...]
Without models, the corpus is the suite's: test/Integration/CPU/*.mlir (with
their input generator), test/Pipelines/Inputs/*.mlir and test/Vendor/IGC/
Inputs/*.mlir, plus, for NVIDIA, the benchmark's models
(test/Conversion/XPUToNVGPU/Inputs/bench-models.mlir). Takes a few minutes.
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
import ptxascheck  # noqa: E402
import spirv_module  # noqa: E402

PATHS = (("xe", "pvc"), ("xe", "bmg"), ("spirv", "pvc"), ("spirv", "bmg"))
# xpu-nvvm-pipeline variants: (kernel family, chip, precision).
NV_PATHS = (("mma.sync", "sm_90", "bf16"), ("mma.sync", "sm_90", "tf32"),
            ("mma.sync", "sm_80", "bf16"), ("wgmma", "sm_90a", "bf16"),
            ("SIMT", "sm_90", "f32"))
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
            flag = "--xpu-spirv-pipeline=chip=%s dump-binaries=%s" % (chip,
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


def function_of_lines(source):
    """For each line number (1-based) of `source`, the func.func it is in."""
    owner, current = {}, None
    for number, line in enumerate(source.decode(errors="replace")
                                  .splitlines(), 1):
        m = re.match(r"\s*func\.func\s+(?:\w+\s+)?@([\w.$]+)", line)
        if m:
            current = m.group(1)
        owner[number] = current
    return owner


def ptx_entries(text):
    """(name, body) of every .entry of a PTX module, in order."""
    parts = re.split(r"\.entry\s+(\w+)", text)
    return list(zip(parts[1::2], parts[2::2]))


def measure_nvidia(args, model, inputs, family, chip, precision):
    name = os.path.splitext(os.path.basename(model))[0]
    source = open(model, "rb").read() + inputs
    label = "%s %s" % (family, precision)
    with tempfile.TemporaryDirectory() as tmp:
        flag = ("--xpu-nvvm-pipeline=chip=%s precision=%s binary-format=isa "
                "dump-binaries=%s" % (chip, precision, tmp))
        run = subprocess.run([args.opt, flag, "--xpu-remarks",
                              "--mlir-disable-threading", "-o", os.devnull],
                             input=source, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        if run.returncode != 0:
            error = re.search(r"error: (.*)", run.stderr.decode())
            return [(name, label, chip, "xpu-opt failed: %s" % (
                error.group(1)[:90] if error else "?"))]
        owner = function_of_lines(source)
        decisions = {}
        for line in run.stderr.decode().splitlines():
            m = DECISION.search(line)
            loc = re.match(r"[^:]*:(\d+):\d+: remark", line)
            if m and loc:
                fn = owner.get(int(loc.group(1)))
                decisions.setdefault(fn, []).append(m.groups())
        rows = []
        for fn, found in sorted(decisions.items()):
            base = re.sub(r"\W", "_", fn)
            kernels = []
            for ptx in sorted(os.listdir(tmp)):
                stem = os.path.splitext(ptx)[0]
                if not re.fullmatch(r"%s(_packed)?(_mma\d+|_kernel\w*)" %
                                    re.escape(base), stem) or \
                        stem.endswith("_copy"):
                    continue
                text = open(os.path.join(tmp, ptx)).read()
                for entry, body in ptx_entries(text):
                    # Tensor-core GEMM kernels are <fn>_mma<i>; SIMT GEMM
                    # kernels are the entries that read shared memory
                    # (the operand slices) and multiply-add.
                    # The SIMT variant lists only SIMT kernels: a model
                    # with 16-bit operands runs mma.sync there too, which
                    # the other variants list.
                    if "_mma" in stem:
                        gemm = family != "SIMT" and re.fullmatch(
                            r"\w*_mma\d+", entry)
                    else:
                        gemm = "ld.shared" in body and "fma.rn.f32" in body
                    if gemm:
                        kernels.append((entry, text, "_mma" in stem))
            if not kernels and family == "SIMT":
                continue
            if len(kernels) != len(found):
                rows.append(("%s @%s" % (name, fn), label, chip,
                             "%d decisions, %d GEMM kernels" %
                             (len(found), len(kernels))))
                continue
            for decision, (entry, text, mma) in zip(found, kernels):
                tm, tn, tk, sr, sc, _, registers, budget = (
                    int(v) if v else 0 for v in decision)
                report = {k["fn"]: k for k in ptxascheck.compile_report(
                    args.ptxas, chip, None, text)}
                free = {k["fn"]: k for k in ptxascheck.compile_report(
                    args.ptxas, chip, None,
                    re.sub(r"\.maxnreg\s+\d+", "", text))}
                # A SIMT config (written by hand) runs SIMT kernels in
                # any variant.
                kind = label if mma or family == "SIMT" else \
                    "SIMT (%s run)" % label
                rows.append(("%s @%s" % (name, fn), kind, chip,
                             (tm, tn, tk), (sr, sc),
                             registers, budget, report[entry], free[entry]))
        if not rows and family != "SIMT":
            rows.append((name, label, chip, "no GEMM kernel"))
        return rows


def spilled(k):
    return k["stores"] + k["loads"] + k["frame"]


def format_nvidia_row(row):
    if len(row) == 4:
        return "| %s | %s | %s | %s | | | | | |" % row
    (name, label, chip, tile, warps, registers, budget, planned, free) = row
    model_fits = registers <= budget
    ptxas_fits = spilled(planned) == 0
    verdict = "agree" if model_fits == ptxas_fits else (
        "UNSAFE" if model_fits else "model safer")
    return ("| %s | %s | %s | %dx%dx%d on [%d, %d] | %d / %d (%s) | %s / %d "
            "| %d / %d | %+d | %s |" % (
                name, label, chip, tile[0], tile[1], tile[2], warps[0],
                warps[1], registers, budget,
                "fits" if model_fits else "spills",
                "%d (.maxnreg %d)" % (planned["regs"], planned["budget"])
                if planned["budget"] else "%d" % planned["regs"],
                spilled(planned), free["regs"], spilled(free),
                registers - free["regs"], verdict))


def main_nvidia(args, corpus):
    version = subprocess.run([args.ptxas, "--version"], capture_output=True,
                             text=True).stdout.strip().splitlines()[-1]
    print("Generated %s by `scripts/calibrate-registers.py --vendor nvidia` "
          "with ptxas %s." % (datetime.date.today().isoformat(), version))
    print()
    print("| model | kernel | chip | tile on warps | model: registers / "
          "budget | ptxas as generated: registers / spill bytes | ptxas "
          "without .maxnreg | model - ptxas without .maxnreg | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    return print_rows(corpus, NV_PATHS, lambda m, i, path: measure_nvidia(
        args, m, i, *path), format_nvidia_row, "ptxas")


def print_rows(corpus, paths, measure_path, format_row_of, vendor):
    """Prints the rows of every model on every path; returns 1 if one is
    UNSAFE, else 0."""
    unsafe = 0
    for model, inputs in corpus:
        for path in paths:
            for row in measure_path(model, inputs, path):
                line = format_row_of(row)
                unsafe += "UNSAFE" in line
                print(line, flush=True)
    print()
    print("%d unsafe rows (model says fits, %s spills)." % (unsafe, vendor))
    return 1 if unsafe else 0


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("models", nargs="*")
    ap.add_argument("--opt", default=os.path.join(ROOT, "build", "bin",
                                                  "xpu-opt"))
    ap.add_argument("--ocloc", default=os.path.join(
        ROOT, ".vendor", "intel-ocloc", "bin", "ocloc"))
    ap.add_argument("--vendor", choices=("intel", "nvidia"), default="intel")
    ap.add_argument("--ptxas", default="/usr/local/cuda/bin/ptxas")
    ap.add_argument("--inputs", help="a file appended to every MODEL given "
                    "(test/Integration/CPU/Inputs/gen.mlir for the CPU "
                    "workloads)")
    args = ap.parse_args()
    cpu = sorted(glob.glob(os.path.join(ROOT, "test", "Integration", "CPU",
                                        "*.mlir")))
    others = sorted(glob.glob(os.path.join(ROOT, "test", "Pipelines", "Inputs",
                                           "*.mlir")) +
                    glob.glob(os.path.join(ROOT, "test", "Vendor", "IGC",
                                           "Inputs", "*.mlir")))
    gen = open(os.path.join(ROOT, "test", "Integration", "CPU", "Inputs",
                            "gen.mlir"), "rb").read()
    extra = open(args.inputs, "rb").read() if args.inputs else b""
    corpus = [(m, extra) for m in args.models] if args.models else \
        [(m, gen) for m in cpu] + [(m, b"") for m in others]
    if args.vendor == "nvidia":
        if not args.models:
            corpus.append((os.path.join(ROOT, "test", "Conversion",
                                        "XPUToNVGPU", "Inputs",
                                        "bench-models.mlir"), b""))
        return main_nvidia(args, corpus)

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
    return print_rows(corpus, PATHS, lambda m, i, path: measure(
        args, m, i, *path), format_row, "IGC")


if __name__ == "__main__":
    sys.exit(main())
