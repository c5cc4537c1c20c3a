"""xpu_opt: PyTorch modules compiled by xpu-opt.

    import torch, xpu_opt
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU())
    model.eval()
    x = torch.randn(16, 64)
    fast = xpu_opt.compile(model, (x,), target="cpu")   # or "opencl", ...
    y = fast(x)                                          # torch tensors
    fast.save("model.xpu")              # a package: runs elsewhere with
    fast = xpu_opt.load("model.xpu")    # no compiler (load needs PyTorch)
    pkg = xpu_opt.build(model, (x,), target="cuda", chip="sm_90a")
    pkg.save("model.cuda")              # built here, run on the GPU machine
    text = xpu_opt.export(model, (x,))                   # the .mlir xpu-opt reads
    db = xpu_opt.tune(text, target="opencl", max_trials=10)  # docs/Tuning.md
    fast = torch.compile(model, backend="xpu_opt")      # GEMM partitions
    print(xpu_opt.report())             # what compiled, what fell back
    xpu_opt.optimize(model, (x,))       # nn.Linear (+ activation) in place
    with xpu_opt.profile("trace.json"): # a Chrome/Perfetto trace
        fast(x)

help(xpu_opt.compile) states the contract (weights, semantics, threads,
cache), help(xpu_opt.load) the packages'; docs/Tutorial.md walks through
both. Loading imports neither torch-mlir nor the compiler.
"""

# The running half is imported now; the compiling half (torch.export,
# torch-mlir, the build tree) only when used, so that `import xpu_opt` and
# xpu_opt.load work where there is PyTorch and nothing else.
from ._errors import (CompileError, DeviceError, TargetUnavailable,
                      UnsupportedOperationError)
from ._package import LoadedModule, PackageError, load
from ._program import Artifact
from ._report import report
from ._targets import TARGETS, available_targets, chips, devices
from ._trace import profile

_COMPILING = {"CompiledModule": "_compile", "Package": "_compile",
              "build": "_compile", "compile": "_compile",
              "compile_mlir": "_compile", "export": "_export",
              "tune": "_tune", "dynamo_backend": "_dynamo",
              "optimize": "_optimize"}


def __getattr__(name):
    if name in _COMPILING:
        import importlib
        module = importlib.import_module(f".{_COMPILING[name]}", __name__)
        value = getattr(module, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'xpu_opt' has no attribute {name!r}")


# torch.compile(model, backend="xpu_opt") works after `import xpu_opt` (and,
# through the package's torch_dynamo_backends entry point, without it).
from . import _dynamo  # noqa: E402

_dynamo.register()


__all__ = [
    "Artifact", "CompileError", "CompiledModule", "DeviceError",
    "LoadedModule", "Package", "PackageError", "TARGETS",
    "TargetUnavailable", "UnsupportedOperationError", "available_targets",
    "build", "chips", "compile", "compile_mlir", "devices", "dynamo_backend",
    "export", "load", "optimize", "profile", "report", "tune",
]
