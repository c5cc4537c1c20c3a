#!/usr/bin/env python3
"""Checks NVIDIA kernels with ptxas -v: no spills, and registers within the
register model's estimate.

For every <module>.ptx in a dump directory (xpu-nvvm-pipeline
dump-binaries=DIR), runs `ptxas -v -arch=<chip>` and fails when a kernel
spills (spill stores or loads, or a stack frame) or, for a kernel that
declares a register budget (.maxnreg: convert-xpu-to-nvgpu sets the
register model's estimate), when ptxas uses more registers than that.
Prints one line per kernel. Exit status 0 means PASS; an empty directory
fails.

  ptxascheck.py --ptxas /usr/local/cuda/bin/ptxas --chip sm_90 DIR
"""

import argparse
import os
import re
import subprocess
import sys


def compile_report(ptxas, chip, path, text=None):
    """ptxas -v's report of every entry function of the PTX file `path` (or
    of `text`, when given, compiled from standard input): a list of dicts
    with fn, regs, frame, stores, loads, smem and budget (.maxnreg or None),
    or a string with ptxas' error."""
    if text is None:
        text = open(path).read()
    budgets = {m.group(1): int(m.group(2)) for m in re.finditer(
        r"\.entry\s+(\w+)\([^{]*?\.maxnreg\s+(\d+)", text, re.S)}
    out = subprocess.run([ptxas, "-v", "-arch=" + chip, "-", "-o",
                          os.devnull], input=text, capture_output=True,
                         text=True)
    if out.returncode != 0:
        return out.stderr
    # ptxas prints, per function: Compiling entry function 'f', then its
    # stack frame / spills, then the registers (and shared memory) it used.
    kernels = []
    for block in re.split(r"Compiling entry function '", out.stderr)[1:]:
        fn = block.split("'", 1)[0]
        frame, stores, loads = map(int, re.search(
            r"(\d+) bytes stack frame, (\d+) bytes spill stores, "
            r"(\d+) bytes spill loads", block).groups())
        smem = re.search(r"(\d+) bytes smem", block)
        kernels.append({
            "fn": fn, "regs": int(re.search(r"Used (\d+) registers",
                                            block).group(1)),
            "frame": frame, "stores": stores, "loads": loads,
            "smem": int(smem.group(1)) if smem else 0,
            "budget": budgets.get(fn)})
    return kernels


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptxas", required=True)
    ap.add_argument("--chip", default="sm_90")
    ap.add_argument("dir")
    args = ap.parse_args()
    ptx = sorted(f for f in os.listdir(args.dir) if f.endswith(".ptx"))
    if not ptx:
        sys.exit("ptxascheck: no .ptx file in %s" % args.dir)
    failures = 0
    for name in ptx:
        kernels = compile_report(args.ptxas, args.chip,
                                 os.path.join(args.dir, name))
        if isinstance(kernels, str):
            print("FAIL %s: ptxas failed:\n%s" % (name, kernels))
            failures += 1
            continue
        if not kernels:
            print("FAIL %s: no entry function in ptxas' report" % name)
            failures += 1
        for k in kernels:
            budget = k["budget"]
            ok = k["stores"] == 0 and k["loads"] == 0 and k["frame"] == 0 \
                and (budget is None or k["regs"] <= budget)
            failures += not ok
            print("%s %s: %d registers%s, %d bytes stack, %d/%d bytes "
                  "spilled" % ("ok  " if ok else "FAIL", k["fn"], k["regs"],
                               " (budget %d)" % budget if budget else "",
                               k["frame"], k["stores"], k["loads"]))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
