#!/usr/bin/env bash
# CPU benchmark of a 1024x1024x1024 f32 GEMM + bias + ReLU in torch-mlir form
# (linalg.transpose of the [n, k] weight, linalg.matmul on a zero fill, a
# broadcast bias generic and a ReLU generic), pinned to one core:
#
#   stock-loops  stock mlir-opt linalg-to-loops lowering, stock mlir-runner -O3
#   xpu-scalar   xpu-cpu-pipeline with vectorize=false, xpu-run -O3
#   xpu-vector   xpu-cpu-pipeline (tiled + vectorized, the default), xpu-run -O3
#   cl-naive     xpu-spirv-pipeline{gemm-kernels=false} on OpenCL (PoCL here):
#                one work-item per output element, the untuned GPU baseline
#   cl-tiled     xpu-spirv-pipeline on OpenCL: convert-xpu-to-gpu's tiled
#                kernel (pvc strategy: SLM slices, register micro-tiles)
#
# The OpenCL variants run when an OpenCL device is found (clinfo -l); PoCL
# runs the SPIR-V on the same pinned core, so the ratios compare the
# generated kernels with the CPU pipeline on equal hardware.
#
# Every variant runs the same module; @main times the @forward calls with
# rtclock and prints the milliseconds per GEMM and a weighted checksum of the
# output, which must agree across the variants. A small odd-shaped GEMM
# (M, N, K = 131, 67, 97) is also checked element-wise against NumPy.
#
# Usage: scripts/bench-opencl.sh [build-dir]   (make bench runs it after
# scripts/bench-cpu.py when an OpenCL device exists)
set -euo pipefail

BUILD_DIR=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
case "$BUILD_DIR" in /*) ;; *) BUILD_DIR="$ROOT/$BUILD_DIR" ;; esac
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
LLVM_LIB=${LLVM_LIB:-/usr/lib/llvm-22/lib}
PYTHON=${PYTHON:-/usr/bin/python3}
CORE=${CORE:-0}
XPU_RUN="$BUILD_DIR/bin/xpu-run"
SIZE=${BENCH_SIZE:-1024}
M=$SIZE N=$SIZE K=$SIZE

for tool in "$XPU_RUN" "$LLVM_BIN/mlir-opt" "$LLVM_BIN/mlir-runner"; do
  [ -x "$tool" ] || { echo "bench-cpu: $tool not found" >&2; exit 1; }
done
PIN=()
if command -v taskset >/dev/null; then PIN=(taskset -c "$CORE"); fi

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# gen_module REPS: the GEMM + bias + ReLU module with a timing @main that
# calls @forward once to warm up and then REPS times.
gen_module() {
  local reps=$1
  cat <<EOF
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @forward(%x: tensor<${M}x${K}xf32>, %w: tensor<${N}x${K}xf32>,
                   %b: tensor<${N}xf32>) -> tensor<${M}x${N}xf32> {
  %zero = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<${K}x${N}xf32>
  %wt = linalg.transpose ins(%w : tensor<${N}x${K}xf32>)
      outs(%e0 : tensor<${K}x${N}xf32>) permutation = [1, 0]
  %e1 = tensor.empty() : tensor<${M}x${N}xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e1 : tensor<${M}x${N}xf32>) -> tensor<${M}x${N}xf32>
  %mm = linalg.matmul ins(%x, %wt : tensor<${M}x${K}xf32>, tensor<${K}x${N}xf32>)
      outs(%z : tensor<${M}x${N}xf32>) -> tensor<${M}x${N}xf32>
  %biased = linalg.generic {indexing_maps = [#id, #row, #id],
                            iterator_types = ["parallel", "parallel"]}
      ins(%mm, %b : tensor<${M}x${N}xf32>, tensor<${N}xf32>)
      outs(%e1 : tensor<${M}x${N}xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    linalg.yield %0 : f32
  } -> tensor<${M}x${N}xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id],
                          iterator_types = ["parallel", "parallel"]}
      ins(%biased : tensor<${M}x${N}xf32>) outs(%e1 : tensor<${M}x${N}xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.cmpf ugt, %in, %zero : f32
    %1 = arith.select %0, %in, %zero : f32
    linalg.yield %1 : f32
  } -> tensor<${M}x${N}xf32>
  return %relu : tensor<${M}x${N}xf32>
}

func.func private @rtclock() -> f64
func.func private @printF64(f64)
func.func private @printNewline()

// v(i, j) = ((i * a + j * b) mod 17 - 8) / 16: small exact values.
func.func @gen(%e: tensor<?x?xf32>, %a: index, %b: index) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c17 = arith.constant 17 : index
    %c8 = arith.constant 8 : index
    %s = arith.constant 6.250000e-02 : f32
    %ia = arith.muli %i, %a : index
    %jb = arith.muli %j, %b : index
    %t = arith.addi %ia, %jb : index
    %m = arith.remui %t, %c17 : index
    %d = arith.subi %m, %c8 : index
    %n = arith.index_cast %d : index to i32
    %f = arith.sitofp %n : i32 to f32
    %v = arith.mulf %f, %s : f32
    linalg.yield %v : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %cM = arith.constant ${M} : index
  %cN = arith.constant ${N} : index
  %cK = arith.constant ${K} : index
  %reps = arith.constant ${reps} : index
  %ex = tensor.empty(%cM, %cK) : tensor<?x?xf32>
  %ew = tensor.empty(%cN, %cK) : tensor<?x?xf32>
  %eb = tensor.empty(%c1, %cN) : tensor<?x?xf32>
  %xd = call @gen(%ex, %c3, %c5) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
  %wd = call @gen(%ew, %c7, %c11) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
  %bd = call @gen(%eb, %c5, %c3) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
  %x = tensor.cast %xd : tensor<?x?xf32> to tensor<${M}x${K}xf32>
  %w = tensor.cast %wd : tensor<?x?xf32> to tensor<${N}x${K}xf32>
  %b2 = tensor.cast %bd : tensor<?x?xf32> to tensor<1x${N}xf32>
  %b = tensor.collapse_shape %b2 [[0, 1]] : tensor<1x${N}xf32> into tensor<${N}xf32>

  // Warm-up call; its result is the one checksummed.
  %y = call @forward(%x, %w, %b)
      : (tensor<${M}x${K}xf32>, tensor<${N}x${K}xf32>, tensor<${N}xf32>) -> tensor<${M}x${N}xf32>
  %t0 = call @rtclock() : () -> f64
  scf.for %i = %c0 to %reps step %c1 {
    %r = func.call @forward(%x, %w, %b)
        : (tensor<${M}x${K}xf32>, tensor<${N}x${K}xf32>, tensor<${N}xf32>) -> tensor<${M}x${N}xf32>
  }
  %t1 = call @rtclock() : () -> f64
  %dt = arith.subf %t1, %t0 : f64
  %repsi = arith.index_cast %reps : index to i64
  %repsf = arith.sitofp %repsi : i64 to f64
  %ms = arith.constant 1.000000e+03 : f64
  %per = arith.divf %dt, %repsf : f64
  %perms = arith.mulf %per, %ms : f64
  call @printF64(%perms) : (f64) -> ()
  call @printNewline() : () -> ()

  // Checksum: sum of y(i, j) * ((3 i + 5 j) mod 7 + 1), in f64.
  %zero = arith.constant 0.000000e+00 : f64
  %sum = scf.for %i = %c0 to %cM step %c1 iter_args(%acc = %zero) -> (f64) {
    %row = scf.for %j = %c0 to %cN step %c1 iter_args(%racc = %acc) -> (f64) {
      %v = tensor.extract %y[%i, %j] : tensor<${M}x${N}xf32>
      %vd = arith.extf %v : f32 to f64
      %i3 = arith.muli %i, %c3 : index
      %j5 = arith.muli %j, %c5 : index
      %ij = arith.addi %i3, %j5 : index
      %m7 = arith.remui %ij, %c7 : index
      %wt = arith.addi %m7, %c1 : index
      %wti = arith.index_cast %wt : index to i64
      %wtf = arith.sitofp %wti : i64 to f64
      %p = arith.mulf %vd, %wtf : f64
      %s = arith.addf %racc, %p : f64
      scf.yield %s : f64
    }
    scf.yield %row : f64
  }
  call @printF64(%sum) : (f64) -> ()
  call @printNewline() : () -> ()
  return
}
EOF
}

STOCK_PASSES=(
  --one-shot-bufferize="bufferize-function-boundaries"
  --buffer-deallocation-pipeline --convert-bufferization-to-memref
  --convert-linalg-to-loops
  --convert-scf-to-cf --expand-strided-metadata --lower-affine
  --finalize-memref-to-llvm --convert-math-to-llvm --convert-arith-to-llvm
  --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts
)
RUNNER_LIBS="$LLVM_LIB/libmlir_runner_utils.so,$LLVM_LIB/libmlir_c_runner_utils.so"

# Repetitions per variant: the loop nests take seconds per GEMM.
gen_module 2 >"$WORK/stock.mlir"
gen_module 2 >"$WORK/scalar.mlir"
gen_module 20 >"$WORK/vector.mlir"
gen_module 1 >"$WORK/clnaive.mlir"
gen_module 5 >"$WORK/cltiled.mlir"
OPENCL=0
if [ -x "$BUILD_DIR/lib/libxpu_opencl_runtime.so" ] || [ -f "$BUILD_DIR/lib/libxpu_opencl_runtime.so" ]; then
  if command -v clinfo >/dev/null && clinfo -l 2>/dev/null | grep -q "Device #"; then
    OPENCL=1
  fi
fi

"$LLVM_BIN/mlir-opt" "$WORK/stock.mlir" "${STOCK_PASSES[@]}" -o "$WORK/stock.ll.mlir"

run_stock() {
  "${PIN[@]}" "$LLVM_BIN/mlir-runner" -O3 -e main -entry-point-result=void \
    -shared-libs="$RUNNER_LIBS" "$WORK/stock.ll.mlir"
}
run_scalar() {
  "${PIN[@]}" "$XPU_RUN" -O3 -e main -entry-point-result=void \
    --xpu-pipeline-options="vectorize=false" "$WORK/scalar.mlir"
}
run_vector() {
  "${PIN[@]}" "$XPU_RUN" -O3 -e main -entry-point-result=void "$WORK/vector.mlir"
}
run_clnaive() {
  "${PIN[@]}" "$XPU_RUN" --target=opencl -O3 -e main -entry-point-result=void \
    --xpu-pipeline-options="gemm-kernels=false" "$WORK/clnaive.mlir"
}
run_cltiled() {
  "${PIN[@]}" "$XPU_RUN" --target=opencl -O3 -e main -entry-point-result=void \
    "$WORK/cltiled.mlir"
}

echo "bench-cpu: ${M}x${N}x${K} f32 GEMM + bias + ReLU, $(date)"
echo "bench-cpu: CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1), pinned: ${PIN[*]:-no taskset}"

declare -A MS SUM
VARIANTS=(stock scalar vector)
if [ "$OPENCL" = 1 ]; then
  VARIANTS+=(clnaive cltiled)
  echo "bench-cpu: OpenCL: $("${PIN[@]}" "$XPU_RUN" --target=opencl --xpu-list-devices | head -1)"
fi
for v in "${VARIANTS[@]}"; do
  out=$("run_$v")
  MS[$v]=$(echo "$out" | sed -n 1p)
  SUM[$v]=$(echo "$out" | sed -n 2p)
done

flops=$((2 * M * N * K))
printf '\n| %-40s | %12s | %9s | %15s |\n' "variant" "ms per GEMM" "GFLOP/s" "speedup vs loops"
printf '|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..42})" "$(printf -- '-%.0s' {1..14})" \
  "$(printf -- '-%.0s' {1..11})" "$(printf -- '-%.0s' {1..18})"
row() {
  awk -v name="$1" -v ms="$2" -v base="$3" -v flops="$flops" 'BEGIN {
    printf "| %-40s | %12.2f | %9.2f | %15.1fx |\n", name, ms, flops / (ms * 1e6), base / ms }'
}
row "stock mlir-opt loops (mlir-runner -O3)" "${MS[stock]}" "${MS[stock]}"
row "xpu-cpu-pipeline vectorize=false" "${MS[scalar]}" "${MS[stock]}"
row "xpu-cpu-pipeline (tiled + vectorized)" "${MS[vector]}" "${MS[stock]}"
if [ "$OPENCL" = 1 ]; then
  row "xpu-spirv-pipeline gemm-kernels=false, OpenCL" "${MS[clnaive]}" "${MS[stock]}"
  row "xpu-spirv-pipeline (tiled kernel), OpenCL" "${MS[cltiled]}" "${MS[stock]}"
  awk -v t="${MS[cltiled]}" -v n="${MS[clnaive]}" -v c="${MS[vector]}" 'BEGIN {
    printf "\nOpenCL tiled kernel: %.1fx faster than the naive kernel, %.2fx the CPU pipeline'"'"'s time\n", n / t, t / c }'
fi
echo

# The three outputs must agree (exactly representable inputs; only the
# summation order differs).
status=0
for v in "${VARIANTS[@]:1}"; do
  if awk -v a="${SUM[stock]}" -v b="${SUM[$v]}" 'BEGIN {
      d = a - b; if (d < 0) d = -d; s = a < 0 ? -a : a;
      exit !(d <= 1e-4 * (s > 1 ? s : 1)) }'; then
    echo "checksum $v: ${SUM[$v]} matches stock ${SUM[stock]}"
  else
    echo "checksum $v: ${SUM[$v]} DIFFERS from stock ${SUM[stock]}"
    status=1
  fi
done

# Element-wise check of the vectorized pipeline on a shape no tile divides.
if "$PYTHON" -c 'import numpy' 2>/dev/null; then
  cat "$ROOT/test/Integration/CPU/odd-shapes.mlir" \
    "$ROOT/test/Integration/CPU/Inputs/gen.mlir" >"$WORK/odd.mlir"
  if "$XPU_RUN" -O3 -e main -entry-point-result=void "$WORK/odd.mlir" |
    "$PYTHON" "$ROOT/test/lib/refcheck.py" --input x=131x97@1 \
      --input w=67x97@2 --input b=67@3 --expr "np.maximum(x @ w.T + b, 0)" \
      --tol 1e-5 | sed 's/^/refcheck 131x67x97 (vectorized): /'; then :; else
    status=1
  fi
fi
exit $status
