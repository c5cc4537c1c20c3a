// The AVX2 path on an AVX-512 host: odd-shapes.mlir (nn.Linear(97, 67) +
// ReLU on [131, 97], every tile partial) compiled for chip=x86-64-v3 (16
// ymm registers: 6x16 tiles, AVX2 + FMA instructions only) and run here,
// one thread and two, against the float64 NumPy reference.
// REQUIRES: x86-avx2, x86-fma
// DEFINE: %{check} = %refcheck --input x=131x97@1 --input w=67x97@2 --input b=67@3 \
// DEFINE:     --expr "np.maximum(x @ w.T + b, 0)" --tol 1e-5
// RUN: cat %S/../odd-shapes.mlir %S/../Inputs/gen.mlir \
// RUN:   | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="chip=x86-64-v3 threads=1" | %{check}
// RUN: cat %S/../odd-shapes.mlir %S/../Inputs/gen.mlir \
// RUN:   | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="chip=x86-64-v3 threads=2" | %{check}
// The object code has no 512-bit (zmm) instruction, and does use ymm FMAs.
// RUN: cat %S/../odd-shapes.mlir %S/../Inputs/gen.mlir \
// RUN:   | xpu-opt --xpu-cpu-pipeline="chip=x86-64-v3 threads=1" \
// RUN:   | mlir-translate --mlir-to-llvmir | llc -O2 -o - | FileCheck %s --check-prefix=ASM
// ASM-NOT: zmm
// ASM: vfmadd{{[0-9]+}}ps {{.*}}ymm
// ASM-NOT: zmm
