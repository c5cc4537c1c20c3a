#!/usr/bin/env python3
"""Compares two pipeline outputs whose gpu.binary ops hold SPIR-V.

Usage: same_binaries.py A.mlir B.mlir

Two compiles of one model must give the same IR outside the binaries, byte
for byte, and the same SPIR-V modules up to the numbering of their ids:
LLVM 22.1.8's SPIR-V backend keeps module analysis in static state shared
by every module a process translates (docs/KnownIssues.md, "SPIR-V backend:
ids defined twice"), so a module translated after another one may number
its labels differently from one run to the next. Each pair of binaries must
pass spirv-val and be equal once `spirv-opt --compact-ids` has renumbered
both from %1 in order of definition. Prints one line per binary and exits 1
on the first difference.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

# `bin = "..."` of a #gpu.object: MLIR prints bytes that are not printable
# as \XX and escapes `\` and `"`.
BIN = re.compile(r'(bin = )"((?:[^"\\]|\\.)*)"', re.S)
NAME = re.compile(r"gpu\.binary @([\w.$-]+)")


def decode(text):
    out = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\":
            out += c.encode("latin-1")
            i += 1
        elif text[i + 1] in '\\"':
            out.append(ord(text[i + 1]))
            i += 2
        else:
            out.append(int(text[i + 1:i + 3], 16))
            i += 3
    return bytes(out)


def split(path):
    """Returns (IR with every blob replaced by its index, [(name, bytes)])."""
    with open(path, encoding="latin-1") as f:
        text = f.read()
    blobs = []

    def replace(m):
        line_start = text.rfind("\n", 0, m.start()) + 1
        name = NAME.search(text, line_start, m.start())
        blobs.append((name.group(1) if name else "?", decode(m.group(2))))
        return '%s"<binary %d>"' % (m.group(1), len(blobs) - 1)

    return BIN.sub(replace, text), blobs


def tool(name):
    path = shutil.which(name)
    if not path:
        sys.exit("same_binaries: %s not found" % name)
    return path


def first_difference(a, b):
    for n, (x, y) in enumerate(zip(a.splitlines(), b.splitlines()), 1):
        if x != y:
            return n, x, y
    n = min(len(a.splitlines()), len(b.splitlines())) + 1
    return n, "<end>" if len(a) < len(b) else "...", "..."


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    val, opt = tool("spirv-val"), tool("spirv-opt")
    ir_a, bins_a = split(sys.argv[1])
    ir_b, bins_b = split(sys.argv[2])
    if not bins_a:
        sys.exit("same_binaries: no gpu.binary blob in %s" % sys.argv[1])
    if ir_a != ir_b:
        n, x, y = first_difference(ir_a, ir_b)
        print("FAIL: the IR outside the binaries differs at line %d:\n"
              "  %s\n  %s" % (n, x.strip()[:200], y.strip()[:200]))
        return 1
    tmp = tempfile.mkdtemp(prefix="same_binaries.")
    try:
        for i, ((name, a), (_, b)) in enumerate(zip(bins_a, bins_b)):
            compact = []
            for tag, data in (("a", a), ("b", b)):
                spv = os.path.join(tmp, "%d%s.spv" % (i, tag))
                with open(spv, "wb") as f:
                    f.write(data)
                r = subprocess.run([val, spv], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True)
                if r.returncode != 0:
                    print("FAIL: %s (%s): spirv-val: %s" %
                          (name, sys.argv[1 if tag == "a" else 2],
                           r.stdout.strip()))
                    return 1
                out = spv + ".compact"
                subprocess.run([opt, "--compact-ids", spv, "-o", out],
                               check=True)
                with open(out, "rb") as f:
                    compact.append(f.read())
            if compact[0] != compact[1]:
                print("FAIL: %s: the SPIR-V modules differ beyond the "
                      "numbering of their ids" % name)
                return 1
            print("%s: valid, %s" %
                  (name, "identical" if a == b else
                   "equal up to id numbering"))
    finally:
        shutil.rmtree(tmp)
    print("same IR, %d binaries" % len(bins_a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
