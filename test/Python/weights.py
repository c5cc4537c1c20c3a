"""Weight changes are seen (issue 21, part 2), on one target.

Without freeze (the default) every call compares the weights it packed
from with the module's, byte for byte; each way users change weights must
reach the result, and unchanged weights must not be packed again:
in-place ops under no_grad, writes through .data, copy_ into .data, writes
through a NumPy view, load_state_dict, an optimizer step, a new Parameter
(reusing the freed one's address when the allocator does), a buffer
(BatchNorm statistics) written in place. With freeze=True the weights of
compile time are used until refresh(), then the new ones.

    weights.py --target=cpu|opencl

Every result is compared with the float64 PyTorch reference of the module
as it is at that moment (xpu_testlib), tolerance 1e-5 relative to
max(max |ref|, 1) (f32 dot products of K = 64).
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


class Model(nn.Module):
    """Linear + BatchNorm (folded into the weights at pack time) + ReLU."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(64, 48)
        self.bn = nn.BatchNorm1d(48)
        with torch.no_grad():
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        return torch.relu(self.bn(self.lin(x)))


X = torch.randn(32, 64)


def setup(freeze=False):
    torch.manual_seed(1)
    model = Model().eval()
    fast = xpu_opt.compile(model, X, target=TARGET, freeze=freeze)
    t.compare(fast(X), t.reference(model, [X]), TOL)
    v = fast.variant((X,))
    assert v.pack is not None, "no forward.pack: nothing to repack"
    return model, fast, v


def seen(model, fast, v, change):
    """Applies `change`, checks the next result against the changed model
    and that pack ran once more (not again on the call after)."""
    packs = v.pack_count
    before = t.reference(model, [X])
    change()
    ref = t.reference(model, [X])
    assert t.rel_error(before, ref) > 1e-3, "the change changed nothing"
    err = t.compare(fast(X), ref, TOL)
    assert v.pack_count == packs + 1, f"packed {v.pack_count - packs} times"
    t.compare(fast(X), ref, TOL)
    assert v.pack_count == packs + 1, "packed again for unchanged weights"
    return f"max relative error {err:.2e}"


@t.case("unchanged weights are packed once")
def _():
    model, fast, v = setup()
    for _ in range(3):
        t.compare(fast(X),
                  t.reference(model, [X]), TOL)
    assert v.pack_count == 1, f"packed {v.pack_count} times"


@t.case("in-place op on a parameter under no_grad")
def _():
    model, fast, v = setup()

    def change():
        with torch.no_grad():
            model.lin.weight.mul_(0.5)
    return seen(model, fast, v, change)


@t.case("write through .data (mul_)")
def _():
    model, fast, v = setup()
    return seen(model, fast, v, lambda: model.lin.weight.data.mul_(-1.5))


@t.case("copy_ into .data")
def _():
    model, fast, v = setup()
    new = torch.randn(48, 64) * 0.1
    return seen(model, fast, v, lambda: model.lin.weight.data.copy_(new))


@t.case("write through a NumPy view")
def _():
    model, fast, v = setup()

    def change():
        array = model.lin.weight.detach().numpy()
        array[:, :8] = 0.25
    return seen(model, fast, v, change)


@t.case("load_state_dict")
def _():
    model, fast, v = setup()
    torch.manual_seed(2)
    other = Model().eval()
    return seen(model, fast, v,
                lambda: model.load_state_dict(other.state_dict()))


@t.case("optimizer step")
def _():
    model, fast, v = setup()
    opt = torch.optim.SGD(model.parameters(), lr=0.5)

    def change():
        for param in model.parameters():
            param.grad = torch.ones_like(param) * 0.1
        opt.step()
    return seen(model, fast, v, change)


@t.case("a new Parameter, at the freed one's address when it is reused")
def _():
    model, fast, v = setup()
    reused = []

    def change():
        old = model.lin.weight.data_ptr()
        # Free the old weight first (the same name keeps its place among
        # the parameters), then allocate the new one.
        model.lin.weight = nn.Parameter(torch.empty(0))
        new = torch.empty(48, 64).normal_(0, 0.2)
        model.lin.weight = nn.Parameter(new)
        reused.append(model.lin.weight.data_ptr() == old)
    note = seen(model, fast, v, change)
    return note + f"; address reused: {'yes' if reused[0] else 'no'}"


@t.case("a new Parameter at the old one's address (the same memory, a new "
        "object with a fresh version counter)")
def _():
    torch.manual_seed(1)
    model = Model().eval()
    memory = bytearray(48 * 64 * 4)
    first = torch.frombuffer(memory, dtype=torch.float32).view(48, 64)
    first.numpy()[:] = model.lin.weight.detach().numpy()  # no version bump
    model.lin.weight = nn.Parameter(first)
    fast = xpu_opt.compile(model, X, target=TARGET)
    t.compare(fast(X), t.reference(model, [X]), TOL)
    v = fast.variant((X,))
    address, version = model.lin.weight.data_ptr(), model.lin.weight._version

    def change():
        # What an allocator that hands the freed block to the next
        # Parameter does: new values, a new object, the same address.
        second = torch.frombuffer(memory, dtype=torch.float32).view(48, 64)
        second.numpy()[:] = torch.randn(48, 64).numpy() * 0.2
        model.lin.weight = nn.Parameter(second)
        assert model.lin.weight.data_ptr() == address
        assert model.lin.weight._version == version
    return seen(model, fast, v, change)


@t.case("a buffer (BatchNorm running_mean) written in place")
def _():
    model, fast, v = setup()
    return seen(model, fast, v, lambda: model.bn.running_mean.add_(0.75))


@t.case("freeze=True: changes are not seen until refresh(), then they are")
def _():
    model, fast, v = setup(freeze=True)
    old = t.reference(model, [X])
    with torch.no_grad():
        model.lin.weight.mul_(-2.0)
    new = t.reference(model, [X])
    t.compare(fast(X), old, TOL)  # the weights of compile time
    assert t.rel_error(fast(X), new) > 1e-3, "a frozen weight changed"
    packs = v.pack_count
    fast.refresh()
    t.compare(fast(X), new, TOL)
    assert v.pack_count == packs + 1, "refresh() did not repack"
    t.compare(fast(X), new, TOL)
    assert v.pack_count == packs + 1, "packed again without a change"


t.finish()
