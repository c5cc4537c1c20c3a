// Bad use of xpu-run: one clear line and a non-zero exit each, never a crash
// or a dump of the input.

// A dynamic contraction is not an error: its dynamic m is raised with it
// (the CPU pipeline reads the rows at run time); xpu-run calls the function
// on the shape of its input. An input of another rank, or with another
// size in a static dimension, is one clear error.
// RUN: rm -rf %t && mkdir -p %t
// RUN: xpu-run %s --function=dynamic --input="3x4xf32=1" --input="4x6xf32=2" --input="3x6xf32=0.5" --xpu-remarks 2>&1 | FileCheck %s --check-prefix=DYN
// DYN: errors.mlir:[[@LINE+35]]:8: remark: [Passed] Raised | Category:xpu-raise | Reason="raised linalg.matmul ?x6x4 (m x n x k) to xpu.gemm rhs_layout(kn), initial value added in the epilogue"
// DYN: result[0]: 3x6xf32=[8.5 8.5 8.5 8.5 8.5 8.5][8.5
// RUN: not xpu-run %s --function=dynamic 2>&1 | FileCheck %s --check-prefix=DYNIN
// DYNIN: error: xpu-run: argument #0 of @dynamic has the dynamic type 'tensor<?x4xf32>'; give an --input with its shape
// RUN: not xpu-run %s --function=dynamic --input="2x3x4xf32=1" 2>&1 | FileCheck %s --check-prefix=DYNRANK
// DYNRANK: error: xpu-run: argument #0 of @dynamic is 'tensor<?x4xf32>' (rank 2), but its --input has rank 3
// RUN: not xpu-run %s --function=dynamic --input="3x5xf32=1" 2>&1 | FileCheck %s --check-prefix=DYNDIM
// DYNDIM: error: xpu-run: argument #0 of @dynamic is 'tensor<?x4xf32>', but its --input has dimension 1 = 5

// Files.
// RUN: not xpu-run %t/missing.mlir 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: xpu-run: cannot open input file '{{.*}}missing.mlir': No such file or directory
// RUN: not xpu-run %t 2>&1 | FileCheck %s --check-prefix=UNREADABLE
// UNREADABLE: error: xpu-run: cannot open input file
// RUN: not xpu-run %xpu_obj_root/bin/xpu-opt 2>&1 | FileCheck %s --check-prefix=BINARY
// RUN: not xpu-run %xpu_obj_root/bin/xpu-opt 2>&1 | count 1
// BINARY: error: xpu-run: '{{.*}}xpu-opt' is not an MLIR text file (it holds binary data)
// RUN: echo "func.func @main( {" | not xpu-run -e main -entry-point-result=void 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: error: expected
// RUN: not xpu-run %s --function=forward --input=@%t/missing.npy 2>&1 | FileCheck %s --check-prefix=NPY
// NPY: error: xpu-run: --input #0: cannot read '{{.*}}missing.npy': No such file or directory
// RUN: not xpu-run %s --function=forward --input=@%s 2>&1 | FileCheck %s --check-prefix=NOTNPY
// NOTNPY: error: xpu-run: --input #0: '{{.*}}errors.mlir' is not a .npy file

// Entry points: the line names the function and lists the candidates.
// RUN: not xpu-run %s -e nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// ENTRY: error: xpu-run: no function @nope in '{{.*}}errors.mlir'; candidates: @dynamic, @main, @forward, @huge
// RUN: not xpu-run %s --function=nope 2>&1 | FileCheck %s --check-prefix=FUNC
// FUNC: error: xpu-run: no function @nope with a body in the module; candidates: @dynamic, @main, @forward, @huge
// RUN: not xpu-run %s -e main -entry-point-result=i32 2>&1 | FileCheck %s --check-prefix=RESULT
// RESULT: error: xpu-run: @main returns (), but -entry-point-result=i32 expects (i32)
// RUN: not xpu-run %s -e forward 2>&1 | FileCheck %s --check-prefix=ARGS
// ARGS: error: xpu-run: @forward takes arguments (tensor<4x8xf32>, tensor<8x8xf32>); -e needs a function without arguments (call it with --function=forward and --input instead)

func.func @dynamic(%a: tensor<?x4xf32>, %b: tensor<4x6xf32>, %c: tensor<?x6xf32>) -> tensor<3x6xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x4xf32>, tensor<4x6xf32>) outs(%c : tensor<?x6xf32>) -> tensor<?x6xf32>
  %s = tensor.cast %r : tensor<?x6xf32> to tensor<3x6xf32>
  return %s : tensor<3x6xf32>
}

func.func @main() {
  return
}

func.func @forward(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%z : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// A 100000x100000 GEMM: 40 GB per operand, more than the machine has.
func.func @huge(%a: tensor<100000x100000xf32>, %b: tensor<100000x100000xf32>) -> tensor<100000x100000xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<100000x100000xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<100000x100000xf32>) -> tensor<100000x100000xf32>
  %r = linalg.matmul ins(%a, %b : tensor<100000x100000xf32>, tensor<100000x100000xf32>) outs(%z : tensor<100000x100000xf32>) -> tensor<100000x100000xf32>
  return %r : tensor<100000x100000xf32>
}

// RUN: not xpu-run %s --function=huge 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not xpu-run %s --function=huge --target=opencl 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: xpu-run: @huge's arguments and results need 120000000000 bytes, more than this machine's {{[0-9]+}} bytes of memory
// RUN: not xpu-run %s --function=huge --input="100000x100000xf32=1" 2>&1 | FileCheck %s --check-prefix=HUGEIN
// HUGEIN: error: xpu-run: --input #0: 100000x100000xf32 needs 40000000000 bytes, more than this machine's memory

// Inputs and outputs that do not fit the function.
// RUN: not xpu-run %s --function=forward --input="4x4xf32=1" 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: xpu-run: --input #0 is 4x4xf32, but argument #0 of @forward is 4x8xf32
// RUN: not xpu-run %s --function=forward --input="4x8xi32=1" 2>&1 | FileCheck %s --check-prefix=ELTYPE
// ELTYPE: error: xpu-run: --input #0 has element type i32, but argument #0 of @forward is 4x8xf32
// RUN: not xpu-run %s --function=forward --input="4x8xf32=1 2" 2>&1 | FileCheck %s --check-prefix=COUNT
// COUNT: error: xpu-run: --input #0: 4x8xf32 has 32 elements but 2 values were given (give all of them, or one to fill it)
// RUN: not xpu-run %s --function=forward --input="4x8xq7=1" 2>&1 | FileCheck %s --check-prefix=ELT
// ELT: error: xpu-run: --input #0: unknown element type 'q7'
// RUN: not xpu-run %s --function=forward --input=1,2,3 2>&1 | FileCheck %s --check-prefix=FORM
// FORM: error: xpu-run: --input #0: expected TYPE=VALUES (e.g. 2x3xf32=1 2 3 4 5 6), @FILE.npy or 'random', got '1,2,3'
// RUN: not xpu-run %s --function=forward --input=random --input=random --input=random 2>&1 | FileCheck %s --check-prefix=TOOMANY
// TOOMANY: error: xpu-run: 3 --input values, but @forward takes 2 argument(s)
// RUN: not xpu-run %s --function=forward --output=y.npy 2>&1 | FileCheck %s --check-prefix=OUT
// OUT: error: xpu-run: --output #0 must be @FILE.npy or -, got 'y.npy'
// RUN: not xpu-run %s --function=forward --output=@%t/no/such/dir/y.npy 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR: error: xpu-run: cannot write '{{.*}}y.npy': No such file or directory

// Option values.
// RUN: not xpu-run %s --function=forward --precision=f8 2>&1 | FileCheck %s --check-prefix=PREC
// PREC: error: xpu-run: --precision must be f32, bf16, f16 or f64 for --target=cpu, got 'f8'
// The precisions are the pipelines' (resolvePrecision): tf32 is CUDA's only.
// RUN: not xpu-run %s --function=forward --precision=tf32 2>&1 | FileCheck %s --check-prefix=TF32
// TF32: error: xpu-run: --precision must be f32, bf16, f16 or f64 for --target=cpu, got 'tf32'
// RUN: xpu-run --xpu-list-precisions | FileCheck %s --check-prefix=PRECISIONS
// PRECISIONS: cpu f32 bf16 f16 f64
// PRECISIONS: cuda f32 tf32 bf16 f16
// RUN: not xpu-run %s --function=forward --repeat=0 2>&1 | FileCheck %s --check-prefix=REPEAT
// REPEAT: error: xpu-run: --repeat must be at least 1, got 0
// RUN: not xpu-run %s -e main -entry-point-result=f16 2>&1 | FileCheck %s --check-prefix=ERES
// ERES: error: xpu-run: -entry-point-result must be void, i32, i64 or f32, got 'f16'
// RUN: not xpu-run %s -e main --xpu-pipeline-options="register-tile=oops" 2>&1 | FileCheck %s --check-prefix=OPTS
// OPTS: error: xpu-run: invalid --xpu-pipeline-options 'register-tile=oops' for xpu-cpu-pipeline
// RUN: not xpu-run %s -e main --pass-pipeline="builtin.module(no-such-pass)" 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: error: xpu-run: cannot parse --pass-pipeline 'builtin.module(no-such-pass)'
// RUN: not xpu-run %s -e main --target=tpu 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: error: xpu-run: unknown target 'tpu' (available: cpu, opencl, levelzero{{(, cuda)?}})
// RUN: not xpu-run %s -e main --xpu-chip=pvc 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: xpu-run: --xpu-chip must be pvc or bmg, with --target=levelzero (got --xpu-chip=pvc --target=cpu)
// RUN: not xpu-run %s --emit-object=%t/x.o 2>&1 | FileCheck %s --check-prefix=EMIT
// EMIT: error: xpu-run: --emit-object needs --function (the entry point it exports)

// Targets and devices this build or machine lacks.
// RUN: echo 'func.func @main() { return }' | not xpu-run -e main --target=cuda 2>&1 | FileCheck %s --check-prefix=CUDA
// Without the CUDA toolkit the target is not built; with it but without a
// driver (libcuda), its runtime library cannot be loaded. (A module of its
// own: @dynamic above computes on its arguments on the host, which every
// GPU pipeline rejects: xpu-verify-no-host-device-access.)
// CUDA: error: xpu-run: {{target 'cuda' is not available in this build: its runtime library libxpu_cuda_runtime.so was not built|cannot load the runtime library '.*libxpu_cuda_runtime.so': libcuda.so.1}}
// RUN: not xpu-run --xpu-list-devices 2>&1 | FileCheck %s --check-prefix=DEV
// DEV: error: xpu-run: --xpu-list-devices and --xpu-device need a device target
// RUN: echo 'func.func @forward(%%x: tensor<4xf32>) -> tensor<4xf32> { return %%x : tensor<4xf32> }' > %t/forward.mlir
// RUN: env OCL_ICD_VENDORS=%t/no-vendors not xpu-run %t/forward.mlir --function=forward --target=opencl 2>&1 | FileCheck %s --check-prefix=NODEV
// NODEV: xpu opencl runtime: no OpenCL device found
