// RUN: xpu-opt %s --xpu-remarks -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(func.func(xpu-cpu-pack-operands))' \
// RUN:   | FileCheck %s
// The whole CPU pipeline compiles it (the packed nest once divided k by
// its block count, 0 here: SIGFPE).
// RUN: xpu-opt %s --xpu-cpu-pipeline | FileCheck %s --check-prefix=PIPELINE

// A matmul with an empty k (found by test/Fuzz/mutated-inputs.test) has
// nothing to multiply: it is left to the generic lowering, which writes
// the fill.
// CHECK-LABEL: func.func @empty_k
//   CHECK-NOT:   linalg.pack
//       CHECK:   linalg.matmul
// PIPELINE: llvm.func @empty_k
module attributes {xpu.target = #xpu.target<"cpu">} {
func.func @empty_k(%x: tensor<?x0xf32>, %w: tensor<0x32xf32>) -> tensor<?x32xf32> {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.000000e+00 : f32
  %n = tensor.dim %x, %c0 : tensor<?x0xf32>
  %e = tensor.empty(%n) : tensor<?x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<?x32xf32>) -> tensor<?x32xf32>
  // expected-remark @+1 {{linalg.matmul left in place: it has an empty dimension: nothing to multiply}}
  %r = linalg.matmul ins(%x, %w : tensor<?x0xf32>, tensor<0x32xf32>) outs(%z : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}
}
