// RUN: xpu-opt %s --split-input-file \
// RUN:   --xpu-cpu-target-features="cpu=x86-64-v3 features=avx2,+fma,-avx512f" \
// RUN:   | FileCheck %s
// RUN: not xpu-opt %s --split-input-file --xpu-cpu-target-features 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-CPU

// Every function with a body gets the CPU and the features, each with the
// sign LLVM expects (+ added where none is given); declarations are left
// alone.
// CHECK-LABEL: llvm.func @defined()
//  CHECK-SAME:   attributes {target_cpu = "x86-64-v3", target_features = #llvm.target_features<["+avx2", "+fma", "-avx512f"]>}
// CHECK-LABEL: llvm.func @declared()
//   CHECK-NOT:   target_cpu
module {
  llvm.func @defined() {
    llvm.return
  }
  llvm.func @declared()
}

// -----

// A function that already names its CPU and features keeps them.
// CHECK-LABEL: llvm.func @own_target()
//  CHECK-SAME:   target_cpu = "znver4"
//  CHECK-SAME:   target_features = #llvm.target_features<["+sse4a"]>
module {
  llvm.func @own_target() attributes {target_cpu = "znver4", target_features = #llvm.target_features<["+sse4a"]>} {
    llvm.return
  }
}

// NO-CPU: error: xpu-cpu-target-features: option 'cpu' must name an LLVM CPU
