"""xpu_opt.optimize(model, example_inputs): compiled submodules in place,
for users who want no torch.compile (the seed's injection route).

The model runs once on the example inputs (in PyTorch) to see which
submodules are called with which tensors. Then, from the top of the
module tree down, a submodule is compiled whole when it is an MLP block
(a module of Linear layers and activations whose class name ends in MLP
or Intermediate, as GPT-2, BERT and Llama name theirs, or an
nn.Sequential of Linear layers and activations) or a single Linear layer
(or transformers' Conv1D); an nn.Sequential's Linear followed by its
activation compiles as one. The submodule keeps its parameters and its
place in the model (its `forward` is replaced), so state_dict,
load_state_dict, safetensors checkpoints and weight updates work as
before: the compiled code reads the weights on every call and repacks them
when they change (xpu_opt.compile's freeze=False).

A submodule that does not compile, or a call with inputs it was not
compiled for that then do not compile, runs as PyTorch; xpu_opt.report()
says which and why.
"""

import types

import torch

from . import _report

_ACTIVATIONS = (torch.nn.ReLU, torch.nn.GELU, torch.nn.SiLU, torch.nn.Tanh,
                torch.nn.Sigmoid, torch.nn.Mish, torch.nn.LeakyReLU,
                torch.nn.ELU, torch.nn.Hardtanh)
_BLOCK_SUFFIXES = ("MLP", "Mlp", "Intermediate")


def _is_linear(module):
    if isinstance(module, torch.nn.Linear):
        return True
    # transformers.pytorch_utils.Conv1D (GPT-2): a Linear with its weight
    # stored [in, out].
    return type(module).__name__ == "Conv1D" and hasattr(module, "nf")


def _is_activation(module):
    if isinstance(module, _ACTIVATIONS):
        return True
    # transformers' activations (NewGELUActivation, GELUActivation, ...).
    return type(module).__module__.endswith("activations") and not any(
        True for _ in module.parameters())


def _is_block(module):
    children = list(module.children())
    if not children or not any(_is_linear(c) for c in children):
        return False
    allowed = all(_is_linear(c) or _is_activation(c) or
                  isinstance(c, torch.nn.Dropout) for c in children)
    if isinstance(module, torch.nn.Sequential):
        return allowed
    return allowed and type(module).__name__.endswith(_BLOCK_SUFFIXES)


class _Original(torch.nn.Module):
    """Runs its modules' class forwards, one into the next (a Linear and
    its activation), whatever their instance forwards were replaced with:
    the module that is compiled, and exported again for new shapes."""

    def __init__(self, *modules):
        super().__init__()
        self.parts = torch.nn.ModuleList(modules)

    def forward(self, *args):
        for m in self.parts:
            args = (type(m).forward(m, *args),)
        return args[0]


class _Replacement:
    """The new forward of one submodule: the compiled module for the
    inputs it was compiled for (or that compile), else the old forward."""

    def __init__(self, name, module, compiled, forward):
        self.name = name
        self.module = module
        self.compiled = compiled
        self.forward = forward
        self.failed = set()

    def __call__(self, *args, **kwargs):
        if kwargs or not all(isinstance(a, torch.Tensor) for a in args) \
                or (torch.is_grad_enabled() and any(
                    t.requires_grad for t in list(args) +
                    list(self.module.parameters()))):
            return self.forward(*args, **kwargs)
        signature = tuple((tuple(a.shape), a.dtype) for a in args)
        if signature in self.failed:
            return self.forward(*args)
        try:
            self.compiled.variant(args)
        except Exception as e:  # noqa: BLE001 - every refusal falls back
            self.failed.add(signature)
            _report.record(_report.FELL_BACK, self.name,
                           (type(self.module).__name__,),
                           f"{type(e).__name__}: {e}")
            return self.forward(*args)
        return self.compiled(*args)


def _inputs_seen(model, example_inputs, example_kwargs):
    """{module: its first call's positional tensor inputs} from one eager
    run; modules called with keywords or non-tensors are left out."""
    seen, hooks = {}, []

    def hook(module, args, kwargs):
        if module not in seen:
            ok = not kwargs and args and all(isinstance(a, torch.Tensor)
                                             for a in args)
            seen[module] = tuple(a.detach() for a in args) if ok else None

    for m in model.modules():
        hooks.append(m.register_forward_pre_hook(hook, with_kwargs=True))
    try:
        with torch.no_grad():
            model(*example_inputs, **example_kwargs)
    finally:
        for h in hooks:
            h.remove()
    return {m: a for m, a in seen.items() if a is not None}


def _pairs(sequential):
    """(linear, activation) pairs of consecutive children."""
    children = list(sequential.children())
    return [(a, b) for a, b in zip(children, children[1:])
            if _is_linear(a) and _is_activation(b)]


def optimize(model, example_inputs, target="cpu", precision=None,
             example_kwargs=None, **compile_options):
    """Replaces, in place, the forward of `model`'s MLP blocks and Linear
    layers (with their activation, in an nn.Sequential) with xpu-opt
    compiled code; returns the model, and the names of what was compiled
    (model.xpu_opt_compiled). See the module docstring.

        model = transformers.GPT2LMHeadModel(config).eval()
        xpu_opt.optimize(model, (input_ids,))
        logits = model(input_ids).logits     # MLPs run compiled

    `example_inputs` (a tuple, or one tensor) and `example_kwargs` are
    what model(...) takes; the model must be in eval mode. Other arguments
    are xpu_opt.compile's.
    """
    from . import _compile
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    if any(m.training for m in model.modules()):
        raise ValueError("xpu_opt: optimize() compiles inference only: call "
                         "model.eval() first")
    seen = _inputs_seen(model, tuple(example_inputs), example_kwargs or {})
    names = {m: n for n, m in model.named_modules()}
    done = []

    def replace(modules, inputs, label):
        module = modules[0]
        compiled_module = _Original(*modules)
        try:
            compiled = _compile.compile(compiled_module, inputs,
                                        target=target, precision=precision,
                                        **compile_options)
        except Exception as e:  # noqa: BLE001 - every refusal falls back
            _report.record(_report.FELL_BACK, label,
                           tuple(type(m).__name__ for m in modules),
                           f"{type(e).__name__}: {e}")
            return False
        compiled.label = label  # of its calls in traces
        module.forward = types.MethodType(
            lambda self, *a, _r=_Replacement(label, module, compiled,
                                             module.forward), **k: _r(*a, **k),
            module)
        shapes = ", ".join(str(tuple(t.shape)) for t in inputs)
        _report.record(_report.COMPILED, label,
                       tuple(type(m).__name__ for m in modules),
                       detail=f"{shapes} -> {target}")
        done.append(label)
        return True

    def visit(module):
        label = names[module] or type(module).__name__
        if module in seen and (_is_block(module) or _is_linear(module)):
            if replace([module], seen[module], label):
                return
        if isinstance(module, torch.nn.Sequential):
            for linear, act in _pairs(module):
                if linear in seen:
                    if replace([linear, act], seen[linear],
                               f"{names[linear]}+{names[act]}"):
                        act.forward = types.MethodType(lambda self, x: x, act)
                        seen.pop(linear)
        for child in module.children():
            if child in seen or any(True for _ in child.children()):
                visit(child)

    visit(model)
    model.xpu_opt_compiled = done
    return model
