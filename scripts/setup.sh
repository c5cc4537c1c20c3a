#!/usr/bin/env bash
# Installs every package the build, the tests and the demo need. Idempotent and
# non-interactive: packages already present are not touched, so a second run
# costs one dpkg query.
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
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
