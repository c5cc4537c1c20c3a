"""xpu_opt: PyTorch modules compiled by xpu-opt.

    import torch, xpu_opt
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU())
    model.eval()
    x = torch.randn(16, 64)
    fast = xpu_opt.compile(model, (x,), target="cpu")   # or "opencl", ...
    y = fast(x)                                          # torch tensors
    text = xpu_opt.export(model, (x,))                   # the .mlir xpu-opt reads

help(xpu_opt.compile) states the contract (weights, semantics, threads,
cache); docs/Tutorial.md walks through it.
"""

from ._compile import (Artifact, CompiledModule, compile, compile_mlir)
from ._errors import (CompileError, DeviceError, TargetUnavailable,
                      UnsupportedOperationError)
from ._export import export
from ._targets import TARGETS, available_targets, devices

__all__ = [
    "Artifact", "CompileError", "CompiledModule", "DeviceError", "TARGETS",
    "TargetUnavailable", "UnsupportedOperationError", "available_targets",
    "compile", "compile_mlir", "devices", "export",
]
