#!/usr/bin/env bash
# The coverage-guided fuzzer of CI (make fuzz): tools/xpu-fuzz (libFuzzer,
# ASan + UBSan, built in BUILD_DIR by make fuzz) on parse + verify + print,
# and on each pipeline, seeded from every test and example
# (scripts/extract-fuzz-corpus.py), SECONDS seconds per target, two targets
# at a time. A crash, a sanitizer report, an unlocated error or a silent
# pipeline failure stops that target and leaves its input in
# BUILD_DIR/fuzz/<target>/crash-*; the script then exits 1 after printing
# how to reproduce it (with the input, gzip + base64, since CI keeps only
# the output). New inputs libFuzzer keeps go to
# BUILD_DIR/fuzz/<target>/corpus and seed the next run.
#
#   scripts/fuzz.sh [BUILD_DIR=build-fuzz] [SECONDS=25]
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-25}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fuzzer="$build/bin/xpu-fuzz"
[ -x "$fuzzer" ] || { echo "fuzz.sh: $fuzzer is not built (make fuzz)" >&2; exit 2; }
out="$build/fuzz"
mkdir -p "$out"
rm -rf "$out/seeds"
python3 scripts/extract-fuzz-corpus.py "$out/seeds"

# The upstream crashes that the harness skips (docs/KnownIssues.md): each
# input crashes mlir-opt 22.1.8 or makes it read past its buffer (valgrind).
# xpu-fuzz runs each once and must not crash.
known=(tools/xpu-fuzz/known-upstream/*.input)
if ! ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0 \
    "$fuzzer" "${known[@]}" > "$out/known-upstream.log" 2>&1; then
  echo "fuzz.sh: xpu-fuzz does not skip a known upstream crash" \
    "(tools/xpu-fuzz/known-upstream):" >&2
  grep -m 12 -E 'Running|ERROR|SUMMARY|xpu-fuzz:|#[0-9] ' \
    "$out/known-upstream.log" >&2 || true
  exit 1
fi
echo "fuzz.sh: ${#known[@]} known upstream crashes skipped"

# name|--xpu-pipeline value (empty: parse, verify, print, parse again).
targets=(
  "parse|"
  "xpu-optimize|xpu-optimize"
  "xpu-optimize-reassociate-bf16|builtin.module(xpu-optimize{reassociate=true precision=bf16})"
  "xpu-cpu-pipeline|xpu-cpu-pipeline"
  "convert-xpu-to-gpu|builtin.module(func.func(xpu-raise,xpu-select-strategy{backend=simt},xpu-schedule-gemm,convert-xpu-to-gpu))"
  "xpu-spirv-pipeline|xpu-spirv-pipeline"
  "xpu-spirv-pipeline-stream-k|xpu-spirv-pipeline{schedule=stream_k}"
  "convert-xpu-to-xegpu|builtin.module(func.func(xpu-raise,xpu-select-strategy,xpu-materialize-layouts,xpu-schedule-gemm),convert-xpu-to-xegpu)"
  "xpu-xe-pipeline|xpu-xe-pipeline{chip=bmg}"
  "convert-xpu-to-nvgpu|builtin.module(xpu-attach-target{chip=sm_90a},func.func(xpu-raise,xpu-select-strategy),convert-xpu-to-nvgpu)"
  "xpu-nvvm-pipeline|xpu-nvvm-pipeline{chip=sm_90a precision=bf16 binary-format=isa}"
)

run_target() {
  local name=${1%%|*} pipeline=${1#*|}
  local dir="$out/$name"
  mkdir -p "$dir/corpus"
  rm -f "$dir"/crash-* "$dir"/timeout-* "$dir"/oom-* "$dir"/leak-*
  local args=()
  [ -n "$pipeline" ] && args+=("--xpu-pipeline=$pipeline")
  # Leak checks would report Debian's uninstrumented libMLIR; its
  # allocators poison memory in ways ASan misreads (docs/Testing.md).
  ASAN_OPTIONS=detect_leaks=0:allow_user_poisoning=0 \
  UBSAN_OPTIONS=print_stacktrace=1 \
    "$fuzzer" "${args[@]}" -max_total_time="$seconds" -timeout=60 \
      -rss_limit_mb=4096 -max_len=16384 -detect_leaks=0 -print_final_stats=1 \
      -artifact_prefix="$dir/" "$dir/corpus" "$out/seeds" > "$dir/log" 2>&1 || true
  local runs
  runs=$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$dir/log" | grep -oE '[0-9]+$' || echo 0)
  local found
  found=$(ls "$dir" | grep -cE '^(crash|timeout|oom|leak)-' || true)
  echo "$name: $runs inputs in ${seconds}s, $found findings"
}
export -f run_target
export out fuzzer seconds

start=$(date +%s)
printf '%s\n' "${targets[@]}" | xargs -P 2 -I{} bash -c 'run_target "$@"' _ {} \
  | tee "$out/summary"
echo "fuzz.sh: $(( $(date +%s) - start ))s for ${#targets[@]} targets"

status=0
for t in "${targets[@]}"; do
  name=${t%%|*}; pipeline=${t#*|}
  for f in "$out/$name"/crash-* "$out/$name"/timeout-* "$out/$name"/oom-*; do
    [ -e "$f" ] || continue
    status=1
    echo "FINDING in $name: $f"
    echo "  reproduce: $fuzzer ${pipeline:+--xpu-pipeline='$pipeline'} $f"
    grep -m 40 -E 'ERROR|error|SUMMARY|xpu-fuzz:|#[0-9]+ ' "$out/$name/log" | sed 's/^/  /' || true
    # CI shows the end of this output only, and the crash file stays on
    # its machine: the input itself, compressed, so that it can be rebuilt.
    echo "  input ($(wc -c < "$f") bytes; rebuild: echo '...' | base64 -d | gunzip > input):"
    echo "  $(gzip -9nc "$f" | base64 -w0)"
  done
done
exit $status
