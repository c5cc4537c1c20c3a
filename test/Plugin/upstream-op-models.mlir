// Loading the xpu dialect (xpu-opt, or the plugin in stock mlir-opt) does not
// change upstream ops: gpu.barrier and gpu.launch_func keep upstream's
// (absent) memory effects, so a host's own pipelines see the same IR with
// and without xpu. The effect models the xpu lowerings need are registered
// by those passes (convert-xpu-to-gpu, convert-xpu-to-xegpu), for their
// pipelines only (test/Plugin/pipelines.mlir runs them in stock mlir-opt).
// REQUIRES: xpu-plugin

// RUN: mlir-opt %s --split-input-file --buffer-deallocation-pipeline --verify-diagnostics
// RUN: mlir-opt --load-dialect-plugin=%xpu_plugin --load-pass-plugin=%xpu_plugin \
// RUN:   %s --split-input-file --buffer-deallocation-pipeline --verify-diagnostics
// RUN: xpu-opt %s --split-input-file --buffer-deallocation-pipeline --verify-diagnostics

func.func @barrier(%n: index) {
  %c1 = arith.constant 1 : index
  %m = memref.alloc() : memref<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{ops with unknown memory side effects are not supported}}
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%m: memref<16xf32>) kernel {
      gpu.return
    }
  }
  func.func @launch() {
    %c1 = arith.constant 1 : index
    %m = memref.alloc() : memref<16xf32>
    // expected-error @+1 {{ops with unknown memory side effects are not supported}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<16xf32>)
    return
  }
}
