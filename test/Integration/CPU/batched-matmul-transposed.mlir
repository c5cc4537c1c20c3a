// torch.bmm(a, b.transpose(1, 2)) with a: [4, 24, 40], b: [4, 20, 40]:
// torch-mlir transposes b with linalg.transpose permutation [0, 2, 1]
// into [4, 40, 20] and feeds it to linalg.batch_matmul.
// The model as torch-mlir emits it, compiled without and with xpu-optimize
// (xpu-cpu-pipeline's default), both against the same float64 NumPy
// reference.
// DEFINE: %{check} = %refcheck --input a=4x24x40@1 --input bm=4x20x40@2 \
// DEFINE:     --expr "a @ bm.transpose(0, 2, 1)" \
// DEFINE:     --tol 1e-5
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=optimize=false | %{check}
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}

func.func @forward(%a: tensor<4x24x40xf32>, %bm: tensor<4x20x40xf32>) -> tensor<4x24x20xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<4x40x20xf32>
  %bt = linalg.transpose ins(%bm : tensor<4x20x40xf32>) outs(%e0 : tensor<4x40x20xf32>) permutation = [0, 2, 1]
  %e1 = tensor.empty() : tensor<4x24x20xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<4x24x20xf32>) -> tensor<4x24x20xf32>
  %bmm = linalg.batch_matmul ins(%a, %bt : tensor<4x24x40xf32>, tensor<4x40x20xf32>) outs(%z : tensor<4x24x20xf32>) -> tensor<4x24x20xf32>
  return %bmm : tensor<4x24x20xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c4 = arith.constant 4 : index
  %c20 = arith.constant 20 : index
  %c24 = arith.constant 24 : index
  %c40 = arith.constant 40 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %ad = call @gen3(%c4, %c24, %c40, %s1) : (index, index, index, i64) -> tensor<?x?x?xf32>
  %bmd = call @gen3(%c4, %c20, %c40, %s2) : (index, index, index, i64) -> tensor<?x?x?xf32>
  %a = tensor.cast %ad : tensor<?x?x?xf32> to tensor<4x24x40xf32>
  %bm = tensor.cast %bmd : tensor<?x?x?xf32> to tensor<4x20x40xf32>
  %y = call @forward(%a, %bm)
      : (tensor<4x24x40xf32>, tensor<4x20x40xf32>) -> tensor<4x24x20xf32>
  %u = tensor.cast %y : tensor<4x24x20xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
