"""PyTorch module -> linalg-on-tensors MLIR text, with torch-mlir.

The module's parameters and buffers become arguments of @forward after its
inputs, each marked `xpu.weight`, so that xpu-outline-weight-pack knows the
weights from the activations (the second operand of a bmm is an activation,
not a weight). With freeze=True they are constants in the IR instead
(torch-mlir's default), which the compiler folds at compile time.

export_program() is what xpu_opt.compile uses: besides the text it checks
that the compiled program can mean what the module means in PyTorch (no
training-mode behaviour, no random numbers, no writes to parameters or
buffers, only operations xpu-opt compiles, the inputs accepted by eager
PyTorch) and describes how the flat results of @forward map back to the
module's outputs (their pytree structure, inputs returned as they are,
inputs the module writes in place). Nothing here changes the module.

fingerprint() keys the export cache: the code of the module's classes and
of the functions they call, every attribute and training flag of its
submodules, the names, shapes and dtypes of its parameters and buffers, the
input specs and the tool versions.
"""

import dataclasses
import enum
import functools
import hashlib
import importlib.metadata
import json
import linecache
import os
import pathlib
import re
import sys
import threading
import types

import torch

from ._errors import CompileError, UnsupportedOperationError

FUNC_NAME = "forward"

# torch.export is not thread-safe (it patches global state while it
# traces): one export at a time in this process.
_EXPORT_LOCK = threading.RLock()

# Dialects of torch-mlir's own that xpu-opt does not have: an op of theirs
# left after the lowering to linalg-on-tensors cannot be compiled.
_FOREIGN_DIALECTS = ("tm_tensor", "torch", "torch_c")

# ATen operations torch-mlir lowers to each tm_tensor op (TorchToTMTensor),
# to name the torch operation behind a tm_tensor op.
_TM_TENSOR_SOURCES = {
    "sort": {"sort", "argsort", "topk", "kthvalue", "unique", "_unique2"},
    "topk": {"topk"},
    "scan": {"cumsum", "cumprod", "logcumsumexp", "cummax", "cummin",
             "nonzero"},
    "scatter": {"index_put", "index_put_", "_index_put_impl", "scatter",
                "scatter_add", "scatter_reduce", "index_add", "bincount",
                "masked_scatter", "nonzero"},
    "attention": {"scaled_dot_product_attention",
                  "_scaled_dot_product_flash_attention_for_cpu"},
}
_ALL_TM_TENSOR_SOURCES = set().union(*_TM_TENSOR_SOURCES.values())


def weights_of(module: torch.nn.Module):
    """(names, tensors) of the parameters and buffers, in a fixed order."""
    names, tensors = [], []
    for name, p in module.named_parameters():
        names.append(name)
        tensors.append(p)
    for name, b in module.named_buffers():
        names.append(name)
        tensors.append(b)
    return names, tensors


_RECORDS = {}


class _WeightsAsArguments(torch.nn.Module):
    """Calls `module` with its weights passed as extra inputs and returns
    the tensors of its output, flat; the output's structure and its
    non-tensor leaves are recorded while torch.export traces it."""

    def __init__(self, module, names, num_inputs):
        super().__init__()
        # Not a submodule: the wrapper owns no parameters, every weight
        # comes in as an argument.
        object.__setattr__(self, "_inner", module)
        self.names = names
        self.num_inputs = num_inputs

    # What forward records lives outside the module: torch.export undoes
    # the changes a traced forward makes to its module's state.
    @property
    def record(self):
        return _RECORDS.setdefault(id(self), {})

    @property
    def out_spec(self):
        return self.record.get("spec")

    @property
    def leaves(self):
        return self.record.get("leaves")

    def forget(self):
        _RECORDS.pop(id(self), None)

    def forward(self, *args):
        inputs = args[:self.num_inputs]
        weights = dict(zip(self.names, args[self.num_inputs:]))
        out = torch.func.functional_call(self._inner, weights, inputs)
        leaves, spec = torch.utils._pytree.tree_flatten(out)
        self.record["spec"] = spec
        self.record["leaves"] = [None if isinstance(leaf, torch.Tensor)
                                 else leaf for leaf in leaves]
        return tuple(leaf for leaf in leaves if isinstance(leaf, torch.Tensor))


def _mark_weights(mlir_module, first_weight: int, func_name: str):
    """Sets {xpu.weight} on the arguments of @func_name from first_weight."""
    from torch_mlir import ir
    with mlir_module.context:
        for op in mlir_module.body.operations:
            if op.operation.name != "func.func":
                continue
            if ir.StringAttr(op.attributes["sym_name"]).value != func_name:
                continue
            num_args = len(op.regions[0].blocks[0].arguments)
            old = (list(ir.ArrayAttr(op.attributes["arg_attrs"]))
                   if "arg_attrs" in op.attributes else
                   [ir.DictAttr.get({}) for _ in range(num_args)])
            new = []
            for i in range(num_args):
                entries = {a.name: a.attr for a in ir.DictAttr(old[i])}
                if i >= first_weight:
                    entries["xpu.weight"] = ir.UnitAttr.get()
                new.append(ir.DictAttr.get(entries))
            op.attributes["arg_attrs"] = ir.ArrayAttr.get(new)


def export(module: torch.nn.Module, example_inputs, freeze: bool = False,
           func_name: str = FUNC_NAME, dynamic=None) -> str:
    """The module as linalg-on-tensors MLIR text (what xpu-opt reads).

    `example_inputs` is a tuple of tensors (or one tensor); the function is
    specialized on their shapes and dtypes, but for the dimensions that
    `dynamic` names (as xpu_opt.compile takes it: True for dimension 0 of
    every input), which are `?`. Without `freeze`, @forward takes the
    inputs, then every parameter and buffer (marked `xpu.weight`), in the
    order of `named_parameters()` then `named_buffers()`. The module is
    exported as it is (its training flags included) and not changed.
    """
    from torch_mlir import fx
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(t.detach() for t in example_inputs)
    dynamic = normalize_dynamic(dynamic, example_inputs)
    with _EXPORT_LOCK, torch.no_grad():
        names, weights = weights_of(module)
        shapes = None
        if dynamic:
            shapes, example_inputs = _dynamic_shapes(
                example_inputs, 0 if freeze else len(weights), dynamic)
            example_inputs = tuple(example_inputs)
        if freeze:
            imported = fx.export_and_import(
                module, *example_inputs, output_type="linalg-on-tensors",
                func_name=func_name, dynamic_shapes=shapes)
            return str(imported)
        wrapper = _WeightsAsArguments(module, names, len(example_inputs))
        # forward(*args): one entry, the specs of the arguments.
        imported = fx.export_and_import(
            wrapper, *example_inputs, *[w.detach() for w in weights],
            output_type="linalg-on-tensors", func_name=func_name,
            dynamic_shapes=(shapes,) if shapes else None)
    _mark_weights(imported, len(example_inputs), func_name)
    return str(imported)


# Source locations ------------------------------------------------------------

_TORCH_DIR = str(pathlib.Path(torch.__file__).resolve().parent)
_OWN_DIR = str(pathlib.Path(__file__).resolve().parent)
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _drop_own_frames(ep):
    """Removes xpu_opt's own frames (the wrapper that passes the weights)
    from the stack traces torch.export kept, so that torch-mlir's source
    locations, and xpu-opt's errors, start at the user's forward."""
    for node in ep.graph.nodes:
        trace = node.meta.get("stack_trace")
        if not trace:
            continue
        kept, skip = [], False
        for line in trace.splitlines():
            frame = _FRAME.search(line)
            if frame:
                skip = frame.group(1).startswith(_OWN_DIR)
            if not skip:
                kept.append(line)
        node.meta["stack_trace"] = "\n".join(kept)


def _frames(node):
    """[(file, line)] of the stack trace torch.export kept for `node`,
    outermost first."""
    trace = node.meta.get("stack_trace") or ""
    return [(f, int(n)) for f, n in _FRAME.findall(trace)]


def _user_frame(frames):
    """The innermost frame outside torch and xpu_opt, else the innermost
    one."""
    for f, n in reversed(frames):
        if not f.startswith((_TORCH_DIR, _OWN_DIR)):
            return f, n
    return frames[-1] if frames else None


def _where(frame):
    if not frame:
        return "an unknown location"
    f, n = frame
    code = linecache.getline(f, n).strip()
    return f"{f}:{n}" + (f" ({code})" if code else "")


def _op_name(target):
    """'sort' for aten.sort.default."""
    name = getattr(target, "_opname", None) or str(target)
    return name.split(".")[-2] if name.count(".") >= 2 else name


# Checks ---------------------------------------------------------------------

def _describe_module(module):
    return type(module).__name__


def _check_graph(module, ep, num_inputs, names):
    """Refuses what a compiled inference function cannot reproduce: random
    numbers, writes into parameters or buffers (training-mode BatchNorm),
    anything that depends on training mode."""
    what = _describe_module(module)
    random_ops = []
    for node in ep.graph.nodes:
        target = node.target
        if (node.op == "call_function"
                and isinstance(target, torch._ops.OpOverload)
                and torch.Tag.nondeterministic_seeded in target.tags):
            random_ops.append(f"{_op_name(target)} at "
                              f"{_where(_user_frame(_frames(node)))}")
    user_inputs = [s.arg.name for s in ep.graph_signature.input_specs
                   if s.kind.name == "USER_INPUT"]
    weight_writes = []
    for spec in ep.graph_signature.output_specs:
        if spec.kind.name == "USER_INPUT_MUTATION":
            index = user_inputs.index(spec.target)
            if index >= num_inputs:
                weight_writes.append(names[index - num_inputs])
        elif spec.kind.name not in ("USER_OUTPUT", "USER_INPUT_MUTATION"):
            raise CompileError(
                f"xpu_opt: {what}'s forward has an output of kind "
                f"{spec.kind.name}, which xpu_opt cannot return")
    training = [name or "(the module)" for name, m in module.named_modules()
                if m.training]
    if (random_ops or weight_writes) and training:
        reasons = random_ops + [f"updates of {w}" for w in weight_writes]
        raise CompileError(
            f"xpu_opt: {what} is in training mode and its forward depends on "
            f"it ({'; '.join(reasons)}): xpu_opt compiles inference only. "
            "Call .eval() on the module (xpu_opt never changes it) before "
            "compiling.\n  modules in training mode: "
            + ", ".join(training[:8]) + (" ..." if len(training) > 8 else ""))
    if random_ops:
        raise CompileError(
            f"xpu_opt: {what}'s forward draws random numbers "
            f"({'; '.join(random_ops)}); xpu_opt compiles deterministic "
            "inference only")
    if weight_writes:
        raise CompileError(
            f"xpu_opt: {what}'s forward writes into its parameters or "
            f"buffers ({', '.join(weight_writes)}); xpu_opt compiles "
            "functions of the inputs only")


def _check_eager(module, inputs):
    """Runs the module in PyTorch on copies of the inputs: inputs PyTorch
    refuses (an f64 input to an f32 Linear) are refused the same way.
    Returns the (dtype, shape) of each tensor of the output."""
    copies = [t.detach().clone() for t in inputs]
    try:
        with torch.no_grad():
            out = module(*copies)
    except Exception as e:
        e.add_note("xpu_opt: PyTorch raises this for these inputs, so "
                   "xpu_opt.compile refuses them too")
        raise
    leaves = torch.utils._pytree.tree_leaves(out)
    return [[str(t.dtype).replace("torch.", ""), list(t.shape)]
            for t in leaves if isinstance(t, torch.Tensor)]


def _foreign_ops(imported):
    """[(op name, location text)] of ops xpu-opt has no dialect for."""
    found = []

    def visit(op):
        name = op.operation.name
        if name.split(".")[0] in _FOREIGN_DIALECTS:
            found.append((name, str(op.operation.location)))
        for region in op.operation.regions:
            for block in region.blocks:
                for inner in block.operations:
                    visit(inner)

    visit(imported.operation)
    return found


def _unsupported(what, foreign, ep):
    """UnsupportedOperationError naming each torch operation behind an op
    of `foreign`, with its source location."""
    nodes_at = {}
    for node in ep.graph.nodes:
        if node.op != "call_function":
            continue
        for frame in _frames(node):
            nodes_at.setdefault(frame, []).append(node)
    operations, lines = [], []
    for op, loc in foreign:
        if op.endswith(".yield"):
            continue
        sources = _TM_TENSOR_SOURCES.get(op.split(".", 1)[-1],
                                         _ALL_TM_TENSOR_SOURCES)
        frames = [(f, int(n)) for f, n in re.findall(r'"([^"]+)":(\d+)', loc)]
        torch_ops, frame = [], None
        for fr in frames:
            candidates = [n for n in nodes_at.get(fr, [])
                          if _op_name(n.target) in sources]
            if candidates:
                torch_ops = sorted({_op_name(n.target) for n in candidates})
                frame = _user_frame(_frames(candidates[0]))
                break
        if frame is None:
            frame = _user_frame(frames) if frames else None
        name = (" / ".join(f"torch.{t}" for t in torch_ops)
                if torch_ops else op)
        if (name, _where(frame)) in operations:
            continue
        operations.append((name, _where(frame)))
        lines.append(f"{name} at {_where(frame)} (torch-mlir lowers it to "
                     f"{op})")
    if not lines:  # only yields
        lines = [f"{op} at {loc}" for op, loc in foreign]
        operations = [(op, loc) for op, loc in foreign]
    message = (f"xpu_opt: {what} uses {lines[0]}, which xpu-opt cannot "
               "compile")
    if len(lines) > 1:
        message += "\n  also: " + "\n  also: ".join(lines[1:])
    return UnsupportedOperationError(message, operations)


def _headline(text):
    """The line of an exception's text that says what went wrong."""
    generic = ("The following call raised this error:",)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in lines:
        if line not in generic:
            return line
    return "no message"


def _user_location(text):
    """' at file:line (code)' of the innermost user frame a traceback text
    names, or ''."""
    frames = [(f, int(n)) for f, n in _FRAME.findall(text)]
    frames = [fr for fr in frames if not fr[0].startswith((_TORCH_DIR,
                                                             _OWN_DIR))]
    return f" at {_where(frames[-1])}" if frames else ""


def _mlir_location(loc):
    """' at file:line (code)' of the outermost frame of an MLIR location."""
    frames = [(f, int(n)) for f, n in re.findall(r'"([^"]+)":(\d+)', loc)]
    user = [fr for fr in frames if not fr[0].startswith((_TORCH_DIR,
                                                          _OWN_DIR))]
    return f" at {_where((user or frames)[-1])}" if frames else ""


@dataclasses.dataclass
class Exported:
    """@forward as MLIR text (with source locations) and how its results
    map to the module's output: `meta` is JSON (cached with the text)."""
    text: str
    meta: dict


def export_program(module, inputs, dynamic=None):
    """Exports `module` for `inputs` (tensors) with every check of the
    module docstring; raises CompileError (UnsupportedOperationError) or
    what eager PyTorch raises. `dynamic`: for each input, the dimensions
    exported as `?` (normalize_dynamic), or None."""
    with _EXPORT_LOCK:
        return _export_program(module, inputs, dynamic)


_DIM_NAMES = {0: "batch", 1: "seq"}


def normalize_dynamic(dynamic, inputs):
    """`dynamic` as a tuple with one tuple of dimensions per input, or None.
    True: dimension 0 of every input of rank >= 1 (the batch); a sequence
    with one entry per input, each a dimension or a tuple of them
    (dynamic=[(0, 1)]: the batch and sequence of a single input), None or
    () for none. Raises TypeError / ValueError with the reason."""
    if dynamic is None or dynamic is False:
        return None
    if dynamic is True:
        return tuple((0,) if t.dim() >= 1 else () for t in inputs)
    if not isinstance(dynamic, (list, tuple)) or len(dynamic) != len(inputs):
        raise TypeError(f"xpu_opt: dynamic must be True or a list with one "
                        f"entry per input ({len(inputs)}), each a dimension "
                        f"or a tuple of dimensions, got {dynamic!r}")
    out = []
    for i, (dims, t) in enumerate(zip(dynamic, inputs)):
        if dims is None:
            dims = ()
        elif isinstance(dims, int) and not isinstance(dims, bool):
            dims = (dims,)
        if not isinstance(dims, (list, tuple)) or not all(
                isinstance(d, int) and not isinstance(d, bool) for d in dims):
            raise TypeError(f"xpu_opt: dynamic[{i}] must be a dimension or "
                            f"a tuple of dimensions, got {dims!r}")
        dims = tuple(sorted({d % t.dim() if t.dim() and -t.dim() <= d
                             else d for d in dims}))
        if any(d < 0 or d >= t.dim() for d in dims):
            raise ValueError(f"xpu_opt: dynamic[{i}] = {dims} names a "
                             f"dimension input #{i} (rank {t.dim()}) does "
                             "not have")
        out.append(dims)
    return tuple(out) if any(out) else None


def _dynamic_shapes(inputs, num_weights, dynamic):
    """torch.export's dynamic_shapes for the inputs then the weights: one
    torch.export.Dim per (dimension, example size), shared by the inputs
    that have it (a batch is every input's), and the example inputs with
    each dynamic dimension of size 1 repeated to 2 (an example of size 1
    would be specialized on)."""
    dims, specs, examples = {}, [], []
    for t, marked in zip(inputs, dynamic):
        spec = {}
        for d in marked:
            if t.shape[d] < 2:
                t = torch.cat([t] * 2, dim=d) if t.shape[d] else t
            key = (d, t.shape[d])
            if key not in dims:
                name = _DIM_NAMES.get(d, f"dim{d}")
                if any(k[0] == d for k in dims):
                    name += f"_{t.shape[d]}"
                dims[key] = torch.export.Dim(name)
            spec[d] = dims[key]
        specs.append(spec or None)
        examples.append(t)
    specs = tuple(specs) + (None,) * num_weights
    return specs, examples


_CAST = re.compile(r"tensor\.cast %\S+ : tensor<([0-9?x]+)x[a-z0-9]+> to "
                   r"tensor<([0-9?x]+)x[a-z0-9]+>")


def _check_dynamic_kept(text, what):
    """Raises CompileError where torch-mlir made a dynamic dimension static
    (a tensor.cast from `?` to a size): it lowers a view that merges
    several dynamic dimensions (x.view(b * s, f)) by assuming a size of 1
    there, and the code would be wrong for any other size."""
    for m in _CAST.finditer(text):
        source, dest = m.group(1).split("x"), m.group(2).split("x")
        if len(source) == len(dest) and any(
                a == "?" and b != "?" for a, b in zip(source, dest)):
            raise CompileError(
                f"xpu_opt: torch-mlir lowered {what} with a dynamic "
                f"dimension made static ({m.group(0)}): a view that merges "
                "several dynamic dimensions, which it lowers only for a "
                "size of 1; make fewer dimensions dynamic (dynamic=True: "
                "the batch only)")


def _export_program(module, inputs, dynamic=None):
    from torch_mlir import fx
    from torch_mlir.compiler_utils import TorchMlirCompilerError
    from torch_mlir.extras.fx_decomp_util import get_decomposition_table

    what = _describe_module(module)
    inputs = [t.detach() for t in inputs]
    names, weights = weights_of(module)
    shapes = None
    if dynamic:
        shapes, inputs = _dynamic_shapes(inputs, len(weights), dynamic)
    wrapper = _WeightsAsArguments(module, names, len(inputs))
    args = tuple(inputs) + tuple(w.detach() for w in weights)
    try:
        with torch.no_grad():
            ep = torch.export.export(
                wrapper, args, strict=False,
                dynamic_shapes=(shapes,) if shapes else None)
            ep = ep.run_decompositions(get_decomposition_table())
    except Exception as e:
        text = str(e).strip()
        raise CompileError(
            f"xpu_opt: torch.export cannot trace {what}{_user_location(text)}"
            f": {type(e).__name__}: {_headline(text)}\n{text}") from e
    for i, leaf in enumerate(wrapper.leaves):
        if leaf is not None and not isinstance(leaf, (int, float, bool,
                                                      str)):
            raise CompileError(
                f"xpu_opt: {what} returns a {type(leaf).__name__} (output "
                f"leaf #{i}); xpu_opt returns tensors and plain Python "
                "numbers and strings only")
    _drop_own_frames(ep)
    _check_graph(module, ep, len(inputs), names)
    eager = _check_eager(module, inputs)
    if dynamic:
        # The output dimensions the export left symbolic are dynamic.
        out = next(n for n in ep.graph.nodes if n.op == "output")
        values = [a.meta.get("val") for a in out.args[0]]
        tensors = [v for v in values if isinstance(v, torch.Tensor)]
        for entry, v in zip(eager[len(eager) - len(tensors):],
                            tensors[len(tensors) - len(eager):]):
            entry[1] = [None if not isinstance(d, int) else size
                        for d, size in zip(v.shape, entry[1])]

    # torch-mlir's diagnostics go to a handler of our own context (else
    # they are printed, and its exception only says that a pass failed).
    from torch_mlir import ir
    from torch_mlir.dialects import torch as torch_d
    from torch_mlir.extras.fx_importer import FxImporter
    context = ir.Context()
    torch_d.register_dialect(context)
    diagnostics = []

    def on_diagnostic(d):
        if str(d.severity).endswith("ERROR"):
            diagnostics.append((str(d.location), str(d.message)))
        return True

    handler = context.attach_diagnostic_handler(on_diagnostic)
    try:
        imported = fx.export_and_import(
            ep, output_type="linalg-on-tensors", func_name=FUNC_NAME,
            decomposition_table={}, fx_importer=FxImporter(context=context))
    except TorchMlirCompilerError as e:
        text = str(e).strip()
        loc, first = (diagnostics[0] if diagnostics
                      else ("", _headline(text)))
        details = "\n".join(f"  {l}: error: {m}" for l, m in diagnostics)
        aten = re.search(r'name = "torch\.aten\.(\w+)"', first)
        if aten:
            where = _mlir_location(loc)
            raise UnsupportedOperationError(
                f"xpu_opt: {what} uses torch.{aten.group(1)}{where}, which "
                f"torch-mlir cannot lower to linalg: {first}\n{details}\n"
                f"{text}", [(f"torch.{aten.group(1)}", where[4:])]) from e
        raise CompileError(
            f"xpu_opt: torch-mlir cannot lower {what} to linalg"
            f"{_mlir_location(loc)}: {first}\n{details}\n{text}") from e
    finally:
        handler.detach()
    foreign = _foreign_ops(imported)
    if foreign:
        raise _unsupported(what, foreign, ep)
    _mark_weights(imported, len(inputs), FUNC_NAME)
    if dynamic:
        _check_dynamic_kept(imported.operation.get_asm(), what)
    text = imported.operation.get_asm(enable_debug_info=True)
    # FX's generated code is named "<eval_with_key>.N", N counting the
    # graph modules this process made: without N, the text (the compiled
    # package cache's key) is the same in every process.
    text = re.sub(r"<eval_with_key>\.\d+", "<eval_with_key>", text)

    # The results of @forward, in the order of the graph's outputs: the
    # new values of inputs written in place, then the output's tensors.
    placeholders = [s.arg.name for s in ep.graph_signature.input_specs
                    if s.kind.name == "USER_INPUT"]
    mutations, outputs, mutated_by_value = [], [], {}
    for k, spec in enumerate(ep.graph_signature.output_specs):
        if spec.kind.name == "USER_INPUT_MUTATION":
            index = placeholders.index(spec.target)
            mutations.append([index, k])
            mutated_by_value[spec.arg.name] = index
        else:
            name = getattr(spec.arg, "name", None)
            alias = (placeholders.index(name) if name in placeholders
                     else mutated_by_value.get(name))
            outputs.append({"result": k, "alias": alias})
    leaves = []
    tensors = iter(outputs)
    recorded_leaves, recorded_spec = wrapper.leaves, wrapper.out_spec
    wrapper.forget()
    for leaf in recorded_leaves:
        if leaf is None:
            leaves.append(next(tensors))
        else:
            leaves.append({"const": leaf})
    meta = {
        "module": what,
        "num_inputs": len(inputs),
        "weights": [[n, list(w.shape), str(w.dtype).replace("torch.", "")]
                    for n, w in zip(names, weights)],
        "num_results": len(ep.graph_signature.output_specs),
        "mutations": mutations,
        "leaves": leaves,
        "tree": torch.utils._pytree.treespec_dumps(recorded_spec),
        "eager": eager,
    }
    if dynamic:
        meta["dynamic"] = [list(d) for d in dynamic]
    return Exported(text, meta)


# The export cache's key -------------------------------------------------------

class _Uncacheable(Exception):
    """A value the export may depend on that has no stable description."""


_SIMPLE = (int, float, str, bool, type(None), bytes, complex)
_STDLIB = tuple({os.path.realpath(p) for p in (sys.prefix, sys.base_prefix,
                                                 sys.exec_prefix)})
_MAX_ITEMS = 100000


def _user_file(path):
    """True for a source file that is neither the standard library nor an
    installed package (its changes do not show in a version)."""
    real = os.path.realpath(path)
    return not real.startswith(_STDLIB) and "site-packages" not in real


class _Describer:
    """Deterministic descriptions of what an export may depend on."""

    def __init__(self):
        self.seen = set()
        self.items = 0
        self.origins = {}

    def origin(self, modname):
        """[file, mtime] of an installed (or standard library) module, whose
        code is described by its file; None for the user's own code."""
        if modname not in self.origins:
            mod = sys.modules.get(modname)
            path = getattr(mod, "__file__", None)
            self.origins[modname] = (
                [path, os.stat(path).st_mtime_ns]
                if path and not _user_file(path) else None)
        return self.origins[modname]

    def value(self, v, depth=0):
        self.items += 1
        if self.items > _MAX_ITEMS or depth > 8:
            raise _Uncacheable("too large")
        if isinstance(v, _SIMPLE):
            return [type(v).__name__, repr(v)]
        if isinstance(v, enum.Enum):
            return ["enum", repr(v)]
        if isinstance(v, (torch.dtype, torch.device, torch.Size,
                          torch.layout, torch.memory_format)):
            return ["torch", repr(v)]
        if isinstance(v, (tuple, list, set, frozenset)):
            items = [self.value(x, depth + 1) for x in v]
            if isinstance(v, (set, frozenset)):
                items.sort(key=json.dumps)
            return [type(v).__name__, items]
        if isinstance(v, dict):
            items = [[self.value(k, depth + 1), self.value(x, depth + 1)]
                     for k, x in v.items()]
            return ["dict", items]
        if isinstance(v, torch.Tensor):
            if v.device.type != "cpu" or v.is_sparse:
                raise _Uncacheable("tensor off the CPU")
            data = v.detach().contiguous().reshape(-1).view(torch.uint8)
            return ["tensor", list(v.shape), str(v.dtype),
                    hashlib.sha256(data.numpy().tobytes()).hexdigest()]
        if isinstance(v, types.ModuleType):
            path = getattr(v, "__file__", None)
            if path and _user_file(path):
                st = os.stat(path)
                return ["module", v.__name__, path, st.st_mtime_ns,
                        st.st_size]
            return ["module", v.__name__]
        if isinstance(v, types.MethodType):
            return ["method", self.value(v.__func__, depth + 1)]
        if isinstance(v, (staticmethod, classmethod)):
            return [type(v).__name__, self.value(v.__func__, depth + 1)]
        if isinstance(v, property):
            return ["property"] + [self.value(f, depth + 1)
                                   for f in (v.fget, v.fset) if f]
        if isinstance(v, types.FunctionType):
            return self.function(v, depth)
        if isinstance(v, (types.BuiltinFunctionType, types.WrapperDescriptorType,
                          types.MethodDescriptorType, torch._ops.OpOverload,
                          torch._ops.OpOverloadPacket)):
            return ["builtin", getattr(v, "__module__", "") or "",
                    getattr(v, "__qualname__", repr(v))]
        if isinstance(v, type):
            return self.cls(v, depth)
        if isinstance(v, torch.nn.Module):
            return ["submodule", type(v).__module__, type(v).__qualname__]
        raise _Uncacheable(f"a {type(v).__name__}")

    def code(self, co, depth):
        consts = [self.code(c, depth + 1) if isinstance(c, types.CodeType)
                  else self.value(c, depth + 1) for c in co.co_consts]
        return ["code", co.co_name, co.co_code.hex(), list(co.co_names),
                list(co.co_varnames), list(co.co_freevars),
                list(co.co_cellvars), co.co_argcount, co.co_kwonlyargcount,
                co.co_flags, consts]

    def _names(self, co):
        names = set(co.co_names)
        for c in co.co_consts:
            if isinstance(c, types.CodeType):
                names |= self._names(c)
        return names

    def function(self, f, depth):
        key = ("function", id(f))
        if key in self.seen:
            return ["function", f.__module__, f.__qualname__]
        origin = self.origin(f.__module__)
        if origin:
            return ["function", f.__module__, f.__qualname__, origin]
        self.seen.add(key)
        out = ["function", f.__module__, f.__qualname__,
               self.code(f.__code__, depth)]
        out.append(self.value(f.__defaults__, depth + 1))
        out.append(self.value(f.__kwdefaults__, depth + 1))
        for cell in f.__closure__ or ():
            try:
                out.append(self.value(cell.cell_contents, depth + 1))
            except ValueError:  # an empty cell
                out.append(None)
        # The globals it reads: helper functions, constants, modules.
        for name in sorted(self._names(f.__code__)):
            if name in f.__globals__:
                g = f.__globals__[name]
                try:
                    out.append([name, self.value(g, depth + 1)])
                except _Uncacheable:
                    # An object the code may only use as a namespace; its
                    # identity is all that can be said.
                    out.append([name, type(g).__module__,
                                type(g).__qualname__])
        return out

    def cls(self, c, depth):
        if c.__module__.split(".")[0] in ("torch", "builtins", "typing"):
            return ["class", c.__module__, c.__qualname__]
        key = ("class", id(c))
        if key in self.seen:
            return ["class", c.__module__, c.__qualname__]
        origin = self.origin(c.__module__)
        if origin:
            return ["class", c.__module__, c.__qualname__, origin]
        self.seen.add(key)
        out = ["class", c.__module__, c.__qualname__]
        for base in c.__mro__[1:]:
            if base.__module__.split(".")[0] not in ("torch", "builtins"):
                out.append(self.cls(base, depth + 1))
        for name, attr in sorted(c.__dict__.items()):
            if name in ("__dict__", "__weakref__", "__module__", "__doc__",
                        "__qualname__", "__annotations__",
                        "__firstlineno__", "__static_attributes__"):
                continue
            try:
                out.append([name, self.value(attr, depth + 1)])
            except _Uncacheable:
                out.append([name, type(attr).__qualname__])
        return out


@functools.lru_cache(maxsize=None)
def _versions():
    def version(name):
        try:
            return importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            return None
    own = pathlib.Path(__file__)
    return [torch.__version__, version("torch-mlir"),
            list(sys.version_info[:3]),
            hashlib.sha256(own.read_bytes()).hexdigest()]


def fingerprint(module, inputs, dynamic=None):
    """The export cache's key for `module` on `inputs` (`dynamic`: the
    dimensions exported as `?`, whose sizes the key leaves out), or None
    when the module holds something without a stable description (then it
    is exported every time)."""
    d = _Describer()
    dynamic = dynamic or [()] * len(inputs)
    parts = [_versions(),
             [[[None if i in dims else s for i, s in enumerate(t.shape)],
               str(t.dtype)] for t, dims in zip(inputs, dynamic)]]
    own = getattr(module, "xpu_opt_fingerprint", None)
    if own is not None:
        # A module that describes itself (the torch.compile backend's
        # partitions: generated code whose graph has no stable
        # description): its description and its weights' specs.
        names, weights = weights_of(module)
        parts += [own(), [[n, list(w.shape), str(w.dtype), w.device.type]
                          for n, w in zip(names, weights)]]
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:32]
    try:
        for name, m in module.named_modules():
            attrs = {k: v for k, v in m.__dict__.items()
                     if k not in ("_parameters", "_buffers", "_modules")}
            parts.append([name, d.cls(type(m), 0), m.training,
                          d.value(attrs, 1)])
            for kind in ("_parameters", "_buffers"):
                parts.append([kind] + [
                    [k, None] if t is None else
                    [k, list(t.shape), str(t.dtype), t.device.type,
                     getattr(t, "requires_grad", False)]
                    for k, t in getattr(m, kind).items()])
    except _Uncacheable:
        return None
    text = json.dumps(parts, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:32]
