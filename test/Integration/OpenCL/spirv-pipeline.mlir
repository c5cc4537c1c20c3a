// xpu-spirv-pipeline: every GEMM of @forward becomes a tiled kernel
// (convert-xpu-to-gpu), the other statically shaped linalg ops become
// one-thread-per-element kernels; each is OpenCL SPIR-V in its own
// gpu.binary, launched with bare pointers; the host allocates shared memory
// through the runtime. The dynamically shaped generator is a kernel too,
// its work-items counted from its size at run time.

// RUN: xpu-opt %s --xpu-spirv-pipeline | FileCheck %s
// RUN: xpu-opt %s --xpu-spirv-pipeline=optimize=false | FileCheck %s --check-prefix=NOOPT

// With xpu-optimize, bias + ReLU are fused into the GEMM: one kernel, whose
// workgroups are the 3 x 1 tiles of 8x16 that pvc's strategy picks for
// 20x10x12, 16 threads each.
// CHECK-LABEL: llvm.func @forward(
// CHECK: llvm.call @mgpuMemAlloc
// CHECK: %[[S:.*]] = llvm.call @mgpuStreamCreate()
// CHECK: gpu.launch_func <%[[S]] : !llvm.ptr> @forward_kernel::@forward_kernel blocks in (%[[T:.*]], %[[ONE:.*]], %[[ONE]]) threads in (%[[L:.*]], %[[ONE]], %[[ONE]]) : i64 args({{.*}}!llvm.ptr
// CHECK-NOT: gpu.launch_func
// CHECK: llvm.call @mgpuStreamSynchronize(%[[S]])
// CHECK: gpu.binary @forward_kernel [#gpu.object<#spirv.target_env<#spirv.vce<v1.1, [Addresses, Float16, Float16Buffer, Float64, Int8, Int16, Int64, Kernel, SubgroupDispatch, DeviceEnqueue], []>
// The generator has a dynamic shape: a kernel of 256 work-items per
// workgroup, ceil(n / 256) of them (at least one), n passed to it.
// CHECK-LABEL: llvm.func @gen(
// CHECK-SAME: %[[N:.*]]: i64)
// CHECK: llvm.call @mgpuMemAlloc
// CHECK-NOT: llvm.call @malloc
// CHECK: gpu.launch_func <%{{.*}} : !llvm.ptr> @gen_kernel::@gen_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) : i64 args(%[[N]] : i64
// CHECK: gpu.binary @gen_kernel
// CHECK-NOT: gpu.binary

// Without it, the GEMM kernel and an elementwise kernel for bias + ReLU.
// NOOPT-LABEL: llvm.func @forward(
// The two launches go to one stream (xpu-async-launches) and the host
// waits once, after both, before it frees the GEMM's buffer.
// NOOPT: %[[S:.*]] = llvm.call @mgpuStreamCreate()
// NOOPT-NOT: mgpuStreamSynchronize
// NOOPT: gpu.launch_func <%[[S]] : !llvm.ptr> @forward_kernel::@forward_kernel
// NOOPT-NOT: mgpuStreamSynchronize
// NOOPT: gpu.launch_func <%[[S]] : !llvm.ptr> @forward_kernel_0::@forward_kernel
// NOOPT-NEXT: llvm.call @mgpuStreamSynchronize(%[[S]])
// NOOPT: llvm.call @mgpuMemFree
// NOOPT-NOT: gpu.launch_func
// NOOPT-COUNT-2: gpu.binary @forward_kernel{{[_0-9]*}} [#gpu.object<#spirv.target_env<#spirv.vce<v1.1, [Addresses, Float16, Float16Buffer, Float64, Int8, Int16, Int64, Kernel, SubgroupDispatch, DeviceEnqueue], []>
// NOOPT: gpu.binary @gen_kernel
// NOOPT-NOT: gpu.binary

#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<20x12xf32>, %w: tensor<12x10xf32>, %b: tensor<10xf32>) -> tensor<20x10xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<20x10xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<20x10xf32>) -> tensor<20x10xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<20x12xf32>, tensor<12x10xf32>) outs(%z : tensor<20x10xf32>) -> tensor<20x10xf32>
  %y = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<20x10xf32>, tensor<10xf32>) outs(%e : tensor<20x10xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    %1 = arith.maximumf %0, %cst : f32
    linalg.yield %1 : f32
  } -> tensor<20x10xf32>
  return %y : tensor<20x10xf32>
}

func.func @gen(%n: index) -> tensor<?xf32> {
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%e : tensor<?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    %f = arith.sitofp %c : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
