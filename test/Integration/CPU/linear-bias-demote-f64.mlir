// nn.Linear + bias + tanh written in f64 (a model with .double() weights),
// demoted to f32 by xpu-demote-f64, run through xpu-cpu-pipeline and
// compared with a float64 NumPy reference. The inputs (multiples of 1/8) are
// exact in f32, so only f32 accumulation and tanh error remain: 1e-5.
// RUN: cat %s %S/Inputs/gen.mlir \
// RUN:   | xpu-opt --pass-pipeline='builtin.module(func.func(xpu-raise,xpu-fuse-epilogue,xpu-demote-f64))' \
// RUN:   | FileCheck %s --check-prefix=IR
// RUN: cat %s %S/Inputs/gen.mlir \
// RUN:   | xpu-opt --pass-pipeline='builtin.module(func.func(xpu-raise,xpu-fuse-epilogue,xpu-demote-f64))' \
// RUN:   | xpu-run -e main -entry-point-result=void \
// RUN:   | %refcheck --input x=16x64@1 --input w=32x64@2 --input b=32@3 \
// RUN:       --expr "np.tanh(x @ w.T + b)" --tol 1e-5

// The GEMM really runs in f32 (the signature of @forward stays f64).
// IR-LABEL: func.func @forward
//  IR-SAME:   -> tensor<16x32xf64>
//       IR:   xpu.gemm {{.*}} acc(f32) epilogue({{.*}} : tensor<32xf32>)
//       IR:   } : (tensor<16x64xf32>, tensor<32x64xf32>) -> tensor<16x32xf32>
//       IR:   arith.extf %{{.+}} : f32 to f64

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
#map2 = affine_map<(d0) -> (d0)>
func.func @forward(%x: tensor<16x64xf64>, %w: tensor<32x64xf64> {xpu.weight}, %b: tensor<32xf64> {xpu.weight}) -> tensor<16x32xf64> {
  %cst = arith.constant 0.000000e+00 : f64
  %e0 = tensor.empty() : tensor<64x32xf64>
  %wt = linalg.transpose ins(%w : tensor<32x64xf64>) outs(%e0 : tensor<64x32xf64>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<16x32xf64>
  %z = linalg.fill ins(%cst : f64) outs(%e1 : tensor<16x32xf64>) -> tensor<16x32xf64>
  %mm = linalg.matmul ins(%x, %wt : tensor<16x64xf64>, tensor<64x32xf64>) outs(%z : tensor<16x32xf64>) -> tensor<16x32xf64>
  %r = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<16x32xf64>, tensor<32xf64>) outs(%e1 : tensor<16x32xf64>) {
  ^bb0(%in: f64, %in_0: f64, %out: f64):
    %0 = arith.addf %in, %in_0 : f64
    %1 = math.tanh %0 : f64
    linalg.yield %1 : f64
  } -> tensor<16x32xf64>
  return %r : tensor<16x32xf64>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func private @ext2(%t: tensor<?x?xf32>) -> tensor<?x?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %t, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %t, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%d0, %d1) : tensor<?x?xf64>
  %r = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<?x?xf32>) outs(%e : tensor<?x?xf64>) {
  ^bb0(%in: f32, %out: f64):
    %v = arith.extf %in : f32 to f64
    linalg.yield %v : f64
  } -> tensor<?x?xf64>
  return %r : tensor<?x?xf64>
}

func.func @main() {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %s3 = arith.constant 3 : i64
  %xd = call @gen2(%c16, %c64, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c32, %c64, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %bd = call @gen1(%c32, %s3) : (index, i64) -> tensor<?xf32>
  %x64 = call @ext2(%xd) : (tensor<?x?xf32>) -> tensor<?x?xf64>
  %w64 = call @ext2(%wd) : (tensor<?x?xf32>) -> tensor<?x?xf64>
  %b32 = tensor.cast %bd : tensor<?xf32> to tensor<32xf32>
  %be = tensor.empty() : tensor<32xf64>
  %b64 = linalg.generic {indexing_maps = [#map2, #map2], iterator_types = ["parallel"]}
      ins(%b32 : tensor<32xf32>) outs(%be : tensor<32xf64>) {
  ^bb0(%in: f32, %out: f64):
    %v = arith.extf %in : f32 to f64
    linalg.yield %v : f64
  } -> tensor<32xf64>
  %x = tensor.cast %x64 : tensor<?x?xf64> to tensor<16x64xf64>
  %w = tensor.cast %w64 : tensor<?x?xf64> to tensor<32x64xf64>
  %y = call @forward(%x, %w, %b64) : (tensor<16x64xf64>, tensor<32x64xf64>, tensor<32xf64>) -> tensor<16x32xf64>
  %ye = tensor.empty() : tensor<16x32xf32>
  %y32 = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%y : tensor<16x32xf64>) outs(%ye : tensor<16x32xf32>) {
  ^bb0(%in: f64, %out: f32):
    %v = arith.truncf %in : f64 to f32
    linalg.yield %v : f32
  } -> tensor<16x32xf32>
  %u = tensor.cast %y32 : tensor<16x32xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
