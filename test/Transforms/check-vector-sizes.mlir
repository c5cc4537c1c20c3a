// RUN: xpu-opt %s -split-input-file -verify-diagnostics \
// RUN:   --xpu-check-vector-sizes | FileCheck %s
// RUN: not xpu-opt %s -split-input-file \
// RUN:   --xpu-check-vector-sizes=max-elements=16 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not xpu-opt %s --xpu-check-vector-sizes=max-elements=0 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ZERO

// The limit itself (2^16 elements) passes, and nothing is changed.
// CHECK-LABEL: func.func @at_limit
// CHECK: math.exp %{{.*}} : vector<256x256xf32>
// SMALL: error: xpu-check-vector-sizes: 'vector<256x256xf32>' has more than 16 elements
func.func @at_limit(%x: vector<256x256xf32>) -> vector<256x256xf32> {
  %e = math.exp %x : vector<256x256xf32>
  return %e : vector<256x256xf32>
}

// -----

// Scalars and tensors are not vectors: any size passes.
// CHECK-LABEL: func.func @tensors_pass
// CHECK: math.exp %{{.*}} : tensor<2147483648xf32>
func.func @tensors_pass(%x: tensor<2147483648xf32>) -> tensor<2147483648xf32> {
  %e = math.exp %x : tensor<2147483648xf32>
  return %e : tensor<2147483648xf32>
}

// -----

// Found by the structured fuzzer (issue 10): convert-math-to-libm in the
// host lowering of xpu-xe-pipeline scalarized this into 2^31 libm calls and
// never finished.
func.func @huge_math(%x: vector<2147483648xf32>) -> vector<2147483648xf32> {
  // expected-error @below {{xpu-check-vector-sizes: 'vector<2147483648xf32>' has more than 65536 elements, which the lowerings would unroll element by element}}
  %e = math.exp %x : vector<2147483648xf32>
  %t = math.tanh %e : vector<2147483648xf32>
  return %t : vector<2147483648xf32>
}

// -----

// One element over the limit, as a result only (the operands are scalars).
func.func @huge_result(%s: f32) -> vector<65537xf32> {
  // expected-error @below {{'vector<65537xf32>' has more than 65536 elements}}
  %v = vector.broadcast %s : f32 to vector<65537xf32>
  return %v : vector<65537xf32>
}

// ZERO: error: xpu-check-vector-sizes: max-elements must be positive, not 0
