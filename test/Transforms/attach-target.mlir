// RUN: xpu-opt %s --split-input-file --xpu-attach-target=chip=bmg | FileCheck %s
// RUN: xpu-opt %s --split-input-file --xpu-attach-target --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null
// RUN: not xpu-opt %s --split-input-file --xpu-attach-target=chip=mi300 2>&1 | FileCheck %s --check-prefix=BAD

// A module without a target gets the preset.
// CHECK-LABEL: module attributes {xpu.target = #xpu.target<"bmg">}
// CHECK: func.func @gets_the_preset
module {
func.func @gets_the_preset() {
  return
}
}

// -----

// A target written by hand wins (with its overrides); the remark says so
// when it names another chip (the second run attaches pvc).
// CHECK-LABEL: module attributes {xpu.target = #xpu.target<"sm_90", compute_units = 8>}
// CHECK: func.func @hand_target_is_kept
// expected-remark @below {{the module's own target 'sm_90' is kept (not replaced by 'pvc')}}
module attributes {xpu.target = #xpu.target<"sm_90", compute_units = 8>} {
func.func @hand_target_is_kept() {
  return
}
}

// BAD: error: xpu-attach-target: unknown chip 'mi300' (presets: pvc, bmg, sm_80, sm_90, sm_90a, cpu, x86-64-v3, x86-64-v4, sapphirerapids, cooperlake, znver4)
