#!/usr/bin/env python3
"""Writes inputs as .npy files, or checks a .npy result against a float64
NumPy reference.

  npycheck.py make DIR name=SHAPE@SEED[:pos][:DTYPE] ...
      writes DIR/name.npy for each (values of refcheck.py's generator, so
      exact in f32; DTYPE float32 by default). An integer DTYPE gets
      integers that cover its range up to 8 bits, (37 l + 11 seed) mod 256
      - 128 for the element's linear index l (int8: -128 to 127)
  npycheck.py check RESULT.npy --expr EXPR --tol TOL --inputs DIR name ...
      evaluates EXPR with NumPy in float64 on the named inputs and compares:
      max |got - ref| / max(max |ref|, 1) <= TOL

Exit status 0 means PASS.
"""

import argparse
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from refcheck import gen  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("dir")
    m.add_argument("specs", nargs="+")
    c = sub.add_parser("check")
    c.add_argument("result")
    c.add_argument("--expr", required=True)
    c.add_argument("--tol", type=float, required=True)
    c.add_argument("--inputs", nargs="+", required=True,
                   help="DIR then the names of the inputs in it")
    args = p.parse_args()
    if args.cmd == "make":
        os.makedirs(args.dir, exist_ok=True)
        for spec in args.specs:
            mm = re.fullmatch(r"(\w+)=([0-9x]+)@(\d+)(:pos)?(?::(\w+))?", spec)
            if not mm:
                raise SystemExit(f"npycheck: bad spec '{spec}'")
            shape = tuple(int(s) for s in mm.group(2).split("x"))
            dtype = np.dtype(mm.group(5) or "float32")
            if np.issubdtype(dtype, np.integer):
                lin = np.arange(int(np.prod(shape)), dtype=np.int64)
                v = ((37 * lin + 11 * int(mm.group(3))) % 256 - 128)
                v = v.reshape(shape)
            else:
                v = gen(shape, int(mm.group(3)), bool(mm.group(4)))
            np.save(os.path.join(args.dir, mm.group(1) + ".npy"),
                    v.astype(dtype))
        return 0
    env = {"np": np}
    for name in args.inputs[1:]:
        env[name] = np.load(os.path.join(args.inputs[0], name + ".npy")).astype(
            np.float64)
    ref = np.asarray(eval(args.expr, env), dtype=np.float64)
    got = np.load(args.result)
    if got.shape != ref.shape:
        print(f"FAIL: result shape {got.shape}, reference {ref.shape}")
        return 1
    got = got.astype(np.float64)
    err = np.max(np.abs(got - ref)) / max(np.max(np.abs(ref)), 1.0)
    verdict = "PASS" if err <= args.tol else "FAIL"
    print(f"{verdict}: max relative error {err:.3e} (tolerance {args.tol:.1e}) "
          f"over {ref.size} elements, dtype {np.load(args.result).dtype}")
    return 0 if verdict == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
