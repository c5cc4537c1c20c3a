// Bad input to xpu-run gets a located diagnostic and a non-zero exit.

// RUN: not xpu-run %s -e main -entry-point-result=void 2>&1 | FileCheck %s --check-prefix=DYN
// DYN: errors.mlir:[[@LINE+3]]:8: error: linalg.matmul has dynamic shapes (tensor<?x4xf32>); xpu.gemm needs static shapes

func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<4x6xf32>, %c: tensor<?x6xf32>) -> tensor<?x6xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x6xf32>) outs(%c : tensor<?x6xf32>) -> tensor<?x6xf32>
  return %r : tensor<?x6xf32>
}

func.func @main() {
  return
}

// RUN: not xpu-run %s -e main -entry-point-result=void --target=rocm 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: xpu-run: target 'rocm' is not available in this build (available: cpu, opencl, levelzero, cuda)

// RUN: not xpu-run %s -e main -entry-point-result=void --target=opencl --compare-pipeline='builtin.module()' 2>&1 | FileCheck %s --check-prefix=COMPARE
// RUN: not xpu-run %s -e main -entry-point-result=void --target=cuda --compare-pipeline='builtin.module()' 2>&1 | FileCheck %s --check-prefix=COMPARE
// COMPARE: error: xpu-run: --compare-pipeline runs on the cpu target only

// RUN: not xpu-run %s -e main -entry-point-result=void --xpu-pipeline-options="register-tile=oops" 2>&1 | FileCheck %s --check-prefix=OPTS
// OPTS: error: xpu-run: invalid --xpu-pipeline-options 'register-tile=oops'

// RUN: echo "func.func @main( {" | not xpu-run -e main -entry-point-result=void 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: error: expected

// Device options belong to the GPU targets.
// RUN: not xpu-run --xpu-list-devices 2>&1 | FileCheck %s --check-prefix=DEV
// DEV: xpu-run: --xpu-list-devices and --xpu-device need --target=opencl, --target=levelzero or --target=cuda
