#!/usr/bin/env python3
"""The NVIDIA benchmark, run on the GPU machine (PyTorch there, no LLVM).

Loads the libraries build.py made (xpu-compile, C interfaces over
libxpu_cuda_runtime.so), and for every problem, in one process:

* checks each xpu variant against a float64 PyTorch reference computed on
  the GPU from the same inputs (fresh random inputs; outputs allocated
  through the runtime are poisoned with NaN first, so unwritten elements
  fail): ||out - ref|| / ||ref|| within the precision's tolerance;
* times, with CUDA events on one stream (the runtime runs on PyTorch's
  current stream, where its calls are asynchronous like PyTorch's own),
  after warm-up, as the median of repeated calls cycling
  through several input sets: the xpu variants, PyTorch eager in f32 (TF32
  off), TF32 and bf16, torch.compile (bf16; where the problem asks), and
  the bare cuBLAS matmul of the same shape (no epilogue) in bf16 and TF32;
* prints ms, TF/s and ratios, and writes everything to --json.

  python3 bench/nvidia/run.py --lib-dir DIR [--only a,b] [--json out.json]
                              [--profile]
"""

import argparse
import ctypes
import functools
import json
import math
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "common"))
import problems  # noqa: E402
from profiler import kernel_times  # noqa: E402

TORCH_DTYPES = {"bf16": torch.bfloat16, "f16": torch.float16,
                "f32": torch.float32, "f64": torch.float64,
                "i64": torch.int64, "i32": torch.int32}
# ||out - ref|| / ||ref|| at most (METHOD.md: f32 far under 1e-3, tf32 near
# 3e-4, bf16 operands 1e-3 to 1e-2).
TOLERANCE = {"bf16": 1e-2, "tf32": 2e-3, "f32": 1e-4}
POISON = 0x7FC07FC0  # NaN as f32 and as both bf16 halves


@functools.lru_cache(maxsize=None)
def memref_type(rank):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
              ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank),
                   ("strides", ctypes.c_int64 * rank)]
    return type("Memref%d" % rank, (ctypes.Structure,), {"_fields_": fields})


def descriptor(t):
    d = memref_type(t.dim())()
    d.allocated = d.aligned = t.data_ptr()
    d.offset = 0
    for i in range(t.dim()):
        d.sizes[i] = t.shape[i]
        d.strides[i] = t.stride(i)
    return d


class Library:
    """One compiled model: its C interfaces and the runtime's entry points."""

    def __init__(self, path, entry, runtime):
        self.lib = ctypes.CDLL(path)
        self.rt = runtime
        self.funcs = {f["name"]: f for f in entry["functions"]}

    def call(self, name, args):
        """Calls `name` on tensors or descriptors; returns the result
        descriptors (device memory, owned by the caller)."""
        sig = self.funcs[name]
        results = [memref_type(len(r["shape"]))() for r in sig["results"]]
        if len(results) == 1:
            out = results[0]
        elif results:
            out = type("Results", (ctypes.Structure,), {"_fields_": [
                ("r%d" % i, type(r)) for i, r in enumerate(results)]})()
        descs = [a if isinstance(a, ctypes.Structure) else descriptor(a)
                 for a in args]
        ptrs = ([ctypes.byref(out)] if results else []) + \
            [ctypes.byref(d) for d in descs]
        self.lib["_mlir_ciface_" + name](*ptrs)
        # The runtime records errors instead of exiting (XPURuntime.h).
        message = ctypes.create_string_buffer(4096)
        if self.rt.xpuRuntimeGetLastError(message, len(message)) > 0:
            self.rt.xpuRuntimeClearError()
            raise RuntimeError("%s: %s" % (name, message.value.decode()))
        if len(results) > 1:
            results = [getattr(out, "r%d" % i) for i in range(len(results))]
        return results

    def free(self, descs):
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        for d in descs:
            self.rt.mgpuMemFree(ctypes.c_void_p(d.allocated), stream)

    def to_tensor(self, d, spec):
        t = torch.empty(spec["shape"], dtype=TORCH_DTYPES[spec["type"]],
                        device="cuda")
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        self.rt.mgpuMemcpy(ctypes.c_void_p(t.data_ptr()),
                           ctypes.c_void_p(d.aligned),
                           ctypes.c_size_t(t.numel() * t.element_size()),
                           stream)
        return t


class Model:
    """`forward` of a library. When the library has `forward.pack`, its
    results are kept per set of pack operands (the arguments the interface
    lists for `forward.pack`): a call whose pack operands are other tensors,
    or tensors changed in place since, packs again. The harness never writes
    into its inputs, so a tensor's identity and version counter tell its
    contents."""

    def __init__(self, lib):
        self.lib = lib
        self.packed = "forward.pack" in lib.funcs
        self.packs = {}

    def _pack_key(self, inputs):
        pack = self.lib.funcs["forward.pack"]
        return tuple((inputs[a["arg"]].data_ptr(), inputs[a["arg"]]._version,
                      tuple(inputs[a["arg"]].shape))
                     for a in pack["args"])

    def prepare(self, inputs):
        """Packs the weights of `inputs` (outside the timed calls)."""
        if not self.packed:
            return None
        key = self._pack_key(inputs)
        if key not in self.packs:
            pack = self.lib.funcs["forward.pack"]
            w = [inputs[a["arg"]] for a in pack["args"]]
            self.packs[key] = self.lib.call("forward.pack", w)
        return key

    def __call__(self, inputs):
        if not self.packed:
            return self.lib.call("forward", inputs)
        packed = self.lib.funcs["forward.packed"]
        res = iter(self.packs[self.prepare(inputs)])
        args = [inputs[a["arg"]] if "arg" in a else next(res)
                for a in packed["args"]]
        return self.lib.call("forward.packed", args)

    def release(self):
        for descs in self.packs.values():
            self.lib.free(descs)
        self.packs = {}


def make_inputs(p, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)

    def rn(*shape, scale=1.0):
        return (torch.randn(*shape, generator=g, device="cuda") * scale).to(dtype)
    m, n, k, b = p.m, p.n, p.k, p.batch
    if p.kind == "gemm":
        return [rn(m, k), rn(k, n, scale=k ** -0.5)]
    if p.kind == "bmm":
        return [rn(b, m, k), rn(b, k, n, scale=k ** -0.5)]
    x, w, bias = rn(m, k), rn(n, k, scale=k ** -0.5), rn(n, scale=0.1)
    if p.kind == "linear_bn_relu":
        gamma, beta, mean = rn(n), rn(n, scale=0.1), rn(n, scale=0.1)
        var = (torch.rand(n, generator=g, device="cuda") + 0.5).to(dtype)
        return [x, w, bias, gamma, beta, mean, var]
    if p.kind == "linear_residual":
        return [x, w, bias, rn(m, n)]
    return [x, w, bias]


def torch_forward(p, ins, bare=False):
    """The model in PyTorch (`bare`: the GEMM alone, as cuBLAS runs it)."""
    if p.kind == "gemm":
        return ins[0] @ ins[1]
    if p.kind == "bmm":
        return torch.bmm(ins[0], ins[1])
    if bare:
        return F.linear(ins[0], ins[1])
    y = F.linear(ins[0], ins[1], ins[2])
    if p.kind == "linear_gelu":
        return F.gelu(y)
    if p.kind == "linear_bn_relu":
        gamma, beta, mean, var = ins[3:]
        return F.relu(F.batch_norm(y, mean, var, gamma, beta, training=False,
                                   eps=1e-5))
    if p.kind == "linear_softmax":
        return torch.softmax(y, dim=1)
    if p.kind == "linear_residual":
        return y + ins[3]
    raise KeyError(p.kind)


def rel_error(out, ref):
    out, ref = out.double(), ref.double()
    if torch.isnan(out).any():
        return float("nan")
    return (torch.linalg.vector_norm(out - ref) /
            torch.linalg.vector_norm(ref)).item()


def time_calls(fn, nsets, warmup, reps):
    """Median ms of `fn(i)` over `reps` calls cycling through input sets,
    each between two CUDA events on the current stream."""
    for i in range(warmup):
        fn(i % nsets)
    torch.cuda.synchronize()
    events = []
    for i in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(
            enable_timing=True)
        s.record()
        fn(i % nsets)
        e.record()
        events.append((s, e))
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) for s, e in events]
    return statistics.median(times), (min(times), max(times))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib-dir", required=True)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--profile", action="store_true",
                    help="also print each xpu variant's kernels' device "
                    "times (PyTorch profiler)")
    ap.add_argument("--skip-variant", action="append", default=[],
                    help="leave out the xpu variants of this name")
    ap.add_argument("--variant", action="append", default=[],
                    help="time only the xpu variants of these names (for "
                    "a profiler that should see one kernel)")
    args = ap.parse_args()

    with open(os.path.join(args.lib_dir, "manifest.json")) as f:
        manifest = json.load(f)
    rt = ctypes.CDLL(os.path.join(args.lib_dir, "libxpu_cuda_runtime.so"),
                     mode=ctypes.RTLD_GLOBAL)
    for fn in ("mgpuMemFree", "mgpuMemcpy", "xpuCudaSetStream",
               "xpuCudaSetAllocationFill", "xpuRuntimeClearError"):
        getattr(rt, fn).restype = None
    rt.xpuRuntimeGetLastError.restype = ctypes.c_int
    rt.xpuRuntimeGetLastError.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    # Errors are raised by Library.call; the runtime need not print them.
    rt.xpuRuntimeSetErrorPrinting(0)
    torch.cuda.init()
    dev = torch.cuda.get_device_properties(0)
    print("device: %s, %d SMs, torch %s, CUDA %s, %s" % (
        dev.name, dev.multi_processor_count, torch.__version__,
        torch.version.cuda, time.strftime("%Y-%m-%d %H:%M:%S %Z")))
    # PyTorch's default stream is the legacy NULL stream, on which the
    # runtime would wait after each call: everything runs on one stream of
    # its own instead, the runtime's calls included.
    stream = torch.cuda.Stream()
    torch.cuda.set_stream(stream)
    rt.xpuCudaSetStream(ctypes.c_void_p(stream.cuda_stream))

    only = set(filter(None, args.only.split(",")))
    by_problem = {}
    for e in manifest["entries"]:
        by_problem.setdefault(e["problem"], []).append(e)
    rows, report = [], {"device": dev.name, "date": time.ctime(),
                        "torch": torch.__version__, "results": []}
    failures = 0
    for p in [p for ps in problems.SETS.values() for p in ps]:
        if p.name not in by_problem or (only and p.name not in only):
            continue
        entries = [e for e in by_problem[p.name]
                   if e["variant"] not in args.skip_variant and
                   (not args.variant or e["variant"] in args.variant)]
        size = sum(t.numel() * 2 for t in make_inputs(p, torch.bfloat16, 0))
        nsets = 3 if size * 2 < (1 << 31) else 2
        results = {}
        # xpu variants: correctness, then time.
        for e in entries:
            tf32 = e["variant"].startswith("tf32")
            f32 = e["variant"] == "f32" or e["variant"].startswith("f32-")
            dtype = torch.float32 if tf32 or f32 \
                else torch.bfloat16
            lib = Library(os.path.join(args.lib_dir, e["lib"]), e, rt)
            model = Model(lib)
            spec = lib.funcs["forward"]["results"][0]
            # Correctness on fresh inputs, outputs poisoned.
            rt.xpuCudaSetAllocationFill(1, POISON)
            ins = make_inputs(p, dtype, 1000 + len(results))
            outs = model(ins)
            out = lib.to_tensor(outs[0], spec)
            lib.free(outs)
            torch.cuda.synchronize()
            rt.xpuCudaSetAllocationFill(0, 0)
            ref = torch_forward(p, [t.double() for t in ins])
            err = rel_error(out, ref)
            prec = "bf16" if dtype == torch.bfloat16 else (
                "tf32" if tf32 else "f32")
            ok = err <= TOLERANCE[prec]
            failures += not ok
            model.release()
            entry = {"variant": e["variant"], "rel_error": err,
                     "tolerance": TOLERANCE[prec], "ok": ok,
                     "kernels": e["kernels"]}
            if not args.check_only:
                sets = [make_inputs(p, dtype, s) for s in range(nsets)]
                for s in sets:
                    model.prepare(s)

                def run(i):
                    lib.free(model(sets[i]))
                reps = args.reps if not f32 else 5
                entry["ms"], entry["spread"] = time_calls(run, nsets,
                                                          args.warmup, reps)
                if args.profile:
                    try:
                        entry["kernel_us"] = kernel_times(run, nsets)
                    except Exception as err:  # the table matters more
                        entry["kernel_us"] = {"profiler failed: %s" % err: 0}
                model.release()
                del sets
            results["xpu " + e["variant"]] = entry
            print("  %-12s %-28s rel.err %.2e (tol %.0e) %s%s" % (
                p.name, e["variant"], err, TOLERANCE[prec],
                "ok" if ok else "FAIL",
                "" if args.check_only else "  %.3f ms" % entry["ms"]),
                flush=True)
        if args.check_only:
            report["results"].append({"problem": p.name, "results": results})
            continue
        # PyTorch peers.
        peers = [("eager f32", torch.float32, False, False, False),
                 ("eager tf32", torch.float32, True, False, False),
                 ("eager bf16", torch.bfloat16, False, False, False),
                 ("cuBLAS bf16", torch.bfloat16, False, True, False),
                 ("cuBLAS tf32", torch.float32, True, True, False)]
        if p.compile and not args.no_compile:
            peers.append(("compile bf16", torch.bfloat16, False, False, True))
        for name, dtype, tf32, bare, comp in peers:
            if not comp and name not in p.peers:
                continue
            torch.backends.cuda.matmul.allow_tf32 = tf32
            sets = [make_inputs(p, dtype, s) for s in range(nsets)]
            fwd = (lambda ins: torch_forward(p, ins, bare))
            if comp:
                fwd = torch.compile(fwd)
            check = make_inputs(p, dtype, 2000)
            err = rel_error(fwd(check), torch_forward(
                p, [t.double() for t in check], bare))
            ms, spread = time_calls(lambda i: fwd(sets[i]), nsets,
                                    args.warmup, args.reps if dtype !=
                                    torch.float32 or tf32 else 5)
            results[name] = {"ms": ms, "spread": spread, "rel_error": err}
            del sets
        torch.backends.cuda.matmul.allow_tf32 = False
        report["results"].append({"problem": p.name, "flops": p.flops,
                                  "shape": [p.batch, p.m, p.n, p.k],
                                  "results": results})
        for name, r in results.items():
            rows.append((p.name, name, r["ms"], p.flops / r["ms"] / 1e9,
                         r.get("rel_error", float("nan"))))
        torch.cuda.empty_cache()

    if args.profile:
        print()
        print("device time per call (us), PyTorch profiler:")
        for r in report["results"]:
            for name, x in r["results"].items():
                if "kernel_us" in x:
                    print("  %-14s %-30s call %.1f: %s" % (
                        r["problem"], name, x["ms"] * 1e3, ", ".join(
                            "%s %.1f" % kv for kv in x["kernel_us"].items())))
    if not args.check_only:
        print()
        print("| problem | variant | ms | TF/s | rel. error | vs cuBLAS same precision | vs eager same precision | kernels ms |")
        print("|---|---|---|---|---|---|---|---|")
        for r in report["results"]:
            res = r["results"]
            for name, x in res.items():
                prec = "tf32" if "tf32" in name else (
                    "f32" if name.endswith("f32") else "bf16")
                cub = res.get("cuBLAS " + prec) if prec != "f32" else None
                eag = res.get("eager " + prec)
                ratio = lambda peer: "%.2fx" % (peer["ms"] / x["ms"]) \
                    if peer else "-"
                kernels = "%.3f" % (sum(x["kernel_us"].values()) / 1e3) \
                    if "kernel_us" in x else "-"
                print("| %s | %s | %.3f | %.1f | %.1e | %s | %s | %s |" % (
                    r["problem"], name, x["ms"], r["flops"] / x["ms"] / 1e9,
                    x.get("rel_error", float("nan")), ratio(cub), ratio(eag),
                    kernels))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    print("correctness: %s" % ("all variants within tolerance" if not failures
                               else "%d FAILED" % failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
