// RUN: xpu-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(gpu.module(xpu-nvvm-fast-math))' --xpu-remarks --verify-diagnostics | FileCheck %s
// RUN: xpu-opt %s --split-input-file --allow-unregistered-dialect --pass-pipeline='builtin.module(gpu.module(xpu-nvvm-fast-math{functions=tanh}))' | FileCheck %s --check-prefix=ONLY

// Every f32 function the pass knows, on its approximate instruction. f64
// and bf16 math keeps libdevice's functions.
// CHECK-LABEL: gpu.func @epilogue
// exp(x) = ex2(x log2(e)):
// CHECK-DAG:   %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK:       %[[T:.*]] = arith.mulf %[[X:.*]], %[[LOG2E]] : f32
// CHECK:       %[[EXP:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[T]]) : (f32) -> f32
// CHECK:       %[[EXP2:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[EXP]]) : (f32) -> f32
// tanh.approx.f32:
// CHECK:       %[[TANH:.*]] = llvm.intr.tanh(%[[EXP2]]) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// log1p(u): lg2(1 + u) ln(2), or for |u| < 2^-5 the series
// u (1 - u/2 + u^2/3 - u^3/4 + u^4/5 - u^5/6), where lg2.approx's absolute
// error would be a large relative one:
// CHECK:       %[[W:.*]] = arith.addf %[[TANH]], %{{.*}} : f32
// CHECK:       %[[L:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[W]]) : (f32) -> f32
// CHECK:       arith.constant -0.166666672 : f32
// CHECK:       arith.constant 2.000000e-01 : f32
// CHECK:       math.fma %{{.*}}, %[[TANH]], %{{.*}} : f32
// CHECK:       arith.constant -2.500000e-01 : f32
// CHECK:       math.fma %{{.*}}, %[[TANH]], %{{.*}} : f32
// CHECK:       arith.constant 0.333333343 : f32
// CHECK:       math.fma %{{.*}}, %[[TANH]], %{{.*}} : f32
// CHECK:       arith.constant -5.000000e-01 : f32
// CHECK:       math.fma %{{.*}}, %[[TANH]], %{{.*}} : f32
// CHECK:       %[[P1:.*]] = math.fma %{{.*}}, %[[TANH]], %{{.*}} : f32
// CHECK:       %[[SERIES:.*]] = arith.mulf %[[P1]], %[[TANH]] : f32
// CHECK:       %[[LN2:.*]] = arith.constant 0.693147182 : f32
// CHECK:       %[[VIALG2:.*]] = arith.mulf %[[L]], %[[LN2]] : f32
// CHECK:       %[[BOUND:.*]] = arith.constant 3.125000e-02 : f32
// CHECK:       %[[AU:.*]] = math.absf %[[TANH]] : f32
// CHECK:       %[[SMALL:.*]] = arith.cmpf olt, %[[AU]], %[[BOUND]] : f32
// CHECK:       %[[LOG1P:.*]] = arith.select %[[SMALL]], %[[SERIES]], %[[VIALG2]] : f32
// log(x): the same with u = x - 1 (exact near 1) and w = x:
// CHECK:       %[[U:.*]] = arith.subf %[[LOG1P]], %{{.*}} : f32
// CHECK:       llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[LOG1P]]) : (f32) -> f32
// CHECK:       arith.mulf %{{.*}}, %[[U]] : f32
// CHECK:       %[[LOG:.*]] = arith.select
// log2(x): lg2(x), or the series times log2(e):
// CHECK:       %[[U2:.*]] = arith.subf %[[LOG]], %{{.*}} : f32
// CHECK:       %[[LG:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%[[LOG]]) : (f32) -> f32
// CHECK:       %[[S2:.*]] = arith.mulf %{{.*}}, %[[U2]] : f32
// CHECK:       %[[LOG2E2:.*]] = arith.constant 1.44269502 : f32
// CHECK:       %[[S2B:.*]] = arith.mulf %[[S2]], %[[LOG2E2]] : f32
// CHECK:       %[[LOG2:.*]] = arith.select %{{.*}}, %[[S2B]], %[[LG]] : f32
// erf: sign(x) (1 - p(t) ex2(-x^2 log2(e))), t = 1 / (1 + 0.3275911 |x|),
// t correctly rounded (arith.divf stays):
// CHECK:       %[[AX:.*]] = math.absf %[[LOG2]] : f32
// CHECK:       %[[D:.*]] = math.fma %{{.*}}, %[[AX]], %{{.*}} : f32
// CHECK:       %[[RT:.*]] = arith.divf %{{.*}}, %[[D]] : f32
// CHECK-COUNT-4: math.fma %{{.*}}, %[[RT]], %{{.*}} : f32
// CHECK:       %[[P:.*]] = arith.mulf %{{.*}}, %[[RT]] : f32
// CHECK:       %[[SQ:.*]] = arith.mulf %[[AX]], %[[AX]] : f32
// CHECK:       %[[NSQ:.*]] = arith.mulf %[[SQ]], %{{.*}} : f32
// CHECK:       %[[G:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"(%[[NSQ]]) : (f32) -> f32
// CHECK:       %[[PG:.*]] = arith.mulf %[[P]], %[[G]] : f32
// CHECK:       %[[Y:.*]] = arith.subf %{{.*}}, %[[PG]] : f32
// CHECK:       %[[ERF:.*]] = math.copysign %[[Y]], %[[LOG2]] : f32
// division: div.full.f32:
// CHECK:       %[[Q:.*]] = llvm.call_intrinsic "llvm.nvvm.div.full"(%[[ERF]], %{{.*}}) : (f32, f32) -> f32
// Vectors lane by lane where the intrinsic is scalar:
// CHECK:       ub.poison : vector<2xf32>
// CHECK:       vector.extract %{{.*}}[0] : f32 from vector<2xf32>
// CHECK:       llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK:       vector.insert %{{.*}} [0] : f32 into vector<2xf32>
// CHECK:       vector.extract %{{.*}}[1] : f32 from vector<2xf32>
// CHECK:       llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK:       vector.insert %{{.*}} [1] : f32 into vector<2xf32>
// CHECK:       arith.cmpf olt, %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK:       arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<2xi1>, vector<2xf32>
// CHECK:       math.exp %{{.*}} : f64
// CHECK:       arith.divf %{{.*}}, %{{.*}} : f64
// CHECK:       math.tanh %{{.*}} : bf16
// CHECK:       math.tanh %{{.*}} : vector<2x2xf32>
// CHECK-NOT:   math.
// CHECK:       gpu.return

// ONLY-LABEL: gpu.func @epilogue
// ONLY:       math.exp %{{.*}} : f32
// ONLY:       math.exp2
// ONLY:       llvm.intr.tanh
// ONLY:       math.log1p
// ONLY:       arith.divf %{{.*}}, %{{.*}} : f32
gpu.module @kernels [#nvvm.target<chip = "sm_90a">] {
  // expected-remark @+1 {{epilogue: 9 f32 op(s) on approximate instructions (exp x1, exp2 x1, tanh x1, log1p x1, log x2, log2 x1, erf x1, divf x1); accuracy budget 2^-10 |f(x)| + 2^-20}}
  gpu.func @epilogue(%x: f32, %y: f32, %v: vector<2xf32>, %d: f64,
                     %h: bf16, %m: vector<2x2xf32>) kernel {
    %0 = math.exp %x : f32
    %1 = math.exp2 %0 : f32
    %2 = math.tanh %1 : f32
    %3 = math.log1p %2 : f32
    %4 = math.log %3 : f32
    %5 = math.log2 %4 : f32
    %6 = math.erf %5 : f32
    %7 = arith.divf %6, %y : f32
    %8 = math.log %v : vector<2xf32>
    %9 = math.exp %d : f64
    %10 = arith.divf %9, %d : f64
    %11 = math.tanh %h : bf16
    %12 = math.tanh %m : vector<2x2xf32>
    "test.use"(%7, %8, %10, %11, %12) : (f32, vector<2xf32>, f64, bf16, vector<2x2xf32>) -> ()
    gpu.return
  }
}

// -----

// tanh.approx.f32 needs sm_75: a module for an older chip keeps libdevice's
// tanh and approximates the rest.
// CHECK-LABEL: gpu.func @old_chip
// CHECK:       math.tanh %{{.*}} : f32
// CHECK:       llvm.call_intrinsic "llvm.nvvm.ex2.approx.f32"
// ONLY-LABEL: gpu.func @old_chip
// ONLY:       math.tanh %{{.*}} : f32
// ONLY:       math.exp %{{.*}} : f32
gpu.module @sm70 [#nvvm.target<chip = "sm_70">] {
  // expected-remark @+1 {{old_chip: 1 f32 op(s) on approximate instructions (exp x1)}}
  gpu.func @old_chip(%x: f32) kernel {
    %0 = math.tanh %x : f32
    %1 = math.exp %0 : f32
    "test.use"(%1) : (f32) -> ()
    gpu.return
  }
}

// -----

// Nothing to approximate: no remark.
// CHECK-LABEL: gpu.func @integer
// CHECK:       arith.divsi
gpu.module @quiet {
  gpu.func @integer(%x: i32) kernel {
    %0 = arith.divsi %x, %x : i32
    "test.use"(%0) : (i32) -> ()
    gpu.return
  }
}
