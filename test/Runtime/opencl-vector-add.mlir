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

// The device-only test mode: `a`, `c` and the memset16 buffer are OpenCL
// buffers without SVM, translated at the launch and in the copies; reading
// one on the host is reported with the buffer, and the fault ends the
// process (by the default action: sanitizer builds step their handlers
// aside for it).
// RUN: %xpu_opencl_runtime_test --no-list --device-only %t.spv | FileCheck %s --check-prefix=DEVONLY
// DEVONLY: vector_add: 1000 elements, n = 900, max abs error {{.*}}: PASS
// RUN: not --crash %default_fault_handlers %xpu_opencl_runtime_test --no-list --device-only --touch-device-only %t.spv 2>&1 | FileCheck %s --check-prefix=TOUCH
// TOUCH: vector_add: 1000 elements, n = 900, max abs error {{.*}}: PASS
// TOUCH: xpu opencl runtime: host code accessed device-only memory at 0x{{[0-9a-f]+}} (byte 12 of a buffer of 4000 bytes from mgpuMemAlloc, device-only test mode): only kernels may read or write it
// TOUCH-NOT: read on the host
