#!/usr/bin/env bash
# The device run of docs/Performance.md (H200): the benchmark (correctness,
# then times, with per-kernel device times), then the standalone workload
# executables. Run on the GPU machine from a directory staged on the build
# machine (docs/Performance.md, "NVIDIA H200", has the commands):
#   DIR/device_run.sh  DIR/BUILT_FROM  DIR/run_workloads.sh
#   DIR/nv/ (build.py output + run.py, problems.py)  DIR/wl/ (build_workloads.py)
# Writes bench.log, bench.json and workloads.log to $OUT.
export PYTHONUNBUFFERED=1
here=$(cd "$(dirname "$0")" && pwd)
echo "built from $(cat "$here/BUILT_FROM")"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv,noheader
cd "$here/nv"
timeout 380 python3 run.py --lib-dir . --profile --json "$OUT/bench.json" > "$OUT/bench.log" 2>&1
echo "bench rc=$?"
timeout 300 bash "$here/run_workloads.sh" "$here/wl" > "$OUT/workloads.log" 2>&1
echo "workloads rc=$? ($(grep -c PASS "$OUT/workloads.log") PASS lines)"; grep -v PASS "$OUT/workloads.log" | tail -5
nvidia-smi --query-gpu=clocks.sm,clocks.mem,temperature.gpu --format=csv,noheader
grep -A200 "^device time per call" "$OUT/bench.log"
