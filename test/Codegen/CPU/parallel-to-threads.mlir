// RUN: xpu-opt %s --split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(xpu-cpu-parallel-to-threads{threads=4})' | FileCheck %s
// RUN: xpu-opt %s --split-input-file -verify-diagnostics \
// RUN:   --pass-pipeline='builtin.module(xpu-cpu-parallel-to-threads)' | FileCheck %s --check-prefix=AUTO

// The body of a one-dimensional parallel loop moves into an outlined
// function that reads the bounds, the thread count and what the body uses
// (%p, %s) from a shared struct and runs its share of the iterations; the
// loop becomes a call of the fork-join helper with 4 threads (at most one
// per iteration), which calls pthread_create / pthread_join.
// CHECK-LABEL: llvm.func internal @scale_par0(
//  CHECK-SAME:     %[[ARG:.*]]: !llvm.ptr) -> !llvm.ptr
//       CHECK:   %[[SH:.*]] = llvm.load {{.*}} : !llvm.ptr -> !llvm.ptr
//       CHECK:   llvm.load {{.*}} -> i64
//       CHECK:   llvm.intr.smin
//       CHECK:   llvm.fmul
//       CHECK:   llvm.return
// CHECK-LABEL: llvm.func @scale(
//   CHECK-NOT:   omp.
//       CHECK:   %[[FOUR:.*]] = llvm.mlir.constant(4 : i64) : i64
//       CHECK:   llvm.intr.smin(%[[FOUR]],
//       CHECK:   %[[FN:.*]] = llvm.mlir.addressof @scale_par0
//       CHECK:   llvm.call @__xpu_cpu_fork_join(%[[FN]],
// CHECK-LABEL: llvm.func internal @__xpu_cpu_fork_join(
//       CHECK:   llvm.call @pthread_create
//       CHECK:   llvm.call @pthread_join
// With threads=0 (the default) the count is read at run time.
// AUTO-LABEL: llvm.func @scale(
//       AUTO:   llvm.call @sysconf
llvm.func @scale(%p: !llvm.ptr, %s: f32) {
  %c0 = llvm.mlir.constant(0 : index) : i64
  %c1 = llvm.mlir.constant(1 : index) : i64
  %c100 = llvm.mlir.constant(100 : index) : i64
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i) : i64 = (%c0) to (%c100) step (%c1) {
        %g = llvm.getelementptr %p[%i] : (!llvm.ptr, i64) -> !llvm.ptr, f32
        %v = llvm.load %g : !llvm.ptr -> f32
        %w = llvm.fmul %v, %s : f32
        llvm.store %w, %g : f32, !llvm.ptr
        omp.yield
      }
    }
    omp.terminator
  }
  llvm.return
}

// -----

// A two-dimensional loop nest is not a form this pass knows: an error.
llvm.func @two_dims(%p: !llvm.ptr) {
  %c0 = llvm.mlir.constant(0 : index) : i64
  %c1 = llvm.mlir.constant(1 : index) : i64
  %c8 = llvm.mlir.constant(8 : index) : i64
  // expected-error @+1 {{xpu-cpu-parallel-to-threads: only one-dimensional parallel loops without clauses or reductions are supported}}
  omp.parallel {
    omp.wsloop {
      omp.loop_nest (%i, %j) : i64 = (%c0, %c0) to (%c8, %c8) step (%c1, %c1) {
        omp.yield
      }
    }
    omp.terminator
  }
  llvm.return
}
