#!/usr/bin/env python3
"""Checks a tuning database that xpu-tune wrote, independently of xpu-tune.

  tunecheck.py summary DB.json [--tol TOL]
      prints, per entry, what the database must satisfy, recomputed here:
        entry <target> <key>
        trials <n> ok <n-ok>
        default-first <yes|no>   (trial 0 is the default config, status ok)
        best-is-fastest <yes|no> (best_config/best_ns are the fastest ok trial)
        errors-within-tol <yes|no> (every ok trial's rel_error <= TOL)
        model-rank-of-best <r|none> (the best trial's model_rank)
  tunecheck.py trial DB.json INDEX
      prints trial INDEX of the first entry as sorted JSON (to compare runs)
  tunecheck.py same A.json B.json
      prints "same" when both hold the same entries (the derived "key"
      member aside), else the first difference

Exit status 0 unless the file is not a version-1 database.
"""

import argparse
import json
import sys


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("summary")
    s.add_argument("db")
    s.add_argument("--tol", type=float, default=1e-4)
    t = sub.add_parser("trial")
    t.add_argument("db")
    t.add_argument("index", type=int)
    m = sub.add_parser("same")
    m.add_argument("db")
    m.add_argument("other")
    args = p.parse_args()
    with open(args.db) as f:
        db = json.load(f)
    if db.get("format") != "xpu-tuning-db" or db.get("version") != 1:
        print("not a version-1 xpu tuning database", file=sys.stderr)
        return 1
    if args.cmd == "same":
        with open(args.other) as f:
            other = json.load(f)
        for d in (db, other):
            for e in d["entries"]:
                e.pop("key", None)
        a, b = db["entries"], other["entries"]
        if len(a) != len(b):
            print("%d entries vs %d" % (len(a), len(b)))
            return 0
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                print("entry %d differs:\n%s\n%s" % (
                    i, json.dumps(x, sort_keys=True),
                    json.dumps(y, sort_keys=True)))
                return 0
        print("same")
        return 0
    if args.cmd == "trial":
        print(json.dumps(db["entries"][0]["trials"][args.index],
                         sort_keys=True))
        return 0
    for e in db["entries"]:
        trials = e["trials"]
        ok = [t for t in trials if t["status"] == "ok"]
        print("entry %s %s" % (e["target"], e["key"]))
        print("trials %d ok %d" % (len(trials), len(ok)))
        first = trials[0] if trials else {}
        print("default-first %s" % (
            "yes" if first.get("config") == e["default_config"] and
            first.get("status") == "ok" and
            first.get("time_ns") == e["default_ns"] else "no"))
        fastest = min(ok, key=lambda t: t["time_ns"]) if ok else None
        print("best-is-fastest %s" % (
            "yes" if fastest and fastest["config"] == e["best_config"] and
            fastest["time_ns"] == e["best_ns"] else "no"))
        print("errors-within-tol %s" % (
            "yes" if all(0 <= t.get("rel_error", -1) <= args.tol
                         for t in ok) else "no"))
        rank = fastest.get("model_rank") if fastest else None
        print("model-rank-of-best %s" % (rank if rank else "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
