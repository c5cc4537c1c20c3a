//===- Passes.td - xpu conversion passes -------------------*- tablegen -*-===//

#ifndef XPU_CONVERSION_PASSES_TD
#define XPU_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def XPULowerToLinalgPass : Pass<"xpu-lower-to-linalg"> {
  let summary = "Lower xpu.gemm and its epilogue to linalg on tensors";
  let description = [{
    The executable definition of the dialect. Each `xpu.gemm` becomes a zero
    `linalg.fill` of an accumulator tensor, a `linalg.matmul` (or
    `linalg.batch_matmul`) whose `indexing_maps` read the rhs in its layout,
    and, unless the epilogue is the identity, one elementwise
    `linalg.generic` whose body is the epilogue region, with each epilogue
    operand read through the indexing map of its broadcast kind.

    ```mlir
    %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32)
           epilogue(%b per_col : tensor<256xf32>) {
      ^bb0(%acc: f32, %bias: f32):
        %t = arith.addf %acc, %bias : f32
        xpu.yield %t : f32
    } : (tensor<64x128xf32>, tensor<256x128xf32>) -> tensor<64x256xf32>
    ```
    becomes `linalg.fill` + `linalg.matmul indexing_maps = [(m, k), (n, k),
    (m, n)]` + a `linalg.generic` with maps `(m, n) -> (m, n)`,
    `(m, n) -> (n)` and `(m, n) -> (m, n)` computing `acc + bias`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
  let statistics = [
    Statistic<"numLowered", "num-lowered", "xpu.gemm ops lowered to linalg">
  ];
}

def XPULinalgToGPULoopsPass : Pass<"xpu-linalg-to-gpu-loops"> {
  let summary = "Lower the GPU-mappable linalg ops on buffers to scf.parallel";
  let description = [{
    Rewrites every linalg op on buffers that a SPIR-V kernel can run to an
    `scf.parallel` nest (reductions stay sequential `scf.for` loops inside),
    ready for `scf-parallel-loop-tiling`, `gpu-map-parallel-loops` and
    `convert-parallel-loops-to-gpu`. An op qualifies when every operand is a
    statically shaped memref with the identity layout (bare-pointer kernel
    arguments carry no sizes or strides) and its payload calls no function.
    Other linalg ops are left alone for `convert-linalg-to-loops` on the
    host.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numMapped", "num-mapped", "linalg ops lowered to scf.parallel">
  ];
}

def XPUHostBuffersToGPUPass : Pass<"xpu-host-buffers-to-gpu"> {
  let summary = "Allocate host buffers as device-visible shared memory";
  let description = [{
    Kernels launched through the OpenCL runtime read and write their memref
    arguments through SVM pointers. This pass replaces every `memref.alloc`
    outside GPU code by a synchronous `gpu.alloc host_shared` (SVM, usable
    by the host and by kernels) and every `memref.dealloc` by a
    `gpu.dealloc` between `gpu.wait async` and `gpu.wait`, the async form
    that `gpu-to-llvm` lowers. Buffers that come from outside the module
    (arguments of the entry point) are not converted: the module must
    allocate the buffers it launches kernels on, as `@main` does.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
  let statistics = [
    Statistic<"numAllocs", "num-allocs", "memref.alloc ops made host_shared">
  ];
}

def XPUSetSPIRVEntryPointABIPass : Pass<"xpu-set-spirv-entry-point-abi",
                                        "::mlir::gpu::GPUModuleOp"> {
  let summary = "Set spirv.entry_point_abi on gpu.func kernels";
  let description = [{
    `convert-gpu-to-spirv` only converts kernels with a
    `spirv.entry_point_abi`. This pass sets it on every kernel of the
    gpu.module that has none, with the workgroup size from the kernel's
    `known_block_size` (set by `gpu-kernel-outlining` for constant launch
    sizes) when there is one. It also copies the module's SPIR-V target
    (from `spirv-attach-target`) to a `spirv.target_env` attribute, where
    conversions such as `convert-math-to-spirv` look for it.
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect"];
}

def XPUDumpGPUBinariesPass : Pass<"xpu-dump-gpu-binaries", "ModuleOp"> {
  let summary = "Write every gpu.binary object to a file";
  let description = [{
    For each object of each `gpu.binary` (after `gpu-module-to-binary`),
    writes its bytes to `<dir>/<binary>.<index>.spv` (`.bin` for other
    targets) so that users can run spirv-val, spirv-dis or ocloc on the
    kernels. The IR is not changed. A file that cannot be written is an
    error at the binary's location.
  }];
  let options = [
    Option<"dir", "dir", "std::string", /*default=*/"\".\"",
           "Directory the binaries are written to (must exist)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

#endif // XPU_CONVERSION_PASSES_TD
