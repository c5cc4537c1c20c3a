#!/usr/bin/env python3
"""Builds the GEMM + epilogue workloads of the CPU integration tests
(test/Integration/CPU/*.mlir with Inputs/gen.mlir, each a @main program that
prints its result) as standalone CUDA executables, one per precision:

  xpu-compile - --target=cuda --emit=exe --xpu-pipeline-options=precision=P

next to libxpu_cuda_runtime.so, libxpu_runner_utils.so, refcheck.py and the
test files (whose %{check} line holds the float64 NumPy reference), so that
run_workloads.sh can run and check them on a GPU machine without LLVM.

  bench/nvidia/build_workloads.py --build build --out DIR
"""

import argparse
import glob
import os
import shutil
import subprocess

PRECISIONS = ("f32", "tf32", "bf16")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", required=True)
    ap.add_argument("--chip", default="sm_90")
    args = ap.parse_args()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "test")
    os.makedirs(args.out, exist_ok=True)
    gen = open(os.path.join(src, "Integration", "CPU", "Inputs",
                            "gen.mlir")).read()
    for path in sorted(glob.glob(os.path.join(src, "Integration", "CPU",
                                              "*.mlir"))):
        name = os.path.basename(path)[:-5]
        shutil.copy(path, args.out)
        text = open(path).read() + "\n" + gen
        for p in PRECISIONS:
            exe = os.path.join(args.out, "%s.%s.exe" % (name, p))
            cmd = [os.path.join(args.build, "bin", "xpu-compile"), "-",
                   "--target=cuda", "--emit=exe", "-o", exe,
                   "--xpu-pipeline-options=chip=%s precision=%s" % (args.chip,
                                                                    p)]
            r = subprocess.run(cmd, input=text, capture_output=True, text=True)
            status = "ok" if r.returncode == 0 else "FAILED"
            print("%-32s %-5s %s" % (name, p, status))
            if r.returncode != 0:
                print(r.stderr[-2000:])
    for lib in ("libxpu_cuda_runtime.so", "libxpu_runner_utils.so"):
        shutil.copy(os.path.join(args.build, "lib", lib), args.out)
    shutil.copy(os.path.join(src, "lib", "refcheck.py"), args.out)


if __name__ == "__main__":
    main()
