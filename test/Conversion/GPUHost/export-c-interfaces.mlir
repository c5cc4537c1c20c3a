// RUN: xpu-opt %s --xpu-export-c-interfaces | FileCheck %s

// @forward and the @forward.pack / @forward.packed that
// xpu-outline-weight-pack made get C interfaces and become public; other
// private helpers and external declarations are left alone.
// CHECK: func.func @forward(%{{.+}}) -> tensor<4xf32> attributes {llvm.emit_c_interface}
// CHECK: func.func @forward.pack(%{{.+}}) -> tensor<4xf32> attributes {llvm.emit_c_interface}
// CHECK: func.func @forward.packed(%{{.+}}) -> tensor<4xf32> attributes {llvm.emit_c_interface}
// CHECK: func.func private @helper(
// CHECK-NOT: emit_c_interface
// CHECK: func.func private @printMemrefF32(
module {
  func.func @forward(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
    %p = call @forward.pack(%w) : (tensor<4xf32>) -> tensor<4xf32>
    %r = call @forward.packed(%x, %p) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
  func.func private @forward.pack(%w: tensor<4xf32>) -> tensor<4xf32> {
    return %w : tensor<4xf32>
  }
  func.func private @forward.packed(%x: tensor<4xf32>, %p: tensor<4xf32>) -> tensor<4xf32> {
    %r = call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
  func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    return %x : tensor<4xf32>
  }
  func.func private @printMemrefF32(memref<*xf32>)
}
