// Marked weights through every host pipeline: <fn>.pack and <fn>.packed get
// C wrappers (llvm.emit_c_interface), which copy argument attributes onto
// pointer arguments. The weight marks must not follow (the xpu.weight
// verifier rejects them on a pointer), so the parts carry none. The GPU
// pipelines run in 16 bits, so that the weights have work to pack.
// RUN: xpu-opt %s --xpu-cpu-pipeline | FileCheck %s
// RUN: xpu-opt %s --xpu-spirv-pipeline=precision=f16 | FileCheck %s
// RUN: xpu-opt %s --xpu-nvvm-pipeline="precision=bf16 binary-format=isa" | FileCheck %s

// CHECK-LABEL: llvm.func @_mlir_ciface_forward.pack
//  CHECK-NOT:    xpu.weight
//  CHECK:      llvm.func @_mlir_ciface_forward.packed
//  CHECK-NOT:    xpu.weight
//  CHECK:      llvm.return
func.func @forward(%x: tensor<4x8xf32>, %w: tensor<16x8xf32> {xpu.weight}, %b: tensor<16xf32> {xpu.weight}) -> tensor<4x16xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x16xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %t = tensor.empty() : tensor<8x16xf32>
  %wt = linalg.transpose ins(%w : tensor<16x8xf32>) outs(%t : tensor<8x16xf32>) permutation = [1, 0]
  %m = linalg.matmul ins(%x, %wt : tensor<4x8xf32>, tensor<8x16xf32>) outs(%f : tensor<4x16xf32>) -> tensor<4x16xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<4x16xf32>, tensor<16xf32>) outs(%e : tensor<4x16xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %bias : tensor<4x16xf32>
}
