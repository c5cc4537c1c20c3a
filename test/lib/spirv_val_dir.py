#!/usr/bin/env python3
"""Runs spirv-val on every .spv file of a directory.

Usage: spirv_val_dir.py DIR [--target-env ENV] [--expect N]

Fails when the directory holds no .spv file (a dump that silently wrote
nothing must not pass), when the count differs from --expect, or when
spirv-val rejects any file; prints one line per file otherwise.
"""

import argparse
import os
import shutil
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("dir")
    ap.add_argument("--target-env", default="opencl2.2")
    ap.add_argument("--expect", type=int, default=None,
                    help="exact number of .spv files expected")
    args = ap.parse_args()
    spirv_val = shutil.which("spirv-val")
    if not spirv_val:
        sys.exit("spirv_val_dir: spirv-val not found")
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
        else:
            print("valid (%s): %s" % (args.target_env, f))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
