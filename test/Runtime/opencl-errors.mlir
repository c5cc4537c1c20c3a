// Runtime errors through the mgpu* ABI end with a message naming the call and
// the OpenCL error, and exit status 1 (`not` fails on a crash).

// REQUIRES: opencl-runtime, opencl-device
// RUN: mlir-opt %S/Inputs/vector-add.mlir %gpu_to_opencl_spirv \
// RUN:   | %extract_spirv_module \
// RUN:   | %mlir_translate --no-implicit-module --serialize-spirv -o %t.spv

// RUN: not %xpu_opencl_runtime_test --no-list --kernel missing %t.spv 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NAME
// NAME: xpu opencl runtime: clCreateKernel failed: CL_INVALID_KERNEL_NAME: the module has no kernel 'missing'

// RUN: not %xpu_opencl_runtime_test --no-list --drop-arg %t.spv 2>&1 \
// RUN:   | FileCheck %s --check-prefix=COUNT
// COUNT: xpu opencl runtime: kernel 'vector_add' takes 5 argument(s) but the launch passes 4; memrefs must be passed to SPIR-V kernels as bare pointers

// RUN: not %xpu_opencl_runtime_test --no-list --host-pointer %t.spv 2>&1 \
// RUN:   | FileCheck %s --check-prefix=HOST
// HOST: xpu opencl runtime: argument 0 of kernel 'vector_add' (pointer) is the pointer 0x{{[0-9a-f]+}}, which is not inside memory from mgpuMemAlloc

// RUN: not %xpu_opencl_runtime_test --no-list --device 999 %t.spv 2>&1 \
// RUN:   | FileCheck %s --check-prefix=DEVICE
// DEVICE: xpu opencl runtime: device index 999 is out of range: {{[0-9]+}} OpenCL device(s) found

// Not SPIR-V at all: the module load fails with a clear message (through
// llvm-spirv on devices without SPIR-V IL, clBuildProgram otherwise).
// RUN: echo "not a SPIR-V module" > %t.bad
// RUN: not %xpu_opencl_runtime_test --no-list %t.bad 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BAD
// BAD: xpu opencl runtime: {{.*(failed to translate the SPIR-V module|clBuildProgram failed|clCreateProgramWithIL failed)}}
