#!/usr/bin/env python3
"""bf16 and int8 GEMM benchmark of xpu-cpu-pipeline (precision=bf16) against PyTorch's
bf16 matmul (oneDNN; AMX where the CPU has it), measured in the same run
(make bench, after bench-cpu.py).

The model is x @ w.T with f32 x [M, K] and an f32 nn.Linear weight w [N, K]
marked xpu.weight: xpu-run compiles it with precision=bf16 (the weight is
converted and packed once, in @forward.pack; each call converts x to bf16
and returns f32) and times --repeat calls of @forward (wall time per call,
pinned to one core with taskset, threads=1). Peers, in one process pinned to
the same core, torch.set_num_threads(1):

  torch-bf16   x_bf16 @ w_bf16.T on bf16 tensors converted beforehand: the
               matmul alone (the issue's peer)
  torch-conv   (x.to(bf16) @ w_bf16.T).float(): the same conversions as the
               xpu model

Both report the minimum over the calls; the ratio is (peer time) / (xpu
time), above 1 the xpu pipeline is faster. The xpu result is compared with
float64 NumPy on the bf16-rounded operands (max relative error against
max(max |ref|, 1)); it must stay below K 2^-24 + 1e-6.

int8 (AMX tdpbssd where the CPU has it): the same shapes as an i8 x i8 ->
i32 matmul, x [M, K] an input and w [N, K] an xpu.weight (VNNI-packed once),
against torch._int_mm(x, w.T) on int8 tensors in the same pinned process
(oneDNN; "n/a" where PyTorch refuses the shape). The result must equal the
int64 NumPy product exactly.

Usage: scripts/bench-cpu-bf16.py [--build build] [--python PY] [--core 1]
    [--xpu-options "chip=x86-64-v4"]
"""

import argparse
import datetime
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHAPES = [(1024, 1024, 1024), (2048, 2048, 2048), (131, 4097, 517)]

# x [M, K] @ w[N, K]^T into a zero-filled result; {t} is the operand
# type, {acc} the result's, {zero} its zero.
MODEL = """\
func.func @forward(%x: tensor<{m}x{k}x{t}>, %w: tensor<{n}x{k}x{t}> {{xpu.weight}}) -> tensor<{m}x{n}x{acc}> {{
  %zero = arith.constant {zero} : {acc}
  %e = tensor.empty() : tensor<{m}x{n}x{acc}>
  %z = linalg.fill ins(%zero : {acc}) outs(%e : tensor<{m}x{n}x{acc}>) -> tensor<{m}x{n}x{acc}>
  %mm = linalg.matmul indexing_maps = [affine_map<(i, j, l) -> (i, l)>, affine_map<(i, j, l) -> (j, l)>, affine_map<(i, j, l) -> (i, j)>]
      ins(%x, %w : tensor<{m}x{k}x{t}>, tensor<{n}x{k}x{t}>) outs(%z : tensor<{m}x{n}x{acc}>) -> tensor<{m}x{n}x{acc}>
  return %mm : tensor<{m}x{n}x{acc}>
}}
"""

# The PyTorch peers: a child process pinned like xpu-run, reading x.npy and
# w.npy, printing one JSON line; best() is the minimum over `reps` calls
# after three warm-up calls.
TORCH_PRELUDE = r"""
import json, sys, time, numpy as np, torch
torch.set_num_threads(1)
x = torch.from_numpy(np.load(sys.argv[1])); w = torch.from_numpy(np.load(sys.argv[2]))
reps = int(sys.argv[3])
def best(fn):
    for _ in range(3):
        fn()
    ts = []
    for _ in range(reps):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return min(ts)
"""

TORCH_CHILD = TORCH_PRELUDE + r"""
xb, wb = x.to(torch.bfloat16), w.to(torch.bfloat16)
print(json.dumps({"torch-bf16": best(lambda: xb @ wb.T),
                  "torch-conv": best(lambda: (x.to(torch.bfloat16) @ wb.T).float()),
                  "version": torch.__version__}))
"""

TORCH_INT8_CHILD = TORCH_PRELUDE + r"""
wt = w.t()
try:
    t = best(lambda: torch._int_mm(x, wt))
except RuntimeError:
    t = None
print(json.dumps({"torch-int8": t}))
"""


def bf16(a):
    import numpy as np
    i = a.astype(np.float32).view(np.uint32).astype(np.uint64)
    r = ((i + 0x7FFF + ((i >> 16) & 1)) >> 16) << 16
    return r.astype(np.uint32).view(np.float32).astype(np.float64)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--python", default=sys.executable,
                    help="Python with NumPy and PyTorch")
    ap.add_argument("--core", type=int, default=1)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--xpu-options", default="",
                    help="more xpu-cpu-pipeline options for both tables "
                         "(e.g. chip=x86-64-v4)")
    args = ap.parse_args()
    extra = (" " + args.xpu_options) if args.xpu_options else ""
    import json
    import numpy as np

    pin = ["taskset", "-c", str(args.core)]
    xpu_run = os.path.join(os.path.abspath(args.build), "bin", "xpu-run")
    host = subprocess.run([xpu_run, "--xpu-list-targets"], capture_output=True,
                          text=True).stdout.splitlines()[0]
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                if l.startswith("model name")), "unknown")
    env = dict(os.environ, MALLOC_TRIM_THRESHOLD_=str(1 << 30),
               MALLOC_MMAP_THRESHOLD_=str(32 << 20))
    with os.popen("uptime") as f:
        load = f.read().strip()
    print("bench-cpu-bf16: %s" % datetime.datetime.now(
        datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"))
    print("bench-cpu-bf16: CPU: %s; %s" % (cpu, host))
    print("bench-cpu-bf16: pinned: %s; malloc keeps freed memory (MALLOC_"
          "TRIM_THRESHOLD_, MALLOC_MMAP_THRESHOLD_) for both" % " ".join(pin))
    print("bench-cpu-bf16: load before: %s" % load)
    if extra:
        print("bench-cpu-bf16: xpu options:%s" % extra)
    rows, int8_rows = [], []
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as work:
        def measure(model_text, x, w, options, child):
            """Runs the model on x and w with xpu-run, then the PyTorch
            child on the same files: (xpu seconds, xpu result, the child's
            JSON)."""
            xp, wp, yp = (os.path.join(work, f) for f in ("x.npy", "w.npy",
                                                          "y.npy"))
            np.save(xp, x)
            np.save(wp, w)
            model = os.path.join(work, "model.mlir")
            with open(model, "w") as f:
                f.write(model_text)
            out = subprocess.run(
                pin + [xpu_run, model, "--function=forward", "--input=@" + xp,
                       "--input=@" + wp, "--output=@" + yp,
                       "--repeat=%d" % args.reps, "--time",
                       "--xpu-pipeline-options=" + options],
                capture_output=True, text=True, check=True, env=env).stdout
            xpu = float(re.search(r"min ([0-9.]+) ms", out).group(1)) * 1e-3
            peers = json.loads(subprocess.run(
                pin + [args.python, "-c", child, xp, wp, str(args.reps)],
                capture_output=True, text=True, check=True,
                env=env).stdout.splitlines()[-1])
            return xpu, np.load(yp), peers

        for m, n, k in SHAPES:
            x = rng.uniform(-1, 1, (m, k)).astype(np.float32)
            w = rng.uniform(-1, 1, (n, k)).astype(np.float32)
            xpu, y, peers = measure(MODEL.format(m=m, n=n, k=k, t="f32",
                                                 acc="f32", zero="0.0"), x, w,
                                    "precision=bf16 threads=1" + extra,
                                    TORCH_CHILD)
            ref = bf16(x) @ bf16(w).T
            err = np.abs(y.astype(np.float64) - ref).max() / max(
                np.abs(ref).max(), 1.0)
            bound = k * 2.0 ** -24 + 1e-6
            rows.append((m, n, k, xpu, peers, err, bound))
            print("bench-cpu-bf16: %dx%dx%d xpu %.3f ms, torch-bf16 %.3f ms, "
                  "torch-conv %.3f ms (torch %s)" % (
                      m, n, k, xpu * 1e3, peers["torch-bf16"] * 1e3,
                      peers["torch-conv"] * 1e3, peers["version"]), flush=True)
        for m, n, k in SHAPES:
            x = rng.integers(-128, 128, (m, k)).astype(np.int8)
            w = rng.integers(-128, 128, (n, k)).astype(np.int8)
            xpu, y, peers = measure(MODEL.format(m=m, n=n, k=k, t="i8",
                                                 acc="i32", zero="0"), x, w,
                                    "threads=1" + extra, TORCH_INT8_CHILD)
            exact = np.array_equal(y.astype(np.int64),
                                   x.astype(np.int64) @ w.astype(np.int64).T)
            peer = peers["torch-int8"]
            int8_rows.append((m, n, k, xpu, peer, exact))
            print("bench-cpu-bf16: int8 %dx%dx%d xpu %.3f ms, torch._int_mm "
                  "%s" % (m, n, k, xpu * 1e3, "n/a" if peer is None else
                          "%.3f ms" % (peer * 1e3)), flush=True)
    with os.popen("uptime") as f:
        print("bench-cpu-bf16: load after: %s" % f.read().strip())
    print()
    print("| M x N x K | xpu precision=bf16 ms (GFLOP/s) | torch bf16 matmul ms "
          "(GFLOP/s) | torch with conversions ms | xpu vs torch-bf16 | xpu "
          "vs torch-conv | xpu max rel. error (bound) |")
    print("|---|---|---|---|---|---|---|")
    failed = False
    for m, n, k, xpu, peers, err, bound in rows:
        fl = 2.0 * m * n * k
        tb, tc = peers["torch-bf16"], peers["torch-conv"]
        print("| %dx%dx%d | %.3f (%.0f) | %.3f (%.0f) | %.3f | %.2fx | %.2fx | "
              "%.1e (%.1e) |" % (m, n, k, xpu * 1e3, fl / xpu / 1e9, tb * 1e3,
                                 fl / tb / 1e9, tc * 1e3, tb / xpu, tc / xpu,
                                 err, bound))
        failed |= not err <= bound
    print()
    print("| M x N x K (int8) | xpu ms (GOP/s) | torch._int_mm ms (GOP/s) | "
          "xpu vs torch | exact |")
    print("|---|---|---|---|---|")
    for m, n, k, xpu, peer, exact in int8_rows:
        ops = 2.0 * m * n * k
        theirs = "n/a | n/a" if peer is None else "%.3f (%.0f) | %.2fx" % (
            peer * 1e3, ops / peer / 1e9, peer / xpu)
        print("| %dx%dx%d | %.3f (%.0f) | %s | %s |" % (
            m, n, k, xpu * 1e3, ops / xpu / 1e9, theirs,
            "yes" if exact else "NO"))
        failed |= not exact
    if failed:
        print("bench-cpu-bf16: an xpu result is off its reference")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
