// weights=marked: only arguments marked xpu.weight are weights.
// RUN: xpu-opt %s --split-input-file --xpu-outline-weight-pack=weights=marked | FileCheck %s
// RUN: xpu-opt %s --split-input-file --xpu-outline-weight-pack=weights=marked --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null
// Running the pass again changes nothing: @f calls a function, which may
// have side effects, and the parts are private.
// RUN: xpu-opt %s --split-input-file --xpu-outline-weight-pack=weights=marked --xpu-outline-weight-pack=weights=marked | FileCheck %s
// RUN: not xpu-opt %s --split-input-file --xpu-outline-weight-pack=weights=sometimes 2>&1 | FileCheck %s --check-prefix=BAD

// BAD: error: xpu-outline-weight-pack: weights must be 'auto' or 'marked' (both: the arguments marked xpu.weight), got 'sometimes'
// weights=auto is a deprecated spelling of weights=marked (the default): it
// splits the same way, and a warning says so.
// RUN: xpu-opt %s --split-input-file --xpu-outline-weight-pack=weights=auto 2>/dev/null | FileCheck %s
// RUN: xpu-opt %s --split-input-file --xpu-outline-weight-pack=weights=auto -o /dev/null 2>&1 | FileCheck %s --check-prefix=AUTO
// AUTO: warning: xpu-outline-weight-pack: weights=auto is deprecated, it means weights=marked (the arguments marked xpu.weight)

// CHECK-LABEL: func.func @f
//  CHECK-SAME:   (%[[X:[a-z0-9]+]]: tensor<4xf32>, %[[A:[a-z0-9]+]]: tensor<4xf32>, %[[W:[a-z0-9]+]]: tensor<4xf32> {xpu.weight})
//  CHECK-NEXT:   %[[P:.+]] = call @f.pack(%[[W]]) : (tensor<4xf32>) -> tensor<4xf32>
//  CHECK-NEXT:   %[[R:.+]] = call @f.packed(%[[X]], %[[A]], %[[P]])
//       CHECK: func.func @f.pack(
//   CHECK-NOT: func.func @f.pack.pack
//   CHECK-NOT: func.func @f.packed.pack
// expected-remark @+1 {{@f: moved 1 op(s) that depend only on the weights (args #2) into @f.pack, which returns 1 packed value(s); @f.packed takes the inputs (args #0, #1) and the packed values}}
func.func @f(%x: tensor<4xf32>, %a: tensor<4xf32>, %w: tensor<4xf32> {xpu.weight}) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %w2 = linalg.add ins(%w, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %a2 = linalg.add ins(%a, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.add ins(%x, %w2 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r2 = linalg.add ins(%r, %a2 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r2 : tensor<4xf32>
}

// -----

// Nothing is marked: no weights.
// CHECK-LABEL: func.func @unmarked
//   CHECK-NOT:   call
// expected-remark @+1 {{@unmarked: the function has no weights (no argument is marked xpu.weight; an unmarked argument may be an activation)}}
func.func @unmarked(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %w2 = linalg.add ins(%w, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.add ins(%x, %w2 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
