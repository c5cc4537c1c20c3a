"""Loading a KernelBench-style model file: a `Model` class (an nn.Module),
`get_inputs()` (the forward inputs) and `get_init_inputs()` (the
constructor's arguments)."""

import importlib.util
import pathlib
import sys


def load(path, model_name="Model"):
    """(module instance, inputs) from a KernelBench-style file."""
    path = pathlib.Path(path)
    if not path.exists():
        raise SystemExit(f"xpu_opt: no such file: {path}")
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = mod
    spec.loader.exec_module(mod)
    if not hasattr(mod, model_name):
        raise SystemExit(f"xpu_opt: {path} defines no '{model_name}' (a "
                         "KernelBench file defines class Model, get_inputs() "
                         "and get_init_inputs())")
    if not hasattr(mod, "get_inputs"):
        raise SystemExit(f"xpu_opt: {path} defines no get_inputs()")
    init = mod.get_init_inputs() if hasattr(mod, "get_init_inputs") else []
    cls = getattr(mod, model_name)
    model = cls(*init) if isinstance(cls, type) else cls
    return model.eval(), tuple(mod.get_inputs())
