// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-schedule-gemm),convert-xpu-to-nvgpu)' --verify-diagnostics

// Not an NVIDIA target.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @intel(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-nvgpu: the target 'pvc' is not an NVIDIA target}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// Warp blocks of 8 columns: ldmatrix.x4 loads B in pairs of n8 tiles.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @narrow_warps(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-nvgpu: cannot generate a kernel for #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 8], stages = 2, schedule = data_parallel>: each warp's 64x8 block must be a multiple of 16x16 (mma.sync m16 rows, ldmatrix.x4 pairs of n8 columns)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 8], stages = 2, schedule = data_parallel>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// An accumulator in bf16: tensor cores accumulate in f32.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @bf16_acc(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  // expected-error @+1 {{convert-xpu-to-nvgpu: accumulator bf16: tensor cores accumulate in f32}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(bf16) {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %g : tensor<64x64xbf16>
}
}

// -----

// An epilogue reading a value computed outside the GEMM (not a constant):
// the kernel has no such value.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @captured(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %s: f32) -> tensor<64x64xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    // expected-error @+1 {{convert-xpu-to-nvgpu: the epilogue uses a value defined outside the GEMM that is not a scalar constant}}
    %t = arith.mulf %acc, %s : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [64, 64, 32], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}
