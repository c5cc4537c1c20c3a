"""torch.compile(model, backend="xpu_opt"): a Dynamo backend.

Dynamo hands the backend an FX graph of torch calls (parameters and buffers
are graph inputs) and real example inputs. The backend

1. partitions it (partition()): each GEMM (linear, matmul, mm, bmm, addmm,
   baddbmm, nn.Linear) roots a partition that takes in, in graph order,
   the elementwise operations, eval-mode dropout and BatchNorm, row
   reductions (softmax, layer_norm, sum, mean, amax) and views that follow
   it and whose other inputs do not depend on it, which is what xpu-opt
   fuses into a GEMM's epilogue; trailing views stay outside (a view costs
   PyTorch nothing and a compiled one a copy). Everything else runs as
   PyTorch runs it.
2. fuses each partition into a submodule (torch.fx's fuse_by_partitions)
   and replaces it with a _Partition that compiles it with xpu_opt.compile
   on its first call: the partition's parameter and buffer inputs are the
   compiled module's weights (marked xpu.weight, packed once per weight
   set; a changed weight is seen and repacked, see xpu_opt.compile's
   freeze=False), the rest its inputs. A partition that does not compile
   (an operation torch-mlir or xpu-opt refuses) or a call that needs
   autograd runs the partition as PyTorch, and says why in
   xpu_opt.report() (XPU_OPT_LOG=1 prints it as it happens).

Compiled partitions are cached on disk like xpu_opt.compile's modules: the
export by the partition's code and input specs (see _Partition.fingerprint),
the package by the MLIR, the options and the tools, so a second process
compiles nothing.

Options: torch.compile(model, backend="xpu_opt", options={"target":
"opencl", "precision": "f32", "pipeline_options": "...", "epilogues":
True}); the default target is $XPU_OPT_TARGET, else "cpu".
"""

import hashlib
import importlib.abc
import importlib.util
import operator
import os
import sys
import threading
import time

import torch
import torch.nn.functional as F

from . import _compile, _paths, _report, _targets, _trace

NAME = "xpu_opt"

# Classification of graph nodes -----------------------------------------------

_GEMM_FUNCTIONS = {torch._C._nn.linear, F.linear, torch.matmul, torch.mm,
                   torch.bmm, torch.addmm, torch.baddbmm, operator.matmul}
_GEMM_METHODS = {"matmul", "mm", "bmm", "addmm", "baddbmm", "__matmul__"}

_ELEMENTWISE_FUNCTIONS = {
    operator.add, operator.sub, operator.mul, operator.truediv,
    operator.neg, operator.pow, torch.add, torch.sub, torch.mul, torch.div,
    torch.neg, torch.pow, torch.relu, torch.tanh, torch.sigmoid, torch.exp,
    torch.rsqrt, torch.sqrt, torch.erf, torch.abs, torch.clamp,
    torch.maximum, torch.minimum, torch.where,
    F.relu, F.gelu, torch._C._nn.gelu, F.silu, F.mish, F.sigmoid, F.tanh,
    F.hardtanh, F.leaky_relu, F.elu, F.softplus, F.relu6, F.hardswish,
}
_ELEMENTWISE_METHODS = {
    "add", "sub", "mul", "div", "neg", "pow", "relu", "tanh", "sigmoid",
    "exp", "rsqrt", "sqrt", "abs", "clamp", "__add__", "__mul__",
    "__sub__", "__truediv__", "__radd__", "__rmul__",
}
_REDUCTION_FUNCTIONS = {torch.softmax, F.softmax, F.log_softmax,
                        F.layer_norm, torch.sum, torch.mean, torch.amax}
_REDUCTION_METHODS = {"softmax", "log_softmax", "sum", "mean", "amax"}
_VIEW_FUNCTIONS = {torch.reshape, torch.transpose, torch.permute,
                   torch.flatten, torch.unsqueeze, torch.squeeze, torch.t}
_VIEW_METHODS = {"view", "reshape", "transpose", "permute", "contiguous",
                 "unsqueeze", "squeeze", "t", "flatten", "expand"}
# Modules (graphs that keep nn.Module calls: inline_inbuilt_nn_modules off).
_ELEMENTWISE_MODULES = (torch.nn.ReLU, torch.nn.GELU, torch.nn.SiLU,
                        torch.nn.Tanh, torch.nn.Sigmoid, torch.nn.Mish,
                        torch.nn.Hardtanh, torch.nn.LeakyReLU, torch.nn.ELU,
                        torch.nn.Identity)
_REDUCTION_MODULES = (torch.nn.Softmax, torch.nn.LayerNorm)

GEMM, EPILOGUE, VIEW = "gemm", "epilogue", "view"


def _argument(node, index, name, default):
    if len(node.args) > index:
        return node.args[index]
    return node.kwargs.get(name, default)


def _op_name(node):
    """A short name of a node's operation (linear, gelu, view, ...)."""
    target = node.target
    if node.op == "call_module":
        return type(node.graph.owning_module.get_submodule(target)).__name__
    if node.op == "call_method":
        return target
    return getattr(target, "__name__", str(target)).strip("_")


def kind(node):
    """GEMM, EPILOGUE, VIEW or None (runs as PyTorch)."""
    if node.op == "call_function":
        target = node.target
        if target in _GEMM_FUNCTIONS:
            return GEMM
        if target in (F.dropout, torch.dropout):
            return VIEW if _argument(node, 2, "training", True) is False \
                else None
        if target is F.batch_norm:
            return EPILOGUE if _argument(node, 5, "training", False) is False \
                else None
        if target in _ELEMENTWISE_FUNCTIONS or target in \
                _REDUCTION_FUNCTIONS:
            return None if node.kwargs.get("inplace") else EPILOGUE
        if target in _VIEW_FUNCTIONS:
            return VIEW
        return None
    if node.op == "call_method":
        if node.target in _GEMM_METHODS:
            return GEMM
        if node.target in _ELEMENTWISE_METHODS or \
                node.target in _REDUCTION_METHODS:
            return EPILOGUE
        if node.target in _VIEW_METHODS:
            return VIEW
        return None
    if node.op == "call_module":
        module = node.graph.owning_module.get_submodule(node.target)
        if isinstance(module, torch.nn.Linear):
            return GEMM
        if isinstance(module, torch.nn.Dropout):
            return None if module.training else VIEW
        if isinstance(module, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            return None if module.training else EPILOGUE
        if isinstance(module, _ELEMENTWISE_MODULES + _REDUCTION_MODULES):
            return EPILOGUE
    return None


def _is_tensor(node):
    value = node.meta.get("example_value")
    return isinstance(value, torch.Tensor)


def _is_size_value(value):
    if isinstance(value, (tuple, list)):  # torch.Size too
        return all(_is_size_value(v) for v in value)
    return isinstance(value, (int, float, torch.SymInt, torch.SymFloat)) \
        and not isinstance(value, bool)


def _is_size(node):
    """True for a number, or a tuple of them, computed at run time: the
    symbolic sizes of a dynamic-shape graph (view(s0 * 16, 64), GPT-2's
    view(x.size()[:-1] + (nf,))) and the float attributes Dynamo then
    reads as tensors (dropout's p, layer_norm's eps). A partition is
    specialized on their values, as on its input shapes."""
    return _is_size_value(node.meta.get("example_value"))


def _concrete(value):
    """A size argument as plain numbers (hashable, for the signature)."""
    if isinstance(value, (tuple, list)):
        return tuple(_concrete(v) for v in value)
    if isinstance(value, (float, torch.SymFloat)):
        return float(value)
    return int(value)


def _takes_tensors_only(node):
    """True if every node input of `node` is a tensor or a size (what a
    partition can take: sizes are specialized on, like shapes)."""
    return all(_is_tensor(a) or a.op == "get_attr" or _is_size(a)
               for a in node.all_input_nodes)


# Partitioning ----------------------------------------------------------------

def partition(gm, epilogues=True):
    """[[node, ...]] of the GEMM-rooted partitions of `gm`, each in graph
    order (see the module docstring). epilogues=False: the GEMMs alone."""
    nodes = list(gm.graph.nodes)
    taken = set()
    result = []
    for i, root in enumerate(nodes):
        if root in taken or kind(root) != GEMM or not _is_tensor(root) \
                or not _takes_tensors_only(root):
            continue
        part = [root]
        members = {root}
        # Nodes outside the partition that depend on it: an operation with
        # such an input cannot join (the partition would feed itself).
        downstream = set()
        for node in nodes[i + 1:] if epilogues else ():
            inputs = node.all_input_nodes
            if not any(a in members or a in downstream for a in inputs):
                continue
            joins = (node not in taken and kind(node) in (EPILOGUE, VIEW)
                     and _is_tensor(node) and _takes_tensors_only(node)
                     and not any(a in downstream for a in inputs))
            if joins:
                part.append(node)
                members.add(node)
            else:
                downstream.add(node)
        # Views at the end of a partition stay outside it.
        while True:
            trailing = [n for n in part[1:] if kind(n) == VIEW and not any(
                u in members for u in n.users)]
            if not trailing:
                break
            for n in trailing:
                part.remove(n)
                members.discard(n)
        taken |= members
        result.append(part)
    return _acyclic(nodes, result)


def _acyclic(nodes, parts):
    """Drops partitions (the later ones first) until fusing them all
    leaves the graph acyclic: two partitions may each be closed and still
    feed each other."""
    while True:
        group = {}
        for k, part in enumerate(parts):
            for n in part:
                group[n] = k
        edges = {}
        for n in nodes:
            g = group.get(n, n)
            for a in n.all_input_nodes:
                ga = group.get(a, a)
                if ga != g:
                    edges.setdefault(ga, set()).add(g)
        cycle = _find_cycle(edges)
        if cycle is None:
            return parts
        parts = [p for k, p in enumerate(parts) if k != max(cycle)]


def _find_cycle(edges):
    """The partition indices on a cycle of `edges`, or None."""
    state = {}
    for start in list(edges):
        if start in state:
            continue
        stack = [(start, iter(edges.get(start, ())))]
        state[start] = 1
        path = [start]
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(child) == 1:
                on_cycle = path[path.index(child):]
                ints = [g for g in on_cycle if isinstance(g, int)]
                return ints or None
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(edges.get(child, ()))))
                path.append(child)
    return None


def _weight_placeholders(gm, example_inputs):
    """The names of the placeholders of `gm` that are parameters or
    buffers of the user's modules (Dynamo names their source
    ..._parameters['w'] / ..._buffers['b']). Names, not nodes: fusing
    copies the graph's nodes."""
    weights = set()
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for node, value in zip(placeholders, example_inputs):
        grapharg = node.meta.get("grapharg")
        source = getattr(getattr(grapharg, "source", None), "name", "")
        if callable(source):
            source = source()
        if isinstance(value, torch.nn.Parameter) or \
                "._parameters[" in str(source) or "._buffers[" in str(source):
            weights.add(node.target)
    return weights


# Compiled partitions ---------------------------------------------------------

class _Weights(torch.nn.Module):
    """A partition as a module of its activations: its weights are buffers
    (the live parameter and buffer tensors of the user's model, set before
    every call), so that xpu_opt.compile marks and packs them."""

    def __init__(self, graph_module, weight_slots, num_args, examples,
                 sizes=None, size_dims=None):
        super().__init__()
        self.graph_module = graph_module
        self.weight_slots = tuple(weight_slots)
        self.num_args = num_args
        # {argument index: int}: the sizes this module is specialized on.
        self.sizes = dict(sizes or {})
        # {argument index: (activation, dimension)}: the sizes read from
        # the activations' shapes (a dynamic dimension, compiled as `?`).
        self.size_dims = dict(size_dims or {})
        for k, slot in enumerate(self.weight_slots):
            self.register_buffer(f"w{k}", examples[slot], persistent=False)

    def set_weights(self, args):
        for k, slot in enumerate(self.weight_slots):
            self._buffers[f"w{k}"] = args[slot]

    def forward(self, *activations):
        args, inputs = [], iter(activations)
        weights = iter(self._buffers[f"w{k}"]
                       for k in range(len(self.weight_slots)))
        for i in range(self.num_args):
            if i in self.size_dims:
                j, d = self.size_dims[i]
                args.append(activations[j].shape[d])
            elif i in self.sizes:
                args.append(self.sizes[i])
            else:
                args.append(next(weights) if i in self.weight_slots
                            else next(inputs))
        return self.graph_module(*args)

    def xpu_opt_fingerprint(self):
        """The export cache's key for this module (with the input specs and
        tool versions that _export adds): the partition's generated code,
        its weights' places, its constant tensors."""
        h = hashlib.sha256(self.graph_module.code.encode())
        h.update(repr((self.weight_slots, self.num_args,
                       sorted(self.sizes.items()))).encode())
        if self.size_dims:
            h.update(repr(sorted(self.size_dims.items())).encode())
        for name, t in self.graph_module.state_dict().items():
            h.update(name.encode())
            h.update(t.detach().cpu().contiguous().reshape(-1)
                     .view(torch.uint8).numpy().tobytes())
        return h.hexdigest()


class _Partition(torch.nn.Module):
    """Stands for one fused partition in the graph: compiles it on first
    call (per input signature, as xpu_opt.compile specializes), calls the
    compiled code, or runs the partition as PyTorch when it cannot."""

    def __init__(self, name, graph_module, weight_slots, size_slots, ops,
                 options, dynamic=None):
        super().__init__()
        self.name = name
        self.eager = graph_module
        self.weight_slots = frozenset(weight_slots)
        self.size_slots = tuple(size_slots)
        self.ops = tuple(ops)
        self.options = options
        # A dynamic-shape graph's partition on a target of
        # _compile.DYNAMIC_TARGETS: (dimensions of each activation, {size
        # slot: (activation, dimension)}), and it
        # compiles once, with those dimensions `?`; None: it is specialized
        # on its sizes and shapes (_dynamic_plan says when).
        self.dynamic = dynamic
        self.specialized = None  # why dynamic dimensions did not compile
        # The sizes (a dynamic-shape graph's) -> (_Weights, CompiledModule)
        # specialized on them; () for a graph without.
        self.variants = {}
        self.failed = {}          # input signature -> reason
        self.ready = set()        # input signatures compiled for
        self.lock = threading.Lock()
        self.grad_noted = False

    def _key(self, args, activations):
        """(signature, sizes) of a call: compiled with dynamic dimensions,
        the sizes that are dimensions of the activations are read from
        their shapes and are not part of it (the others, float attributes
        such as layer_norm's eps, still are)."""
        read = self.dynamic[1] if self.dynamic else {}
        sizes = tuple(_concrete(args[i]) for i in self.size_slots
                      if i not in read)
        return (self._signature(activations), sizes), sizes

    def _signature(self, activations):
        if self.dynamic:
            dims = self.dynamic[0]
            return tuple((tuple(None if d in dims[j] else n
                                for d, n in enumerate(a.shape)), a.dtype)
                         for j, a in enumerate(activations))
        return tuple((tuple(a.shape), a.dtype) for a in activations)

    def _eager(self, args, reason):
        with _trace.span(self.name, "eager", {"ops": list(self.ops),
                                               "reason": reason}):
            return self.eager(*args)

    def forward(self, *args):
        if torch.is_grad_enabled() and any(
                isinstance(a, torch.Tensor) and a.requires_grad
                for a in args):
            reason = ("autograd: the call needs gradients (compiled code is "
                      "inference only; call under torch.no_grad())")
            if not self.grad_noted:
                self.grad_noted = True
                _report.record(_report.FELL_BACK, self.name, self.ops,
                               reason)
            return self._eager(args, reason)
        activations = [a for i, a in enumerate(args)
                       if i not in self.weight_slots and
                       i not in self.size_slots]
        signature, sizes = self._key(args, activations)
        if signature not in self.ready:
            with self.lock:  # one compilation, whichever thread is first
                while signature not in self.ready and \
                        signature not in self.failed:
                    dynamic = self.dynamic
                    if self._ready(args, activations, sizes, signature):
                        self.ready.add(signature)
                    elif self.dynamic is not dynamic:
                        # Dynamic dimensions did not compile: specialized
                        # on the sizes from now on.
                        signature, sizes = self._key(args, activations)
                        continue
                    break
            if signature in self.failed:
                return self._eager(args, self.failed[signature])
        module, compiled = self.variants[sizes]
        module.set_weights(args)
        return compiled(*activations)

    def _ready(self, args, activations, sizes, signature):
        """Compiles for this signature if needed; False (with the reason
        recorded) if it does not compile."""
        from . import _compile

        def shape(s):
            return "(" + ", ".join("?" if d is None else str(d)
                                   for d in s) + ("," if len(s) == 1
                                                  else "") + ")"
        detail = (f"{', '.join(shape(s) for s, _ in signature[0])}"
                  + (f" sizes {sizes}" if sizes else "")
                  + f" -> {self.options['target']}")
        start = time.perf_counter()
        try:
            with _trace.span(self.name, "compile", {"ops": list(self.ops)}):
                if sizes not in self.variants:
                    dims, size_dims = self.dynamic or (None, {})
                    values = [i for i in self.size_slots
                              if i not in size_dims]
                    module = _Weights(self.eager, sorted(self.weight_slots),
                                      len(args), args,
                                      dict(zip(values, sizes)), size_dims)
                    compiled = _compile.compile(
                        module, tuple(a.detach() for a in activations),
                        target=self.options["target"],
                        precision=self.options.get("precision"),
                        pipeline_options=self.options.get(
                            "pipeline_options", ""),
                        freeze=self.options.get("freeze"), dynamic=dims)
                    # Its calls' trace events say the partition and its
                    # operations: graph1_part0 [linear+gelu].
                    compiled.label = f"{self.name} [{'+'.join(self.ops)}]"
                    self.variants[sizes] = (module, compiled)
                else:
                    module, compiled = self.variants[sizes]
                    module.set_weights(args)
                    compiled.variant(tuple(a.detach() for a in activations))
        except Exception as e:  # noqa: BLE001 - any refusal falls back
            if self.dynamic:
                # Not with dynamic dimensions: specialized on the sizes
                # instead, as before (the compiled entries say why).
                lines = str(e).splitlines()
                self.specialized = (f"{type(e).__name__}: "
                                    f"{lines[0] if lines else ''}")
                self.dynamic = None
                return False
            # (The build and the target were checked by backend(): what
            # fails here is this partition.)
            lines = str(e).splitlines()
            reason = f"{type(e).__name__}: {lines[0] if lines else ''}"
            self.failed[signature] = reason
            _report.record(_report.FELL_BACK, self.name, self.ops, reason,
                           detail)
            return False
        why = (f" (specialized: with dynamic dimensions, {self.specialized})"
               if self.specialized else "")
        _report.record(_report.COMPILED, self.name, self.ops,
                       detail=f"{detail} in "
                              f"{time.perf_counter() - start:.2f} s{why}")
        return True


def _options(options):
    options = dict(options or {})
    known = {"target", "precision", "pipeline_options", "freeze",
             "epilogues"}
    unknown = set(options) - known
    if unknown:
        raise ValueError(f"xpu_opt: unknown torch.compile option(s) "
                         f"{', '.join(sorted(unknown))} for backend "
                         f"'xpu_opt' (known: {', '.join(sorted(known))})")
    options.setdefault("target", os.environ.get("XPU_OPT_TARGET", "cpu"))
    options.setdefault("epilogues", True)
    return options


_graphs = [0]


def backend(gm, example_inputs, options=None, **unused):
    """The Dynamo backend: `torch.compile(model, backend="xpu_opt")` (or
    backend=xpu_opt.dynamo_backend). Returns the graph with its GEMM-rooted
    partitions compiled by xpu-opt and the rest run by PyTorch."""
    from torch.fx.passes.utils.fuser_utils import fuse_by_partitions
    options = _options(options)
    # A missing build or an unknown or unavailable target is the user's
    # setup, not a partition's: it raises here, before anything runs.
    _paths.xpu_run()
    _targets.require(options["target"])
    _graphs[0] += 1
    prefix = f"graph{_graphs[0]}_part"
    weights = _weight_placeholders(gm, example_inputs)
    parts = partition(gm, options["epilogues"])
    ops_of = [[_op_name(n) for n in part] for part in parts]
    in_parts = {n for part in parts for n in part}
    _record_eager(gm, in_parts)
    if not parts:
        return gm.forward
    fused = fuse_by_partitions(gm, [dict.fromkeys(p) for p in parts],
                               prefix=prefix)
    for node in list(fused.graph.nodes):
        if node.op != "call_module" or not node.target.startswith(prefix):
            continue
        index = int(node.target[len(prefix):])
        slots = [i for i, a in enumerate(node.args)
                 if isinstance(a, torch.fx.Node) and (
                     (a.op == "placeholder" and a.target in weights)
                     or a.op == "get_attr")]
        sizes = [i for i, a in enumerate(node.args)
                 if isinstance(a, torch.fx.Node) and _is_size(a)]
        sub = fused.get_submodule(node.target)
        runner = _Partition(node.target, sub, slots, sizes, ops_of[index],
                            options, _dynamic_plan(node, slots, sizes,
                                                   options))
        setattr(fused, node.target, runner)
    fused.recompile()
    return fused.forward


def _symbol(value):
    """The sympy expression of a SymInt that is still symbolic (not
    specialized to a number by a guard), else None."""
    if not isinstance(value, torch.SymInt):
        return None
    node = value.node
    expr = node.expr
    env = getattr(node, "shape_env", None)
    if env is not None:
        expr = env.replace(expr)
    return None if expr.is_number else expr


def _dynamic_plan(node, weight_slots, size_slots, options):
    """For a partition of a dynamic-shape graph on a target that compiles
    dynamic dimensions (_compile.DYNAMIC_TARGETS): the
    dynamic dimensions of each activation (its symbolic sizes) and, for
    each size argument that is symbolic, the activation dimension it is
    (the other sizes, float attributes and specialized numbers, are
    specialized on as before); None when the partition has no symbolic
    size, or a symbolic size that is not a dimension of an activation
    (then it is specialized on every size)."""
    if options["target"] not in _compile.DYNAMIC_TARGETS:
        return None
    activations = [a for i, a in enumerate(node.args)
                   if i not in weight_slots and i not in size_slots]
    dims, where = [], {}
    for j, a in enumerate(activations):
        value = a.meta.get("example_value") if isinstance(
            a, torch.fx.Node) else None
        if not isinstance(value, torch.Tensor):
            return None
        marked = []
        for d, size in enumerate(value.shape):
            expr = _symbol(size)
            if expr is not None:
                marked.append(d)
                where.setdefault(expr, (j, d))
        dims.append(tuple(marked))
    if not any(dims):
        return None
    size_dims = {}
    for i in size_slots:
        value = node.args[i].meta.get("example_value")
        expr = _symbol(value)
        if expr is None and isinstance(value, torch.SymInt):
            continue  # specialized to a number: a value like any other
        if isinstance(value, (float, torch.SymFloat)):
            continue  # a float attribute (layer_norm's eps): its value
        if expr is None or expr not in where:
            return None
        size_dims[i] = where[expr]
    return tuple(dims), size_dims


def _record_eager(gm, in_parts):
    """One report entry per tensor operation that runs as PyTorch, with
    the reason (counts for repeats); views, tuple indexing and size
    arithmetic are left out."""
    counts = {}
    for node in gm.graph.nodes:
        if node.op not in ("call_function", "call_method", "call_module") \
                or node in in_parts or node.target is operator.getitem:
            continue
        value = node.meta.get("example_value")
        if not isinstance(value, torch.Tensor) and not (
                isinstance(value, (tuple, list)) and
                any(isinstance(v, torch.Tensor) for v in value)):
            continue  # sizes and other Python values: no tensor work
        k = kind(node)
        if k is None:
            reason = "not a GEMM, an elementwise epilogue or a row reduction"
        elif k == GEMM:
            reason = "a GEMM whose inputs are not all tensors"
        else:
            reason = "not in the epilogue of a GEMM"
        if k == VIEW:
            continue  # views cost PyTorch nothing
        key = (_op_name(node), reason)
        counts[key] = counts.get(key, 0) + 1
    for (name, reason), n in counts.items():
        _report.record(_report.EAGER, name + (f" x{n}" if n > 1 else ""),
                       (), reason)


def dynamo_backend(**options):
    """A backend with options, for torch.compile(backend=...):
    xpu_opt.dynamo_backend(target="opencl")."""
    options = _options(options)

    def configured(gm, example_inputs, **kwargs):
        return backend(gm, example_inputs, options=options)
    return configured


def _register_now():
    from torch._dynamo.backends import registry
    if NAME in registry._COMPILER_FNS or registry._BACKENDS.get(NAME):
        return  # registered, or torch will load it from the entry point
    registry.register_backend(backend, name=NAME)


class _WhenDynamoLoads(importlib.abc.MetaPathFinder):
    """Registers the backend right after torch._dynamo is imported (which
    torch.compile does on its first call): importing Dynamo on `import
    xpu_opt` would cost every user of xpu_opt a second or more."""

    def find_spec(self, name, path, target=None):
        if name != "torch._dynamo":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            _register_now()
        spec.loader.exec_module = exec_module
        return spec


def register():
    """Makes `torch.compile(model, backend="xpu_opt")` work after `import
    xpu_opt` (which calls this): registers the backend now if Dynamo is
    loaded, else as soon as it is. Where the package metadata is installed
    (scripts/setup.sh), torch finds the backend through the
    torch_dynamo_backends entry point even without the import."""
    if "torch._dynamo" in sys.modules:
        _register_now()
    elif importlib.util.find_spec("torch._dynamo") is not None and not any(
            isinstance(f, _WhenDynamoLoads) for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenDynamoLoads())
