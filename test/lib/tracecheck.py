#!/usr/bin/env python3
"""Checks a Chrome/Perfetto trace (xpu-run --trace, xpu_opt.profile) against
the schema of python/xpu_opt/_trace.py and the events expected:

  tracecheck.py TRACE.json [--count CAT:NAME=N | --count CAT=N ...]
      [--calls NAME=N]

Schema: an object with a `traceEvents` list; every event has a string
`name`, `ph` "X" (complete) or "M" (metadata), integer `pid` and `tid`;
complete events have a string `cat` and numbers `ts` and `dur` >= 0
(microseconds), and names are printable ASCII; kernel events lie on the
device track (tid 1 << 30) with args.launches >= 1 and args.device_ns
(-1: no device time), and dur is that device time; metadata events are process_name / thread_name with a
string args.name. On each host thread, events nest: one starts inside or
after another, never partly overlapping (Perfetto nests them).

--count CAT:NAME=N: exactly N complete events of category CAT named NAME
(CAT=N: of category CAT). --calls NAME=N: the `call` events NAME carry
args.call 0..N-1 in time order, each after every `pack` event.

Prints PASS and a summary, or FAIL: why (exit status 1).
"""

import argparse
import json
import sys

DEVICE_TID = 1 << 30  # python/xpu_opt/_trace.py


def check(trace, counts, calls):
    if not isinstance(trace, dict) or not isinstance(
            trace.get("traceEvents"), list):
        return "no traceEvents list"
    complete = []
    for e in trace["traceEvents"]:
        if not isinstance(e, dict) or not isinstance(e.get("name"), str):
            return f"an event without a string name: {e}"
        if not e["name"] or not all(" " <= c <= "~" for c in e["name"]):
            return f"a name that is not printable ASCII: {e['name']!r}"
        if not isinstance(e.get("pid"), int) or not isinstance(
                e.get("tid"), int):
            return f"pid/tid not integers: {e}"
        if e.get("ph") == "X":
            if not isinstance(e.get("cat"), str):
                return f"no category: {e}"
            for key in ("ts", "dur"):
                if not isinstance(e.get(key), (int, float)) or isinstance(
                        e.get(key), bool):
                    return f"{key} is not a number: {e}"
            if e["dur"] < 0:
                return f"negative duration: {e}"
            if e["cat"] == "kernel":
                a = e.get("args", {})
                if e["tid"] != DEVICE_TID or a.get("launches", 0) < 1 or \
                        not isinstance(a.get("device_ns"), int):
                    return f"a kernel event off the device track or " \
                        f"without launches and device_ns: {e}"
                want = max(a["device_ns"], 0) / 1e3
                if abs(e["dur"] - want) > 1e-3:
                    return f"a kernel's dur is not its device time: {e}"
            complete.append(e)
        elif e.get("ph") == "M":
            if e["name"] not in ("process_name", "thread_name") or \
                    not isinstance(e.get("args", {}).get("name"), str):
                return f"a metadata event that names nothing: {e}"
        else:
            return f"ph is neither X nor M: {e}"

    by_thread = {}
    for e in complete:
        if e["tid"] != DEVICE_TID:
            by_thread.setdefault(e["tid"], []).append(e)
    for events in by_thread.values():
        events = sorted(events, key=lambda e: (e["ts"], -e["dur"]))
        open_ends = []
        for e in events:
            while open_ends and open_ends[-1] <= e["ts"]:
                open_ends.pop()
            end = e["ts"] + e["dur"]
            if open_ends and end > open_ends[-1] + 1e-3:
                return f"{e['name']} overlaps its enclosing event partly"
            open_ends.append(end)

    for spec in counts:
        what, _, n = spec.rpartition("=")
        cat, _, name = what.partition(":")
        got = [e for e in complete
               if e["cat"] == cat and (not name or e["name"] == name)]
        if len(got) != int(n):
            return f"{len(got)} events {what}, expected {n}"

    packs = [e for e in complete if e["cat"] == "pack"]
    for spec in calls:
        name, _, n = spec.rpartition("=")
        got = sorted((e for e in complete
                      if e["cat"] == "call" and e["name"] == name),
                     key=lambda e: e["ts"])
        order = [e.get("args", {}).get("call") for e in got]
        if order != list(range(int(n))):
            return f"calls of {name} in time order: {order}"
        for p in packs:
            if got and got[0]["ts"] < p["ts"] + p["dur"] - 1e-3:
                return f"{name} call 0 starts before {p['name']} ends"
    cats = sorted({e["cat"] for e in complete})
    return (None, f"{len(complete)} complete events, categories "
            f"{', '.join(cats)}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace")
    p.add_argument("--count", action="append", default=[])
    p.add_argument("--calls", action="append", default=[])
    args = p.parse_args()
    try:
        with open(args.trace) as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL: cannot read {args.trace}: {e}")
        return 1
    result = check(trace, args.count, args.calls)
    if isinstance(result, str):
        print(f"FAIL: {result}")
        return 1
    print(f"PASS: {result[1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
