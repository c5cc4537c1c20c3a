"""Packages (issue 22, part 4): compile here, run there.

On one target (cpu or opencl):

* round trip: modules of examples/pytorch (a BatchNorm folded at pack time,
  a batched GEMM with three inputs, a module with two input shapes, so two
  variants) and a module whose output is a dict are compiled, called and
  saved; a fresh process whose compiler is out of reach (XPU_OPT_BUILD_DIR
  pointing nowhere, PATH without the build and LLVM, llvm-spirv disabled
  for the OpenCL runtime) loads each package and calls it three times with
  the inputs the parent used. Its results equal the compiled module's and
  are within the tolerance of the float64 PyTorch reference; the process
  started no subprocess (sys.addaudithook), mapped no MLIR library and no
  LLVM 22 library (/proc/self/maps; on the CPU no LLVM at all: PoCL, the
  OpenCL driver, maps its own LLVM 15) and did not import torch-mlir;
* a package of xpu-compile (a function: every argument passed, weights
  included) is loaded and called;
* refusals, each with its reason: another target than asked for, another
  interface or package version, host code for another CPU architecture or
  for CPU features this CPU lacks, a target whose driver is missing
  (Level Zero here), a non-package directory, saving over a non-package;

and, once (with --target=cpu):

* the CUDA build-only path: xpu_opt.build(..., target="cuda",
  chip="sm_90a", precision="bf16") writes a package here (no GPU, no
  libcuda) whose interface is right, which load() refuses with the missing
  driver named; compile(target="cuda") is refused before compiling;
* the rule that says which GPUs a cubin or PTX runs on, and the refusal of
  a CPU tensor by a CUDA module (the check before the runtime is touched).

Tolerances relative to max(max |ref|, 1): 1e-5 (f32, K <= 64).

    package.py --target=cpu|opencl --dir=DIR   (DIR: a scratch directory)
"""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import xpu_testlib as t  # noqa: E402

import xpu_opt  # noqa: E402
from xpu_opt import _kernelbench, _package, _program  # noqa: E402

TARGET, DIR = t.target_and_scratch()
ROOT = pathlib.Path(__file__).resolve().parents[2]
ZOO = ROOT / "examples" / "pytorch"
BUILD = pathlib.Path(os.environ.get("XPU_OPT_BUILD_DIR", ROOT / "build"))
TOL = 1e-5


class DictOut(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(16, 8)
        self.b = nn.Linear(16, 4)

    def forward(self, x):
        return {"relu": torch.relu(self.a(x)), "tanh": torch.tanh(self.b(x))}


def models():
    """(name, module, list of input sets to compile for)."""
    out = []
    for name in ("linear_bn_gelu_relu", "bmm_scale_residual"):
        model, inputs = _kernelbench.load(ZOO / f"{name}.py")
        out.append((name, model, [inputs]))
    model, inputs = _kernelbench.load(ZOO / "linear_relu.py")
    other = (torch.randn(8, inputs[0].shape[1]),)
    out.append(("linear_relu_two_shapes", model, [inputs, other]))
    torch.manual_seed(3)
    out.append(("dict_output", DictOut().eval(), [(torch.randn(5, 16),)]))
    return out


# The round trip ---------------------------------------------------------------

SAVED = []


@t.case(f"compile, call and save on {TARGET}")
def _():
    for name, model, input_sets in models():
        fast = xpu_opt.compile(model, input_sets[0], target=TARGET)
        calls = []
        for k, inputs in enumerate(input_sets):
            for call in range(3):
                fresh = [t.fresh_like(x, 10 * call + i + 100 * k)
                         for i, x in enumerate(inputs)]
                got = fast(*fresh)
                ref = t.reference(model, fresh)
                t.compare(got, ref, TOL)
                calls.append((fresh, got, ref))
        path = DIR / f"{name}.{TARGET}"
        fast.save(path)
        torch.save(calls, DIR / f"{name}.{TARGET}.calls.pt")
        SAVED.append(name)
    return ", ".join(SAVED)


CHILD = r'''
import sys, os
events = []
def hook(event, args):
    if event in ("subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
                 "os.spawn", "os.fork", "os.forkpty", "pty.spawn"):
        events.append(event)
sys.addaudithook(hook)
import torch
import xpu_opt
sys.path.insert(0, TESTLIB)
import xpu_testlib as t
for name in NAMES:
    fast = xpu_opt.load(f"{DIR}/{name}.{TARGET}", target=TARGET)
    calls = torch.load(f"{DIR}/{name}.{TARGET}.calls.pt")
    worst = 0.0
    for inputs, expected, ref in calls:
        got = fast(*inputs)
        worst = max(worst, t.compare(got, ref, TOL))
        gl = torch.utils._pytree.tree_leaves(got)
        el = torch.utils._pytree.tree_leaves(expected)
        assert all(torch.equal(a, b) for a, b in zip(gl, el)), \
            f"{name}: the loaded package differs from the compiled module"
    timing = fast.benchmark(*calls[0][0], repeat=3, warmup=1)
    kernels = len(timing["kernels"])
    print(f"LOADED {name}: {len(calls)} calls, max error {worst:.2e}, "
          f"{kernels} kernel(s) profiled")
maps = open("/proc/self/maps").read().splitlines()
libs = sorted({l.split()[-1] for l in maps if "/" in l.split()[-1]})
mlir = [l for l in libs if "mlir" in os.path.basename(l).lower()]
llvm22 = [l for l in libs if "llvm-22" in l or "libLLVM.so.22" in l
          or "libLLVM-22" in l]
llvm = [l for l in libs if "libLLVM" in l]
print("MLIR", mlir)
print("LLVM22", llvm22)
print("LLVM", llvm)
print("TORCH_MLIR", "torch_mlir" in sys.modules)
print("SUBPROCESSES", events)
'''


def child_env():
    env = dict(os.environ)
    env["XPU_OPT_BUILD_DIR"] = str(DIR / "no-build-here")
    env["XPU_OPT_CACHE_DIR"] = str(DIR / "no-cache-here")
    env["PATH"] = "/usr/bin:/bin"
    env["XPU_OPENCL_LLVM_SPIRV"] = str(DIR / "no-llvm-spirv")
    env.pop("LD_LIBRARY_PATH", None)
    return env


@t.case(f"loaded in a fresh process without the compiler: same results, no "
        f"subprocess, no LLVM 22 or MLIR mapped, no torch-mlir ({TARGET})")
def _():
    assert SAVED, "nothing was saved"
    code = (f"TESTLIB = {str(pathlib.Path(__file__).parent)!r}\n"
            f"NAMES = {SAVED!r}\nDIR = {str(DIR)!r}\nTARGET = {TARGET!r}\n"
            f"TOL = {TOL!r}\n" + CHILD)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            text=True, env=child_env(), timeout=600,
                            cwd=str(DIR))
    out = result.stdout
    assert result.returncode == 0, f"exit status {result.returncode}\n" \
        f"{out}\n{result.stderr[-3000:]}"
    assert out.count("LOADED ") == len(SAVED), out
    assert "MLIR []" in out, out
    assert "LLVM22 []" in out, out
    if TARGET == "cpu":
        assert "LLVM []" in out, out
    assert "TORCH_MLIR False" in out, out
    assert "SUBPROCESSES []" in out, out
    return "; ".join(line for line in out.splitlines()
                     if line.startswith("LOADED"))[:300]


@t.case(f"a package of xpu-compile (a function, weights as arguments) loads "
        f"and runs ({TARGET})")
def _():
    path = DIR / f"function.{TARGET}"
    subprocess.run([str(BUILD / "bin" / "xpu-compile"),
                    str(ROOT / "examples" / "linear_bn_relu.mlir"),
                    f"--target={TARGET}", "-o", str(path)], check=True)
    fn = xpu_opt.load(path)
    sig = fn.interface["inputs"]
    assert [bool(s.get("weight")) for s in sig] == [False] + [True] * 6, sig
    g = torch.Generator().manual_seed(5)
    x, w, b, gamma, beta, mean = (torch.randn(s["shape"], generator=g)
                                  for s in sig[:6])
    var = torch.rand(sig[6]["shape"], generator=g) + 0.5
    for call in range(3):
        x = torch.randn(x.shape, generator=g)
        if call == 2:
            w = w * 0.5  # a new weight: packed again
        got = fn(x, w, b, gamma, beta, mean, var)
        d = [v.double() for v in (x, w, b, gamma, beta, mean, var)]
        ref = torch.relu((d[0] @ d[1].T + d[2] - d[5]) / torch.sqrt(d[6] + 1e-5)
                         * d[3] + d[4])
        t.compare(got, ref, TOL)
    return f"{len(sig)} arguments, {fn.interface['pack']['entry']}"


# Refusals ---------------------------------------------------------------------

def edited(name, edit, file="v0/interface.json"):
    """A copy of a saved package with `edit` applied to one JSON file."""
    src = DIR / f"{name}.{TARGET}"
    dst = DIR / f"{name}.{TARGET}.edited"
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(src, dst)
    data = json.loads((dst / file).read_text())
    edit(data)
    (dst / file).write_text(json.dumps(data))
    return dst


@t.case(f"refused: another target, interface or package version, CPU "
        f"architecture or CPU features; not a package ({TARGET})")
def _():
    pkg = DIR / f"linear_bn_gelu_relu.{TARGET}"
    other = "opencl" if TARGET == "cpu" else "cpu"
    t.raises(xpu_opt.PackageError, lambda: xpu_opt.load(pkg, target=other),
             f"built for target '{TARGET}'", f"not '{other}'")

    def version(d):
        d["version"] = 2
    t.raises(xpu_opt.PackageError,
             lambda: xpu_opt.load(edited("linear_bn_gelu_relu", version)),
             "interface version 2", "reads version 1")
    t.raises(xpu_opt.PackageError,
             lambda: xpu_opt.load(edited("linear_bn_gelu_relu", version,
                                         "xpu_opt.json")),
             "package of version 2")

    def arch(d):
        d["host"]["triple"] = "aarch64-unknown-linux-gnu"
    t.raises(xpu_opt.PackageError,
             lambda: xpu_opt.load(edited("linear_bn_gelu_relu", arch)),
             "host code for aarch64", "this machine is x86_64")
    flags = _package._cpu_flags() or set()
    lacking = [f for f, flag in _package.CPU_FLAGS.items()
               if flag not in flags]
    note = "no CPU feature this CPU lacks to try"
    if lacking:
        def feature(d):
            d["host"]["features"] = d["host"]["features"] + [lacking[0]]
        t.raises(xpu_opt.PackageError,
                 lambda: xpu_opt.load(edited("linear_bn_gelu_relu", feature)),
                 lacking[0], "which this CPU lacks")
        note = f"feature {lacking[0]} refused"
    t.raises(FileNotFoundError, lambda: xpu_opt.load(DIR), "is not a package")
    junk = DIR / "not-a-package"
    junk.mkdir(exist_ok=True)
    (junk / "file").write_text("x")
    fast = xpu_opt.compile(nn.Linear(4, 2).eval(), torch.randn(3, 4),
                           target=TARGET)
    t.raises(FileExistsError, lambda: fast.save(junk), "is not an xpu_opt "
             "package")
    return note


@t.case("a Level Zero package built here is refused by load(): no driver")
def _():
    if "levelzero" not in xpu_opt.TARGETS or not (
            BUILD / "lib" / "libxpu_levelzero_runtime.so").exists():
        raise t.Skip("the Level Zero runtime was not built")
    if "levelzero" in xpu_opt.available_targets():
        raise t.Skip("this machine has a Level Zero driver")
    model, inputs = _kernelbench.load(ZOO / "linear_relu.py")
    pkg = xpu_opt.build(model, inputs, target="levelzero")
    path = DIR / "linear_relu.levelzero"
    pkg.save(path)
    msg = t.raises(xpu_opt.TargetUnavailable, lambda: xpu_opt.load(path),
                   "target 'levelzero'", "cannot run")
    return msg.splitlines()[0][:150]


# CUDA, built here -------------------------------------------------------------

def ptxas():
    found = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
    return found if os.path.exists(found) else None


if TARGET == "cpu":
    @t.case("xpu_opt.build(target='cuda', chip='sm_90a', precision='bf16') "
            "writes a package here whose interface is right; load() names "
            "the missing driver")
    def _():
        if not (BUILD / "lib" / "libxpu_cuda_runtime.so").exists():
            raise t.Skip("the CUDA runtime was not built")
        if not ptxas():
            raise t.Skip("no ptxas (cubins)")
        model, inputs = _kernelbench.load(ZOO / "linear_bn_gelu_relu.py")
        pkg = xpu_opt.build(model, inputs, target="cuda", chip="sm_90a",
                            precision="bf16")
        assert pkg.chip == "sm_90a", pkg.chip
        path = DIR / "linear_bn_gelu_relu.cuda"
        pkg.save(path)
        manifest = json.loads((path / "xpu_opt.json").read_text())
        iface = json.loads((path / "v0" / "interface.json").read_text())
        assert manifest["target"] == "cuda" and manifest["chip"] == "sm_90a"
        assert manifest["precision"] == "bf16", manifest["precision"]
        names = [w["name"] for w in manifest["weights"]]
        params = [n for n, _ in model.named_parameters()] + \
            [n for n, _ in model.named_buffers()]
        assert names == params, (names, params)
        assert iface["target"] == "cuda" and iface["chip"] == "sm_90a"
        assert iface["binary_format"] == "bin", iface["binary_format"]
        assert iface["libraries"] == ["libxpu_cuda_runtime.so"]
        assert "device-results=true" in iface["pipeline_options"]
        assert "precision=bf16" in iface["pipeline_options"]
        assert iface["host"]["cpu"] == "x86-64" and \
            iface["host"]["features"] == [], iface["host"]
        weights = [bool(s.get("weight")) for s in iface["inputs"]]
        assert weights == [False] + [True] * len(params), weights
        assert (path / "v0" / "libxpu_cuda_runtime.so").exists()
        need = subprocess.run(["readelf", "-d", str(path / "v0" / "model.so")],
                              capture_output=True, text=True).stdout
        assert "libxpu_cuda_runtime.so" in need and "libMLIR" not in need \
            and "mlir_c_runner" not in need, need
        if "cuda" in xpu_opt.available_targets():
            raise t.Skip("this machine has a GPU: load() would run it")
        msg = t.raises(xpu_opt.TargetUnavailable, lambda: xpu_opt.load(path),
                       "target 'cuda' (sm_90a)", "libcuda.so.1")
        return msg.splitlines()[0][:160]

    @t.case("compile(target='cuda') is refused before compiling (no GPU "
            "here); build() is the compile-only path")
    def _():
        if "cuda" in xpu_opt.available_targets():
            raise t.Skip("this machine has a GPU")
        t.raises(xpu_opt.TargetUnavailable,
                 lambda: xpu_opt.compile(nn.Linear(4, 2).eval(),
                                         torch.randn(3, 4), target="cuda"),
                 "target 'cuda'")

    @t.case("which GPUs a CUDA package runs on (cubin, sm_90a, PTX)")
    def _():
        ok = _package.cuda_chip_runs_on
        assert ok("sm_90a", "bin", (9, 0)) is None
        assert "runs only on compute capability 9.0" in ok("sm_90a", "bin",
                                                           (8, 0))
        assert ok("sm_80", "bin", (8, 6)) is None
        assert "build it with chip=sm_90" in ok("sm_80", "bin", (9, 0))
        assert ok("sm_80", "isa", (9, 0)) is None
        assert "or later" in ok("sm_90", "isa", (8, 9))
        assert "not an sm_XX" in ok("gfx90a", "bin", (9, 0))

    @t.case("a CPU tensor passed to a CUDA module is refused with the reason, "
            "before the runtime is touched")
    def _():
        msg = t.raises(ValueError, lambda: _program.check_inputs(
            [torch.randn(3)], "cuda"), "input #0 is on cpu",
            "target 'cuda' takes CUDA tensors", ".cuda()")
        t.raises(ValueError, lambda: _program.check_inputs(
            [torch.randn(3)], "cuda", "weight", grad=False,
            names=["linear.weight"]), "weight 'linear.weight' is on cpu",
            "module with .cuda()")
        return msg.splitlines()[0][:120]

t.finish()
