"""What the Python tests share: an independent float64 PyTorch reference,
the error measure, subprocess runs for cases that could end a process, and
one PASS/FAIL line per case (the .test files check every PASS line, and no
FAIL may appear).

The reference is PyTorch itself in float64 (a deep copy of the module and
float copies of the inputs), never xpu_opt code; the error of a result is

    max |got - ref| / max(max |ref|, 1)

against a tolerance each test states next to the case.
"""

import argparse
import copy
import os
import pathlib
import shutil
import subprocess
import sys
import traceback

import torch

_failures = []


def reference(module, inputs):
    """The module's output in float64 (the module and its float inputs in
    float64; integer inputs as they are), on copies."""
    ref = copy.deepcopy(module).double()
    args = [t.detach().clone().double() if t.is_floating_point()
            else t.detach().clone() for t in inputs]
    with torch.no_grad():
        return ref(*args)


def rel_error(got, ref):
    got, ref = got.detach().double(), ref.detach().double()
    if got.shape != ref.shape:
        return float("inf")
    if not ref.numel():
        return 0.0
    scale = max(ref.abs().max().item(), 1.0)
    return (got - ref).abs().max().item() / scale


def compare(got, ref, tol, dtype=None):
    """Raises AssertionError unless `got` has the structure of `ref` and each
    tensor is within `tol` (and of `dtype` for floating tensors, when
    given). Returns the largest error."""
    g_leaves, g_spec = torch.utils._pytree.tree_flatten(got)
    r_leaves, r_spec = torch.utils._pytree.tree_flatten(ref)
    assert g_spec == r_spec, f"structure {g_spec} != {r_spec}"
    worst = 0.0
    for i, (g, r) in enumerate(zip(g_leaves, r_leaves)):
        if not isinstance(r, torch.Tensor):
            assert g == r, f"leaf #{i}: {g!r} != {r!r}"
            continue
        assert isinstance(g, torch.Tensor), f"leaf #{i} is a {type(g)}"
        if dtype is not None and r.is_floating_point():
            assert g.dtype == dtype, f"leaf #{i}: dtype {g.dtype} != {dtype}"
        err = rel_error(g, r)
        assert err <= tol, (f"leaf #{i}: max relative error {err:.3e} > "
                            f"tolerance {tol:.1e}")
        worst = max(worst, err)
    return worst


def target_and_scratch():
    """The --target and --dir arguments every per-target test takes: the
    target, and the scratch directory, emptied."""
    p = argparse.ArgumentParser()
    p.add_argument("--target", required=True)
    p.add_argument("--dir", required=True)
    args = p.parse_args()
    scratch = pathlib.Path(args.dir)
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    return args.target, scratch


def fresh_like(t, seed):
    """A new random tensor of `t`'s shape and dtype."""
    g = torch.Generator().manual_seed(seed)
    if t.is_floating_point():
        return torch.randn(t.shape, generator=g).to(t.dtype)
    if t.dtype == torch.bool:
        return torch.randint(0, 2, t.shape, generator=g).bool()
    return torch.randint(-4, 5, t.shape, generator=g).to(t.dtype)


class Skip(Exception):
    """A case this machine cannot run (printed as SKIP with the reason)."""


def case(name):
    """Decorator: runs the case now, prints PASS, SKIP or FAIL with the
    reason."""
    def run(fn):
        try:
            note = fn()
            print(f"PASS {name}" + (f": {note}" if note else ""), flush=True)
        except Skip as e:
            print(f"SKIP {name}: {e}", flush=True)
        except Exception as e:  # noqa: BLE001 - every failure is reported
            _failures.append(name)
            print(f"FAIL {name}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(file=sys.stdout)
        return fn
    return run


def raises(exc_type, fn, *contains, first_line=()):
    """Calls fn; returns the exception's message if it raises `exc_type`
    whose message contains every string of `contains` and whose first line
    contains every string of `first_line`; raises AssertionError
    otherwise."""
    try:
        fn()
    except exc_type as e:
        text = str(e)
        for s in contains:
            assert s in text, f"{s!r} not in the message: {text}"
        head = text.splitlines()[0] if text else ""
        for s in first_line:
            assert s in head, f"{s!r} not in the first line: {head}"
        return text
    raise AssertionError(f"no {exc_type.__name__} raised")


def run_python(code, env=None, timeout=600, uid=None):
    """Runs `code` in a fresh interpreter (cases that could end a process),
    as user `uid` when given (a root parent only). Returns (exit status,
    stdout, stderr); a status below 0 is a signal."""
    full_env = dict(os.environ)
    full_env.update(env or {})

    def drop():
        os.setgroups([])
        os.setgid(uid)
        os.setuid(uid)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True,
                            text=True, env=full_env, timeout=timeout,
                            preexec_fn=drop if uid is not None else None)
    return result.returncode, result.stdout, result.stderr


def finish():
    """Exit status 1 if a case failed."""
    if _failures:
        print(f"FAILED: {len(_failures)} case(s): {', '.join(_failures)}")
        sys.exit(1)
    print("ALL PASSED")
