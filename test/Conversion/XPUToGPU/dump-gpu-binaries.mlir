// xpu-spirv-pipeline{dump-binaries=DIR} writes each kernel's SPIR-V to a
// file; every one passes spirv-val for OpenCL 1.2 and declares a Kernel
// entry point.
// REQUIRES: spirv-tools
// RUN: rm -rf %t && mkdir -p %t/odd %t/gelu
// RUN: cat %S/../../Integration/CPU/odd-shapes.mlir %S/../../Integration/CPU/Inputs/gen.mlir \
// RUN:   | xpu-opt --xpu-spirv-pipeline="dump-binaries=%t/odd" -o /dev/null
// RUN: ls %t/odd | FileCheck %s --check-prefix=FILES
// FILES: forward_kernel.0.spv
// FILES-NEXT: forward_kernel_0.0.spv
// FILES-NEXT: forward_kernel_1.0.spv
// RUN: spirv-val --target-env opencl1.2 %t/odd/forward_kernel.0.spv
// RUN: spirv-val --target-env opencl1.2 %t/odd/forward_kernel_0.0.spv
// RUN: spirv-val --target-env opencl1.2 %t/odd/forward_kernel_1.0.spv
// RUN: spirv-dis %t/odd/forward_kernel_0.0.spv | FileCheck %s --check-prefix=DIS
// DIS: OpCapability Kernel
// DIS: OpEntryPoint Kernel

// GELU's erf becomes an OpenCL extended instruction.
// RUN: cat %S/../../Integration/CPU/linear-bias-gelu.mlir %S/../../Integration/CPU/Inputs/gen.mlir \
// RUN:   | xpu-opt --xpu-spirv-pipeline="dump-binaries=%t/gelu" -o /dev/null
// RUN: spirv-val --target-env opencl1.2 %t/gelu/forward_kernel.0.spv
// RUN: spirv-val --target-env opencl1.2 %t/gelu/forward_kernel_0.0.spv
// RUN: spirv-val --target-env opencl1.2 %t/gelu/forward_kernel_1.0.spv
// RUN: spirv-dis %t/gelu/forward_kernel.0.spv -o %t/gelu/a.dis
// RUN: spirv-dis %t/gelu/forward_kernel_0.0.spv -o %t/gelu/b.dis
// RUN: spirv-dis %t/gelu/forward_kernel_1.0.spv -o %t/gelu/c.dis
// RUN: cat %t/gelu/a.dis %t/gelu/b.dis %t/gelu/c.dis | FileCheck %s --check-prefix=ERF
// ERF: OpExtInstImport "OpenCL.std"
// ERF: OpExtInst %float %{{[0-9]+}} erf

// A directory that cannot be written is a located error, not a crash.
// RUN: cat %S/../../Integration/CPU/odd-shapes.mlir %S/../../Integration/CPU/Inputs/gen.mlir \
// RUN:   | not xpu-opt --xpu-spirv-pipeline="dump-binaries=%t/missing" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR
// ERR: error: xpu-dump-gpu-binaries: cannot write '{{.*}}missing{{/|\\}}forward_kernel.0.spv'
