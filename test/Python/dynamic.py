"""Dynamic batch (issue 27, part 3) on the cpu and opencl targets.

* xpu_opt.compile(model, x, dynamic=True): one compiled variant serves
  batches of 1, 3, 17 and 64 rows (dimension 0 is `?` in the exported
  MLIR and in the package's interface), each result within the stated
  tolerance of the float64 reference; the weights are packed once for all
  of them.
* A [batch, sequence, features] input with a dynamic batch, then with a
  dynamic sequence (dynamic=[(1,)]): the GEMMs' rows are their product.
  Both at once (dynamic=[(0, 1)]) is refused with the reason (torch-mlir
  lowers a view merging two dynamic dimensions for a size of 1 only).
* The entry's shape checks: an input of another rank, or with another size
  in a static dimension, raises ValueError in one line that says which
  dimension and what was compiled; nothing is compiled for it.
* The compiled module saved as a package: xpu_opt.load runs it on new
  batch sizes in a process without the compiler.
* xpu_opt.export(dynamic=True) writes the `?` batch dimension.
* torch.compile(model, backend="xpu_opt", dynamic=True): each partition of
  Dynamo's dynamic graph compiles ONCE (counted in xpu_opt.report()) and
  serves batches of 3, 17 and 64 rows (and 1, where Dynamo keeps the graph
  for it: backed_size_oblivious), each within 1e-5 of float64.

    dynamic.py --target=cpu --dir=SCRATCH
"""

import pathlib
import sys

import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import xpu_testlib as t  # noqa: E402

import xpu_opt  # noqa: E402

TARGET, SCRATCH = t.target_and_scratch()
BATCHES = (1, 3, 17, 64)


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(32, 48), nn.LayerNorm(48), nn.GELU(),
                         nn.Linear(48, 16)).eval()


def the_variant(fast):
    variants = list(fast._variants.values())
    assert len(variants) == 1, f"{len(variants)} variants compiled"
    return variants[0]


@t.case(f"compile(dynamic=True): one variant serves batches {BATCHES} on "
        f"{TARGET}")
def compile_dynamic():
    model = mlp()
    fast = xpu_opt.compile(model, torch.randn(5, 32), target=TARGET,
                           dynamic=True)
    assert "tensor<?x32xf32>" in fast.mlir, fast.mlir[:400]
    worst = 0.0
    with torch.no_grad():
        for batch in BATCHES + (5, 1):
            x = torch.randn(batch, 32)
            worst = max(worst, t.compare(fast(x), t.reference(model, [x]),
                                         1e-5))
    v = the_variant(fast)
    assert v.dynamic and v.signature()[0][0] == (None, 32), v.signature()
    # Once for every batch; not at all where the kernels read the weights
    # as they are (opencl's SIMT kernels: no <fn>.pack).
    packs = 1 if v.pack else 0
    assert v.pack_count == packs, f"packed {v.pack_count} times, not {packs}"
    return (f"max relative error {worst:.1e} (tolerance 1e-5), packed "
            f"{v.pack_count} time(s)")


class Tokens(nn.Module):
    """Linear + GELU + Linear + residual on [batch, sequence, features]."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(24, 40)
        self.down = nn.Linear(40, 24)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(x)))


@t.case(f"a dynamic batch or sequence of [batch, sequence, features] "
        f"inputs on {TARGET}")
def batch_or_sequence():
    torch.manual_seed(1)
    model = Tokens().eval()
    worst = 0.0
    # The batch (dimension 0), then the sequence (dimension 1): the GEMMs'
    # rows are their product, one of them known at run time.
    for dims, example, shapes in (
            (True, (2, 7, 24), ((1, 7, 24), (5, 7, 24), (17, 7, 24))),
            ([(1,)], (2, 7, 24), ((2, 1, 24), (2, 13, 24), (2, 64, 24)))):
        fast = xpu_opt.compile(model, torch.randn(example), target=TARGET,
                               dynamic=dims)
        assert "x24xf32>" in fast.mlir and "?x" in fast.mlir, fast.mlir[:400]
        with torch.no_grad():
            for shape in shapes:
                x = torch.randn(shape)
                worst = max(worst, t.compare(fast(x),
                                             t.reference(model, [x]), 1e-5))
        the_variant(fast)
    # Both at once: torch-mlir lowers the view that merges two dynamic
    # dimensions for a size of 1 only; refused with the reason, not wrong.
    text = t.raises(xpu_opt.CompileError,
                    lambda: xpu_opt.compile(model, torch.randn(2, 7, 24),
                                            target=TARGET, dynamic=[(0, 1)]),
                    "dynamic dimension made static", "make fewer dimensions "
                    "dynamic")
    return (f"max relative error {worst:.1e} (tolerance 1e-5); both: "
            f"{text.splitlines()[0][:70]}...")


@t.case(f"the entry's shape checks: rank and static dimensions on {TARGET}")
def entry_checks():
    model = mlp()
    fast = xpu_opt.compile(model, torch.randn(4, 32), target=TARGET,
                           dynamic=True)
    with torch.no_grad():
        rank = t.raises(ValueError, lambda: fast(torch.randn(2, 3, 32)),
                        "argument #0 has rank 3 (2, 3, 32), compiled for "
                        "rank 2 (?, 32)")
        dim = t.raises(ValueError, lambda: fast(torch.randn(6, 31)),
                       "argument #0 (6, 31) has dimension 1 = 31, compiled "
                       "for 32 (?, 32)")
    for text in (rank, dim):
        assert "\n" not in text, text
    the_variant(fast)
    return f"{rank} / {dim}"


@t.case(f"a dynamic package runs new batch sizes after load on {TARGET}")
def package():
    model = mlp()
    fast = xpu_opt.compile(model, torch.randn(4, 32), target=TARGET,
                           dynamic=True)
    path = SCRATCH / "mlp.xpu"
    fast.save(path)
    interface = xpu_opt.load(path).interface
    assert interface["inputs"][0]["shape"] == [None, 32], interface["inputs"]
    assert interface["results"][0]["dims"] == [{"arg": 0, "dim": 0}, None], \
        interface["results"]
    code = ("import sys, torch, xpu_opt\n"
            f"m = xpu_opt.load({str(path)!r})\n"
            "out = {}\n"
            "for b in (1, 3, 17, 64):\n"
            "    g = torch.Generator().manual_seed(b)\n"
            "    out[b] = m(torch.randn(b, 32, generator=g))\n"
            f"torch.save(out, {str(SCRATCH / 'out.pt')!r})\n"
            "print('torch_mlir' in sys.modules)\n")
    status, out, err = t.run_python(code)
    assert status == 0, err[-2000:]
    assert out.strip() == "False", out
    results = torch.load(SCRATCH / "out.pt")
    worst = 0.0
    for b, got in results.items():
        x = torch.randn(b, 32, generator=torch.Generator().manual_seed(b))
        worst = max(worst, t.compare(got, t.reference(model, [x]), 1e-5))
    return f"max relative error {worst:.1e} (tolerance 1e-5)"


@t.case("xpu_opt.export(dynamic=True) writes a ? batch dimension")
def export_text():
    text = xpu_opt.export(mlp(), torch.randn(1, 32), dynamic=True)
    assert "%arg0: tensor<?x32xf32>" in text, text[:600]
    assert "-> tensor<?x16xf32>" in text, text[:600]
    return "tensor<?x32xf32> -> tensor<?x16xf32>"


@t.case(f"torch.compile(dynamic=True): each partition compiles once for "
        f"every batch size on {TARGET}")
def dynamo_once():
    model = mlp()
    torch._dynamo.reset()
    xpu_opt.report(reset=True)
    fast = torch.compile(model, backend="xpu_opt",
                         options={"target": TARGET}, dynamic=True)
    worst = 0.0
    with torch.no_grad():
        for batch in (3, 17, 64, 3):
            x = torch.randn(batch, 32)
            worst = max(worst, t.compare(fast(x), t.reference(model, [x]),
                                         1e-5))
    report = xpu_opt.report()
    graphs = {e.name.split("_")[0] for e in report.compiled}
    assert len(graphs) == 1, f"Dynamo recompiled: {graphs}"
    ops = sorted(e.ops for e in report.compiled)
    assert ops == [("linear",), ("linear", "layer_norm", "gelu")], ops
    assert not report.fell_back, str(report)
    details = [e.detail for e in report.compiled]
    assert all("(?, 48)" in d or "(?, 32)" in d for d in details), details
    # Batch 1: Dynamo specializes sizes 0 and 1 unless told not to.
    from torch.fx.experimental import _config
    with torch.no_grad(), _config.patch(backed_size_oblivious=True):
        torch._dynamo.reset()
        xpu_opt.report(reset=True)
        fast = torch.compile(model, backend="xpu_opt",
                             options={"target": TARGET}, dynamic=True)
        for batch in (3,) + BATCHES:
            x = torch.randn(batch, 32)
            worst = max(worst, t.compare(fast(x), t.reference(model, [x]),
                                         1e-5))
    report = xpu_opt.report()
    assert len(report.compiled) == 2, str(report)
    return (f"2 compilations for batches 3, 17, 64 and {BATCHES}; max "
            f"relative error {worst:.1e} (tolerance 1e-5)")


t.finish()
