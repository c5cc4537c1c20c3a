#!/usr/bin/env python3
"""Checks the accuracy of a compiled f32 math function against NumPy in
float64.

The test program (test/Integration/CPU/math/Inputs/sweep.mlir) prints two
i32 memrefs with printMemrefI32: the bit patterns of the f32 inputs x and of
the results y = f(x). This script reinterprets them as float32 (exactly, no
decimal round trip), evaluates f on x in float64 and reports the error in
units in the last place of f32 at the reference value:

    ulp_err = |y - ref| / ulp32(ref),  ulp32(r) = 2^(floor(log2 |r|) - 23)

for references in the normal f32 range. The approximations flush subnormal
results to zero: a reference below the smallest normal (2^-126) in magnitude
only needs |y - ref| <= 2^-126. A reference outside the f32 range must give
an infinity of the same sign (or the largest finite float); a NaN reference
must give NaN. Exit status 0 means every point is within
--tol-ulp; anything else fails the test.

With --tol-rel R --tol-abs A instead (the accuracy budget of the GPU's
approximate instructions, xpu-nvvm-fast-math), every reference inside the
f32 range, subnormal ones included, needs

    |y - ref| <= R |ref| + A,

and the report gives the largest share of that bound used.

Examples:
  xpu-run sweep.mlir ... | mathcheck.py exp --tol-ulp 2
  xpu-run --target=cuda sweep.mlir ... | mathcheck.py tanh \
      --tol-rel 0.0009765625 --tol-abs 9.5367431640625e-07
"""

import argparse
import math
import re
import sys

import numpy as np

REFERENCES = {
    "exp": np.exp,
    "expm1": np.expm1,
    "log": np.log,
    "log1p": np.log1p,
    "log2": np.log2,
    "exp2": np.exp2,
    "tanh": np.tanh,
    "recip": np.reciprocal,
    "erf": np.vectorize(math.erf, otypes=[np.float64]),
    "erfc": np.vectorize(math.erfc, otypes=[np.float64]),
}


def parse_i32_memrefs(text):
    out = []
    for m in re.finditer(r"sizes = \[([0-9, ]*)\] strides = \[[0-9, ]*\] data =",
                         text):
        start = m.end()
        nxt = text.find("Unranked Memref", start)
        body = text[start: nxt if nxt >= 0 else len(text)]
        nums = re.findall(r"-?\d+", body)
        out.append(np.array([int(n) for n in nums], dtype=np.int64))
    return out


def ulp32(ref):
    a = np.abs(ref)
    tiny = np.float64(2.0 ** -126)
    e = np.floor(np.log2(np.where(a >= tiny, a, tiny)))
    return np.where(a >= tiny, np.exp2(e - 23), 2.0 ** -149)


def over_ok(y, ref):
    """Where y is the infinity (or largest float) of an overflowing ref."""
    flt_max = float(np.finfo(np.float32).max)
    return (np.sign(y) == np.sign(ref)) & (np.abs(y) >= flt_max)


def check_budget(args, x, y, ref, nan_ref, over, over_fine):
    """The --tol-rel/--tol-abs check: |y - ref| <= R |ref| + A."""
    bad = []
    if np.any(nan_ref & ~np.isnan(y)):
        i = int(np.argmax(nan_ref & ~np.isnan(y)))
        bad.append("x=%r: got %r, reference NaN" % (x[i], y[i]))
    if np.any(over & ~over_fine):
        i = int(np.argmax(over & ~over_fine))
        bad.append("x=%r: got %r, reference %r overflows f32" % (x[i], y[i],
                                                                  ref[i]))
    inside = ~nan_ref & ~over
    bound = args.tol_rel * np.abs(ref) + args.tol_abs
    with np.errstate(all="ignore"):
        use = np.where(inside, np.abs(y - ref) / bound, 0.0)
    use = np.where(inside & ~np.isfinite(y), np.inf, use)
    worst = int(np.argmax(use))
    with np.errstate(all="ignore"):
        rel = np.where(inside & (np.abs(ref) >= 2.0 ** -126),
                       np.abs(y - ref) / np.abs(ref), 0.0)
    status = not bad and float(use[worst]) <= 1.0
    print("%s: %s over %d points in [%g, %g] (%d inside the f32 range, %d "
          "overflowing): error at most %.3f of the bound %g |ref| + %g, max "
          "relative error %.2e (normal results); worst at x=%r: got %r, "
          "reference %r" %
          ("PASS" if status else "FAIL", args.function, x.size,
           float(np.min(x)), float(np.max(x)), int(np.sum(inside)),
           int(np.sum(over)), float(use[worst]), args.tol_rel, args.tol_abs,
           float(np.max(rel)), float(x[worst]), float(y[worst]),
           float(ref[worst])))
    for b in bad:
        print("FAIL: " + b)
    return 0 if status else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("function", choices=sorted(REFERENCES))
    ap.add_argument("--tol-ulp", type=float,
                    help="largest error allowed, in f32 ulps of the reference")
    ap.add_argument("--tol-rel", type=float,
                    help="relative part R of the bound R |ref| + A")
    ap.add_argument("--tol-abs", type=float,
                    help="absolute part A of the bound R |ref| + A")
    args = ap.parse_args()
    budget = args.tol_rel is not None or args.tol_abs is not None
    if budget == (args.tol_ulp is not None) or \
            (budget and (args.tol_rel is None or args.tol_abs is None)):
        ap.error("give either --tol-ulp or both --tol-rel and --tol-abs")

    text = sys.stdin.read()
    printed = parse_i32_memrefs(text)
    if len(printed) != 2 or printed[0].size != printed[1].size or \
            printed[0].size == 0:
        print("FAIL: expected two printed i32 memrefs of the same size, got %s"
              % [p.size for p in printed])
        print(text[:2000])
        return 1
    x = printed[0].astype(np.uint32).view(np.float32).astype(np.float64)
    y = printed[1].astype(np.uint32).view(np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        ref = REFERENCES[args.function](x)

    flt_max = float(np.finfo(np.float32).max)
    tiny = 2.0 ** -126
    nan_ref = np.isnan(ref)
    over = ~nan_ref & (np.abs(ref) > flt_max)
    sub = ~nan_ref & (np.abs(ref) < tiny)
    normal = ~nan_ref & ~over & ~sub
    bad = []
    if budget:
        return check_budget(args, x, y, ref, nan_ref, over, over_ok(y, ref))
    sub_bad = sub & ~(np.abs(y - ref) <= tiny)
    if np.any(sub_bad):
        i = int(np.argmax(sub_bad))
        bad.append("x=%r: got %r, subnormal reference %r" % (x[i], y[i],
                                                              ref[i]))
    if np.any(nan_ref & ~np.isnan(y)):
        i = int(np.argmax(nan_ref & ~np.isnan(y)))
        bad.append("x=%r: got %r, reference NaN" % (x[i], y[i]))
    if np.any(over & ~over_ok(y, ref)):
        i = int(np.argmax(over & ~over_ok(y, ref)))
        bad.append("x=%r: got %r, reference %r overflows f32" % (x[i], y[i],
                                                                  ref[i]))
    with np.errstate(all="ignore"):
        err = np.where(normal, np.abs(y - ref) / ulp32(ref), 0.0)
    err = np.where(normal & ~np.isfinite(y), np.inf, err)
    worst = int(np.argmax(err))
    with np.errstate(all="ignore"):
        rel = np.where(normal & (ref != 0), np.abs(y - ref) / np.abs(ref), 0.0)
    status = not bad and float(err[worst]) <= args.tol_ulp
    print("%s: %s over %d points in [%g, %g] (%d normal results, %d "
          "subnormal, %d overflowing): max error %.2f ulp (tolerance %g ulp), "
          "max relative error %.2e; worst at x=%r: got %r, reference %r" %
          ("PASS" if status else "FAIL", args.function, x.size,
           float(np.min(x)), float(np.max(x)), int(np.sum(normal)),
           int(np.sum(sub)), int(np.sum(over)), float(err[worst]),
           args.tol_ulp, float(np.max(rel)), float(x[worst]),
           float(y[worst]), float(ref[worst])))
    for b in bad:
        print("FAIL: " + b)
    return 0 if status else 1


if __name__ == "__main__":
    sys.exit(main())
