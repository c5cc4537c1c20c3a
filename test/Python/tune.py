"""xpu_opt.tune: tunes an MLIR function with xpu-tune and returns the
database; bad arguments raise CompileError with xpu-tune's one line.
Prints PASS or FAIL per case."""

import argparse
import pathlib
import sys

import xpu_opt
from xpu_opt import CompileError

HERE = pathlib.Path(__file__).resolve().parent
MODEL = HERE.parent / "Tools" / "xpu-tune" / "Inputs" / "linear-relu.mlir"


def check(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    return ok


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--target", default="cpu")
    p.add_argument("--dir", required=True)
    args = p.parse_args()
    out = pathlib.Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    ok = True
    db = xpu_opt.tune(MODEL.read_text(), target=args.target,
                      db=out / "db.json", max_trials=2, repeat=1)
    entries = db["entries"]
    trials = entries[0]["trials"] if len(entries) == 1 else []
    fastest = min((t for t in trials if t["status"] == "ok"),
                  key=lambda t: t["time_ns"], default=None)
    ok &= check(db["format"] == "xpu-tuning-db" and len(trials) == 3,
                "MLIR text tuned: one entry, the default and 2 trials "
                f"({args.target})")
    ok &= check(fastest is not None and
                entries[0]["best_config"] == fastest["config"],
                "the best config is the fastest ok trial")
    db2 = xpu_opt.tune(MODEL, target=args.target, db=out / "db.json",
                       max_trials=3, repeat=1, resume=True)
    ok &= check(len(db2["entries"][0]["trials"]) == 4,
                "a .mlir path with resume=True adds the third trial")
    for kwargs, what, expected in [
            ({"max_trials": 0}, "max_trials=0",
             "error: xpu-tune: --max-trials must be at least 1, got 0"),
            ({"target": "tpu"}, "an unknown target",
             "error: xpu-tune: unknown target 'tpu'"),
            ({"db": out / "db.json" / "x.json"}, "an unwritable database",
             "error: xpu-tune: cannot write tuning database")]:
        call = dict(target=args.target, db=out / "bad.json", max_trials=1,
                    repeat=1)
        call.update(kwargs)
        try:
            xpu_opt.tune(MODEL, **call)
            ok &= check(False, f"{what} raises CompileError")
        except CompileError as e:
            ok &= check(str(e).startswith(expected),
                        f"{what} raises CompileError: {e}")
    print("ALL PASSED" if ok else "SOME FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
