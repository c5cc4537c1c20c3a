// The runtime's tables (live allocations, device copies of registered host
// memory) under threads: 4 threads run the vector add of Inputs/vector-add.mlir
// 25 times each at once, every run allocating, copying, launching and freeing,
// and registering the same host array as a compiled program registers its
// constants (mgpuMemHostRegisterMemRef) before passing its host pointer. Two
// threads registering one range at once used to free each other's device copy
// while a kernel was being given it ("... is the pointer 0x..., which is not
// inside memory from mgpuMemAlloc", then exit).

// REQUIRES: opencl-runtime, opencl-device
// RUN: mlir-opt %S/Inputs/vector-add.mlir %gpu_to_opencl_spirv \
// RUN:   | %extract_spirv_module \
// RUN:   | %mlir_translate --no-implicit-module --serialize-spirv -o %t.spv
// RUN: %xpu_opencl_runtime_test --no-list --threads 4 --register-host %t.spv \
// RUN:   | FileCheck %s --check-prefix=REGISTERED
// REGISTERED: vector_add: 4 threads x 25 runs (registered host a), max abs error {{.*}}: PASS
// RUN: %xpu_opencl_runtime_test --no-list --threads 4 %t.spv | FileCheck %s
// CHECK: vector_add: 4 threads x 25 runs, max abs error {{.*}}: PASS
