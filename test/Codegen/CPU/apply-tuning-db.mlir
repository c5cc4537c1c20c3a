// xpu-cpu-apply-tuning-db: a GEMM whose chip and signature have an entry
// gets the entry's CPU tiles as xpu.cpu_tiles (a remark names the database
// and the measured gain); the default as the best leaves it alone; an entry
// whose config is not CPU tiles, or that no trial completed, is ignored with
// a warning. The databases are written here.
// RUN: rm -rf %t && split-file %s %t
// RUN: xpu-opt %t/input.mlir --split-input-file --xpu-cpu-apply-tuning-db=tuning-db=%t/db.json | FileCheck %s
// RUN: xpu-opt %t/input.mlir --split-input-file --xpu-cpu-apply-tuning-db=tuning-db=%t/db.json --verify-diagnostics -o /dev/null
// RUN: xpu-opt %t/input.mlir --split-input-file --xpu-cpu-apply-tuning-db=tuning-db=%t/db.json --xpu-remarks --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARKS -DTMP=%t
//
// The tiles reach the code: xpu-cpu-pipeline with tuning-db packs with the
// entry's register tile (4x16 instead of x86-64-v3's 6x16) and blocks the
// nest with its cache tile (rows in blocks of 32, k in blocks of 64), and
// the tools read XPU_OPT_TUNING_DB for the CPU pipeline too (x86-64-v3: the
// AVX2 code runs on every host the tests run on). The tuned model's result
// is checked against NumPy in test/Tools/xpu-tune/cpu.test.
// RUN: xpu-opt %t/model.mlir --xpu-cpu-pipeline="tuning-db=%t/model-db.json chip=x86-64-v3 threads=1" --xpu-remarks --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE -DTMP=%t
// RUN: env XPU_OPT_TUNING_DB=%t/model-db.json xpu-run %t/model.mlir --function=forward --xpu-pipeline-options="chip=x86-64-v3 threads=1" --xpu-remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=PIPELINE -DTMP=%t
// PIPELINE: remark: [Passed] TuningDatabase | Category:xpu-cpu-apply-tuning-db | Reason="tiles from tuning database '[[TMP]]/model-db.json' on x86-64-v3, measured 1.25x the default tiles (4000 ns vs 5000 ns): register-tile=4,16 cache-tile=32,64,64"
// PIPELINE: remark: [Passed] Packed | Category:xpu-cpu-pack-operands | Reason="linalg.matmul: lhs packed into 4-row panels, rhs ([k, n]) into 16-column panels
// PIPELINE: remark: [Passed] Vectorized | Category:xpu-cpu-tile-and-vectorize | Reason="packed GEMM 64x96x128 as one loop nest: rows in blocks of 32 (lhs packed per block), k in 2 block(s) of 64, [4, 16] register tiles
// Without the database (the variable is empty), x86-64-v3's own tiles.
// RUN: env XPU_OPT_TUNING_DB= xpu-run %t/model.mlir --function=forward --xpu-pipeline-options="chip=x86-64-v3 threads=1" --xpu-remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=UNTUNED
// UNTUNED-NOT: TuningDatabase
// UNTUNED: remark: [Passed] Packed | Category:xpu-cpu-pack-operands | Reason="linalg.matmul: lhs packed into 6-row panels
//
// A database that cannot be read: one error line, a non-zero exit.
// RUN: not xpu-opt %t/input.mlir --split-input-file --xpu-cpu-apply-tuning-db=tuning-db=%t/missing.json 2>&1 | FileCheck %s --check-prefix=MISSING -DTMP=%t
// MISSING: error: xpu-cpu-apply-tuning-db: cannot read tuning database '[[TMP]]/missing.json': No such file or directory

//--- input.mlir
// CHECK-LABEL: func.func @tuned_entry_is_used
//       CHECK:   xpu.gemm {{.*}} {xpu.cpu_tiles = {cache_tile = array<i64: 132, 256, 512>, register_tile = array<i64: 6, 64>}}
// REMARKS: remark: [Passed] TuningDatabase | Category:xpu-cpu-apply-tuning-db | Reason="tiles from tuning database '[[TMP]]/db.json' on sapphirerapids, measured 1.25x the default tiles (4000 ns vs 5000 ns): register-tile=6,64 cache-tile=132,256,512"
module attributes {xpu.target = #xpu.target<"sapphirerapids">} {
func.func @tuned_entry_is_used(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>) -> tensor<256x1024xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<256x512xf32>, tensor<512x1024xf32>) -> tensor<256x1024xf32>
  return %g : tensor<256x1024xf32>
}
}

// -----

// Same shapes on another chip: no entry, nothing changes.
// CHECK-LABEL: func.func @other_chip_is_untouched
//   CHECK-NOT:   xpu.cpu_tiles
module attributes {xpu.target = #xpu.target<"znver4">} {
func.func @other_chip_is_untouched(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>) -> tensor<256x1024xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<256x512xf32>, tensor<512x1024xf32>) -> tensor<256x1024xf32>
  return %g : tensor<256x1024xf32>
}
}

// -----

// Only a cache tile: the register tile stays the pipeline's.
// CHECK-LABEL: func.func @cache_tile_only
//       CHECK:   xpu.gemm {{.*}} {xpu.cpu_tiles = {cache_tile = array<i64: 56, 256, 2048>}}
module attributes {xpu.target = #xpu.target<"sapphirerapids">} {
func.func @cache_tile_only(%a: tensor<512x2048xf32>, %b: tensor<2048x512xf32>) -> tensor<512x512xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<512x2048xf32>, tensor<2048x512xf32>) -> tensor<512x512xf32>
  return %g : tensor<512x512xf32>
}
}

// -----

// The default measured fastest: left to the pipeline.
// CHECK-LABEL: func.func @default_is_best
//   CHECK-NOT:   xpu.cpu_tiles
// REMARKS: remark: [Passed] TuningDatabase | Category:xpu-cpu-apply-tuning-db | Reason="tuning database '[[TMP]]/db.json' on sapphirerapids measured the default tiles fastest: left to the pipeline"
module attributes {xpu.target = #xpu.target<"sapphirerapids">} {
func.func @default_is_best(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// Stale entries: a config that is not CPU tiles (a GPU config, or an option
// the pass does not know), and an entry no trial of which completed.
// CHECK-LABEL: func.func @stale_entries_are_ignored
//   CHECK-NOT:   xpu.cpu_tiles
module attributes {xpu.target = #xpu.target<"sapphirerapids">} {
func.func @stale_entries_are_ignored(%a: tensor<32x64xf32>, %b: tensor<64x32xf32>, %c: tensor<48x64xf32>, %d: tensor<16x64xf32>) -> (tensor<32x32xf32>, tensor<48x32xf32>, tensor<16x32xf32>) {
  // expected-warning @+1 {{xpu-cpu-apply-tuning-db: ignoring the entry of tuning database '}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<32x64xf32>, tensor<64x32xf32>) -> tensor<32x32xf32>
  // expected-warning @+1 {{db.json' for this GEMM on sapphirerapids: its config 'threads=1 register-tile=4,16' is not CPU tiles: 'threads=1' is not register-tile=mr,nr or cache-tile=mc,nc,kc; the pipeline's tiles are used}}
  %h = xpu.gemm %c, %b rhs_layout(kn) acc(f32) : (tensor<48x64xf32>, tensor<64x32xf32>) -> tensor<48x32xf32>
  // expected-warning @+1 {{db.json' for this GEMM on sapphirerapids: no trial of it succeeded; the pipeline's tiles are used}}
  %i = xpu.gemm %d, %b rhs_layout(kn) acc(f32) : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
  return %g, %h, %i : tensor<32x32xf32>, tensor<48x32xf32>, tensor<16x32xf32>
}
}

//--- db.json
{
  "format": "xpu-tuning-db",
  "version": 1,
  "entries": [
    {
      "target": "sapphirerapids",
      "signature": {"batch": 1, "m": 256, "n": 1024, "k": 512, "lhs_type": "f32", "rhs_type": "f32", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "identity"},
      "best_config": "register-tile=6,64 cache-tile=132,256,512",
      "best_ns": 4000,
      "default_ns": 5000
    },
    {
      "target": "sapphirerapids",
      "signature": {"batch": 1, "m": 512, "n": 512, "k": 2048, "lhs_type": "f32", "rhs_type": "f32", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "identity"},
      "best_config": "cache-tile=56,256,2048",
      "best_ns": 4000,
      "default_ns": 5000
    },
    {
      "target": "sapphirerapids",
      "signature": {"batch": 1, "m": 64, "n": 64, "k": 64, "lhs_type": "f32", "rhs_type": "f32", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "identity"},
      "best_config": "default",
      "best_ns": 5000,
      "default_ns": 5000
    },
    {
      "target": "sapphirerapids",
      "signature": {"batch": 1, "m": 32, "n": 32, "k": 64, "lhs_type": "f32", "rhs_type": "f32", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "identity"},
      "best_config": "#xpu.config<tile = [64, 128, 32], group_m = 8, subgroups = [2, 4], stages = 3, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>",
      "best_ns": 4000,
      "default_ns": 5000
    },
    {
      "target": "sapphirerapids",
      "signature": {"batch": 1, "m": 48, "n": 32, "k": 64, "lhs_type": "f32", "rhs_type": "f32", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "identity"},
      "best_config": "threads=1 register-tile=4,16",
      "best_ns": 4000,
      "default_ns": 5000
    },
    {
      "target": "sapphirerapids",
      "signature": {"batch": 1, "m": 16, "n": 32, "k": 64, "lhs_type": "f32", "rhs_type": "f32", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "identity"},
      "best_config": "",
      "best_ns": -1,
      "default_ns": 5000
    }
  ]
}

//--- model.mlir
// nn.Linear(128, 96) + ReLU on a [64, 128] input.
func.func @forward(%x: tensor<64x128xf32>, %w: tensor<128x96xf32> {xpu.weight}, %b: tensor<96xf32> {xpu.weight}) -> tensor<64x96xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<64x128xf32>, tensor<128x96xf32>) outs(%z : tensor<64x96xf32>) -> tensor<64x96xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<64x96xf32>, tensor<96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %t = arith.maximumf %s, %cst : f32
    linalg.yield %t : f32
  } -> tensor<64x96xf32>
  return %r : tensor<64x96xf32>
}

//--- model-db.json
{
  "format": "xpu-tuning-db",
  "version": 1,
  "entries": [
    {
      "target": "x86-64-v3",
      "signature": {"batch": 1, "m": 64, "n": 96, "k": 128, "lhs_type": "f32", "rhs_type": "f32", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "per_col:f32|arith.addf,arith.maximumf"},
      "best_config": "register-tile=4,16 cache-tile=32,64,64",
      "best_ns": 4000,
      "default_ns": 5000
    }
  ]
}
