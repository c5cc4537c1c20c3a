// The AVX-512 path: odd-shapes.mlir (nn.Linear(97, 67) + ReLU on [131, 97];
// 131 and 67 leave partial 14x32 tiles, masked) compiled for
// chip=x86-64-v4 (32 zmm registers: 14x32 tiles) and run on this host, one
// thread and two, against the float64 NumPy reference.
// REQUIRES: x86-avx512f, x86-avx512bw, x86-avx512cd, x86-avx512dq, x86-avx512vl
// DEFINE: %{check} = %refcheck --input x=131x97@1 --input w=67x97@2 --input b=67@3 \
// DEFINE:     --expr "np.maximum(x @ w.T + b, 0)" --tol 1e-5
// RUN: cat %S/../odd-shapes.mlir %S/../Inputs/gen.mlir \
// RUN:   | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="chip=x86-64-v4 threads=1" | %{check}
// RUN: cat %S/../odd-shapes.mlir %S/../Inputs/gen.mlir \
// RUN:   | xpu-run -e main -entry-point-result=void --xpu-pipeline-options="chip=x86-64-v4 threads=2" | %{check}
// The micro-kernel's FMAs are 512-bit.
// RUN: cat %S/../odd-shapes.mlir %S/../Inputs/gen.mlir \
// RUN:   | xpu-opt --xpu-cpu-pipeline="chip=x86-64-v4 threads=1" \
// RUN:   | mlir-translate --mlir-to-llvmir | llc -O2 -o - | FileCheck %s --check-prefix=ASM
// ASM: vfmadd{{[0-9]+}}ps {{.*}}zmm
