"""Batched matmul of two activations, scaled, plus a residual: no weights
(the second operand of the bmm is an input, not a parameter)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, scale):
        super().__init__()
        self.scale = scale

    def forward(self, a, b, residual):
        return torch.bmm(a, b) * self.scale + residual


def get_inputs():
    torch.manual_seed(0)
    return [torch.randn(4, 16, 32), torch.randn(4, 32, 24),
            torch.randn(4, 16, 24)]


def get_init_inputs():
    return [0.5]
