// Without a Level Zero driver, xpu-run --target=levelzero compiles the model
// with xpu-spirv-pipeline, loads libxpu_levelzero_runtime.so and stops at the
// runtime's first call with its clear message and exit status 1 (`not` fails
// on a crash), printing nothing on stdout.

// REQUIRES: levelzero-runtime
// UNSUPPORTED: levelzero-driver
// RUN: cat %s %S/../CPU/Inputs/gen.mlir \
// RUN:   | not xpu-run --target=levelzero -e main -entry-point-result=void \
// RUN:     2> %t.err | count 0
// RUN: FileCheck %s < %t.err
// Listing devices says the same and fails.
// RUN: not xpu-run --target=levelzero --xpu-list-devices 2>&1 | FileCheck %s

// CHECK: xpu levelzero runtime: no Level Zero driver found (zeInit: ZE_RESULT_ERROR_UNINITIALIZED)
// CHECK-NOT: {{.}}

func.func @forward(%x: tensor<8x16xf32>, %w: tensor<16x4xf32>) -> tensor<8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %s1 = arith.constant 1 : i64
  %s2 = arith.constant 2 : i64
  %xd = call @gen2(%c8, %c16, %s1) : (index, index, i64) -> tensor<?x?xf32>
  %wd = call @gen2(%c16, %c4, %s2) : (index, index, i64) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<8x16xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<16x4xf32>
  %y = call @forward(%x, %w) : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %u = tensor.cast %y : tensor<8x4xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
