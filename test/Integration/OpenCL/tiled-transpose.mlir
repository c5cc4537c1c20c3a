// Transposes that xpu-linalg-to-gpu-loops stages through shared memory in
// 32x32 tiles (a batch of matrices with edges that are not multiples of 32,
// and one matrix), run on OpenCL (PoCL here) and compared element for
// element with NumPy's transpose of the same inputs (a copy: exact).
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %xpu_src_root/test/lib/npycheck.py make %t x=3x45x70@1 y=33x64@2
// RUN: xpu-run %s --target=opencl --function=batched --input=@%t/x.npy --output=@%t/xt.npy --xpu-remarks 2>&1 | FileCheck %s
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/xt.npy --inputs %t x --expr "np.swapaxes(x, 1, 2)" --tol 0
// RUN: xpu-run %s --target=opencl --function=matrix --input=@%t/y.npy --output=@%t/yt.npy
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/yt.npy --inputs %t y --expr "y.T" --tol 0
// CHECK: linalg.transpose over 3x70x45: transposed through shared local memory in 32x32 tiles

func.func @batched(%x: tensor<3x45x70xf32>) -> tensor<3x70x45xf32> {
  %e = tensor.empty() : tensor<3x70x45xf32>
  %t = linalg.transpose ins(%x : tensor<3x45x70xf32>) outs(%e : tensor<3x70x45xf32>) permutation = [0, 2, 1]
  return %t : tensor<3x70x45xf32>
}

func.func @matrix(%y: tensor<33x64xf32>) -> tensor<64x33xf32> {
  %e = tensor.empty() : tensor<64x33xf32>
  %t = linalg.transpose ins(%y : tensor<33x64xf32>) outs(%e : tensor<64x33xf32>) permutation = [1, 0]
  return %t : tensor<64x33xf32>
}
