// `cmake --install` into a fresh prefix, then examples/downstream is
// configured and built against it with find_package(XPU CONFIG) and run on
// this file: its own driver runs xpu-optimize (built from C++ with the
// options struct) and, with --lower-gemms, its own conversion with
// populateXPUToLinalgConversionPatterns. The results must equal xpu-opt's.
// REQUIRES: xpu-plugin

// RUN: rm -rf %t && mkdir -p %t
// RUN: %cmake --install %xpu_obj_root --prefix %t/prefix > %t/install.log
// RUN: %cmake -G Ninja -S %xpu_src_root/examples/downstream -B %t/build \
// RUN:   -DCMAKE_MAKE_PROGRAM=%cmake_make_program \
// RUN:   -DCMAKE_CXX_COMPILER=%cmake_cxx_compiler \
// RUN:   -DCMAKE_PREFIX_PATH=%t/prefix > %t/configure.log
// RUN: FileCheck %s --check-prefix=CONFIGURE < %t/configure.log
// CONFIGURE: xpu {{[0-9.]+}} (LLVM/MLIR {{[0-9.]+}}) from {{.*}}/prefix/lib/cmake/xpu
// RUN: %cmake --build %t/build > %t/build.log

// Against an MLIR of another release, find_package(XPU) fails at configure
// time with the reason (Inputs/mlir-21 stands in for that MLIR).
// RUN: not %cmake -G Ninja -S %xpu_src_root/examples/downstream -B %t/build-21 \
// RUN:   -DCMAKE_MAKE_PROGRAM=%cmake_make_program \
// RUN:   -DCMAKE_CXX_COMPILER=%cmake_cxx_compiler \
// RUN:   -DCMAKE_PREFIX_PATH=%t/prefix -DMLIR_DIR=%S/Inputs/mlir-21 > %t/configure-21.log 2>&1
// RUN: FileCheck %s --check-prefix=MLIR21 < %t/configure-21.log
// MLIR21: Reason given by package:
// MLIR21: xpu {{[0-9.]+}} was built against LLVM/MLIR {{[0-9.]+}}
// MLIR21: 21.1.0

// RUN: %t/build/downstream-opt %s > %t/downstream.mlir
// RUN: xpu-opt %s --xpu-optimize > %t/xpu-opt.mlir
// RUN: diff %t/xpu-opt.mlir %t/downstream.mlir
// RUN: FileCheck %s --check-prefix=OPT < %t/downstream.mlir
// OPT-LABEL: func.func @forward(
// OPT:         xpu.gemm {{.*}} rhs_layout(nk)
// OPT-NOT:     linalg.matmul
// OPT:         return

// RUN: %t/build/downstream-opt %s --precision=bf16 --lower-gemms > %t/lowered.mlir
// RUN: xpu-opt %s --xpu-optimize=precision=bf16 --xpu-lower-to-linalg > %t/xpu-opt-lowered.mlir
// RUN: diff %t/xpu-opt-lowered.mlir %t/lowered.mlir
// RUN: FileCheck %s --check-prefix=LOWER < %t/lowered.mlir
// LOWER-LABEL: func.func @forward(
// LOWER-NOT:     xpu.gemm
// LOWER:         linalg.matmul {{.*}}bf16
// LOWER-NOT:     xpu.gemm

// The installed tools and plugin work from the prefix.
// RUN: %t/prefix/bin/xpu-opt --version | FileCheck %s --check-prefix=VERSION
// VERSION: xpu-opt {{[0-9]+\.[0-9]+\.[0-9]+}} (built against LLVM/MLIR {{[0-9]+\.[0-9]+\.[0-9]+}})
// RUN: mlir-opt --load-pass-plugin=%t/prefix/lib/XPUPlugin.so %s \
// RUN:   --pass-pipeline='builtin.module(xpu-optimize)' \
// RUN:   | diff %t/xpu-opt.mlir -

// Public headers only: the passes' internal utilities stay out.
// RUN: test -f %t/prefix/include/xpu/InitAll.h
// RUN: test -f %t/prefix/include/xpu/Pipelines/Pipelines.h
// RUN: test -f %t/prefix/include/xpu/Dialect/XPU/Transforms/Transforms.h
// RUN: test -f %t/prefix/include/xpu/Dialect/XPU/Transforms/Passes.h.inc
// RUN: test -f %t/prefix/include/xpu/Runtime/XPURuntime.h
// RUN: test -f %t/prefix/lib/cmake/xpu/XPUConfigVersion.cmake
// RUN: not test -e %t/prefix/include/xpu/Dialect/XPU/Utils
// RUN: not test -e %t/prefix/include/xpu/Config/BuildPaths.h
// Every installed header compiles with only the prefix and MLIR on the
// include path: none of them reaches into a header that is not installed.
// RUN: find %t/prefix/include -name '*.h' | sort \
// RUN:   | sed 's|^%t/prefix/include/\(.*\)$|#include "\1"|' > %t/all-headers.cpp
// RUN: FileCheck %s --check-prefix=HEADERS < %t/all-headers.cpp
// HEADERS-DAG: #include "xpu/InitAll.h"
// HEADERS-DAG: #include "xpu/Pipelines/Pipelines.h"
// HEADERS-DAG: #include "xpu/Dialect/XPU/Transforms/Transforms.h"
// HEADERS-DAG: #include "xpu/Conversion/XPUToLinalg/XPUToLinalg.h"
// RUN: %cmake_cxx_compiler -std=c++17 -fsyntax-only -I%t/prefix/include \
// RUN:   -I%mlir_include_dir %t/all-headers.cpp

func.func @forward(%x: tensor<8x16xf32>, %w: tensor<32x16xf32>, %b: tensor<32xf32>) -> tensor<8x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<16x32xf32>
  %wt = linalg.transpose ins(%w : tensor<32x16xf32>) outs(%e0 : tensor<16x32xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e1 : tensor<8x32xf32>) -> tensor<8x32xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<8x16xf32>, tensor<16x32xf32>) outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<8x32xf32>, tensor<32xf32>) outs(%e1 : tensor<8x32xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    %1 = arith.maximumf %0, %cst : f32
    linalg.yield %1 : f32
  } -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}
