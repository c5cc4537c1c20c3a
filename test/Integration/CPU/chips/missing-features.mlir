// Code compiled for a CPU whose features this host lacks is refused before
// it runs, with one line naming the function, the CPU and the features
// (instead of an illegal instruction). Zen 4 has SSE4a, Intel's cores do
// not: on such a host chip=znver4 cannot run.
// REQUIRES: !x86-sse4a
// RUN: cat %S/../odd-shapes.mlir %S/../Inputs/gen.mlir \
// RUN:   | not xpu-run -e main -entry-point-result=void --xpu-pipeline-options="chip=znver4 threads=1" 2>&1 \
// RUN:   | FileCheck %s
// CHECK: error: xpu-run: '{{[a-z_.]+}}' is compiled for znver4 and uses features this host's CPU ({{[a-z0-9-]+}}) lacks: sse4a; compile for this host (chip=host) or run on such a CPU
// CHECK-NOT: error
