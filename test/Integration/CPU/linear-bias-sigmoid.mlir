// nn.Linear(16, 48) followed by nn.Sigmoid(): 1 / (1 + exp(-y)),
// on x: [32, 16].
// K = 16 (not 64) keeps most pre-activations (|x @ W^T + b| mostly < 6)
// out of the region where the activation saturates, so that the check
// still sees the GEMM through it.
// The model as torch-mlir emits it, compiled without and with xpu-optimize
// (xpu-cpu-pipeline's default), both against the same float64 NumPy
// reference.
// DEFINE: %{check} = %refcheck --input x=32x16@1 --input w=48x16@2 --input b=48@3 \
// DEFINE:     --expr "sigmoid(x @ w.T + b)" \
// DEFINE:     --tol 1e-5
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=optimize=false | %{check}
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<32x16xf32>, %w: tensor<48x16xf32> {xpu.weight}, %b: tensor<48xf32> {xpu.weight}) -> tensor<32x48xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e0 = tensor.empty() : tensor<16x48xf32>
  %wt = linalg.transpose ins(%w : tensor<48x16xf32>) outs(%e0 : tensor<16x48xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<32x48xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<32x48xf32>) -> tensor<32x48xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<32x16xf32>, tensor<16x48xf32>) outs(%z : tensor<32x48xf32>) -> tensor<32x48xf32>
  %biased = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<32x48xf32>, tensor<48xf32>) outs(%e1 : tensor<32x48xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %0 = arith.addf %in, %in_0 : f32
    linalg.yield %0 : f32
  } -> tensor<32x48xf32>
  %act = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<32x48xf32>) outs(%e1 : tensor<32x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    %1 = math.exp %0 : f32
    %2 = arith.addf %1, %one : f32
    %3 = arith.divf %one, %2 : f32
    linalg.yield %3 : f32
  } -> tensor<32x48xf32>
  return %act : tensor<32x48xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd = call @gen2(%c32, %c16, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c48, %c16, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c48, %s3) : (index, i64) -> tensor<?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<32x16xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<48x16xf32>
  %b = tensor.cast %bd : tensor<?xf32> to tensor<48xf32>
  %y = call @forward(%x, %w, %b)
      : (tensor<32x16xf32>, tensor<48x16xf32>, tensor<48xf32>) -> tensor<32x48xf32>
  %u = tensor.cast %y : tensor<32x48xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
