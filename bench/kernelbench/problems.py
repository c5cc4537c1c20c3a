"""The KernelBench level-1 and level-2 GEMM problems at KernelBench's own
shapes (ScalingIntelligence/KernelBench, KernelBench/level{1,2}), as
PyTorch modules: the benchmark users of a GEMM compiler run
(docs/Performance.md, "KernelBench on the H200").

Each problem is (name, build, shapes): build() returns the nn.Module,
`shapes` are its inputs' shapes; make() gives the module in eval mode
(BatchNorm uses its running statistics) and f32 inputs drawn as KernelBench
draws them (torch.rand). The weights are
nn.Linear's own initialization under a fixed seed; the runner passes the
weights it has to the compiled function, so the machines need not agree on
them.
"""

import torch
from torch import nn
import torch.nn.functional as F


class Matmul(nn.Module):
    """Level 1: A @ B (or A @ B.T), and torch.bmm."""

    def __init__(self, kind="mm"):
        super().__init__()
        self.kind = kind

    def forward(self, a, b):
        if self.kind == "bmm":
            return torch.bmm(a, b)
        if self.kind == "mm_bt":
            return torch.matmul(a, b.T)
        return torch.matmul(a, b)


class LinearChain(nn.Module):
    """Level 2: nn.Linear, then `chain` (a function of the module and the
    GEMM result)."""

    def __init__(self, m_in, n_out, chain, bias=True, extra=None):
        super().__init__()
        self.linear = nn.Linear(m_in, n_out, bias=bias)
        for name, value in (extra or {}).items():
            setattr(self, name, value)
        self.chain = chain

    def forward(self, x):
        return self.chain(self, self.linear(x))


class TwoLinear(nn.Module):
    """Level 2 #45: Linear, sigmoid, Linear, logsumexp over features."""

    def __init__(self, m_in, hidden, n_out):
        super().__init__()
        self.linear1 = nn.Linear(m_in, hidden)
        self.linear2 = nn.Linear(hidden, n_out)

    def forward(self, x):
        x = torch.sigmoid(self.linear1(x))
        return torch.logsumexp(self.linear2(x), dim=1)


def _swish(x):
    return x * torch.sigmoid(x)


def _bn(n):
    bn = nn.BatchNorm1d(n)
    # Running statistics a trained model would have (the defaults, 0 and 1,
    # would make the normalization an identity).
    bn.running_mean.uniform_(-0.1, 0.1)
    bn.running_var.uniform_(0.5, 1.5)
    bn.weight.data.uniform_(0.5, 1.5)
    bn.bias.data.uniform_(-0.1, 0.1)
    return bn


def _l1(kind, shapes):
    return (lambda: Matmul(kind)), shapes


def _l2(batch, m_in, n_out, chain, bias=True, extra=None):
    def build():
        return LinearChain(m_in, n_out, chain, bias,
                           extra() if extra else None)
    return build, [(batch, m_in)]


_l2_45 = ((lambda: TwoLinear(2048, 4096, 1024)), [(16384, 2048)])


PROBLEMS = [(name, *spec) for name, spec in [
    # Level 1.
    ("l1_01_square_4096", _l1("mm", [(4096, 4096), (4096, 4096)])),
    ("l1_02_standard", _l1("mm", [(2048, 8192), (8192, 4096)])),
    ("l1_03_bmm", _l1("bmm", [(128, 512, 1024), (128, 1024, 2048)])),
    ("l1_08_irregular", _l1("mm", [(8205, 2949), (2949, 5921)])),
    ("l1_17_transposed_b", _l1("mm_bt", [(2048, 8192), (4096, 8192)])),
    # Level 2 (1024 x 8192 by 8192 x 8192 unless said).
    ("l2_09_sub_mul_relu", _l2(1024, 8192, 8192,
                               lambda m, x: F.relu((x - 2.0) * 1.5))),
    ("l2_12_mul_leakyrelu", _l2(1024, 8192, 8192,
                                lambda m, x: F.leaky_relu(x * 2.0, 0.1))),
    ("l2_29_mish_mish", _l2(1024, 8192, 8192,
                            lambda m, x: F.mish(F.mish(x)))),
    ("l2_33_scale_batchnorm", _l2(
        1024, 8192, 8192, lambda m, x: m.bn(x * m.scale),
        extra=lambda: {"scale": nn.Parameter(torch.randn(8192)),
                       "bn": _bn(8192)})),
    ("l2_40_scale_residual", _l2(16384, 4096, 4096,
                                 lambda m, x: x * 0.5 + x)),
    ("l2_41_batchnorm_gelu_relu", _l2(
        16384, 4096, 4096, lambda m, x: F.relu(F.gelu(m.bn(x))),
        extra=lambda: {"bn": _bn(4096)})),
    ("l2_45_two_gemm_sigmoid_logsumexp", _l2_45),
    ("l2_53_scale_hardtanh_gelu", _l2(
        2048, 8192, 8192, lambda m, x: F.gelu(F.hardtanh(x * 0.5, -2.0, 2.0)))),
    ("l2_59_swish_scale", _l2(128, 32768, 32768,
                              lambda m, x: _swish(x) * 2.0)),
    ("l2_63_relu_divide", _l2(1024, 8192, 8192,
                              lambda m, x: F.relu(x) / 2.0)),
    ("l2_70_sigmoid_scale_residual", _l2(
        1024, 8192, 8192, lambda m, x: torch.sigmoid(x) * 2.0 + x)),
    ("l2_76_add_relu", _l2(
        1024, 8192, 8192, lambda m, x: F.relu(x + m.bias), bias=False,
        extra=lambda: {"bias": nn.Parameter(torch.randn(8192))})),
    ("l2_81_swish_div_clamp_tanh", _l2(
        1024, 8192, 8192,
        lambda m, x: torch.clamp(torch.tanh(torch.clamp(
            _swish(x) / 2.0, -1.0, 1.0)), -1.0, 1.0), bias=True)),
    ("l2_84_batchnorm_scale_softmax", _l2(
        1024, 8192, 8192, lambda m, x: torch.softmax(m.bn(x) * m.scale, 1),
        extra=lambda: {"bn": _bn(8192),
                       "scale": nn.Parameter(torch.ones(1))})),
    ("l2_86_divide_gelu", _l2(1024, 8192, 8192,
                              lambda m, x: F.gelu(x / 10.0))),
    ("l2_95_add_swish_tanh_gelu_hardtanh", _l2(
        1024, 8192, 8192,
        lambda m, x: F.hardtanh(F.gelu(torch.tanh(_swish(x + m.add))),
                                -1.0, 1.0),
        extra=lambda: {"add": nn.Parameter(torch.randn(8192))})),
    ("l2_99_gelu_softmax", _l2(1024, 8192, 8192,
                               lambda m, x: torch.softmax(F.gelu(x), 1))),
]]
NAMES = [p[0] for p in PROBLEMS]

# Problems outside KernelBench that measure the host's share of a call
# (overhead.py): the GEMM is so small that the device time is a few us.
HOST_PROBLEMS = [(name, *spec) for name, spec in [
    ("host_linear_relu_64x256x256", _l2(64, 256, 256, lambda m, x: F.relu(x))),
]]


def make(name, seed=0):
    """(model in eval mode, f32 inputs) of problem `name`; the weights come
    from `seed`, the inputs from `seed + 1`."""
    torch.manual_seed(seed)
    with torch.no_grad():
        model = _spec(name)[1]()
    return model.eval(), inputs(name, seed + 1)


def inputs(name, seed):
    """f32 inputs of problem `name` drawn with `seed` (on the CPU)."""
    g = torch.Generator().manual_seed(seed)
    return [torch.rand(s, generator=g) for s in _spec(name)[2]]


def _spec(name):
    for p in PROBLEMS + HOST_PROBLEMS:
        if p[0] == name:
            return p
    raise KeyError(f"no problem {name!r} ({', '.join(NAMES)})")


def bare_gemm(name, model, xs):
    """The bare GEMM of the problem (its first one) on the given operands:
    (a, b) such that a @ b.T (bt) or a @ b is the product."""
    if isinstance(model, Matmul):
        return xs[0], xs[1], model.kind
    lin = model.linear if hasattr(model, "linear") else model.linear1
    return xs[0], lin.weight, "linear"
