// xpu-select-strategy's tuning-db: a GEMM whose chip and signature have an
// entry gets the entry's config (a remark names the database and the
// measured gain); an entry that no longer verifies is ignored with a
// warning and the cost model chooses. The databases are written here.
// RUN: rm -rf %t && split-file %s %t
// RUN: xpu-opt %t/input.mlir --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{tuning-db=%t/db.json}))' | FileCheck %s
// RUN: xpu-opt %t/input.mlir --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{tuning-db=%t/db.json}))' --verify-diagnostics -o /dev/null
// RUN: xpu-opt %t/input.mlir --split-input-file --pass-pipeline='builtin.module(func.func(xpu-select-strategy{tuning-db=%t/db.json}))' --xpu-remarks --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARKS -DTMP=%t
// The pipelines pass the option on.
// RUN: xpu-opt %t/input.mlir --split-input-file --xpu-xe-pipeline='tuning-db=%t/db.json optimize=false' --xpu-remarks --mlir-disable-threading -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: remark: [Passed] TuningDatabase | Category:xpu-select-strategy | Reason="config from tuning database
// Bad databases: one error line each, and a non-zero exit.
// RUN: not xpu-opt %t/one.mlir --pass-pipeline='builtin.module(func.func(xpu-select-strategy{tuning-db=%t/missing.json}))' 2>&1 | FileCheck %s --check-prefix=MISSING -DTMP=%t
// MISSING: error: xpu-select-strategy: cannot read tuning database '[[TMP]]/missing.json': No such file or directory
// MISSING-NOT: error
// RUN: not xpu-opt %t/one.mlir --pass-pipeline='builtin.module(func.func(xpu-select-strategy{tuning-db=%t/v2.json}))' 2>&1 | FileCheck %s --check-prefix=VERSION -DTMP=%t
// VERSION: error: xpu-select-strategy: tuning database '[[TMP]]/v2.json': version 2, but this compiler reads version 1; tune again with this xpu-tune
// RUN: not xpu-opt %t/one.mlir --pass-pipeline='builtin.module(func.func(xpu-select-strategy{tuning-db=%t/bad.json}))' 2>&1 | FileCheck %s --check-prefix=BAD -DTMP=%t
// BAD: error: xpu-select-strategy: tuning database '[[TMP]]/bad.json': expected integer at entries[0].signature.m
// BAD-NOT: error

//--- input.mlir
// The entry's config (tile [64, 128, 32]) is not the model's ([32, 64, 32]).
// CHECK-LABEL: func.func @tuned_entry_is_used
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [64, 128, 32], group_m = 8, subgroups = [2, 4], stages = 3, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>}
// REMARKS: remark: [Passed] TuningDatabase | Category:xpu-select-strategy | Reason="config from tuning database '[[TMP]]/db.json' on pvc, measured 1.25x the default config (4000 ns vs 5000 ns): tile [64, 128, 32]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @tuned_entry_is_used(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<256x512xbf16>, tensor<512x1024xbf16>) -> tensor<256x1024xf32>
  return %g : tensor<256x1024xf32>
}
}

// -----

// Same shapes on another chip: no entry, the model chooses.
// CHECK-LABEL: func.func @other_chip_uses_the_model
//   CHECK-NOT:   tile = [64, 128, 32]
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<
// REMARKS-NOT: TuningDatabase
module attributes {xpu.target = #xpu.target<"bmg">} {
func.func @other_chip_uses_the_model(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<256x512xbf16>, tensor<512x1024xbf16>) -> tensor<256x1024xf32>
  return %g : tensor<256x1024xf32>
}
}

// -----

// The epilogue is part of the signature: a GEMM with a bias has no entry.
// CHECK-LABEL: func.func @other_epilogue_uses_the_model
//   CHECK-NOT:   tile = [64, 128, 32]
//       CHECK:   {config = #xpu.config<
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @other_epilogue_uses_the_model(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>, %bias: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) epilogue(%bias per_col : tensor<1024xf32>) {
  ^bb0(%acc: f32, %x: f32):
    %s = arith.addf %acc, %x : f32
    xpu.yield %s : f32
  } : (tensor<256x512xbf16>, tensor<512x1024xbf16>) -> tensor<256x1024xf32>
  return %g : tensor<256x1024xf32>
}
}

// -----

// A stale entry: 64 / 8 = 8 columns per subgroup, not a multiple of DPAS's
// n = 16; the warning says why and the model chooses.
// CHECK-LABEL: func.func @stale_entry_is_refused
//   CHECK-NOT:   subgroups = [1, 8]
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @stale_entry_is_refused(%a: tensor<1024x2048xbf16>, %b: tensor<2048x2048xbf16>) -> tensor<1024x2048xf32> {
  // expected-warning @+1 {{db.json' for this GEMM on pvc: its config is invalid: tile [64, 64, 32] on subgroups [1, 8]: each subgroup block must be a multiple of 8x16 and tile_k a multiple of 16 (DPAS); the cost model chooses}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<1024x2048xbf16>, tensor<2048x2048xbf16>) -> tensor<1024x2048xf32>
  return %g : tensor<1024x2048xf32>
}
}

// -----

// An entry whose config no longer parses (a removed knob) is stale too.
// CHECK-LABEL: func.func @unparsable_entry_is_refused
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @unparsable_entry_is_refused(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  // expected-warning @+1 {{for this GEMM on pvc: its config '#xpu.config<tile = [64, 64, 32], warp_count = 4>' does not parse: expected 'group_m'; the cost model chooses}}
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

// -----

// A config written by hand wins over the database.
// CHECK-LABEL: func.func @hand_config_wins
//       CHECK:   xpu.gemm {{.*}} {config = #xpu.config<tile = [32, 32, 32]
module attributes {xpu.target = #xpu.target<"pvc">} {
func.func @hand_config_wins(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) {config = #xpu.config<tile = [32, 32, 32], group_m = 8, subgroups = [1, 2], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>} : (tensor<256x512xbf16>, tensor<512x1024xbf16>) -> tensor<256x1024xf32>
  return %g : tensor<256x1024xf32>
}
}

//--- one.mlir
module {
func.func @one(%a: tensor<64x64xbf16>, %b: tensor<64x64xbf16>) -> tensor<64x64xf32> {
  %g = xpu.gemm %a, %b rhs_layout(kn) acc(f32) : (tensor<64x64xbf16>, tensor<64x64xbf16>) -> tensor<64x64xf32>
  return %g : tensor<64x64xf32>
}
}

//--- db.json
{
  "format": "xpu-tuning-db",
  "version": 1,
  "entries": [
    {
      "target": "pvc",
      "signature": {"batch": 1, "m": 256, "n": 1024, "k": 512, "lhs_type": "bf16", "rhs_type": "bf16", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "identity"},
      "best_config": "#xpu.config<tile = [64, 128, 32], group_m = 8, subgroups = [2, 4], stages = 3, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>",
      "best_ns": 4000,
      "default_ns": 5000,
      "trials": []
    },
    {
      "target": "pvc",
      "signature": {"batch": 1, "m": 1024, "n": 2048, "k": 2048, "lhs_type": "bf16", "rhs_type": "bf16", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "identity"},
      "best_config": "#xpu.config<tile = [64, 64, 32], group_m = 8, subgroups = [1, 8], stages = 2, schedule = data_parallel, backend = #xpu.xe<grf_mode = 128>>",
      "best_ns": 1000,
      "default_ns": 2000
    },
    {
      "target": "pvc",
      "signature": {"batch": 1, "m": 64, "n": 64, "k": 64, "lhs_type": "bf16", "rhs_type": "bf16", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "identity"},
      "best_config": "#xpu.config<tile = [64, 64, 32], warp_count = 4>",
      "best_ns": 1000,
      "default_ns": 2000
    }
  ]
}

//--- v2.json
{"format": "xpu-tuning-db", "version": 2, "entries": []}

//--- bad.json
{"format": "xpu-tuning-db", "version": 1, "entries": [{"target": "pvc", "best_config": "", "best_ns": 1, "signature": {"batch": 1, "m": "many", "n": 1, "k": 1, "lhs_type": "f32", "rhs_type": "f32", "acc_type": "f32", "result_type": "f32", "rhs_layout": "kn", "epilogue": "identity"}}]}
