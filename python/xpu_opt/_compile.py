"""xpu_opt.compile: a PyTorch module as a compiled, callable program.

How a call runs: the module is exported with torch-mlir (weights as marked
arguments, shapes of the inputs seen), `xpu-run --emit-object` compiles it
for the target into a relocatable object with C entry points and a JSON plan
(which arguments feed the weight-packing part `forward.pack`), the object is
linked into a shared library, and ctypes calls it. Inputs and outputs are
torch tensors: on the CPU the library reads and writes them in place; on a
device the runtime's shared (SVM/USM) buffers hold them. The packed weights
are computed once per weight set (a parameter that changes in place, or a
new parameter, repacks) and kept on the device. Compiled libraries are
cached on disk by the hash of the MLIR text and the options.
"""

import ctypes
import hashlib
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import tempfile
import time

import torch

from . import _export, _paths, _targets

_DTYPES = {
    "f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
    "bf16": torch.bfloat16, "i1": torch.bool, "i8": torch.int8,
    "i16": torch.int16, "i32": torch.int32, "i64": torch.int64,
}
_PRECISIONS = {torch.float32: "f32", torch.float64: "f64",
               torch.float16: "f16", torch.bfloat16: "bf16"}
_SCALAR_CTYPES = {
    "f32": ctypes.c_float, "f64": ctypes.c_double, "f16": ctypes.c_uint16,
    "bf16": ctypes.c_uint16, "i1": ctypes.c_bool, "i8": ctypes.c_int8,
    "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
}


class CompileError(RuntimeError):
    """xpu-run or the linker refused the module; the message says why."""


_descriptor_types = {}


def _descriptor_type(rank):
    """The memref descriptor of the given rank, as the C interface has it."""
    if rank not in _descriptor_types:
        class Descriptor(ctypes.Structure):
            _fields_ = [("allocated", ctypes.c_void_p),
                        ("aligned", ctypes.c_void_p),
                        ("offset", ctypes.c_int64),
                        ("sizes", ctypes.c_int64 * rank),
                        ("strides", ctypes.c_int64 * rank)]
        _descriptor_types[rank] = Descriptor
    return _descriptor_types[rank]


def _descriptor(ptr, shape):
    d = _descriptor_type(len(shape))()
    d.allocated = d.aligned = ptr
    d.offset = 0
    stride = 1
    for i in reversed(range(len(shape))):
        d.sizes[i] = shape[i]
        d.strides[i] = stride
        stride *= shape[i]
    return d


class _XPUKernelProfile(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("launches", ctypes.c_uint64),
                ("deviceNanoseconds", ctypes.c_int64)]


class _Runtime:
    """The device runtime library: shared buffers and kernel profiling."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(str(path))
        self.lib.mgpuMemAlloc.restype = ctypes.c_void_p
        self.lib.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p,
                                          ctypes.c_bool]
        self.lib.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        self.lib.xpuRuntimeProfileStop.restype = ctypes.c_int
        self.lib.xpuRuntimeProfileStop.argtypes = [
            ctypes.POINTER(_XPUKernelProfile), ctypes.c_int]

    def alloc(self, nbytes):
        return self.lib.mgpuMemAlloc(max(nbytes, 1), None, True)

    def free(self, ptr):
        self.lib.mgpuMemFree(ptr, None)

    def profile_start(self):
        self.lib.xpuRuntimeProfileStart()

    def profile_stop(self):
        entries = (_XPUKernelProfile * 4096)()
        n = self.lib.xpuRuntimeProfileStop(entries, len(entries))
        return [(entries[i].name.decode(), entries[i].launches,
                 entries[i].deviceNanoseconds) for i in range(min(n, 4096))]


class _DeviceBuffer:
    """A shared buffer of the device runtime, with its descriptor."""

    def __init__(self, runtime, shape, dtype):
        self.runtime = runtime
        self.shape = tuple(shape)
        self.dtype = dtype
        self.nbytes = torch.Size(shape).numel() * torch.empty(
            (), dtype=dtype).element_size()
        self.ptr = runtime.alloc(self.nbytes)
        self.desc = _descriptor(self.ptr, self.shape)

    def write(self, tensor):
        tensor = tensor.detach().contiguous()
        ctypes.memmove(self.ptr, tensor.data_ptr(), self.nbytes)

    def read(self):
        out = torch.empty(self.shape, dtype=self.dtype)
        ctypes.memmove(out.data_ptr(), self.ptr, self.nbytes)
        return out

    def __del__(self):
        try:
            self.runtime.free(self.ptr)
        except Exception:  # interpreter shutdown
            pass


def _run(cmd, what):
    result = subprocess.run(cmd, capture_output=True, text=True)
    if result.returncode != 0:
        raise CompileError(f"xpu_opt: {what} failed (exit {result.returncode})"
                           f":\n{result.stderr.strip()}\n  command: "
                           + " ".join(str(c) for c in cmd))
    return result


def _linker():
    for name in (os.environ.get("CXX", ""), "c++", "g++", "clang++", "cc"):
        if name and shutil.which(name):
            return name
    raise CompileError("xpu_opt: no C++ compiler (c++, g++) to link the "
                       "compiled object into a shared library")


def compile_mlir(mlir_text, target="cpu", precision="f32", optimize=True,
                 pipeline_options="", extra_args=(), function="forward"):
    """Compiles MLIR text with xpu-run; returns (shared library path, plan)."""
    t = _targets.lookup(target)
    xpu_run = _paths.xpu_run()
    options = pipeline_options if optimize else (
        pipeline_options + " optimize=false").strip()
    args = [f"--target={target}", f"--function={function}",
            f"--precision={precision}", "--progress=false"]
    if options:
        args.append(f"--xpu-pipeline-options={options}")
    args += list(extra_args)
    key = hashlib.sha256("\0".join(
        [mlir_text, str(xpu_run.stat().st_mtime_ns)] + args).encode())
    out = _paths.cache_dir() / key.hexdigest()[:24]
    lib, plan_path = out / "model.so", out / "plan.json"
    if lib.exists() and plan_path.exists():
        return lib, json.loads(plan_path.read_text())
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "model.mlir").write_text(mlir_text)
        _run([str(xpu_run), str(tmp / "model.mlir")] + args +
             [f"--emit-object={tmp / 'model.o'}",
              f"--emit-plan={tmp / 'plan.json'}"], "xpu-run")
        runtime_dir = _paths.runtime_dir()
        mlir_dir = _paths.mlir_lib_dir()
        link = [_linker(), "-shared", "-o", str(tmp / "model.so"),
                str(tmp / "model.o")]
        if t.runtime_library:
            link += [str(runtime_dir / t.runtime_library),
                     f"-Wl,-rpath,{runtime_dir}"]
        link += [str(mlir_dir / "libmlir_c_runner_utils.so"),
                 f"-Wl,-rpath,{mlir_dir}", "-lm"]
        _run(link, "linking the compiled module")
        (tmp / "model.mlir").replace(out / "model.mlir")
        (tmp / "plan.json").replace(plan_path)
        (tmp / "model.so").replace(lib)
    return lib, json.loads(plan_path.read_text())


class _Variant:
    """The module compiled for one set of input shapes and dtypes."""

    def __init__(self, lib_path, plan, target, num_inputs):
        self.plan = plan
        self.target = _targets.lookup(target)
        self.num_inputs = num_inputs
        self.runtime = (_Runtime(_paths.runtime_dir() /
                                 self.target.runtime_library)
                        if self.target.runtime_library else None)
        self.lib = ctypes.CDLL(str(lib_path))
        self.entry = self._function(plan["entry"])
        self.pack = plan.get("pack")
        if self.pack:
            self.pack_entry = self._function(self.pack["entry"])
            self.packed_entry = self._function(self.pack["packed_entry"])
        self.packed_key = None
        self.packed = []       # packed weights (tensors or device buffers)
        self.arg_buffers = {}  # device: argument index -> buffer
        self.arg_keys = {}     # device: weight argument index -> identity

    def _function(self, name):
        f = self.lib[name]
        f.restype = None
        return f

    # Arguments ------------------------------------------------------------

    def _check(self, i, tensor):
        spec = self.plan["inputs"][i]
        dtype = _DTYPES[spec["dtype"]]
        if tuple(tensor.shape) != tuple(spec["shape"]):
            raise ValueError(f"xpu_opt: argument #{i} has shape "
                             f"{tuple(tensor.shape)}, compiled for "
                             f"{tuple(spec['shape'])}")
        return tensor.detach().to(dtype).contiguous()

    def _host_arg(self, i, tensor, keep):
        """A C argument for argument i on the host (tensor kept alive)."""
        spec = self.plan["inputs"][i]
        tensor = self._check(i, tensor)
        keep.append(tensor)
        if spec.get("scalar"):
            return _SCALAR_CTYPES[spec["dtype"]](tensor.item())
        d = _descriptor(tensor.data_ptr(), tensor.shape)
        keep.append(d)
        return ctypes.byref(d)

    def _device_arg(self, i, tensor, is_weight):
        spec = self.plan["inputs"][i]
        if spec.get("scalar"):
            return _SCALAR_CTYPES[spec["dtype"]](
                self._check(i, tensor).item())
        buf = self.arg_buffers.get(i)
        if buf is None:
            buf = _DeviceBuffer(self.runtime, spec["shape"],
                                _DTYPES[spec["dtype"]])
            self.arg_buffers[i] = buf
        key = (tensor.data_ptr(), tensor._version)
        if not is_weight or self.arg_keys.get(i) != key:
            buf.write(self._check(i, tensor))
            if is_weight:
                self.arg_keys[i] = key
        return ctypes.byref(buf.desc)

    def _new_output(self, spec, keep):
        dtype = _DTYPES[spec["dtype"]]
        if self.runtime:
            buf = _DeviceBuffer(self.runtime, spec["shape"], dtype)
            keep.append(buf)
            return buf, ctypes.byref(buf.desc)
        t = torch.empty(spec["shape"], dtype=dtype)
        d = _descriptor(t.data_ptr(), t.shape)
        keep.append(d)
        return t, ctypes.byref(d)

    # Calls ----------------------------------------------------------------

    def __call__(self, args):
        keep = []
        if self.runtime:
            c_args = [self._device_arg(i, a, i >= self.num_inputs)
                      for i, a in enumerate(args)]
        else:
            c_args = [self._host_arg(i, a, keep) for i, a in enumerate(args)]
        if self.pack:
            weights = args[self.num_inputs:]
            key = tuple((w.data_ptr(), w._version) for w in weights)
            if key != self.packed_key:
                self.packed = []
                outs = []
                for spec in self.pack["results"]:
                    buf, ref = self._new_output(spec, [])
                    self.packed.append((buf, ref))
                    outs.append(ref)
                ops = [c_args[o["index"]] for o in self.pack["operands"]]
                self.pack_entry(*ops, *outs)
                self.packed_key = key
            ops = [self.packed[o["index"]][1] if o["from"] == "pack"
                   else c_args[o["index"]]
                   for o in self.pack["packed_operands"]]
            entry = self.packed_entry
        else:
            ops = c_args
            entry = self.entry
        if self.runtime:
            # Device result buffers are reused; read() copies them out.
            if not hasattr(self, "out_buffers"):
                self.out_buffers = [self._new_output(spec, [])
                                    for spec in self.plan["results"]]
            results = self.out_buffers
        else:
            results = [self._new_output(spec, keep)
                       for spec in self.plan["results"]]
        entry(*ops, *[ref for _, ref in results])
        out = [r.read() if self.runtime else r for r, _ in results]
        return out[0] if len(out) == 1 else tuple(out)


class CompiledModule:
    """A module compiled by xpu-opt for a target; call it like the module.

    Inputs of new shapes or dtypes compile a new variant (specialization on
    the shapes seen); the weights are the module's parameters and buffers at
    call time, packed once per weight set.
    """

    def __init__(self, module, target, precision, optimize, pipeline_options,
                 extra_args):
        self.module = module.eval()
        self.target = target
        self.precision = precision
        self.optimize = optimize
        self.pipeline_options = pipeline_options
        self.extra_args = tuple(extra_args)
        self._variants = {}
        self.mlir = None  # the MLIR text of the last variant compiled

    def _key(self, inputs):
        return tuple((tuple(t.shape), t.dtype) for t in inputs)

    def variant(self, inputs):
        key = self._key(inputs)
        v = self._variants.get(key)
        if v is None:
            text = _export.export(self.module, tuple(inputs))
            lib, plan = compile_mlir(text, self.target, self.precision,
                                     self.optimize, self.pipeline_options,
                                     self.extra_args)
            v = _Variant(lib, plan, self.target, len(inputs))
            self._variants[key] = v
            self.mlir = text
        return v

    @property
    def packs_weights(self):
        """True if the compiled program has a weight-packing part."""
        return any(v.pack for v in self._variants.values())

    def __call__(self, *inputs):
        _, weights = _export.weights_of(self.module)
        v = self.variant(inputs)
        with torch.no_grad():
            return v(list(inputs) + list(weights))

    def benchmark(self, *inputs, repeat=20, warmup=2):
        """Times `repeat` calls after `warmup` ones: wall time per call (s)
        and, on a device, each kernel's launches and device time (ns)."""
        for _ in range(warmup):
            self(*inputs)
        v = self.variant(inputs)
        if v.runtime:
            v.runtime.profile_start()
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            self(*inputs)
            times.append(time.perf_counter() - start)
        kernels = v.runtime.profile_stop() if v.runtime else []
        return {"min": min(times), "median": statistics.median(times),
                "mean": statistics.fmean(times), "calls": repeat,
                "kernels": kernels}


def _default_precision(module, inputs):
    for t in list(module.parameters()) + list(module.buffers()) + list(inputs):
        if t.dtype in _PRECISIONS:
            return _PRECISIONS[t.dtype]
    return "f32"


def compile(module, example_inputs, target="cpu", precision=None,
            optimize=True, pipeline_options="", extra_args=()):
    """Compiles `module` for `target` ("cpu", "opencl", "levelzero", "cuda").

    `precision` is the GEMMs' precision: by default the model's own dtype
    (an f64 model stays f64); "f32", "f64", "bf16" or "f16". Returns a
    callable that takes and returns torch tensors. The example inputs are
    compiled for at once, so errors show here.
    """
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    _targets.lookup(target)
    if precision is None:
        precision = _default_precision(module, example_inputs)
    if precision not in ("f32", "f64", "bf16", "f16"):
        raise ValueError(f"xpu_opt: precision must be f32, f64, bf16 or f16, "
                         f"got '{precision}'")
    compiled = CompiledModule(module, target, precision, optimize,
                              pipeline_options, extra_args)
    compiled.variant(tuple(example_inputs))
    return compiled
