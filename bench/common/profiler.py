"""What the GPU benchmarks share: the device time of the work a call runs,
from PyTorch's profiler."""

import torch


def kernel_times(fn, nsets, calls=5):
    """Device time per call (µs) of each kernel, copy and fill that `fn`
    runs, from PyTorch's profiler (CUPTI sees driver API launches too)."""
    from torch.profiler import ProfilerActivity, profile
    fn(0)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for i in range(calls):
            fn(i % nsets)
        torch.cuda.synchronize()
    times = {}
    for e in prof.key_averages():
        total = getattr(e, "device_time_total", None)
        if total is None:
            total = e.cuda_time_total
        if total > 0:
            times[e.key] = total / calls
    return times
