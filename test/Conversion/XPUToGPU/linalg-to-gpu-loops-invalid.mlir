// RUN: xpu-opt %s --split-input-file --xpu-linalg-to-gpu-loops --verify-diagnostics | FileCheck %s
// Iteration spaces no 1-D grid can launch are errors at the op, not
// wrapped-around launch sizes (a fuzzed 2^40 x 2^40 copy overflowed the
// point count).

func.func @overflowing_points(%a: memref<1099511627776x1099511627776xf32>,
                              %b: memref<1099511627776x1099511627776xf32>) {
  // expected-error @+1 {{xpu-linalg-to-gpu-loops: the iteration space does not fit in 64 bits; the kernel cannot be launched}}
  linalg.copy ins(%a : memref<1099511627776x1099511627776xf32>)
              outs(%b : memref<1099511627776x1099511627776xf32>)
  return
}

// -----

// 2^40 points: 2^32 workgroups of 256, twice what a grid allows.
func.func @too_many_workgroups(%a: memref<1099511627776xf32>,
                               %b: memref<1099511627776xf32>) {
  // expected-error @+1 {{xpu-linalg-to-gpu-loops: 1099511627776 parallel points need more than 2147483647 workgroups of a 1-D grid; the kernel cannot be launched}}
  linalg.copy ins(%a : memref<1099511627776xf32>)
              outs(%b : memref<1099511627776xf32>)
  return
}

// -----

// A row reduction launches a workgroup per output row: 2^32 rows are too
// many even though each row is short.
func.func @too_many_rows(%a: memref<4294967296x64xf32>,
                         %b: memref<4294967296xf32>) {
  // expected-error @+1 {{xpu-linalg-to-gpu-loops: 4294967296 parallel points need more than 2147483647 workgroups of a 1-D grid; the kernel cannot be launched}}
  linalg.reduce ins(%a : memref<4294967296x64xf32>)
                outs(%b : memref<4294967296xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// The largest grid that fits is mapped (2^31 - 1 workgroups of 256).
// CHECK-LABEL: func.func @largest_grid
// CHECK: %[[GROUPS:.*]] = arith.constant 2147483647 : index
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %[[GROUPS]],
func.func @largest_grid(%a: memref<549755813632xf32>,
                        %b: memref<549755813632xf32>) {
  linalg.copy ins(%a : memref<549755813632xf32>)
              outs(%b : memref<549755813632xf32>)
  return
}
