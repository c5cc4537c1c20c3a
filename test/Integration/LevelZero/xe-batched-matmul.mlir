// xpu-xe-pipeline (XeGPU, DPAS) on a Level Zero GPU: the CPU integration
// model batched-matmul.mlir, compiled for the chip of the lit parameter xe_chip
// (default pvc), run by xpu-run and compared with a float64 NumPy reference.
// DPAS multiplies bf16 operands (converted once at pack time) and
// accumulates in f32: the tolerance is 2 u sqrt(K) with u = 2^-8, K = 40
// (docs/Design.md, differential checking). Only a machine with an Intel GPU
// and its Level Zero driver runs this; elsewhere it is unsupported.
// REQUIRES: levelzero-driver
// RUN: cat %S/../CPU/batched-matmul.mlir %S/../CPU/Inputs/gen.mlir \
// RUN:   | xpu-run --target=levelzero --xpu-chip=%xe_chip -e main -entry-point-result=void \
// RUN:   | %refcheck --input a=4x24x40@1 --input bm=4x40x20@2 --input bias=20@3 \
// RUN:       --expr "a @ bm + bias" --tol 0.05
