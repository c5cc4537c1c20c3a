"""Running a compiled module: a package's library bound to its runtime.

This half of xpu_opt needs neither the compiler nor torch-mlir: it is what
xpu_opt.load runs in a process that has only PyTorch and a package (no
subprocess, no LLVM or MLIR library).

* Artifact: a package directory (tools/common/Package.h: model.so,
  interface.json, the runtime library) and its interface (the plan).
* _Program: the library loaded into this process, bound to its runtime.
* _Variant: one input signature; calls the program with torch tensors,
  packs the weights when the pack operands change, keeps device buffers.
  A dynamic dimension (null in the interface's shapes: a module compiled
  with dynamic=True) takes any size; the results' dynamic dimensions have
  the sizes of the argument dimensions the interface names ("dims").
  On the CPU the tensors' memory is passed as it is; on OpenCL and Level
  Zero the tensors are copied into host-shared device memory; on CUDA the
  caller's CUDA tensors are passed as they are (device pointers), the
  results are CUDA tensors the compiled code writes, and the calls run on
  PyTorch's current stream.
* Callable: what CompiledModule and a loaded package share (outputs in the
  module's structure, benchmark).
"""

import ctypes
import pathlib
import statistics
import time
import typing

import torch

from . import _trace
from ._errors import CompileError
from ._runtime import DeviceBuffer

DTYPES = {
    "f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
    "bf16": torch.bfloat16, "i1": torch.bool, "i8": torch.int8,
    "i16": torch.int16, "i32": torch.int32, "i64": torch.int64,
}
_SCALAR_CTYPES = {
    "f32": ctypes.c_float, "f64": ctypes.c_double, "f16": ctypes.c_uint16,
    "bf16": ctypes.c_uint16, "i1": ctypes.c_bool, "i8": ctypes.c_int8,
    "i16": ctypes.c_int16, "i32": ctypes.c_int32, "i64": ctypes.c_int64,
}
# Bytes the tensors passed to compiled code are aligned to.
_ALIGNMENT = 16
# CU_STREAM_LEGACY: PyTorch's default stream (cuda_stream 0) as the CUDA
# driver API names it; a null stream would mean the runtime's own stream.
_CU_STREAM_LEGACY = 1

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


def descriptor(ptr, shape):
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


def same_bytes(a, b):
    """True if two contiguous CPU tensors of one shape and dtype hold the
    same bytes (NaNs included, which torch.equal calls different). This runs
    on every call for every weight that was packed: memcmp, not a torch op
    (a few microseconds less each)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    n = a.numel() * a.element_size()
    return n == 0 or _memcmp(a.data_ptr(), b.data_ptr(), n) == 0


def _bytes_view(t):
    """A contiguous tensor's bytes, as a uint8 tensor (0-d tensors too)."""
    return t.reshape(-1).view(torch.uint8)


class Artifact(typing.NamedTuple):
    """A compiled module: its package directory, shared library and plan
    (the package's interface)."""
    library: pathlib.Path
    plan: dict
    directory: pathlib.Path = None


# Inputs -----------------------------------------------------------------------

def check_inputs(inputs, target, what="input", grad=True, names=None):
    """Refuses what a module compiled for `target` cannot take, with the
    reason: non-tensors, meta tensors, tensors on the wrong device (CUDA
    tensors for target 'cuda', CPU tensors for the others), sparse
    tensors, and inputs that require grad while grad is enabled."""
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
        if target == "cuda":
            if t.device.type != "cuda":
                hint = (" (move the module with .cuda() first)"
                        if what == "weight" else
                        f" (move it with .cuda(), or compile for a host "
                        f"target)")
                raise ValueError(
                    f"xpu_opt: {what} {label} is on {t.device}, but a module "
                    f"compiled for target 'cuda' takes CUDA tensors: it reads "
                    f"and writes them on the GPU, with no copy through the "
                    f"host{hint}")
        elif t.device.type != "cpu":
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


def _current_raw_stream(device):
    """PyTorch's current CUstream on CUDA device `device` (0: the legacy
    default stream). torch._C._cuda_getCurrentRawStream is what Inductor's
    generated code asks (a few microseconds less than
    torch.cuda.current_stream(device).cuda_stream, on every call)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None:
        return raw(device)
    return torch.cuda.current_stream(torch.device("cuda", device)).cuda_stream


def cuda_device_of(tensors):
    """The index of the one CUDA device `tensors` are on."""
    devices = {t.device.index if t.device.index is not None
               else torch.cuda.current_device() for t in tensors}
    if len(devices) > 1:
        raise ValueError(f"xpu_opt: the inputs and weights are on several "
                         f"CUDA devices ({sorted(devices)}); a compiled "
                         "module runs on one")
    return devices.pop() if devices else torch.cuda.current_device()


# The program ------------------------------------------------------------------

class _Program:
    """An Artifact loaded into this process, bound to its target's runtime:
    the plan's entry points, called with C arguments. The caller holds the
    runtime's lock around a call and its check()."""

    def __init__(self, artifact, runtime, target, device=None):
        self.plan = artifact.plan
        self.runtime = runtime
        self.target = target
        if runtime:
            with runtime.lock:
                if device is not None:
                    runtime.select_device(device)
                spir = (artifact.directory / "spir"
                        if artifact.directory else None)
                if runtime.is_opencl and spir and spir.is_dir():
                    runtime.add_spir_directory(spir)
                runtime.last_error()
                # Loading runs the global constructors: kernel modules load.
                self.lib = ctypes.CDLL(str(artifact.library))
                runtime.check(f"loading the kernels on {target}")
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
        if _trace.active():
            return self._traced_call(function, args, what)
        function(*args)
        if self.runtime:
            self.runtime.check(what)

    def _traced_call(self, function, args, what):
        """call() while a profile records: the entry point as a `pack` or
        `call` event and, on a device, its kernels with their device
        times (the runtime's profile around this one call)."""
        pack = function is self.pack_entry
        symbol = self.plan["pack"]["entry" if pack else "packed_entry"] \
            if self.plan.get("pack") else self.plan["entry"]
        # _mlir_ciface___xpu_entry_forward.pack -> forward.pack
        name = symbol.split("_xpu_entry_")[-1]
        device = self.runtime is not None and self.target != "cuda"
        if device:
            self.runtime.profile_start()
        start = _trace._now_us()
        function(*args)
        if self.runtime:
            self.runtime.check(what)
        kernels = self.runtime.profile_stop() if device else []
        _trace.emit(name, "pack" if pack else "call", start,
                    _trace._now_us() - start, {"target": self.target,
                                               "symbol": symbol})
        _trace.kernels(kernels, start, self.target)


class _Variant:
    """The module compiled for one set of input shapes and dtypes: calls
    the program, packs the weights once per weight set, keeps device
    buffers.

    Packing: `forward.pack` runs again whenever one of its operands (the
    plan's list) differs from what it last packed, byte for byte (live
    weights; on CUDA compared on the device), or when the frozen weights
    were refreshed (freeze=True)."""

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
        self.snapshots = {}     # pack operand index -> bytes packed
        self.generation = None  # frozen weights' generation last packed
        self.buffers = {}       # OpenCL/Level Zero: argument index -> buffer
        self.outputs = None     # OpenCL/Level Zero: result buffers
        # What every call checks and builds, decoded from the plan once.
        self._args = [(DTYPES[s["dtype"]], tuple(s["shape"]),
                       bool(s.get("scalar")))
                      for s in self.plan["inputs"]]
        self._results = [(tuple(s["shape"]), DTYPES[s["dtype"]])
                         for s in self.plan["results"]]
        # Dynamic dimensions (None in a shape): where each result's come
        # from, (argument, dimension) per dimension.
        self.dynamic = any(None in shape for _, shape, _ in self._args)
        self._result_dims = [
            [None if d is None else (d["arg"], d["dim"])
             for d in s.get("dims", [None] * len(s["shape"]))]
            for s in self.plan["results"]]
        self._signature = tuple((shape, dtype) for dtype, shape, _ in
                                self._args[:self.num_inputs])
        # CUDA: one memref descriptor per argument and result, made once;
        # a call sets their pointers (the shapes are static) under the
        # runtime's lock, and the host code reads them before it returns.
        self._descs = None
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
            got = str(DTYPES[spec["dtype"]]).replace("torch.", "")
            if got != dtype or list(spec["shape"]) != list(shape):
                raise CompileError(
                    f"xpu_opt: output tensor #{j} would be {got} "
                    f"{tuple(spec['shape'])} where PyTorch returns {dtype} "
                    f"{tuple(shape)}")

    def signature(self):
        """The (shape, dtype) of each input this variant is for (None for a
        dynamic dimension)."""
        return self._signature

    def accepts(self, signature):
        """True if inputs of `signature` ((shape, dtype) each) can be
        passed: the same dtypes and ranks, and the static dimensions
        equal."""
        if len(signature) != len(self._signature):
            return False
        for (shape, dtype), (want, want_dtype) in zip(signature,
                                                      self._signature):
            if dtype != want_dtype or len(shape) != len(want) or any(
                    w is not None and w != d for d, w in zip(shape, want)):
                return False
        return True

    def _result_shapes(self, args):
        """The shapes of this call's results: dynamic dimensions take the
        size of the argument dimension they come from."""
        if not self.dynamic:
            return [shape for shape, _ in self._results]
        return [tuple(args[dim[0]].shape[dim[1]] if size is None else size
                      for size, dim in zip(shape, dims))
                for (shape, _), dims in zip(self._results,
                                            self._result_dims)]

    def single_result(self):
        """The index of the one result a module that returns one fresh
        tensor (and writes no input) returns, or None: its outputs need no
        pytree."""
        if not hasattr(self, "_single"):
            leaves = self.meta["leaves"]
            self._single = (
                leaves[0]["result"] if self.tree.is_leaf() and
                len(leaves) == 1 and not self.meta["mutations"] and
                "result" in leaves[0] and leaves[0].get("alias") is None
                else None)
        return self._single

    # Arguments ------------------------------------------------------------

    def _tensor(self, i, t):
        dtype, shape, _ = self._args[i]
        if self.dynamic and t.shape != shape:
            # The entry's shape check: the dtype, the rank, then each
            # static dimension ('?' takes any size).
            compiled = "(" + ", ".join("?" if d is None else str(d)
                                       for d in shape) + ")"
            if t.dtype != dtype:
                raise ValueError(f"xpu_opt: argument #{i} is {t.dtype} "
                                 f"{tuple(t.shape)}, compiled for {dtype} "
                                 f"{compiled}")
            if t.dim() != len(shape):
                raise ValueError(f"xpu_opt: argument #{i} has rank "
                                 f"{t.dim()} {tuple(t.shape)}, compiled for "
                                 f"rank {len(shape)} {compiled}")
            for d, (got, want) in enumerate(zip(t.shape, shape)):
                if want is not None and got != want:
                    raise ValueError(
                        f"xpu_opt: argument #{i} {tuple(t.shape)} has "
                        f"dimension {d} = {got}, compiled for {want} "
                        f"{compiled}")
        elif t.dtype != dtype or t.shape != shape:
            raise ValueError(f"xpu_opt: argument #{i} is {t.dtype} "
                             f"{tuple(t.shape)}, compiled for {dtype} "
                             f"{shape}")
        if t.requires_grad:
            t = t.detach()
        if not t.is_contiguous():
            return t.contiguous()
        # A view into its storage (x[1:]) may start off the 16-byte
        # boundary that kernels' vector accesses, cp.async and TMA read
        # rows from: such a tensor is passed as an aligned copy.
        if t.data_ptr() % _ALIGNMENT:
            return t.clone()
        return t

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
        if tensors is None:  # OpenCL/Level Zero: the caller compared
            return False
        if self.target == "cuda":
            # On the device, one synchronization for all of them.
            pairs = [(tensors[i], self.snapshots.get(i))
                     for i in self.pack_args]
            if any(s is None for _, s in pairs):
                return True
            flags = [(_bytes_view(t) != _bytes_view(s)).any()
                     for t, s in pairs if t.numel()]
            return bool(torch.stack(flags).any().item()) if flags else False
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
        if tensors is None or generation is not None:
            # OpenCL/Level Zero: the buffers hold what was packed; frozen
            # weights: the generation says it.
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
        rt = self.program.runtime
        if rt is None:
            return self._run_host(args, generation)
        with rt.lock:
            if self.target == "cuda":
                return self._run_cuda(args, generation)
            return self._run_device(args, generation)

    def _c_args(self, args, descs=None):
        """(C arguments, contiguous tensors, objects to keep alive) for
        arguments whose memory the compiled code reads as it is. `descs`:
        a descriptor (and its reference) per argument to reuse."""
        keep, c_args, tensors = [], [], []
        for i, a in enumerate(args):
            t = self._tensor(i, a)
            tensors.append(t)
            if self._args[i][2]:
                c_args.append(self._scalar(i, t))
            elif descs:
                d, ref = descs[i]
                d.allocated = d.aligned = t.data_ptr()
                c_args.append(ref)
            else:
                d = descriptor(t.data_ptr(), t.shape)
                keep.append(d)
                c_args.append(ctypes.byref(d))
        return c_args, tensors, keep

    def _reused_descriptors(self):
        """CUDA: (arguments', results') descriptors with their references."""
        if self._descs is None:
            def made(shape):
                d = descriptor(None, shape)
                return d, ctypes.byref(d)
            self._descs = ([None if scalar else made(shape)
                            for _, shape, scalar in self._args],
                           [made(shape) for shape, _ in self._results])
        return self._descs

    def _call_direct(self, c_args, tensors, generation, device, what,
                     result_descs=None):
        """Packs if needed and calls the program; tensors are allocated on
        `device` (results, packed weights). `result_descs`: a descriptor
        (and its reference) per result to reuse."""
        results = [torch.empty(shape, dtype=dtype, device=device)
                   for shape, (_, dtype) in
                   zip(self._result_shapes(tensors), self._results)]
        if result_descs:
            out_refs = []
            for r, (d, ref) in zip(results, result_descs):
                d.allocated = d.aligned = r.data_ptr()
                out_refs.append(ref)
        else:
            out_descs = [descriptor(r.data_ptr(), r.shape) for r in results]
            out_refs = [ctypes.byref(d) for d in out_descs]
        if self.pack:
            if self._stale(tensors, generation):
                if self.packed is None:
                    self.packed = [torch.empty(s["shape"],
                                               dtype=DTYPES[s["dtype"]],
                                               device=device)
                                   for s in self.pack["results"]]
                    self.packed_descs = [descriptor(p.data_ptr(), p.shape)
                                         for p in self.packed]
                ops = [c_args[o["index"]] for o in self.pack["operands"]]
                self.program.call(self.program.pack_entry,
                                  ops + [ctypes.byref(d)
                                         for d in self.packed_descs],
                                  f"packing the weights{what}")
                self._remember(tensors, generation)
            ops = [ctypes.byref(self.packed_descs[o["index"]])
                   if o["from"] == "pack" else c_args[o["index"]]
                   for o in self.pack["packed_operands"]]
            entry = self.program.packed_entry
        else:
            ops, entry = c_args, self.program.entry
        self.program.call(entry, ops + out_refs, f"the compiled module{what}")
        return results

    def _run_host(self, args, generation):
        c_args, tensors, keep = self._c_args(args)
        results = self._call_direct(c_args, tensors, generation, "cpu", "")
        del keep
        return results

    def _run_cuda(self, args, generation):
        """The caller's CUDA tensors are the compiled code's buffers; the
        results are CUDA tensors it writes; everything runs on PyTorch's
        current stream, asynchronously, like PyTorch's own work."""
        rt = self.program.runtime
        rt.last_error()  # not this call's
        rt.set_stream(_current_raw_stream(rt.device) or _CU_STREAM_LEGACY)
        device = torch.device("cuda", rt.device)
        if self.dynamic:
            # Descriptors of this call's shapes (a dynamic dimension
            # changes them from call to call).
            c_args, tensors, keep = self._c_args(args)
            results = self._call_direct(c_args, tensors, generation, device,
                                        " on cuda")
            del keep
            return results
        arg_descs, result_descs = self._reused_descriptors()
        c_args, tensors, _ = self._c_args(args, arg_descs)
        return self._call_direct(c_args, tensors, generation, device,
                                 " on cuda", result_descs)

    def _buffer(self, i, shape):
        """The device buffer of argument `i`, of `shape` (this call's: a
        dynamic dimension changes it from call to call)."""
        buf = self.buffers.get(i)
        if buf is None or buf.shape != tuple(shape):
            spec = self.plan["inputs"][i]
            buf = DeviceBuffer(self.program.runtime, shape,
                               DTYPES[spec["dtype"]], descriptor)
            self.buffers[i] = buf
        return buf

    def _run_device(self, args, generation):
        rt = self.program.runtime
        rt.last_error()  # not this call's
        c_args, changed, tensors = [], False, []
        for i, a in enumerate(args):
            t = self._tensor(i, a)
            tensors.append(t)
            if self.plan["inputs"][i].get("scalar"):
                c_args.append(self._scalar(i, t))
                changed |= i in self.pack_args
                continue
            buf = self._buffer(i, t.shape)
            # Inputs are copied every call. Weights (and any other operand
            # of pack) are copied when they differ from the buffer, which
            # holds what was packed (live weights), or when the frozen
            # weights were refreshed.
            if i < self.num_inputs and i not in self.pack_args:
                buf.write(t)
            elif generation is None:
                if not same_bytes(buf.tensor, t):
                    buf.write(t)
                    changed |= i in self.pack_args
            elif generation != self.generation:
                buf.write(t)
            c_args.append(ctypes.byref(buf.desc))
        shapes = [tuple(s) for s in self._result_shapes(tensors)]
        if self.outputs is None or [b.shape for b in self.outputs] != shapes:
            self.outputs = [DeviceBuffer(rt, shape, DTYPES[s["dtype"]],
                                         descriptor)
                            for shape, s in zip(shapes, self.plan["results"])]
        if self.pack:
            if changed or self._stale(None, generation):
                if self.packed is None:
                    self.packed = [DeviceBuffer(rt, s["shape"],
                                                DTYPES[s["dtype"]],
                                                descriptor)
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


# What compiled and loaded modules share ---------------------------------------

class Callable:
    """A compiled function of tensors: the outputs in the module's structure
    and benchmark(). Subclasses define target, variant(inputs) and
    __call__."""

    target = "cpu"

    @staticmethod
    def _outputs(v, live, results):
        """The module's output from the flat results: inputs written in
        place get their new values (`live`: the inputs, then the weights),
        inputs (and weights) returned as they are come back as the same
        objects, constants as they were."""
        single = v.single_result()
        if single is not None:
            return results[single]
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
        and, on a device, each kernel's launches and device time (ns), as
        (name, launches, nanoseconds). On CUDA each timed call waits for
        its kernels (torch.cuda.synchronize), so that the wall time is the
        call's, not the time to queue it."""
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
        sync = ((lambda: torch.cuda.synchronize(rt.device))
                if self.target == "cuda" else (lambda: None))
        sync()
        if rt:
            rt.profile_start()
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            self(*inputs)
            sync()
            times.append(time.perf_counter() - start)
        kernels = rt.profile_stop() if rt else []
        return {"min": min(times), "median": statistics.median(times),
                "mean": statistics.fmean(times), "calls": repeat,
                "kernels": kernels}
