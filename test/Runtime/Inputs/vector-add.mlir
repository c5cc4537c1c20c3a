// A kernel computing c[i] = alpha * a[i] + b[i] for i < n, used by the
// runtime tests (test/Runtime/*.mlir). It takes three buffers and two scalars
// (an f32 and an index, i64 with use-64bit-index) so that both argument kinds
// go through mgpuLaunchKernel. The kernel is written already outlined, with
// its spirv.entry_point_abi set by hand.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @vector_add(%a: memref<1000xf32>, %b: memref<1000xf32>,
                         %c: memref<1000xf32>, %alpha: f32, %n: index) kernel
        attributes {spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [64, 1, 1]>} {
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %tid = gpu.thread_id x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %inb = arith.cmpi ult, %i, %n : index
      scf.if %inb {
        %x = memref.load %a[%i] : memref<1000xf32>
        %y = memref.load %b[%i] : memref<1000xf32>
        %ax = arith.mulf %alpha, %x : f32
        %s = arith.addf %ax, %y : f32
        memref.store %s, %c[%i] : memref<1000xf32>
      }
      gpu.return
    }
  }
}
