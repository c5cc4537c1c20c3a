"""One compiled module, every batch size, on an NVIDIA GPU (issue 27).

Two steps, because the GPU machine has no compiler:

    # here: export each model once with a dynamic batch and compile it
    # (xpu-compile --target=cuda) into function packages
    .venv/bin/python bench/nvidia/dynamic.py build --out DIR
    # on the GPU machine (PyTorch with CUDA; DIR/lib holds the runtime)
    XPU_OPT_BUILD_DIR=DIR python3 bench/nvidia/dynamic.py run --dir DIR

`run` loads each package once and calls it (the inputs, then the model's
weights) on CUDA tensors of several
batch sizes, twice each with new inputs, and compares every result with
the model in float64 on the CPU (relative error: max |got - ref| /
max(max |ref|, 1)). It prints one row per model, precision and batch and
exits non-zero if any result is past its tolerance (f32 1e-4, bf16 3e-2);
then, at the largest batch, the median CUDA-event time per call of the
package and of eager PyTorch in the same precision (bf16 eager for bf16).
"""

import argparse
import copy
import pathlib
import shutil
import sys

import torch
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

BATCHES = (1, 3, 17, 64, 300, 1000)
TOLERANCE = {"f32": 1e-4, "bf16": 3e-2}


class Tokens(nn.Module):
    """Linear + GELU + Linear + residual on [batch, 7, features]."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(256, 1024)
        self.down = nn.Linear(1024, 256)

    def forward(self, x):
        return x + self.down(nn.functional.gelu(self.up(x)))


def models():
    """(name, model, example input, input shape for a batch)."""
    torch.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(32, 48), nn.LayerNorm(48), nn.GELU(),
                        nn.Linear(48, 16)).eval()
    ffn = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(),
                        nn.Linear(4096, 1024)).eval()
    tokens = Tokens().eval()
    return [("mlp", mlp, lambda b: (b, 32)),
            ("ffn", ffn, lambda b: (b, 1024)),
            ("tokens", tokens, lambda b: (b, 7, 256))]


def weights_of(model):
    """The function packages' weight arguments: named_parameters() then
    named_buffers() (xpu_opt.export's order)."""
    return [p.detach() for _, p in model.named_parameters()] + \
        [b for _, b in model.named_buffers()]


def build(args):
    import subprocess
    import xpu_opt
    args.out.mkdir(parents=True, exist_ok=True)
    for name, model, shape in models():
        text = xpu_opt.export(model, torch.randn(shape(2)), dynamic=True)
        mlir = args.out / f"{name}.mlir"
        mlir.write_text(text)
        for precision in TOLERANCE:
            subprocess.run(
                [str(ROOT / "build" / "bin" / "xpu-compile"), str(mlir),
                 "--target=cuda", "-o", str(args.out / f"{name}.{precision}"),
                 f"--xpu-pipeline-options=chip=sm_90a precision={precision}"],
                check=True)
            print(f"{name}.{precision}: compiled, {text.count('?x')} dynamic "
                  "types in its MLIR")
    lib = args.out / "lib"
    lib.mkdir(exist_ok=True)
    shutil.copy(ROOT / "build" / "lib" / "libxpu_cuda_runtime.so", lib)


def run(args):
    import xpu_opt
    failed = 0
    print(f"{'model':8} {'prec':5} {'batch':>6} {'call':>4} {'rel error':>10}")
    for name, model, shape in models():
        ref_model = copy.deepcopy(model).double()
        for precision, tol in TOLERANCE.items():
            fast = xpu_opt.load(args.dir / f"{name}.{precision}",
                                target="cuda")
            weights = [w.cuda() for w in weights_of(model)]
            for batch in BATCHES:
                for call in (1, 2):
                    g = torch.Generator().manual_seed(batch * 10 + call)
                    x = torch.randn(shape(batch), generator=g)
                    with torch.no_grad():
                        got = fast(x.cuda(), *weights).double().cpu()
                        ref = ref_model(x.double())
                    err = ((got - ref).abs().max() /
                           max(ref.abs().max().item(), 1.0)).item()
                    if got.shape != ref.shape:
                        err = float("inf")
                    bad = not err <= tol
                    failed += bad
                    print(f"{name:8} {precision:5} {batch:>6} {call:>4} "
                          f"{err:>10.2e}{'  FAIL' if bad else ''}")
    print("ALL PASSED" if not failed else f"FAILED: {failed}")
    print(f"\n{'model':8} {'prec':5} {'batch':>6} {'xpu ms':>8} "
          f"{'eager ms':>9} {'eager/xpu':>9}")
    for name, model, shape in models():
        for precision in TOLERANCE:
            dtype = torch.float32 if precision == "f32" else torch.bfloat16
            m = copy.deepcopy(model).cuda().to(dtype)
            fast = xpu_opt.load(args.dir / f"{name}.{precision}",
                                target="cuda")
            weights = [w.cuda() for w in weights_of(model.cuda())]
            x = torch.randn(shape(BATCHES[-1]), device="cuda")
            xpu = median_ms(lambda: fast(x, *weights))
            eager = median_ms(lambda: m(x.to(dtype)))
            print(f"{name:8} {precision:5} {BATCHES[-1]:>6} {xpu:>8.3f} "
                  f"{eager:>9.3f} {eager / xpu:>9.2f}")
    return 1 if failed else 0


def median_ms(fn, reps=20):
    """Median CUDA-event time of `fn` in ms, after 3 warm-up calls."""
    with torch.no_grad():
        for _ in range(3):
            fn()
        times = []
        for _ in range(reps):
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
    return sorted(times)[len(times) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="step", required=True)
    b = sub.add_parser("build")
    b.add_argument("--out", type=pathlib.Path, required=True)
    r = sub.add_parser("run")
    r.add_argument("--dir", type=pathlib.Path, required=True)
    args = ap.parse_args()
    sys.exit(build(args) if args.step == "build" else run(args))


if __name__ == "__main__":
    main()
