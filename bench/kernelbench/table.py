#!/usr/bin/env python3
"""Prints the KernelBench table of docs/Performance.md from the JSON lines
run.py --json wrote (one run): per problem the wall time of every row in
ms, the ratios torch.compile / xpu of both forms, xpu bf16's device time
(PyTorch's profiler: its GEMM kernels and everything else) and, where
build.py made them, the bf16 variants' ratios to the default (above 1: the
faster one gains; fast math in device time, since only the kernels
differ), with geomeans.

  python3 bench/kernelbench/table.py kb.jsonl
"""

import json
import math
import sys

COLS = [("xpu f32->bf16", "xpu f32 (bf16)"), ("eager autocast", None),
        ("compile autocast", None), ("xpu bf16", None), ("eager bf16", None),
        ("compile bf16", None), ("cuBLAS gemm bf16", None)]
# (slower row, faster row, label, key): ratios of wall time ("ms"), or of
# device time ("device_us") where the rows differ only in their kernels.
RATIOS = [("compile autocast", "xpu f32->bf16", "vs compile autocast", "ms"),
          ("compile bf16", "xpu bf16", "vs compile bf16", "ms"),
          ("xpu bf16 precise", "xpu bf16",
           "fast-math gain (device time, precise / fast)", "device_us"),
          ("xpu bf16", "xpu bf16 tuned", "tuned gain (default / tuned)", "ms")]


def ms(rows, name, key="ms"):
    return rows.get(name, {}).get(key)


def geomean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def main():
    results = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
    ratios = [r for r in RATIOS
              if any(ms(x["rows"], r[0], r[3]) and ms(x["rows"], r[1], r[3])
                     for x in results)]
    head = [label or name for name, label in COLS] + [r[2] for r in ratios] + [
        "xpu device us (bf16): GEMM kernels + rest"]
    print("| problem | " + " | ".join(head) + " |")
    print("|---" * (len(head) + 1) + "|")
    collected = {r[2]: [] for r in ratios}
    for x in results:
        rows = x["rows"]
        cells = [f"{ms(rows, name):.3f}" if ms(rows, name) else "n/a"
                 for name, _ in COLS]
        for peer, ours, label, key in ratios:
            if ms(rows, peer, key) and ms(rows, ours, key):
                v = ms(rows, peer, key) / ms(rows, ours, key)
                collected[label].append(v)
                cells.append(f"{v:.2f}")
            else:
                cells.append("n/a")
        bf16 = rows.get("xpu bf16", {})
        if "device_us" in bf16:
            gemm = sum(us for name, us in bf16.get("top", [])
                       if "mma" in name or "simt" in name)
            total = bf16["device_us"]
            cells.append(f"{total:.0f}: {gemm:.0f} + {total - gemm:.0f}")
        else:
            cells.append("n/a")
        print(f"| {x['problem']} | " + " | ".join(cells) + " |")
    geo = ["" for _ in COLS] + [f"**{geomean(v):.2f}**" if v else ""
                                for v in collected.values()] + [""]
    print("| **geomean** | " + " | ".join(geo) + " |")


if __name__ == "__main__":
    main()
