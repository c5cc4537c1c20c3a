"""Linear + per-channel scale + BatchNorm1d (eval) in torch.float64
(parameters, buffers and input)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.rand(out_features) + 0.5)
        self.bn = nn.BatchNorm1d(out_features)
        with torch.no_grad():  # running statistics of a trained model
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 1.5)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)
        self.to(torch.float64)

    def forward(self, x):
        return self.bn(self.gemm(x) * self.scale)


def get_inputs():
    torch.manual_seed(0)
    return [torch.randn(32, 64, dtype=torch.float64)]


def get_init_inputs():
    torch.manual_seed(1)
    return [64, 48]
