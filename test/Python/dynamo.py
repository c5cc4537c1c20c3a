"""torch.compile(model, backend="xpu_opt") (issue 27, part 1) on one target.

* The model zoo (examples/pytorch): every model through the backend, two
  calls with fresh inputs under torch.no_grad(), each compared with the
  float64 PyTorch reference (xpu_testlib) at zoo.py's tolerances; the
  report must name a compiled partition for every model (each has a GEMM)
  but linear_gelu_bf16 on OpenCL, whose partition the compiler refuses
  (no bf16 in OpenCL SPIR-V) and which must fall back and still match.
* Unsupported operations fall back, not fail: a model with torch.topk,
  torch.cumsum and torch.sort between Linear layers runs with its Linear
  layers compiled and the rest in PyTorch (report entries say which and
  why), equal to eager PyTorch within 1e-5.
* A partition the compiler refuses (a bad pipeline option) falls back with
  the compiler's reason and the results are PyTorch's.
* torch.compile(dynamic=True): batch sizes 3, 17, 64 and 3 again are one
  Dynamo graph whose two partitions compile once each (`?` dimensions;
  dynamic.py tests more), epilogues kept, each within 1e-5 of float64.
* An unknown option or target raises (Dynamo's BackendCompilerFailed with
  xpu_opt's message) instead of running everything in PyTorch.
* A changed weight is seen (repacked); a call that needs gradients runs as
  PyTorch and its gradients equal eager ones (1e-5).
* A second process with the same cache compiles nothing (no new cache
  entry) and XPU_OPT_LOG=1 prints the decisions to stderr; `import xpu_opt`
  there does not import Dynamo (the backend registers when it loads).
* xpu_opt.optimize on an nn.Sequential compiles its Linear + activation
  pairs in place (the LayerNorm between them stays PyTorch's): the same
  state_dict keys, results within 1e-5 of eager, the compiled code runs (a
  trace shows it), load_state_dict's new weights are seen, and a call with
  gradients runs the old forward.
* torch.compile(backend="xpu_opt") finds the backend without `import
  xpu_opt` through the torch_dynamo_backends entry point of the package
  metadata that scripts/setup.sh installs (SKIP where it is missing).

    dynamo.py --target=cpu|opencl --dir=SCRATCH
"""

import copy
import importlib.metadata
import json
import os
import pathlib
import sys

import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import xpu_testlib as t  # noqa: E402

import xpu_opt  # noqa: E402
from xpu_opt import _kernelbench  # noqa: E402

ZOO = pathlib.Path(__file__).resolve().parents[2] / "examples" / "pytorch"
TOL = {"linear_gelu_tanh": 1e-4, "linear_gelu_f64": 1e-12,
       "linear_gelu_f16": 7.8e-3, "linear_gelu_bf16": 6.25e-2}

TARGET, SCRATCH = t.target_and_scratch()
OPTIONS = {"target": TARGET}


def compiled_names(report):
    return [e.name for e in report.compiled]


def check_zoo_model(path):
    name = path.stem
    tol = TOL.get(name, 1e-5)
    model, inputs = _kernelbench.load(path)
    torch._dynamo.reset()
    xpu_opt.report(reset=True)
    fast = torch.compile(model, backend="xpu_opt", options=OPTIONS)
    worst = 0.0
    with torch.no_grad():
        for call in range(2):
            fresh = [t.fresh_like(x, 100 * call + i)
                     for i, x in enumerate(inputs)]
            worst = max(worst, t.compare(fast(*fresh),
                                         t.reference(model, fresh), tol,
                                         inputs[0].dtype))
    report = xpu_opt.report()
    if name == "linear_gelu_bf16" and TARGET == "opencl":
        assert not report.compiled and report.fell_back, str(report)
        assert "bf16" in report.fell_back[0].reason, str(report)
        return f"fell back: {report.fell_back[0].reason[:100]}"
    assert report.compiled and not report.fell_back, str(report)
    return (f"{len(report.compiled)} partition(s) compiled "
            f"{[e.ops for e in report.compiled]}, max relative error "
            f"{worst:.2e} (tolerance {tol:.1e})")


for path in sorted(ZOO.glob("*.py")):
    t.case(f"zoo {path.stem} through the backend on {TARGET}")(
        lambda path=path: check_zoo_model(path))


class Unsupported(nn.Module):
    """Linear layers around operations xpu-opt does not compile."""

    def __init__(self):
        super().__init__()
        self.first = nn.Linear(32, 48)
        self.second = nn.Linear(16, 24)

    def forward(self, x):
        h = torch.relu(self.first(x))
        top = torch.topk(h, 16, dim=-1).values      # not compiled
        ordered = torch.sort(torch.cumsum(top, dim=-1), dim=-1).values
        return self.second(ordered) * 2.0 + 1.0


@t.case(f"unsupported operations fall back on {TARGET}")
def unsupported():
    torch.manual_seed(0)
    model = Unsupported().eval()
    torch._dynamo.reset()
    xpu_opt.report(reset=True)
    fast = torch.compile(model, backend="xpu_opt", options=OPTIONS)
    x = torch.randn(8, 32)
    with torch.no_grad():
        got, want = fast(x), model(x)
    t.compare(got, want, 1e-5, torch.float32)
    report = xpu_opt.report()
    ops = [e.ops for e in report.compiled]
    assert ops == [("linear", "relu"), ("linear", "mul", "add")], str(report)
    eager = {e.name for e in report.eager}
    assert {"topk", "cumsum", "sort"} <= eager, str(report)
    assert all("not a GEMM" in e.reason for e in report.eager), str(report)
    return f"compiled {ops}; eager {sorted(eager)}"


@t.case(f"a partition the compiler refuses falls back on {TARGET}")
def refused():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 16), nn.GELU()).eval()
    torch._dynamo.reset()
    xpu_opt.report(reset=True)
    fast = torch.compile(model, backend="xpu_opt", options=dict(
        OPTIONS, pipeline_options="no-such-option=1"))
    x = torch.randn(4, 32)
    with torch.no_grad():
        got = fast(x)
        assert torch.equal(got, model(x)), "the fallback is not PyTorch's"
    report = xpu_opt.report()
    assert not report.compiled and len(report.fell_back) == 1, str(report)
    reason = report.fell_back[0].reason
    assert reason.startswith("CompileError") and "no-such-option" in reason, \
        reason
    return reason[:120]


@t.case("dynamic=True: one Dynamo graph, one variant per partition "
        f"(dynamic dimensions), on {TARGET}")
def dynamic_batch():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 48), nn.LayerNorm(48), nn.GELU(),
                          nn.Linear(48, 16)).eval()
    torch._dynamo.reset()
    xpu_opt.report(reset=True)
    fast = torch.compile(model, backend="xpu_opt", options=OPTIONS,
                         dynamic=True)
    with torch.no_grad():
        for batch in (3, 17, 64, 3):
            x = torch.randn(batch, 32)
            t.compare(fast(x), t.reference(model, [x]), 1e-5)
    report = xpu_opt.report()
    graphs = {e.name.split("_")[0] for e in report.compiled}
    assert len(graphs) == 1, f"Dynamo recompiled: {graphs}"
    ops = sorted({e.ops for e in report.compiled})
    assert ops == [("linear",), ("linear", "layer_norm", "gelu")], ops
    # Every target compiles `?` dimensions: each partition once, not once
    # per size (2 partitions x 3 sizes).
    assert len(report.compiled) == 2, str(report)
    return f"{len(report.compiled)} variants of {ops} in one graph"


@t.case("options the backend does not know raise at the first call")
def bad_options():
    model = nn.Linear(8, 4).eval()
    x = torch.randn(2, 8)
    for options, text in (({"targt": "cpu"}, "unknown torch.compile option"),
                          ({"target": "tpu"}, "unknown target 'tpu'")):
        torch._dynamo.reset()
        fast = torch.compile(model, backend="xpu_opt", options=options)
        with torch.no_grad():
            t.raises(Exception, lambda: fast(x), text)
    return "unknown option and target refused"


@t.case(f"weight changes and autograd on {TARGET}")
def weights_and_grad():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 16), nn.Tanh(),
                          nn.Linear(16, 8)).eval()
    torch._dynamo.reset()
    xpu_opt.report(reset=True)
    fast = torch.compile(model, backend="xpu_opt", options=OPTIONS)
    x = torch.randn(4, 32)
    with torch.no_grad():
        t.compare(fast(x), t.reference(model, [x]), 1e-5)
        model[0].weight.mul_(0.5)
        t.compare(fast(x), t.reference(model, [x]), 1e-5)
    assert len(xpu_opt.report().compiled) == 2, str(xpu_opt.report())
    # With gradients: PyTorch runs it (compiled code has no backward).
    x.requires_grad_(True)
    fast(x).square().sum().backward()
    got = [x.grad.clone()] + [p.grad.clone() for p in model.parameters()]
    x.grad = None
    model.zero_grad()
    model(x).square().sum().backward()
    want = [x.grad] + [p.grad for p in model.parameters()]
    for g, w in zip(got, want):
        t.compare(g, w, 1e-5)
    reasons = [e.reason for e in xpu_opt.report().fell_back]
    assert reasons and all("autograd" in r for r in reasons), reasons
    return "repacked after a weight change; gradients as eager"


@t.case(f"xpu_opt.optimize: Linear + activation pairs in place on {TARGET}")
def optimize_pairs():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 48), nn.ReLU(), nn.LayerNorm(48),
                          nn.Linear(48, 16), nn.GELU()).eval()
    eager = copy.deepcopy(model)
    keys = list(model.state_dict())
    x = torch.randn(8, 32)
    xpu_opt.report(reset=True)
    xpu_opt.optimize(model, (x,), target=TARGET)
    assert model.xpu_opt_compiled == ["0+1", "3+4"], model.xpu_opt_compiled
    assert list(model.state_dict()) == keys, "state_dict keys changed"
    with torch.no_grad(), xpu_opt.profile() as prof:
        t.compare(model(x), eager(x), 1e-5)
    assert [e["name"] for e in prof.events if e["cat"] == "host"] == [
        "0+1", "3+4"], "the compiled code did not run"
    # New weights through load_state_dict are seen.
    other = copy.deepcopy(eager)
    with torch.no_grad():
        for q in other.parameters():
            q.mul_(-0.5)
    model.load_state_dict(other.state_dict())
    with torch.no_grad():
        t.compare(model(x), other(x), 1e-5)
    # With gradients the old forward runs, and gradients flow.
    model(x).sum().backward()
    assert model[0].weight.grad is not None
    return f"compiled {model.xpu_opt_compiled}"


CHILD = r'''
import sys, torch
sys.path.insert(0, {testdir!r})
import xpu_opt
# Dynamo is loaded by torch.compile, not by xpu_opt (seconds per import).
assert "torch._dynamo" not in sys.modules
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.GELU(),
                            torch.nn.Linear(32, 16), torch.nn.ReLU()).eval()
x = torch.randn(8, 64)
fast = torch.compile(model, backend="xpu_opt",
                     options={{"target": {target!r}}})
with torch.no_grad():
    err = (fast(x) - model(x)).abs().max().item()
assert err < 1e-5, err
print(xpu_opt.report())
'''


def entries(cache):
    return sorted(str(p.relative_to(cache)) for kind in ("lib", "export")
                  for p in (cache / kind).glob("*") if p.is_dir()
                  and not p.name.startswith("."))


@t.case(f"a second process compiles nothing; XPU_OPT_LOG on {TARGET}")
def second_process():
    cache = SCRATCH / "cache"
    code = CHILD.format(testdir=str(pathlib.Path(__file__).parent),
                        target=TARGET)
    env = {"XPU_OPT_CACHE_DIR": str(cache), "XPU_OPT_LOG": "1"}
    status, out, err = t.run_python(code, env)
    assert status == 0, err[-2000:]
    first = entries(cache)
    assert len(first) == 4, first  # two partitions: export + library each
    assert err.count("xpu_opt: compiled") == 2, err[-2000:]
    status, out, err = t.run_python(code, env)
    assert status == 0, err[-2000:]
    assert entries(cache) == first, "the second process compiled again"
    assert "2 compiled, 0 fell back" in out, out
    return f"{len(first)} cache entries, reused"


@t.case("the torch_dynamo_backends entry point")
def entry_point():
    found = [e for e in importlib.metadata.entry_points(
        group="torch_dynamo_backends") if e.name == "xpu_opt"]
    if not found:
        raise t.Skip("no xpu_opt entry point in this environment's package "
                     "metadata (scripts/setup.sh installs it)")
    assert found[0].value == "xpu_opt._dynamo:backend", found[0].value
    code = ("import sys, torch\n"
            "m = torch.nn.Linear(8, 4).eval()\n"
            "f = torch.compile(m, backend='xpu_opt')\n"
            "x = torch.randn(2, 8)\n"
            "with torch.no_grad():\n"
            "    assert torch.allclose(f(x), m(x), atol=1e-5)\n"
            "assert 'xpu_opt' in sys.modules\n"
            "print(sys.modules['xpu_opt'].report())\n")
    status, out, err = t.run_python(code, {
        "XPU_OPT_CACHE_DIR": str(SCRATCH / "cache")})
    assert status == 0, err[-2000:]
    assert "1 compiled" in out, out
    return found[0].value


t.finish()
