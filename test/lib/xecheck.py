#!/usr/bin/env python3
"""Compiles models through xpu-xe-pipeline and checks every kernel binary.

For each model and chip: xpu-opt --xpu-xe-pipeline="chip=C dump-binaries=D"
on the model (followed by the shared input generator when given), then per
dumped SPIR-V file: spirv-val --target-env spv1.4, and spirv-dis to find the
Intel builtins the kernel must call:

  block-read     intel_sub_group_2d_block_read_*        (A, epilogue operands)
  read-transform intel_sub_group_2d_block_read_transform_* (B, packed for DPAS)
  dpas           intel_sub_group_{bf16_bf16,f16_f16}_matrix_mad_k16
  block-write    intel_sub_group_2d_block_write_*       (C)
  prefetch       intel_sub_group_2d_block_prefetch_*    (only with --prefetch)

A Stream-K fix-up kernel (named *_fixup) sums workspace slots and stores
the tile: it must call the block read and block write builtins only. The
other kernels of the model (weight layouts and conversions in <fn>.pack,
unfused epilogues, reductions: xpu-linalg-to-gpu-loops, merged into one
module per binary) are SIMT code: their binary ("simt") must pass spirv-val
and call none of those builtins. Every
kernel must declare a workgroup above 1x1x1 (spirv_val_dir.local_sizes;
"FAIL workgroup: ..." otherwise).

Prints one line per model, chip and kernel, and exits 1 if any check fails
(the failing tool's output goes to stderr).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spirv_val_dir import has_bad_ids, local_sizes  # noqa: E402

BUILTINS = {
    "block-read": re.compile(r"intel_sub_group_2d_block_read_(?!transform)"),
    "read-transform": re.compile(r"intel_sub_group_2d_block_read_transform_"),
    "dpas": re.compile(
        r"intel_sub_group_(bf16_bf16|f16_f16)_matrix_mad_k16"),
    "block-write": re.compile(r"intel_sub_group_2d_block_write_"),
}
PREFETCH = re.compile(r"intel_sub_group_2d_block_prefetch_")


def run(args, stdin=None):
    return subprocess.run(args, input=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--opt", required=True, help="the xpu-opt binary")
    parser.add_argument("--chips", default="pvc,bmg")
    parser.add_argument("--inputs", default=None,
                        help="file appended to each model (the generator)")
    parser.add_argument("--options", default="",
                        help="extra xpu-xe-pipeline options")
    parser.add_argument("--prefetch", action="store_true",
                        help="also require the block prefetch builtin")
    parser.add_argument("models", nargs="+")
    args = parser.parse_args()

    failed = False
    extra = open(args.inputs, "rb").read() if args.inputs else b""
    for model in args.models:
        source = open(model, "rb").read() + extra
        name = os.path.splitext(os.path.basename(model))[0]
        for chip in args.chips.split(","):
            with tempfile.TemporaryDirectory() as tmp:
                options = "chip=%s dump-binaries=%s %s" % (chip, tmp,
                                                          args.options)
                result = run([args.opt,
                              "--xpu-xe-pipeline=%s" % options.strip(),
                              "-o", os.devnull], stdin=source)
                if result.returncode == 0 and has_bad_ids(tmp):
                    sys.stderr.write("%s %s: an id defined twice or past the "
                                     "id bound (LLVM's SPIR-V backend, "
                                     "llvm-project#160613); "
                                     "compiled again\n" % (name, chip))
                    for f in os.listdir(tmp):
                        os.remove(os.path.join(tmp, f))
                    result = run([args.opt,
                                  "--xpu-xe-pipeline=%s" % options.strip(),
                                  "-o", os.devnull], stdin=source)
                if result.returncode != 0:
                    print("%s %s: xpu-opt FAILED" % (name, chip))
                    sys.stderr.write(result.stderr.decode())
                    failed = True
                    continue
                spvs = sorted(f for f in os.listdir(tmp) if f.endswith(".spv"))
                if not spvs:
                    print("%s %s: no kernel binary" % (name, chip))
                    failed = True
                for spv in spvs:
                    path = os.path.join(tmp, spv)
                    status = []
                    val = run(["spirv-val", "--target-env", "spv1.4", path])
                    if val.returncode != 0:
                        sys.stderr.write(val.stdout.decode() +
                                         val.stderr.decode())
                        status.append("spirv-val FAILED")
                        failed = True
                    else:
                        status.append("spirv-val ok")
                    dis = run(["spirv-dis", path]).stdout.decode()
                    _, error = local_sizes(dis)
                    if error:
                        status.append("FAIL workgroup: " + error)
                        failed = True
                    checks = dict(BUILTINS)
                    if "_xe_gemm" not in spv:
                        checks = {}
                        status.append("simt")
                        if any(p.search(dis) for p in BUILTINS.values()):
                            status.append("FAIL builtins in SIMT code")
                            failed = True
                    elif "_fixup." in spv:
                        checks = {key: BUILTINS[key]
                                  for key in ("block-read", "block-write")}
                    elif args.prefetch:
                        checks["prefetch"] = PREFETCH
                    for key, pattern in checks.items():
                        if pattern.search(dis):
                            status.append(key)
                        else:
                            status.append("no-" + key)
                            failed = True
                    if "xpu.build-options: " in dis:
                        status.append("large-grf" if
                                      "-ze-opt-large-register-file" in dis
                                      else "build-options")
                    print("%s %s %s: %s" % (name, chip, spv, " ".join(status)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
