"""The targets xpu_opt.compile knows, and whether this build has them.

A target is an xpu-run target (a registered pipeline and, for a device, a
runtime library). Adding one is one entry here and one in
tools/xpu-run/Runner.cpp; a target whose pieces are not built is refused with
the reason, never emulated.
"""

import dataclasses
import subprocess

from . import _paths


class TargetUnavailable(RuntimeError):
    """The target exists but this build or machine cannot run it."""


@dataclasses.dataclass(frozen=True)
class Target:
    name: str
    runtime_library: str  # "" for the host
    description: str


TARGETS = {
    "cpu": Target("cpu", "", "the host CPU (xpu-cpu-pipeline)"),
    "opencl": Target("opencl", "libxpu_opencl_runtime.so",
                     "any OpenCL 2.0 device with SVM (xpu-spirv-pipeline)"),
    "levelzero": Target("levelzero", "libxpu_levelzero_runtime.so",
                        "Intel GPUs through Level Zero (xpu-spirv-pipeline)"),
    "cuda": Target("cuda", "libxpu_cuda_runtime.so",
                   "NVIDIA GPUs through the CUDA driver (xpu-nvvm-pipeline)"),
}


def lookup(name: str) -> Target:
    if name not in TARGETS:
        raise ValueError(f"xpu_opt: unknown target '{name}' "
                         f"(known: {', '.join(TARGETS)})")
    target = TARGETS[name]
    if target.runtime_library and not (
            _paths.runtime_dir() / target.runtime_library).exists():
        raise TargetUnavailable(
            f"xpu_opt: target '{name}' is not available in this build: "
            f"{target.runtime_library} was not built")
    return target


def devices(name: str) -> list:
    """The devices xpu-run lists for a device target ([] if none)."""
    target = lookup(name)
    if not target.runtime_library:
        return ["host CPU"]
    result = subprocess.run([str(_paths.xpu_run()), f"--target={name}",
                             "--xpu-list-devices"], capture_output=True,
                            text=True)
    if result.returncode != 0:
        return []
    return [line for line in result.stdout.splitlines() if ": device " in line]


def available_targets() -> list:
    """Names of the targets this build can compile for and this machine can
    run (a device target needs at least one device)."""
    names = []
    for name in TARGETS:
        try:
            if devices(name):
                names.append(name)
        except (TargetUnavailable, FileNotFoundError):
            pass
    return names
