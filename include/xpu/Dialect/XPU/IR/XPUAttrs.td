//===- XPUAttrs.td - xpu attributes and enums --------------*- tablegen -*-===//

#ifndef XPU_DIALECT_XPU_IR_XPUATTRS_TD
#define XPU_DIALECT_XPU_IR_XPUATTRS_TD

include "xpu/Dialect/XPU/IR/XPUDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def XPU_RhsLayout : I32EnumAttr<"RhsLayout",
    "memory layout of the GEMM right-hand side", [
      I32EnumAttrCase<"kn", 0>,
      I32EnumAttrCase<"nk", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::xpu";
}
def XPU_RhsLayoutAttr : EnumAttr<XPU_Dialect, XPU_RhsLayout, "rhs_layout"> {
  let summary = "Layout of the GEMM rhs: `kn` ([k, n]) or `nk` ([n, k], nn.Linear weights)";
}

def XPU_BroadcastKind : I32EnumAttr<"BroadcastKind",
    "how an epilogue operand is broadcast over the GEMM result", [
      I32EnumAttrCase<"scalar", 0>,
      I32EnumAttrCase<"per_row", 1>,
      I32EnumAttrCase<"per_col", 2>,
      I32EnumAttrCase<"full", 3>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::xpu";
}
def XPU_BroadcastKindAttr : EnumAttr<XPU_Dialect, XPU_BroadcastKind, "broadcast"> {
  let summary = "Broadcast kind of one epilogue operand";
  let description = [{
    * `scalar`: a 0-d tensor, the same value for every output element;
    * `per_row`: a `[m]` vector, indexed by the output row;
    * `per_col`: a `[n]` vector, indexed by the output column (a bias);
    * `full`: a tensor of the output's shape (a residual).
  }];
}
def XPU_BroadcastKindArrayAttr
    : TypedArrayAttrBase<XPU_BroadcastKindAttr, "array of broadcast kinds">;

def XPU_Schedule : I32EnumAttr<"Schedule", "GEMM work schedule", [
      I32EnumAttrCase<"data_parallel", 0>,
      I32EnumAttrCase<"stream_k", 1>,
      I32EnumAttrCase<"persistent", 2>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::xpu";
}

def XPU_Fixup : I32EnumAttr<"Fixup",
    "how Stream-K combines the partial sums of a split tile", [
      I32EnumAttrCase<"deterministic", 0>,
      I32EnumAttrCase<"atomic", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::xpu";
}

def XPU_NVGPUMma : I32EnumAttr<"NVGPUMma",
    "the NVIDIA tensor-core instruction family of a GEMM kernel", [
      I32EnumAttrCase<"mma_sync", 0>,
      I32EnumAttrCase<"wgmma", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::xpu";
}

def XPU_NVGPUConsumers : I32EnumAttr<"NVGPUConsumers",
    "how the consumer warpgroups of a wgmma kernel share its tiles", [
      I32EnumAttrCase<"cooperative", 0>,
      I32EnumAttrCase<"pingpong", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::xpu";
}

def XPU_NVGPUPrecision : I32EnumAttr<"NVGPUPrecision",
    "how the NVIDIA tensor cores read the GEMM operands", [
      I32EnumAttrCase<"native", 0>,
      I32EnumAttrCase<"tf32", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::xpu";
}

def XPU_TileResult : I32EnumAttr<"TileResult",
    "what xpu.gemm_tile does with the accumulators of its K range", [
      I32EnumAttrCase<"output", 0>,
      I32EnumAttrCase<"partial", 1>,
      I32EnumAttrCase<"atomic_add", 2>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::xpu";
}
def XPU_TileResultAttr : EnumAttr<XPU_Dialect, XPU_TileResult, "tile_result"> {
  let summary = "What a GEMM tile does with its accumulators: `output` (the "
                "epilogue, then the output tile), `partial` (f32 partial sums "
                "into a workspace slot) or `atomic_add` (masked atomic adds "
                "into a workspace slot)";
}

//===----------------------------------------------------------------------===//
// #xpu.target
//===----------------------------------------------------------------------===//

def XPU_TargetAttr : XPU_Attr<"Target", "target"> {
  let summary = "Hardware description read by the xpu cost models";
  let description = [{
    Describes one device: subgroup (warp) sizes, the register file a thread
    sees, shared local memory, compute units, the matrix-engine instruction
    shape, peak rates, the limits the kernels are sized against and the
    instructions the backends may use. It is the only home of hardware
    facts: passes query fields by name (`target.hasWgmma()`,
    `target.getThreadsPerUnit()`), never compare chip names.

    The presets are one table (`lib/Dialect/XPU/IR/TargetPresets.cpp`;
    `xpu-opt --xpu-list-targets` prints it): Intel `pvc` (Data Center GPU
    Max 1550) and `bmg` (Arc B580), NVIDIA `sm_80` (A100), `sm_90` and
    `sm_90a` (H200; `sm_90a` enables wgmma) and one core of the CPUs
    `cpu` (AVX2 + FMA), `x86-64-v3`, `x86-64-v4` (AVX-512),
    `sapphirerapids` (AVX-512 and AMX, whose tdpbf16ps shape is its `mma`),
    `cooperlake` (AVX512-BF16 and VNNI, no AMX) and `znver4`; a CPU preset also names its LLVM CPU, ISA features, FMA
    units and caches (printed by `--xpu-list-targets`). Any field
    can be overridden; a preset prints only the fields that differ from it.
    A chip that is not a preset gives the first eleven fields; its limits
    and capabilities default to those of its vendor's first preset. The
    numbers and their sources are listed in `docs/Design.md`.

    ```mlir
    module attributes {xpu.target = #xpu.target<"pvc">} {}
    module attributes {xpu.target = #xpu.target<"pvc", grf_count = 256>} {}
    module attributes {xpu.target = #xpu.target<"my-chip", vendor = "intel",
        subgroup_sizes = [16], grf_count = 128, grf_bytes = 64,
        slm_bytes = 131072, compute_units = 64, mma = [8, 16, 16],
        vector_bits = 512, peak_f32_gflops = 20000, peak_bf16_gflops = 300000,
        mem_gbps = 1600, threads_per_unit = 32>} {}
    ```

    Fields:
    * `vendor`: `intel`, `nvidia` or `cpu`;
    * `subgroup_sizes`: supported subgroup / warp sizes;
    * `grf_count`: registers per thread (Xe: GRFs in the default mode;
      NVIDIA: the per-thread limit, 255); `grf_bytes`: bytes per register;
    * `slm_bytes`: shared local memory per Xe-core / SM (cpu: L2 bytes);
    * `compute_units`: Xe-cores, SMs or CPU cores;
    * `mma`: the matrix instruction shape `[m, n, k]` for 16-bit operands
      (`[0, 0, 0]` when there is none);
    * `vector_bits`: SIMD width of one thread's vector unit (cpu) or the
      EU's native execution width in bits;
    * `peak_f32_gflops`, `peak_bf16_gflops`, `mem_gbps`: peak rates.

    Limits:
    * `threads_per_unit`: subgroups one compute unit holds at once (Xe:
      hardware threads of an Xe-core in the 128-GRF mode, 8 engines x 8;
      NVIDIA: warps per SM);
    * `large_grf_threads_per_unit`: the same in Xe's 256-GRF mode (0 when
      the target has no large register file mode);
    * `blocks_per_unit`: workgroups (thread blocks) one unit holds at once;
    * `registers_per_unit`: 32-bit registers of one unit;
    * `max_workgroup_size`: work-items (threads) of one workgroup;
    * `max_block_slm_bytes`: shared local memory one workgroup may have
      (at most `slm_bytes`).

    Capabilities:
    * `wgmma`, `tma`: Hopper's warpgroup MMA and tensor memory accelerator;
    * `dpas`: Intel's DPAS matrix instructions;
    * `block_2d`: the limits of 2D block loads and stores in bytes,
      `[min_pitch, pitch_align, min_width, width_align, base_align]`, or
      `[]` when the target has none.

    The verifier bounds every field far above real devices (subgroup sizes
    up to 1024, `grf_count` 4096, `grf_bytes` 1024, `slm_bytes` 2^32,
    `compute_units`, threads, blocks and workgroup sizes 2^20, registers
    2^32, `mma` sizes 1024, `vector_bits` 65536), so that the sizes the
    cost models derive from a target fit in 64 bits.
  }];
  let parameters = (ins
    StringRefParameter<"preset or chip name">:$chip,
    StringRefParameter<"intel, nvidia or cpu">:$vendor,
    ArrayRefParameter<"int64_t", "subgroup sizes">:$subgroupSizes,
    "int64_t":$grfCount,
    "int64_t":$grfBytes,
    "int64_t":$slmBytes,
    "int64_t":$computeUnits,
    ArrayRefParameter<"int64_t", "matrix instruction shape [m, n, k]">:$mma,
    "int64_t":$vectorBits,
    "int64_t":$peakF32Gflops,
    "int64_t":$peakBf16Gflops,
    "int64_t":$memGbps,
    "int64_t":$threadsPerUnit,
    "int64_t":$largeGrfThreadsPerUnit,
    "int64_t":$blocksPerUnit,
    "int64_t":$registersPerUnit,
    "int64_t":$maxWorkgroupSize,
    "int64_t":$maxBlockSlmBytes,
    "bool":$wgmma,
    "bool":$tma,
    "bool":$dpas,
    ArrayRefParameter<"int64_t", "2D block limits in bytes">:$block2d
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Returns the preset of that name, or a null attribute.
    static TargetAttr getPreset(::mlir::MLIRContext *ctx, ::llvm::StringRef chip);
    /// The preset passes use for a module without #xpu.target.
    static TargetAttr getDefault(::mlir::MLIRContext *ctx);
    /// Names of the presets, for diagnostics.
    static ::llvm::ArrayRef<::llvm::StringRef> getPresetNames();
    /// Returns the target of the closest enclosing module, or null.
    static TargetAttr lookup(::mlir::Operation *op);
    bool isIntel() const { return getVendor() == "intel"; }
    bool isNvidia() const { return getVendor() == "nvidia"; }
    bool isCpu() const { return getVendor() == "cpu"; }
    /// Register file of one thread in bytes.
    int64_t getRegisterFileBytes() const { return getGrfCount() * getGrfBytes(); }
    bool hasWgmma() const { return getWgmma(); }
    bool hasTma() const { return getTma(); }
    bool hasDpas() const { return getDpas(); }
    bool hasBlock2d() const { return !getBlock2d().empty(); }
    /// Hardware threads (subgroups) of one compute unit in GRF mode
    /// `grfMode` (256: the large register file; anything else: the
    /// default mode).
    int64_t getThreadsPerUnit(int64_t grfMode) const {
      return grfMode == 256 && getLargeGrfThreadsPerUnit() != 0
                 ? getLargeGrfThreadsPerUnit()
                 : getThreadsPerUnit();
    }
    /// The 2D block limits (bytes); only on targets with hasBlock2d().
    int64_t getBlock2dMinPitch() const { return getBlock2d()[0]; }
    int64_t getBlock2dPitchAlign() const { return getBlock2d()[1]; }
    int64_t getBlock2dMinWidth() const { return getBlock2d()[2]; }
    int64_t getBlock2dWidthAlign() const { return getBlock2d()[3]; }
    int64_t getBlock2dBaseAlign() const { return getBlock2d()[4]; }
    /// Upper bounds of the verifier: far above any device, low enough that
    /// the sizes derived from them fit in 64 bits.
    static constexpr int64_t kMaxSubgroupSize = 1024;
    static constexpr int64_t kMaxGrfCount = 4096;
    static constexpr int64_t kMaxGrfBytes = 1024;
    static constexpr int64_t kMaxSlmBytes = int64_t(1) << 32;
    static constexpr int64_t kMaxComputeUnits = int64_t(1) << 20;
    static constexpr int64_t kMaxMmaSize = 1024;
    static constexpr int64_t kMaxVectorBits = 65536;
    static constexpr int64_t kMaxUnitCount = int64_t(1) << 20;
    static constexpr int64_t kMaxRegistersPerUnit = int64_t(1) << 32;
    static constexpr int64_t kMaxBlock2dBytes = 65536;
  }];
}

//===----------------------------------------------------------------------===//
// #xpu.schedule and backend sub-attributes
//===----------------------------------------------------------------------===//

def XPU_ScheduleAttr : XPU_Attr<"Schedule", "schedule"> {
  let summary = "How the tiles of one GEMM are assigned to programs";
  let description = [{
    The work schedule of a configured `xpu.gemm`, with its parameters.
    `xpu-schedule-gemm` turns it into programs (workgroups), the tiles each
    program computes and, for Stream-K, the K range of each piece.

    * `data_parallel`: one program per output tile, tiles visited in the
      GROUP_SIZE_M order of the config's `group_m`.
    * `persistent<programs = P>`: `P` programs loop over the tiles with
      stride `P` (tile `t` on program `t mod P`). `P` is a tuned count
      (catalog: persistent_kernel_autotuned_num_progs), never assumed equal
      to the number of cores.
    * `stream_k<programs = P, fixup = deterministic | atomic>`: the
      two-wave hybrid of the catalog (streamk_two_wave_decomposition): the
      full waves of tiles are data-parallel, and the tiles of the last,
      partial wave are split along K evenly across the `P` programs
      (streamk_iteration_distribution). Partial sums are f32 in a
      workspace; the epilogue runs once, on the complete sum, in a fix-up
      program per split tile. `deterministic` (the default) gives every
      piece its own workspace slot and sums the slots in a fixed order
      (bitwise-identical results run to run); `atomic` adds the pieces with
      masked float atomics into a zeroed workspace tile.

    In `#xpu.config` the mnemonic is left out: `schedule = data_parallel`,
    `schedule = persistent<programs = 256>`, `schedule = stream_k<programs =
    128>`. `programs = 0` means "let `xpu-schedule-gemm` use the count of
    workgroups the target runs at once" and is what a config written without
    a count gets.
  }];
  let parameters = (ins
    EnumParameter<XPU_Schedule>:$kind,
    DefaultValuedParameter<"int64_t", "0">:$programs,
    DefaultValuedParameter<"Fixup", "Fixup::deterministic">:$fixup
  );
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// `data_parallel`, `persistent<programs = 8>`, ...: the config's form.
    void printBody(::mlir::AsmPrinter &printer) const;
    static ScheduleAttr parseBody(::mlir::AsmParser &parser);
    static ScheduleAttr getDataParallel(::mlir::MLIRContext *ctx) {
      return get(ctx, Schedule::data_parallel, 0, Fixup::deterministic);
    }
  }];
}

def XPU_XeConfigAttr : XPU_Attr<"XeConfig", "xe"> {
  let summary = "Intel Xe (DPAS) backend knobs of one GEMM's config";
  let description = [{
    Decisions that only the Intel Xe backends read, kept out of the common
    `#xpu.config`:

    * `grf_mode`: 128 or 256 registers per hardware thread (256 is IGC's
      large register file, `-ze-opt-large-register-file`).

    ```mlir
    #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 4],
                stages = 4, schedule = data_parallel,
                backend = #xpu.xe<grf_mode = 256>>
    ```
  }];
  let parameters = (ins "int64_t":$grfMode);
  let assemblyFormat = "`<` `grf_mode` `=` $grfMode `>`";
  let genVerifyDecl = 1;
}

def XPU_SimtConfigAttr : XPU_Attr<"SimtConfig", "simt"> {
  let summary = "The portable SIMT GEMM backend and its one knob";
  let description = [{
    Names the SIMT backend (`convert-xpu-to-gpu`: shared-memory slices and
    register micro-tiles, any target of the gpu dialect) where a backend is
    asked for by its attribute (`GemmBackendAttrInterface`).

    * `vector` (optional, 1, 2 or 4; default 1): the micro-tile layout.
      With 1, the lanes of a subgroup take neighbouring columns and each
      thread a column every `lanes` columns and a run of neighbouring rows
      (what a Xe subgroup reads as one block). With 2 or 4, each thread
      takes runs of `vector` neighbouring rows and columns, A is staged
      k-major in shared memory, and the operands move as `vector`-wide
      loads: from shared memory into registers, and from global memory
      where the contiguous dimension and the row pitch are multiples of
      `vector` (scalar loads elsewhere); each K-slice is loaded into
      registers while the previous one is computed (what NVIDIA's SIMT
      kernels need to feed 64 FMAs a thread per step).

    A config without `backend` is for the SIMT kernels with `vector = 1`;
    `#xpu.simt` with the default is therefore not written in a config.

    ```mlir
    #xpu.simt
    #xpu.config<tile = [128, 128, 16], group_m = 8, subgroups = [4, 2],
                stages = 2, schedule = data_parallel,
                backend = #xpu.simt<vector = 4>>
    ```
  }];
  let parameters = (ins DefaultValuedParameter<"int64_t", "1">:$vector);
  let builders = [
    AttrBuilder<(ins), [{ return $_get($_ctxt, /*vector=*/1); }]>
  ];
  let assemblyFormat = "(`<` `vector` `=` $vector^ `>`)?";
  let genVerifyDecl = 1;
}

def XPU_NVGPUConfigAttr : XPU_Attr<"NVGPUConfig", "nvgpu"> {
  let summary = "NVIDIA tensor-core backend knobs of one GEMM's config";
  let description = [{
    Decisions that only the NVIDIA tensor-core backend
    (`convert-xpu-to-nvgpu`) reads, kept out of the common `#xpu.config`,
    whose subgroups are the warps of the kernel:

    * `mma`: the instruction family. `mma_sync` (sm_80 and later): a
      `stages`-deep cp.async pipeline, ldmatrix and `mma.sync`. `wgmma`
      (sm_90a only): a TMA producer warpgroup, a `stages`-deep mbarrier
      ring and `tile_m / 64` consumer warpgroups running `wgmma.mma_async`;
      it needs 16-bit or tf32 operands (tf32 ones K-major), `tile_m` 64 or
      128, `tile_n` a multiple of 64 up to 256, `tile_k` one 128-byte
      swizzled row (64 16-bit elements, 32 tf32 ones) and whole tiles over
      all of K (the `data_parallel` or `persistent` schedule).
    * `precision` (optional): `native` (the default: the operands' own
      16-bit type, bf16 or f16) or `tf32` (f32 operands read as tf32, 10-bit
      mantissas, with f32 accumulation: rounded to nearest before `mma.sync`
      m16n8k8; `wgmma` m64nNk8 reads them from shared memory as TMA loaded
      them, unrounded).
    * `cluster_m` (optional, 1 or 2; wgmma only): workgroups per thread
      block cluster along M. With 2, the two workgroups of a cluster compute
      vertically adjacent tiles of the same tile column: each TMA-loads half
      of the B box and multicasts it into both workgroups' shared memory, so
      each reads half as much B from L2; a ring slot is refilled once the
      consumers of both workgroups are done with it. It needs the
      `data_parallel` schedule and an even number of tile rows walked in
      pairs (`group_m` even, or covering all tile rows), and with a
      `[k, n]` B a `tile_n` that is a multiple of 128. `xpu-select-strategy`
      does not choose it (on an H100 it ran 1-10% slower than the same tile
      alone); `xpu-tune` measures it where it applies.
    * `consumers` (optional; wgmma only): `cooperative` (the default: the
      `tile_m / 64` consumer warpgroups split each tile by rows) or
      `pingpong` (two consumer warpgroups take a persistent program's tiles
      in turns, each the whole `tile_m x tile_n` tile, so that one applies
      its epilogue while the other's wgmma run; the mainloops take turns
      too). It needs the `persistent` schedule and at most 128 f32
      accumulators a thread (`tile_m * tile_n <= 16384`, such as 128x128
      or 64x256).

    Syntax: `#xpu.nvgpu<mma = M (, precision = P)? (, cluster_m = C)?
    (, consumers = K)?>`,
    the optional fields in any order, each at most once; they print only
    when not at their default.

    The rules that depend on the target and the tile are the nvgpu
    backend's (`NVGPUBackend.h`), checked by `xpu-select-strategy` and
    `convert-xpu-to-nvgpu`.

    ```mlir
    #xpu.config<tile = [128, 256, 64], group_m = 8, subgroups = [2, 4],
                stages = 4, schedule = data_parallel,
                backend = #xpu.nvgpu<mma = wgmma>>
    #xpu.config<tile = [128, 256, 64], group_m = 8, subgroups = [2, 4],
                stages = 4, schedule = data_parallel,
                backend = #xpu.nvgpu<mma = wgmma, cluster_m = 2>>
    #xpu.config<tile = [128, 128, 64], group_m = 8, subgroups = [2, 2],
                stages = 6, schedule = persistent,
                backend = #xpu.nvgpu<mma = wgmma, consumers = pingpong>>
    #xpu.config<tile = [128, 128, 16], group_m = 8, subgroups = [2, 2],
                stages = 3, schedule = data_parallel,
                backend = #xpu.nvgpu<mma = mma_sync, precision = tf32>>
    ```
  }];
  let parameters = (ins
    EnumParameter<XPU_NVGPUMma>:$mma,
    DefaultValuedParameter<"NVGPUPrecision", "NVGPUPrecision::native">:$precision,
    DefaultValuedParameter<"int64_t", "1">:$clusterM,
    DefaultValuedParameter<"NVGPUConsumers", "NVGPUConsumers::cooperative">:$consumers
  );
  let builders = [
    AttrBuilder<(ins "NVGPUMma":$mma, "NVGPUPrecision":$precision), [{
      return $_get($_ctxt, mma, precision, /*clusterM=*/1,
                   NVGPUConsumers::cooperative);
    }]>,
    AttrBuilder<(ins "NVGPUMma":$mma, "NVGPUPrecision":$precision,
                     "int64_t":$clusterM), [{
      return $_get($_ctxt, mma, precision, clusterM,
                   NVGPUConsumers::cooperative);
    }]>
  ];
  // `<mma = M (, precision = P)? (, cluster_m = C)? (, consumers = K)?>`,
  // the optional fields
  // in any order, each at most once, and left out when at their default.
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isWgmma() const { return getMma() == NVGPUMma::wgmma; }
    bool isClustered() const { return getClusterM() > 1; }
    bool isPingPong() const {
      return getConsumers() == NVGPUConsumers::pingpong;
    }
    bool isTF32() const { return getPrecision() == NVGPUPrecision::tf32; }
  }];
}

//===----------------------------------------------------------------------===//
// #xpu.config
//===----------------------------------------------------------------------===//

def XPU_ConfigAttr : XPU_Attr<"Config", "config"> {
  let summary = "Strategy decisions for one xpu.gemm";
  let description = [{
    Records every decision of the strategy for one GEMM so that the IR shows
    what was decided and a test can check it without running anything. A
    config written by hand is kept and verified by later passes.

    ```mlir
    #xpu.config<tile = [256, 256, 32], group_m = 8, subgroups = [8, 4],
                stages = 3, schedule = stream_k<programs = 128>,
                backend = #xpu.xe<grf_mode = 256>>
    ```

    * `tile`: workgroup tile `[m, n, k]`, each size between 1 and 65536;
    * `group_m`: rows of tiles walked together by the program-id swizzle
      (Triton's GROUP_SIZE_M), between 1 and 65536;
    * `subgroups`: subgroup layout `[rows, cols]` inside the workgroup tile;
      each subgroup owns a `tile[0]/rows x tile[1]/cols` block, and there
      are at most 1024 subgroups;
    * `stages`: K-steps prefetched ahead (1 means no prefetch), at most 64;
    * `schedule`: `data_parallel`, `persistent<programs = P>` or
      `stream_k<programs = P, fixup = ...>` (`#xpu.schedule`);
    * `backend` (optional): the knobs of one backend,
      `#xpu.xe<grf_mode = 256>` for the Intel Xe DPAS kernels or
      `#xpu.nvgpu<mma = wgmma>` for the NVIDIA tensor-core kernels, or
      another attribute implementing `GemmBackendAttrInterface` (a test
      backend). A config without it is for the portable SIMT kernels
      (`#xpu.simt`). The passes ask the backend through that interface.
  }];
  let parameters = (ins
    ArrayRefParameter<"int64_t", "workgroup tile [m, n, k]">:$tile,
    "int64_t":$groupM,
    ArrayRefParameter<"int64_t", "subgroup layout [rows, cols]">:$subgroups,
    "int64_t":$stages,
    "ScheduleAttr":$schedule,
    OptionalParameter<"::mlir::Attribute">:$backend
  );
  let assemblyFormat = [{
    `<` `tile` `=` `[` $tile `]` `,` `group_m` `=` $groupM `,`
        `subgroups` `=` `[` $subgroups `]` `,` `stages` `=` $stages `,`
        `schedule` `=` custom<ScheduleBody>($schedule)
        (`,` `backend` `=` $backend^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The Xe backend knobs, or null.
    XeConfigAttr getXe() const {
      return ::llvm::dyn_cast_if_present<XeConfigAttr>(getBackend());
    }
    /// The NVIDIA tensor-core knobs, or null.
    NVGPUConfigAttr getNVGPU() const {
      return ::llvm::dyn_cast_if_present<NVGPUConfigAttr>(getBackend());
    }
    /// The Xe GRF mode (128 or 256), or 0 when the config has no Xe knobs.
    int64_t getGrfMode() const {
      XeConfigAttr xe = getXe();
      return xe ? xe.getGrfMode() : 0;
    }
    /// The same config with another schedule.
    ConfigAttr withSchedule(ScheduleAttr schedule) const {
      return get(getContext(), getTile(), getGroupM(), getSubgroups(),
                 getStages(), schedule, getBackend());
    }
    /// Upper bounds of the verifier (see the description).
    static constexpr int64_t kMaxTile = 65536;
    static constexpr int64_t kMaxGroupM = 65536;
    static constexpr int64_t kMaxSubgroups = 1024;
    static constexpr int64_t kMaxStages = 64;
  }];
}

#endif // XPU_DIALECT_XPU_IR_XPUATTRS_TD
