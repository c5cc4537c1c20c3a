// The differential checker: @forward before and after a pipeline, on the same
// random inputs (3 seeds; odd seeds in [-1, 1), even seeds in [0.5, 1.5)).

// Raising and fusion do not change the arithmetic: f32 tolerance.
// RUN: xpu-run %s --compare-pipeline='builtin.module(func.func(xpu-raise,xpu-fuse-epilogue))' | FileCheck %s --check-prefix=FUSE
// FUSE-COUNT-3: xpu-run compare: seed {{[1-3]}}, result 0: max relative error {{.*}} (tolerance 1.000000e-05)
// FUSE: xpu-run compare: PASS

// bf16 operands change the result by more than the f32 tolerance: the
// checker must catch it and exit 1...
// RUN: not xpu-run %s --compare-pipeline='func.func(xpu-raise,xpu-prepack-bf16)' | FileCheck %s --check-prefix=BF16-F32
// BF16-F32: xpu-run compare: FAIL

// ...and accept it at the bf16 tolerance 2 u sqrt(K) = 2 * 2^-8 * sqrt(64) = 0.0625.
// RUN: xpu-run %s --compare-pipeline='func.func(xpu-raise,xpu-prepack-bf16)' --compare-precision=bf16 | FileCheck %s --check-prefix=BF16
// BF16: (tolerance 6.250000e-02)
// BF16: xpu-run compare: PASS

// The tolerance is a real bound: bf16 against a 1e-9 tolerance fails.
// RUN: not xpu-run %s --compare-pipeline='func.func(xpu-raise,xpu-prepack-bf16)' --compare-tolerance=1e-9 | FileCheck %s --check-prefix=TIGHT
// TIGHT: xpu-run compare: FAIL

// Bad uses are reported, not crashed on.
// RUN: not xpu-run %s --compare-pipeline='func.func(xpu-fuse-epilogue)' --compare-function=missing 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: xpu-run: --compare-function: no function @missing with a body in the module
// RUN: not xpu-run %s --compare-pipeline='func.func(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: error: xpu-run: --compare-pipeline: cannot parse 'func.func(no-such-pass)'
// RUN: not xpu-run %s --compare-pipeline='func.func(xpu-fuse-epilogue)' --compare-function=scalar 2>&1 | FileCheck %s --check-prefix=SCALAR
// SCALAR: error: xpu-run: cannot compare @scalar: argument #0 has type 'f32'; only statically shaped tensors are supported

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<16x64xf32>, %w: tensor<32x64xf32>, %b: tensor<32xf32>) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x64xf32>) outs(%e0 : tensor<64x32xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<16x32xf32>) -> tensor<16x32xf32>
  %g = linalg.matmul ins(%x, %wt : tensor<16x64xf32>, tensor<64x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<16x32xf32>, tensor<32xf32>) outs(%e : tensor<16x32xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %0 = arith.addf %in, %bb : f32
    %1 = math.tanh %0 : f32
    linalg.yield %1 : f32
  } -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

func.func @scalar(%x: f32) -> f32 {
  return %x : f32
}

// A model's own cf.assert (torch-mlir guards 1/sqrt(var + eps)) does not
// abort the check: the arguments that reach it get values in [0.5, 1.5).
// RUN: xpu-run %xpu_src_root/examples/linear_bn_relu.mlir --compare-pipeline=xpu-optimize | FileCheck %s --check-prefix=ASSERT
// ASSERT: xpu-run compare: argument #6 of @forward reaches a cf.assert of the model: its random values are drawn from [0.5, 1.5)
// ASSERT-NOT: argument #0
// ASSERT: xpu-run compare: PASS
