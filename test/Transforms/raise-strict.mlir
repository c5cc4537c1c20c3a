// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-raise{strict=true}))' --verify-diagnostics

// In strict mode (what xpu-cpu-pipeline uses) a contraction with dynamic
// shapes is an error with its location, not a silent fallback.
func.func @dynamic_is_an_error(%a: tensor<?x4xf32>, %b: tensor<4x6xf32>, %c: tensor<?x6xf32>) -> tensor<?x6xf32> {
  // expected-error @+1 {{linalg.matmul has dynamic shapes (tensor<?x4xf32>); xpu.gemm needs static shapes}}
  %r = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x6xf32>) outs(%c : tensor<?x6xf32>) -> tensor<?x6xf32>
  return %r : tensor<?x6xf32>
}

// -----

// Strict mode does not change what happens to other refusals.
func.func @mixed_types_still_untouched(%a: tensor<8x4xf16>, %b: tensor<4x6xf32>, %c: tensor<8x6xf32>) -> tensor<8x6xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x4xf16>, tensor<4x6xf32>) outs(%c : tensor<8x6xf32>) -> tensor<8x6xf32>
  return %r : tensor<8x6xf32>
}
