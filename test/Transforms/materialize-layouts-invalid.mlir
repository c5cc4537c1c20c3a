// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-materialize-layouts))' --verify-diagnostics

// f64 operands: DPAS cannot take them (xpu-demote-f64 first).
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_f64_operands(%x: tensor<16x32xf64>, %w: tensor<32x16xf64>) -> tensor<16x16xf64> {
  // expected-error @below {{xpu-materialize-layouts: f64 operands: DPAS takes f16 or bf16 (f32 is converted to bf16; run xpu-demote-f64 for f64)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f64) {config = #xpu.config<tile = [16, 16, 16], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<16x32xf64>, tensor<32x16xf64>) -> tensor<16x16xf64>
  return %y : tensor<16x16xf64>
}
}

// -----

// An Xe config on an NVIDIA target.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @xe_on_nvidia(%x: tensor<16x32xbf16>, %w: tensor<32x16xbf16>) -> tensor<16x16xf32> {
  // expected-error @below {{xpu-materialize-layouts: the target 'sm_90' is not an Intel Xe target (pvc, bmg)}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 16], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<16x32xbf16>, tensor<32x16xbf16>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
}

// -----

// An epilogue op that cannot run on vectors (a region).
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_region_in_epilogue(%x: tensor<16x32xbf16>, %w: tensor<32x16xbf16>, %c: i1) -> tensor<16x16xf32> {
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) epilogue() {
  ^bb0(%acc: f32):
    // expected-error @below {{xpu-materialize-layouts: epilogue op 'scf.if' is not an elementwise op that can run on vectors}}
    %r = scf.if %c -> f32 {
      scf.yield %acc : f32
    } else {
      scf.yield %acc : f32
    }
    xpu.yield %r : f32
  } {config = #xpu.config<tile = [16, 16, 16], group_m = 8, subgroups = [2, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<16x32xbf16>, tensor<32x16xbf16>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
}

// -----

// An epilogue that reads a non-constant value from outside the GEMM: the
// kernel has no argument for it.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @xe_captured_value(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %s: f32) -> tensor<64x64xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue() {
  ^bb0(%acc: f32):
    // expected-error @+1 {{xpu-materialize-layouts: the epilogue uses a value defined outside the GEMM that is not a scalar constant}}
    %t = arith.mulf %acc, %s : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// An #xpu.nvgpu config on an Intel target: the tensor-core kernels are
// NVIDIA's.
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @nvgpu_on_intel(%x: tensor<16x32xbf16>, %w: tensor<32x16xbf16>) -> tensor<16x16xf32> {
  // expected-error @below {{xpu-materialize-layouts: the target 'pvc' is not an NVIDIA target}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [16, 16, 32], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<16x32xbf16>, tensor<32x16xbf16>) -> tensor<16x16xf32>
  return %y : tensor<16x16xf32>
}
}

// -----

// f64 operands do not run on tensor cores.
module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @nvgpu_f64(%x: tensor<16x32xf64>, %w: tensor<32x16xf64>) -> tensor<16x16xf64> {
  // expected-error @below {{xpu-materialize-layouts: f64 operands: the tensor cores take bf16, f16 or f32 read as tf32}}
  %y = xpu.gemm %x, %w rhs_layout(kn) acc(f64) {config = #xpu.config<tile = [16, 16, 32], group_m = 8, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync>>} : (tensor<16x32xf64>, tensor<32x16xf64>) -> tensor<16x16xf64>
  return %y : tensor<16x16xf64>
}
}
