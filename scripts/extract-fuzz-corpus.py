#!/usr/bin/env python3
"""Writes the fuzzers' seed corpus: every `// -----` chunk of the .mlir files
under test/ and examples/, with comment lines (RUN, CHECK, prose) removed,
one file per distinct chunk, named by its content hash.

  extract-fuzz-corpus.py [--src ROOT] OUT_DIR

Both fuzzers read it: the libFuzzer harness (test/Fuzz, tools/xpu-fuzz) as
its seed directory, scripts/fuzz-xpu-opt.py as the inputs it mutates.
Prints the number of seeds written.
"""

import argparse
import hashlib
import os
import sys


def chunks(path):
    with open(path, errors="replace") as fh:
        text = fh.read()
    for chunk in text.split("// -----"):
        lines = [l for l in chunk.split("\n") if not l.lstrip().startswith("//")]
        chunk = "\n".join(lines).strip()
        if chunk:
            yield chunk + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--src", default=os.path.join(os.path.dirname(__file__),
                                                  ".."),
                    help="source root (default: this checkout)")
    ap.add_argument("out")
    args = ap.parse_args()

    os.makedirs(args.out, exist_ok=True)
    seen = set()
    for top in ("test", "examples"):
        for root, dirs, files in os.walk(os.path.join(args.src, top)):
            dirs.sort()
            for name in sorted(files):
                if not name.endswith(".mlir"):
                    continue
                for chunk in chunks(os.path.join(root, name)):
                    digest = hashlib.sha1(chunk.encode()).hexdigest()
                    if digest in seen:
                        continue
                    seen.add(digest)
                    with open(os.path.join(args.out, digest + ".mlir"),
                              "w") as fh:
                        fh.write(chunk)
    print("%d seeds in %s" % (len(seen), args.out))
    return 0 if seen else 1


if __name__ == "__main__":
    sys.exit(main())
