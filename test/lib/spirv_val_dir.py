#!/usr/bin/env python3
"""Runs spirv-val on every .spv file of a directory and checks workgroups.

Usage: spirv_val_dir.py DIR [--target-env ENV] [--expect N]

Fails when the directory holds no .spv file (a dump that silently wrote
nothing must not pass), when the count differs from --expect, when
spirv-val rejects any file, or when a kernel entry point runs one
work-item per workgroup: every OpEntryPoint Kernel must have an
OpExecutionMode LocalSize (spirv-dis) whose product is above 1, so that no
generated kernel has a 1x1x1 workgroup. Prints one line per file otherwise.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys


ENTRY = re.compile(r"OpEntryPoint Kernel (%\S+)")
LOCAL_SIZE = re.compile(r"OpExecutionMode (%\S+) LocalSize (\d+) (\d+) (\d+)")


def check_local_sizes(spirv_dis, path):
    """Returns (sizes, error) for the kernel entry points of one binary."""
    dis = subprocess.run([spirv_dis, path], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    if dis.returncode != 0:
        return None, dis.stdout
    return local_sizes(dis.stdout)


def local_sizes(text):
    """Returns (sizes, error) for the kernel entry points of a disassembly
    (spirv-dis): every kernel needs a LocalSize above 1x1x1."""
    sizes = {m.group(1): tuple(int(g) for g in m.groups()[1:])
             for m in LOCAL_SIZE.finditer(text)}
    found = []
    for entry in ENTRY.findall(text):
        size = sizes.get(entry)
        if size is None:
            return None, "kernel %s has no LocalSize" % entry
        if size[0] * size[1] * size[2] <= 1:
            return None, "kernel %s has a 1x1x1 workgroup (LocalSize 1 1 1)" % entry
        found.append("x".join(str(d) for d in size))
    return found, None


# LLVM 22.1.8's SPIR-V backend keeps static state across the modules a
# process translates (llvm-project issue 160613, docs/KnownIssues.md): now
# and then a module of an xpu-xe-pipeline compile comes out with an id
# defined twice, or with an id past the bound in the module's header (the
# bound counted from another module's ids). The test drivers compile such a
# model once more, and say so, instead of failing on the upstream bug; a
# second bad compile fails.
BAD_IDS = ("is defined more than once", "must be less than the ID bound")


def has_bad_ids(directory):
    """True when spirv-val reports an id defined twice, or one past the
    module's id bound, in a .spv file of `directory` (the upstream issue
    above)."""
    spirv_val = shutil.which("spirv-val")
    if not spirv_val or not os.path.isdir(directory):
        return False
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".spv"):
            continue
        val = subprocess.run([spirv_val, "--target-env", "spv1.4",
                              os.path.join(directory, name)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True)
        if any(symptom in val.stdout for symptom in BAD_IDS):
            return True
    return False


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dir")
    ap.add_argument("--target-env", default="opencl2.2")
    ap.add_argument("--expect", type=int, default=None,
                    help="exact number of .spv files expected")
    args = ap.parse_args()
    spirv_val = shutil.which("spirv-val")
    spirv_dis = shutil.which("spirv-dis")
    if not spirv_val or not spirv_dis:
        sys.exit("spirv_val_dir: spirv-val or spirv-dis not found")
    files = sorted(f for f in os.listdir(args.dir) if f.endswith(".spv"))
    if not files:
        sys.exit("spirv_val_dir: no .spv file in %s" % args.dir)
    if args.expect is not None and len(files) != args.expect:
        sys.exit("spirv_val_dir: %d .spv files in %s, expected %d" %
                 (len(files), args.dir, args.expect))
    failed = 0
    for f in files:
        path = os.path.join(args.dir, f)
        result = subprocess.run([spirv_val, "--target-env", args.target_env,
                                 path], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            failed += 1
            print("FAIL: %s\n%s" % (f, result.stdout))
            continue
        sizes, error = check_local_sizes(spirv_dis, path)
        if error:
            failed += 1
            print("FAIL: %s: %s" % (f, error))
        else:
            print("valid (%s), workgroup %s: %s" %
                  (args.target_env, " ".join(sizes), f))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
