// Without a Level Zero driver, xpu_levelzero_runtime stops at the failed
// zeInit with a clear message and exit status 1 (`not` fails on a crash),
// whether the first call lists devices or loads a module.

// REQUIRES: levelzero-runtime
// UNSUPPORTED: levelzero-driver
// RUN: not %xpu_levelzero_runtime_test 2>&1 | FileCheck %s
// RUN: not %xpu_levelzero_runtime_test --no-list %S/Inputs/vector-add.mlir 2>&1 \
// RUN:   | FileCheck %s

// CHECK-NOT: devices:
// CHECK: xpu levelzero runtime: no Level Zero driver found (zeInit: ZE_RESULT_ERROR_UNINITIALIZED)
// CHECK-NOT: {{.}}
