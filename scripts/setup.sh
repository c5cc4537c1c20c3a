#!/usr/bin/env bash
# Installs every package the build, the tests and the demo need, and fetches
# Intel's offline GPU compiler for the tests (scripts/fetch-intel-ocloc.sh).
# Idempotent and non-interactive: packages already present are not touched,
# so a second run costs one dpkg query.
set -euo pipefail

packages=(
  # Toolchain: Debian's LLVM/MLIR 22 (headers, libMLIR.so, mlir-opt, lit, FileCheck).
  llvm-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  cmake ninja-build g++ make clang-format
  # Tests: the reference checker is Python + NumPy, run by the same python3 lit uses;
  # python3-venv for the PyTorch environment below.
  python3 python3-numpy python3-venv
  # make bench's peer: Debian's NumPy calls the reference BLAS unless OpenBLAS
  # provides libblas.so.3 (update-alternatives picks it up on install).
  libopenblas0-pthread
  # SPIR-V and OpenCL (PoCL runs OpenCL on the CPU), Level Zero loader.
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo llvm-spirv-15
  spirv-tools libze-dev
  # make test-robustness: clang with libFuzzer and the sanitizer runtimes
  # (the sanitized lit build uses GCC, whose libasan/libubsan come with g++).
  clang-22 libclang-rt-22-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
else
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Vendor compilers the tests check the kernels with (lit features `ocloc`,
# `ptxas`): Intel's ocloc/IGC from Debian sid into .vendor/ (no change to the
# system; unavailable rather than a failure when it cannot be fetched).
# NVIDIA's ptxas is used where the CUDA toolkit is installed.
bash "$(dirname "$0")/fetch-intel-ocloc.sh"
if [ -x /usr/local/cuda/bin/ptxas ]; then
  echo "setup: ptxas present: $(/usr/local/cuda/bin/ptxas --version | tail -1)"
else
  echo "setup: no /usr/local/cuda/bin/ptxas; the tests that need it will be UNSUPPORTED"
fi

# PyTorch and torch-mlir from PyPI in .venv/ (git-ignored), with the xpu_opt
# package (python/) importable from the source tree. torch 2.14.1's Linux wheel is
# a CUDA build: it is installed without its dependencies, and only the four
# NVIDIA wheels the CUDA toolkit of these machines lacks come with it (the
# toolkit in /usr/local/cuda supplies the rest; CPU work needs no GPU). The
# wheels are kept in a download cache, so that a second setup (another
# clone, CI) installs without downloading: about 1.1 GB to download, 2.2 GB
# installed, ~6 minutes the first time. XPU_SKIP_TORCH=1 skips this step.
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
torch_pins=(
  torch==2.14.1 torch-mlir==20261001
  nvidia-cufile==1.15.1.6 nvidia-cusparselt-cu13==0.8.1
  nvidia-nvshmem-cu13==3.4.5 nvidia-nccl-cu13==2.30.7
  numpy==2.4.6 filelock==4.3.1 fsspec==2026.9.0 jinja2==3.1.6
  MarkupSafe==3.0.4 mpmath==1.3.0 networkx==3.6.1 packaging==26.4
  sympy==1.14.0 typing-extensions==4.16.0
)
if [ "${XPU_SKIP_TORCH:-0}" = "1" ]; then
  echo "setup: XPU_SKIP_TORCH=1: not installing PyTorch (the Python tests will be unsupported)"
elif [ -x "$venv/bin/python" ] && "$venv/bin/python" - "${torch_pins[@]}" <<'PY' 2>/dev/null
import sys
from importlib import metadata
for pin in sys.argv[1:]:
    name, version = pin.split("==")
    if metadata.version(name) != version:
        sys.exit(1)
import xpu_opt  # the editable install of python/
PY
then
  echo "setup: .venv has torch 2.14.1, torch-mlir 20261001 and xpu_opt"
else
  start=$(date +%s)
  wheels="${XDG_CACHE_HOME:-$HOME/.cache}/xpu-opt/wheels"
  mkdir -p "$wheels"
  [ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
  echo "setup: downloading PyTorch wheels into $wheels (skipped when present)"
  "$venv/bin/pip" download -q --no-deps --progress-bar off -d "$wheels" "${torch_pins[@]}"
  "$venv/bin/pip" install -q --no-deps --no-index --find-links "$wheels" "${torch_pins[@]}"
  echo "setup: .venv ready in $(( $(date +%s) - start )) s"
fi

# Hugging Face transformers and safetensors (the examples/huggingface models
# and their tests; nothing is downloaded from the Hub: the models are built
# from configs), pinned with every dependency torch_pins lacks, installed
# from the same wheel cache without resolving (~60 MB).
hf_pins=(
  transformers==5.24.0 safetensors==0.8.0 huggingface-hub==2.4.0
  tokenizers==0.23.3 regex==2026.11.19 pyyaml==6.0.4 tqdm==4.70.1
  typer==0.29.2 click==8.5.1 hf-xet==1.8.0 httpx2==2.16.2 httpcore2==2.16.2
  anyio==4.16.0 idna==3.20 truststore==0.10.5 h11==0.16.0 pydantic==2.14.4
  pydantic-core==2.50.5 annotated-types==0.8.0 typing-inspection==0.4.5
  shellingham==1.5.4 rich==15.0.0 markdown-it-py==4.3.0 mdurl==0.1.2
  pygments==2.21.0 annotated-doc==0.0.7
)
if [ "${XPU_SKIP_TORCH:-0}" != "1" ]; then
  if "$venv/bin/python" - "${hf_pins[@]}" <<'PY' 2>/dev/null
import sys
from importlib import metadata
for pin in sys.argv[1:]:
    name, version = pin.split("==")
    if metadata.version(name) != version:
        sys.exit(1)
PY
  then
    echo "setup: .venv has transformers 5.24.0 and safetensors 0.8.0"
  else
    wheels="${XDG_CACHE_HOME:-$HOME/.cache}/xpu-opt/wheels"
    mkdir -p "$wheels"
    "$venv/bin/pip" download -q --no-deps --progress-bar off -d "$wheels" "${hf_pins[@]}"
    "$venv/bin/pip" install -q --no-deps --no-index --find-links "$wheels" "${hf_pins[@]}"
    echo "setup: installed transformers 5.24.0 and safetensors 0.8.0 into .venv"
  fi
  # xpu_opt from the source tree (an editable install: a .pth file), with
  # package metadata whose entry points come from python/pyproject.toml, so
  # that torch.compile(backend="xpu_opt") finds the backend without an
  # import (the torch_dynamo_backends group). Rewritten every time: cheap.
  site=$("$venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  echo "$root/python" > "$site/xpu_opt.pth"
  "$venv/bin/python" - "$root/python/pyproject.toml" "$site" <<'PY'
import pathlib, sys, tomllib
project = tomllib.loads(pathlib.Path(sys.argv[1]).read_text())["project"]
info = pathlib.Path(sys.argv[2]) / f"xpu_opt-{project['version']}.dist-info"
for old in pathlib.Path(sys.argv[2]).glob("xpu_opt-*.dist-info"):
    if old != info:
        for f in old.iterdir():
            f.unlink()
        old.rmdir()
info.mkdir(exist_ok=True)
(info / "METADATA").write_text(
    f"Metadata-Version: 2.1\nName: {project['name']}\n"
    f"Version: {project['version']}\nSummary: {project['description']}\n")
groups = dict(project.get("entry-points", {}))
groups["console_scripts"] = project.get("scripts", {})
(info / "entry_points.txt").write_text("".join(
    f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in entries.items()) + "\n"
    for group, entries in groups.items()))
(info / "top_level.txt").write_text("xpu_opt\n")
(info / "INSTALLER").write_text("scripts/setup.sh\n")
PY
fi
