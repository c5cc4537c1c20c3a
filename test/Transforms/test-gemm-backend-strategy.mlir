// xpu-select-strategy asks the test backend (#xpu_test.backend, registered
// by test/lib once its dialect is loaded, here by the module attribute) as
// it asks xe, nvgpu and simt: through GemmBackendAttrInterface, by name.
// RUN: not xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{backend=test}))' 2>/dev/null | FileCheck %s
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{backend=test}))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// The registered test backend has pitch 32: its rule refuses tile_m 16 and
// 8, the 2 x 5 candidates of pvc's grid with those rows, and only those. It
// runs `resident` = 2 workgroups per compute unit: 2 x 128 Xe-cores. The
// config carries its attribute as the backend.
// CHECK-LABEL: func.func @named
// CHECK: config = #xpu.config<tile = [{{32|64|128|256}}, {{[0-9]+}}, {{[0-9]+}}]
// CHECK-SAME: backend = #xpu_test.backend<pitch = 32, resident = 2>
module attributes {xpu.target = #xpu.target<"pvc">, xpu_test.loaded = #xpu_test.backend<pitch = 32, resident = 2>} {
  func.func @named(%a: tensor<512x256xf32>, %b: tensor<256x384xf32>) -> tensor<512x384xf32> {
    // expected-remark-re @+2 {{selected for 512x384x256 (m x n x k) on pvc: {{.*}} of 30 candidates rejected ({{[0-9]+}} registers, 0 SLM, 10 backend rules)}}
    // expected-remark-re @+1 {{schedule {{.*}}: 96 tiles, 256 workgroups at once;}}
    %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<512x256xf32>, tensor<256x384xf32>) -> tensor<512x384xf32>
    return %0 : tensor<512x384xf32>
  }
}

// -----

// The backend's GEMM rule: it takes unbatched GEMMs only.
module attributes {xpu.target = #xpu.target<"pvc">, xpu_test.loaded = #xpu_test.backend<pitch = 32, resident = 2>} {
  func.func @batched(%a: tensor<2x64x32xf32>, %b: tensor<2x32x64xf32>) -> tensor<2x64x64xf32> {
    // expected-error @+1 {{xpu-select-strategy: the test backend cannot compute this GEMM: the test backend takes unbatched GEMMs}}
    %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<2x64x32xf32>, tensor<2x32x64xf32>) -> tensor<2x64x64xf32>
    return %0 : tensor<2x64x64xf32>
  }
}
