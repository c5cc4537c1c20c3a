"""Packages: compile here, run there (the AOTInductor convention).

A module package is a directory:

  xpu_opt.json   format "xpu-opt-module", version 1: the target, chip and
                 precision, the weights (name, dtype, shape, where in
                 weights.bin) and each variant's export metadata (how the
                 flat results map back to the module's output)
  weights.bin    the weights' bytes
  v0/, v1/, ...  one package of tools/common/Package.h per compiled input
                 signature: model.so, interface.json (format
                 "xpu-opt-package", version 1), the runtime library, and on
                 OpenCL the SPIR translations of its kernels (spir/) for
                 devices without SPIR-V IL support

CompiledModule.save and Package.save (xpu_opt.build) write it; load() reads
it, or a package of xpu-compile / `xpu-run --emit-package` alone (a
function whose weights are ordinary arguments). Loading needs PyTorch and
the package only: no compiler, no subprocess, no LLVM or MLIR library, no
torch-mlir. A package for another format version, another target than the
one asked for, another CPU architecture, CPU features this machine lacks, or
a GPU it cannot run on (CUDA: the cubin's sm_XX against the device's compute
capability) is refused with the reason; a target whose driver or device
this machine lacks raises TargetUnavailable.
"""

import json
import os
import pathlib
import platform
import shutil
import tempfile
import threading

import torch

from . import _program
from ._errors import TargetUnavailable
from ._program import DTYPES, Artifact, Callable, check_inputs
from ._runtime import Runtime

MODULE_FORMAT = "xpu-opt-module"
MODULE_VERSION = 1
INTERFACE_FORMAT = "xpu-opt-package"
INTERFACE_VERSION = 1

_DTYPE_NAMES = {v: k for k, v in DTYPES.items()}
# What each runtime library needs on the machine that loads it.
_NEEDS = {"libxpu_opencl_runtime.so": "an OpenCL ICD loader and device",
          "libxpu_levelzero_runtime.so": "the Level Zero loader and driver",
          "libxpu_cuda_runtime.so": "the NVIDIA driver (libcuda.so.1)"}

# LLVM's names of the x86 features host code compiled for this CPU may use,
# and /proc/cpuinfo's names for them; features without an entry are not
# checked.
CPU_FLAGS = {
    "sse3": "pni", "ssse3": "ssse3", "sse4.1": "sse4_1", "sse4.2": "sse4_2",
    "popcnt": "popcnt", "avx": "avx", "avx2": "avx2", "fma": "fma",
    "f16c": "f16c", "bmi": "bmi1", "bmi2": "bmi2", "lzcnt": "abm",
    "movbe": "movbe", "avx512f": "avx512f", "avx512bw": "avx512bw",
    "avx512cd": "avx512cd", "avx512dq": "avx512dq", "avx512vl": "avx512vl",
    "avx512bf16": "avx512_bf16", "avx512fp16": "avx512_fp16",
    "avx512vnni": "avx512_vnni", "avx512ifma": "avx512ifma",
    "avx512vbmi": "avx512vbmi", "avx512vbmi2": "avx512_vbmi2",
    "avx512bitalg": "avx512_bitalg", "avx512vpopcntdq": "avx512_vpopcntdq",
    "avxvnni": "avx_vnni", "amx-tile": "amx_tile", "amx-bf16": "amx_bf16",
    "amx-int8": "amx_int8", "amx-fp16": "amx_fp16", "gfni": "gfni",
    "vaes": "vaes", "vpclmulqdq": "vpclmulqdq", "sha": "sha_ni",
}
_ARCHES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64",
           "arm64": "aarch64"}


class PackageError(ValueError):
    """A package this xpu_opt or this machine cannot use (format, version,
    target, CPU, chip); the message says which and what to do."""


# Saving -----------------------------------------------------------------------

def _tensor_bytes(t):
    # Through a byte view, not ctypes.string_at, whose size is a C int: a
    # weight of 2^32 bytes came out empty.
    t = t.detach().to("cpu").contiguous()
    return t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() \
        else b""


def save_module(path, target, precision, made, names, weights, runtime):
    """Writes a module package (see the top of this file) into `path`: the
    variants `made` ((export metadata, Artifact) pairs), the weights, and on
    OpenCL the SPIR translations `runtime` made. An existing package there
    is replaced; any other existing path is refused."""
    path = pathlib.Path(path)
    if not made:
        raise ValueError("xpu_opt: nothing compiled to save")
    if path.exists() and not (path / "xpu_opt.json").exists() and (
            not path.is_dir() or any(path.iterdir())):
        raise FileExistsError(f"xpu_opt: {path} exists and is not an xpu_opt "
                              "package; save into a new directory")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = pathlib.Path(tempfile.mkdtemp(dir=path.parent,
                                        prefix=f".{path.name}-"))
    try:
        variants = []
        for i, (meta, artifact) in enumerate(made):
            sub = tmp / f"v{i}"
            sub.mkdir()
            plan = artifact.plan
            for name in ["interface.json", plan["library"]] + list(
                    plan.get("libraries", [])):
                shutil.copy2(artifact.directory / name, sub / name)
            if runtime is not None and runtime.is_opencl:
                runtime.write_spir(sub / "spir")
            variants.append({"directory": sub.name, "meta": meta})
        entries, offset = [], 0
        with open(tmp / "weights.bin", "wb") as f:
            for name, w in zip(names, weights):
                data = _tensor_bytes(w)
                pad = -offset % 64
                f.write(b"\0" * pad)
                offset += pad
                f.write(data)
                entries.append({"name": name, "dtype": _DTYPE_NAMES[w.dtype],
                                "shape": list(w.shape), "offset": offset,
                                "nbytes": len(data)})
                offset += len(data)
        plan = made[0][1].plan
        manifest = {"format": MODULE_FORMAT, "version": MODULE_VERSION,
                    "target": target, "chip": plan.get("chip"),
                    "precision": precision,
                    "producer": f"xpu_opt (torch {torch.__version__}); "
                                f"{plan.get('producer', '')}",
                    "weights": entries, "variants": variants}
        (tmp / "xpu_opt.json").write_text(json.dumps(manifest, indent=1))
        tmp.chmod(0o755)
        if path.exists():
            shutil.rmtree(path)
        os.rename(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


# Checks -----------------------------------------------------------------------

def _read_json(path, what):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise PackageError(f"xpu_opt: cannot read {what} {path}: {e}") from None


def _check_interface(interface, where, target):
    """Refuses an interface this xpu_opt does not read or that is for
    another target than `target` (None: any) or another CPU."""
    if interface.get("format") != INTERFACE_FORMAT:
        raise PackageError(
            f"xpu_opt: {where} is not an xpu-opt package interface (format "
            f"{interface.get('format')!r}, expected {INTERFACE_FORMAT!r})")
    version = interface.get("version")
    if version != INTERFACE_VERSION:
        raise PackageError(
            f"xpu_opt: {where} has interface version {version}, but this "
            f"xpu_opt reads version {INTERFACE_VERSION}: build the package "
            "again with the xpu-compile or xpu_opt of this version")
    from ._targets import TARGETS
    got = interface.get("target")
    if got not in TARGETS:
        raise PackageError(f"xpu_opt: {where} is for target {got!r}, which "
                           f"this xpu_opt does not know ({', '.join(TARGETS)})")
    if target is not None and got != target:
        raise PackageError(
            f"xpu_opt: {where} was built for target '{got}' "
            f"({interface.get('chip')}), not '{target}': build it for "
            f"'{target}' (xpu-compile --target={target}, or xpu_opt.build"
            f"(..., target='{target}'))")
    host = interface.get("host", {})
    arch = _ARCHES.get(str(host.get("triple", "")).split("-")[0])
    here = _ARCHES.get(platform.machine().lower(), platform.machine())
    if arch and arch != here:
        raise PackageError(
            f"xpu_opt: {where} holds host code for {arch}, and this machine "
            f"is {here}: build it on (or for) a {here} machine")
    missing = _missing_cpu_features(host.get("features", []))
    if missing:
        raise PackageError(
            f"xpu_opt: {where} was compiled for a CPU with "
            f"{', '.join(missing)} ({host.get('cpu')}), which this CPU "
            "lacks: build it on this machine (or one like it)")


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def _missing_cpu_features(features):
    flags = _cpu_flags()
    if flags is None:
        return []
    return [f for f in features if f in CPU_FLAGS and CPU_FLAGS[f] not in flags]


def cuda_chip_runs_on(chip, binary_format, capability):
    """None if device code for `chip` ("sm_90a") in `binary_format` (bin:
    a cubin, isa: PTX the driver compiles, fatbin) runs on a GPU of compute
    capability `capability` ((9, 0)); else why not. A cubin runs on its
    major version at its minor version or later; an arch-specific one
    (sm_90a) on exactly its version; PTX on its version or any later one."""
    digits = chip[3:].rstrip("a")
    if not chip.startswith("sm_") or not digits.isdigit() or len(digits) < 2:
        return f"the package's chip {chip!r} is not an sm_XX name"
    want = (int(digits[:-1]), int(digits[-1]))
    have = tuple(capability)
    name = f"sm_{have[0]}{have[1]}"
    if chip.endswith("a"):
        ok = have == want
        rule = f"{chip} code runs only on compute capability " \
               f"{want[0]}.{want[1]}"
    elif binary_format == "isa":
        ok = have >= want
        rule = f"PTX for {chip} needs compute capability " \
               f"{want[0]}.{want[1]} or later"
    else:
        ok = have[0] == want[0] and have[1] >= want[1]
        rule = f"a cubin for {chip} runs on compute capability " \
               f"{want[0]}.{want[1]} up to {want[0]}.9"
    if ok:
        return None
    return (f"{rule}, and this GPU is {name} (compute capability "
            f"{have[0]}.{have[1]}): build it with chip={name}")


def _runtime_for(directory, interface, where):
    """The loaded runtime of a device package (None on the CPU), or
    TargetUnavailable with the reason."""
    target = interface["target"]
    libraries = [lib for lib in interface.get("libraries", [])
                 if lib.startswith("libxpu_") and lib.endswith("_runtime.so")]
    if not libraries:
        if target != "cpu":
            raise PackageError(f"xpu_opt: {where} names no runtime library "
                               f"for target '{target}'")
        return None
    lib = libraries[0]
    if not (directory / lib).exists():
        raise PackageError(f"xpu_opt: {where} lacks its runtime library {lib} "
                           "(copy the whole package directory)")
    try:
        rt = Runtime.get(directory / lib)
    except OSError as e:
        raise TargetUnavailable(
            f"xpu_opt: {where} is for target '{target}' "
            f"({interface.get('chip')}), which this machine cannot run: its "
            f"runtime {lib} needs {_NEEDS.get(lib, 'its driver')} ({e})"
        ) from None
    count, why = rt.device_count()
    if count == 0:
        raise TargetUnavailable(
            f"xpu_opt: {where} is for target '{target}' "
            f"({interface.get('chip')}), which this machine cannot run: {why}")
    return rt


def _check_cuda_chip(interface, where, device):
    reason = cuda_chip_runs_on(interface.get("chip", ""),
                               interface.get("binary_format", "bin"),
                               torch.cuda.get_device_capability(device))
    if reason:
        raise PackageError(f"xpu_opt: {where} cannot run on cuda:{device}: "
                           f"{reason}")


# Loading ----------------------------------------------------------------------

def _function_meta(plan):
    """The export metadata of a function package: every argument is an
    input, the results come back as one tensor or a tuple."""
    n = len(plan["results"])
    spec = torch.utils._pytree.tree_flatten(
        tuple(range(n)) if n != 1 else 0)[1]
    return {"num_inputs": len(plan["inputs"]), "weights": [],
            "num_results": n, "mutations": [],
            "leaves": [{"result": k, "alias": None} for k in range(n)],
            "tree": torch.utils._pytree.treespec_dumps(spec),
            "eager": [[str(DTYPES[r["dtype"]]).replace("torch.", ""),
                       list(r["shape"])] for r in plan["results"]]}


class LoadedModule(Callable):
    """A package loaded into this process: call it like the module it was
    compiled from (or, for a package of xpu-compile, with every argument of
    the function, weights included). Its weights are its own (the
    freeze=True contract); inputs of a shape no variant was compiled for
    are refused."""

    def __init__(self, path, target, chip, entries, names, weights, runtime,
                 device):
        self.path = path
        self.target = target
        self.chip = chip
        self._entries = entries      # (meta, Artifact) per variant
        self._names = names
        self._weights_host = weights  # CPU tensors (None: a function package)
        self._weights = None          # on the target's device
        self._runtime = runtime
        self._device = device
        self._lock = threading.RLock()
        self._variants = [
            _program._Variant(_program._Program(a, runtime, target, device),
                              meta, target) for meta, a in entries]

    @property
    def interface(self):
        """The interface.json of the first variant."""
        return self._entries[0][1].plan

    @property
    def weights(self):
        """(names, tensors) of the package's weights."""
        return self._names, list(self._device_weights())

    def _device_weights(self):
        if self._weights is None:
            if self._weights_host is None:
                self._weights = []
            elif self.target == "cuda":
                self._weights = [w.to(torch.device("cuda", self._device))
                                 for w in self._weights_host]
            else:
                self._weights = list(self._weights_host)
        return self._weights

    def variant(self, inputs):
        signature = tuple((tuple(t.shape), t.dtype) for t in inputs)
        for v in self._variants:
            if v.signature() == signature:
                return v
        # A variant with dynamic dimensions takes any size in them.
        for v in self._variants:
            if v.dynamic and v.accepts(signature):
                return v
        known = "; ".join(", ".join(f"{str(d).replace('torch.', '')}"
                                    f"{['?' if n is None else n for n in s]}"
                                    for s, d in v.signature())
                          for v in self._variants)
        got = ", ".join(f"{str(d).replace('torch.', '')}{list(s)}"
                        for s, d in signature)
        raise ValueError(f"xpu_opt: {self.path} was compiled for inputs "
                         f"({known}), not ({got}): compile the module for "
                         "these shapes and save it again")

    def __call__(self, *inputs, **kwargs):
        if kwargs:
            raise TypeError("xpu_opt: a loaded package takes its inputs "
                            "positionally, got keyword arguments "
                            + ", ".join(kwargs))
        check_inputs(inputs, self.target)
        with self._lock:
            v = self.variant(inputs)
            if self.target == "cuda" and inputs:
                device = _program.cuda_device_of(inputs)
                if device != self._device:
                    raise ValueError(
                        f"xpu_opt: {self.path} was loaded for cuda:"
                        f"{self._device}, and the inputs are on cuda:{device} "
                        f"(load it with device={device})")
            weights = self._device_weights()
            generation = 1 if self._weights_host is not None else None
            results = v.run(list(inputs) + weights, generation)
            return self._outputs(v, list(inputs) + weights, results)


def _load_variant(directory, target, where_prefix):
    where = f"{where_prefix}{directory}"
    interface = _read_json(directory / "interface.json", "the interface")
    _check_interface(interface, where, target)
    library = directory / interface.get("library", "model.so")
    if not library.exists():
        raise PackageError(f"xpu_opt: {where} lacks its library "
                           f"{library.name}")
    return interface, Artifact(library, interface, directory)


def load(path, target=None, device=None):
    """Loads a package (saved by CompiledModule.save or Package.save, or
    written by xpu-compile) and returns its callable. Needs neither the
    compiler nor torch-mlir: it starts no process and maps no LLVM or MLIR
    library.

      path: the package directory.
      target: refuse a package built for another target (default: any).
      device: CUDA only, the device index to run on (default: the current
        one).

    Refused with PackageError, saying why: another format or interface
    version, another target than `target`, host code for another CPU
    architecture or for CPU features this machine lacks, CUDA code for
    another compute capability. TargetUnavailable: the package's runtime
    library does not load here (no driver) or finds no device.

    A module package's callable takes the module's inputs (its weights are
    in the package: freeze=True's contract) and returns the module's output
    structure; a function package's takes every argument of the function in
    order (inputs and weights, which are compared with what was packed at
    each call, as with freeze=False) and returns its results.
    """
    path = pathlib.Path(path)
    manifest_path = path / "xpu_opt.json"
    if not manifest_path.exists():
        if (path / "interface.json").exists():
            interface, artifact = _load_variant(path, target, "")
            rt = _runtime_for(path, interface, str(path))
            device = _cuda_device(interface, str(path), device)
            return LoadedModule(path, interface["target"],
                                interface.get("chip"),
                                [(_function_meta(interface), artifact)], [],
                                None, rt, device)
        raise FileNotFoundError(
            f"xpu_opt: {path} is not a package (it has neither xpu_opt.json "
            "nor interface.json)")
    manifest = _read_json(manifest_path, "the package manifest")
    if manifest.get("format") != MODULE_FORMAT:
        raise PackageError(f"xpu_opt: {manifest_path} is not an xpu_opt "
                           f"module package (format "
                           f"{manifest.get('format')!r})")
    if manifest.get("version") != MODULE_VERSION:
        raise PackageError(
            f"xpu_opt: {path} is a package of version "
            f"{manifest.get('version')}, but this xpu_opt reads version "
            f"{MODULE_VERSION}: save it again with this version of xpu_opt")
    entries, rt = [], None
    for variant in manifest["variants"]:
        interface, artifact = _load_variant(path / variant["directory"],
                                            target, "")
        if interface["target"] != manifest["target"]:
            raise PackageError(f"xpu_opt: {path}: variant "
                               f"{variant['directory']} is for another target")
        entries.append((variant["meta"], artifact))
    first = entries[0][1]
    rt = _runtime_for(first.directory, first.plan, str(path))
    device = _cuda_device(first.plan, str(path), device)
    data = (path / "weights.bin").read_bytes()
    names, weights = [], []
    for w in manifest["weights"]:
        raw = data[w["offset"]:w["offset"] + w["nbytes"]]
        dtype = DTYPES[w["dtype"]]
        t = (torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dtype)
             if raw else torch.empty(0, dtype=dtype))
        names.append(w["name"])
        weights.append(t.reshape(w["shape"]))
    return LoadedModule(path, manifest["target"], manifest.get("chip"),
                        entries, names, weights, rt, device)


def _cuda_device(interface, where, device):
    """The CUDA device to run on, its chip checked (None off CUDA)."""
    if interface["target"] != "cuda":
        if device is not None:
            raise ValueError("xpu_opt: device= is for CUDA packages")
        return None
    if device is None:
        device = torch.cuda.current_device()
    _check_cuda_chip(interface, where, device)
    return device
