// RUN: xpu-opt %s --split-input-file --xpu-outline-weight-pack | FileCheck %s
// Remarks: upstream's remark engine drops remarks of split chunks processed
// on other threads, so this run is single-threaded.
// RUN: xpu-opt %s --split-input-file --xpu-outline-weight-pack --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// nn.Linear whose weight is scaled per output channel and transposed before
// the matmul (the weight and the scale are marked xpu.weight). The scale and
// the transpose move to @forward.pack; the zero fill (constants only) stays
// with the matmul; @forward keeps its signature.
// CHECK-LABEL: func.func @forward
//  CHECK-SAME:   (%[[X:[a-z0-9]+]]: tensor<16x64xf32>, %[[W:[a-z0-9]+]]: tensor<32x64xf32> {xpu.weight}, %[[S:[a-z0-9]+]]: tensor<32xf32> {xpu.weight}) -> tensor<16x32xf32>
//  CHECK-NEXT:   %[[P:.+]] = call @forward.pack(%[[W]], %[[S]]) : (tensor<32x64xf32>, tensor<32xf32>) -> tensor<64x32xf32>
//  CHECK-NEXT:   %[[R:.+]] = call @forward.packed(%[[X]], %[[P]]) : (tensor<16x64xf32>, tensor<64x32xf32>) -> tensor<16x32xf32>
//  CHECK-NEXT:   return %[[R]] : tensor<16x32xf32>
//       CHECK: func.func @forward.pack(%[[W:[a-z0-9]+]]: tensor<32x64xf32>, %[[S:[a-z0-9]+]]: tensor<32xf32>) -> tensor<64x32xf32>
//  CHECK-SAME:   attributes {llvm.emit_c_interface, xpu.pack_part = "pack"}
//   CHECK-NOT:   linalg.fill
//       CHECK:   %[[WS:.+]] = linalg.generic {{.*}} ins(%[[W]], %[[S]] : tensor<32x64xf32>, tensor<32xf32>)
//       CHECK:   %[[WT:.+]] = linalg.transpose ins(%[[WS]] : tensor<32x64xf32>)
//   CHECK-NOT:   linalg.matmul
//       CHECK:   return %[[WT]] : tensor<64x32xf32>
//       CHECK: func.func @forward.packed(%[[X:[a-z0-9]+]]: tensor<16x64xf32>, %[[WT:[a-z0-9]+]]: tensor<64x32xf32>) -> tensor<16x32xf32>
//  CHECK-SAME:   attributes {llvm.emit_c_interface, xpu.pack_part = "packed"}
//   CHECK-NOT:   linalg.generic
//   CHECK-NOT:   linalg.transpose
//       CHECK:   %[[Z:.+]] = linalg.fill
//       CHECK:   %[[MM:.+]] = linalg.matmul ins(%[[X]], %[[WT]] : tensor<16x64xf32>, tensor<64x32xf32>) outs(%[[Z]] : tensor<16x32xf32>)
//       CHECK:   return %[[MM]]
// expected-remark @+1 {{@forward: moved 2 op(s) that depend only on the weights (args #1, #2) into @forward.pack, which returns 1 packed value(s); @forward.packed takes the inputs (args #0) and the packed values}}
func.func @forward(%x: tensor<16x64xf32>, %w: tensor<32x64xf32> {xpu.weight}, %s: tensor<32xf32> {xpu.weight}) -> tensor<16x32xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<32x64xf32>
  %ws = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%w, %s : tensor<32x64xf32>, tensor<32xf32>) outs(%e0 : tensor<32x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<32x64xf32>
  %e1 = tensor.empty() : tensor<64x32xf32>
  %wt = linalg.transpose ins(%ws : tensor<32x64xf32>) outs(%e1 : tensor<64x32xf32>) permutation = [1, 0]
  %e2 = tensor.empty() : tensor<16x32xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<16x64xf32>, tensor<64x32xf32>) outs(%z : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %mm : tensor<16x32xf32>
}

// -----

// Marked weights win over auto: %w is a weight, %b (not marked) is an input.
// The folded BatchNorm's inv_std generic (with torch-mlir's cf.assert) moves
// too; eps, read by the pack side only, is cloned there. A weight the rest
// reads as it is (%g) goes to @marked.packed directly; the other weights are
// not passed to it. The parts carry no weight marks: they are split already,
// and their C wrappers would put the marks on pointers.
// CHECK-LABEL: func.func @marked
//  CHECK-SAME:   (%[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[W:[a-z0-9]+]]: tensor<4x16xf32> {xpu.weight}, %[[V:[a-z0-9]+]]: tensor<4xf32> {xpu.weight}, %[[G:[a-z0-9]+]]: tensor<4xf32> {xpu.weight}, %[[B:[a-z0-9]+]]: tensor<4xf32>)
//  CHECK-NEXT:   %[[P:.+]]:2 = call @marked.pack(%[[W]], %[[V]], %[[G]])
//  CHECK-NEXT:   %[[R:.+]] = call @marked.packed(%[[X]], %[[B]], %[[G]], %[[P]]#0, %[[P]]#1) : (tensor<8x16xf32>, tensor<4xf32>, tensor<4xf32>, tensor<16x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
//  CHECK-NEXT:   return %[[R]]
//       CHECK: func.func @marked.pack(%{{.+}}: tensor<4x16xf32>, %{{.+}}: tensor<4xf32>, %{{.+}}: tensor<4xf32>) -> (tensor<16x4xf32>, tensor<4xf32>)
//       CHECK:   arith.constant 9.99999974E-6 : f32
//       CHECK:   linalg.transpose
//       CHECK:   linalg.generic
//       CHECK:     math.sqrt
//       CHECK:     cf.assert
//       CHECK:   return
//       CHECK: func.func @marked.packed(%{{.+}}: tensor<8x16xf32>, %[[B:[a-z0-9]+]]: tensor<4xf32>, %[[G:[a-z0-9]+]]: tensor<4xf32>, %[[WT:[a-z0-9]+]]: tensor<16x4xf32>, %[[INV:[a-z0-9]+]]: tensor<4xf32>) -> tensor<8x4xf32>
//   CHECK-NOT:   9.99999974E-6
//       CHECK:   linalg.matmul ins(%{{.+}}, %[[WT]] :
//       CHECK:   linalg.generic {{.*}} ins(%{{.+}}, %[[B]], %[[INV]], %[[G]] :
// expected-remark @+1 {{@marked: moved 2 op(s) that depend only on the weights (args #1, #2, #3) into @marked.pack, which returns 2 packed value(s); @marked.packed takes the inputs (args #0, #4), the weights it reads as they are (args #3) and the packed values}}
func.func @marked(%x: tensor<8x16xf32>, %w: tensor<4x16xf32> {xpu.weight}, %var: tensor<4xf32> {xpu.weight},
                  %g: tensor<4xf32> {xpu.weight}, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %eps = arith.constant 1.000000e-05 : f32
  %one = arith.constant 1.000000e+00 : f32
  %e0 = tensor.empty() : tensor<16x4xf32>
  %wt = linalg.transpose ins(%w : tensor<4x16xf32>) outs(%e0 : tensor<16x4xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<4xf32>
  %inv = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%var : tensor<4xf32>) outs(%e1 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %eps : f32
    %1 = math.sqrt %0 : f32
    %2 = arith.cmpf one, %1, %cst : f32
    cf.assert %2, "unimplemented: tensor with zero element"
    %3 = arith.divf %one, %1 : f32
    linalg.yield %3 : f32
  } -> tensor<4xf32>
  %e2 = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e2 : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b, %inv, %g : tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) outs(%e2 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %vb: f32, %vi: f32, %vg: f32, %o: f32):
    %0 = arith.addf %a, %vb : f32
    %1 = arith.mulf %0, %vi : f32
    %2 = arith.mulf %1, %vg : f32
    linalg.yield %2 : f32
  } -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// The weights are read as they are: nothing to move.
// CHECK-LABEL: func.func @nothing_to_outline
//   CHECK-NOT:   call
//       CHECK:   xpu.gemm
//   CHECK-NOT: func.func @nothing_to_outline.pack
// expected-remark @+1 {{@nothing_to_outline: no computation depends only on the weights (args #1, #2)}}
func.func @nothing_to_outline(%x: tensor<8x16xf32>, %w: tensor<4x16xf32> {xpu.weight}, %b: tensor<4xf32> {xpu.weight}) -> tensor<8x4xf32> {
  %y = xpu.gemm %x, %w rhs_layout(nk) acc(f32) epilogue(%b per_col : tensor<4xf32>) {
  ^bb0(%acc: f32, %vb: f32):
    %0 = arith.addf %acc, %vb : f32
    xpu.yield %0 : f32
  } : (tensor<8x16xf32>, tensor<4x16xf32>) -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}

// -----

// Computation on constants only is left to folding, not moved.
// CHECK-LABEL: func.func @constants_only
//   CHECK-NOT:   call
//       CHECK:   linalg.fill
// expected-remark @+1 {{@constants_only: no computation depends only on the weights (args #1)}}
func.func @constants_only(%x: tensor<8x16xf32>, %w: tensor<16x4xf32> {xpu.weight}) -> tensor<8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %mm : tensor<8x4xf32>
}

// -----

// CHECK-LABEL: func.func @single_argument
//   CHECK-NOT:   call
// expected-remark @+1 {{@single_argument: the function has no weights (no argument is marked xpu.weight; an unmarked argument may be an activation)}}
func.func @single_argument(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %e = tensor.empty() : tensor<8x16xf32>
  %t = linalg.copy ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %t : tensor<8x16xf32>
}

// -----

// A call may have side effects: it stays, and so does what depends on it.
// CHECK-LABEL: func.func @side_effects_stay
//   CHECK-NOT:   @side_effects_stay.pack
//       CHECK:   call @helper
// expected-remark @+1 {{@side_effects_stay: no computation depends only on the weights (args #1)}}
func.func @side_effects_stay(%x: tensor<4xf32>, %w: tensor<4xf32> {xpu.weight}) -> tensor<4xf32> {
  %h = call @helper(%w) : (tensor<4xf32>) -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%x, %h : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @helper(tensor<4xf32>) -> tensor<4xf32>

// -----

// The weight-only computation is dead.
// CHECK-LABEL: func.func @unused_weight_computation
//   CHECK-NOT:   call
// expected-remark @+1 {{@unused_weight_computation: the computation on the weights is not used}}
func.func @unused_weight_computation(%x: tensor<4xf32>, %w: tensor<4xf32> {xpu.weight}) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %dead = linalg.add ins(%w, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @two_blocks
//   CHECK-NOT:   call
// expected-remark @+1 {{@two_blocks: the body has 2 blocks; only single-block functions are outlined}}
func.func @two_blocks(%x: tensor<4xf32>, %w: tensor<4xf32> {xpu.weight}) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.add ins(%w, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  cf.br ^bb1
^bb1:
  return %r : tensor<4xf32>
}

// -----

// The names are taken.
// CHECK-LABEL: func.func @taken
//   CHECK-NOT:   call
// expected-remark @+1 {{@taken: the symbol @taken.pack already exists}}
func.func @taken(%x: tensor<4xf32>, %w: tensor<4xf32> {xpu.weight}) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %w2 = linalg.add ins(%w, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.add ins(%x, %w2 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @taken.pack()

// -----

// Private functions and functions without tensor arguments are not model
// entry points: untouched, no remark.
// CHECK-LABEL: func.func private @private_helper
//   CHECK-NOT:   call
// CHECK-LABEL: func.func @no_tensor_arguments
//   CHECK-NOT:   call
//   CHECK-NOT: func.func @private_helper.pack
func.func private @private_helper(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %w2 = linalg.add ins(%w, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.add ins(%x, %w2 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @no_tensor_arguments(%a: f32, %b: f32) -> f32 {
  %s = arith.mulf %b, %b : f32
  %r = arith.addf %a, %s : f32
  return %r : f32
}

// -----

// The views xpu-materialize-layouts leaves (a row pitch, a panel's row 0)
// compute nothing: they stay with the GEMM in @layouts.packed, and pack
// returns what they view (the padded weight, the bias panel), so the
// packed layout survives the function boundary.
// CHECK-LABEL: func.func @layouts(
//       CHECK:   call @layouts.pack
//       CHECK: func.func @layouts.pack(
//       CHECK:   %[[WP:.+]] = tensor.pad
//       CHECK:   %[[PANEL:.+]] = linalg.broadcast
//   CHECK-NOT:   tensor.extract_slice
//       CHECK:   return %[[WP]], %[[PANEL]] : tensor<16x32xf32>, tensor<8x24xf32>
//       CHECK: func.func @layouts.packed(%[[X:[a-z0-9]+]]: tensor<8x16xf32>, %[[WP:[a-z0-9]+]]: tensor<16x32xf32>, %[[PANEL:[a-z0-9]+]]: tensor<8x24xf32>)
//       CHECK:   %[[WV:.+]] = tensor.extract_slice %[[WP]][0, 0] [16, 24] [1, 1] : tensor<16x32xf32> to tensor<16x24xf32>
//       CHECK:   %[[BV:.+]] = tensor.extract_slice %[[PANEL]][0, 0] [1, 24] [1, 1] {xpu.panel} : tensor<8x24xf32> to tensor<24xf32>
//       CHECK:   xpu.gemm %[[X]], %[[WV]] rhs_layout(kn) acc(f32) epilogue(%[[BV]] per_col
// expected-remark @+1 {{@layouts: moved 2 op(s) that depend only on the weights (args #1, #2) into @layouts.pack, which returns 2 packed value(s)}}
func.func @layouts(%x: tensor<8x16xf32>, %w: tensor<16x24xf32> {xpu.weight}, %b: tensor<24xf32> {xpu.weight}) -> tensor<8x24xf32> {
  %zero = arith.constant 0.0 : f32
  %wp = tensor.pad %w low[0, 0] high[0, 8] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<16x24xf32> to tensor<16x32xf32>
  %wv = tensor.extract_slice %wp[0, 0] [16, 24] [1, 1] : tensor<16x32xf32> to tensor<16x24xf32>
  %e = tensor.empty() : tensor<8x24xf32>
  %panel = linalg.broadcast ins(%b : tensor<24xf32>) outs(%e : tensor<8x24xf32>) dimensions = [0]
  %bv = tensor.extract_slice %panel[0, 0] [1, 24] [1, 1] {xpu.panel} : tensor<8x24xf32> to tensor<24xf32>
  %y = xpu.gemm %x, %wv rhs_layout(kn) acc(f32) epilogue(%bv per_col : tensor<24xf32>) {
  ^bb0(%acc: f32, %v: f32):
    %s = arith.addf %acc, %v : f32
    xpu.yield %s : f32
  } : (tensor<8x16xf32>, tensor<16x24xf32>) -> tensor<8x24xf32>
  return %y : tensor<8x24xf32>
}

// -----

// The parts of an earlier run are public, but marked xpu.pack_part: a
// second run leaves them alone.
// CHECK-LABEL: func.func @again.pack(
//   CHECK-NOT: call
//   CHECK-NOT: @again.pack.pack
//   CHECK-NOT: @again.packed.pack
func.func @again.pack(%w: tensor<4xf32>) -> tensor<4xf32> attributes {xpu.pack_part = "pack"} {
  %e = tensor.empty() : tensor<4xf32>
  %w2 = linalg.add ins(%w, %w : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %w2 : tensor<4xf32>
}
func.func @again.packed(%x: tensor<4xf32>, %w2: tensor<4xf32>) -> tensor<4xf32> attributes {xpu.pack_part = "packed"} {
  %e = tensor.empty() : tensor<4xf32>
  %w3 = linalg.add ins(%w2, %w2 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.add ins(%x, %w3 : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// bmm of two activations plus a residual, none marked (a module without
// parameters): every argument is an input, so the transpose of %b stays in
// @bmm and nothing is packed. A caller that packs once and then feeds new
// inputs would otherwise keep the first call's %b.
// CHECK-LABEL: func.func @bmm
//   CHECK-NOT:   call @bmm.pack
//       CHECK:   linalg.transpose
//       CHECK:   xpu.gemm
// CHECK-NOT: func.func @bmm.pack
// expected-remark @+1 {{@bmm: the function has no weights (no argument is marked xpu.weight; an unmarked argument may be an activation)}}
func.func @bmm(%a: tensor<4x16x32xf32>, %b: tensor<4x24x32xf32>, %r: tensor<4x16x24xf32>) -> tensor<4x16x24xf32> {
  %e = tensor.empty() : tensor<4x32x24xf32>
  %bt = linalg.transpose ins(%b : tensor<4x24x32xf32>) outs(%e : tensor<4x32x24xf32>) permutation = [0, 2, 1]
  %g = xpu.gemm %a, %bt rhs_layout(kn) acc(f32) epilogue(%r full : tensor<4x16x24xf32>) {
  ^bb0(%acc: f32, %res: f32):
    %0 = arith.addf %acc, %res : f32
    xpu.yield %0 : f32
  } : (tensor<4x16x32xf32>, tensor<4x32x24xf32>) -> tensor<4x16x24xf32>
  return %g : tensor<4x16x24xf32>
}

// -----

// `a @ b.T` of two inputs (a module without parameters): the transpose of
// %b depends on %b alone, but %b is no weight, so it stays.
// CHECK-LABEL: func.func @matmul_of_inputs
//   CHECK-NOT:   call
//       CHECK:   linalg.transpose
//       CHECK:   linalg.matmul
// CHECK-NOT: func.func @matmul_of_inputs.pack
// expected-remark @+1 {{@matmul_of_inputs: the function has no weights (no argument is marked xpu.weight; an unmarked argument may be an activation)}}
func.func @matmul_of_inputs(%a: tensor<8x16xf32>, %b: tensor<4x16xf32>) -> tensor<8x4xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %et = tensor.empty() : tensor<16x4xf32>
  %bt = linalg.transpose ins(%b : tensor<4x16xf32>) outs(%et : tensor<16x4xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<8x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %mm = linalg.matmul ins(%a, %bt : tensor<8x16xf32>, tensor<16x4xf32>) outs(%z : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %mm : tensor<8x4xf32>
}
