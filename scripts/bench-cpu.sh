#!/usr/bin/env bash
# make bench: the CPU GEMM benchmark (scripts/bench-cpu.py) against NumPy /
# OpenBLAS and, when it installs, IREE with data tiling, measured in the same
# run; then bf16 (scripts/bench-cpu-bf16.py) against PyTorch's bf16 matmul,
# and KernelBench-style GEMM + epilogue models (scripts/bench-cpu-models.py)
# against PyTorch eager and torch.compile on the CPU, and their compile
# time (scripts/bench-compile-time.py). IREE
# (iree-base-compiler, iree-base-runtime from PyPI) goes into a
# virtual environment under the build directory, for the benchmark only; if
# it cannot be installed the IREE column is left out.
#
# Then, where an OpenCL device exists, scripts/bench-opencl.sh (the SPIR-V
# kernels on PoCL against the CPU pipeline and stock MLIR loops).
#
# Usage: scripts/bench-cpu.sh [build-dir] [bench-cpu.py options...]
set -euo pipefail

BUILD_DIR=${1:-build}
shift || true
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
PYTHON=${PYTHON:-/usr/bin/python3}

VENV="$BUILD_DIR/bench-venv"
IREE_ARGS=()
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv --system-site-packages "$VENV" >/dev/null 2>&1 || true
fi
if [ -x "$VENV/bin/python" ]; then
  if ! "$VENV/bin/python" -c "import iree.compiler, iree.runtime" 2>/dev/null; then
    "$VENV/bin/pip" install -q iree-base-compiler iree-base-runtime >/dev/null 2>&1 ||
      echo "bench-cpu: IREE could not be installed; measuring without it"
  fi
  if "$VENV/bin/python" -c "import iree.compiler, iree.runtime" 2>/dev/null; then
    IREE_ARGS=(--iree-python "$VENV/bin/python")
  fi
fi

"$PYTHON" "$ROOT/scripts/bench-cpu.py" --build "$BUILD_DIR" "${IREE_ARGS[@]}" "$@"

# bf16: precision=bf16 (AMX where the host has it) against PyTorch's bf16
# matmul, in the same run, with the Python that has torch (the project's
# .venv, or TORCH_PYTHON).
TORCH_PYTHON=${TORCH_PYTHON:-$ROOT/.venv/bin/python}
if [ -x "$TORCH_PYTHON" ] && "$TORCH_PYTHON" -c "import torch, numpy" 2>/dev/null; then
  echo
  "$TORCH_PYTHON" "$ROOT/scripts/bench-cpu-bf16.py" --build "$BUILD_DIR" --python "$TORCH_PYTHON"
  echo
  XPU_OPT_BUILD_DIR="$BUILD_DIR" "$TORCH_PYTHON" "$ROOT/scripts/bench-cpu-models.py" --bf16
  echo
  for precision in f32 bf16; do
    XPU_OPT_BUILD_DIR="$BUILD_DIR" "$TORCH_PYTHON" "$ROOT/scripts/bench-compile-time.py" \
      --xpu-compile "$BUILD_DIR/bin/xpu-compile" --precision "$precision" --core 1
  done
else
  echo "bench-cpu: PyTorch not importable with $TORCH_PYTHON; bf16 and model sections left out"
fi

# The generated SPIR-V kernels on an OpenCL device (PoCL here) next to the
# CPU pipeline and stock MLIR loops, when a device exists.
if command -v clinfo >/dev/null && clinfo -l 2>/dev/null | grep -q "Device #"; then
  echo
  bash "$ROOT/scripts/bench-opencl.sh" "$BUILD_DIR"
fi
