// xpu-nvvm-pipeline's fast-math option (xpu-nvvm-fast-math): an f32 Linear
// with a softplus + tanh epilogue (mish's functions). With precision=bf16
// (auto) the epilogue runs on ex2/lg2/tanh.approx; with fast-math=off, or
// with precision=f32 or tf32 (auto), on libdevice's correctly rounded
// functions, which have no tanh.approx. The accuracy of each approximation
// against float64 is checked on a GPU (test/Integration/CUDA/fast-math.test).
// RUN: xpu-opt %s --xpu-nvvm-pipeline="chip=sm_90a precision=bf16 binary-format=isa" --xpu-remarks 2>&1 | FileCheck %s --check-prefix=FAST
// RUN: xpu-opt %s --xpu-nvvm-pipeline="chip=sm_90a precision=f32 fast-math=on binary-format=isa" | FileCheck %s --check-prefix=ON
// RUN: xpu-opt %s --xpu-nvvm-pipeline="chip=sm_90a precision=bf16 fast-math=off binary-format=isa" | FileCheck %s --check-prefix=PRECISE --implicit-check-not=tanh.approx --implicit-check-not=lg2.approx
// RUN: xpu-opt %s --xpu-nvvm-pipeline="chip=sm_90a precision=tf32 binary-format=isa" | FileCheck %s --check-prefix=PRECISE --implicit-check-not=tanh.approx --implicit-check-not=lg2.approx
// RUN: xpu-opt %s --xpu-nvvm-pipeline="chip=sm_90a binary-format=isa" | FileCheck %s --check-prefix=PRECISE --implicit-check-not=tanh.approx --implicit-check-not=lg2.approx
// RUN: not xpu-opt %s --xpu-nvvm-pipeline="fast-math=fast" 2>&1 | FileCheck %s --check-prefix=INVALID

// The staged epilogue computes the chain in 4 places of the kernel.
// FAST: nvvm-fast-math.mlir:[[# @LINE + 17]]:9: remark: [Passed] FastMath | Category:xpu-nvvm-fast-math | Reason="forward_mma0: 12 f32 op(s) on approximate instructions (exp x4, log1p x4, tanh x4); accuracy budget 2^-10 |f(x)| + 2^-20"
// FAST: gpu.binary @forward_mma0
// FAST-SAME: ex2.approx.f32
// FAST-SAME: lg2.approx.f32
// FAST-SAME: tanh.approx.f32
// The SIMT kernel of the f32 GEMM:
// ON: gpu.binary @forward_kernel
// ON-SAME: tanh.approx.f32
// PRECISE: llvm.func @forward(
// PRECISE: gpu.binary @forward_{{kernel|mma0}}
// INVALID: invalid value 'fast' for option 'fast-math' (expected auto, on or off)

#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forward(%x: tensor<128x256xf32>, %w: tensor<256x64xf32>) -> tensor<128x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x64xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<128x64xf32>) -> tensor<128x64xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<128x256xf32>, tensor<256x64xf32>) outs(%acc : tensor<128x64xf32>) -> tensor<128x64xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<128x64xf32>) outs(%e : tensor<128x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %ex = math.exp %v : f32
    %sp = math.log1p %ex : f32
    %t = math.tanh %sp : f32
    %r = arith.mulf %v, %t : f32
    linalg.yield %r : f32
  } -> tensor<128x64xf32>
  return %y : tensor<128x64xf32>
}
