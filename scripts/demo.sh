#!/usr/bin/env bash
# The main job on the bundled example (make demo): a torch-mlir style
# Linear + BatchNorm(eval) + ReLU is raised to xpu, lowered for the CPU, run,
# and its result checked against a float64 NumPy reference.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/$build/bin"
ex="$root/examples/linear_bn_relu.mlir"
python=/usr/bin/python3

section() { printf '\n=== %s ===\n' "$1"; }

section "Input: $(basename "$ex") (linalg on tensors as torch-mlir emits it)"
grep -E "linalg\.(transpose|fill|matmul|generic)" "$ex" | sed 's/^ */  /' | cut -c1-100

section "xpu-raise: the transpose and the zero fill are absorbed into xpu.gemm"
"$bin/xpu-opt" "$ex" --pass-pipeline='builtin.module(func.func(xpu-raise))' \
  --xpu-remarks

section "xpu-optimize{reassociate=true}: the epilogue is fused, BatchNorm folded into the weights at pack time"
"$bin/xpu-opt" "$ex" --xpu-optimize=reassociate=true --xpu-remarks 2>&1 |
  grep -oE 'remark: .*' | cut -c1-160
"$bin/xpu-opt" "$ex" --xpu-optimize=reassociate=true |
  awk '/func.func private @forward.packed/,/^  }$/'

section "xpu-lower-to-linalg: the executable definition of xpu.gemm"
"$bin/xpu-opt" "$ex" \
  --pass-pipeline='builtin.module(func.func(xpu-raise),xpu-lower-to-linalg)' |
  grep -E "linalg\.(fill|matmul|generic)|xpu\." | sed 's/^ */  /' | cut -c1-140

section "xpu-cpu-pipeline: tiled, vectorized, lowered to the LLVM dialect"
lowered=$("$bin/xpu-opt" "$ex" --xpu-cpu-pipeline)
echo "$lowered" | grep -E "^ *llvm.func @forward" | cut -c1-100
echo "  $(echo "$lowered" | wc -l) lines; ops left outside the LLVM dialect: \
$(echo "$lowered" | grep -cE '^ *(%[^ ]+ = )?(arith|vector|memref|scf|linalg|tensor|xpu)\.' || true)"
echo "  vector FMAs (llvm.intr.fmuladd / llvm.intr.fma on vectors): \
$(echo "$lowered" | grep -cE 'llvm.intr.fmuladd.*vector|llvm.intr.fma.*vector' || true)"

section "Run on the CPU with xpu-run and check against NumPy (float64)"
cat "$ex" "$root/examples/linear_bn_relu.main.mlir" \
    "$root/test/Integration/CPU/Inputs/gen.mlir" |
  "$bin/xpu-run" -e main -entry-point-result=void |
  "$python" "$root/test/lib/refcheck.py" \
    --input x=16x64@1 --input w=32x64@2 --input b=32@3 --input gamma=32@4 \
    --input beta=32@5 --input mean=32@6 --input var=32@7:pos \
    --expr "np.maximum((x @ w.T + b - mean) / np.sqrt(var + 1e-5) * gamma + beta, 0)" \
    --tol 1e-5
