"""xpu_opt: PyTorch modules compiled by xpu-opt.

    import torch, xpu_opt
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU())
    x = torch.randn(16, 64)
    fast = xpu_opt.compile(model, (x,), target="cpu")   # or "opencl", ...
    y = fast(x)                                          # torch tensors
    text = xpu_opt.export(model, (x,))                   # the .mlir xpu-opt reads

See docs/Tutorial.md.
"""

from ._compile import CompileError, CompiledModule, compile, compile_mlir
from ._export import export
from ._targets import TARGETS, TargetUnavailable, available_targets, devices

__all__ = [
    "CompileError", "CompiledModule", "TARGETS", "TargetUnavailable",
    "available_targets", "compile", "compile_mlir", "devices", "export",
]
