"""Every model of examples/pytorch through xpu_opt.compile on one target:
three calls with fresh random inputs, each compared with the float64
PyTorch reference (xpu_testlib), the weights marked xpu.weight (one mark per
parameter and buffer, none for a module without parameters), a second call
on the same inputs giving the same result, a changed weight seen, and
another batch size compiling a variant of its own.

    zoo.py --target=cpu|opencl

Tolerances, relative to max(max |ref|, 1):
  f32 models 1e-5 (f32 rounding of K <= 64 dot products);
  GELU(tanh) 1e-4: torch-mlir 20261001 writes sqrt(2/pi) as 0.797724, which
    alone moves the result by up to 5.1e-5;
  f64 1e-12; f16 7.8e-3 = 2 u sqrt(K) with u = 2^-11, K = 64 (and f16
  outputs); bf16 6.25e-2 = 2 u sqrt(K) with u = 2^-8 (cpu only: OpenCL
  SPIR-V has no bf16, which must be refused with the compiler's reason).
"""

import argparse
import pathlib
import sys

import torch

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import xpu_testlib as t  # noqa: E402

import xpu_opt  # noqa: E402
from xpu_opt import _kernelbench  # noqa: E402

ZOO = pathlib.Path(__file__).resolve().parents[2] / "examples" / "pytorch"
TOL = {"linear_gelu_tanh": 1e-4, "linear_gelu_f64": 1e-12,
       "linear_gelu_f16": 7.8e-3, "linear_gelu_bf16": 6.25e-2}


def check_model(path, target):
    name = path.stem
    tol = TOL.get(name, 1e-5)
    model, inputs = _kernelbench.load(path)
    if name == "linear_gelu_bf16" and target == "opencl":
        msg = t.raises(xpu_opt.CompileError,
                       lambda: xpu_opt.compile(model, inputs, target=target),
                       "to repeat it: ", first_line=("bf16", "error:"))
        assert "xpu-run failed" not in msg and "/tmp/xpu_opt-" not in msg, msg
        kept = msg.split("to repeat it: ")[1].split()[1]
        assert pathlib.Path(kept).exists(), f"{kept} does not exist"
        return "refused: " + msg.splitlines()[0][:120]
    fast = xpu_opt.compile(model, inputs, target=target)
    weights = len(list(model.parameters())) + len(list(model.buffers()))
    marks = fast.mlir.count("xpu.weight")
    assert marks == weights, f"{marks} xpu.weight marks, {weights} weights"
    worst = 0.0
    dtype = inputs[0].dtype
    for call in range(3):
        fresh = [t.fresh_like(x, 100 * call + i) for i, x in
                 enumerate(inputs)]
        worst = max(worst, t.compare(fast(*fresh), t.reference(model, fresh),
                                     tol, dtype))
    first = fast(*inputs)
    assert torch.equal(first, fast(*inputs)), "a second call differs"
    params = list(model.parameters())
    if params:
        with torch.no_grad():
            params[0].mul_(0.5)
        worst = max(worst, t.compare(fast(*inputs),
                                     t.reference(model, inputs), tol, dtype))
    if name == "linear_relu":
        other = [t.fresh_like(torch.empty(48, inputs[0].shape[1]), 7)]
        t.compare(fast(*other), t.reference(model, other), tol, dtype)
        assert len(fast._variants) == 2, "batch 48 made no variant"
    return f"max relative error {worst:.2e} (tolerance {tol:.1e})"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--target", required=True)
    args = p.parse_args()
    torch.manual_seed(0)
    for path in sorted(ZOO.glob("*.py")):
        t.case(f"{path.stem} on {args.target}")(
            lambda path=path: check_model(path, args.target))
    t.finish()


if __name__ == "__main__":
    main()
