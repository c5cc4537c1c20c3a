// xpu-nvvm-pipeline with PTX in gpu.binary (binary-format=isa: the NVPTX
// backend only, no CUDA toolkit). The cubin path and ptxas -v are covered by
// test/Conversion/XPUToNVGPU/ptxas-*.test (feature ptxas).
//
// sm_90: the GEMM and its bias + GELU epilogue on mma.sync (bf16 m16n8k16),
// fed by ldmatrix from cp.async stages in dynamic shared memory declared
// .extern; the host allocates the result as managed memory and waits once.
// RUN: xpu-opt %S/Inputs/linear-gelu-bf16.mlir --xpu-nvvm-pipeline="binary-format=isa" | FileCheck %s --check-prefix=SM90
// SM90: llvm.func @forward(
// SM90:   llvm.call @mgpuMemAlloc
// SM90:   gpu.launch_func {{.*}}@forward_mma0::@forward_mma0
// SM90:   llvm.call @mgpuStreamSynchronize
// SM90: gpu.binary @forward_mma0 [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">, properties
// SM90-SAME: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// SM90-SAME: .maxnreg
// SM90-SAME: cp.async.cg.shared.global
// SM90-SAME: ldmatrix.sync.aligned.m8n8.x4.shared.b16
// SM90-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
//
// sm_90a: TMA and wgmma; the host makes the two TMA descriptors.
// RUN: xpu-opt %S/Inputs/linear-gelu-bf16.mlir --xpu-nvvm-pipeline="chip=sm_90a binary-format=isa" | FileCheck %s --check-prefix=SM90A
// SM90A: llvm.func @forward(
// SM90A-COUNT-2: llvm.call @mgpuTensorMapEncodeTiledMemref
// SM90A: gpu.launch_func {{.*}}@forward_mma0::@forward_mma0
// SM90A: gpu.binary @forward_mma0 [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">
// SM90A-SAME: mbarrier.init.shared.b64
// SM90A-SAME: setmaxnreg.inc.sync.aligned.u32
// SM90A-SAME: mbarrier.try_wait.parity.shared.b64
// SM90A-SAME: wgmma.fence.sync.aligned
// SM90A-SAME: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// SM90A-SAME: wgmma.commit_group.sync.aligned
// SM90A-SAME: wgmma.wait_group.sync.aligned
// SM90A-SAME: mbarrier.arrive.shared.b64
// SM90A-SAME: setmaxnreg.dec.sync.aligned.u32
// SM90A-SAME: mbarrier.arrive.expect_tx.shared.b64
// SM90A-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
//
// sm_90a, data-parallel: the consumers write C's tile into the ring's A
// slots and store it with TMA (a third descriptor on the host); with
// tma-store=false each thread stores its pairs of columns.
// RUN: xpu-opt %S/Inputs/linear-gelu-bf16.mlir --xpu-nvvm-pipeline="chip=sm_90a binary-format=isa" | FileCheck %s --check-prefix=TMASTORE
// TMASTORE-COUNT-3: llvm.call @mgpuTensorMapEncodeTiledMemref
// TMASTORE: gpu.binary @forward_mma0
// TMASTORE-SAME: fence.proxy.async.shared::cta
// TMASTORE-SAME: bar.sync {{[^;]+}}, 128;
// TMASTORE-SAME: cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group
// TMASTORE-SAME: cp.async.bulk.commit_group
// TMASTORE-SAME: cp.async.bulk.wait_group.read
// RUN: xpu-opt %S/Inputs/linear-gelu-bf16.mlir --xpu-nvvm-pipeline="chip=sm_90a binary-format=isa tma-store=false" | FileCheck %s --check-prefix=DIRECTSTORE
// DIRECTSTORE-COUNT-2: llvm.call @mgpuTensorMapEncodeTiledMemref
// DIRECTSTORE-NOT: llvm.call @mgpuTensorMapEncodeTiledMemref
// DIRECTSTORE: gpu.binary @forward_mma0
// DIRECTSTORE-SAME: st.global.b32
// DIRECTSTORE-NOT: cp.async.bulk.tensor.2d.global.shared::cta
//
// sm_90a with thread block clusters written by hand (#xpu.nvgpu's
// cluster_m = 2; the strategy does not choose them: docs/NVIDIA.md): the
// launch says so, ptxas learns the shape (.reqnctapercluster), the empty
// barriers are initialized and fenced before a cluster barrier, each
// consumer warpgroup frees a slot in both workgroups (mapa, then a CTA-scope
// arrive on the shared::cluster address), each producer multicasts its half
// of B, and the workgroups meet again before they exit.
// RUN: xpu-opt %S/Inputs/gemm-clusters.mlir --xpu-nvvm-pipeline="chip=sm_90a binary-format=isa" | FileCheck %s --check-prefix=CLUSTER
// CLUSTER: gpu.launch_func {{.*}}@forward_mma0::@forward_mma0 clusters in ({{%[0-9]+}}, {{%[0-9]+}}, {{%[0-9]+}})
// CLUSTER: gpu.binary @forward_mma0
// CLUSTER-SAME: .reqnctapercluster 2, 1, 1
// CLUSTER-SAME: mbarrier.init.shared.b64
// CLUSTER-SAME: fence.mbarrier_init.release.cluster
// CLUSTER-SAME: barrier.cluster.arrive
// CLUSTER-SAME: barrier.cluster.wait
// CLUSTER-SAME: mbarrier.arrive.expect_tx.shared.b64
// CLUSTER-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// CLUSTER-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster
// CLUSTER-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// CLUSTER-SAME: mapa.shared::cluster
// CLUSTER-SAME: mbarrier.arrive.shared::cluster.b64
// CLUSTER-SAME: barrier.cluster.arrive
// CLUSTER-SAME: barrier.cluster.wait
// The same GEMM without cluster_m: no cluster, one workgroup's barriers.
// RUN: sed -e 's/, cluster_m = 2//' %S/Inputs/gemm-clusters.mlir | xpu-opt --xpu-nvvm-pipeline="chip=sm_90a binary-format=isa" | FileCheck %s --check-prefix=NOCLUSTER
// NOCLUSTER: gpu.launch_func {{.*}}@forward_mma0::@forward_mma0 blocks in
// NOCLUSTER: gpu.binary @forward_mma0
// NOCLUSTER-NOT: cluster.arrive
// NOCLUSTER-SAME: mbarrier.arrive.shared.b64
// NOCLUSTER-NOT: multicast
// NOCLUSTER-SAME: wgmma.mma_async
// Pingpong consumers (persistent programs): the producer gives registers
// up and the consumers take them once, around the tile loop; a consumer
// arrives on the named barrier of the tile's turn (256 threads: both
// consumers) once it has issued its wgmma, and the other one waits there.
// RUN: xpu-opt %S/Inputs/gemm-pingpong.mlir --xpu-nvvm-pipeline="chip=sm_90a binary-format=isa" | FileCheck %s --check-prefix=PINGPONG
// PINGPONG: gpu.binary @forward_mma0
// PINGPONG-SAME: setmaxnreg.dec.sync.aligned.u32 \0940;
// PINGPONG-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [
// PINGPONG-SAME: setmaxnreg.inc.sync.aligned.u32 \09232;
// PINGPONG-SAME: bar.sync \09[[BAR:%r[0-9]+]], 256;
// PINGPONG-SAME: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PINGPONG-SAME: bar.arrive [[BAR]], 256;
// PINGPONG-SAME: wgmma.wait_group.sync.aligned \090;
// PINGPONG: gpu.binary @forward_mma1
// PINGPONG-SAME: wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
//
// sm_80, f32 model with precision=tf32: mma.sync m16n8k8 tf32.
// RUN: xpu-opt %s --xpu-nvvm-pipeline="chip=sm_80 precision=tf32 binary-format=isa" | FileCheck %s --check-prefix=TF32
// TF32: gpu.binary @f32_gemm_mma0 [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx80">
// TF32-SAME: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
//
// sm_90a, the same model in tf32: TMA + wgmma k8 on the f32 operands as
// they are in memory. wgmma reads tf32 operands K-major only, so B (an
// activation, [k, n]) is transposed to [n, k] by a kernel of its own first.
// RUN: xpu-opt %s --xpu-nvvm-pipeline="chip=sm_90a precision=tf32 binary-format=isa" | FileCheck %s --check-prefix=TF32A
// TF32A: gpu.binary @f32_gemm_kernel
// TF32A: gpu.binary @f32_gemm_mma0 [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a"
// TF32A-SAME: wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32
// TF32A-SAME: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// TF32A-NOT: mma.sync.aligned
//
// The same model with precision=f32: a SIMT kernel (convert-xpu-to-gpu)
// whose shared buffers became dynamic shared memory; no tensor cores.
// RUN: xpu-opt %s --xpu-nvvm-pipeline="precision=f32 binary-format=isa" | FileCheck %s --check-prefix=F32
// F32: gpu.launch_func {{.*}}@f32_gemm_kernel::@f32_gemm_kernel {{.+}} dynamic_shared_memory_size
// F32: gpu.binary @f32_gemm_kernel
// F32-SAME: .extern .shared .align 1024 .b8 __dynamic_shmem__0[];
// F32-NOT: mma.sync
//
// Every schedule reaches the tensor cores (xpu-schedule-gemm, then the
// mma.sync or wgmma emitter per tile): Stream-K has a main kernel that
// computes whole tiles and K pieces into f32 workspace slots and a fix-up
// kernel that sums them and applies the epilogue; persistent programs loop
// over tiles. On sm_90a the pieces run on wgmma, one after the other on
// the program's mbarrier ring; the fix-up has no tensor-core instruction.
// RUN: xpu-opt %S/Inputs/linear-gelu-bf16.mlir --xpu-nvvm-pipeline="chip=sm_90a schedule=stream_k binary-format=isa" | FileCheck %s --check-prefix=STREAMK
// STREAMK: llvm.func @forward(
// STREAMK:   gpu.launch_func {{.*}}@forward_mma0::@forward_mma0
// STREAMK:   gpu.launch_func {{.*}}@forward_mma0_fixup::@forward_mma0_fixup
// STREAMK: gpu.binary @forward_mma0 [
// STREAMK-NOT: mma.sync
// STREAMK-SAME: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// STREAMK: gpu.binary @forward_mma0_fixup [
// STREAMK-NOT: {{mma\.sync|wgmma}}
// STREAMK-SAME: .entry forward_mma0_fixup(
// RUN: xpu-opt %S/Inputs/linear-gelu-bf16.mlir --xpu-nvvm-pipeline="chip=sm_90 schedule=stream_k binary-format=isa" | FileCheck %s --check-prefix=STREAMK-SM90
// STREAMK-SM90: gpu.binary @forward_mma0 [
// STREAMK-SM90-SAME: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// STREAMK-SM90: gpu.binary @forward_mma0_fixup [
// RUN: xpu-opt %S/Inputs/linear-gelu-bf16.mlir --xpu-nvvm-pipeline="chip=sm_90a schedule=stream_k fixup=atomic binary-format=isa" | FileCheck %s --check-prefix=ATOMIC-WGMMA
// ATOMIC-WGMMA: gpu.binary @forward_mma0 [
// ATOMIC-WGMMA-SAME: atom.global.add.f32
// ATOMIC-WGMMA-SAME: wgmma.mma_async
// ATOMIC-WGMMA: gpu.binary @forward_mma0_fixup [
// RUN: xpu-opt %S/Inputs/linear-gelu-bf16.mlir --xpu-nvvm-pipeline="chip=sm_80 precision=tf32 schedule=stream_k fixup=atomic binary-format=isa" | FileCheck %s --check-prefix=ATOMIC
// ATOMIC: gpu.binary @forward_mma0 [
// ATOMIC-SAME: atom.global.add.f32
// ATOMIC: gpu.binary @forward_mma0_fixup [
// RUN: xpu-opt %s --xpu-nvvm-pipeline="precision=tf32 schedule=persistent programs=3 binary-format=isa" | FileCheck %s --check-prefix=PERSISTENT
// PERSISTENT: %[[THREE:.+]] = llvm.mlir.constant(3 : index) : i64
// PERSISTENT: gpu.launch_func {{.*}}@f32_gemm_mma0::@f32_gemm_mma0 blocks in (%[[THREE]],
// PERSISTENT: gpu.binary @f32_gemm_mma0 [
// PERSISTENT-SAME: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
//
// Operand layouts before packing: xpu-materialize-layouts pads the rows of
// A and B to the pitch the tensor-core kernels read before
// xpu-outline-weight-pack, so the weight's padding is in @forward.pack (run
// once per weight set) and no kernel re-pitches an operand per call. The odd
// 8205x5921x2949 GEMM in bf16: B's rows of 5921 bf16 (11842 bytes) are no 16-byte
// multiple. On sm_90a (wgmma, TMA) the weight B is first transposed to
// [n, k] (wgmma reads a K-major B faster; in @forward.pack, so once per
// weight set), and rows that need a new pitch get a multiple of 128 bytes:
// B's 2949 -> 3008 (high 59, once) and A's 2949 -> 3008 (high 59, per call:
// A is the input); on sm_90 (mma.sync, cp.async) B stays [k, n] and rows
// get 16 bytes: B 5921 -> 5928, A 2949 -> 2952.
// RUN: xpu-opt %S/Inputs/xe-matmul-8205x5921x2949.mlir --xpu-nvvm-pipeline="chip=sm_90a precision=bf16 binary-format=isa" \
// RUN:     --mlir-print-ir-after=xpu-outline-weight-pack --mlir-disable-threading 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PACKED --implicit-check-not=repitch
// PACKED-LABEL: func.func @forward.pack(%{{.+}}: tensor<2949x5921xf32>) -> tensor<5921x3008xbf16>
// PACKED:         arith.truncf
// PACKED:         linalg.transpose {{.*}} permutation = [1, 0]
// PACKED:         tensor.pad %{{.+}} low[0, 0] high[0, 59]
// PACKED-LABEL: func.func @forward.packed(
// PACKED-SAME:    %{{[^:]+}}: tensor<8205x2949xf32>, %[[W:[^:]+]]: tensor<5921x3008xbf16>)
// PACKED-NOT:     linalg.transpose
// PACKED:         tensor.pad %{{.+}} low[0, 0] high[0, 59]
// PACKED-NOT:     tensor.pad
// PACKED:         %[[WV:.+]] = tensor.extract_slice %[[W]][0, 0] [5921, 2949] [1, 1]
// PACKED:         xpu.gemm %{{.+}}, %[[WV]] rhs_layout(nk) {{.*}}backend = #xpu.nvgpu<mma = wgmma>
// PACKED:       llvm.func @forward.packed(
// PACKED:         llvm.call @mgpuTensorMapEncodeTiledMemref
// PACKED:         gpu.launch_func {{.*}}@forward_packed_mma0::@forward_packed_mma0
// RUN: xpu-opt %S/Inputs/xe-matmul-8205x5921x2949.mlir --xpu-nvvm-pipeline="chip=sm_90 precision=bf16 binary-format=isa" \
// RUN:     --mlir-print-ir-after=xpu-outline-weight-pack --mlir-disable-threading 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PACKED90 --implicit-check-not=repitch
// PACKED90-LABEL: func.func @forward.pack(%{{.+}}: tensor<2949x5921xf32>) -> tensor<2949x5928xbf16>
// PACKED90:         tensor.pad %{{.+}} low[0, 0] high[0, 7]
// PACKED90-LABEL: func.func @forward.packed(
// PACKED90:         tensor.pad %{{.+}} low[0, 0] high[0, 3]
// PACKED90:         xpu.gemm {{.*}}backend = #xpu.nvgpu<mma = mma_sync>
// PACKED90:       llvm.func @forward.packed(
// PACKED90:         gpu.launch_func {{.*}}@forward_packed_mma0::@forward_packed_mma0
//
// Bad options are errors that name the option.
// RUN: not xpu-opt %s --xpu-nvvm-pipeline="chip=sm_70" 2>&1 | FileCheck %s --check-prefix=BADCHIP
// BADCHIP: xpu-nvvm-pipeline: invalid value 'sm_70' for option 'chip' (expected sm_80, sm_90 or sm_90a)
// RUN: not xpu-opt %s --xpu-nvvm-pipeline="precision=f8" 2>&1 | FileCheck %s --check-prefix=BADPREC
// BADPREC: xpu-nvvm-pipeline: invalid value 'f8' for option 'precision' (expected f32, tf32, bf16 or f16)
// RUN: not xpu-opt %s --xpu-nvvm-pipeline="schedule=sideways" 2>&1 | FileCheck %s --check-prefix=BADSCHED2
// BADSCHED2: xpu-nvvm-pipeline: invalid value 'sideways' for option 'schedule' (expected auto, data_parallel, persistent or stream_k)
//
// dump-binaries writes each kernel's PTX (and its object: here PTX too).
// RUN: rm -rf %t && xpu-opt %s --xpu-nvvm-pipeline="precision=tf32 binary-format=isa dump-binaries=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=DUMP < %t/f32_gemm_mma0.ptx
// DUMP: .visible .entry f32_gemm_mma0(
// DUMP: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32

func.func @f32_gemm(%a: tensor<128x64xf32>, %b: tensor<64x96xf32>) -> tensor<128x96xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<128x96xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<128x96xf32>) -> tensor<128x96xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<128x64xf32>, tensor<64x96xf32>) outs(%z : tensor<128x96xf32>) -> tensor<128x96xf32>
  return %mm : tensor<128x96xf32>
}
