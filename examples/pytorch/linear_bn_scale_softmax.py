"""Linear + BatchNorm1d (eval) + scale + softmax, after KernelBench level 2
"Gemm_BatchNorm_Scaling_Softmax" (the scale a 1-element parameter)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features)
        self.scale = nn.Parameter(torch.ones(1) * 1.5)
        with torch.no_grad():  # running statistics of a trained model
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 1.5)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return torch.softmax(self.scale * self.bn(self.gemm(x)), dim=1)


def get_inputs():
    torch.manual_seed(0)
    return [torch.randn(32, 64)]


def get_init_inputs():
    torch.manual_seed(1)
    return [64, 48]
