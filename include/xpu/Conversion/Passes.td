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

def XPUCheckElementTypesPass : Pass<"xpu-check-element-types", "ModuleOp"> {
  let summary = "Reject, at the op, element types that no pipeline lowers";
  let description = [{
    Every pipeline (`xpu-cpu-pipeline`, `xpu-spirv-pipeline`,
    `xpu-xe-pipeline`, `xpu-nvvm-pipeline`) runs this check first, so that
    bad input is one error at the op that causes it, not a failure deep in a
    conversion with an LLVM verifier error without a location (an i8 x i8
    `linalg.matmul` into an f8 result gave "'llvm.sitofp' op result #0 must
    be floating point" from `xpu-xe-pipeline`). On `xpu.gemm` and every
    linalg op:

    * no 8-bit or narrower float type (f8E4M3FN, f8E5M2, ...: no target of
      the pipelines computes in them) and no signed or unsigned integer
      type (si8, ui8: arith takes signless integers, so mixed signedness
      has no lowering either);
    * a contraction (`xpu.gemm`, linalg ops with the contraction interface:
      `linalg.matmul`, `linalg.batch_matmul`, ...) multiplies two float
      operands (of one type, unless `mixed-float-operands`: the GPU
      pipelines run such GEMMs as generic kernels, the CPU vectorization
      cannot) or two integer operands, and an integer contraction has an
      integer result, a float one a float result;
    * no unsigned integer operands in a named contraction
      (`cast = #linalg.type_fn<cast_unsigned>`): the CPU vectorization
      extends them as signed, so it is refused everywhere; a
      `linalg.generic` with `arith.extui` (mixed signedness included) is
      lowered faithfully by every pipeline.

    Anything else is left alone; the first violation is an error at the
    op's location that names the types and says what to change.
  }];
  let options = [
    Option<"mixedFloatOperands", "mixed-float-operands", "bool",
           /*default=*/"false",
           "Accept contractions of two different float operand types">
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def XPUScheduleGemmPass : Pass<"xpu-schedule-gemm", "::mlir::func::FuncOp"> {
  let summary = "Turn each configured xpu.gemm into programs, tiles and K "
                "ranges (the schedule layer shared by every GPU backend)";
  let description = [{
    Catalog: persistent_kernel_patterns (persistent_kernel_basic_tile_loop,
    persistent_kernel_autotuned_num_progs, streamk_two_wave_decomposition,
    streamk_mac_loop_partial_tile, streamk_iteration_distribution),
    streamk_output_must_be_prezeroed, streamk_atomic_add_needs_mask and the
    GROUP_SIZE_M swizzle. Works on tensors, before bufferization; every
    `xpu.gemm` must carry a `#xpu.config` (`xpu-select-strategy`).

    The host side, written once for every backend: the operands as buffers
    (`bufferization.to_buffer`; a view that `xpu-materialize-layouts` left,
    a row pitch, padded batch rows or an epilogue panel, is read through to
    the packed tensor), the result buffer (64-byte aligned, with the row
    pitch and, batched, the batch slabs the config's backend needs), for
    Stream-K the f32 workspace (zeroed for the atomic fix-up), and
    `bufferization.to_tensor` of the result (sliced back to the logical
    shape).

    The device side, as programs: an `scf.forall` over the program ids with
    the `#gpu.block<x>` mapping, whose body computes each tile's origin
    (batch, GROUP_SIZE_M-swizzled tile row and column) and K range and calls
    `xpu.gemm_tile` (one workgroup, one tile) or `xpu.gemm_fixup`:

    * `data_parallel`: one program per tile, K range `[0, k)`;
    * `persistent<programs = P>`: `min(P, tiles)` programs, each looping
      over tiles with stride P;
    * `stream_k<programs = P>`: the data-parallel waves as in the persistent
      schedule, then each program's even share of the split tiles' K-steps,
      one `xpu.gemm_tile partial` (or `atomic_add`) per piece; a second
      `scf.forall` has one program per split tile that sums its pieces in a
      fixed order and applies the epilogue once (`xpu.gemm_fixup`).
      Nothing waits on another program, so no schedule can deadlock,
      whatever the number of workgroups the device runs at once.

    A program count of 0 means the workgroups the target (`#xpu.target`)
    runs at once, counted with the config's backend's needs
    (`getResidentWorkgroups`: shared memory, hardware threads or warps and,
    for NVIDIA wgmma, the setmaxnreg register split). Each GEMM gets a remark with the plan's numbers. A GEMM
    without a config is an error.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::xpu::XPUDialect"];
  let statistics = [
    Statistic<"numScheduled", "num-scheduled", "xpu.gemm ops scheduled">
  ];
}

def XPUConvertXPUToGPUPass : Pass<"convert-xpu-to-gpu",
                                  "::mlir::func::FuncOp"> {
  let summary = "Lower the GEMM programs of xpu-schedule-gemm to SIMT "
                "kernels (the portable tile emitter)";
  let description = [{
    The SIMT backend of the schedule layer: every `scf.forall` of GEMM
    programs (`xpu-schedule-gemm`) becomes a `gpu.launch` with one workgroup
    per program, and every `xpu.gemm_tile` / `xpu.gemm_fixup` in it becomes
    the code one workgroup runs on one tile, for the generic SPIR-V path
    (and any target of the gpu dialect):

    * `subgroups[0] * subgroups[1] * lanes` threads per workgroup, `lanes`
      being the target's first subgroup size; each subgroup owns a block of
      the tile and its lanes split the block along n first (neighbouring
      lanes, neighbouring columns): every thread keeps an `rm x rn` register
      micro-tile of accumulators across the K loop;
    * every K-step of the tile's K range stages a `tile[0] x tile[2]` slice
      of A and a `tile[2] x tile[1]` slice of B (transposed on the way in
      for `rhs_layout(nk)`) in shared local memory, copied by all threads
      with coalesced reads; with `stages >= 2` two buffers let the copy of
      the next slice precede the products of the current one, with one
      barrier per step;
    * `output` tiles and fix-ups apply the epilogue region to every
      accumulator before the store, with per-row, per-column, full and
      scalar operands read at the element's coordinates; `partial` tiles
      store their f32 accumulators to their workspace slot; `atomic_add`
      tiles add them with float atomics, masked at the edges of `m x n`;
      fix-ups sum their slots in slot order;
    * loads and stores are masked only along the dimensions that the tile
      does not divide (out-of-range A and B elements read as zero);
    * buffers are read flat (collapsed on the host before the launch) and
      element offsets are computed in i64 whenever an index into some
      buffer (padded to whole tiles) can pass 2^31, in i32 otherwise.

    Every kernel is described in a remark. An `xpu.gemm` left unscheduled, a
    config for another backend, or one that does not split into whole
    micro-tiles (or needs more than 256 accumulators or 1024 threads) is an
    error.
  }];
  let options = [
    Option<"allowBF16", "allow-bf16", "bool", /*default=*/"true",
           "Kernels may use bf16 (false for OpenCL SPIR-V, which has no bf16 "
           "type: a bf16 GEMM is then an error)">,
    Option<"floatAtomics", "float-atomics", "bool", /*default=*/"true",
           "Kernels may use float atomic adds (false for OpenCL 1.2 SPIR-V, "
           "which has none: an atomic Stream-K fix-up is then an error)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numKernels", "num-kernels", "GEMM kernels generated">
  ];
}

def XPULinalgToGPULoopsPass : Pass<"xpu-linalg-to-gpu-loops"> {
  let summary = "Lower the GPU-mappable linalg ops on buffers to kernels "
                "with full workgroups";
  let description = [{
    Rewrites every linalg op on buffers that a SPIR-V kernel can run into a
    `gpu.launch` whose workgroups have 32 to 256 work-items (never one):

    * a copy whose input swaps the last two dimensions (`linalg.transpose`
      of a matrix or a batch of them, both sides at least 32): one
      workgroup of 128 work-items per 32x32 tile of the output, staged
      through a 32x33 shared-memory buffer of integers as wide as the
      elements, so that reads go along the input's rows and writes along
      the output's (both coalesced);
    * no reduction loop (elementwise ops, other transposes, broadcasts,
      fills, copies: the pack kernels): one work-item per iteration of the
      flattened iteration space, innermost loop fastest, so neighbouring
      work-items touch neighbouring elements (coalesced);
    * a reduction over at least 32 elements per output whose body ends in
      an associative combiner (`addf`, `mulf`, `maximumf`, `minimumf`,
      `maxnumf`, `minnumf` and the integer ones) of the output: softmax's
      max and sum, logsumexp, row sums, normalization statistics. One
      workgroup per output element: its work-items stride over the reduced
      elements from the combiner's identity, combine their partial results
      in shared local memory (a tree of halvings, one barrier per level),
      and the first work-item combines the total with the output's
      initial value. With `subgroup-size=S` (a target whose subgroups of S
      lanes reduce with shuffles: the NVVM pipeline sets 32), each
      subgroup first reduces its lanes' partials with
      `gpu.subgroup_reduce`, its first lane writes one value per subgroup
      to shared memory, and after one barrier the first subgroup reduces
      those: one barrier instead of one per level;
    * other reductions (contractions such as the baseline GEMMs of
      `gemm-kernels=false`, short or unrecognized ones): one work-item per
      output element with the reduction loops inside.

    An op qualifies when every operand is a statically shaped memref with
    the identity layout (bare-pointer kernel arguments carry no sizes or
    strides), or with `dynamic-shapes` one whose leading dimension alone is
    dynamic (the sizes are read on the host and passed), and its payload calls no function and has no side effects
    other than `cf.assert` guards directly in the body (torch-mlir's
    "tensor with zero element" check of BatchNorm's `1/sqrt(var + eps)`):
    each becomes a device flag (`memref<Nxi32>`, one per guard, zeroed by
    `gpu.memset`) that the kernel sets to 1 where the condition fails;
    after the kernel the host copies the flags to a host buffer
    (`gpu.memcpy`) and asserts on each with the guard's message and
    location, so the host reads no operand of the op. 0-d ops are kernels
    of one work-item. Host `memref.copy` ops between contiguous buffers
    become `gpu.memcpy` (between `gpu.wait async` and `gpu.wait`); with
    `strided-copies`, those between statically shaped views with static
    strides and offsets become `linalg.copy` kernels too, and a bufferized
    `tensor.pad` (a fill of the whole padded buffer, then a copy of the
    source into a box of it, remark `FusedPad`) becomes one kernel over the
    buffer that loads the source inside the box and writes the padding
    outside it; where the source is an elementwise `linalg.generic`'s
    buffer that only the pad reads, the kernel applies that generic's
    payload to its inputs instead, and the generic and its buffer go. Other linalg ops
    (dynamic shapes, calls in the body) are left alone for
    `convert-linalg-to-loops` on the host, where
    `xpu-verify-no-host-device-access` rejects them if they touch device
    memory. With `allow-bf16=false` (OpenCL SPIR-V has no bf16 type) ops
    that touch bf16 stay on the host too. Every kernel is described in a remark (its kind, workgroups and
    work-items, and for a reduction its combiner and length, or why it
    is reduced in a loop).
  }];
  let options = [
    Option<"allowBF16", "allow-bf16", "bool", /*default=*/"true",
           "Map ops that read or write bf16">,
    Option<"subgroupSize", "subgroup-size", "int64_t", /*default=*/"0",
           "Lanes of a subgroup for gpu.subgroup_reduce in row reductions "
           "(0: shared memory only; else a power of two from 2 to 32)">,
    Option<"stridedCopies", "strided-copies", "bool", /*default=*/"false",
           "Also map host memref.copy ops between statically shaped views "
           "with static strides (the copy into the interior of a padded "
           "buffer that a bufferized tensor.pad leaves) to kernels, one "
           "work-item per element, instead of leaving them to the host's "
           "memrefCopy; their kernels take strided memrefs (NVVM: static "
           "strides are bare pointers too)">,
    Option<"stridedOperands", "strided-operands", "bool", /*default=*/"false",
           "Also map linalg ops whose operands are statically shaped views "
           "with static strides and offsets (a GEMM result with a row "
           "pitch, sliced to its logical shape) to kernels">,
    Option<"dynamicShapes", "dynamic-shapes", "bool", /*default=*/"false",
           "Also map ops whose operands have a dynamic leading dimension "
           "(a batch known at run time; their strides stay static, which "
           "SPIR-V kernels' pointers need): the loop ranges are read on the "
           "host, the workgroups counted at run time (256 work-items "
           "each), and a reduction over a dynamic length runs in a loop">,
    Option<"vectorize", "vectorize", "bool", /*default=*/"false",
           "Elementwise ops whose operands are contiguous along the "
           "innermost loop: one work-item per 16 bytes of the widest "
           "operand (at most 8 elements), read and written as vectors "
           "where the buffers are aligned to them (checked in the kernel; "
           "element by element otherwise)">
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numMapped", "num-mapped", "linalg ops lowered to kernels">,
    Statistic<"numRowReductions", "num-row-reductions",
              "reductions given one workgroup per output element">,
    Statistic<"numTransposes", "num-transposes",
              "transposes staged through shared memory in square tiles">,
    Statistic<"numGuardedKernels", "num-guarded-kernels",
              "kernels whose cf.assert guards the host checks on flags">,
    Statistic<"numFusedPads", "num-fused-pads",
              "bufferized pads (fill, then copy) fused into one kernel">,
    Statistic<"numMemcpys", "num-memcpys",
              "host copies between contiguous buffers made gpu.memcpy">
  ];
}

def XPUWorkgroupAllocsToGlobalsPass
    : Pass<"xpu-workgroup-allocs-to-globals", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Turn workgroup memref.alloc in kernels into workgroup "
                "globals of the gpu.module";
  let description = [{
    The XeVM kernel lowering (LLVM's SPIR-V backend) has no lowering of
    `memref.alloc` in the workgroup address space (it becomes a `malloc`
    call), and `convert-gpu-ops-to-llvm-spv` passes workgroup
    attributions as kernel arguments that the runtimes do not set. For every
    statically shaped, identity-layout `memref.alloc` in address space 3 at
    the top level of a kernel's body (the shared local memory of
    `xpu-linalg-to-gpu-loops`' row reductions), this pass adds a private,
    uninitialized `memref.global` of that type to the gpu.module, replaces
    the allocation by its `memref.get_global` and drops its deallocations:
    an OpenCL `__local` array, one per workgroup.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numGlobals", "num-globals", "workgroup allocations made globals">
  ];
}

def XPUAsyncLaunchesPass : Pass<"xpu-async-launches"> {
  let summary = "Chain kernel launches on async tokens; wait only where the "
                "host needs the results";
  let description = [{
    A synchronous `gpu.launch_func` waits for its kernel, so a forward pass
    of several kernels would block the host after each one
    (no_device_to_host_scalar_sync). In every block outside GPU modules,
    this pass makes the launches asynchronous, chained on one token that
    starts with `gpu.wait async`, and inserts a single `gpu.wait` on the
    last token before the first operation that reads or writes memory
    (allocating does not count: buffers for later kernels are allocated
    while earlier ones run) or before the block's terminator. Launches that
    are already asynchronous are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
  let statistics = [
    Statistic<"numLaunches", "num-launches", "launches made asynchronous">,
    Statistic<"numWaits", "num-waits", "host waits inserted">
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
    allocate the buffers it launches kernels on, as `@main` does, or its
    caller passes device-visible ones (xpu-run and the Python package do).
    Every `memref.get_global` of a constant (weights folded at compile
    time) is followed by a `gpu.host_register` of it: the runtime gives
    kernels that read it a device-visible copy, made once.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numAllocs", "num-allocs", "memref.alloc ops made host_shared">,
    Statistic<"numConstants", "num-constants",
              "constant globals registered with gpu.host_register">
  ];
}

def XPUVerifyNoHostDeviceAccessPass
    : Pass<"xpu-verify-no-host-device-access", "ModuleOp"> {
  let summary = "Reject host code that reads or writes device memory";
  let description = [{
    On a GPU target the caller's buffers (PyTorch CUDA tensors, Level Zero
    device allocations, OpenCL buffers) and device allocations are not
    host memory: a host load from them crashes on plain device memory,
    while managed memory and OpenCL SVM hide the bug. Every GPU pipeline
    runs this pass after buffer placement (`xpu-host-buffers-to-gpu`,
    `xpu-cuda-buffers`) and before the host is lowered to the LLVM dialect,
    the last point where every host access is an op on a memref whose
    origin is known; the lowering after it adds no access of its own.

    A memref is host-visible when every definition it may come from
    (through views, casts, `scf.if` / `scf.for` results, `arith.select`,
    calls of functions of the module and the arguments of private
    functions, from all their call sites) is a `memref.alloc` or
    `memref.alloca` in host code, a `memref.get_global` (host constants,
    registered for the kernels) or a `gpu.alloc host_shared` (shared or
    managed memory a pipeline chose because host code touches the buffer).
    Anything else is device memory: the arguments of public functions, a
    `gpu.alloc` without `host_shared`, the results of external functions,
    and values of unknown origin.

    A host access is an op outside GPU code with a read or write effect on
    a memref (`memref.load`/`store`, `memref.copy`, linalg ops, vector
    transfers), a call of an external function with a memref operand, or an
    op with memref operands and unknown effects. Runtime ops (`gpu.*`:
    launches, `gpu.memcpy`, `gpu.memset`, `gpu.dealloc`), `memref.dealloc`,
    and ops that read only a buffer's address and shape
    (`memref.extract_aligned_pointer_as_index`,
    `memref.extract_strided_metadata`, `nvgpu.tma.create.descriptor`) are
    not. Each host access of device memory is an error at the op's
    location, with a note at the origin of the memory.

    ```mlir
    func.func @f(%w: memref<48xf32>) -> f32 {
      %c0 = arith.constant 0 : index
      // error: host code reads device memory: 'memref.load' on argument #0
      // of @f (a caller's buffer: device memory on a GPU target)
      %v = memref.load %w[%c0] : memref<48xf32>
      return %v : f32
    }
    ```
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
  let statistics = [
    Statistic<"numAccesses", "num-accesses", "host accesses of memrefs checked">
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

    With a target (the module's `#xpu.target`, from `xpu-attach-target`;
    none when it is absent), every kernel also gets the target's
    first subgroup size, the one `convert-xpu-to-gpu` lays its tiles out for
    (16 on pvc and bmg). `spirv-lower-abi-attrs` turns it into
    `OpExecutionMode SubgroupSize`, which needs SPIR-V 1.1 and the
    `SubgroupDispatch` capability: without them in the target environment
    the subgroup size is left out with a missed remark. Without a subgroup
    size, Intel's compiler picks the SIMD width itself (SIMD32 for most
    kernels), so that the register plan of the strategy does not hold.
  }];
  let dependentDialects = ["::mlir::spirv::SPIRVDialect",
                           "::mlir::xpu::XPUDialect"];
}

def XPUSPIRVLegalizeHugeMemRefsPass
    : Pass<"xpu-spirv-legalize-huge-memrefs", "ModuleOp"> {
  let summary = "Give kernel memref arguments of more than 2^31 - 1 "
                "elements a dynamic leading dimension for SPIR-V";
  let description = [{
    `convert-gpu-to-spirv` (MLIR 22.1.8) types a statically shaped memref
    of an OpenCL kernel as a pointer to an array whose length it holds in
    32 bits: a 65536 x 65536 result (2^32 elements) became an array of
    length 0, invalid SPIR-V. A dynamically shaped memref is a pointer to
    its element, without a length. For every kernel argument (`gpu.func`
    with `kernel`) with more than 2^31 - 1 elements, this pass makes the
    leading dimension dynamic, keeping the strides and offset static (an
    identity layout becomes the equivalent explicit strided layout), and
    casts the operand of every `gpu.launch_func` of the kernel
    (`memref.cast`). A kernel whose ops need the static shape fails to
    verify, at its location. `xpu-spirv-pipeline` runs it before
    `convert-gpu-to-spirv`.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numRelaxed", "num-relaxed", "kernel arguments made dynamic">
  ];
}

def XPUBoundDynamicKernelMemRefsPass
    : Pass<"xpu-bound-dynamic-kernel-memrefs", "ModuleOp"> {
  let summary = "Give kernel memref arguments with a dynamic leading "
                "dimension a static bound, for bare-pointer kernels";
  let description = [{
    A bare-pointer kernel (the NVVM pipeline's) takes statically shaped
    memrefs only: the callee rebuilds the descriptor from the static shape.
    The kernels over a dynamic batch (`xpu-linalg-to-gpu-loops`
    `dynamic-shapes`, the SIMT GEMM tiles with a `rows` operand) read their
    sizes from index arguments and use a memref argument only through its
    strides and offset. For every kernel argument (`gpu.func` with
    `kernel`) whose leading dimension alone is dynamic, with static strides
    and offset, this pass makes that dimension a static bound that no
    buffer reaches (at most 2^31 - 1 rows: the grid's limit), keeping the
    layout, and reinterprets the operand of every `gpu.launch_func` of the
    kernel with that shape (`memref.reinterpret_cast`). Where the kernel
    reads such a dimension (a `memref.dim` that outlining sank into it) the
    size becomes an index argument of its own, appended to the kernel's
    arguments and read on the host at each launch: the bound is not the
    size. `xpu-nvvm-pipeline` runs it after outlining.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
  let statistics = [
    Statistic<"numBounded", "num-bounded",
              "kernel arguments given a static leading dimension">
  ];
}

def XPUGuardZeroTripLoopsPass : Pass<"xpu-guard-zero-trip-loops"> {
  let summary = "Give loops with results a guard, so that a loop that runs "
                "zero times returns its init values after SPIR-V conversion";
  let description = [{
    Upstream's `scf.for` to SPIR-V lowering (MLIR 22.1.8) returns a loop's
    results through a function-storage variable that only the loop body
    writes, so a loop that runs zero times returns an uninitialized value
    (a Stream-K fix-up of a tile with one piece sums zero more slots: its
    result came back as garbage on PoCL). This pass rewrites every `scf.for`
    with results whose trip count is not provably positive into `scf.if (lb
    < ub)` around the loop, yielding the init values otherwise; the loop
    inside then always runs. Loops without results and loops with constant
    bounds that run are left alone. `xpu-spirv-pipeline` runs it on the
    kernels before `convert-gpu-to-spirv`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numGuarded", "num-guarded", "scf.for ops put under a guard">
  ];
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
           "Directory the binaries are written to (created if missing)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def XPUConvertXPUToXeGPUPass : Pass<"convert-xpu-to-xegpu", "ModuleOp"> {
  let summary = "Lower the GEMM programs of xpu-schedule-gemm to "
                "workgroup-level XeGPU kernels (2D block descriptors, "
                "prefetch, DPAS, fused epilogue)";
  let description = [{
    Catalog: mem_block_pointers and the descriptor patterns,
    descriptor_no_boundary_check_arg, grf_mode. The Intel Xe backend of the
    schedule layer: every `scf.forall` of GEMM programs (`xpu-schedule-gemm`,
    configs with `#xpu.xe` knobs) becomes a `gpu.func` kernel in its own
    `gpu.module` (one workgroup per program, launched by `gpu.launch_func`),
    and every `xpu.gemm_tile` / `xpu.gemm_fixup` in it becomes
    workgroup-level XeGPU. The operands must be in the layout
    `xpu-materialize-layouts` gives them (f16/bf16 operands, a `[k, n]` rhs,
    2D block pitches, batch slabs of whole 64-byte blocks, epilogue
    panels); otherwise it is an error naming that pass. Per tile:

    * `xegpu.create_nd_tdesc` on the base address (batch offsets computed in
      i64 from the buffer's slab) with the logical rows and the logical
      columns widened to the narrowest legal 2D block width (>= 64 bytes,
      a multiple of 4) over the zero padding of the rows, so the
      descriptors zero-fill reads and drop writes outside the matrix (M, N
      and K tails, both A and B, so padded products vanish) and every 2D
      block message meets `cl_intel_subgroup_2d_block_io`'s restrictions;
    * `xegpu.prefetch_nd` `stages - 1` K-steps ahead of the tile's K range;
      a K loop over the range of `load_nd` A and B and `xegpu.dpas`;
    * `output`: the epilogue region applied to the accumulator vector (panel
      operands read with its layout), `store_nd` of the tile; `partial`:
      `store_nd` of the f32 accumulators to the workspace slot; fix-ups load
      the slots in slot order, add, apply the epilogue and store. The
      atomic Stream-K fix-up is not available (block stores are not
      atomic).

    Layouts come from the config: `sg_layout` = subgroups, `sg_data` = the
    subgroup's block, `inst_data` = the DPAS shape (A 8x16, B 16x16 packed
    by the lowering, C 8x16). The module carries `#xevm.target<chip =
    ...>`, with the large register file option
    (`-ze-opt-large-register-file`) when the config's `#xpu.xe` grf_mode is
    256. Every kernel is a remark under `convert-xpu-to-xegpu`.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::xegpu::XeGPUDialect",
                           "::mlir::xevm::XeVMDialect"];
  let statistics = [
    Statistic<"numKernels", "num-kernels", "GEMM kernels generated">
  ];
}

def XPUEmbedXeBuildOptionsPass : Pass<"xpu-embed-xe-build-options", "ModuleOp"> {
  let summary = "Record each Xe kernel's compiler options inside its SPIR-V";
  let description = [{
    After `gpu-module-to-binary`: the options of an `#xevm.target`
    (`flags = {"cmd-options" = [...]}`, e.g. `-ze-opt-large-register-file`
    for a 256-GRF kernel) only reach `ocloc`; a SPIR-V object compiled at
    load time by Level Zero would lose them. This pass writes them into the
    SPIR-V module itself as `OpModuleProcessed "xpu.build-options: <opts>"`
    (a debug instruction every consumer may ignore; the module stays valid),
    and the xpu Level Zero runtime passes them to `zeModuleCreate` as build
    flags (the OpenCL runtime to `clBuildProgram` on Intel devices).

    With a target (the module's `#xpu.target`, from `xpu-attach-target`;
    none when it is absent) of the Intel vendor, the generic
    SPIR-V objects (`#spirv.target_env`, from `xpu-spirv-pipeline`) get the
    GRF mode the register model plans for SIMT kernels
    (`getGenericKernelGrfMode`: 256, `-ze-opt-large-register-file`, on pvc
    and bmg, where every SIMT GEMM kernel needs more than 128 registers at
    SIMD16). Objects without options, or that are not SPIR-V, are left
    alone; a malformed SPIR-V object is an error at the binary.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::xpu::XPUDialect"];
}

def XPUXeApproximateMathPass
    : Pass<"xpu-xe-approximate-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Replace math ops without an XeVM lowering by polynomial "
                "approximations in kernels";
  let description = [{
    `math.erf` and `math.erfc` have neither an LLVM intrinsic nor an XeVM
    lowering, so a kernel that computes them (GELU in an unfused epilogue,
    a SIMT kernel of `xpu-linalg-to-gpu-loops`) could not be serialized.
    This pass rewrites them in every function of the gpu.module into the
    polynomial approximations that `convert-xpu-to-xegpu` applies to the
    GEMM epilogues (`populateXPUXeEpilogueMathPatterns`). `xpu-xe-pipeline`
    runs it on every kernel before the XeVM lowering.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect"];
}

def XPUMergeKernelModulesPass
    : Pass<"xpu-merge-kernel-modules", "ModuleOp"> {
  let summary = "Move the kernels of gpu.modules with the same targets into "
                "one gpu.module";
  let description = [{
    LLVM 22.1.8's SPIR-V backend, which serializes XeVM kernels, keeps its
    module analysis in static state shared by every module it translates in
    a process (llvm-project issue 160613, fixed after 22.1.8): with one
    `gpu.module` per outlined kernel (`gpu-kernel-outlining`), some modules
    came out of `xpu-xe-pipeline` with an id defined twice (spirv-val:
    "Id N is defined more than once"), a different one from run to run.
    This pass moves every symbol of the gpu.modules whose names match
    `module-matcher` into the first of them with the same `targets`, names
    each kernel after the module it came from (outlined modules are unique,
    their kernels are all `<fn>_kernel`), renames other symbols whose name
    is taken, and points the `gpu.launch_func` ops at the merged kernels.
  }];
  let options = [
    Option<"moduleMatcher", "module-matcher", "std::string",
           /*default=*/"\".*\"",
           "Regular expression the names of the modules to merge match">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
  let statistics = [
    Statistic<"numMerged", "num-merged", "gpu.modules merged into another">
  ];
}

def XPUXeVMKernelSubgroupSizePass
    : Pass<"xpu-xevm-kernel-subgroup-size", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Give every XeVM kernel without one the target's subgroup "
                "size";
  let description = [{
    In `xpu-xe-pipeline`, after the kernels are in the LLVM dialect: every
    `spir_kernelcc` function of the gpu.module without an
    `intel_reqd_sub_group_size` gets the first subgroup size of the
    module's `#xpu.target` (16 on pvc and bmg), which becomes
    `OpExecutionMode SubgroupSize`. Without it Intel's compiler picks the
    SIMD width itself (SIMD32 for the SIMT kernels of
    `xpu-linalg-to-gpu-loops`). Nothing changes without a target.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
  let statistics = [
    Statistic<"numKernels", "num-kernels", "kernels given a subgroup size">
  ];
}

def XPUXeVMLegalizeBF16Pass
    : Pass<"xpu-xevm-legalize-bf16", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Give bf16 loads, stores and conversions of XeVM kernels a "
                "16-bit integer form";
  let description = [{
    LLVM's SPIR-V backend, which serializes XeVM kernels, has no bfloat
    type without the `SPV_KHR_bfloat16` extension and stops with a fatal,
    unlocated error on the first one. In `xpu-xe-pipeline` the SIMT kernels
    of `xpu-linalg-to-gpu-loops` move bf16 data (weights converted at pack
    time, bf16 results). After the kernels are in the LLVM dialect, this
    pass rewrites, in every function of the gpu.module:

    * `llvm.load` / `llvm.store` of bf16 (or vectors of it) into loads and
      stores of i16 (constants stored as their bits);
    * `llvm.fpext` bf16 -> f32 into a zero extension and a shift by 16;
    * `llvm.fptrunc` f32 -> bf16 into integer rounding to nearest even
      (add `0x7fff` plus the lowest kept bit, keep the high half), NaNs
      becoming the quiet NaN `0x7fc0`;

    and folds the bitcast pairs this leaves. bf16 arithmetic must be
    emulated in f32 before (`arith-emulate-unsupported-floats`). Any other
    op on bf16 left in a kernel is an error at its location.

    Before: `%v = llvm.load %p : !llvm.ptr<1> -> bf16`,
            `%f = llvm.fpext %v : bf16 to f32`
    After:  `%v = llvm.load %p : !llvm.ptr<1> -> i16`,
            `%w = llvm.zext %v : i16 to i32`, `%s = llvm.shl %w, 16`,
            `%f = llvm.bitcast %s : i32 to f32`
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def XPUXeGPULegalizeSlicedVectorsPass
    : Pass<"xpu-xegpu-legalize-sliced-vectors", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Make the sliced 1-D vectors that xegpu-blocking leaves "
                "distributable to lanes";
  let description = [{
    Between `xegpu-blocking` and `xegpu-propagate-layout{layout-kind=lane}`
    in the Xe kernel lowering (`xpu-xe-pipeline`). `convert-xpu-to-xegpu`
    reads a `per_col` epilogue operand as a row vector: a gather
    (`xegpu.load`) of `tn` columns at offsets `[0, 1, ..., tn - 1]` whose
    layout is the accumulator's without its row dimension
    (`#xegpu.slice<..., dims = [0]>`), broadcast to the accumulator. Upstream
    22.1.8 distributes that to subgroups and blocks it into 16-lane pieces,
    but leaves two things its lane distribution cannot take (the gather then
    stays undistributed and `convert-xegpu-to-xevm` fails, or the whole
    kernel stays in a `gpu.warp_execute_on_lane_0`):

    * temporary slice layouts (`layout_operand_<i>`, `layout_result_<i>`)
      that still carry `inst_data`: blocking drops those of plain
      `#xegpu.layout`s only, and lane propagation keeps what it finds. They
      are removed, and lane propagation assigns them from the anchors as it
      does for the others (anchor `layout`s and lane-level slices are left
      alone);
    * the offsets of each 16-lane piece as a constant `[k, k + 1, ...,
      k + 15]`: lane distribution distributes `vector.step` (to the lane
      id) but no such constant. Each becomes `vector.step` plus a splat of
      `k`. Other constants are left alone.

    Before: `%o = arith.constant {layout_result_0 = #xegpu.slice<
    #xegpu.layout<inst_data = [8, 16]>, dims = [0]>} dense<[16, ..., 31]> :
    vector<16xindex>`
    After:  `%s = vector.step : vector<16xindex>`, `%o = arith.addi %s,
    %c16` with `%c16 = arith.constant dense<16> : vector<16xindex>`
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::xegpu::XeGPUDialect"];
  let statistics = [
    Statistic<"numLayoutsDropped", "num-layouts-dropped",
              "Instruction-level slice layouts dropped">,
    Statistic<"numStepsRebuilt", "num-steps-rebuilt",
              "Index constants rebuilt as vector.step">
  ];
}

//===----------------------------------------------------------------------===//
// NVIDIA (xpu-nvvm-pipeline)
//===----------------------------------------------------------------------===//

def XPUConvertXPUToNVGPUPass : Pass<"convert-xpu-to-nvgpu", "ModuleOp"> {
  let summary = "Lower the GEMM programs of #xpu.nvgpu configs to NVIDIA "
                "tensor-core kernels";
  let description = [{
    The NVIDIA tensor-core backend of the schedule layer
    (`GemmPrograms.h`, `docs/Design.md`): runs after `xpu-schedule-gemm`,
    on tensors. Every set of GEMM programs (an `scf.forall` mapped to GPU
    blocks) whose config has the nvgpu backend's knobs
    (`#xpu.nvgpu<mma = mma_sync | wgmma, precision = native | tf32>`, which
    `xpu-select-strategy` gives the GEMMs the tensor cores take on NVIDIA
    targets) becomes a kernel in its own gpu.module, one workgroup per
    program, whatever the schedule: data-parallel, persistent (a loop over
    tiles) or Stream-K (whole tiles, then K pieces). The pass decides
    nothing: it verifies the config with the nvgpu backend's rules
    (`NVGPUBackend.h`) and lowers each tile op where it stands
    (`docs/NVIDIA.md`):

    * `mma = mma_sync`: `stages` k tiles in flight through 16-byte cp.async
      copies (`nvgpu.device_async_copy`, zero-filled outside the matrix or
      the tile's K range) into XOR-swizzled shared memory, `nvgpu.ldmatrix`
      fragments (`.trans` for a `[k, n]` B of 16-bit elements),
      `nvgpu.mma.sync` (m16n8k16 bf16/f16, m16n8k8 tf32 with `precision =
      tf32`) on f32 accumulators in registers; then, by the tile op's
      result, the epilogue applied to the accumulator registers before the
      store (masked at the M and N edges), the f32 accumulators stored to a
      Stream-K workspace slot, or added there with float atomics masked to
      the logical `m x n`;
    * `mma = wgmma` (`sm_90a`, 16-bit operands, `tile_m` 64 or 128,
      `tile_n` a multiple of 64 up to 256, `tile_k` 64, data-parallel): a
      producer warpgroup issues TMA loads (`nvgpu.tma.async.load`, 128-byte
      swizzle, zero fill outside the matrix) into a ring of `stages`
      mbarrier-guarded slots, one or two consumer warpgroups run
      `wgmma.mma_async` m64nNk16 on f32 accumulators, and the epilogue is
      applied to the accumulator registers before the masked store, or,
      where a workgroup computes one tile and the epilogue's straight-line
      code would be long (`nvidia::shouldStageEpilogue`), in one loop over
      the accumulators staged through the ring's shared memory (the
      kernel's remark says which); where a workgroup computes one tile
      (data-parallel) and C's rows start on 16 bytes, each consumer
      warpgroup writes its results into its rows of the ring's A slots as
      boxes of 64 rows x 128 bytes (128-byte swizzle) and one thread stores
      them with TMA (`nvgpu.tma.async.store`; TMA leaves out what lies
      outside C), instead of every thread storing pairs of columns
      (`tma-store=false` keeps the direct stores; `tma-store-staged=true`
      does the same for staged epilogues, after the staged f32 tile); the
      TMA descriptors are
      made on the host (`nvgpu.tma.create.descriptor`);
    * `xpu.gemm_fixup` (the Stream-K fix-up kernel) sums a tile's workspace
      slots in slot order in the mma.sync register layout and applies the
      epilogue once.

    The kernels read A and B rows padded to 16 bytes (128 for the rows TMA
    reads that need a new pitch anyway): `xpu-materialize-layouts` pads
    them on tensors, so that the padding of weights runs once in
    `<fn>.pack`. An operand that was not padded (a pass pipeline without
    `xpu-materialize-layouts`) is copied by a small kernel into a buffer
    with that pitch before the GEMM, on every call, with a missed remark.

    For mma.sync the config's subgroups are the warps (`[rows, cols]`, each
    warp a `tile_m / rows x tile_n / cols` block); shared memory is dynamic
    (the launch passes its size). Programs of SIMT configs are left alone
    (remark) for the SIMT kernels of `convert-xpu-to-gpu`. An `xpu.gemm`
    with an nvgpu config that was not scheduled, or a config the nvgpu
    backend's rules refuse (a hand-written one: warp blocks not multiples of
    16x16, chunks that do not split over the threads, too many
    accumulators, wgmma off sm_90a or off its tile shapes), is an error at
    the GEMM's location. The target is the module's `#xpu.target`
    (`xpu-attach-target`).
  }];
  let options = [
    Option<"tmaStore", "tma-store", "bool", /*default=*/"true",
           "Store the results of a data-parallel wgmma tile with TMA, "
           "through the ring's shared memory (default), where C's rows "
           "start on 16 bytes; false: every consumer thread stores its "
           "pairs of columns">,
    Option<"tmaStoreStaged", "tma-store-staged", "bool", /*default=*/"false",
           "With tma-store, also store the results of staged epilogues with "
           "TMA, where the ring holds them after the staged f32 tile (not "
           "yet run on a GPU: off by default)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::bufferization::BufferizationDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::ub::UBDialect",
                           "::mlir::vector::VectorDialect"];
  let statistics = [
    Statistic<"numKernels", "num-kernels", "xpu.gemm ops lowered to tensor-core kernels">
  ];
}

def XPUNVGPUBF16MmaToNVVMPass : Pass<"xpu-nvgpu-bf16-mma-to-nvvm"> {
  let summary = "Lower bf16 nvgpu.mma.sync to nvvm.mma.sync";
  let description = [{
    Upstream's `convert-nvgpu-to-nvvm` (LLVM 22.1.8) lowers `nvgpu.mma.sync`
    on f16, tf32, f64 and integers but not on bf16 ("failed to deduce operand
    PTX types"). This pass rewrites each bf16 `nvgpu.mma.sync` into
    `nvvm.mma.sync` with bf16 multiplicands: the operand vectors are bitcast
    to their 32-bit registers and the f32 results repacked into the
    accumulator vector. Run it before `convert-nvgpu-to-nvvm`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::ub::UBDialect",
                           "::mlir::vector::VectorDialect"];
}

def XPUSharedAllocsToDynamicPass : Pass<"xpu-shared-allocs-to-dynamic"> {
  let summary = "Turn workgroup memref.alloc in gpu.launch bodies into views "
                "of dynamic shared memory";
  let description = [{
    NVVM does not lower `memref.alloc` in the workgroup address space (it
    becomes a call to `malloc`/`free` on a shared pointer), and static shared
    memory is limited to 48 KiB per kernel. For every `gpu.launch` whose body
    allocates statically shaped buffers in address space 3 (or
    `#gpu.address_space<workgroup>`) at its top level, this pass replaces
    each by a `memref.view` of `gpu.dynamic_shared_memory` at a 16-byte
    aligned offset, drops their deallocations, and sets the launch's
    `dynamic_shared_memory_size` to the total. Launches that already pass a
    dynamic size are left alone.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::memref::MemRefDialect"];
}

def XPUSanitizeKernelNamesPass : Pass<"xpu-sanitize-kernel-names", "ModuleOp"> {
  let summary = "Rename GPU modules and kernels to valid PTX identifiers";
  let description = [{
    ptxas rejects kernel names with characters other than letters, digits,
    `_` and `$` (`forward.pack_kernel`, from outlining a launch in
    `@forward.pack`). This pass replaces every other character of
    `gpu.module` and `gpu.func` names by `_` (adding a numeric suffix when
    the name is taken) and updates every `gpu.launch_func` that refers to
    them. A kernel whose name a kernel of an earlier module has (outlining
    names every kernel of `@forward` `forward_kernel`) takes its module's
    name, so that profilers (Nsight Systems, PyTorch's) list the kernels
    apart.
  }];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def XPULowerSubgroupReducePass
    : Pass<"xpu-lower-subgroup-reduce", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Lower gpu.subgroup_reduce to butterfly shuffles";
  let description = [{
    Before `convert-gpu-to-nvvm`, which lowers `gpu.shuffle` to
    `shfl.sync` but `gpu.subgroup_reduce` only for integers on sm_80+
    (`redux.sync`): every `gpu.subgroup_reduce` of a 32-bit (or narrower)
    scalar becomes log2(`subgroup-size`) `gpu.shuffle xor` steps and the
    combining op (upstream's shuffle lowering patterns).
  }];
  let options = [
    Option<"subgroupSize", "subgroup-size", "unsigned", /*default=*/"32",
           "Lanes of a subgroup (a warp on NVIDIA: 32)">
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def XPUExternDynamicSharedMemoryPass
    : Pass<"xpu-extern-dynamic-shared-memory", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Give the dynamic shared memory global external linkage";
  let description = [{
    After `convert-gpu-to-nvvm`: `gpu.dynamic_shared_memory` becomes an
    `llvm.mlir.global` of zero elements in address space 3 with internal
    linkage, which the NVPTX backend emits as a one-byte static `.shared`
    array, so every kernel that uses more silently overwrites memory. With
    external linkage it is the `.extern .shared` array of PTX whose size the
    launch gives. This pass sets that linkage (and a 1024-byte alignment,
    which TMA's 128-byte swizzle needs).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def XPUNVVMFastMathPass
    : Pass<"xpu-nvvm-fast-math", "::mlir::gpu::GPUModuleOp"> {
  let summary = "Compute f32 transcendentals in kernels with the GPU's "
                "approximate instructions";
  let description = [{
    `convert-gpu-to-nvvm` lowers `math.tanh`, `math.log1p`, `math.erf`, ...
    to libdevice's correctly rounded functions: tens of instructions per
    element, which heavy GEMM epilogues (mish, GELU, swish chains) pay on
    every output. Where the results only need the accuracy of a bf16 GEMM,
    this pass rewrites each f32 op of the functions listed in `functions`
    (scalars and vectors) in every kernel of the gpu.module into the
    approximate instructions of PTX:

    * `exp`: `ex2.approx` of `x * log2(e)`; `exp2`: `ex2.approx`;
    * `log`, `log2`, `log1p`: `lg2.approx` (of `1 + x` for log1p), scaled
      by `ln(2)` for the natural logarithms; where the result is near 0
      (`|x - 1|`, or `|x|` for log1p, below 2^-5) the Taylor series of
      `ln(1 + u)` to `u^6` instead, since lg2.approx's absolute error of
      about 2^-22 would be a large relative error there;
    * `tanh`: `tanh.approx.f32` (sm_75 and later; other chips keep
      libdevice's);
    * `erf`: Abramowitz and Stegun's formula 7.1.26 (a degree-5 polynomial
      in `1 / (1 + 0.3275911 |x|)` times `exp(-x^2)`, absolute error below
      1.5e-7), with `ex2.approx` and a correctly rounded `t` (near 0 the
      result is the difference of two numbers close to 1);
    * `divf`: `div.full.f32` (2 ulp over the whole range, without the
      correctly rounded division's slow path).

    The accuracy budget is an error of at most `2^-10 |f(x)| + 2^-20`: at
    most half of the rounding to bf16 (2^-9 relative) that the operands of
    a bf16 GEMM already carry, with an absolute floor for results near
    zero. `test/lib/mathcheck.py` checks every function against NumPy in
    float64 over its range on the GPU (`test/Integration/CUDA/fast-math.test`
    and `bench/nvidia/run_workloads.sh`); docs/NVIDIA.md has the measured
    errors. `xpu-nvvm-pipeline` runs this pass when `fast-math` is on, by
    default for the 16-bit precisions (bf16, f16) only.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::ub::UBDialect",
                           "::mlir::vector::VectorDialect"];
  let options = [
    ListOption<"functions", "functions", "std::string",
               "ops to approximate: exp, exp2, log, log2, log1p, tanh, erf "
               "(math ops, by name without the `math.` prefix) and divf "
               "(arith.divf); default: all of them">
  ];
  let statistics = [
    Statistic<"numApproximated", "num-approximated",
              "f32 ops replaced by approximate GPU instructions">
  ];
}

def XPUCudaBuffersPass : Pass<"xpu-cuda-buffers", "ModuleOp"> {
  let summary = "Allocate host buffers as CUDA device or managed memory";
  let description = [{
    The CUDA counterpart of `xpu-host-buffers-to-gpu`. Every `memref.alloc`
    outside GPU code becomes a `gpu.alloc`: device memory (asynchronous, on
    the stream of the launches) when no host code reads or writes it, managed
    memory (`host_shared`) when host code may touch it: a use other than a
    kernel launch, a copy, a deallocation, a view or a TMA descriptor
    (`nvgpu.tma.create.descriptor` reads only the address and the shape),
    or, unless `device-results`, a return to the caller. `memref.copy` between such
    buffers becomes `gpu.memcpy`, and `memref.dealloc` an asynchronous
    `gpu.dealloc`.
  }];
  let options = [
    Option<"deviceResults", "device-results", "bool", "false",
           "Returned buffers are device memory (callers that pass and receive "
           "device pointers, such as PyTorch through the C interface)">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
  let statistics = [
    Statistic<"numDevice", "num-device", "buffers allocated in device memory">,
    Statistic<"numManaged", "num-managed", "buffers allocated in managed memory">
  ];
}

def XPUDumpNVVMBinariesPass : Pass<"xpu-dump-nvvm-binaries", "ModuleOp"> {
  let summary = "Write each NVVM kernel module's PTX, or its cubin, to a file";
  let description = [{
    Before `gpu-module-to-binary` (`ptx=true`): each `gpu.module` with an
    `#nvvm.target` is serialized to PTX (the NVPTX backend only, no ptxas)
    and written to `<dir>/<module>.ptx`. After it (`ptx=false`): each
    object of each `gpu.binary` is written to `<dir>/<binary>.cubin`
    (`.fatbin`, `.ptx` for those formats). For `ptxas -v`, `cuobjdump` and
    `nvdisasm`. The IR is not changed.
  }];
  let options = [
    Option<"dir", "dir", "std::string", "\".\"",
           "Directory the files are written to (created if missing)">,
    Option<"ptx", "ptx", "bool", "true",
           "Write PTX from the gpu.module ops (before gpu-module-to-binary) "
           "instead of the gpu.binary objects">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def XPUExportCInterfacesPass : Pass<"xpu-export-c-interfaces", "ModuleOp"> {
  let summary = "Give every entry point a C interface, <fn>.pack and "
                "<fn>.packed included";
  let description = [{
    For ahead-of-time libraries (`xpu-compile`): every public function, and
    the `<fn>.pack` / `<fn>.packed` functions that `xpu-outline-weight-pack`
    made for a public `<fn>`, becomes public with `llvm.emit_c_interface`, so
    that the library exports `_mlir_ciface_<name>` wrappers taking memref
    descriptors by pointer (results first). Callers then pack the weights
    once and call `<fn>.packed` on every input. External declarations are
    left alone.
  }];
}

#endif // XPU_CONVERSION_PASSES_TD
