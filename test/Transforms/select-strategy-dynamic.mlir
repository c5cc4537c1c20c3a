// RUN: xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-select-strategy{backend=simt}))' --xpu-remarks --verify-diagnostics | FileCheck %s
// The Xe kernels take a dynamic m too (their 2D block descriptors take the
// rows at run time): the auto choice on pvc.
// RUN: xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-select-strategy))' | FileCheck %s --check-prefix=XE
// XE: schedule = data_parallel, backend = #xpu.xe<grf_mode = {{128|256}}>>
// A forced schedule other than data_parallel is refused for a dynamic m.
// RUN: not xpu-opt %s --pass-pipeline='builtin.module(func.func(xpu-select-strategy{backend=simt schedule=stream_k}))' 2>&1 | FileCheck %s --check-prefix=FORCED

// A dynamic m (a batch known at run time) on the SIMT kernels: the tiles
// are chosen for 1024 rows (the remark says so), the schedule is
// data-parallel with its programs counted at run time.
// CHECK-LABEL: func.func @dynamic_rows_simt
// CHECK: xpu.gemm
// CHECK-SAME: config = #xpu.config<tile = [{{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}], {{.*}}schedule = data_parallel>
// FORCED: error: xpu-select-strategy: the schedule option asks for stream_k, but the GEMM's m is dynamic, and only data_parallel counts its programs at run time
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @dynamic_rows_simt(%a: tensor<?x256xf32>, %b: tensor<256x128xf32>) -> tensor<?x128xf32> {
  // expected-remark @+3 {{selected for ?(modeled as 1024)x128x256 (m x n x k) on pvc}}
  // expected-remark @+2 {{256-GRF mode}}
  // expected-remark @+1 {{schedule data_parallel (m is dynamic: one program per tile, counted at run time)}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<?x256xf32>, tensor<256x128xf32>) -> tensor<?x128xf32>
  return %g : tensor<?x128xf32>
}
}
