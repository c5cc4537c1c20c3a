// Without a Level Zero driver, xpu-run --target=levelzero --xpu-chip=pvc
// compiles the model with xpu-xe-pipeline (XeGPU kernels in SPIR-V), JITs
// the host, loads libxpu_levelzero_runtime.so and stops at the runtime's
// first call with its clear message and exit status 1, printing nothing on
// stdout. A chip that is not an Xe preset, or --xpu-chip without
// --target=levelzero, is an error before anything runs.

// REQUIRES: levelzero-runtime
// UNSUPPORTED: levelzero-driver
// RUN: cat %S/../CPU/odd-shapes.mlir %S/../CPU/Inputs/gen.mlir \
// RUN:   | not xpu-run --target=levelzero --xpu-chip=pvc -e main -entry-point-result=void \
// RUN:     2> %t.err | count 0
// RUN: FileCheck %s < %t.err
// CHECK: xpu levelzero runtime: no Level Zero driver found (zeInit: ZE_RESULT_ERROR_UNINITIALIZED)
// CHECK-NOT: {{.}}

// RUN: cat %S/../CPU/odd-shapes.mlir %S/../CPU/Inputs/gen.mlir \
// RUN:   | not xpu-run --target=levelzero --xpu-chip=sm_90 -e main -entry-point-result=void 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP
// RUN: cat %S/../CPU/odd-shapes.mlir %S/../CPU/Inputs/gen.mlir \
// RUN:   | not xpu-run --target=cpu --xpu-chip=pvc -e main -entry-point-result=void 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHIP
// CHIP: error: xpu-run: --xpu-chip must be pvc or bmg, with --target=levelzero
