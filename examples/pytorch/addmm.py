"""torch.addmm: bias + x @ W with a full [M, N] bias matrix (a parameter)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, m, k, n):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(k, n) / k ** 0.5)
        self.bias = nn.Parameter(torch.randn(m, n))

    def forward(self, x):
        return torch.addmm(self.bias, x, self.weight)


def get_inputs():
    torch.manual_seed(0)
    return [torch.randn(32, 64)]


def get_init_inputs():
    torch.manual_seed(1)
    return [32, 64, 48]
