"""Eager semantics or a refusal, on one target (issue 21, part 3, and the
modules without parameters of part 1):

* modules without parameters (every input an activation) stay right over
  three calls with fresh inputs;
* compile never changes the module (training flags, weights);
* training-mode behaviour (Dropout, BatchNorm) is refused with a message,
  at compile time and when the module is switched to train() later; a
  module in training mode whose forward does not depend on it compiles;
* outputs keep their pytree structure (dict, nested lists and tuples,
  1-tuple, constants; an input returned as it is comes back as the same
  object);
* inputs written in place are written as eager writes them;
* inputs PyTorch refuses (dtype mismatches) are refused with PyTorch's
  error; mixed dtypes PyTorch accepts give PyTorch's dtypes;
* requires_grad inputs raise "inference only" unless under no_grad or
  inference_mode; meta and non-tensor inputs are refused;
* inputs that are views starting off a 16-byte boundary give eager's
  result (they are passed as aligned copies).

    semantics.py --target=cpu|opencl

Results are compared with the float64 PyTorch reference of xpu_testlib;
tolerance 1e-5 relative to max(max |ref|, 1) (f32 rounding of dot products
of K <= 64, and of softmax).
"""

import argparse
import pathlib
import sys

import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import xpu_testlib as t  # noqa: E402

import xpu_opt  # noqa: E402

TOL = 1e-5
p = argparse.ArgumentParser()
p.add_argument("--target", required=True)
TARGET = p.parse_args().target


def three_calls(module, inputs):
    fast = xpu_opt.compile(module, inputs, target=TARGET)
    worst = 0.0
    for call in range(3):
        fresh = [t.fresh_like(x, 31 * call + i) for i, x in enumerate(inputs)]
        worst = max(worst, t.compare(fast(*fresh), t.reference(module, fresh),
                                     TOL))
    return f"3 calls, max relative error {worst:.2e}"


# Modules without parameters: every argument is an activation --------------

class MatMul(nn.Module):
    def forward(self, a, b):
        return a @ b


class BmmTransposed(nn.Module):
    def forward(self, a, b):
        return torch.bmm(a.transpose(1, 2), b.transpose(1, 2))


class Attention(nn.Module):
    def forward(self, q, k, v):
        return torch.softmax(q @ k.transpose(-2, -1) / 8.0, dim=-1) @ v


class Baddbmm(nn.Module):
    def forward(self, c, a, b):
        return torch.baddbmm(c, a, b, beta=0.5, alpha=2.0)


class AddExp(nn.Module):
    def forward(self, a, b):
        return a + torch.exp(b)


@t.case("a @ b: three calls with fresh inputs")
def _():
    return three_calls(MatMul(), (torch.randn(8, 16), torch.randn(16, 12)))


@t.case("bmm of transposed inputs: three calls with fresh inputs")
def _():
    return three_calls(BmmTransposed(), (torch.randn(3, 16, 8),
                                         torch.randn(3, 12, 16)))


@t.case("q @ k^T softmax @ v: three calls with fresh inputs")
def _():
    return three_calls(Attention(), (torch.randn(2, 8, 16),
                                     torch.randn(2, 8, 16),
                                     torch.randn(2, 8, 16)))


@t.case("baddbmm: three calls with fresh inputs")
def _():
    return three_calls(Baddbmm(), (torch.randn(2, 8, 12), torch.randn(2, 8, 16),
                                   torch.randn(2, 16, 12)))


@t.case("a + exp(b): three calls with fresh inputs")
def _():
    return three_calls(AddExp(), (torch.randn(6, 5), torch.randn(6, 5)))


def off_boundary(x):
    """`x`'s values in a view that starts one element into its storage
    (x[1:] of a larger tensor): not on the 16-byte boundary that vector
    accesses and GPU copies read rows from."""
    flat = torch.empty(x.numel() + 1, dtype=x.dtype)
    view = flat[1:].view(x.shape)
    view.copy_(x)
    assert view.data_ptr() % 16 != 0
    return view


@t.case("inputs that start off a 16-byte boundary give eager's result")
def _():
    model = nn.Linear(16, 12).eval()
    inputs = (torch.randn(8, 16),)
    fast = xpu_opt.compile(model, inputs, target=TARGET)
    x = off_boundary(t.fresh_like(inputs[0], 7))
    err = t.compare(fast(x), t.reference(model, [x]), TOL)
    a, b = off_boundary(torch.randn(6, 5)), off_boundary(torch.randn(6, 5))
    fast = xpu_opt.compile(AddExp(), (a, b), target=TARGET)
    err = max(err, t.compare(fast(a, b), t.reference(AddExp(), [a, b]), TOL))
    return f"Linear and a + exp(b), max relative error {err:.2e}"


# The module is never changed; training mode -------------------------------

def state(module):
    return {k: v.clone() for k, v in module.state_dict().items()}


def same_state(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@t.case("a module in training mode whose forward does not depend on it "
        "compiles and stays in training mode")
def _():
    model = nn.Sequential(nn.Linear(16, 8), nn.ReLU())  # train() by default
    before = state(model)
    fast = xpu_opt.compile(model, torch.randn(4, 16), target=TARGET)
    x = torch.randn(4, 16)
    t.compare(fast(x), t.reference(model, [x]), TOL)
    assert all(m.training for m in model.modules()), "eval() was called"
    assert same_state(before, state(model)), "the weights changed"


@t.case("an eval-mode module stays in eval mode, weights untouched")
def _():
    model = nn.Sequential(nn.Linear(16, 8), nn.BatchNorm1d(8)).eval()
    with torch.no_grad():
        model[1].running_mean.uniform_(-1, 1)
        model[1].running_var.uniform_(0.5, 1.5)
    before = state(model)
    fast = xpu_opt.compile(model, torch.randn(4, 16), target=TARGET)
    x = torch.randn(4, 16)
    t.compare(fast(x), t.reference(model, [x]), TOL)
    assert not any(m.training for m in model.modules())
    assert same_state(before, state(model)), "the weights changed"


@t.case("Dropout in training mode is refused with a message, module unchanged")
def _():
    model = nn.Sequential(nn.Linear(16, 8), nn.Dropout(0.5))
    t.raises(xpu_opt.CompileError,
             lambda: xpu_opt.compile(model, torch.randn(4, 16), target=TARGET),
             ".eval()", first_line=("training mode", "dropout"))
    assert all(m.training for m in model.modules())


@t.case("BatchNorm in training mode is refused with a message, statistics "
        "unchanged")
def _():
    model = nn.Sequential(nn.Linear(16, 8), nn.BatchNorm1d(8))
    before = state(model)
    t.raises(xpu_opt.CompileError,
             lambda: xpu_opt.compile(model, torch.randn(4, 16), target=TARGET),
             ".eval()", first_line=("training mode", "running_mean"))
    assert same_state(before, state(model)), "running statistics changed"
    assert all(m.training for m in model.modules())


@t.case("switching to train() after compile is refused at the call; eval() "
        "again works")
def _():
    model = nn.Sequential(nn.Linear(16, 8), nn.Dropout(0.5)).eval()
    fast = xpu_opt.compile(model, torch.randn(4, 16), target=TARGET)
    x = torch.randn(4, 16)
    t.compare(fast(x), t.reference(model, [x]), TOL)
    model.train()
    t.raises(xpu_opt.CompileError, lambda: fast(x),
             first_line=("training mode",))
    model.eval()
    t.compare(fast(x), t.reference(model, [x]), TOL)


# Outputs keep their structure -----------------------------------------------

class Structured(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 6)

    def forward(self, x, y):
        h = self.lin(x)
        return {"h": h, "pair": [y * 2, (h.sum(dim=1), y + 1)], "n": 3}


class OneTuple(nn.Module):
    def forward(self, x):
        return (x * 3,)


class Nested(nn.Module):
    def forward(self, x):
        return [[x + 1], ((x - 1,), x * x)]


class ReturnsInput(nn.Module):
    def forward(self, x, y):
        return x, y * 2


@t.case("dict output with nested lists, tuples and a constant")
def _():
    model = Structured().eval()
    fast = xpu_opt.compile(model, (torch.randn(4, 8), torch.randn(5)),
                           target=TARGET)
    x, y = torch.randn(4, 8), torch.randn(5)
    got = fast(x, y)
    assert isinstance(got, dict) and list(got) == ["h", "pair", "n"], got
    t.compare(got, t.reference(model, [x, y]), TOL)


@t.case("1-tuple output stays a 1-tuple")
def _():
    fast = xpu_opt.compile(OneTuple(), torch.randn(3, 4), target=TARGET)
    x = torch.randn(3, 4)
    got = fast(x)
    assert isinstance(got, tuple) and len(got) == 1, type(got)
    t.compare(got, t.reference(OneTuple(), [x]), TOL)


@t.case("nested list/tuple output")
def _():
    fast = xpu_opt.compile(Nested(), torch.randn(3, 4), target=TARGET)
    x = torch.randn(3, 4)
    t.compare(fast(x), t.reference(Nested(), [x]), TOL)


@t.case("an input returned as it is is the same object")
def _():
    fast = xpu_opt.compile(ReturnsInput(), (torch.randn(3), torch.randn(3)),
                           target=TARGET)
    x, y = torch.randn(3), torch.randn(3)
    got = fast(x, y)
    assert got[0] is x, "a copy came back"
    t.compare(got, t.reference(ReturnsInput(), [x, y]), TOL)


# Inputs written in place ------------------------------------------------------

class AddInPlace(nn.Module):
    def forward(self, x, y):
        x.add_(y)
        return x * 2


class ScaleInPlace(nn.Module):
    def forward(self, x):
        x.mul_(3)
        return x


@t.case("an input written in place is written, as in eager")
def _():
    fast = xpu_opt.compile(AddInPlace(), (torch.randn(5), torch.randn(5)),
                           target=TARGET)
    for call in range(3):
        x, y = torch.randn(5), torch.randn(5)
        x_eager = x.clone()
        ref = AddInPlace()(x_eager, y)
        got = fast(x, y)
        t.compare(got, ref, TOL)
        t.compare(x, x_eager, TOL)
        assert not torch.equal(x, x_eager - y), "x was not written"


@t.case("an input written in place and returned is the same object")
def _():
    fast = xpu_opt.compile(ScaleInPlace(), torch.randn(4), target=TARGET)
    x = torch.randn(4)
    expected = x * 3
    got = fast(x)
    assert got is x, "a copy came back"
    t.compare(x, expected, TOL)


# Dtypes, devices, autograd ------------------------------------------------------

@t.case("inputs of dtypes PyTorch refuses are refused with PyTorch's error")
def _():
    model = nn.Linear(8, 4).eval()
    fast = xpu_opt.compile(model, torch.randn(2, 8), target=TARGET)
    for dtype in (torch.float64, torch.float16, torch.int64, torch.bool):
        x = torch.ones(2, 8, dtype=dtype)
        try:
            model(x)
        except Exception as e:  # what eager says
            eager = (type(e), str(e))
        else:
            raise AssertionError(f"eager accepts {dtype}")
        t.raises(eager[0], lambda: fast(x), eager[1])
        t.raises(eager[0], lambda: xpu_opt.compile(model, x, target=TARGET),
                 eager[1])
    return "f64, f16, i64, bool refused as eager refuses them"


@t.case("mixed dtypes PyTorch accepts give PyTorch's dtypes and values")
def _():
    a, b = torch.randn(6, 5), torch.randint(-2, 3, (6, 5))
    fast = xpu_opt.compile(AddExp(), (a, b), target=TARGET)
    for call in range(3):
        a = t.fresh_like(a, call)
        b = t.fresh_like(b, 10 + call)
        ref = AddExp()(a.double(), b)
        got = fast(a, b)
        assert got.dtype == AddExp()(a, b).dtype, got.dtype
        t.compare(got, ref, TOL)


@t.case("requires_grad inputs: 'inference only' error; fine under no_grad "
        "and inference_mode")
def _():
    model = nn.Linear(8, 4).eval()
    fast = xpu_opt.compile(model, torch.randn(2, 8), target=TARGET)
    x = torch.randn(2, 8, requires_grad=True)
    t.raises(RuntimeError, lambda: fast(x), "no_grad",
             first_line=("requires grad", "inference only"))
    with torch.no_grad():
        t.compare(fast(x), t.reference(model, [x]), TOL)
    with torch.inference_mode():
        t.compare(fast(x), t.reference(model, [x]), TOL)


@t.case("meta and non-tensor inputs are refused with a sentence")
def _():
    model = nn.Linear(8, 4).eval()
    fast = xpu_opt.compile(model, torch.randn(2, 8), target=TARGET)
    t.raises(ValueError, lambda: fast(torch.randn(2, 8, device="meta")),
             first_line=("meta tensor",))
    t.raises(TypeError, lambda: fast(0.5), first_line=("float",))
    t.raises(TypeError, lambda: fast([torch.randn(2, 8)]),
             first_line=("list",))
    t.raises(TypeError, lambda: fast(x=torch.randn(2, 8)),
             first_line=("positionally",))
    meta_model = nn.Linear(8, 4, device="meta")
    t.raises(ValueError, lambda: xpu_opt.compile(meta_model, torch.randn(2, 8),
                                                 target=TARGET),
             first_line=("weight 'weight'", "meta tensor"))


t.finish()
