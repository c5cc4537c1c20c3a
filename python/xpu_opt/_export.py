"""PyTorch module -> linalg-on-tensors MLIR text, with torch-mlir.

The module's parameters and buffers become arguments of @forward after its
inputs, each marked `xpu.weight`, so that xpu-outline-weight-pack knows the
weights from the activations (the second operand of a bmm is an activation,
not a weight). With freeze=True they are constants in the IR instead
(torch-mlir's default), which the compiler folds at compile time.
"""

import torch

FUNC_NAME = "forward"


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


class _WeightsAsArguments(torch.nn.Module):
    """Calls `module` with its weights passed as extra inputs."""

    def __init__(self, module, names, num_inputs):
        super().__init__()
        self.inner = module
        self.names = names
        self.num_inputs = num_inputs

    def forward(self, *args):
        inputs = args[:self.num_inputs]
        weights = dict(zip(self.names, args[self.num_inputs:]))
        return torch.func.functional_call(self.inner, weights, inputs)


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
           func_name: str = FUNC_NAME) -> str:
    """The module as linalg-on-tensors MLIR text (what xpu-opt reads).

    `example_inputs` is a tuple of tensors (or one tensor); the function is
    specialized on their shapes and dtypes. Without `freeze`, @forward takes
    the inputs, then every parameter and buffer (marked `xpu.weight`), in
    the order of `named_parameters()` then `named_buffers()`.
    """
    from torch_mlir import fx
    if isinstance(example_inputs, torch.Tensor):
        example_inputs = (example_inputs,)
    example_inputs = tuple(example_inputs)
    module = module.eval()
    with torch.no_grad():
        if freeze:
            imported = fx.export_and_import(
                module, *example_inputs, output_type="linalg-on-tensors",
                func_name=func_name)
            return str(imported)
        names, weights = weights_of(module)
        wrapper = _WeightsAsArguments(module, names, len(example_inputs))
        imported = fx.export_and_import(
            wrapper, *example_inputs, *[w.detach() for w in weights],
            output_type="linalg-on-tensors", func_name=func_name)
    _mark_weights(imported, len(example_inputs), func_name)
    return str(imported)
