// torch.addmm(c, a, b) = c + a @ b with a: [24, 56], b: [56, 40] and a
// full c: [24, 40], as one linalg.matmul accumulating into c (a non-zero
// init rather than a zero linalg.fill).
// The model as torch-mlir emits it, compiled without and with xpu-optimize
// (xpu-cpu-pipeline's default), both against the same float64 NumPy
// reference.
// DEFINE: %{check} = %refcheck --input a=24x56@1 --input bm=56x40@2 --input c=24x40@3 \
// DEFINE:     --expr "c + a @ bm" \
// DEFINE:     --tol 1e-5
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void --xpu-pipeline-options=optimize=false | %{check}
// RUN: cat %s %S/Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}

func.func @forward(%a: tensor<24x56xf32>, %bm: tensor<56x40xf32> {xpu.weight}, %c: tensor<24x40xf32>) -> tensor<24x40xf32> {
  %mm = linalg.matmul ins(%a, %bm : tensor<24x56xf32>, tensor<56x40xf32>) outs(%c : tensor<24x40xf32>) -> tensor<24x40xf32>
  return %mm : tensor<24x40xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c24 = arith.constant 24 : index
  %c40 = arith.constant 40 : index
  %c56 = arith.constant 56 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %ad = call @gen2(%c24, %c56, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %bmd = call @gen2(%c56, %c40, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %cd = call @gen2(%c24, %c40, %s3) : (index, index, i64) -> tensor<?x?xf32>
  %a = tensor.cast %ad : tensor<?x?xf32> to tensor<24x56xf32>
  %bm = tensor.cast %bmd : tensor<?x?xf32> to tensor<56x40xf32>
  %c = tensor.cast %cd : tensor<?x?xf32> to tensor<24x40xf32>
  %y = call @forward(%a, %bm, %c)
      : (tensor<24x56xf32>, tensor<56x40xf32>, tensor<24x40xf32>) -> tensor<24x40xf32>
  %u = tensor.cast %y : tensor<24x40xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
