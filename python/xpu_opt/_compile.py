"""xpu_opt.compile: a PyTorch module as a compiled, callable program.

Two halves, kept apart:

* compiling (this file): the module is exported with torch-mlir (_export:
  weights as marked arguments, the input shapes seen) and
  `xpu-run --emit-package` compiles the MLIR for the target into a package
  (tools/common/Package.h: a shared library with C entry points, its
  interface, which says which arguments feed the weight-packing part
  `forward.pack`, and the runtime library it needs). compile_mlir() returns
  that Artifact. Both the export and the package are cached on disk
  (_cache).
* running (_program.py): a _Program is an Artifact loaded into this process
  and bound to its target's runtime; a _Variant calls it with torch
  tensors, packs the weights when the pack operands change, and keeps the
  device buffers. It needs no compiler: xpu_opt.load runs it from a saved
  package (_package.py).

CompiledModule specializes on the shapes and dtypes of the inputs (one
variant each) and maps the flat results back to the module's output;
build() compiles without running (a target this machine lacks, say) and
returns a Package to save.
"""

import functools
import hashlib
import json
import pathlib
import shlex
import subprocess
import tempfile
import threading

import torch

from . import _cache, _export, _paths, _program, _targets, _trace
from ._errors import CompileError
from ._program import Artifact, Callable, check_inputs

# The targets whose kernels take a dynamic batch (their GEMM programs and
# generic kernels are counted at run time).
DYNAMIC_TARGETS = ("cpu", "opencl", "levelzero", "cuda")

_PRECISIONS = {torch.float32: "f32", torch.float64: "f64",
               torch.float16: "f16", torch.bfloat16: "bf16"}

# Compiling ------------------------------------------------------------------

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
    """Compiles MLIR text with xpu-run into a package (a shared library, its
    interface and the runtime library it needs: tools/common/Package.h);
    returns the Artifact (library, plan, directory), cached by the text, the
    options and the tools."""
    t = _targets.lookup(target)
    xpu_run = _paths.xpu_run()
    options = pipeline_options if optimize else (
        pipeline_options + " optimize=false").strip()
    # xpu-run's --precision knows the precisions of every target.
    args = [f"--target={target}", f"--function={function}",
            "--progress=false", f"--precision={precision}"]
    if options:
        args.append(f"--xpu-pipeline-options={options}")
    args += list(extra_args)
    runtime = (_paths.runtime_dir() / t.runtime_library
               if t.runtime_library else None)
    tools = [xpu_run] + ([runtime] if runtime else [])
    stamps = [f"{p}:{p.stat().st_mtime_ns}:{p.stat().st_size}" for p in tools]
    key = hashlib.sha256("\0".join(["package-1", mlir_text] + stamps + args)
                         .encode()).hexdigest()[:32]
    names = ["model.so", "interface.json"]
    hit = _cache.lookup("lib", key, names)
    if hit:
        return Artifact(hit["model.so"],
                        json.loads(hit["interface.json"].read_text()),
                        hit["model.so"].parent)
    with tempfile.TemporaryDirectory(prefix="xpu_opt-") as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "model.mlir").write_text(mlir_text)
        package = tmp / "package"
        cmd = [str(xpu_run), str(tmp / "model.mlir")] + args + [
            f"--emit-package={package}"]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            kept = _cache.scratch("failed", key) / "model.mlir"
            kept.write_text(mlir_text)
            repeat = " ".join(shlex.quote(str(c)) for c in
                              [xpu_run, kept] + args)
            raise _tool_failed("xpu-run", result, tmp, kept, repeat)
        interface = json.loads((package / "interface.json").read_text())
        files = {p.name: p for p in package.iterdir() if p.is_file()}
        files["model.mlir"] = mlir_text
        stored = _cache.store("lib", key, files)
    return Artifact(stored["model.so"], interface, stored["model.so"].parent)


def _cuda_options(target, pipeline_options, chip):
    """The pipeline options for `target`: on CUDA the caller's tensors are
    device memory (device-results=true) and `chip` picks the GPU."""
    options = pipeline_options
    if target == "cuda":
        if chip and "chip=" not in options:
            options += f" chip={chip}"
        if "device-results" not in options:
            options += " device-results=true"
    elif chip:
        names = _targets.chips("nvidia")
        listed = " or ".join(filter(None, [", ".join(names[:-1]), names[-1]]))
        raise ValueError(f"xpu_opt: chip={chip!r} is an option of target "
                         f"'cuda' ({listed}); target '{target}' takes none")
    return options.strip()


class _Compiler:
    """What compiling a module for one target needs, and the variants it
    made (export metadata and Artifact, by input signature)."""

    def __init__(self, module, target, precision, optimize, pipeline_options,
                 extra_args, tune=0, dynamic=None):
        self.module = module
        self.dynamic = dynamic  # per input, the dimensions exported as `?`
        self.target = target
        self.precision = precision
        self.optimize = optimize
        self.pipeline_options = pipeline_options
        self.extra_args = tuple(extra_args)
        self.tune = tune  # trials per GEMM (xpu-tune) before compiling
        self.mlir = None  # the MLIR text of the last variant made

    def export(self, inputs):
        key = _export.fingerprint(self.module, inputs, self.dynamic)
        if key:
            hit = _cache.lookup("export", key, ["model.mlir", "meta.json"])
            if hit:
                return _export.Exported(hit["model.mlir"].read_text(),
                                        json.loads(hit["meta.json"]
                                                   .read_text()))
        exported = _export.export_program(self.module, inputs,
                                          self.dynamic)
        if key:
            _cache.store("export", key, {
                "model.mlir": exported.text,
                "meta.json": json.dumps(exported.meta)})
        return exported

    def compile(self, inputs):
        """(export metadata, Artifact) for `inputs`."""
        exported = self.export(inputs)
        options = self.pipeline_options
        if self.tune:
            options = (options + " tuning-db=" +
                       str(self._tuned(exported.text))).strip()
        artifact = compile_mlir(exported.text, self.target, self.precision,
                                self.optimize, options, self.extra_args)
        self.mlir = exported.text
        return exported.meta, artifact


    def _tuned(self, mlir_text):
        """Tunes the GEMMs of `mlir_text` into the cache's tuning database
        (xpu-tune --resume: a problem tuned before is not measured again)
        and returns a snapshot of the database named by its content, so
        that the package cache's key changes with it."""
        from ._tune import tune
        db = _cache.root() / "tuning.json"
        db.parent.mkdir(parents=True, exist_ok=True)
        options = self.pipeline_options
        if "precision=" not in options:
            options += f" precision={self.precision}"
        if not self.optimize:
            options += " optimize=false"
        tune(mlir_text, target=self.target, db=db, max_trials=self.tune,
             pipeline_options=options.strip(), resume=True)
        content = db.read_bytes()
        snapshot = (_cache.root() / "tuning" /
                    (hashlib.sha256(content).hexdigest()[:32] + ".json"))
        if not snapshot.exists():
            snapshot.parent.mkdir(parents=True, exist_ok=True)
            partial = snapshot.with_suffix(".tmp")
            partial.write_bytes(content)
            partial.replace(snapshot)
        return snapshot


class CompiledModule(Callable):
    """A module compiled by xpu-opt for a target; call it like the module.

    Inputs of new shapes or dtypes compile a new variant (specialization on
    the inputs seen). See compile() for the contract (weights, training
    mode, outputs, threads, cache); save() writes a package that
    xpu_opt.load runs where there is no compiler.
    """

    def __init__(self, module, target, precision, optimize, pipeline_options,
                 extra_args, freeze=False, tune=0, dynamic=None):
        self.module = module
        self.target = target
        self.precision = precision
        self.freeze = freeze
        self.dynamic = dynamic
        self.label = type(module).__name__  # of its calls in traces
        self._compiler = _Compiler(module, target, precision, optimize,
                                   pipeline_options, extra_args, tune,
                                   dynamic)
        self._variants = {}
        self._made = []           # (meta, artifact) of each variant, in order
        self._lock = threading.RLock()
        self._frozen = None       # freeze=True: (names, tensors) captured
        self._generation = 0      # of the frozen weights

    @property
    def mlir(self):
        """The MLIR text of the last variant made."""
        return self._compiler.mlir

    # Weights ----------------------------------------------------------------

    def _weights(self):
        """(names, tensors) the next call uses: the module's own, or the
        copies captured by compile()/refresh() with freeze=True."""
        if self.freeze:
            if self._frozen is None:
                self._capture()
            return self._frozen
        names, weights = _export.weights_of(self.module)
        check_inputs(weights, self.target, "weight", grad=False, names=names)
        return names, weights

    def _capture(self):
        names, weights = _export.weights_of(self.module)
        check_inputs(weights, self.target, "weight", grad=False, names=names)
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
        # A dynamic dimension's size is not part of the key: one variant
        # serves every size.
        dynamic = self.dynamic or [()] * len(inputs)
        return (tuple((tuple(None if d in dims else s
                             for d, s in enumerate(t.shape)), t.dtype)
                      for t, dims in zip(inputs, dynamic)),
                tuple(m.training for m in self.module.modules()),
                tuple((n, tuple(w.shape), w.dtype)
                      for n, w in zip(names, weights)))

    def _variant(self, inputs, names, weights):
        if self.dynamic and self._variants:
            # Compiled for dynamic dimensions: inputs of another rank or
            # other static sizes are an error at the entry, not a new
            # variant.
            first = next(iter(self._variants.values()))
            for i, t in enumerate(inputs):
                first._tensor(i, t)
        key = self._key(inputs, names, weights)
        v = self._variants.get(key)
        if v is None:
            meta, artifact = self._compiler.compile(inputs)
            device = None
            if self.target == "cuda":
                device = _program.cuda_device_of(list(inputs) + list(weights))
            runtime = _targets.runtime(self.target)
            v = _program._Variant(
                _program._Program(artifact, runtime, self.target, device),
                meta, self.target)
            self._variants[key] = v
            self._made.append((meta, artifact))
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
        check_inputs(inputs, self.target)
        with self._lock, _trace.span(self.label, "host",
                                     {"target": self.target}):
            names, weights = self._weights()
            v = self._variant(inputs, names, weights)
            generation = self._generation if self.freeze else None
            results = v.run(list(inputs) + list(weights), generation)
            live = list(inputs) + list(_export.weights_of(self.module)[1]
                                        if self.freeze else weights)
            return self._outputs(v, live, results)

    # Packages ---------------------------------------------------------------

    def save(self, path):
        """Writes every variant compiled so far, and the weights as they are
        now (the frozen ones with freeze=True), as a package directory that
        xpu_opt.load(path) runs in a process without the compiler."""
        from . import _package
        with self._lock:
            names, weights = self._weights()
            runtime = _targets.runtime(self.target)
            _package.save_module(path, self.target, self.precision,
                                 self._made, names, weights, runtime)


class Package:
    """A module compiled by build(), not loaded: save(path) writes it as the
    package xpu_opt.load runs (on a machine with the target)."""

    def __init__(self, target, precision, made, names, weights):
        self.target = target
        self.precision = precision
        self._made = made
        self._names = names
        self._weights = weights

    @property
    def interface(self):
        """The interface of the (first) compiled variant: entry points,
        inputs with the weights marked, results, target and chip."""
        return self._made[0][1].plan

    @property
    def chip(self):
        return self.interface.get("chip")

    def save(self, path):
        from . import _package
        _package.save_module(path, self.target, self.precision, self._made,
                             self._names, self._weights, None)


@functools.lru_cache(maxsize=None)
def _precisions():
    """{target: (precision, ...)}, the default first: the compiler's one
    precision policy (xpu-run --xpu-list-precisions)."""
    result = subprocess.run([str(_paths.xpu_run()), "--xpu-list-precisions"],
                            capture_output=True, text=True, check=True)
    return {line.split()[0]: tuple(line.split()[1:])
            for line in result.stdout.splitlines() if line.strip()}


def _default_precision(module, inputs):
    for t in list(module.parameters()) + list(module.buffers()) + list(inputs):
        if t.dtype in _PRECISIONS:
            return _PRECISIONS[t.dtype]
    return "f32"


def _check_arguments(module, example_inputs, precision, optimize,
                     pipeline_options, extra_args, target):
    """The example inputs as a tuple and the precision, or TypeError /
    ValueError with the reason."""
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
    accepted = _precisions().get(target, ())
    if precision is None:
        precision = _default_precision(module, example_inputs)
        # A target without f64 GEMMs (cuda) demotes an f64 model's.
        if precision not in accepted and accepted:
            precision = accepted[0]
    if accepted and precision not in accepted:
        raise ValueError(f"xpu_opt: precision must be "
                         f"{', '.join(map(repr, accepted))} on target "
                         f"{target!r}, got {precision!r}")
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
    return example_inputs, precision


def compile(module, example_inputs, target="cpu", precision=None,
            optimize=True, pipeline_options="", extra_args=(), freeze=None,
            chip=None, tune=0, dynamic=None):
    """Compiles a torch.nn.Module with xpu-opt; returns a callable.

        fast = xpu_opt.compile(model, (x,), target="opencl")
        y = fast(x)            # torch tensors in, torch tensors out
        fast.save("model.xpu") # runs elsewhere: xpu_opt.load("model.xpu")

    Arguments:
      module: a torch.nn.Module in eval mode (its training-mode behaviour,
        dropout or BatchNorm statistics, is refused: call module.eval()
        first). xpu_opt never changes the module: no .eval(), no writes.
      example_inputs: a tensor or a tuple/list of tensors, the inputs of
        forward (positional; Python numbers and lists are refused): CPU
        tensors, or CUDA tensors for target "cuda". They are compiled for
        at once, so errors show here; other shapes or dtypes compile new
        variants when called.
      target: "cpu", "opencl", "levelzero" or "cuda" (a string). A target
        this build or machine cannot run (no runtime library, no driver, no
        device) raises TargetUnavailable before anything compiles; build()
        compiles for it anyway, to run elsewhere.
      precision: the GEMMs' precision, "f32", "f64", "bf16" or "f16"
        (on "cuda" also "tf32", and no "f64": an f64 model's GEMMs run in
        f32 there); default: the model's own dtype (an f64 model stays
        f64).
      optimize: False skips xpu-opt's catalog passes (for comparisons).
      pipeline_options: extra options of the target's pipeline, as xpu-run's
        --xpu-pipeline-options takes them ("reassociate=true ...").
      extra_args: extra xpu-run arguments (strings).
      freeze: the weight contract (below); default False, and True on
        "cuda".
      chip: target "cuda" only: the GPU, "sm_80", "sm_90" (default) or
        "sm_90a" (TMA and wgmma: H100/H200).
      tune: N > 0 measures up to N candidate configs per GEMM (GPU
        configs; register and cache tiles on the CPU) with xpu-tune before
        a variant compiles (docs/Tuning.md) and compiles with the fastest
        correct ones. The measurements are kept
        in the cache's tuning database ($XPU_OPT_CACHE_DIR/tuning.json), so
        a problem is tuned once, on first use (a larger N measures the
        rest). Default 0: the cost model's configs.
      dynamic: True compiles dimension 0 of every input as a dynamic
        (`?`) dimension: one compiled module serves every batch size (the
        GEMMs' row loops and the packing of their inputs take the size at
        run time; the weights are packed once). A list with one entry per
        input names the dynamic dimensions of each (dynamic=[(0, 1)]: the
        batch and the sequence of one input). Dynamic k or n dimensions of
        a GEMM (a sequence that is contracted, as in attention scores) run
        on the generic path. An input of another rank or with another size
        in a static dimension raises ValueError. Every target
        (DYNAMIC_TARGETS); on cuda the GEMMs of a dynamic m run on the SIMT
        kernels, not the tensor cores.

    Target "cuda": the inputs, the weights (module.cuda()) and the outputs
    are CUDA tensors of one device; the compiled code reads and writes them
    where they are (no copy through the host) and runs on PyTorch's current
    stream, asynchronously like PyTorch's own work. A CPU tensor is refused
    with the reason before anything runs.

    Weights: the module's parameters and buffers are arguments of the
    compiled code, marked as weights; the work on weights alone (transposes,
    panels, folded BatchNorm) is packed once per weight set.
      freeze=False (default but on "cuda"): every call reads the module's
        weights. Before it uses packed weights it compares the weights it
        packed from with the current ones, byte for byte, and packs again
        when any differs, so every change is seen: in-place ops, writes
        through .data or NumPy, load_state_dict, optimizer steps, a new
        Parameter (even one at a freed one's address). The price is one
        read of those weights per call; on "cuda" the comparison runs on
        the GPU (against a device copy of each packed weight) and costs one
        device synchronization per call, so it is not the default there.
      freeze=True (default on "cuda"): torch.compile's freezing contract.
        The weights are copied at compile time; later changes are not seen
        until fast.refresh(). No per-call cost.

    Semantics: outputs keep the module's structure (tensors, tuples, lists,
    dicts, nesting; inputs returned as they are come back as the same
    objects, views of inputs as copies); inputs the module writes in place
    are written; inputs whose
    dtypes PyTorch refuses are refused with PyTorch's error; inputs that
    require grad raise (inference only) unless the call runs under
    torch.no_grad() or torch.inference_mode(); meta tensors and tensors on
    another device than the target's are refused. Operations xpu-opt cannot
    compile (torch.sort, topk, cumsum, nonzero, index_put, ...) raise
    UnsupportedOperationError naming them and their source lines; compiler
    failures raise CompileError whose first line names the cause; device
    failures raise DeviceError, never end the process.

    Threads: a compiled module may be called from several threads; its
    calls take turns (one lock per compiled module, and one per device
    runtime), so results never mix.

    Cache: the torch-mlir export (keyed by the module's code, structure,
    attributes, parameter shapes and dtypes, the input specs and the tool
    versions) and the compiled package (keyed by the MLIR, the options and
    the tools) are kept in $XPU_OPT_CACHE_DIR (default
    <build>/xpu_opt_cache), so a second process compiles nothing. Entries
    are checked (sizes and SHA-256) before use and rebuilt when damaged; an
    unwritable cache directory gives one warning and a private temporary
    cache.

    Packages: fast.save(path) writes every variant compiled so far with the
    weights (as they are then) into a directory; xpu_opt.load(path) returns
    the same callable in a process without the compiler (docs/Tutorial.md,
    "Build on one machine, run on another").
    """
    example_inputs, precision = _check_arguments(
        module, example_inputs, precision, optimize, pipeline_options,
        extra_args, target)
    _targets.lookup(target)
    if freeze is None:
        freeze = target == "cuda"
    if not isinstance(freeze, bool):
        raise TypeError(f"xpu_opt: freeze must be True or False, got "
                        f"{freeze!r}")
    if isinstance(tune, bool) or not isinstance(tune, int) or tune < 0:
        raise ValueError(f"xpu_opt: tune must be a trial count (an int >= "
                         f"0), got {tune!r}")
    options = _cuda_options(target, pipeline_options, chip)
    _targets.require(target)
    check_inputs(example_inputs, target, "example input", grad=False)
    dynamic = _export.normalize_dynamic(dynamic, example_inputs)
    if dynamic and target not in DYNAMIC_TARGETS:
        raise ValueError(f"xpu_opt: dynamic= compiles for targets "
                         f"{', '.join(map(repr, DYNAMIC_TARGETS))} only so "
                         f"far, not {target!r}")
    compiled = CompiledModule(module, target, precision, optimize,
                              options, extra_args, freeze, tune, dynamic)
    compiled.variant(tuple(t.detach() for t in example_inputs))
    return compiled


def build(module, example_inputs, target="cpu", precision=None,
          optimize=True, pipeline_options="", extra_args=(), chip=None):
    """Compiles a module for `target` without running it; returns a Package
    whose save(path) writes what xpu_opt.load(path) runs on a machine that
    has the target (the AOTInductor convention: compile here, run there).

        pkg = xpu_opt.build(model, (x,), target="cuda", chip="sm_90a",
                            precision="bf16")
        pkg.save("model.xpu")      # then, on the GPU machine:
        fast = xpu_opt.load("model.xpu")
        y = fast(x.cuda())

    The arguments are compile()'s; the example inputs only give shapes and
    dtypes (CPU tensors will do for any target: the module runs once in
    eager mode on them, on this machine). Only the build must be available
    here (the target's pipeline and runtime library), not its device. The
    package holds the module's weights as they are now; a loaded package
    has the freeze=True contract (its weights are its own).
    """
    example_inputs, precision = _check_arguments(
        module, example_inputs, precision, optimize, pipeline_options,
        extra_args, target)
    _targets.lookup(target)
    check_inputs(example_inputs, "cuda" if target == "cuda" and all(
        t.device.type == "cuda" for t in example_inputs) else "cpu",
        "example input", grad=False)
    options = _cuda_options(target, pipeline_options, chip)
    compiler = _Compiler(module, target, precision, optimize, options,
                         extra_args)
    names, weights = _export.weights_of(module)
    meta, artifact = compiler.compile(tuple(t.detach()
                                            for t in example_inputs))
    return Package(target, precision, [(meta, artifact)], names,
                   [w.detach() for w in weights])
