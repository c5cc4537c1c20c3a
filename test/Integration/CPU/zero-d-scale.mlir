// y = (x @ W^T) * s + t with x: [32, 64], W: [48, 64] (nn.Linear(64, 48,
// bias=False)), a 0-d scale s: tensor<f32> broadcast with (d0, d1) -> ()
// and a size-1 shift t: tensor<1xf32> broadcast with (d0, d1) -> (0).
// @main builds s as gen1 of length 1 collapsed to 0-d, so the reference
// reads s[0] (0.5) and t[0] (1.125).
// The model as torch-mlir emits it, compiled without and with xpu-optimize
// (xpu-cpu-pipeline's default), both against the same float64 NumPy
// reference.
// DEFINE: %{check} = %refcheck --input x=32x64@1 --input w=48x64@2 --input s=1@3 \
// DEFINE:     --input t=1@4 \
// DEFINE:     --expr "(x @ w.T) * s[0] + t[0]" \
// DEFINE:     --tol 1e-5
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=optimize=false | %{check}
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> ()>
#map2 = affine_map<(d0, d1) -> (0)>
func.func @forward(%x: tensor<32x64xf32>, %w: tensor<48x64xf32> {xpu.weight}, %s: tensor<f32> {xpu.weight}, %t: tensor<1xf32> {xpu.weight}) -> tensor<32x48xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<64x48xf32>
  %wt = linalg.transpose ins(%w : tensor<48x64xf32>) outs(%e0 : tensor<64x48xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<32x48xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<32x64xf32>, tensor<64x48xf32>) outs(%z : tensor<32x48xf32>) -> tensor<32x48xf32>
  %scaled = linalg.generic {indexing_maps = [#map, #map1, #map2, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %s, %t : tensor<32x48xf32>, tensor<f32>, tensor<1xf32>) outs(%e1 : tensor<32x48xf32>) {
  ^bb0(%in: f32, %in_0: f32, %in_1: f32, %out: f32):
    %0 = arith.mulf %in, %in_0 : f32
    %1 = arith.addf %0, %in_1 : f32
    linalg.yield %1 : f32
  } -> tensor<32x48xf32>
  return %scaled : tensor<32x48xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %s4 = arith.constant 4 : i64
  %xd = call @gen2(%c32, %c64, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c48, %c64, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %sd = call @gen1(%c1, %s3) : (index, i64) -> tensor<?xf32>
  %td = call @gen1(%c1, %s4) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<32x64xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<48x64xf32>
  %s = tensor.cast %sd : tensor<?xf32> to tensor<1xf32>
  %t = tensor.cast %td : tensor<?xf32> to tensor<1xf32>
  %s0 = tensor.collapse_shape %s [] : tensor<1xf32> into tensor<f32>
  %y = call @forward(%x, %w, %s0, %t)
      : (tensor<32x64xf32>, tensor<48x64xf32>, tensor<f32>, tensor<1xf32>) -> tensor<32x48xf32>
  %u = tensor.cast %y : tensor<32x48xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
