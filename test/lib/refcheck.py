#!/usr/bin/env python3
"""Checks a run's printed result against a float64 NumPy reference.

The integration tests build their inputs with test/Integration/CPU/Inputs/
gen.mlir; this script builds the same inputs in float64, evaluates the
reference expression given on the command line with NumPy, parses the memref
that the run printed (printMemrefF32) from standard input and compares:

    max |got - ref| / max(max |ref|, 1)  <=  tol

(the error relative to the result's scale; with --elementwise each element is
also checked against tol * max(|ref|, 1)). Exit status 0 means PASS; anything
else (a wrong value, a wrong shape, nothing printed) fails the test.

Example:
  xpu-run ... | refcheck.py --input x=16x64@1 --input w=32x64@2 \
      --input b=32@3 --expr "np.maximum(x @ w.T + b, 0)" --tol 1e-5
"""

import argparse
import re
import shlex
import sys

import numpy as np

COEFFS = (13, 7, 3)  # innermost dimension first, as in gen.mlir


def gen(shape, seed, pos=False):
    """The values gen.mlir's @gen1/@gen2/@gen3 produce, in float64."""
    idx = np.indices(shape, dtype=np.int64)
    rank = len(shape)
    lin = np.zeros(shape, dtype=np.int64)
    for d in range(rank):
        lin = lin + COEFFS[rank - 1 - d] * idx[d]
    v = (((lin + 5 * seed) % 23) - 11).astype(np.float64) / 8.0
    if pos:
        v = np.abs(v) + 0.5
    return v


def parse_input(spec):
    # name=AxBxC@seed[:pos]
    m = re.fullmatch(r"(\w+)=([0-9x]+)@(\d+)(:pos)?", spec)
    if not m:
        raise SystemExit("refcheck: bad --input '%s' (want name=AxB@seed[:pos])"
                         % spec)
    shape = tuple(int(s) for s in m.group(2).split("x"))
    return m.group(1), gen(shape, int(m.group(3)), bool(m.group(4)))


def parse_memrefs(text):
    """Every memref printMemrefF32 printed: (sizes, flat float64 data)."""
    out = []
    for m in re.finditer(r"sizes = \[([0-9, ]*)\] strides = \[[0-9, ]*\] data =",
                         text):
        sizes = tuple(int(s) for s in m.group(1).split(",") if s.strip())
        start = m.end()
        nxt = text.find("Unranked Memref", start)
        body = text[start: nxt if nxt >= 0 else len(text)]
        nums = re.findall(r"[-+]?(?:nan|inf|\d+\.?\d*(?:e[-+]?\d+)?)", body)
        out.append((sizes, np.array([float(n) for n in nums], dtype=np.float64)))
    return out


def gelu(x):
    from math import erf
    return 0.5 * x * (1.0 + np.vectorize(erf)(x / np.sqrt(2.0)))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def spec_arguments(path):
    """The refcheck arguments of the `%{check}` lit DEFINE in a test file.

    A model's reference is written once, next to the model; runs of the same
    model on other targets reuse it with --spec-from.
    """
    lines = []
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*//\s*DEFINE:(.*)", line)
            if m:
                lines.append(m.group(1).rstrip())
    text = ""
    for line in lines:
        text += line[:-1] + " " if line.endswith("\\") else line + "\n"
    for define in text.splitlines():
        m = re.match(r"\s*%\{check\}\s*=\s*%refcheck\s+(.*)", define)
        if m:
            return shlex.split(m.group(1))
    sys.exit("refcheck: no '%%{check} = %%refcheck ...' DEFINE in %s" % path)


def main():
    if "--spec-from" in sys.argv:
        i = sys.argv.index("--spec-from")
        if i + 1 >= len(sys.argv):
            sys.exit("refcheck: --spec-from needs a file")
        sys.argv[i:i + 2] = spec_arguments(sys.argv[i + 1])
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--input", action="append", default=[],
                    help="name=AxB@seed[:pos], in the order @main builds them")
    ap.add_argument("--expr", required=True,
                    help="NumPy expression of the reference (np, gelu, sigmoid "
                         "and the inputs are in scope)")
    ap.add_argument("--tol", type=float, default=1e-5,
                    help="tolerance on the error relative to the result scale")
    ap.add_argument("--elementwise", action="store_true",
                    help="also bound every element's error by tol*max(|ref|,1)")
    ap.add_argument("--index", type=int, default=0,
                    help="which printed memref to check (default: the first)")
    args = ap.parse_args()

    env = {"np": np, "gelu": gelu, "sigmoid": sigmoid}
    for spec in args.input:
        name, value = parse_input(spec)
        env[name] = value
    ref = np.asarray(eval(args.expr, env), dtype=np.float64)

    text = sys.stdin.read()
    printed = parse_memrefs(text)
    if len(printed) <= args.index:
        print("FAIL: expected a printed memref #%d, found %d" %
              (args.index, len(printed)))
        print(text[:2000])
        return 1
    sizes, data = printed[args.index]
    if sizes != ref.shape:
        print("FAIL: printed shape %s, reference shape %s" % (sizes, ref.shape))
        return 1
    if data.size != ref.size:
        print("FAIL: printed %d values for shape %s" % (data.size, sizes))
        return 1
    got = data.reshape(ref.shape)
    if not np.all(np.isfinite(got)):
        print("FAIL: the result has non-finite values")
        return 1
    scale = max(float(np.max(np.abs(ref))), 1.0)
    err = float(np.max(np.abs(got - ref))) / scale
    worst = np.unravel_index(np.argmax(np.abs(got - ref)), ref.shape)
    status = err <= args.tol
    if args.elementwise:
        bound = args.tol * np.maximum(np.abs(ref), 1.0)
        status = status and bool(np.all(np.abs(got - ref) <= bound))
    print("%s: max relative error %.3e (tolerance %.1e) over %d elements; "
          "worst at %s: got %r, reference %r" %
          ("PASS" if status else "FAIL", err, args.tol, ref.size,
           tuple(int(i) for i in worst), float(got[worst]), float(ref[worst])))
    return 0 if status else 1


if __name__ == "__main__":
    sys.exit(main())
