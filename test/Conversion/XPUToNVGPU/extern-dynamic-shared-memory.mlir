// RUN: xpu-opt %s --pass-pipeline='builtin.module(gpu.module(xpu-extern-dynamic-shared-memory))' | FileCheck %s

// The zero-length shared array of gpu.dynamic_shared_memory becomes an
// external declaration (PTX .extern .shared) aligned to 1024 bytes; other
// shared globals keep their linkage.
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
module attributes {gpu.container_module} {
  gpu.module @kernels {
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.mlir.global private @__mbarrier() {addr_space = 3 : i32, alignment = 8 : i64} : !llvm.array<4 x i64>
  }
}
