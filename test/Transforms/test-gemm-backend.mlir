// A backend registered through GemmBackendAttrInterface from test/lib
// (#xpu_test.backend, test/lib/Dialect/TestGemmBackend.td): the layout and
// schedule passes know it only through the interface, as they know
// #xpu.xe, #xpu.nvgpu and #xpu.simt.
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-materialize-layouts))' | FileCheck %s --check-prefix=LAYOUT
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-materialize-layouts,xpu-schedule-gemm))' | FileCheck %s --check-prefix=SCHEDULE
// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-materialize-layouts,xpu-schedule-gemm))' --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// The test backend pads the rows of A to a multiple of its pitch (48 -> 64
// columns), allocates the result at its row pitch (40 -> 64) and 128-byte
// aligned, and runs `resident` workgroups per compute unit: pvc's 128
// Xe-cores x 2, of which the persistent schedule of 5 tiles uses 5.
// LAYOUT-LABEL: func.func @test_backend
// LAYOUT: %[[PAD:.*]] = tensor.pad %{{.*}} low[0, 0] high[0, 16]
// LAYOUT: tensor<32x48xf32> to tensor<32x64xf32>
// LAYOUT: %[[A:.*]] = tensor.extract_slice %[[PAD]][0, 0] [32, 48] [1, 1]
// LAYOUT: xpu.gemm %[[A]], %{{.*}} rhs_layout(kn)
// SCHEDULE-LABEL: func.func @test_backend
// SCHEDULE: memref.alloc() {alignment = 128 : i64} : memref<32x64xf32>
// SCHEDULE: scf.forall (%{{.*}}) in (5)
module attributes {xpu.target = #xpu.target<"pvc">} {
  func.func @test_backend(%a: tensor<32x48xf32>, %b: tensor<48x40xf32>) -> tensor<32x40xf32> {
    // expected-remark @+2 {{32x40x48: A's rows padded to 64 elements by the test backend}}
    // expected-remark @+1 {{32x40x48 for the test backend: persistent: 5 tiles on 5 programs (1 tiles per program); 256 workgroups run at once on pvc}}
    %0 = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 8, 16], group_m = 1, subgroups = [1, 1], stages = 1, schedule = persistent, backend = #xpu_test.backend<pitch = 32, resident = 2>>} : (tensor<32x48xf32>, tensor<48x40xf32>) -> tensor<32x40xf32>
    return %0 : tensor<32x40xf32>
  }
}
