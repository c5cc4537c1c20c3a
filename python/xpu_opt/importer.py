"""xpu-import: a Python file's PyTorch module to linalg-on-tensors .mlir.

    python -m xpu_opt.importer examples/pytorch/linear_relu.py -o model.mlir \
        [--freeze] [--save-inputs DIR]

The file follows KernelBench's convention: `class Model(nn.Module)`,
`get_inputs()` and `get_init_inputs()`. Without --freeze, @forward takes the
inputs, then the parameters and buffers (marked xpu.weight). --save-inputs
writes every argument of @forward as DIR/arg<N>.npy, for
`xpu-run --input=@DIR/arg0.npy ...`.
"""

import argparse
import pathlib
import sys


def main(argv=None):
    p = argparse.ArgumentParser(prog="xpu-import", description=__doc__,
                                formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("file", help="Python file defining Model and get_inputs")
    p.add_argument("-o", "--output", default="-",
                   help="output .mlir file (default: stdout)")
    p.add_argument("--model", default="Model",
                   help="name of the module class or instance (default Model)")
    p.add_argument("--freeze", action="store_true",
                   help="weights as constants instead of arguments")
    p.add_argument("--save-inputs", metavar="DIR",
                   help="write each argument of @forward as DIR/argN.npy")
    args = p.parse_args(argv)

    import numpy as np
    import torch

    from . import _export, _kernelbench
    model, inputs = _kernelbench.load(args.file, args.model)
    text = _export.export(model, inputs, freeze=args.freeze)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        pathlib.Path(args.output).write_text(text)
    if args.save_inputs:
        out = pathlib.Path(args.save_inputs)
        out.mkdir(parents=True, exist_ok=True)
        values = list(inputs)
        if not args.freeze:
            values += _export.weights_of(model)[1]
        for i, t in enumerate(values):
            t = t.detach()
            if t.dtype == torch.bfloat16:
                t = t.float()  # NumPy has no bf16; xpu-run converts back
            np.save(out / f"arg{i}.npy", t.numpy())
    return 0


if __name__ == "__main__":
    sys.exit(main())
