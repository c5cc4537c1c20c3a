"""Linear + BatchNorm1d (eval) + GELU + ReLU: the BatchNorm folds into the
weights at pack time."""
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.bn = nn.BatchNorm1d(out_features)
        with torch.no_grad():  # running statistics of a trained model
            self.bn.running_mean.uniform_(-0.5, 0.5)
            self.bn.running_var.uniform_(0.5, 1.5)
            self.bn.weight.uniform_(0.5, 1.5)
            self.bn.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return torch.relu(nn.functional.gelu(self.bn(self.linear(x))))


def get_inputs():
    torch.manual_seed(0)
    return [torch.randn(32, 64)]


def get_init_inputs():
    torch.manual_seed(1)
    return [64, 48]
