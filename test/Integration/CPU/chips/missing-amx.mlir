// chip=sapphirerapids (AMX, AVX512-BF16) on a host without AMX: one error
// line from xpu-run, never SIGILL.
// REQUIRES: !x86-amx-tile
// RUN: cat %S/../odd-shapes.mlir %S/../Inputs/gen.mlir \
// RUN:   | not xpu-run -e main -entry-point-result=void --xpu-pipeline-options="chip=sapphirerapids threads=1" 2>&1 \
// RUN:   | FileCheck %s
// CHECK: error: xpu-run: '{{[a-z_.]+}}' is compiled for sapphirerapids and uses features this host's CPU ({{[a-z0-9-]+}}) lacks: {{.*}}amx-tile
// CHECK-NOT: error
