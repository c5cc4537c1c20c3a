// RUN: xpu-opt %s --split-input-file --convert-xpu-to-xegpu --verify-diagnostics

func.func @no_config(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: the GEMM has no #xpu.config; run xpu-select-strategy first}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}

// -----

module attributes {xpu.target = #xpu.target<"sm_90">} {
func.func @not_intel(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: the target 'sm_90' is not an Intel Xe target (pvc, bmg)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, grf_mode = 0, schedule = data_parallel>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

func.func @stream_k(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: schedule stream_k is not lowered to XeGPU (only data_parallel)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, grf_mode = 128, schedule = stream_k>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}

// -----

func.func @block_not_dpas_multiple(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-error @+1 {{convert-xpu-to-xegpu: tile [8, 16, 16] on subgroups [2, 1]: each subgroup block must be a multiple of 8x16 and tile_k a multiple of 16 (DPAS)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [8, 16, 16], group_m = 8, subgroups = [2, 1], stages = 2, grf_mode = 128, schedule = data_parallel>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}

// -----

func.func @f64_operands(%a: tensor<64x64xf64>, %b: tensor<64x64xf64>) -> tensor<64x64xf64> {
  // expected-error @+1 {{convert-xpu-to-xegpu: f64 operands: DPAS takes f16 or bf16 (f32 is converted to bf16; run xpu-demote-f64 for f64)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f64) {config = #xpu.config<tile = [64, 64, 16], group_m = 8, subgroups = [2, 2], stages = 2, grf_mode = 128, schedule = data_parallel>} : (tensor<64x64xf64>, tensor<64x64xf64>) -> tensor<64x64xf64>
  return %g : tensor<64x64xf64>
}

// -----

func.func @captured_value(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>, %bias: tensor<64xf32>, %s: f32) -> tensor<64x64xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%bias per_col : tensor<64xf32>) {
  ^bb0(%acc: f32, %bb: f32):
    // expected-error @+1 {{convert-xpu-to-xegpu: the epilogue uses a value defined outside the GEMM that is not a scalar constant}}
    %t = arith.mulf %acc, %s : f32
    xpu.yield %t : f32
  } {config = #xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [2, 2], stages = 2, grf_mode = 128, schedule = data_parallel>} : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
