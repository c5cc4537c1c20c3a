// Runs the vector add of Inputs/vector-add.mlir through xpu_opencl_runtime's
// mgpu* ABI and checks it against the CPU inside xpu-opencl-runtime-test.

// REQUIRES: opencl-runtime, opencl-device, spirv-val
// RUN: mlir-opt %S/Inputs/vector-add.mlir %gpu_to_opencl_spirv \
// RUN:   | %extract_spirv_module \
// RUN:   | %mlir_translate --no-implicit-module --serialize-spirv -o %t.spv
// RUN: %spirv_val --target-env opencl1.2 %t.spv
// RUN: %xpu_opencl_runtime_test %t.spv | FileCheck %s

// CHECK: xpu opencl runtime: device 0: {{.+}} [{{.+}}, {{.*}}SPIR{{.*}}, {{.*}}SVM]
// CHECK: devices: {{[1-9][0-9]*}}
// CHECK: vector_add: 1000 elements, n = 900, max abs error {{.*}}: PASS
