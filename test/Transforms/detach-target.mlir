// RUN: xpu-opt %s --xpu-detach-target | FileCheck %s

// The target goes, everything else stays.
// CHECK: module attributes {test.other = 1 : i32} {
// CHECK: llvm.func @f()
module attributes {xpu.target = #xpu.target<"cpu">, test.other = 1 : i32} {
  llvm.func @f() {
    llvm.return
  }
}
