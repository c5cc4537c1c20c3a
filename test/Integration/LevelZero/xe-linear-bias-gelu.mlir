// xpu-xe-pipeline (XeGPU, DPAS) on a Level Zero GPU: the CPU integration
// model linear-bias-gelu.mlir, compiled for the chip of the lit parameter xe_chip
// (default pvc), run by xpu-run and compared with a float64 NumPy reference.
// DPAS multiplies bf16 operands (converted once at pack time) and
// accumulates in f32: the tolerance is 2 u sqrt(K) with u = 2^-8, K = 16
// (docs/Design.md, differential checking). Only a machine with an Intel GPU
// and its Level Zero driver runs this; elsewhere it is unsupported.
// REQUIRES: levelzero-driver
// RUN: cat %S/../CPU/linear-bias-gelu.mlir %S/../CPU/Inputs/gen.mlir \
// RUN:   | xpu-run --target=levelzero --xpu-chip=%xe_chip -e main -entry-point-result=void \
// RUN:   | %refcheck --input x=32x16@1 --input w=48x16@2 --input b=48@3 \
// RUN:       --expr "gelu(x @ w.T + b)" --tol 0.032
