// RUN: xpu-opt %s --pass-pipeline='builtin.module(gpu.module(xpu-nvvm-fast-math{functions=tanh,sqrt}))' --verify-diagnostics

// A function the pass has no approximation of is an error, not a silent
// libdevice call.
// expected-error @+1 {{xpu-nvvm-fast-math: no approximation of 'sqrt'; known: exp, exp2, log, log2, log1p, tanh, erf, divf}}
gpu.module @kernels {
  gpu.func @k(%x: f32) kernel {
    %0 = math.sqrt %x : f32
    gpu.return
  }
}
