"""The targets xpu_opt.compile knows, and whether this build and machine
have them.

A target is an xpu-run target (a registered pipeline and, for a device, a
runtime library). A chip (`chip=` of target "cuda") is an #xpu.target
preset: chips() reads them from `xpu-opt --xpu-list-targets`, the compiler's
one table of them. Adding one is one entry here and one in
tools/xpu-run/Runner.cpp; a target whose pieces are not built, whose runtime
does not load (the CUDA runtime without the NVIDIA driver) or that finds no
device is refused with the reason before anything compiles, never emulated.
"""

import dataclasses
import functools
import json
import subprocess

from . import _paths
from ._errors import TargetUnavailable


@dataclasses.dataclass(frozen=True)
class Target:
    name: str
    runtime_library: str  # "" for the host
    description: str
    # What a machine needs for the runtime library to load.
    needs: str = ""


TARGETS = {
    "cpu": Target("cpu", "", "the host CPU (xpu-cpu-pipeline)"),
    "opencl": Target("opencl", "libxpu_opencl_runtime.so",
                     "any OpenCL 2.0 device with SVM (xpu-spirv-pipeline)",
                     "an OpenCL ICD loader (libOpenCL.so.1)"),
    "levelzero": Target("levelzero", "libxpu_levelzero_runtime.so",
                        "Intel GPUs through Level Zero (xpu-spirv-pipeline)",
                        "the Level Zero loader (libze_loader.so.1)"),
    "cuda": Target("cuda", "libxpu_cuda_runtime.so",
                   "NVIDIA GPUs through the CUDA driver (xpu-nvvm-pipeline)",
                   "the NVIDIA driver (libcuda.so.1)"),
}


def lookup(name) -> Target:
    """The target `name` if this build has its pieces (its devices are not
    looked for: see require())."""
    if not isinstance(name, str):
        hint = (f"; for torch.device('{name.type}') pass the string "
                f"'{name.type}'" if hasattr(name, "type") else "")
        raise TypeError(f"xpu_opt: target must be a string ({', '.join(map(repr, TARGETS))}), "
                        f"got {type(name).__name__} {name!r}{hint}")
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


def runtime(name):
    """The loaded runtime of device target `name` (None for the host);
    TargetUnavailable if its library does not load."""
    from ._runtime import Runtime
    target = lookup(name)
    if not target.runtime_library:
        return None
    path = _paths.runtime_dir() / target.runtime_library
    try:
        return Runtime.get(path)
    except OSError as e:
        raise TargetUnavailable(
            f"xpu_opt: target '{name}' cannot run on this machine: its "
            f"runtime {target.runtime_library} needs {target.needs} "
            f"({e})") from None


def require(name) -> Target:
    """The target `name` if this machine can run it: built, its runtime
    loads, and it finds a device. Checked before any compilation."""
    target = lookup(name)
    rt = runtime(name)
    if rt is not None:
        count, why = rt.device_count()
        if count == 0:
            raise TargetUnavailable(
                f"xpu_opt: target '{name}' cannot run on this machine: {why}")
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


@functools.lru_cache(maxsize=None)
def _presets() -> tuple:
    result = subprocess.run([str(_paths.xpu_opt()), "--xpu-list-targets"],
                            capture_output=True, text=True, check=True)
    return tuple(json.loads(line) for line in result.stdout.splitlines()
                 if line.strip())


def chips(vendor=None) -> list:
    """Names of the compiler's chip presets (of `vendor`: "intel",
    "nvidia" or "cpu"), in the compiler's order."""
    return [p["chip"] for p in _presets()
            if vendor is None or p["vendor"] == vendor]


def available_targets() -> list:
    """Names of the targets this build can compile for and this machine can
    run (a device target needs at least one device)."""
    names = []
    for name in TARGETS:
        try:
            require(name)
            names.append(name)
        except (TargetUnavailable, FileNotFoundError):
            pass
    return names
