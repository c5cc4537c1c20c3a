#!/usr/bin/env python3
"""Compiles a KernelBench-style model with xpu_opt and checks it against a
float64 PyTorch reference (the model and its float inputs in float64):

    max |got - ref| / max(max |ref|, 1)  <=  --tol

Then checks what the tests of issue 14 need: a second call gives the same
result without packing the weights again, the weights are arguments marked
xpu.weight (--expect-weights), and another batch size compiles a new
variant that is also correct (--batch). Prints one PASS line, or exits 1.
"""

import argparse
import sys

import torch

import xpu_opt
from xpu_opt import _kernelbench
from xpu_opt.bench import reference, relative_error


def check(fast, model, inputs, tol, what):
    got = fast(*inputs)
    ref = reference(model, inputs)
    if isinstance(ref, tuple):
        raise SystemExit("check_model: models with several results are "
                         "not supported here")
    if tuple(got.shape) != tuple(ref.shape):
        raise SystemExit(f"FAIL {what}: shape {tuple(got.shape)}, expected "
                         f"{tuple(ref.shape)}")
    if got.dtype != inputs[0].dtype and inputs[0].is_floating_point():
        raise SystemExit(f"FAIL {what}: dtype {got.dtype}, expected "
                         f"{inputs[0].dtype}")
    err = relative_error(got, ref)
    print(f"{what}: max relative error {err:.3e} (tolerance {tol:.1e})")
    if not err <= tol:
        raise SystemExit(f"FAIL {what}")
    return got


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--target", default="cpu")
    p.add_argument("--precision", default=None)
    p.add_argument("--tol", type=float, required=True)
    p.add_argument("--expect-weights", type=int, default=None)
    p.add_argument("--expect-pack", action="store_true",
                   help="the compiled program must have a weight-pack part")
    p.add_argument("--batch", type=int, default=None,
                   help="also run with this size of the first input's dim 0")
    args = p.parse_args()

    torch.manual_seed(0)
    model, inputs = _kernelbench.load(args.file)
    fast = xpu_opt.compile(model, inputs, target=args.target,
                           precision=args.precision)
    if args.expect_weights is not None:
        marks = fast.mlir.count("xpu.weight")
        if marks != args.expect_weights:
            raise SystemExit(f"FAIL: {marks} arguments marked xpu.weight, "
                             f"expected {args.expect_weights}")
    first = check(fast, model, inputs, args.tol, "first call")
    variant = fast.variant(inputs)
    packed_key = variant.packed_key
    if args.expect_pack and not fast.packs_weights:
        raise SystemExit("FAIL: no weight-pack part (forward.pack)")
    second = fast(*inputs)
    if not torch.equal(first, second):
        raise SystemExit("FAIL: the second call gives another result")
    if variant.packed_key != packed_key:
        raise SystemExit("FAIL: the second call packed the weights again")
    # A changed weight is repacked.
    params = list(model.parameters())
    if params and fast.packs_weights:
        with torch.no_grad():
            params[0].mul_(0.5)
        check(fast, model, inputs, args.tol, "after a weight changed")
        if variant.packed_key == packed_key:
            raise SystemExit("FAIL: a changed weight was not repacked")
    if args.batch:
        other = [torch.cat([t] * (args.batch // t.shape[0] + 1))[:args.batch]
                 if i == 0 else t for i, t in enumerate(inputs)]
        check(fast, model, other, args.tol, f"batch {args.batch}")
        if len(fast._variants) != 2:
            raise SystemExit("FAIL: the new batch size did not compile a "
                             "variant of its own")
    print(f"PASS {args.file.split('/')[-1]} on {args.target} "
          f"(precision {fast.precision})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
