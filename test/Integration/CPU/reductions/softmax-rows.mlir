// Softmax along the rows of x: [37, 1000] as torch-mlir writes it (a max
// reduction, sub + exp, a sum reduction, div). Both reductions are row
// reductions that xpu-cpu-tile-and-vectorize reduces in 16-wide chunks into
// partial vectors (the last chunk of 1000 = 62 * 16 + 8 is masked) merged by
// vector.multi_reduction; exp is the polynomial of xpu-cpu-approximate-math.
// Against float64 NumPy, each element within 1e-5 relative.
// DEFINE: %{check} = %refcheck --input x=37x1000@1 \
// DEFINE:     --expr "np.exp(x - x.max(1, keepdims=True)) / np.exp(x - x.max(1, keepdims=True)).sum(1, keepdims=True)" \
// DEFINE:     --tol 1e-5 --elementwise
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-run -e main -entry-point-result=void | %{check}
// RUN: cat %s %S/../Inputs/gen.mlir | xpu-opt --xpu-cpu-pipeline=threads=1 --mlir-print-ir-after=xpu-cpu-tile-and-vectorize -o /dev/null 2>&1 | FileCheck %s
// CHECK: vector.multi_reduction <maximumf>, {{.*}} : vector<1x16xf32> to vector<1xf32>
// CHECK: vector.multi_reduction <add>, {{.*}} : vector<1x16xf32> to vector<1xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @forward(%x: tensor<37x1000xf32>) -> tensor<37x1000xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<37xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<37xf32>) -> tensor<37xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<37x1000xf32>) outs(%m0 : tensor<37xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<37xf32>
  %e2 = tensor.empty() : tensor<37x1000xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m : tensor<37x1000xf32>, tensor<37xf32>) outs(%e2 : tensor<37x1000xf32>) {
  ^bb0(%in: f32, %mx: f32, %out: f32):
    %d = arith.subf %in, %mx : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<37x1000xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<37xf32>) -> tensor<37xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%ex : tensor<37x1000xf32>) outs(%s0 : tensor<37xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<37xf32>
  %y = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%ex, %s : tensor<37x1000xf32>, tensor<37xf32>) outs(%e2 : tensor<37x1000xf32>) {
  ^bb0(%in: f32, %sum: f32, %out: f32):
    %r = arith.divf %in, %sum : f32
    linalg.yield %r : f32
  } -> tensor<37x1000xf32>
  return %y : tensor<37x1000xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c37 = arith.constant 37 : index
  %c1000 = arith.constant 1000 : index
  %s1 = arith.constant 1 : i64
  %xd = call @gen2(%c37, %c1000, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<37x1000xf32>
  %y = call @forward(%x) : (tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %u = tensor.cast %y : tensor<37x1000xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
