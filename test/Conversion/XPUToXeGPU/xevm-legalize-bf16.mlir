// RUN: xpu-opt %s --split-input-file --pass-pipeline='builtin.module(gpu.module(xpu-xevm-legalize-bf16))' --verify-diagnostics | FileCheck %s

// bf16 loads, stores, conversions, selects, addresses and loop-carried
// values of an XeVM kernel in 16-bit integers (SPIR-V for Intel GPUs has no
// bfloat type): no bf16 left.
// CHECK-LABEL: llvm.func spir_kernelcc @k
//   CHECK-NOT:   bf16
// A stored constant: its bits (1.0 = 0x3F80 = 16256).
//       CHECK:   %[[ONE:.*]] = llvm.mlir.constant(16256 : i16) : i16
//       CHECK:   %[[P:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i16
//       CHECK:   %[[BITS:.*]] = llvm.load %[[P]] : !llvm.ptr<1> -> i16
// Extension: the bits in the high half of an i32.
//       CHECK:   %[[W:.*]] = llvm.zext %[[BITS]] : i16 to i32
//       CHECK:   %[[S:.*]] = llvm.shl %[[W]], %{{.*}} : i32
//       CHECK:   %[[F:.*]] = llvm.bitcast %[[S]] : i32 to f32
// Truncation: round to nearest even, NaN to 0x7fc0 (32704).
//       CHECK:   %[[R:.*]] = llvm.fadd %[[F]], %[[F]] : f32
//       CHECK:   %[[RB:.*]] = llvm.bitcast %[[R]] : f32 to i32
//       CHECK:   llvm.lshr %[[RB]]
//       CHECK:   llvm.fcmp "uno" %[[R]], %[[R]] : f32
//       CHECK:   %[[T:.*]] = llvm.trunc %{{.*}} : i32 to i16
//       CHECK:   %[[SEL:.*]] = llvm.select %{{.*}}, %[[T]], %{{.*}} : i1, i16
//       CHECK:   llvm.cond_br %{{.*}}, ^bb1(%[[SEL]] : i16), ^bb1(%[[BITS]] : i16)
//       CHECK: ^bb1(%[[ARG:.*]]: i16):
//       CHECK:   llvm.store %[[ARG]], %{{.*}} : i16, !llvm.ptr<1>
//       CHECK:   llvm.store %[[ONE]], %{{.*}} : i16, !llvm.ptr<1>
//   CHECK-NOT:   bf16
gpu.module @m {
  llvm.func spir_kernelcc @k(%p: !llvm.ptr<1>, %i: i64, %c: i1) attributes {gpu.kernel} {
    %one = llvm.mlir.constant(1.0 : bf16) : bf16
    %q = llvm.getelementptr %p[%i] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, bf16
    %v = llvm.load %q : !llvm.ptr<1> -> bf16
    %f = llvm.fpext %v : bf16 to f32
    %r = llvm.fadd %f, %f : f32
    %t = llvm.fptrunc %r : f32 to bf16
    %s = llvm.select %c, %t, %v : i1, bf16
    llvm.cond_br %c, ^bb1(%s : bf16), ^bb1(%v : bf16)
  ^bb1(%a: bf16):
    llvm.store %a, %q : bf16, !llvm.ptr<1>
    llvm.store %one, %q : bf16, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// Arithmetic on bf16 has no integer form (arith-emulate-unsupported-floats
// computes it in f32 before the LLVM lowering): an error at the op.
gpu.module @m {
  llvm.func spir_kernelcc @k(%p: !llvm.ptr<1>) attributes {gpu.kernel} {
    %v = llvm.load %p : !llvm.ptr<1> -> bf16
    // expected-error @below {{xpu-xevm-legalize-bf16: 'llvm.fadd' on bf16 in an XeVM kernel: only bf16 loads, stores and conversions from and to f32 have a 16-bit integer form}}
    %s = llvm.fadd %v, %v : bf16
    llvm.store %s, %p : bf16, !llvm.ptr<1>
    llvm.return
  }
}

// -----

// A kernel parameter of bf16 (a scalar the host would pass as bfloat).
gpu.module @m {
  // expected-error @below {{xpu-xevm-legalize-bf16: @k takes or returns bf16 values: SPIR-V for Intel GPUs has no bfloat type}}
  llvm.func spir_kernelcc @k(%x: bf16, %p: !llvm.ptr<1>) attributes {gpu.kernel} {
    llvm.store %x, %p : bf16, !llvm.ptr<1>
    llvm.return
  }
}
