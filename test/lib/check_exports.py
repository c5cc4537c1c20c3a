"""Checks that each runtime library exports what its callers need:

* every function XPURuntime.h declares, except those of its "OpenCL only" /
  "CUDA only" sections (required of that runtime alone) and
  mgpuModuleLoadJIT, which only a runtime with a compiler for text (CUDA:
  PTX) exports, as the header says;
* every function xpu_opt binds (BOUND_FUNCTIONS in
  python/xpu_opt/_runtime.py, read without importing it).

    check_exports.py --header XPURuntime.h --bindings _runtime.py \
        --nm nm LIB=TARGET ...

Prints one line per library and exits 1 if one lacks a function.
"""

import argparse
import ast
import re
import subprocess
import sys


def declarations(header):
    """{function: target it is for, or None for every runtime}.

    Declarations may span lines (`XPU_RUNTIME_EXPORT void` then
    `mgpuLaunchKernel(...)`), so the header is read as one text; a section
    comment applies to the declarations after it."""
    text = open(header).read()
    sections = [(m.start(), m.group(1)) for m in
                re.finditer(r"^// \w+ only \(xpu_(\w+)_runtime\)", text,
                            re.MULTILINE)]
    result = {}
    for m in re.finditer(r"^XPU_RUNTIME_EXPORT\s+[^;(]*?\b(\w+)\s*\(", text,
                         re.MULTILINE):
        section = None
        for start, target in sections:
            if start < m.start():
                section = target
        result[m.group(1)] = section
    exports = len(re.findall(r"^XPU_RUNTIME_EXPORT\b", text, re.MULTILINE))
    if exports != len(result):
        raise SystemExit(f"{header}: read {len(result)} of {exports} "
                         "XPU_RUNTIME_EXPORT declarations")
    # "Only backends with such a compiler (CUDA) export it."
    if "mgpuModuleLoadJIT" in result:
        result["mgpuModuleLoadJIT"] = "cuda"
    return result


def bindings(path):
    tree = ast.parse(open(path).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
                getattr(t, "id", None) == "BOUND_FUNCTIONS"
                for t in node.targets):
            return ast.literal_eval(node.value)
    raise SystemExit(f"{path}: no BOUND_FUNCTIONS")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--header", required=True)
    p.add_argument("--bindings", required=True)
    p.add_argument("--nm", default="nm")
    p.add_argument("--print-declarations", action="store_true",
                   help="print the header's functions (and the runtime each "
                        "is for) and exit")
    p.add_argument("libraries", nargs="*", help="LIB=TARGET")
    args = p.parse_args()
    declared = declarations(args.header)
    if args.print_declarations:
        for f, only in sorted(declared.items()):
            print(f, only or "all")
        return 0
    bound = bindings(args.bindings)
    failed = False
    for spec in args.libraries:
        lib, target = spec.rsplit("=", 1)
        out = subprocess.run([args.nm, "-D", "--defined-only", lib],
                             capture_output=True, text=True, check=True)
        exported = {line.split()[-1] for line in out.stdout.splitlines()
                    if line.split()}
        wanted = {f for f, only in declared.items()
                  if only is None or only == target}
        wanted |= {f for f, targets in bound.items() if target in targets}
        missing = sorted(wanted - exported)
        if missing:
            failed = True
            print(f"FAIL {target}: {lib} lacks {', '.join(missing)}")
        else:
            print(f"PASS {target}: {len(wanted)} functions exported")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
