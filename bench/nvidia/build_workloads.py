#!/usr/bin/env python3
"""Builds the GEMM + epilogue workloads of the CPU integration tests
(test/Integration/CPU/*.mlir and reductions/*.mlir with Inputs/gen.mlir, each a @main program that
prints its result) as standalone CUDA executables, one per precision:

  xpu-compile - --target=cuda --emit=exe --xpu-pipeline-options=precision=P

next to libxpu_cuda_runtime.so, libxpu_runner_utils.so, refcheck.py and the
test files (whose %{check} line holds the float64 NumPy reference), so that
run_workloads.sh can run and check them on a GPU machine without LLVM; and
the accuracy sweeps of the fast-math approximations (MATH_SWEEPS) with
mathcheck.py.

  bench/nvidia/build_workloads.py --build build --out DIR
"""

import argparse
import glob
import os
import shutil
import subprocess

# (tag, xpu-nvvm-pipeline options): f32 SIMT, tf32 and bf16 on mma.sync,
# bf16 and tf32 on TMA + wgmma; then the schedule layer's persistent programs (on
# mma.sync and wgmma, whose mbarrier ring carries across a program's
# tiles) and Stream-K programs (deterministic and atomic fix-ups) on
# mma.sync and SIMT. The
# workloads are small, so Stream-K splits every tile over many programs:
# an epilogue applied to a partial sum would show in the result.
VARIANTS = (("f32", "precision=f32"), ("tf32", "precision=tf32"),
            ("bf16", "precision=bf16"), ("bf16-90a", "chip=sm_90a precision=bf16"),
            ("tf32-90a", "chip=sm_90a precision=tf32"),
            ("tf32-90a-persistent",
             "chip=sm_90a precision=tf32 schedule=persistent programs=2"),
            ("tf32-persistent", "precision=tf32 schedule=persistent"),
            # Two programs, so that each loops over several tiles (the
            # workloads have few) on one mbarrier ring.
            ("bf16-90a-persistent",
             "chip=sm_90a precision=bf16 schedule=persistent programs=2"),
            ("tf32-sk", "precision=tf32 schedule=stream_k"),
            ("bf16-sk", "precision=bf16 schedule=stream_k"),
            ("bf16-90a-sk", "chip=sm_90a precision=bf16 schedule=stream_k"),
            ("tf32-sk-atomic",
             "precision=tf32 schedule=stream_k fixup=atomic"),
            ("f32-sk", "precision=f32 schedule=stream_k"))


# The accuracy sweeps of xpu-nvvm-fast-math (test/Integration/CUDA/
# fast-math.test): (function, sweep file under test/Integration), built
# with precision=bf16 (fast-math on) into math/<function>--<sweep>.exe, for
# run_workloads.sh and test/lib/mathcheck.py.
MATH_SWEEPS = (("exp", "CPU/math/exp.mlir"), ("exp2", "CUDA/Inputs/exp2.mlir"),
               ("log", "CPU/math/log.mlir"), ("log2", "CPU/math/log2.mlir"),
               ("log1p", "CPU/math/log1p.mlir"),
               ("log1p", "CUDA/Inputs/log1p-negative.mlir"),
               ("tanh", "CPU/math/tanh.mlir"), ("erf", "CPU/math/erf.mlir"),
               ("recip", "CUDA/Inputs/recip.mlir"))


def build_math_sweeps(args, src):
    out = os.path.join(args.out, "math")
    os.makedirs(out, exist_ok=True)
    integration = os.path.join(src, "Integration")
    sweep = open(os.path.join(integration, "CPU", "math", "Inputs",
                              "sweep.mlir")).read()
    for function, path in MATH_SWEEPS:
        text = open(os.path.join(integration, path)).read() + "\n" + sweep
        name = os.path.basename(path)[:-5]
        exe = os.path.join(out, "%s--%s.exe" % (function, name))
        r = subprocess.run([os.path.join(args.build, "bin", "xpu-compile"), "-",
                            "--target=cuda", "--emit=exe", "-o", exe,
                            "--xpu-pipeline-options=chip=sm_90a precision=bf16"],
                           input=text, capture_output=True, text=True)
        print("%-32s %-8s %s" % ("math " + name, function,
                                 "ok" if r.returncode == 0 else "FAILED"))
        if r.returncode != 0:
            print(r.stderr[-2000:])
    shutil.copy(os.path.join(src, "lib", "mathcheck.py"), args.out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                       "test")
    os.makedirs(args.out, exist_ok=True)
    gen = open(os.path.join(src, "Integration", "CPU", "Inputs",
                            "gen.mlir")).read()
    cpu = os.path.join(src, "Integration", "CPU")
    for path in sorted(glob.glob(os.path.join(cpu, "*.mlir")) +
                       glob.glob(os.path.join(cpu, "reductions", "*.mlir"))):
        name = os.path.basename(path)[:-5]
        shutil.copy(path, args.out)
        text = open(path).read() + "\n" + gen
        if "%{check}" not in text:
            continue  # no float64 reference to compare with
        for tag, opts in VARIANTS:
            exe = os.path.join(args.out, "%s.%s.exe" % (name, tag))
            cmd = [os.path.join(args.build, "bin", "xpu-compile"), "-",
                   "--target=cuda", "--emit=exe", "-o", exe,
                   "--xpu-pipeline-options=" + opts]
            r = subprocess.run(cmd, input=text, capture_output=True, text=True)
            status = "ok" if r.returncode == 0 else "FAILED"
            print("%-32s %-8s %s" % (name, tag, status))
            if r.returncode != 0:
                print(r.stderr[-2000:])
    build_math_sweeps(args, src)
    for lib in ("libxpu_cuda_runtime.so", "libxpu_runner_utils.so"):
        shutil.copy(os.path.join(args.build, "lib", lib), args.out)
    shutil.copy(os.path.join(src, "lib", "refcheck.py"), args.out)


if __name__ == "__main__":
    main()
