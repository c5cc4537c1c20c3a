// RUN: xpu-opt %s --split-input-file --xpu-write-results-in-place | FileCheck %s
// RUN: xpu-opt %s --split-input-file --xpu-write-results-in-place --xpu-remarks --verify-diagnostics --mlir-disable-threading > /dev/null

// The entry copies @f's result into the buffer it was given: @f's body moves
// to @f.in_place, which computes in that buffer; @f keeps its signature and
// allocates, then calls @f.in_place; the copy is gone and the mark removed.
// @f.in_place is not inlined by LLVM (`passthrough = ["noinline"]`): the
// kernels would be compiled again in @f and in each C wrapper.
// CHECK-LABEL: func.func @f(
//  CHECK-SAME:     %[[X:.+]]: memref<4x8xf32>) -> memref<4x8xf32>
//       CHECK:   %[[A:.+]] = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
//       CHECK:   call @f.in_place(%[[X]], %[[A]]) : (memref<4x8xf32>, memref<4x8xf32>) -> ()
//       CHECK:   return %[[A]]
// CHECK-LABEL: func.func private @f.in_place(
//  CHECK-SAME:     %[[IX:.+]]: memref<4x8xf32>, %[[OUT:.+]]: memref<4x8xf32>)
//  CHECK-SAME:     attributes {passthrough = ["noinline"]}
//   CHECK-NOT:   memref.alloc
//       CHECK:   linalg.exp ins(%[[IX]] : memref<4x8xf32>) outs(%[[OUT]] : memref<4x8xf32>)
//       CHECK:   return{{$}}
// CHECK-LABEL: func.func @entry(
//  CHECK-SAME:     %[[EX:.+]]: memref<4x8xf32>, %[[EOUT:[a-z0-9]+]]: memref<4x8xf32>)
//   CHECK-NOT:     xpu.result_buffer
//       CHECK:   call @f.in_place(%[[EX]], %[[EOUT]])
//   CHECK-NOT:   memref.copy
//       CHECK:   return
func.func @f(%x: memref<4x8xf32>) -> memref<4x8xf32> {
  %a = memref.alloc() {alignment = 64 : i64} : memref<4x8xf32>
  linalg.exp ins(%x : memref<4x8xf32>) outs(%a : memref<4x8xf32>)
  return %a : memref<4x8xf32>
}
func.func @entry(%x: memref<4x8xf32>, %out: memref<4x8xf32> {xpu.result_buffer}) {
  // expected-remark @+1 {{result #0 of @f is computed in the caller's buffer (argument #1 of @entry) by @f.in_place: no copy}}
  %r = call @f(%x) : (memref<4x8xf32>) -> memref<4x8xf32>
  memref.copy %r, %out : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// Two results, one of which is the callee's argument: only the allocated
// one is written in place; the other keeps its copy.
// CHECK-LABEL: func.func @g(
//       CHECK:   %[[A:.+]] = memref.alloc()
//       CHECK:   call @g.in_place(%{{.+}}, %[[A]])
//       CHECK:   return %{{.+}}, %[[A]]
// CHECK-LABEL: func.func @entry2(
//       CHECK:   %[[R:.+]] = call @g.in_place(%[[X:.+]], %[[O1:[a-z0-9]+]])
//       CHECK:   memref.copy %[[R]], %{{.+}}
func.func @g(%x: memref<4xf32>) -> (memref<4xf32>, memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  return %x, %a : memref<4xf32>, memref<4xf32>
}
func.func @entry2(%x: memref<4xf32>, %o0: memref<4xf32> {xpu.result_buffer}, %o1: memref<4xf32> {xpu.result_buffer}) {
  // expected-remark @+2 {{result #0 of @g is copied into the caller's buffer: the callee does not return a buffer it allocates}}
  // expected-remark @+1 {{result #1 of @g is computed in the caller's buffer (argument #2 of @entry2) by @g.in_place: no copy}}
  %r:2 = call @g(%x) : (memref<4xf32>) -> (memref<4xf32>, memref<4xf32>)
  memref.copy %r#0, %o0 : memref<4xf32> to memref<4xf32>
  memref.copy %r#1, %o1 : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Refusals, each with its reason: an alignment the caller's buffer does not
// promise, a buffer the callee also reads, a buffer used before the copy.
// CHECK-LABEL: func.func @entry3(
//   CHECK-COUNT-3: memref.copy
func.func @aligned(%x: memref<16xf32>) -> memref<16xf32> {
  %a = memref.alloc() {alignment = 128 : i64} : memref<16xf32>
  linalg.exp ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  return %a : memref<16xf32>
}
func.func @entry3(%x: memref<16xf32>, %o0: memref<16xf32> {xpu.result_buffer}, %o1: memref<16xf32> {xpu.result_buffer}, %o2: memref<16xf32> {xpu.result_buffer}) {
  // expected-remark @+1 {{result #0 of @aligned is copied into the caller's buffer: the callee aligns its buffer to 128 bytes, more than the 64 a result buffer has}}
  %r0 = call @aligned(%x) : (memref<16xf32>) -> memref<16xf32>
  memref.copy %r0, %o0 : memref<16xf32> to memref<16xf32>
  // expected-remark @+1 {{result #0 of @aligned is copied into the caller's buffer: the call also reads the result's buffer}}
  %r1 = call @aligned(%o1) : (memref<16xf32>) -> memref<16xf32>
  memref.copy %r1, %o1 : memref<16xf32> to memref<16xf32>
  // expected-remark @+1 {{result #0 of @aligned is copied into the caller's buffer: the buffer is used between the call and the copy}}
  %r2 = call @aligned(%x) : (memref<16xf32>) -> memref<16xf32>
  linalg.exp ins(%x : memref<16xf32>) outs(%o2 : memref<16xf32>)
  memref.copy %r2, %o2 : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Without the mark nothing changes.
// CHECK-LABEL: func.func @entry4(
//       CHECK:   %[[R:.+]] = call @h(
//       CHECK:   memref.copy %[[R]]
func.func @h(%x: memref<4xf32>) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  linalg.exp ins(%x : memref<4xf32>) outs(%a : memref<4xf32>)
  return %a : memref<4xf32>
}
func.func @entry4(%x: memref<4xf32>, %out: memref<4xf32>) {
  %r = call @h(%x) : (memref<4xf32>) -> memref<4xf32>
  memref.copy %r, %out : memref<4xf32> to memref<4xf32>
  return
}
