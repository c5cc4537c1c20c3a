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
  # Tests: the reference checker is Python + NumPy, run by the same python3 lit uses.
  python3 python3-numpy
  # SPIR-V and OpenCL (PoCL runs OpenCL on the CPU), Level Zero loader.
  pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo llvm-spirv-15
  spirv-tools libze-dev
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
