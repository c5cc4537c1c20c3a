"""Linear + GELU with the tanh approximation (torch-mlir emits math.fpowi
for x ** 3)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return nn.functional.gelu(self.linear(x), approximate="tanh")


def get_inputs():
    torch.manual_seed(0)
    return [torch.randn(32, 64)]


def get_init_inputs():
    torch.manual_seed(1)
    return [64, 48]
