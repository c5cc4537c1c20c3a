"""Linear + BatchNorm1d (eval) + bias + divide + swish, after KernelBench
level 2 "Matmul_BatchNorm_BiasAdd_Divide_Swish" (the bias a 1-element
parameter)."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, in_features, out_features, divide_value=1.0):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features)
        self.bias = nn.Parameter(torch.randn(1))
        self.divide_value = divide_value
        with torch.no_grad():  # running statistics of a trained model
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 1.5)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        x = self.bn(self.matmul(x)) + self.bias
        x = x / self.divide_value
        return x * torch.sigmoid(x)


def get_inputs():
    torch.manual_seed(0)
    return [torch.randn(32, 64)]


def get_init_inputs():
    torch.manual_seed(1)
    return [64, 48]
