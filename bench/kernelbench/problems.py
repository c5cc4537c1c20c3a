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


# The level-2 chains after nn.Linear: name -> (chain, bias, extra), where
# extra(n) makes the module's other parameters for n output features.
_CHAINS = {
    "l2_09_sub_mul_relu": (lambda m, x: F.relu((x - 2.0) * 1.5), True, None),
    "l2_12_mul_leakyrelu": (lambda m, x: F.leaky_relu(x * 2.0, 0.1), True,
                            None),
    "l2_29_mish_mish": (lambda m, x: F.mish(F.mish(x)), True, None),
    "l2_33_scale_batchnorm": (
        lambda m, x: m.bn(x * m.scale), True,
        lambda n: {"scale": nn.Parameter(torch.randn(n)), "bn": _bn(n)}),
    "l2_40_scale_residual": (lambda m, x: x * 0.5 + x, True, None),
    "l2_41_batchnorm_gelu_relu": (lambda m, x: F.relu(F.gelu(m.bn(x))), True,
                                  lambda n: {"bn": _bn(n)}),
    "l2_53_scale_hardtanh_gelu": (
        lambda m, x: F.gelu(F.hardtanh(x * 0.5, -2.0, 2.0)), True, None),
    "l2_59_swish_scale": (lambda m, x: _swish(x) * 2.0, True, None),
    "l2_63_relu_divide": (lambda m, x: F.relu(x) / 2.0, True, None),
    "l2_70_sigmoid_scale_residual": (
        lambda m, x: torch.sigmoid(x) * 2.0 + x, True, None),
    "l2_76_add_relu": (lambda m, x: F.relu(x + m.bias), False,
                       lambda n: {"bias": nn.Parameter(torch.randn(n))}),
    "l2_81_swish_div_clamp_tanh": (
        lambda m, x: torch.clamp(torch.tanh(torch.clamp(
            _swish(x) / 2.0, -1.0, 1.0)), -1.0, 1.0), True, None),
    "l2_84_batchnorm_scale_softmax": (
        lambda m, x: torch.softmax(m.bn(x) * m.scale, 1), True,
        lambda n: {"bn": _bn(n), "scale": nn.Parameter(torch.ones(1))}),
    "l2_86_divide_gelu": (lambda m, x: F.gelu(x / 10.0), True, None),
    "l2_95_add_swish_tanh_gelu_hardtanh": (
        lambda m, x: F.hardtanh(F.gelu(torch.tanh(_swish(x + m.add))),
                                -1.0, 1.0), True,
        lambda n: {"add": nn.Parameter(torch.randn(n))}),
    "l2_99_gelu_softmax": (lambda m, x: torch.softmax(F.gelu(x), 1), True,
                           None),
}


def _chain(name, batch, m_in, n_out):
    """Problem `name` of _CHAINS at a [batch, m_in] x [m_in, n_out] GEMM."""
    chain, bias, extra = _CHAINS[name]
    return _l2(batch, m_in, n_out, chain, bias,
               (lambda: extra(n_out)) if extra else None)


def _two_linear(batch, m_in, hidden, n_out):
    return (lambda: TwoLinear(m_in, hidden, n_out)), [(batch, m_in)]


# Level 2 at KernelBench's shapes (1024 x 8192 by 8192 x 8192 unless said).
_L2_SHAPES = {
    "l2_09_sub_mul_relu": (1024, 8192, 8192),
    "l2_12_mul_leakyrelu": (1024, 8192, 8192),
    "l2_29_mish_mish": (1024, 8192, 8192),
    "l2_33_scale_batchnorm": (1024, 8192, 8192),
    "l2_40_scale_residual": (16384, 4096, 4096),
    "l2_41_batchnorm_gelu_relu": (16384, 4096, 4096),
    "l2_53_scale_hardtanh_gelu": (2048, 8192, 8192),
    "l2_59_swish_scale": (128, 32768, 32768),
    "l2_63_relu_divide": (1024, 8192, 8192),
    "l2_70_sigmoid_scale_residual": (1024, 8192, 8192),
    "l2_76_add_relu": (1024, 8192, 8192),
    "l2_81_swish_div_clamp_tanh": (1024, 8192, 8192),
    "l2_84_batchnorm_scale_softmax": (1024, 8192, 8192),
    "l2_86_divide_gelu": (1024, 8192, 8192),
    "l2_95_add_swish_tanh_gelu_hardtanh": (1024, 8192, 8192),
    "l2_99_gelu_softmax": (1024, 8192, 8192),
}


def _level2(shapes, two_linear):
    problems = [(name, _chain(name, *shape)) for name, shape in shapes]
    # #45 goes after #41, as in KernelBench's numbering.
    at = next(i for i, (name, _) in enumerate(problems) if name > "l2_45")
    problems.insert(at, ("l2_45_two_gemm_sigmoid_logsumexp", two_linear))
    return problems


PROBLEMS = [(name, *spec) for name, spec in [
    # Level 1.
    ("l1_01_square_4096", _l1("mm", [(4096, 4096), (4096, 4096)])),
    ("l1_02_standard", _l1("mm", [(2048, 8192), (8192, 4096)])),
    ("l1_03_bmm", _l1("bmm", [(128, 512, 1024), (128, 1024, 2048)])),
    ("l1_08_irregular", _l1("mm", [(8205, 2949), (2949, 5921)])),
    ("l1_17_transposed_b", _l1("mm_bt", [(2048, 8192), (4096, 8192)])),
] + _level2(_L2_SHAPES.items(), _two_linear(16384, 2048, 4096, 1024))]
NAMES = [p[0] for p in PROBLEMS]

# The same problems at sizes one CPU core runs in milliseconds
# (scripts/bench-cpu-models.py): every level-2 chain on a 256 x 1024 by
# 1024 x 1024 GEMM, the level-1 shapes divided by 4 to 8 (the odd one
# keeps its odd sizes).
CPU_PROBLEMS = [(name, *spec) for name, spec in [
    ("l1_01_square", _l1("mm", [(1024, 1024), (1024, 1024)])),
    ("l1_03_bmm", _l1("bmm", [(16, 128, 256), (16, 256, 512)])),
    ("l1_08_irregular", _l1("mm", [(1025, 737), (737, 741)])),
    ("l1_17_transposed_b", _l1("mm_bt", [(512, 2048), (1024, 2048)])),
] + _level2([(name, (256, 1024, 1024)) for name in _L2_SHAPES],
            _two_linear(1024, 512, 1024, 256))]
CPU_NAMES = [p[0] for p in CPU_PROBLEMS]

# Problems outside KernelBench that measure the host's share of a call
# (overhead.py): the GEMM is so small that the device time is a few us.
HOST_PROBLEMS = [(name, *spec) for name, spec in [
    ("host_linear_relu_64x256x256", _l2(64, 256, 256, lambda m, x: F.relu(x))),
]]


def make(name, seed=0, table=None):
    """(model in eval mode, f32 inputs) of problem `name` (of PROBLEMS and
    HOST_PROBLEMS, or of `table`: CPU_PROBLEMS); the weights come from
    `seed`, the inputs from `seed + 1`."""
    torch.manual_seed(seed)
    with torch.no_grad():
        model = _spec(name, table)[1]()
    return model.eval(), inputs(name, seed + 1, table)


def inputs(name, seed, table=None):
    """f32 inputs of problem `name` drawn with `seed` (on the CPU)."""
    g = torch.Generator().manual_seed(seed)
    return [torch.rand(s, generator=g) for s in _spec(name, table)[2]]


def _spec(name, table=None):
    problems = table if table is not None else PROBLEMS + HOST_PROBLEMS
    for p in problems:
        if p[0] == name:
            return p
    raise KeyError(f"no problem {name!r} "
                   f"({', '.join(p[0] for p in problems)})")


def bare_gemm(name, model, xs):
    """The bare GEMM of the problem (its first one) on the given operands:
    (a, b) such that a @ b.T (bt) or a @ b is the product."""
    if isinstance(model, Matmul):
        return xs[0], xs[1], model.kind
    lin = model.linear if hasattr(model, "linear") else model.linear1
    return xs[0], lin.weight, "linear"
