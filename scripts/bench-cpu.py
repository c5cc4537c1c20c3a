#!/usr/bin/env python3
"""CPU GEMM benchmark of xpu-cpu-pipeline against peers measured in the same
run (make bench).

Each case is a torch-mlir style model (linalg.matmul, the nn.Linear weight
read through a linalg.transpose for the x·Wᵀ form, bias and activation
linalg.generic ops) compiled by xpu-run and timed inside the JIT-compiled
@main: the process CPU time of each @forward call (libc clock(); weights are
packed inside every call, as BLAS packs inside every sgemm call). Peers run
the same computation on the same inputs:

  numpy-1t   NumPy (OpenBLAS, OPENBLAS_NUM_THREADS=1): x @ w.T, then the
             epilogue as NumPy expressions
  numpy-mt   the same with OpenBLAS's default threads, not pinned, against
             xpu-mt (threads=0: one thread per online core), wall time
  iree       IREE (iree-base-compiler/-runtime from PyPI) with data tiling
             (llvm-cpu, host CPU), when importable; its weights are
             arguments too

The one-core variants are pinned to one core with taskset (--core) and
the xpu pipeline is built with threads=1 for them; the variants are
interleaved over --rounds rounds and the minimum and median CPU time of all
calls are reported, with GFLOP/s (2 M N K / min time) and the ratio to the
best peer. OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed from the
environment of the NumPy runs only. The xpu result is checked against NumPy
(max relative error). The machine's peak is measured by a small FMA-chain
program (gcc, AVX2 + FMA, 12 independent chains).

Usage: scripts/bench-cpu.py [--build build] [--rounds 3] [--quick]
"""

import argparse
import datetime
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name, M, N, K, weight layout (nk: nn.Linear [n, k]; kn: [k, n]), epilogue
CASES = [
    ("square 512", 512, 512, 512, "nk", None),
    ("square 1000", 1000, 1000, 1000, "nk", None),
    ("square 1000 [k,n] weight", 1000, 1000, 1000, "kn", None),
    ("square 2048", 2048, 2048, 2048, "nk", None),
    ("odd 131x4097x517", 131, 4097, 517, "nk", None),
    ("Linear+bias+ReLU 128x512x1024", 128, 512, 1024, "nk", "relu"),
    ("Linear+bias+GELU 256x4096x1024", 256, 4096, 1024, "nk", "gelu"),
    ("Linear+bias+sigmoid 333x1000x777", 333, 1000, 777, "nk", "sigmoid"),
]
QUICK = {"square 1000", "odd 131x4097x517", "Linear+bias+ReLU 128x512x1024"}


def reps_for(m, n, k):
    flops = 2.0 * m * n * k
    return max(3, min(40, int(2e9 / flops)))


# --------------------------------------------------------------------------
# The model as MLIR, with a timing @main.

def epilogue_body(kind):
    if kind == "relu":
        return ("%zr = arith.constant 0.0 : f32\n"
                "    %c = arith.cmpf ugt, %v, %zr : f32\n"
                "    %r = arith.select %c, %v, %zr : f32")
    if kind == "gelu":
        return ("%h = arith.constant 0.5 : f32\n"
                "    %one = arith.constant 1.0 : f32\n"
                "    %is2 = arith.constant 0.70710678118654752 : f32\n"
                "    %s = arith.mulf %v, %is2 : f32\n"
                "    %er = math.erf %s : f32\n"
                "    %p = arith.addf %er, %one : f32\n"
                "    %q = arith.mulf %v, %h : f32\n"
                "    %r = arith.mulf %q, %p : f32")
    if kind == "sigmoid":
        return ("%one = arith.constant 1.0 : f32\n"
                "    %n = arith.negf %v : f32\n"
                "    %ex = math.exp %n : f32\n"
                "    %d = arith.addf %ex, %one : f32\n"
                "    %r = arith.divf %one, %d : f32")
    raise ValueError(kind)


def forward_mlir(m, n, k, layout, epilogue):
    wshape = f"{n}x{k}" if layout == "nk" else f"{k}x{n}"
    args = f"%x: tensor<{m}x{k}xf32>, %w: tensor<{wshape}xf32>"
    if epilogue:
        args += f", %b: tensor<{n}xf32>"
    lines = [f"func.func @forward({args}) -> tensor<{m}x{n}xf32> {{",
             "  %zero = arith.constant 0.0 : f32"]
    rhs = "%w"
    if layout == "nk":
        lines += [
            f"  %et = tensor.empty() : tensor<{k}x{n}xf32>",
            f"  %wt = linalg.transpose ins(%w : tensor<{n}x{k}xf32>) "
            f"outs(%et : tensor<{k}x{n}xf32>) permutation = [1, 0]"]
        rhs = "%wt"
    lines += [
        f"  %e = tensor.empty() : tensor<{m}x{n}xf32>",
        f"  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<{m}x{n}xf32>)"
        f" -> tensor<{m}x{n}xf32>",
        f"  %mm = linalg.matmul ins(%x, {rhs} : tensor<{m}x{k}xf32>, "
        f"tensor<{k}x{n}xf32>) outs(%z : tensor<{m}x{n}xf32>) "
        f"-> tensor<{m}x{n}xf32>"]
    if not epilogue:
        lines += [f"  return %mm : tensor<{m}x{n}xf32>", "}"]
        return "\n".join(lines)
    lines += [
        "  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,"
        " affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>],"
        " iterator_types = [\"parallel\", \"parallel\"]}",
        f"      ins(%mm, %b : tensor<{m}x{n}xf32>, tensor<{n}xf32>)"
        f" outs(%e : tensor<{m}x{n}xf32>) {{",
        "  ^bb0(%a: f32, %bb: f32, %o: f32):",
        "    %v = arith.addf %a, %bb : f32",
        "    " + epilogue_body(epilogue),
        "    linalg.yield %r : f32",
        f"  }} -> tensor<{m}x{n}xf32>",
        f"  return %y : tensor<{m}x{n}xf32>", "}"]
    return "\n".join(lines)


def main_mlir(m, n, k, layout, epilogue, reps):
    wr, wc = (n, k) if layout == "nk" else (k, n)
    targs = f"tensor<{m}x{k}xf32>, tensor<{wr}x{wc}xf32>"
    call = "%x, %w"
    if epilogue:
        targs += f", tensor<{n}xf32>"
        call += ", %b"
    return textwrap.dedent(f"""\
    func.func private @clock() -> i64
    func.func private @rtclock() -> f64
    func.func private @printI64(i64)
    func.func private @printF64(f64)
    func.func private @printNewline()
    func.func private @printMemrefF32(tensor<*xf32>) attributes {{llvm.emit_c_interface}}

    // v(i, j) = ((i * a + j * b) mod 17 - 8) / 16: the values bench-cpu.py
    // builds for NumPy.
    func.func @gen(%e: tensor<?x?xf32>, %a: index, %b: index) -> tensor<?x?xf32> {{
      %r = linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>],
                           iterator_types = ["parallel", "parallel"]}}
          outs(%e : tensor<?x?xf32>) {{
      ^bb0(%out: f32):
        %i = linalg.index 0 : index
        %j = linalg.index 1 : index
        %c17 = arith.constant 17 : index
        %c8 = arith.constant 8 : index
        %s = arith.constant 6.250000e-02 : f32
        %ia = arith.muli %i, %a : index
        %jb = arith.muli %j, %b : index
        %t = arith.addi %ia, %jb : index
        %mm = arith.remui %t, %c17 : index
        %d = arith.subi %mm, %c8 : index
        %n = arith.index_cast %d : index to i32
        %f = arith.sitofp %n : i32 to f32
        %v = arith.mulf %f, %s : f32
        linalg.yield %v : f32
      }} -> tensor<?x?xf32>
      return %r : tensor<?x?xf32>
    }}

    func.func @main() {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c5 = arith.constant 5 : index
      %c7 = arith.constant 7 : index
      %c11 = arith.constant 11 : index
      %cM = arith.constant {m} : index
      %cK = arith.constant {k} : index
      %cR = arith.constant {wr} : index
      %cC = arith.constant {wc} : index
      %cN = arith.constant {n} : index
      %reps = arith.constant {reps} : index
      %ex = tensor.empty(%cM, %cK) : tensor<?x?xf32>
      %ew = tensor.empty(%cR, %cC) : tensor<?x?xf32>
      %eb = tensor.empty(%c1, %cN) : tensor<?x?xf32>
      %xd = call @gen(%ex, %c3, %c5) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
      %wd = call @gen(%ew, %c7, %c11) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
      %bd = call @gen(%eb, %c5, %c3) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
      %x = tensor.cast %xd : tensor<?x?xf32> to tensor<{m}x{k}xf32>
      %w = tensor.cast %wd : tensor<?x?xf32> to tensor<{wr}x{wc}xf32>
      %b2 = tensor.cast %bd : tensor<?x?xf32> to tensor<1x{n}xf32>
      %b = tensor.collapse_shape %b2 [[0, 1]] : tensor<1x{n}xf32> into tensor<{n}xf32>
      // Warm-up call, printed for the check against NumPy.
      %y = call @forward({call}) : ({targs}) -> tensor<{m}x{n}xf32>
      %yu = tensor.cast %y : tensor<{m}x{n}xf32> to tensor<*xf32>
      call @printMemrefF32(%yu) : (tensor<*xf32>) -> ()
      // Two lines per call: CPU microseconds (clock()) and wall seconds; an
      // element of each result is summed so that no call is dead.
      %acc0 = arith.constant 0.0 : f32
      %acc = scf.for %i = %c0 to %reps step %c1 iter_args(%a = %acc0) -> (f32) {{
        %w0 = func.call @rtclock() : () -> f64
        %t0 = func.call @clock() : () -> i64
        %r = func.call @forward({call}) : ({targs}) -> tensor<{m}x{n}xf32>
        %t1 = func.call @clock() : () -> i64
        %w1 = func.call @rtclock() : () -> f64
        %dt = arith.subi %t1, %t0 : i64
        %dw = arith.subf %w1, %w0 : f64
        func.call @printI64(%dt) : (i64) -> ()
        func.call @printNewline() : () -> ()
        func.call @printF64(%dw) : (f64) -> ()
        func.call @printNewline() : () -> ()
        %v = tensor.extract %r[%c0, %c0] : tensor<{m}x{n}xf32>
        %s = arith.addf %a, %v : f32
        scf.yield %s : f32
      }}
      %accd = arith.extf %acc : f32 to f64
      call @printF64(%accd) : (f64) -> ()
      call @printNewline() : () -> ()
      return
    }}
    """)


# --------------------------------------------------------------------------
# Runners.

def gen_np(np, rows, cols, a, b):
    i = np.arange(rows, dtype=np.int64)[:, None]
    j = np.arange(cols, dtype=np.int64)[None, :]
    return ((((i * a + j * b) % 17) - 8) / 16.0).astype(np.float32)


def np_epilogue(np, kind):
    if kind == "relu":
        return lambda v: np.maximum(v, 0)
    if kind == "sigmoid":
        return lambda v: 1.0 / (1.0 + np.exp(-v))
    if kind == "gelu":
        from math import sqrt
        try:
            from scipy.special import erf  # noqa: F401
            return lambda v: 0.5 * v * (1.0 + erf(v * np.float32(1 / sqrt(2))))
        except ImportError:
            # NumPy has no erf: the tanh form, as fast as an erf would be.
            c = np.float32(sqrt(2 / 3.141592653589793))
            return lambda v: 0.5 * v * (1 + np.tanh(c * (v + 0.044715 * v**3)))
    return None


NUMPY_CHILD = r"""
import sys, time, json
import numpy as np
sys.path.insert(0, %(root)r)
import importlib.util
spec = importlib.util.spec_from_file_location("bench", %(script)r)
bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(bench)
m, n, k, layout, epi, reps = %(args)r
x = bench.gen_np(np, m, k, 3, 5)
w = bench.gen_np(np, n, k, 7, 11) if layout == "nk" else bench.gen_np(np, k, n, 7, 11)
b = bench.gen_np(np, 1, n, 5, 3)[0]
f = bench.np_epilogue(np, epi)
def forward():
    y = x @ (w.T if layout == "nk" else w)
    if f is not None:
        y = f(y + b)
    return y
forward()
clock = time.perf_counter if %(wall)r else time.process_time
times = []
for _ in range(reps):
    t0 = clock(); forward(); times.append(clock() - t0)
print(json.dumps(times))
"""

IREE_CHILD = r"""
import sys, time, json, os
import numpy as np
import importlib.util
spec = importlib.util.spec_from_file_location("bench", %(script)r)
bench = importlib.util.module_from_spec(spec); spec.loader.exec_module(bench)
import iree.compiler as ic
import iree.runtime as rt
m, n, k, layout, epi, reps, mlir = %(args)r
vmfb = ic.compile_str(mlir, target_backends=["llvm-cpu"], extra_args=[
    "--iree-llvmcpu-target-cpu=host", "--iree-opt-data-tiling"])
config = rt.Config("local-sync")
ctx = rt.SystemContext(config=config)
ctx.add_vm_module(rt.VmModule.copy_buffer(ctx.instance, vmfb))
fwd = ctx.modules.module["forward"]
x = bench.gen_np(np, m, k, 3, 5)
w = bench.gen_np(np, n, k, 7, 11) if layout == "nk" else bench.gen_np(np, k, n, 7, 11)
b = bench.gen_np(np, 1, n, 5, 3)[0]
args = [x, w] + ([b] if epi else [])
fwd(*args)
times = []
for _ in range(reps):
    t0 = time.process_time(); r = fwd(*args); r.to_host(); times.append(time.process_time() - t0)
print(json.dumps(times))
"""


def pinned(core):
    return ["taskset", "-c", str(core)] if shutil.which("taskset") else []


# Set by --keep-freed-memory for every measured process (xpu-run, NumPy,
# IREE) alike: glibc keeps freed memory for the next call instead of giving
# it back to the kernel (trimming the heap top, unmapping large blocks), so
# that no call pays page faults for memory the previous call freed.
MALLOC_ENV = {}


def with_malloc_env(env=None):
    env = dict(os.environ if env is None else env)
    env.update(MALLOC_ENV)
    return env


def run_xpu(args, mlir_path, options, pin=True, wall=False):
    cmd = (pinned(args.core) if pin else []) + [
        os.path.join(args.build, "bin", "xpu-run"), "-O3", "-e", "main",
        "-entry-point-result=void", "--xpu-pipeline-options=" + options,
        mlir_path]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env=with_malloc_env()).stdout
    tail = out[out.rfind("]") + 1:] if "data =" in out else out
    nums = [l.strip() for l in tail.strip().splitlines()][:-1]
    cpu = [int(v) * 1e-6 for v in nums[0::2]]
    wall_s = [float(v) for v in nums[1::2]]
    return (wall_s if wall else cpu), out


def run_child(args, code, env, pin=True, python=None):
    cmd = (pinned(args.core) if pin else []) + [python or args.python, "-c",
                                                code]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         env=with_malloc_env(env)).stdout
    import json
    return json.loads(out.strip().splitlines()[-1])


def numpy_env(threads):
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    env.pop("OPENBLAS_L2_SIZE", None)
    if threads:
        env["OPENBLAS_NUM_THREADS"] = str(threads)
    else:
        env.pop("OPENBLAS_NUM_THREADS", None)
    return env


def check_against_numpy(args, out, m, n, k, layout, epi):
    import numpy as np
    m_ = re.search(r"data =\s*(.*?)\n\s*(-?[0-9.e+-]+)\s*\n\s*$", out,
                   re.S)
    body = out[out.find("data ="):out.rfind("]") + 1]
    vals = np.array([float(v) for v in re.findall(
        r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?)", body)], dtype=np.float64)
    del m_
    x = gen_np(np, m, k, 3, 5).astype(np.float64)
    w = (gen_np(np, n, k, 7, 11).T if layout == "nk"
         else gen_np(np, k, n, 7, 11)).astype(np.float64)
    b = gen_np(np, 1, n, 5, 3)[0].astype(np.float64)
    ref = x @ w
    if epi == "relu":
        ref = np.maximum(ref + b, 0)
    elif epi == "sigmoid":
        ref = 1 / (1 + np.exp(-(ref + b)))
    elif epi == "gelu":
        from math import erf, sqrt
        v = ref + b
        ref = 0.5 * v * (1 + np.vectorize(erf)(v / sqrt(2)))
    if vals.size != ref.size:
        return "printed %d values, want %d" % (vals.size, ref.size)
    err = np.max(np.abs(vals.reshape(ref.shape) - ref)) / max(
        np.max(np.abs(ref)), 1.0)
    return "%.1e" % err


def fma_peak(args):
    # 12 independent accumulators in registers (written out: an array may
    # live on the stack), each updated by one FMA per step.
    chains = "".join("      a%d = _mm256_fmadd_ps(a%d, m, c);\n" % (i, i)
                     for i in range(12))
    decls = "".join("  __m256 a%d = _mm256_set1_ps((float)%d);\n" % (i, i)
                    for i in range(12))
    sums = " + ".join("first(a%d)" % i for i in range(12))
    src = textwrap.dedent("""\
    #include <immintrin.h>
    #include <stdio.h>
    #include <time.h>
    __attribute__((target("avx2,fma"))) static float first(__m256 v) {
      return _mm256_cvtss_f32(v);
    }
    __attribute__((target("avx2,fma"))) static double run(long iters) {
      __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
    """) + decls + """  for (long it = 0; it < iters; ++it) {
    """ + chains + """  }
      return """ + sums + """;
    }
    int main(void) {
      if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
        printf("0\\n"); return 0;
      }
      double best = 0; long iters = 50000000;
      for (int r = 0; r < 5; ++r) {
        clock_t t0 = clock(); volatile double s = run(iters); clock_t t1 = clock();
        (void)s; double t = (double)(t1 - t0) / CLOCKS_PER_SEC;
        double g = 12.0 * 8 * 2 * iters / t / 1e9; if (g > best) best = g;
      }
      printf("%.1f\\n", best);
      return 0;
    }
    """
    cc = shutil.which("gcc") or shutil.which("cc")
    if not cc:
        return None
    with tempfile.TemporaryDirectory() as d:
        c = os.path.join(d, "peak.c")
        exe = os.path.join(d, "peak")
        open(c, "w").write(src)
        subprocess.run([cc, "-O2", c, "-o", exe], check=True)
        out = subprocess.run(pinned(args.core) + [exe], check=True,
                             capture_output=True, text=True).stdout
        return float(out.strip())


def have_iree(python):
    return subprocess.run([python, "-c", "import iree.compiler, iree.runtime"],
                          capture_output=True).returncode == 0


def compile_time(args, mlir_path, options):
    xo = os.path.join(args.build, "bin", "xpu-opt")
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        subprocess.run(pinned(args.core) + [
            xo, mlir_path, "--xpu-cpu-pipeline=" + options, "-o", os.devnull],
            check=True)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--core", type=int, default=0)
    ap.add_argument("--quick", action="store_true",
                    help="three cases, two rounds")
    ap.add_argument("--python", default=None,
                    help="python with NumPy for the peers (default: "
                         "/usr/bin/python3 if it has NumPy)")
    ap.add_argument("--iree-python", default=None,
                    help="python with iree-base-compiler/-runtime")
    ap.add_argument("--no-threads", dest="threads", action="store_false",
                    help="skip the all-cores runs")
    ap.add_argument("--keep-freed-memory", action="store_true",
                    help="run every measured process with glibc's trim and "
                         "mmap thresholds raised (MALLOC_TRIM_THRESHOLD_, "
                         "MALLOC_MMAP_THRESHOLD_): freed memory is reused "
                         "by the next call, no page faults per call")
    ap.add_argument("--xpu-options", default="",
                    help="more xpu-cpu-pipeline options for the one-core "
                         "xpu runs (e.g. 'cache-tile=60,256,256')")
    ap.add_argument("--cases", default=None,
                    help="comma-separated substrings of case names")
    args = ap.parse_args()
    args.build = os.path.abspath(args.build)
    one_core = " ".join(["threads=1"] + args.xpu_options.split())
    if args.keep_freed_memory:
        MALLOC_ENV.update({"MALLOC_TRIM_THRESHOLD_": str(1 << 30),
                           "MALLOC_MMAP_THRESHOLD_": str(32 << 20)})
    if args.python is None:
        args.python = "/usr/bin/python3" if os.path.exists(
            "/usr/bin/python3") else sys.executable
    if args.quick:
        args.rounds = min(args.rounds, 2)
    iree_py = args.iree_python or args.python
    iree = have_iree(iree_py)

    cases = CASES
    if args.quick:
        cases = [c for c in CASES if c[0] in QUICK]
    if args.cases:
        keys = args.cases.split(",")
        cases = [c for c in CASES if any(s in c[0] for s in keys)]

    cpu = "unknown"
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    blas = subprocess.run(
        [args.python, "-c",
         "import numpy, numpy.linalg; import ctypes, re\n"
         "maps = open('/proc/self/maps').read()\n"
         "libs = sorted(set(re.findall(r'\\S*(?:openblas|blas)\\S*\\.so\\S*', maps)))\n"
         "print(numpy.__version__, ' '.join(libs))"],
        capture_output=True, text=True).stdout.strip()
    with os.popen("uptime") as f:
        load = f.read().strip()
    peak = fma_peak(args)
    print("bench-cpu: %s" % datetime.datetime.now(datetime.timezone.utc)
          .strftime("%Y-%m-%d %H:%M UTC"))
    print("bench-cpu: CPU: %s (%d online), %s; pinned: %s" % (
        cpu, os.cpu_count(), platform.machine(),
        " ".join(pinned(args.core)) or "no taskset"))
    print("bench-cpu: one-core FMA peak (12 chains of AVX2 FMA): %s GFLOP/s"
          % peak)
    print("bench-cpu: NumPy %s" % blas)
    print("bench-cpu: IREE: %s" % ("yes (" + iree_py + ")" if iree else
                                   "not installed"))
    print("bench-cpu: xpu one-core pipeline options: %s" % one_core)
    print("bench-cpu: malloc: %s" % (
        " ".join("%s=%s" % kv for kv in sorted(MALLOC_ENV.items())) or
        "glibc defaults (freed memory may go back to the kernel between "
        "calls)"))
    print("bench-cpu: load before: %s" % load)
    print("bench-cpu: times are the process CPU time of one call; min and "
          "median over %d interleaved rounds" % args.rounds)

    rows = []
    with tempfile.TemporaryDirectory() as work:
        for name, m, n, k, layout, epi in cases:
            reps = reps_for(m, n, k)
            mlir = forward_mlir(m, n, k, layout, epi)
            path = os.path.join(work, "model.mlir")
            with open(path, "w") as f:
                f.write(mlir + "\n\n" + main_mlir(m, n, k, layout, epi, reps))
            fwd_path = os.path.join(work, "forward.mlir")
            with open(fwd_path, "w") as f:
                f.write(mlir + "\n")
            times = {"xpu": [], "numpy-1t": []}
            mt = {"xpu-mt": [], "numpy-mt": []}
            if iree:
                times["iree"] = []
            check = "-"
            script = os.path.abspath(__file__)
            for r in range(args.rounds):
                t, out = run_xpu(args, path, one_core)
                times["xpu"] += t
                if r == 0:
                    check = check_against_numpy(args, out, m, n, k, layout,
                                                epi)
                code = NUMPY_CHILD % {"root": ROOT, "script": script,
                                      "args": (m, n, k, layout, epi, reps),
                                      "wall": False}
                times["numpy-1t"] += run_child(args, code, numpy_env(1))
                if args.threads:
                    t, _ = run_xpu(args, path, "threads=0", pin=False,
                                   wall=True)
                    mt["xpu-mt"] += t
                    code = NUMPY_CHILD % {"root": ROOT, "script": script,
                                          "args": (m, n, k, layout, epi, reps),
                                          "wall": True}
                    mt["numpy-mt"] += run_child(args, code, numpy_env(None),
                                                pin=False)
                if iree:
                    code = IREE_CHILD % {"script": script, "args": (
                        m, n, k, layout, epi, reps, mlir)}
                    try:
                        times["iree"] += run_child(args, code,
                                                   dict(os.environ),
                                                   python=iree_py)
                    except subprocess.CalledProcessError as e:
                        print("bench-cpu: iree failed on %s: %s" % (
                            name, e.stderr[-500:] if e.stderr else e))
                        times.pop("iree")
                        iree = False
            ctime = compile_time(args, fwd_path, one_core)
            rows.append((name, m, n, k, times, check, ctime, mt))
            flops = 2.0 * m * n * k
            mins = {v: min(t) for v, t in times.items() if t}
            print("bench-cpu: %-34s %s" % (name, "  ".join(
                "%s %.2f ms (%.1f GFLOP/s)" % (v, mins[v] * 1e3,
                                               flops / mins[v] / 1e9)
                for v in mins)), flush=True)

    with os.popen("uptime") as f:
        print("bench-cpu: load after: %s" % f.read().strip())
    variants = ["xpu", "numpy-1t"] + (["iree"] if any(
        "iree" in r[4] for r in rows) else [])
    print()
    head = "| case | M x N x K |"
    for v in variants:
        head += " %s min / median ms (GFLOP/s) |" % v
    head += (" xpu vs numpy-1t | xpu vs best one-core peer | xpu max rel. "
             "error | compile s |")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for name, m, n, k, times, check, ctime, mt in rows:
        flops = 2.0 * m * n * k
        line = "| %s | %dx%dx%d |" % (name, m, n, k)
        for v in variants:
            t = times.get(v)
            if not t:
                line += " - |"
                continue
            line += " %.2f / %.2f (%.1f) |" % (
                min(t) * 1e3, statistics.median(t) * 1e3, flops / min(t) / 1e9)
        peers = [min(times[v]) for v in ("numpy-1t", "iree") if times.get(v)]
        ratio = min(peers) / min(times["xpu"]) if peers else float("nan")
        vs_np = min(times["numpy-1t"]) / min(times["xpu"])
        line += " %.2fx | %.2fx | %s | %.2f |" % (vs_np, ratio, check, ctime)
        print(line)
    print()
    print("xpu vs X = (X min time) / (xpu min time): above 1 the xpu "
          "pipeline is faster; best one-core peer = the faster of numpy-1t "
          "and iree.")
    if args.threads:
        print()
        print("All cores, not pinned (wall time, %d online cores):"
              % os.cpu_count())
        print()
        print("| case | xpu threads=0 min / median ms (GFLOP/s) | numpy "
              "(OpenBLAS threads) min / median ms (GFLOP/s) | xpu / numpy |")
        print("|---|---|---|---|")
        for name, m, n, k, times, check, ctime, mt in rows:
            flops = 2.0 * m * n * k
            a, b = mt["xpu-mt"], mt["numpy-mt"]
            print("| %s | %.2f / %.2f (%.1f) | %.2f / %.2f (%.1f) | %.2fx |" % (
                name, min(a) * 1e3, statistics.median(a) * 1e3,
                flops / min(a) / 1e9, min(b) * 1e3,
                statistics.median(b) * 1e3, flops / min(b) / 1e9,
                min(b) / min(a)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
