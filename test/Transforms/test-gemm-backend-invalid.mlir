// The rules of the test backend (test-gemm-backend.mlir) reach the passes
// through GemmBackendAttrInterface, with their location.
// RUN: xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-materialize-layouts))' --verify-diagnostics

// Its own rules, through the same interface.
module attributes {xpu.target = #xpu.target<"pvc">} {
  func.func @test_backend_batched(%a: tensor<2x32x48xf32>, %b: tensor<2x48x40xf32>) -> tensor<2x32x40xf32> {
    // expected-error @below {{xpu-materialize-layouts: the test backend takes unbatched GEMMs}}
    %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 8, 16], group_m = 1, subgroups = [1, 1], stages = 1, schedule = data_parallel, backend = #xpu_test.backend<pitch = 32, resident = 2>>} : (tensor<2x32x48xf32>, tensor<2x48x40xf32>) -> tensor<2x32x40xf32>
    return %0 : tensor<2x32x40xf32>
  }
}
