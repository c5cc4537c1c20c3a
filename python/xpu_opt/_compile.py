"""xpu_opt.compile: a PyTorch module as a compiled, callable program.

Two halves, kept apart:

* compiling: the module is exported with torch-mlir (_export: weights as
  marked arguments, the input shapes seen) and `xpu-run --emit-object`
  compiles the MLIR for the target into a relocatable object with C entry
  points and a JSON plan (the interface: argument and result types, and
  which arguments feed the weight-packing part `forward.pack`); the object
  is linked into a shared library. compile_mlir() returns that Artifact.
  Both the export and the library are cached on disk (_cache).
* running: a _Program is an Artifact loaded into this process and bound to
  its target's runtime; a _Variant calls it with torch tensors, packs the
  weights when the pack operands change, and keeps the device buffers.

CompiledModule specializes on the shapes and dtypes of the inputs (one
variant each) and maps the flat results back to the module's output.
"""

import ctypes
import hashlib
import json
import os
import pathlib
import shlex
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import typing

import torch

from . import _cache, _export, _paths, _targets
from ._errors import CompileError
from ._runtime import DeviceBuffer

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


_libc = ctypes.CDLL(None)
_memcmp = _libc.memcmp
_memcmp.restype = ctypes.c_int
_memcmp.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]


def _same_bytes(a, b):
    """True if two contiguous CPU tensors of one shape and dtype hold the
    same bytes (NaNs included, which torch.equal calls different). This runs
    on every call for every weight that was packed: memcmp, not a torch op
    (a few microseconds less each)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    n = a.numel() * a.element_size()
    return n == 0 or _memcmp(a.data_ptr(), b.data_ptr(), n) == 0


# Compiling ------------------------------------------------------------------

class Artifact(typing.NamedTuple):
    """A compiled module: its shared library and its plan (interface)."""
    library: pathlib.Path
    plan: dict


def _linker():
    for name in (os.environ.get("CXX", ""), "c++", "g++", "clang++", "cc"):
        if name and shutil.which(name):
            return name
    raise CompileError("xpu_opt: no C++ compiler (c++, g++) to link the "
                       "compiled object into a shared library")


def _tool_failed(what, result, tmp, kept, repeat):
    """CompileError for a failed tool run: the first line is the tool's
    first error (temporary paths replaced by the kept input), then its whole
    output and a command that repeats the failure."""
    text = (result.stderr or "").replace(str(tmp / "model.mlir"),
                                         str(kept)).replace(str(tmp), "<tmp>")
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if result.returncode < 0:
        first = f"{what} crashed (signal {-result.returncode})"
    else:
        first = next((line for line in lines if "error:" in line),
                     lines[0] if lines else f"{what} failed")
    message = f"xpu_opt: {first.strip()}"
    details = [line for line in lines if line != first]
    if details:
        message += "\n" + "\n".join("  " + line for line in details)
    message += f"\n  to repeat it: {repeat}"
    return CompileError(message)


def compile_mlir(mlir_text, target="cpu", precision="f32", optimize=True,
                 pipeline_options="", extra_args=(), function="forward"):
    """Compiles MLIR text with xpu-run into a shared library; returns the
    Artifact (library path, plan), cached by the text, the options and the
    tools."""
    t = _targets.lookup(target)
    xpu_run = _paths.xpu_run()
    options = pipeline_options if optimize else (
        pipeline_options + " optimize=false").strip()
    args = [f"--target={target}", f"--function={function}",
            f"--precision={precision}", "--progress=false"]
    if options:
        args.append(f"--xpu-pipeline-options={options}")
    args += list(extra_args)
    runtime = (_paths.runtime_dir() / t.runtime_library
               if t.runtime_library else None)
    tools = [xpu_run] + ([runtime] if runtime else [])
    stamps = [f"{p}:{p.stat().st_mtime_ns}:{p.stat().st_size}" for p in tools]
    key = hashlib.sha256("\0".join([mlir_text] + stamps + args)
                         .encode()).hexdigest()[:32]
    names = ["model.so", "plan.json"]
    hit = _cache.lookup("lib", key, names)
    if hit:
        return Artifact(hit["model.so"], json.loads(hit["plan.json"]
                                                    .read_text()))
    with tempfile.TemporaryDirectory(prefix="xpu_opt-") as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "model.mlir").write_text(mlir_text)
        cmd = [str(xpu_run), str(tmp / "model.mlir")] + args + [
            f"--emit-object={tmp / 'model.o'}",
            f"--emit-plan={tmp / 'plan.json'}"]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            kept = _cache.scratch("failed", key) / "model.mlir"
            kept.write_text(mlir_text)
            repeat = " ".join(shlex.quote(str(c)) for c in
                              [xpu_run, kept] + args)
            raise _tool_failed("xpu-run", result, tmp, kept, repeat)
        link = [_linker(), "-shared", "-o", str(tmp / "model.so"),
                str(tmp / "model.o")]
        if runtime:
            link += [str(runtime), f"-Wl,-rpath,{runtime.parent}"]
        mlir_dir = _paths.mlir_lib_dir()
        link += [str(mlir_dir / "libmlir_c_runner_utils.so"),
                 f"-Wl,-rpath,{mlir_dir}", "-lm"]
        result = subprocess.run(link, capture_output=True, text=True)
        if result.returncode != 0:
            raise CompileError(
                "xpu_opt: linking the compiled module failed: "
                + (result.stderr.strip().splitlines() or ["no message"])[0]
                + "\n" + result.stderr.strip())
        plan_text = (tmp / "plan.json").read_text()
        stored = _cache.store("lib", key, {"model.so": tmp / "model.so",
                                           "plan.json": plan_text,
                                           "model.mlir": mlir_text})
    return Artifact(stored["model.so"], json.loads(plan_text))


# Running --------------------------------------------------------------------

class _Program:
    """An Artifact loaded into this process, bound to its target's runtime:
    the plan's entry points, called with C arguments. The caller holds the
    runtime's lock around a call and its check()."""

    def __init__(self, artifact, target):
        self.plan = artifact.plan
        self.runtime = _targets.runtime(target)
        if self.runtime:
            with self.runtime.lock:
                self.runtime.last_error()
                # Loading runs the global constructors: kernel modules load.
                self.lib = ctypes.CDLL(str(artifact.library))
                self.runtime.check(f"loading the kernels on {target}")
        else:
            self.lib = ctypes.CDLL(str(artifact.library))
        pack = self.plan.get("pack")
        self.entry = self._function(self.plan["entry"])
        self.pack_entry = self._function(pack["entry"]) if pack else None
        self.packed_entry = (self._function(pack["packed_entry"])
                             if pack else None)

    def _function(self, name):
        f = self.lib[name]
        f.restype = None
        return f

    def call(self, function, args, what):
        function(*args)
        if self.runtime:
            self.runtime.check(what)


class _Variant:
    """The module compiled for one set of input shapes and dtypes: calls
    the program, packs the weights once per weight set, keeps device
    buffers.

    Packing: `forward.pack` runs again whenever one of its operands (the
    plan's list) differs from what it last packed, byte for byte (live
    weights), or when the frozen weights were refreshed (freeze=True)."""

    def __init__(self, program, meta, target):
        self.program = program
        self.plan = program.plan
        self.meta = meta
        self.target = target
        self.num_inputs = meta["num_inputs"]
        self.tree = torch.utils._pytree.treespec_loads(meta["tree"])
        self.pack = self.plan.get("pack")
        self.pack_args = ([o["index"] for o in self.pack["operands"]
                           if o["from"] == "arg"] if self.pack else [])
        self.packed = None      # pack's results (tensors or buffers)
        self.force_pack = False  # refresh(): pack at the next call
        self.pack_count = 0     # how many times pack ran
        self.snapshots = {}     # host: pack operand index -> bytes packed
        self.generation = None  # frozen weights' generation last packed
        self.buffers = {}       # device: argument index -> buffer
        self.outputs = None     # device: result buffers
        self._check_plan()

    def _check_plan(self):
        inputs, results = self.plan["inputs"], self.plan["results"]
        expected = self.num_inputs + len(self.meta["weights"])
        if len(inputs) != expected or len(results) != self.meta[
                "num_results"]:
            raise CompileError(
                f"xpu_opt: the compiled @forward takes {len(inputs)} "
                f"arguments and returns {len(results)} results, but the "
                f"export has {expected} and {self.meta['num_results']}")
        tensors = [leaf for leaf in self.meta["leaves"] if "result" in leaf]
        for j, (leaf, (dtype, shape)) in enumerate(zip(tensors,
                                                       self.meta["eager"])):
            spec = results[leaf["result"]]
            got = str(_DTYPES[spec["dtype"]]).replace("torch.", "")
            if got != dtype or list(spec["shape"]) != list(shape):
                raise CompileError(
                    f"xpu_opt: output tensor #{j} would be {got} "
                    f"{tuple(spec['shape'])} where PyTorch returns {dtype} "
                    f"{tuple(shape)}")

    # Arguments ------------------------------------------------------------

    def _tensor(self, i, t):
        spec = self.plan["inputs"][i]
        dtype = _DTYPES[spec["dtype"]]
        if t.dtype != dtype or tuple(t.shape) != tuple(spec["shape"]):
            raise ValueError(f"xpu_opt: argument #{i} is {t.dtype} "
                             f"{tuple(t.shape)}, compiled for {dtype} "
                             f"{tuple(spec['shape'])}")
        return t.detach().contiguous()

    def _scalar(self, i, t):
        spec = self.plan["inputs"][i]
        return _SCALAR_CTYPES[spec["dtype"]](t.item())

    def invalidate(self):
        """Packs again at the next call."""
        self.force_pack = True

    def _stale(self, tensors, generation):
        if self.packed is None or self.force_pack:
            return True
        if generation is not None:
            return generation != self.generation
        if tensors is None:  # device: the caller compared the buffers
            return False
        # The shapes and dtypes match (_tensor checked them): bytes only.
        for i in self.pack_args:
            snap = self.snapshots.get(i)
            if snap is None:
                return True
            n = snap.numel() * snap.element_size()
            if n and _memcmp(tensors[i].data_ptr(), snap.data_ptr(), n):
                return True
        return False

    def _remember(self, tensors, generation):
        self.generation = generation
        self.force_pack = False
        self.pack_count += 1
        if tensors is None:  # device: the buffers hold what was packed
            return
        for i in self.pack_args:
            snap = self.snapshots.get(i)
            if snap is None:
                self.snapshots[i] = tensors[i].clone()
            else:
                snap.copy_(tensors[i])

    # Calls ----------------------------------------------------------------

    def run(self, args, generation=None):
        """Calls the program on `args` (the inputs, then the weights:
        tensors); returns its results, fresh tensors in the plan's order.
        `generation` names the frozen weights (freeze=True), None for live
        ones."""
        if self.program.runtime:
            with self.program.runtime.lock:
                return self._run_device(args, generation)
        return self._run_host(args, generation)

    def _run_host(self, args, generation):
        keep, c_args, tensors = [], [], []
        for i, a in enumerate(args):
            t = self._tensor(i, a)
            tensors.append(t)
            if self.plan["inputs"][i].get("scalar"):
                c_args.append(self._scalar(i, t))
            else:
                d = _descriptor(t.data_ptr(), t.shape)
                keep.append(d)
                c_args.append(ctypes.byref(d))
        results = [torch.empty(spec["shape"], dtype=_DTYPES[spec["dtype"]])
                   for spec in self.plan["results"]]
        out_descs = [_descriptor(r.data_ptr(), r.shape) for r in results]
        if self.pack:
            if self._stale(tensors, generation):
                if self.packed is None:
                    self.packed = [torch.empty(s["shape"],
                                               dtype=_DTYPES[s["dtype"]])
                                   for s in self.pack["results"]]
                    self.packed_descs = [_descriptor(p.data_ptr(), p.shape)
                                         for p in self.packed]
                ops = [c_args[o["index"]] for o in self.pack["operands"]]
                self.program.call(self.program.pack_entry,
                                  ops + [ctypes.byref(d)
                                         for d in self.packed_descs],
                                  "packing the weights")
                self._remember(tensors, generation)
            ops = [ctypes.byref(self.packed_descs[o["index"]])
                   if o["from"] == "pack" else c_args[o["index"]]
                   for o in self.pack["packed_operands"]]
            entry = self.program.packed_entry
        else:
            ops, entry = c_args, self.program.entry
        self.program.call(entry, ops + [ctypes.byref(d) for d in out_descs],
                          "the compiled module")
        return results

    def _buffer(self, i):
        buf = self.buffers.get(i)
        if buf is None:
            spec = self.plan["inputs"][i]
            buf = DeviceBuffer(self.program.runtime, spec["shape"],
                               _DTYPES[spec["dtype"]], _descriptor)
            self.buffers[i] = buf
        return buf

    def _run_device(self, args, generation):
        rt = self.program.runtime
        rt.last_error()  # not this call's
        c_args, changed = [], False
        for i, a in enumerate(args):
            t = self._tensor(i, a)
            if self.plan["inputs"][i].get("scalar"):
                c_args.append(self._scalar(i, t))
                changed |= i in self.pack_args
                continue
            buf = self._buffer(i)
            # Inputs are copied every call. Weights (and any other operand
            # of pack) are copied when they differ from the buffer, which
            # holds what was packed (live weights), or when the frozen
            # weights were refreshed.
            if i < self.num_inputs and i not in self.pack_args:
                buf.write(t)
            elif generation is None:
                if not _same_bytes(buf.tensor, t):
                    buf.write(t)
                    changed |= i in self.pack_args
            elif generation != self.generation:
                buf.write(t)
            c_args.append(ctypes.byref(buf.desc))
        if self.outputs is None:
            self.outputs = [DeviceBuffer(rt, s["shape"], _DTYPES[s["dtype"]],
                                         _descriptor)
                            for s in self.plan["results"]]
        if self.pack:
            if changed or self._stale(None, generation):
                if self.packed is None:
                    self.packed = [DeviceBuffer(rt, s["shape"],
                                                _DTYPES[s["dtype"]],
                                                _descriptor)
                                   for s in self.pack["results"]]
                ops = [c_args[o["index"]] for o in self.pack["operands"]]
                self.program.call(self.program.pack_entry,
                                  ops + [ctypes.byref(b.desc)
                                         for b in self.packed],
                                  f"packing the weights on {self.target}")
                self._remember(None, generation)
            ops = [ctypes.byref(self.packed[o["index"]].desc)
                   if o["from"] == "pack" else c_args[o["index"]]
                   for o in self.pack["packed_operands"]]
            entry = self.program.packed_entry
        else:
            ops, entry = c_args, self.program.entry
        if generation is not None:
            self.generation = generation
        self.program.call(entry, ops + [ctypes.byref(b.desc)
                                        for b in self.outputs],
                          f"the compiled module on {self.target}")
        return [b.read() for b in self.outputs]


def _check_inputs(inputs, target, what="input", grad=True, names=None):
    for i, t in enumerate(inputs):
        label = f"'{names[i]}'" if names else f"#{i}"
        if not isinstance(t, torch.Tensor):
            kind = type(t).__name__
            if isinstance(t, (int, float, bool)):
                hint = f"; pass torch.tensor({t!r})"
            elif isinstance(t, (list, tuple, dict)):
                hint = ("; nested inputs are not supported: pass each tensor "
                        "as an input of its own")
            else:
                hint = ""
            raise TypeError(f"xpu_opt: {what} {label} is a {kind}, but a "
                            f"compiled module takes tensors{hint}")
        if t.device.type == "meta":
            raise ValueError(f"xpu_opt: {what} {label} is a meta tensor, which "
                             "holds no data to compute on")
        if t.device.type != "cpu":
            raise ValueError(
                f"xpu_opt: {what} {label} is on {t.device}, but a module "
                f"compiled for target '{target}' takes CPU tensors (it "
                "copies them to its device itself)")
        if t.layout != torch.strided:
            raise ValueError(f"xpu_opt: {what} {label} is a {t.layout} tensor; "
                             "xpu_opt takes dense (strided) tensors")
        if grad and t.requires_grad and torch.is_grad_enabled():
            raise RuntimeError(
                f"xpu_opt: {what} {label} requires grad, but a compiled module "
                "computes inference only (its outputs have no grad_fn): call "
                "it under torch.no_grad() or torch.inference_mode(), or pass "
                "a detached tensor")


class CompiledModule:
    """A module compiled by xpu-opt for a target; call it like the module.

    Inputs of new shapes or dtypes compile a new variant (specialization on
    the inputs seen). See compile() for the contract (weights, training
    mode, outputs, threads, cache).
    """

    def __init__(self, module, target, precision, optimize, pipeline_options,
                 extra_args, freeze=False):
        self.module = module
        self.target = target
        self.precision = precision
        self.optimize = optimize
        self.pipeline_options = pipeline_options
        self.extra_args = tuple(extra_args)
        self.freeze = freeze
        self._variants = {}
        self._lock = threading.RLock()
        self._frozen = None       # freeze=True: (names, tensors) captured
        self._generation = 0      # of the frozen weights
        self.mlir = None          # the MLIR text of the last variant made

    # Weights ----------------------------------------------------------------

    def _weights(self):
        """(names, tensors) the next call uses: the module's own, or the
        copies captured by compile()/refresh() with freeze=True."""
        if self.freeze:
            if self._frozen is None:
                self._capture()
            return self._frozen
        names, weights = _export.weights_of(self.module)
        _check_inputs(weights, self.target, "weight", grad=False, names=names)
        return names, weights

    def _capture(self):
        names, weights = _export.weights_of(self.module)
        _check_inputs(weights, self.target, "weight", grad=False, names=names)
        self._frozen = (names, [w.detach().clone() for w in weights])
        self._generation += 1

    def refresh(self):
        """Reads the module's weights again. With freeze=True this is how
        weight changes reach the compiled module; without, every call
        reads them anyway, and refresh() only repacks."""
        with self._lock:
            if self.freeze:
                self._capture()
            for v in self._variants.values():
                v.invalidate()

    # Variants ---------------------------------------------------------------

    def _key(self, inputs, names, weights):
        return (tuple((tuple(t.shape), t.dtype) for t in inputs),
                tuple(m.training for m in self.module.modules()),
                tuple((n, tuple(w.shape), w.dtype)
                      for n, w in zip(names, weights)))

    def _export(self, inputs):
        key = _export.fingerprint(self.module, inputs)
        if key:
            hit = _cache.lookup("export", key, ["model.mlir", "meta.json"])
            if hit:
                return _export.Exported(hit["model.mlir"].read_text(),
                                        json.loads(hit["meta.json"]
                                                   .read_text()))
        exported = _export.export_program(self.module, inputs)
        if key:
            _cache.store("export", key, {
                "model.mlir": exported.text,
                "meta.json": json.dumps(exported.meta)})
        return exported

    def _variant(self, inputs, names, weights):
        key = self._key(inputs, names, weights)
        v = self._variants.get(key)
        if v is None:
            exported = self._export(inputs)
            artifact = compile_mlir(exported.text, self.target,
                                    self.precision, self.optimize,
                                    self.pipeline_options, self.extra_args)
            v = _Variant(_Program(artifact, self.target), exported.meta,
                         self.target)
            self._variants[key] = v
            self.mlir = exported.text
        return v

    def variant(self, inputs):
        """The variant for `inputs` (compiled now if new)."""
        inputs = tuple(inputs)
        with self._lock:
            names, weights = self._weights()
            return self._variant(inputs, names, weights)

    @property
    def packs_weights(self):
        """True if a compiled variant has a weight-packing part."""
        return any(v.pack for v in self._variants.values())

    # Calls ----------------------------------------------------------------

    def __call__(self, *inputs, **kwargs):
        if kwargs:
            raise TypeError("xpu_opt: a compiled module takes its inputs "
                            "positionally, got keyword arguments "
                            + ", ".join(kwargs))
        _check_inputs(inputs, self.target)
        with self._lock:
            names, weights = self._weights()
            v = self._variant(inputs, names, weights)
            generation = self._generation if self.freeze else None
            results = v.run(list(inputs) + list(weights), generation)
            return self._outputs(v, inputs, weights, results)

    def _outputs(self, v, inputs, weights, results):
        """The module's output from the flat results: inputs written in
        place get their new values, inputs (and weights) returned as they
        are come back as the same objects, constants as they were."""
        live = list(inputs) + list(_export.weights_of(self.module)[1]
                                    if self.freeze else weights)
        with torch.no_grad():
            for index, k in v.meta["mutations"]:
                live[index].copy_(results[k])
        leaves = []
        for leaf in v.meta["leaves"]:
            if "const" in leaf:
                leaves.append(leaf["const"])
            elif leaf["alias"] is not None:
                leaves.append(live[leaf["alias"]])
            else:
                leaves.append(results[leaf["result"]])
        return torch.utils._pytree.tree_unflatten(leaves, v.tree)

    def benchmark(self, *inputs, repeat=20, warmup=2):
        """Times `repeat` calls after `warmup` ones: wall time per call (s)
        and, on a device, each kernel's launches and device time (ns)."""
        if isinstance(repeat, bool) or not isinstance(repeat, int) \
                or repeat < 1:
            raise ValueError(f"xpu_opt: benchmark's repeat must be a positive "
                             f"integer (the number of timed calls), got "
                             f"{repeat!r}")
        if isinstance(warmup, bool) or not isinstance(warmup, int) \
                or warmup < 0:
            raise ValueError(f"xpu_opt: benchmark's warmup must be an integer "
                             f">= 0, got {warmup!r}")
        for _ in range(warmup):
            self(*inputs)
        v = self.variant(inputs)
        rt = v.program.runtime
        if rt:
            rt.profile_start()
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            self(*inputs)
            times.append(time.perf_counter() - start)
        kernels = rt.profile_stop() if rt else []
        return {"min": min(times), "median": statistics.median(times),
                "mean": statistics.fmean(times), "calls": repeat,
                "kernels": kernels}


def _default_precision(module, inputs):
    for t in list(module.parameters()) + list(module.buffers()) + list(inputs):
        if t.dtype in _PRECISIONS:
            return _PRECISIONS[t.dtype]
    return "f32"


def compile(module, example_inputs, target="cpu", precision=None,
            optimize=True, pipeline_options="", extra_args=(), freeze=False):
    """Compiles a torch.nn.Module with xpu-opt; returns a callable.

        fast = xpu_opt.compile(model, (x,), target="opencl")
        y = fast(x)            # torch tensors in, torch tensors out

    Arguments:
      module: a torch.nn.Module in eval mode (its training-mode behaviour,
        dropout or BatchNorm statistics, is refused: call module.eval()
        first). xpu_opt never changes the module: no .eval(), no writes.
      example_inputs: a tensor or a tuple/list of CPU tensors, the inputs of
        forward (positional; Python numbers and lists are refused). They are
        compiled for at once, so errors show here; other shapes or dtypes
        compile new variants when called.
      target: "cpu", "opencl", "levelzero" or "cuda" (a string). A target
        this build or machine cannot run (no runtime library, no driver, no
        device) raises TargetUnavailable before anything compiles.
      precision: the GEMMs' precision, "f32", "f64", "bf16" or "f16";
        default: the model's own dtype (an f64 model stays f64).
      optimize: False skips xpu-opt's catalog passes (for comparisons).
      pipeline_options: extra options of the target's pipeline, as xpu-run's
        --xpu-pipeline-options takes them ("reassociate=true ...").
      extra_args: extra xpu-run arguments (strings).
      freeze: the weight contract (below).

    Weights: the module's parameters and buffers are arguments of the
    compiled code, marked as weights; the work on weights alone (transposes,
    panels, folded BatchNorm) is packed once per weight set.
      freeze=False (default): every call reads the module's weights. Before
        it uses packed weights it compares the weights it packed from with
        the current ones, byte for byte, and packs again when any differs, so
        every change is seen: in-place ops, writes through .data or NumPy,
        load_state_dict, optimizer steps, a new Parameter (even one at a
        freed one's address). The price is one read of those weights per
        call.
      freeze=True: torch.compile's freezing contract. The weights are
        copied at compile time; later changes are not seen until
        fast.refresh(). No per-call cost.

    Semantics: outputs keep the module's structure (tensors, tuples, lists,
    dicts, nesting; inputs returned as they are come back as the same
    objects, views of inputs as copies); inputs the module writes in place
    are written; inputs whose
    dtypes PyTorch refuses are refused with PyTorch's error; inputs that
    require grad raise (inference only) unless the call runs under
    torch.no_grad() or torch.inference_mode(); meta and non-CPU tensors are
    refused. Operations xpu-opt cannot compile (torch.sort, topk, cumsum,
    nonzero, index_put, ...) raise UnsupportedOperationError naming them and
    their source lines; compiler failures raise CompileError whose first
    line names the cause; device failures raise DeviceError, never end the
    process.

    Threads: a compiled module may be called from several threads; its
    calls take turns (one lock per compiled module, and one per device
    runtime), so results never mix.

    Cache: the torch-mlir export (keyed by the module's code, structure,
    attributes, parameter shapes and dtypes, the input specs and the tool
    versions) and the compiled library (keyed by the MLIR, the options and
    the tools) are kept in $XPU_OPT_CACHE_DIR (default <build>/xpu_opt_cache),
    so a second process compiles nothing. Entries are checked (sizes and
    SHA-256) before use and rebuilt when damaged; an unwritable cache
    directory gives one warning and a private temporary cache.
    """
    if not isinstance(module, torch.nn.Module):
        name = getattr(module, "__name__", type(module).__name__)
        raise TypeError(
            f"xpu_opt.compile takes a torch.nn.Module, got a "
            f"{type(module).__name__} ({name}); wrap a function in a module "
            "whose forward calls it")
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    if not isinstance(example_inputs, (tuple, list)):
        raise TypeError(
            f"xpu_opt: example_inputs must be a tensor or a tuple of tensors "
            f"(the inputs of forward), got a {type(example_inputs).__name__}")
    example_inputs = tuple(example_inputs)
    _targets.lookup(target)
    _check_inputs(example_inputs, target, "example input", grad=False)
    _targets.require(target)
    if precision is None:
        precision = _default_precision(module, example_inputs)
    if precision not in ("f32", "f64", "bf16", "f16"):
        raise ValueError(f"xpu_opt: precision must be 'f32', 'f64', 'bf16' "
                         f"or 'f16', got {precision!r}")
    if not isinstance(optimize, bool):
        raise TypeError(f"xpu_opt: optimize must be True or False, got "
                        f"{optimize!r}")
    if not isinstance(pipeline_options, str):
        raise TypeError(f"xpu_opt: pipeline_options must be a string of "
                        f"pipeline options, got {pipeline_options!r}")
    if isinstance(extra_args, str) or not all(
            isinstance(a, str) for a in extra_args):
        raise TypeError(f"xpu_opt: extra_args must be a list of strings "
                        f"(xpu-run arguments), got {extra_args!r}")
    if not isinstance(freeze, bool):
        raise TypeError(f"xpu_opt: freeze must be True or False, got "
                        f"{freeze!r}")
    compiled = CompiledModule(module, target, precision, optimize,
                              pipeline_options, extra_args, freeze)
    compiled.variant(tuple(t.detach() for t in example_inputs))
    return compiled
