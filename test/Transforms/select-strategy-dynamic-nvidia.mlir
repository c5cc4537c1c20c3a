// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy))' --xpu-remarks --verify-diagnostics --mlir-disable-threading | FileCheck %s
// Naming the tensor-core backend keeps it, and a dynamic m is then an error.
// RUN: not xpu-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{backend=nvgpu}))' 2>&1 | FileCheck %s --check-prefix=NAMED

// A dynamic m of bf16 operands on sm_90a: the tensor-core kernels (mma.sync,
// wgmma) size grids and TMA descriptors from static shapes, so the GEMM
// gets SIMT knobs (4-wide runs on NVIDIA), with a remark that says why, and
// the data-parallel schedule.
// CHECK-LABEL: func.func @dynamic_rows_bf16
// CHECK: xpu.gemm
// CHECK-SAME: schedule = data_parallel, backend = #xpu.simt<vector = 4>>
// NAMED: error: xpu-select-strategy: the GEMM ?x128x256 has a dynamic m, which the nvgpu backend does not take
module attributes {xpu.target = #xpu.target<"sm_90a">} {
func.func @dynamic_rows_bf16(%a: tensor<?x256xbf16>, %b: tensor<256x128xbf16>) -> tensor<?x128xf32> {
  // expected-remark @+4 {{[Missed] DynamicRows | Category:xpu-select-strategy | Reason="simt backend, not nvgpu: the GEMM ?x128x256 has a dynamic m, which the tensor-core kernels do not take (they size grids and TMA descriptors from static shapes); the SIMT kernels read it at run time"}}
  // expected-remark @+3 {{selected for ?(modeled as 1024)x128x256 (m x n x k) on sm_90a}}
  // expected-remark @+2 {{schedule data_parallel (m is dynamic: one program per tile, counted at run time)}}
  // expected-remark @+1 {{nvgpu backend on sm_90a: bf16 operands run on tensor cores}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<?x256xbf16>, tensor<256x128xbf16>) -> tensor<?x128xf32>
  return %g : tensor<?x128xf32>
}
}
