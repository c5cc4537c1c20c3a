"""Errors a user can act on, and no process deaths (issue 21, parts 4 and
5), on one target:

* unsupported torch operations (sort, topk, cumsum, nonzero, index_put)
  raise UnsupportedOperationError whose first line names the operation and
  its line in this file; torch-mlir's and torch.export's own messages are
  kept;
* an xpu-run failure starts with the compiler's error (no "xpu-run failed
  (exit 1)", no temporary paths) and ends with a command over a kept input;
* argument types are checked with a sentence (target=torch.device, Python
  numbers and lists, compile(lambda), benchmark(repeat=0), ...);
  help(xpu_opt.compile) documents every argument, the cache, threads and
  the weight contract;
* targets this machine cannot run are refused before anything compiles
  (levelzero without a driver, cuda without libcuda), in a child process
  whose exit status is checked;
* the runtime's error channel: a module load that fails and a launch of a
  null kernel become DeviceError/messages, the process lives on and the
  runtime works again (child process).

    errors.py --target=cpu|opencl
"""

import argparse
import inspect
import pathlib
import sys

import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import xpu_testlib as t  # noqa: E402

import xpu_opt  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--target", required=True)
TARGET = p.parse_args().target
# Source paths as Python names them in tracebacks (and torch.export keeps).
HERE = __file__


def line_of(fn):
    """The line of `fn`'s body (one line: `return ...`)."""
    lines, start = inspect.getsourcelines(fn)
    return start + len(lines) - 1


# Unsupported operations ---------------------------------------------------------

class Sort(nn.Module):
    def forward(self, x):
        return torch.sort(x, dim=-1)[0] * 2


class TopK(nn.Module):
    def forward(self, x):
        return torch.topk(x, 3, dim=-1)[0]


class CumSum(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=0) + 1


class NonZero(nn.Module):
    def forward(self, x):
        return torch.nonzero(x > 0)


class IndexPut(nn.Module):
    def forward(self, x, i, v):
        return x.index_put((i,), v)


UNSUPPORTED = [
    ("sort", Sort(), (torch.randn(4, 8),)),
    ("topk", TopK(), (torch.randn(4, 8),)),
    ("cumsum", CumSum(), (torch.randn(4, 8),)),
    ("nonzero", NonZero(), (torch.randn(4, 8),)),
    ("index_put", IndexPut(), (torch.randn(8), torch.tensor([1, 3]),
                               torch.tensor([0.5, 2.0]))),
]

for name, module, inputs in UNSUPPORTED:
    @t.case(f"torch.{name} is named with its line")
    def _(name=name, module=module, inputs=inputs):
        where = f"{HERE}:{line_of(type(module).forward)}"
        msg = t.raises(xpu_opt.UnsupportedOperationError,
                       lambda: xpu_opt.compile(module, inputs, target=TARGET),
                       first_line=(f"uses torch.{name} at {where}",))
        assert "Dialect `tm_tensor' not found" not in msg, msg
        return msg.splitlines()[0][:150]


class Median(nn.Module):
    def forward(self, x):
        return torch.median(x) + x


@t.case("torch-mlir's own message is kept (an op it cannot lower)")
def _():
    where = f"{HERE}:{line_of(Median.forward)}"
    msg = t.raises(xpu_opt.CompileError,
                   lambda: xpu_opt.compile(Median(), torch.randn(5),
                                           target=TARGET),
                   "failed to legalize operation", "torch.aten.median",
                   first_line=("torch.median", where))
    return msg.splitlines()[0][:150]


class DataDependent(nn.Module):
    def forward(self, x):
        return x * 2 if x.sum() > 0 else x


@t.case("torch.export's own message is kept (data-dependent control flow)")
def _():
    where = f"{HERE}:{line_of(DataDependent.forward)}"
    msg = t.raises(xpu_opt.CompileError,
                   lambda: xpu_opt.compile(DataDependent(), torch.randn(5),
                                           target=TARGET),
                   "data-dependent",
                   first_line=("torch.export cannot trace", where))
    return msg.splitlines()[0][:150]


@t.case("an xpu-run error comes first, with a command over a kept input")
def _():
    model = nn.Linear(16, 8).eval()
    msg = t.raises(xpu_opt.CompileError,
                   lambda: xpu_opt.compile(model, torch.randn(4, 16),
                                           target=TARGET,
                                           pipeline_options="schedule=bogus"),
                   "to repeat it:", first_line=("error:", "bogus"))
    assert "xpu-run failed" not in msg and "exit 1" not in msg, msg
    assert "/tmp/xpu_opt-" not in msg, msg
    kept = msg.split("to repeat it: ")[1].split()[1]
    assert pathlib.Path(kept).is_file(), f"{kept} was not kept"
    return msg.splitlines()[0][:150]


# Argument types ---------------------------------------------------------------

@t.case("argument types are checked with a sentence")
def _():
    model, x = nn.Linear(4, 2).eval(), torch.randn(3, 4)
    checks = [
        (TypeError, lambda: xpu_opt.compile(model, x,
                                            target=torch.device("cpu")),
         ("target must be a string", "'cpu'")),
        (ValueError, lambda: xpu_opt.compile(model, x, target="tpu"),
         ("unknown target 'tpu'",)),
        (TypeError, lambda: xpu_opt.compile(model, (x, 0.5), target=TARGET),
         ("example input #1 is a float", "torch.tensor(0.5)")),
        (TypeError, lambda: xpu_opt.compile(model, ([1.0, 2.0],),
                                            target=TARGET),
         ("example input #0 is a list",)),
        (TypeError, lambda: xpu_opt.compile(model, 3.0, target=TARGET),
         ("example_inputs must be a tensor",)),
        (TypeError, lambda: xpu_opt.compile(lambda y: y * 2, x,
                                            target=TARGET),
         ("takes a torch.nn.Module", "function")),
        (ValueError, lambda: xpu_opt.compile(model, x, target=TARGET,
                                             precision="f8"),
         ("precision must be",)),
        (TypeError, lambda: xpu_opt.compile(model, x, target=TARGET,
                                            optimize="yes"),
         ("optimize must be True or False",)),
        (TypeError, lambda: xpu_opt.compile(model, x, target=TARGET,
                                            extra_args="--x"),
         ("extra_args must be a list of strings",)),
        (TypeError, lambda: xpu_opt.compile(model, x, target=TARGET,
                                            freeze=1),
         ("freeze must be True or False",)),
        # The chips come from the compiler's table (xpu-opt
        # --xpu-list-targets), as xpu_opt.chips() lists them.
        (ValueError, lambda: xpu_opt.compile(model, x, target=TARGET,
                                             chip="sm_90"),
         ("is an option of target 'cuda' (sm_80, sm_90 or sm_90a)",)),
    ]
    assert xpu_opt.chips("nvidia") == ["sm_80", "sm_90", "sm_90a"], \
        xpu_opt.chips("nvidia")
    assert "pvc" in xpu_opt.chips("intel"), xpu_opt.chips()
    for exc, fn, first in checks:
        msg = t.raises(exc, fn, first_line=first)
        assert "Traceback" not in msg
    fast = xpu_opt.compile(model, x, target=TARGET)
    t.raises(ValueError, lambda: fast.benchmark(x, repeat=0),
             first_line=("repeat must be a positive integer", "got 0"))
    t.raises(ValueError, lambda: fast.benchmark(x, warmup=-1),
             first_line=("warmup must be",))
    return f"{len(checks) + 2} checks"


@t.case("help(xpu_opt.compile) documents every argument, the cache, threads "
        "and the weight contract")
def _():
    doc = xpu_opt.compile.__doc__
    for name in inspect.signature(xpu_opt.compile).parameters:
        assert f"{name}:" in doc, f"argument {name} is not documented"
    for topic in ("Weights:", "freeze=True", "refresh()", "Threads:",
                  "Cache:", "XPU_OPT_CACHE_DIR", "SHA-256",
                  "UnsupportedOperationError", "DeviceError", "no_grad"):
        assert topic in doc, f"{topic!r} is not documented"


# Targets this machine cannot run, and the runtime's error channel -------------

UNAVAILABLE = r'''
import torch, xpu_opt
import xpu_opt._compile as c
def never(*a, **k):
    raise AssertionError("compiled for an unavailable target")
c.compile_mlir = never
for target, why in (("levelzero", "no Level Zero driver"),
                    ("cuda", "libcuda.so.1")):
    if target not in xpu_opt.TARGETS:
        continue
    try:
        xpu_opt.compile(torch.nn.Linear(4, 2).eval(), torch.randn(3, 4),
                        target=target)
        print("COMPILED", target)
    except xpu_opt.TargetUnavailable as e:
        line = str(e).splitlines()[0]
        print("REFUSED", target, why in line or "not built" in line, line)
print("ALIVE")
'''


@t.case("levelzero without a driver and cuda without libcuda are refused "
        "before compiling; the process lives on")
def _():
    rc, out, err = t.run_python(UNAVAILABLE)
    assert rc == 0, f"exit status {rc}\n{out}\n{err}"
    assert "ALIVE" in out and "COMPILED" not in out, out + err
    for line in out.splitlines():
        if line.startswith("REFUSED"):
            assert " True " in line, line
    return "; ".join(line for line in out.splitlines()
                     if line.startswith("REFUSED"))[:200]


CHANNEL = r'''
import ctypes, torch, xpu_opt
from xpu_opt import _targets
for name in ("levelzero", "opencl"):
    try:
        rt = _targets.runtime(name)
    except Exception as e:
        print("NORUNTIME", name, type(e).__name__)
        continue
    lib = rt.lib
    lib.mgpuModuleLoad.restype = ctypes.c_void_p
    lib.mgpuModuleLoad.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    garbage = ctypes.create_string_buffer(b"not a SPIR-V module" * 4)
    module = lib.mgpuModuleLoad(garbage, len(garbage))
    message = rt.last_error()
    print("LOAD", name, module is None, bool(message), (message or "")[:90])
    # A kernel launch on a null function: recorded, nothing run.
    lib.mgpuLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, None, None, None, 0)
    try:
        rt.check("a null launch")
        print("LAUNCH", name, "no error")
    except xpu_opt.DeviceError as e:
        print("LAUNCH", name, "DeviceError", str(e)[:90])
    # Allocation while an error is recorded: host memory, no fault.
    lib.mgpuLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, None, None, None, 0)
    ptr = lib.mgpuMemAlloc(64, None, True)
    ctypes.memset(ptr, 0, 64)
    lib.mgpuMemFree(ptr, None)
    rt.last_error()
print("ALIVE")
'''


@t.case("runtime failures are recorded, not fatal: a bad module load, a null "
        "launch; the process lives on")
def _():
    rc, out, err = t.run_python(CHANNEL)
    assert rc == 0, f"exit status {rc}\n{out}\n{err}"
    assert "ALIVE" in out, out + err
    lines = out.splitlines()
    load = [line for line in lines if line.startswith("LOAD")]
    launch = [line for line in lines if line.startswith("LAUNCH")]
    assert load and all(" True True " in line for line in load), out
    assert launch and all("DeviceError" in line for line in launch), out
    return " | ".join(load)[:200]


if TARGET != "cpu":
    @t.case(f"{TARGET} works after a recorded runtime error")
    def _():
        from xpu_opt import _targets
        rt = _targets.runtime(TARGET)
        rt.lib.mgpuLaunchKernel(None, 1, 1, 1, 1, 1, 1, 0, None, None, None,
                                0)
        model = nn.Sequential(nn.Linear(16, 8), nn.ReLU()).eval()
        fast = xpu_opt.compile(model, torch.randn(4, 16), target=TARGET)
        x = torch.randn(4, 16)
        # The earlier error is not this call's: the call runs and is right.
        t.compare(fast(x), t.reference(model, [x]), 1e-5)


t.finish()
