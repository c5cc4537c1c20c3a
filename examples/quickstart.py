"""The README's quick start: a PyTorch module compiled by xpu-opt, called
like the module, checked against PyTorch and timed on every target this
machine has."""
import torch

import xpu_opt

model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.GELU(),
                            torch.nn.Linear(512, 128)).eval()
x = torch.randn(64, 256)

for target in xpu_opt.available_targets():           # cpu, opencl, ...
    fast = xpu_opt.compile(model, (x,), target=target)
    y = fast(x)                                       # torch in, torch out
    err = (y - model(x)).abs().max().item()
    t = fast.benchmark(x, repeat=20)
    print(f"{target:10} max |y - torch| = {err:.1e}   "
          f"{t['median'] * 1e3:.3f} ms per call")
    for name, launches, ns in t["kernels"]:           # device targets
        print(f"{'':10} kernel {name}: {launches} launches, "
              f"{ns / 1e6 / launches:.3f} ms each")
