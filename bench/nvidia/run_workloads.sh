#!/usr/bin/env bash
# Runs the executables build_workloads.py made (on a GPU machine; needs
# python3 with NumPy) and checks each against its float64 NumPy reference:
# tolerance 1e-5 of the result scale for f32, 1e-3 for tf32 on mma.sync
# (operands rounded to nearest 10-bit mantissas: 2^-11 each), 2e-3 for tf32
# on wgmma (operands read unrounded: should the tensor cores truncate them,
# 2^-10 each, toward zero, so products of like-signed values lose up to
# 2^-9 together), 2e-2 for bf16 (operands
# rounded to 8-bit mantissas; BatchNorm folded into bf16 weights).
# Stream-K executables with the deterministic fix-up (*-sk) run twice: the
# two outputs must be identical, bit for bit.
#   bash run_workloads.sh DIR
dir=${1:-.}
cd "$dir" || exit 1
fail=0
for exe in *.exe; do
  name=${exe%.*.exe}
  prec=${exe%.exe}; prec=${prec##*.}
  case $prec in
    f32*) tol=1e-5;; tf32-90a*) tol=2e-3;; tf32*) tol=1e-3;; bf16*) tol=2e-2;;
  esac
  # Printed memrefs start with their address: compared without it.
  first=$(timeout 20 ./"$exe" 2>&1)
  out=$(echo "$first" | python3 refcheck.py --spec-from "$name.mlir" --tol $tol 2>&1)
  status=$?
  if [ $status -eq 0 ] && [ "${prec%-sk}" != "$prec" ]; then
    second=$(timeout 20 ./"$exe" 2>&1)
    if [ "$(echo "$second" | grep -v 'base@')" != "$(echo "$first" | grep -v 'base@')" ]; then
      out="FAIL: a second run of the deterministic Stream-K fix-up differs"
      status=1
    fi
  fi
  [ $status -ne 0 ] && fail=$((fail + 1))
  printf '%-34s %-8s %s\n' "$name" "$prec" "$(echo "$out" | tail -1 | cut -c1-150)"
done
echo "workloads: $fail failed"
# The fast-math sweeps (math/<function>--<sweep>.exe) against float64 within
# xpu-nvvm-fast-math's budget: |y - f(x)| <= 2^-10 |f(x)| + 2^-20.
for exe in math/*.exe; do
  [ -e "$exe" ] || continue
  base=$(basename "$exe" .exe)
  out=$(LD_LIBRARY_PATH=.:$LD_LIBRARY_PATH timeout 20 ./"$exe" 2>&1 |
        python3 mathcheck.py "${base%%--*}" --tol-rel 0.0009765625 \
          --tol-abs 9.5367431640625e-07 2>&1)
  [ $? -ne 0 ] && fail=$((fail + 1))
  printf '%-34s %s\n' "math ${base#*--}" "$(echo "$out" | tail -1 | cut -c1-400)"
done
echo "workloads and sweeps: $fail failed"
exit $fail
