#!/usr/bin/env python3
"""Writes a module of gpu.binary ops holding the given SPIR-V files, printed
as MLIR prints them (for test/Tools/same-binaries.test).

Usage: embed-spirv.py OUT.mlir NAME=FILE.spv ...
"""
import sys


def escape(data):
    out = []
    for b in data:
        c = chr(b)
        if c in '\\"':
            out.append("\\" + c)
        elif 0x20 <= b < 0x7f:
            out.append(c)
        else:
            out.append("\\%02X" % b)
    return "".join(out)


with open(sys.argv[1], "w") as f:
    f.write("module attributes {gpu.container_module} {\n")
    for arg in sys.argv[2:]:
        name, path = arg.split("=", 1)
        with open(path, "rb") as spv:
            data = spv.read()
        f.write('  gpu.binary @%s [#gpu.object<#xevm.target<chip = "pvc">, '
                'bin = "%s">]\n' % (name, escape(data)))
    f.write("}\n")
