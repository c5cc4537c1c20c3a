// RUN: xpu-opt %s --split-input-file --verify-diagnostics
// Canonicalization never sees these ops: an unused xpu.gemm (Pure) whose
// epilogue stores to memory is rejected, not erased with its store.
// RUN: xpu-opt %s --split-input-file --canonicalize --verify-diagnostics

func.func @lhs_rank(%a: tensor<2x3x4x5xf32>, %b: tensor<2x3x5x4xf32>) {
  // expected-error @+1 {{lhs must be a rank-2 [m, k] or rank-3 [b, m, k] tensor, got rank 4}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<2x3x4x5xf32>, tensor<2x3x5x4xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @rhs_rank(%a: tensor<4x8xf32>, %b: tensor<2x8x4xf32>) {
  // expected-error @+1 {{rhs rank (3) must match lhs rank (2)}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x8xf32>, tensor<2x8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @result_rank(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{result rank (3) must match lhs rank (2)}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<1x4x4xf32>
  return
}

// -----

func.func @dynamic_k(%a: tensor<4x?xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{dynamic shapes are supported in the batch and m dimensions only: lhs dimension 1 of 'tensor<4x?xf32>' is dynamic}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x?xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @dynamic_n(%a: tensor<?x8xf32>, %b: tensor<?x8xf32>) {
  // expected-error @+1 {{dynamic shapes are supported in the batch and m dimensions only: rhs dimension 0 of 'tensor<?x8xf32>' is dynamic}}
  %0 = xpu.gemm %a, %b rhs_layout(nk) acc(f32) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

// A dynamic m is dynamic in the result too: a static one would be a size
// the lhs does not promise.
func.func @dynamic_m_static_result(%a: tensor<?x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{result shape 'tensor<4x4xf32>' does not match [m, n] = [?, 4]}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @dynamic_batch_static_result(%a: tensor<?x4x8xf32>, %b: tensor<?x8x4xf32>) {
  // expected-error @+1 {{batch sizes differ: lhs ?, rhs ?, result 2}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<?x4x8xf32>, tensor<?x8x4xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

func.func @static_per_row_of_dynamic_m(%a: tensor<?x8xf32>, %b: tensor<8x6xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{epilogue operand #0 is per_row and must have shape [?], got 'tensor<4xf32>'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%s per_row : tensor<4xf32>) {
  ^bb0(%acc: f32, %v: f32):
    %r = arith.mulf %acc, %v : f32
    xpu.yield %r : f32
  } : (tensor<?x8xf32>, tensor<8x6xf32>) -> tensor<?x6xf32>
  return
}

// -----

func.func @integer_operands(%a: tensor<4x8xi8>, %b: tensor<8x4xi8>) {
  // expected-error @+1 {{lhs and rhs must have float elements, got 'i8' and 'i8'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x8xi8>, tensor<8x4xi8>) -> tensor<4x4xf32>
  return
}

// -----

func.func @mismatched_element_types(%a: tensor<4x8xf16>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{lhs and rhs element types differ: 'f16' vs 'f32'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x8xf16>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @integer_accumulator(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{accumulator type must be a float type, got 'i32'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(i32) epilogue {
  ^bb0(%acc: i32):
    %f = arith.sitofp %acc : i32 to f32
    xpu.yield %f : f32
  } : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @narrow_accumulator(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{accumulator type 'f16' cannot hold every value of the operand type 'f32' (it must be the same type or a wider float)}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f16) epilogue {
  ^bb0(%acc: f16):
    %f = arith.extf %acc : f16 to f32
    xpu.yield %f : f32
  } : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @integer_result(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{result must have float elements, got 'i32'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    %i = arith.fptosi %acc : f32 to i32
    xpu.yield %i : i32
  } : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xi32>
  return
}

// -----

func.func @batch_mismatch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+1 {{batch sizes differ: lhs 2, rhs 3, result 2}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<2x4x8xf32>, tensor<3x8x4xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

// With rhs_layout(nk) the rhs is [n, k]: here k would be 4, not 8.
func.func @k_mismatch_nk(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+1 {{contraction sizes differ: lhs has k = 8, rhs (nk) has k = 4}}
  %0 = xpu.gemm %a, %b rhs_layout(nk) acc(f32) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @result_shape(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{result shape 'tensor<4x4xf32>' does not match [m, n] = [4, 6]}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @per_col_shape(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %bias: tensor<4xf32>) {
  // expected-error @+1 {{epilogue operand #0 is per_col and must have shape [6], got 'tensor<4xf32>'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%bias per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %v: f32):
    %r = arith.addf %acc, %v : f32
    xpu.yield %r : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @per_row_shape(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %s: tensor<6xf32>) {
  // expected-error @+1 {{epilogue operand #0 is per_row and must have shape [4], got 'tensor<6xf32>'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%s per_row : tensor<6xf32>) {
  ^bb0(%acc: f32, %v: f32):
    %r = arith.mulf %acc, %v : f32
    xpu.yield %r : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @scalar_shape(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %s: tensor<1xf32>) {
  // expected-error @+1 {{epilogue operand #0 is scalar and must have shape [], got 'tensor<1xf32>'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%s scalar : tensor<1xf32>) {
  ^bb0(%acc: f32, %v: f32):
    %r = arith.mulf %acc, %v : f32
    xpu.yield %r : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @full_shape(%a: tensor<2x4x8xf32>, %b: tensor<2x8x6xf32>, %r: tensor<4x6xf32>) {
  // expected-error @+1 {{epilogue operand #0 is full and must have shape [2, 4, 6], got 'tensor<4x6xf32>'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%r full : tensor<4x6xf32>) {
  ^bb0(%acc: f32, %v: f32):
    %s = arith.addf %acc, %v : f32
    xpu.yield %s : f32
  } : (tensor<2x4x8xf32>, tensor<2x8x6xf32>) -> tensor<2x4x6xf32>
  return
}

// -----

func.func @dynamic_epilogue_operand(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %bias: tensor<?xf32>) {
  // expected-error @+1 {{epilogue operand #0 is per_col and must have shape [6], got 'tensor<?xf32>'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%bias per_col : tensor<?xf32>) {
  ^bb0(%acc: f32, %v: f32):
    %r = arith.addf %acc, %v : f32
    xpu.yield %r : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @complex_epilogue_operand(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<6xcomplex<f32>>) {
  // expected-error @+1 {{epilogue operand #0 must have integer or float elements}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%c per_col : tensor<6xcomplex<f32>>) {
  ^bb0(%acc: f32, %v: complex<f32>):
    xpu.yield %acc : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @block_arg_count(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %bias: tensor<6xf32>) {
  // expected-error @+1 {{epilogue block must have 2 arguments (the accumulator, then one per epilogue operand), got 1}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%bias per_col : tensor<6xf32>) {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @acc_arg_type(%a: tensor<4x8xf16>, %b: tensor<8x6xf16>) {
  // expected-error @+1 {{epilogue block argument #0 must have the accumulator type 'f32', got 'f16'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f16):
    xpu.yield %acc : f16
  } : (tensor<4x8xf16>, tensor<8x6xf16>) -> tensor<4x6xf16>
  return
}

// -----

func.func @epilogue_arg_type(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %bias: tensor<6xf16>) {
  // expected-error @+1 {{epilogue block argument #1 must have the element type of epilogue operand #0 ('f16'), got 'f32'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%bias per_col : tensor<6xf16>) {
  ^bb0(%acc: f32, %v: f32):
    %r = arith.addf %acc, %v : f32
    xpu.yield %r : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @yield_type(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    // expected-error @+1 {{yields 'f32' but the result element type is 'f16'}}
    xpu.yield %acc : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf16>
  return
}

// -----

// Without an epilogue the accumulator is stored as is, so its type must be
// the result's element type.
func.func @identity_needs_acc_type(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{yields 'f32' but the result element type is 'f16'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf16>
  return
}

// -----

func.func @no_yield(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{epilogue must end with xpu.yield}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    llvm.unreachable
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @yield_outside_gemm(%x: f32) {
  // expected-error @+1 {{'xpu.yield' op expects parent op to be one of 'xpu.gemm, xpu.gemm_tile, xpu.gemm_fixup'}}
  xpu.yield %x : f32
}

// -----

func.func @bad_layout(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{expected rhs layout 'kn' or 'nk', got 'mk'}}
  %0 = xpu.gemm %a, %b rhs_layout(mk) acc(f32) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @bad_kind(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %bias: tensor<6xf32>) {
  // expected-error @+1 {{expected broadcast kind 'scalar', 'per_row', 'per_col' or 'full', got 'per_channel'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%bias per_channel : tensor<6xf32>) {
  ^bb0(%acc: f32, %v: f32):
    xpu.yield %acc : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @three_types(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{expected the types of lhs and rhs, got 3 types}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x8xf32>, tensor<8x6xf32>, f32) -> tensor<4x6xf32>
  return
}

// -----

// The generic form can state a broadcast array that disagrees with the
// operands.
func.func @broadcast_count(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{has 0 epilogue operands but 1 broadcast kinds}}
  %0 = "xpu.gemm"(%a, %b) <{acc_type = f32, broadcasts = [#xpu<broadcast per_col>], rhs_layout = #xpu<rhs_layout kn>}> ({
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }) : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

// #xpu.config

func.func @config_tile_rank(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config tile must have 3 sizes [m, n, k], got 2}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @config_tile_positive(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config tile sizes must be between 1 and 65536}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 0, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @config_group_m(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config group_m must be between 1 and 65536, got 0}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 0, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @config_subgroups_rank(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config subgroups must be [rows, cols], got 3 sizes}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1, 1], stages = 1, schedule = data_parallel>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @config_subgroups_positive(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config subgroup counts must be positive}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [0, 1], stages = 1, schedule = data_parallel>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @config_subgroups_divide(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config subgroups [3, 1] do not divide the tile [128, 64]}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [128, 64, 32], group_m = 8, subgroups = [3, 1], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @config_stages(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config stages must be between 1 and 64, got 0}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 0, schedule = data_parallel>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @xe_grf_mode(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{xe grf_mode must be 128 or 256, got 192}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel, backend = #xpu.xe<grf_mode = 192>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @nvgpu_unknown_mma(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{unknown nvgpu mma 'hmma' (expected one of: mma_sync, wgmma)}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = hmma>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @nvgpu_unknown_precision(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{unknown nvgpu precision 'fp8' (expected one of: native, tf32)}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, precision = fp8>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @nvgpu_unknown_field(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{unknown nvgpu field 'cluster_n' (expected 'precision', 'cluster_m' or 'consumers')}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, cluster_n = 2>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @nvgpu_field_twice(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{field 'cluster_m' given twice}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, cluster_m = 2, cluster_m = 2>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @nvgpu_cluster_size(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{nvgpu cluster_m must be 1 or 2, got 4}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = wgmma, cluster_m = 4>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @nvgpu_cluster_mma_sync(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{nvgpu cluster_m = 2 needs mma = wgmma (the clustered kernel multicasts TMA loads)}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel, backend = #xpu.nvgpu<mma = mma_sync, cluster_m = 2>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @nvgpu_pingpong_mma_sync(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{nvgpu consumers = pingpong needs mma = wgmma (mma.sync kernels have no consumer warpgroups)}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = persistent, backend = #xpu.nvgpu<mma = mma_sync, consumers = pingpong>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @nvgpu_pingpong_cluster(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{nvgpu consumers = pingpong runs persistent programs, and cluster_m = 2 data-parallel ones}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = persistent, backend = #xpu.nvgpu<mma = wgmma, consumers = pingpong, cluster_m = 2>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @nvgpu_unknown_consumers(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{unknown nvgpu consumers 'pingpongpong' (expected one of: cooperative, pingpong)}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [64, 64, 64], group_m = 1, subgroups = [1, 1], stages = 2, schedule = persistent, backend = #xpu.nvgpu<mma = wgmma, consumers = pingpongpong>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @config_backend_kind(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config backend must be #xpu.xe<...>, #xpu.nvgpu<...>, #xpu.simt<...> or another GEMM backend attribute, got "tpu"}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel, backend = "tpu">} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

// #xpu.simt with its default layout names the SIMT backend of a config
// without a backend; it is not written in one.
func.func @config_backend_simt(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config backend #xpu.simt is written by leaving the backend out (only #xpu.simt<vector = 2 or 4> is written)}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel, backend = #xpu.simt>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

// Written with its default value, the layout is the same.
func.func @config_backend_simt_vector_1(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config backend #xpu.simt is written by leaving the backend out}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel, backend = #xpu.simt<vector = 1>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @config_backend_simt_vector_3(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+2 {{simt vector must be 1, 2 or 4, got 3}}
  // expected-error @+1 {{failed to parse XPU_ConfigAttr parameter 'backend'}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel, backend = #xpu.simt<vector = 3>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

// #xpu.target

// expected-error @+1 {{'unknown-chip' is not a preset (pvc, bmg, sm_80, sm_90, sm_90a, cpu, x86-64-v3, x86-64-v4, sapphirerapids, cooperlake, znver4): field 'vendor' is required}}
module attributes {xpu.target = #xpu.target<"unknown-chip">} {}

// -----

// expected-error @+1 {{unknown #xpu.target field 'grf'}}
module attributes {xpu.target = #xpu.target<"pvc", grf = 256>} {}

// -----

// expected-error @+1 {{field 'grf_count' given twice}}
module attributes {xpu.target = #xpu.target<"pvc", grf_count = 256, grf_count = 128>} {}

// -----

// expected-error @+1 {{target vendor must be 'intel', 'nvidia' or 'cpu', got 'amd'}}
module attributes {xpu.target = #xpu.target<"pvc", vendor = "amd">} {}

// -----

// expected-error @+1 {{subgroup sizes must be powers of two up to 1024, got 12}}
module attributes {xpu.target = #xpu.target<"pvc", subgroup_sizes = [12]>} {}

// -----

// expected-error @+1 {{target needs at least one subgroup size}}
module attributes {xpu.target = #xpu.target<"pvc", subgroup_sizes = []>} {}

// -----

// expected-error @+1 {{grf_count and grf_bytes must be positive}}
module attributes {xpu.target = #xpu.target<"pvc", grf_count = 0>} {}

// -----

// expected-error @+1 {{slm_bytes must be between 0 and 2^32, got -1}}
module attributes {xpu.target = #xpu.target<"pvc", slm_bytes = -1>} {}

// -----

// expected-error @+1 {{compute_units must be between 1 and 1048576, got 0}}
module attributes {xpu.target = #xpu.target<"pvc", compute_units = 0>} {}

// -----

// expected-error @+1 {{mma must have 3 sizes [m, n, k], got 2}}
module attributes {xpu.target = #xpu.target<"pvc", mma = [8, 16]>} {}

// -----

// expected-error @+1 {{mma sizes must be all positive, or all zero for a target without a matrix engine}}
module attributes {xpu.target = #xpu.target<"pvc", mma = [8, 0, 16]>} {}

// -----

// expected-error @+1 {{threads_per_unit, blocks_per_unit and max_workgroup_size must be between 1 and 1048576, got 0, 64 and 1024}}
module attributes {xpu.target = #xpu.target<"pvc", threads_per_unit = 0>} {}

// -----

// expected-error @+1 {{large_grf_threads_per_unit must be between 0 and threads_per_unit (64), got 128}}
module attributes {xpu.target = #xpu.target<"pvc", large_grf_threads_per_unit = 128>} {}

// -----

// expected-error @+1 {{registers_per_unit must be between 1 and 2^32, got 0}}
module attributes {xpu.target = #xpu.target<"sm_90", registers_per_unit = 0>} {}

// -----

// expected-error @+1 {{max_block_slm_bytes must be between 0 and slm_bytes (233472), got 233473}}
module attributes {xpu.target = #xpu.target<"sm_90", max_block_slm_bytes = 233473>} {}

// -----

// expected-error @+1 {{wgmma and dpas need a matrix instruction shape (mma is [0, 0, 0])}}
module attributes {xpu.target = #xpu.target<"cpu", dpas = true>} {}

// -----

// expected-error @+1 {{block_2d must be [] or 5 sizes [min_pitch, pitch_align, min_width, width_align, base_align] between 1 and 65536}}
module attributes {xpu.target = #xpu.target<"pvc", block_2d = [64, 16]>} {}

// -----

// expected-error @+1 {{expected true or false}}
module attributes {xpu.target = #xpu.target<"sm_90", wgmma = 1>} {}

// -----

// expected-error @+1 {{vector_bits must be a positive multiple of 8}}
module attributes {xpu.target = #xpu.target<"pvc", vector_bits = 12>} {}

// -----

// expected-error @+1 {{peak rates must be positive}}
module attributes {xpu.target = #xpu.target<"pvc", mem_gbps = 0>} {}

// -----

// expected-error @+1 {{target chip name must not be empty}}
module attributes {xpu.target = #xpu.target<"", vendor = "cpu", subgroup_sizes = [1], grf_count = 16, grf_bytes = 32, slm_bytes = 0, compute_units = 1, mma = [0, 0, 0], vector_bits = 256, peak_f32_gflops = 1, peak_bf16_gflops = 1, mem_gbps = 1>} {}

// -----

// Dialect attributes.

// expected-error @+1 {{'xpu.target' must be an #xpu.target attribute, got "pvc"}}
module attributes {xpu.target = "pvc"} {}

// -----

// expected-error @+1 {{'xpu.weight' marks function arguments; it is not an operation attribute}}
module attributes {xpu.weight} {}

// -----

// expected-error @+1 {{unknown xpu attribute 'xpu.tile'}}
module attributes {xpu.tile = 4} {}

// -----

// expected-error @+1 {{'xpu.cpu_tiles' must be a dictionary of register_tile and cache_tile, got [14, 32]}}
module attributes {xpu.cpu_tiles = [14, 32]} {}

// -----

// expected-error @+1 {{'xpu.cpu_tiles' has an unknown entry 'threads' (expected register_tile or cache_tile)}}
module attributes {xpu.cpu_tiles = {threads = 1}} {}

// -----

// expected-error @+1 {{'xpu.cpu_tiles' entry 'register_tile' must be 2 sizes in [1, 2^30] (array<i64>), got array<i64: 14, 32, 1>}}
module attributes {xpu.cpu_tiles = {register_tile = array<i64: 14, 32, 1>}} {}

// -----

// expected-error @+1 {{'xpu.cpu_tiles' entry 'cache_tile' must be 3 sizes in [1, 2^30] (array<i64>), got array<i64: 264, 0, 640>}}
module attributes {xpu.cpu_tiles = {cache_tile = array<i64: 264, 0, 640>}} {}

// -----

// expected-error @+1 {{'xpu.weight' is a unit attribute, got 1 : i64}}
func.func @weight_not_unit(%w: tensor<4x4xf32> {xpu.weight = 1}) {
  return
}

// -----

// expected-error @+1 {{'xpu.weight' marks a tensor (or memref) argument, argument #0 is neither}}
func.func @weight_not_tensor(%w: f32 {xpu.weight}) {
  return
}

// -----

// expected-error @+1 {{'xpu.result_buffer' marks a memref of identity layout, argument #1 is 'tensor<4xf32>'}}
func.func @result_buffer_tensor(%x: memref<4xf32>, %out: tensor<4xf32> {xpu.result_buffer}) {
  return
}

// -----

// A dynamic buffer is fine (its size is the caller's); a strided one is not.
// expected-error @+1 {{'xpu.result_buffer' marks a memref of identity layout, argument #0 is 'memref<4xf32, strided<[2]>>'}}
func.func @result_buffer_strided(%out: memref<4xf32, strided<[2]>> {xpu.result_buffer}) {
  return
}

// -----

// expected-error @+1 {{'xpu.result_buffer' is a unit attribute, got true}}
func.func @result_buffer_not_unit(%out: memref<4xf32> {xpu.result_buffer = true}) {
  return
}

// -----

// Found by the libFuzzer harness: a function whose signature has an
// argument that its body does not (the attribute verifier read the missing
// block argument and crashed); the type comes from the signature.
// expected-error @+1 {{'xpu.weight' marks a tensor (or memref) argument, argument #0 is neither}}
func.func @weight_signature_only( f32 {xpu.weight}) {
  return
}

// -----

// expected-error @+1 {{unknown xpu argument attribute 'xpu.bias'}}
func.func @unknown_arg_attr(%w: tensor<4xf32> {xpu.bias}) {
  return
}

// -----

func.func @keep_f64_not_unit(%a: tensor<4x4xf64>, %b: tensor<4x4xf64>) -> tensor<4x4xf64> {
  // expected-error @+1 {{'xpu.keep_f64' is a unit attribute, got true}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f64) {xpu.keep_f64 = true} : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
  return %0 : tensor<4x4xf64>
}

// -----

// expected-error @+1 {{'xpu.keep_f64' marks an xpu.gemm, not 'func.func'}}
func.func @keep_f64_not_on_gemm() attributes {xpu.keep_f64} {
  return
}

// -----

func.func @reduction_consumer_not_unit(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'xpu.reduction_consumer' is a unit attribute, got 1 : i64}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {xpu.reduction_consumer = 1} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{'xpu.reduction_consumer' marks an xpu.gemm, not 'builtin.module'}}
module attributes {xpu.reduction_consumer} {}

// -----

func.func @schedule_unknown(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{unknown schedule 'round_robin' (data_parallel, persistent, stream_k)}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = round_robin>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

// Issue 10 (fuzzer): bf16 products do not accumulate exactly in f16 (f16 and
// bf16 are both 16 bits, neither holds the other); accepted, the lowering
// to linalg built an arith.addf of f16 and bf16.
func.func @acc_f16_with_bf16_operands(%a: tensor<8x8xbf16>, %b: tensor<8x8xbf16>) {
  // expected-error @+1 {{accumulator type 'f16' cannot hold every value of the operand type 'bf16' (it must be the same type or a wider float)}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f16) : (tensor<8x8xbf16>, tensor<8x8xbf16>) -> tensor<8x8xf16>
  return
}

// -----

func.func @schedule_negative_programs(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{schedule programs must not be negative, got -4}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = persistent<programs = -4>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

// Issue 10 (fuzzer): zero-size dimensions crashed upstream tiling on the CPU
// and the Xe kernel builder (a batched GEMM with b = 0).
func.func @zero_m(%a: tensor<0x8xf32>, %b: tensor<8x16xf32>) {
  // expected-error @+1 {{lhs dimension 0 of 'tensor<0x8xf32>' is 0: xpu.gemm takes no zero-size dimensions}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<0x8xf32>, tensor<8x16xf32>) -> tensor<0x16xf32>
  return
}

// -----

func.func @schedule_programs_overflow(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{schedule programs must be below 2^31, got 4294967296}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = stream_k<programs = 4294967296>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @zero_k(%a: tensor<4x0xf32>, %b: tensor<0x16xf32>) {
  // expected-error @+1 {{lhs dimension 1 of 'tensor<4x0xf32>' is 0: xpu.gemm takes no zero-size dimensions}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<4x0xf32>, tensor<0x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @schedule_data_parallel_programs(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{a data_parallel schedule has one program per tile (no program count)}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel<programs = 8>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @zero_batch(%a: tensor<0x64x64xf16>, %b: tensor<0x64x64xf16>) {
  // expected-error @+1 {{lhs dimension 0 of 'tensor<0x64x64xf16>' is 0: xpu.gemm takes no zero-size dimensions}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<0x64x64xf16>, tensor<0x64x64xf16>) -> tensor<0x64x64xf32>
  return
}

// -----

func.func @schedule_persistent_fixup(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{unknown field 'fixup' of schedule persistent (programs)}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = persistent<fixup = atomic>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

// 2^40 x 2^40 elements: more bytes than any address space (the product does
// not even fit in 64 bits).
func.func @huge_operand(%a: tensor<1099511627776x1099511627776xf32>, %b: tensor<1099511627776x16xf32>) {
  // expected-error @+1 {{lhs 'tensor<1099511627776x1099511627776xf32>' holds over 2^63 bytes, more than the 2^48 an xpu.gemm tensor may hold}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<1099511627776x1099511627776xf32>, tensor<1099511627776x16xf32>) -> tensor<1099511627776x16xf32>
  return
}

// -----

func.func @schedule_unknown_fixup(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{unknown fixup 'eventually' (deterministic or atomic)}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = stream_k<fixup = eventually>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @large_result(%a: tensor<16777216x1xf32>, %b: tensor<1x16777216xf32>) {
  // expected-error @+1 {{result 'tensor<16777216x16777216xf32>' holds 1125899906842624 bytes, more than the 2^48 an xpu.gemm tensor may hold}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<16777216x1xf32>, tensor<1x16777216xf32>) -> tensor<16777216x16777216xf32>
  return
}

// -----

func.func @schedule_field_twice(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{field 'programs' given twice}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1, schedule = stream_k<programs = 4, programs = 8>>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @tile_partial_without_slot(%a: memref<16x32xf32>, %b: memref<32x16xf32>, %ws: memref<2x16x16xf32>, %i: index) {
  // expected-error @+1 {{a partial tile needs a workspace slot}}
  xpu.gemm_tile partial %a, %b into %ws at [%i, %i, %i] k [%i, %i] {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, 16, 16, 32>, rhs_layout = #xpu<rhs_layout kn>} : memref<16x32xf32>, memref<32x16xf32>, memref<2x16x16xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}

// -----

// Soundness: xpu.gemm is Pure, so an epilogue must not touch memory (a
// canonicalization deleted an unused GEMM and the store in it).
func.func @epilogue_store(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %m: memref<f32>) {
  // expected-note @+1 {{in the epilogue of this xpu.gemm}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    // expected-error @+1 {{'memref.store' op may have memory effects, which an xpu.gemm epilogue must not have (it runs once per output element, in no defined order)}}
    memref.store %acc, %m[] : memref<f32>
    xpu.yield %acc : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @tile_partial_with_epilogue(%a: memref<16x32xf32>, %b: memref<32x16xf32>, %ws: memref<2x16x16xf32>, %i: index) {
  // expected-error @+1 {{partial sums have the identity epilogue (the epilogue runs once, on the complete sum, in xpu.gemm_fixup)}}
  xpu.gemm_tile partial %a, %b into %ws[%i] at [%i, %i, %i] k [%i, %i] {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, 16, 16, 32>, rhs_layout = #xpu<rhs_layout kn>} : memref<16x32xf32>, memref<32x16xf32>, memref<2x16x16xf32> {
  ^bb0(%acc: f32):
    %e = math.exp %acc : f32
    xpu.yield %e : f32
  }
  return
}

// -----

// A load too: the GEMM could be moved across a store to that memory.
func.func @epilogue_load(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %m: memref<f32>) {
  // expected-note @+1 {{in the epilogue of this xpu.gemm}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    // expected-error @+1 {{'memref.load' op may have memory effects}}
    %s = memref.load %m[] : memref<f32>
    %r = arith.mulf %acc, %s : f32
    xpu.yield %r : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @tile_workspace_shape(%a: memref<16x32xf32>, %b: memref<32x16xf32>, %ws: memref<2x16x8xf32>, %i: index) {
  // expected-error @+1 {{the workspace must be memref<S x 16 x 16 x f32>, got 'memref<2x16x8xf32>'}}
  xpu.gemm_tile partial %a, %b into %ws[%i] at [%i, %i, %i] k [%i, %i] {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, 16, 16, 32>, rhs_layout = #xpu<rhs_layout kn>} : memref<16x32xf32>, memref<32x16xf32>, memref<2x16x8xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}

// -----

func.func private @scale(f32) -> f32

// A call may have any effect.
func.func @epilogue_call(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-note @+1 {{in the epilogue of this xpu.gemm}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue {
  ^bb0(%acc: f32):
    // expected-error @+1 {{'func.call' op may have memory effects}}
    %r = func.call @scale(%acc) : (f32) -> f32
    xpu.yield %r : f32
  } : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @tile_lhs_too_small(%a: memref<16x24xf32>, %b: memref<32x16xf32>, %c: memref<16x16xf32>, %i: index) {
  // expected-error @+1 {{lhs 'memref<16x24xf32>' does not hold the logical shape [16, 32] (only the last two dimensions may be larger: the row pitch and padded rows)}}
  xpu.gemm_tile output %a, %b into %c at [%i, %i, %i] k [%i, %i] {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, 16, 16, 32>, rhs_layout = #xpu<rhs_layout kn>} : memref<16x24xf32>, memref<32x16xf32>, memref<16x16xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}

// -----

// Rows may be padded (batch slabs that start aligned), the batch may not.
func.func @tile_lhs_batch_differs(%a: memref<3x20x32xf32>, %b: memref<2x32x16xf32>, %c: memref<2x16x16xf32>, %i: index) {
  // expected-error @+1 {{lhs 'memref<3x20x32xf32>' does not hold the logical shape [2, 16, 32] (only the last two dimensions may be larger: the row pitch and padded rows)}}
  xpu.gemm_tile output %a, %b into %c at [%i, %i, %i] k [%i, %i] {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 2, 16, 16, 32>, rhs_layout = #xpu<rhs_layout kn>} : memref<3x20x32xf32>, memref<2x32x16xf32>, memref<2x16x16xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}

// -----

// Issue 10 (fuzzer): tile sizes of 2^32 and more were accepted and crashed
// (a floating-point exception) in the Xe lowering.
func.func @config_tile_huge(%a: tensor<512x512xf16>, %b: tensor<512x512xf16>) {
  // expected-error @+1 {{config tile sizes must be between 1 and 65536}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [256, 256, 4294967296], group_m = 8, subgroups = [8, 4], stages = 4, schedule = data_parallel, backend = #xpu.xe<grf_mode = 256>>} : (tensor<512x512xf16>, tensor<512x512xf16>) -> tensor<512x512xf32>
  return
}

// -----

func.func @tile_per_col_shape(%a: memref<16x32xf32>, %b: memref<32x16xf32>, %c: memref<16x16xf32>, %v: memref<8xf32>, %i: index) {
  // expected-error @+1 {{epilogue operand #0 is per_col and must have shape [16] (or be a rank-2 panel), got 'memref<8xf32>'}}
  xpu.gemm_tile output %a, %b into %c epilogue(%v : memref<8xf32>) at [%i, %i, %i] k [%i, %i] {acc_type = f32, broadcasts = [#xpu<broadcast per_col>], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, 16, 16, 32>, rhs_layout = #xpu<rhs_layout kn>} : memref<16x32xf32>, memref<32x16xf32>, memref<16x16xf32> {
  ^bb0(%acc: f32, %x: f32):
    %s = arith.addf %acc, %x : f32
    xpu.yield %s : f32
  }
  return
}

// -----

func.func @config_subgroups_too_many(%a: tensor<4096x8xf32>, %b: tensor<8x4096xf32>) {
  // expected-error @+1 {{config subgroups [64, 64] are more than 1024 subgroups per workgroup}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4096, 4096, 8], group_m = 1, subgroups = [64, 64], stages = 1, schedule = data_parallel>} : (tensor<4096x8xf32>, tensor<8x4096xf32>) -> tensor<4096x4096xf32>
  return
}

// -----

func.func @fixup_dims(%ws: memref<2x16x16xf32>, %c: memref<16x16xf32>, %i: index) {
  // expected-error @+1 {{dims must be four positive sizes [batch, m, n, k]}}
  xpu.gemm_fixup %ws[%i, %i] into %c at [%i, %i, %i] {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, 16, 16>} : memref<2x16x16xf32>, memref<16x16xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}

// -----

func.func @config_stages_huge(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config stages must be between 1 and 64, got 1099511627776}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 1, subgroups = [1, 1], stages = 1099511627776, schedule = data_parallel>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

func.func @config_group_m_huge(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // expected-error @+1 {{config group_m must be between 1 and 65536, got 4294967296}}
  %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [4, 4, 8], group_m = 4294967296, subgroups = [1, 1], stages = 1, schedule = data_parallel>} : (tensor<4x8xf32>, tensor<8x6xf32>) -> tensor<4x6xf32>
  return
}

// -----

// Targets: fields far beyond any device overflowed the cost models.
// expected-error @+1 {{grf_count must be at most 4096 and grf_bytes at most 1024, got 2147483648 and 64}}
module attributes {xpu.target = #xpu.target<"pvc", grf_count = 2147483648>} {}

// -----

// expected-error @+1 {{compute_units must be between 1 and 1048576, got 1099511627776}}
module attributes {xpu.target = #xpu.target<"pvc", compute_units = 1099511627776>} {}

// -----

// expected-error @+1 {{slm_bytes must be between 0 and 2^32, got 4611686018427387904}}
module attributes {xpu.target = #xpu.target<"pvc", slm_bytes = 4611686018427387904>} {}

// -----

// expected-error @+1 {{mma sizes must be at most 1024}}
module attributes {xpu.target = #xpu.target<"pvc", mma = [4096, 4096, 4096]>} {}

// -----

// expected-error @+1 {{subgroup sizes must be powers of two up to 1024, got 1099511627776}}
module attributes {xpu.target = #xpu.target<"pvc", subgroup_sizes = [1099511627776]>} {}

// -----

// expected-error @+1 {{vector_bits must be a positive multiple of 8 up to 65536, got 1099511627776}}
module attributes {xpu.target = #xpu.target<"cpu", vector_bits = 1099511627776>} {}

// -----

// A dynamic m needs its rows at run time.
func.func @tile_dynamic_m_without_rows(%a: memref<?x32xf32>, %b: memref<32x16xf32>, %c: memref<?x16xf32>, %i: index) {
  // expected-error @+1 {{has a `rows` operand exactly when dims has a dynamic m (?), got dims m = ? without rows}}
  xpu.gemm_tile output %a, %b into %c at [%i, %i, %i] k [%i, %i] {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, -9223372036854775808, 16, 32>, rhs_layout = #xpu<rhs_layout kn>} : memref<?x32xf32>, memref<32x16xf32>, memref<?x16xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}

// -----

func.func @tile_static_m_with_rows(%a: memref<16x32xf32>, %b: memref<32x16xf32>, %c: memref<16x16xf32>, %i: index) {
  // expected-error @+1 {{has a `rows` operand exactly when dims has a dynamic m (?), got dims m = 16 with rows}}
  xpu.gemm_tile output %a, %b into %c at [%i, %i, %i] k [%i, %i] rows(%i) {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, 16, 16, 32>, rhs_layout = #xpu<rhs_layout kn>} : memref<16x32xf32>, memref<32x16xf32>, memref<16x16xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}

// -----

// The buffers of a dynamic m are dynamic in that dimension, and only there.
func.func @tile_dynamic_m_static_result(%a: memref<?x32xf32>, %b: memref<32x16xf32>, %c: memref<16x16xf32>, %i: index) {
  // expected-error @+1 {{the result must be a memref of rank 2 with the identity layout, dynamic only where the logical shape is (m of a dynamic-rows tile), got 'memref<16x16xf32>'}}
  xpu.gemm_tile output %a, %b into %c at [%i, %i, %i] k [%i, %i] rows(%i) {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, -9223372036854775808, 16, 32>, rhs_layout = #xpu<rhs_layout kn>} : memref<?x32xf32>, memref<32x16xf32>, memref<16x16xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}

// -----

// Stream-K pieces need a tile count known at compile time.
func.func @tile_dynamic_m_partial(%a: memref<?x32xf32>, %b: memref<32x16xf32>, %ws: memref<2x16x16xf32>, %i: index) {
  // expected-error @+1 {{a dynamic m is supported for unbatched output tiles only}}
  xpu.gemm_tile partial %a, %b into %ws[%i] at [%i, %i, %i] k [%i, %i] rows(%i) {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, -9223372036854775808, 16, 32>, rhs_layout = #xpu<rhs_layout kn>} : memref<?x32xf32>, memref<32x16xf32>, memref<2x16x16xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}

// -----

func.func @tile_dynamic_k(%a: memref<16x32xf32>, %b: memref<32x16xf32>, %c: memref<16x16xf32>, %i: index) {
  // expected-error @+1 {{dims must be four positive sizes [batch, m, n, k] (m may be ?)}}
  xpu.gemm_tile output %a, %b into %c at [%i, %i, %i] k [%i, %i] {acc_type = f32, broadcasts = [], config = #xpu.config<tile = [16, 16, 16], group_m = 1, subgroups = [1, 1], stages = 2, schedule = data_parallel>, dims = array<i64: 1, 16, 16, -9223372036854775808>, rhs_layout = #xpu<rhs_layout kn>} : memref<16x32xf32>, memref<32x16xf32>, memref<16x16xf32> {
  ^bb0(%acc: f32):
    xpu.yield %acc : f32
  }
  return
}
