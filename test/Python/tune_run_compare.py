"""xpu_opt.tune_run's output comparison (CPU/tune-run-compare.test)."""

import torch

from xpu_opt.tune_run import _rel_l2

nan = float("nan")


def t(*values):
    return torch.tensor(values, dtype=torch.float64)


print("both NaN, same numbers:", _rel_l2([t(1, nan, 3)], [t(1, nan, 3)]))
print("both NaN, 10%% off elsewhere: %.3g" %
      _rel_l2([t(0, nan, 4.4)], [t(0, nan, 4)]))
print("NaN in the trial only:", _rel_l2([t(1, nan, 3)], [t(1, 2, 3)]))
print("NaN in the default only:", _rel_l2([t(1, 2, 3)], [t(1, nan, 3)]))
print("another shape:", _rel_l2([t(1, 2)], [t(1, 2, 3)]))
print("all NaN in both:", _rel_l2([t(nan, nan)], [t(nan, nan)]))
