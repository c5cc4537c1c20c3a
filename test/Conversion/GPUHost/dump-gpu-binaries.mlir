// xpu-spirv-pipeline{dump-binaries=DIR} writes each kernel's SPIR-V to a
// file; every one passes spirv-val for OpenCL 2.2 (SPIR-V 1.1: the kernels
// state their subgroup size) and declares a Kernel entry point.
// REQUIRES: spirv-tools
// RUN: rm -rf %t && mkdir -p %t
// odd-shapes (131x67x97 + bias) is one fused GEMM kernel with
// xpu-optimize; without it, the GEMM and the bias add are two kernels.
// RUN: cat %S/../../Integration/CPU/odd-shapes.mlir %S/../../Integration/CPU/Inputs/gen.mlir \
// RUN:   | xpu-opt --xpu-spirv-pipeline="dump-binaries=%t/odd" -o /dev/null
// (gen.mlir's input builders, dynamically shaped, are kernels of their
// own: gen*_kernel.)
// RUN: ls %t/odd | grep -v '^gen' | FileCheck %s --check-prefix=FILES
// FILES: forward_kernel.0.spv
// FILES-EMPTY:
// RUN: cat %S/../../Integration/CPU/odd-shapes.mlir %S/../../Integration/CPU/Inputs/gen.mlir \
// RUN:   | xpu-opt --xpu-spirv-pipeline="optimize=false dump-binaries=%t/odd-noopt" -o /dev/null
// RUN: ls %t/odd-noopt | grep -v '^gen' | FileCheck %s --check-prefix=NOOPT
// NOOPT: forward_kernel.0.spv
// NOOPT-NEXT: forward_kernel_0.0.spv
// NOOPT-EMPTY:
// RUN: spirv-val --target-env opencl2.2 %t/odd/forward_kernel.0.spv
// RUN: spirv-val --target-env opencl2.2 %t/odd-noopt/forward_kernel.0.spv
// RUN: spirv-val --target-env opencl2.2 %t/odd-noopt/forward_kernel_0.0.spv
// RUN: spirv-dis %t/odd/forward_kernel.0.spv | FileCheck %s --check-prefix=DIS
// DIS: OpCapability Kernel
// DIS: OpEntryPoint Kernel
// DIS: OpExecutionMode %{{.*}} SubgroupSize 16
// The tiled kernel stages its slices in workgroup memory and synchronizes.
// DIS: OpVariable %{{.*}} Workgroup
// DIS: OpControlBarrier

// GELU's erf becomes an OpenCL extended instruction (in the fused kernel;
// the other kernel is gen.mlir's input builder).
// RUN: cat %S/../../Integration/CPU/linear-bias-gelu.mlir %S/../../Integration/CPU/Inputs/gen.mlir \
// RUN:   | xpu-opt --xpu-spirv-pipeline="dump-binaries=%t/gelu" -o /dev/null
// RUN: %spirv-val-dir %t/gelu --expect 2
// RUN: spirv-dis %t/gelu/forward_kernel.0.spv | FileCheck %s --check-prefix=ERF
// ERF: OpExtInstImport "OpenCL.std"
// ERF: OpExtInst %float %{{[0-9]+}} erf

// A path that cannot be a directory is a located error, not a crash.
// RUN: touch %t/file
// RUN: cat %S/../../Integration/CPU/odd-shapes.mlir %S/../../Integration/CPU/Inputs/gen.mlir \
// RUN:   | not xpu-opt --xpu-spirv-pipeline="dump-binaries=%t/file/sub" -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ERR
// ERR: error: xpu-dump-gpu-binaries: cannot create directory '{{.*}}file{{/|\\}}sub'
