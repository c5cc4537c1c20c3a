// xpu-run on OpenCL (PoCL here): --function with .npy inputs, the timing
// mode's per-kernel launch counts and device times, weights packed once,
// constant weights in device-visible memory, and the differential check
// of the OpenCL code against the CPU.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %xpu_src_root/test/lib/npycheck.py make %t x=32x64@1 w=48x64@2 b=48@3
// RUN: xpu-run %s --target=opencl --function=forward --input=@%t/x.npy --input=@%t/w.npy --input=@%t/b.npy --output=@%t/y.npy
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/y.npy --inputs %t x w b --expr "np.tanh(x @ w.T + b)" --tol 1e-5

// Linear + BatchNorm + ReLU (BatchNorm folded into the weights at pack
// time, which reassociates: reassociate=true): calling @forward 7 times launches the pack kernels as often as
// calling it once, and the GEMM kernel once per call. xpu-run's entry points
// have the results computed in its buffers (xpu-write-results-in-place), so
// the kernels are outlined from @forward.pack.in_place and
// @forward.packed.in_place.
// RUN: xpu-run %xpu_src_root/examples/linear_bn_relu.mlir --target=opencl --function=forward --xpu-pipeline-options=reassociate=true --repeat=1 --time --output=@%t/bn1.npy > %t/once.txt
// RUN: xpu-run %xpu_src_root/examples/linear_bn_relu.mlir --target=opencl --function=forward --xpu-pipeline-options=reassociate=true --repeat=7 --time --output=@%t/bn7.npy > %t/seven.txt
// RUN: cat %t/once.txt %t/seven.txt | FileCheck %s --check-prefixes=ONCE,SEVEN
// ONCE: xpu-run: @forward on opencl: 1 call(s), wall time per call: min
// ONCE: xpu-run: @forward.pack (weights packed once, before the calls):
// ONCE: kernel launches device total per launch
// ONCE-DAG: {{^forward.pack.in_place_kernel}} [[PACKS:[0-9]+]] {{[0-9.]+}} ms
// ONCE-DAG: {{^forward.packed.in_place_kernel}} 1 {{[0-9.]+}} ms
// SEVEN: xpu-run: @forward on opencl: 7 call(s), wall time per call: min
// SEVEN: kernel launches device total per launch
// SEVEN-DAG: {{^forward.pack.in_place_kernel}} [[PACKS]] {{[0-9.]+}} ms
// SEVEN-DAG: {{^forward.packed.in_place_kernel}} 7 {{[0-9.]+}} ms
// RUN: cmp %t/bn1.npy %t/bn7.npy

// Constant weights (torch-mlir's freeze) on the device: @frozen's weight is
// a constant folded and transposed at compile time, read by the kernel
// through the runtime's device-visible copy.
// RUN: xpu-run %s --target=opencl --function=frozen --input=@%t/x.npy --output=@%t/yc.npy
// RUN: %python %xpu_src_root/test/lib/npycheck.py check %t/yc.npy --inputs %t x --expr "x @ np.full((48, 64), 0.25).T" --tol 1e-5

// OpenCL against the CPU: no pipeline in between, then xpu-optimize.
// RUN: xpu-run %s --target=opencl --compare-pipeline='builtin.module()' | FileCheck %s --check-prefix=CMP
// RUN: xpu-run %s --target=opencl --compare-pipeline=xpu-optimize | FileCheck %s --check-prefix=CMP
// CMP-COUNT-3: xpu-run compare: seed {{[1-3]}}, result 0: max relative error
// CMP: xpu-run compare: PASS

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<32x64xf32>, %w: tensor<48x64xf32> {xpu.weight}, %b: tensor<48xf32> {xpu.weight}) -> tensor<32x48xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<64x48xf32>
  %wt = linalg.transpose ins(%w : tensor<48x64xf32>) outs(%e0 : tensor<64x48xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<32x48xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %g = linalg.matmul ins(%x, %wt : tensor<32x64xf32>, tensor<64x48xf32>) outs(%z : tensor<32x48xf32>) -> tensor<32x48xf32>
  %r = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %b : tensor<32x48xf32>, tensor<48xf32>) outs(%e : tensor<32x48xf32>) {
  ^bb0(%in: f32, %bb: f32, %out: f32):
    %0 = arith.addf %in, %bb : f32
    %1 = math.tanh %0 : f32
    linalg.yield %1 : f32
  } -> tensor<32x48xf32>
  return %r : tensor<32x48xf32>
}

func.func @frozen(%x: tensor<32x64xf32>) -> tensor<32x48xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %w = arith.constant dense<0.25> : tensor<48x64xf32>
  %e0 = tensor.empty() : tensor<64x48xf32>
  %wt = linalg.transpose ins(%w : tensor<48x64xf32>) outs(%e0 : tensor<64x48xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<32x48xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<32x48xf32>) -> tensor<32x48xf32>
  %g = linalg.matmul ins(%x, %wt : tensor<32x64xf32>, tensor<64x48xf32>) outs(%z : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %g : tensor<32x48xf32>
}
