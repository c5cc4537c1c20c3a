// xpu-xe-pipeline (XeGPU, DPAS) on a Level Zero GPU: the CPU integration
// model skinny-m1.mlir, compiled for the chip of the lit parameter xe_chip
// (default pvc), run by xpu-run and compared with a float64 NumPy reference.
// DPAS multiplies bf16 operands (converted once at pack time) and
// accumulates in f32: the tolerance is 2 u sqrt(K) with u = 2^-8, K = 256
// (docs/Design.md, differential checking). Only a machine with an Intel GPU
// and its Level Zero driver runs this; elsewhere it is unsupported.
// REQUIRES: levelzero-driver
// RUN: cat %S/../CPU/skinny-m1.mlir %S/../CPU/Inputs/gen.mlir \
// RUN:   | xpu-run --target=levelzero --xpu-chip=%xe_chip -e main -entry-point-result=void \
// RUN:   | %refcheck --input x=1x256@1 --input w=96x256@2 --input b=96@3 \
// RUN:       --expr "x @ w.T + b" --tol 0.125
