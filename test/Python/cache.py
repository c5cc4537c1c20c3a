"""The on-disk cache (issue 21, parts 4 and 6), on one target. Every case
runs in a child process (a truncated shared library used to fault the
process that loads it) whose exit status is checked:

* warm start: a second process with a warm cache compiles nothing: torch-mlir
  is not even imported, and no file of the cache is written (the time to
  the first result is printed, not checked: timings belong in benchmarks);
* damaged entries (model.so truncated to half and to nothing, interface.json,
  manifest.json, the cached export's meta.json and MLIR) are rebuilt, and the
  results are right;
* an unwritable cache directory gives one warning naming XPU_OPT_CACHE_DIR
  and a private temporary cache; with a read-only directory (not as root,
  whom permissions do not stop) its entries are still read.

Results are compared with the float64 PyTorch reference (xpu_testlib),
tolerance 1e-5 relative to max(max |ref|, 1) (f32 dot products, K = 64).

    cache.py --target=cpu|opencl --dir=DIR   (DIR: a scratch directory)
"""

import json
import os
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import xpu_testlib as t  # noqa: E402

TARGET, SCRATCH = t.target_and_scratch()
CACHE = SCRATCH / "cache"

CHILD = r'''
import sys, time, warnings
sys.path.insert(0, {testdir!r})
import torch, xpu_testlib as t
from torch import nn
warnings.simplefilter("always")
caught = []
warnings.showwarning = lambda m, *a, **k: caught.append(str(m))
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, {width}), nn.BatchNorm1d({width}),
                      nn.GELU(), nn.ReLU()).eval()
with torch.no_grad():
    model[1].running_mean.uniform_(-0.5, 0.5)
    model[1].running_var.uniform_(0.5, 1.5)
x = torch.randn(32, 64)
ref = t.reference(model, [x])
import xpu_opt
start = time.perf_counter()
fast = xpu_opt.compile(model, x, target={target!r})
y = fast(x)
elapsed = time.perf_counter() - start
print("ERROR", t.rel_error(y, ref))
print("SECONDS", elapsed)
print("TORCH_MLIR", "torch_mlir" in sys.modules)
for extra in range({extra}):
    other = nn.Linear(64, 8 + extra).eval()
    xo = torch.randn(4, 64)
    print("ERROR", t.rel_error(xpu_opt.compile(other, xo, target={target!r})(xo),
                               t.reference(other, [xo])))
print("WARNINGS", len([w for w in caught if "xpu_opt" in w]))
for w in caught:
    print("WARNING", w.replace("\n", " "))
'''


def child(cache, width=48, extra=0, uid=None, env=None):
    code = CHILD.format(testdir=str(pathlib.Path(__file__).parent),
                        width=width, target=TARGET, extra=extra)
    env = dict(env or {}, XPU_OPT_CACHE_DIR=str(cache))
    rc, out, err = t.run_python(code, env=env, uid=uid)
    assert rc == 0, f"exit status {rc}\n{out}\n{err[-3000:]}"
    info = {"errors": [], "warnings": []}
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        if key == "ERROR":
            info["errors"].append(float(value))
        elif key == "SECONDS":
            info["seconds"] = float(value)
        elif key == "TORCH_MLIR":
            info["torch_mlir"] = value == "True"
        elif key == "WARNINGS":
            info["count"] = int(value)
        elif key == "WARNING":
            info["warnings"].append(value)
    assert info["errors"] and all(e <= 1e-5 for e in info["errors"]), out
    return info


def entries(kind):
    return sorted((CACHE / kind).glob("[!.]*"))


@t.case(f"a cold process compiles, a warm one loads everything from the "
        f"cache ({TARGET})")
def _():
    cold = child(CACHE)
    assert cold["torch_mlir"], "the cold process did not export?"
    before = {p: p.stat().st_mtime_ns
              for kind in ("export", "lib") for e in entries(kind)
              for p in e.iterdir()}
    warm = child(CACHE)
    assert not warm["torch_mlir"], "the warm process imported torch-mlir"
    after = {p: p.stat().st_mtime_ns
             for kind in ("export", "lib") for e in entries(kind)
             for p in e.iterdir()}
    assert after == before, "the warm process wrote to the cache: " + \
        ", ".join(str(p) for p in set(after) ^ set(before) or
                  [p for p in after if after[p] != before.get(p)])
    return (f"cold {cold['seconds']:.3f} s, warm {warm['seconds']:.3f} s "
            "to the first result")


def damaged(kind, name, damage):
    [entry] = entries(kind)
    path = entry / name
    damage(path)
    info = child(CACHE)
    manifest = json.loads((entry / "manifest.json").read_text())
    assert path.stat().st_size == manifest["files"][name]["size"], \
        "the damaged entry was not rebuilt"
    return info


def truncate(fraction):
    def damage(path):
        size = path.stat().st_size
        with open(path, "r+b") as f:
            f.truncate(int(size * fraction))
    return damage


def garbage(path):
    path.write_text("{ this is not what was written")


@t.case(f"model.so truncated to half: rebuilt, no fault ({TARGET})")
def _():
    damaged("lib", "model.so", truncate(0.5))


@t.case(f"model.so truncated to nothing: rebuilt ({TARGET})")
def _():
    damaged("lib", "model.so", truncate(0.0))


@t.case(f"interface.json damaged: rebuilt ({TARGET})")
def _():
    damaged("lib", "interface.json", garbage)


@t.case(f"the cached export's meta.json damaged: rebuilt ({TARGET})")
def _():
    info = damaged("export", "meta.json", garbage)
    assert info["torch_mlir"], "the damaged export was used"


@t.case(f"the cached export's MLIR truncated: rebuilt ({TARGET})")
def _():
    damaged("export", "model.mlir", truncate(0.5))


@t.case(f"manifest.json removed: the entry is not trusted, rebuilt "
        f"({TARGET})")
def _():
    [entry] = entries("lib")
    (entry / "manifest.json").unlink()
    child(CACHE)
    json.loads((entry / "manifest.json").read_text())


@t.case(f"an unwritable cache directory: one warning naming "
        f"XPU_OPT_CACHE_DIR, a private cache ({TARGET})")
def _():
    blocker = SCRATCH / "a-file"
    blocker.write_text("not a directory")
    info = child(blocker / "cache", width=40, extra=2)
    assert info["count"] == 1, f"{info['count']} warnings: {info['warnings']}"
    assert "XPU_OPT_CACHE_DIR" in info["warnings"][0], info["warnings"]
    return info["warnings"][0][:160]


NOBODY = 65534


@t.case(f"a read-only cache directory: one warning, its entries still read "
        f"({TARGET})")
def _():
    if os.geteuid() == 0:
        # Permissions do not stop root: the child runs as nobody, to whom
        # root's cache directory is read-only.
        home = SCRATCH / "home"
        home.mkdir()
        home.chmod(0o777)
        env = {"HOME": str(home), "XDG_CACHE_HOME": str(home),
               "TMPDIR": str(home)}
        try:
            rc, _, err = t.run_python("import xpu_opt", env=env, uid=NOBODY)
        except PermissionError as e:  # the interpreter itself (a 0700
            # directory above the checkout, as `mktemp -d` makes)
            rc, err = 1, str(e)
        if rc != 0:
            raise t.Skip("user nobody cannot read this checkout or its "
                         ".venv: " + err.strip().splitlines()[-1])
        info = child(CACHE, uid=NOBODY, env=env)
    else:
        modes = []
        for d in [CACHE] + [q for q in CACHE.rglob("*") if q.is_dir()]:
            modes.append((d, d.stat().st_mode))
            d.chmod(0o555)
        try:
            info = child(CACHE)
        finally:
            for d, mode in modes:
                d.chmod(mode)
    assert info["count"] == 1, info["warnings"]
    assert "XPU_OPT_CACHE_DIR" in info["warnings"][0], info["warnings"]
    assert not info["torch_mlir"], "the read-only entries were not read"
    return f"warm start {info['seconds']:.3f} s"


t.finish()
