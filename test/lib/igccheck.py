#!/usr/bin/env python3
"""Compiles kernel binaries with Intel's offline compiler (ocloc) and checks
what it made of them.

Inputs are SPIR-V files or directories of them (xpu-opt's dump-binaries), or
models compiled here first (--opt xpu-opt --pipeline xe|spirv; --inputs is
appended to each model, like the integration tests' generator). Each SPIR-V
file is compiled for every --device with the build options it carries
(`OpModuleProcessed "xpu.build-options: ..."`, which the xpu runtimes pass
to the driver), then:

  build     ocloc compiles it (no error);
  symbols   no unresolved symbol in the zebin (UND other than IGC's own
            __INTEL_PATCH_*), no stack calls;
  grf       the GRF count is the plan: 256 with -ze-opt-large-register-file
            (or -cl-intel-256-GRF-per-thread) embedded, else 128;
  simd      the SIMD width is the kernel's OpExecutionMode SubgroupSize; a
            kernel without one fails (the compiler picked the width, so the
            strategy's register plan does not hold);
  spill     IGC spilled nothing (.ze_info spill_size absent or 0);
  ops       the machine code has the instructions --require names: dpas,
            load2d (2D block loads), prefetch2d (2D block loads to null),
            store2d (2D block stores), counted in `ocloc disasm`;
  rules     every cl_intel_subgroup_2d_block_io builtin call meets the
            extension's restrictions where its arguments are known (see
            check_block_call).

--checks selects which of these fail the run (default: all); every number
is printed anyway. One line per file, device and kernel:

  <model> <device> <file> <kernel>: simd 16/16 grf 256/256 spill 0 ...: ok
  <model> <device> <file> <kernel>: ...: FAIL spill 4992 bytes; ...

and one indented line per 2D-block rule violation. --json FILE writes every
record. Exit status 1 if any selected check failed.
"""

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spirv_module  # noqa: E402
import spirv_val_dir  # noqa: E402

ALL_CHECKS = ("build", "symbols", "grf", "simd", "spill", "ops", "rules")
LARGE_GRF_OPTIONS = ("-ze-opt-large-register-file",
                     "-cl-intel-256-GRF-per-thread")
UNVERIFIED = "unverified: "
BLOCK_BUILTIN = re.compile(
    r"intel_sub_group_2d_block_(read_transform|read_transpose|read|write|"
    r"prefetch)_(\d+)b_(\d+)r(\d+)x(\d+)c")


def run(args, **kwargs):
    return subprocess.run(args, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, **kwargs)


# --- zebin (ELF64) ---------------------------------------------------------

def read_elf_sections(data):
    if data[:4] != b"\x7fELF" or data[4] != 2:
        raise ValueError("not an ELF64 file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = []
    for i in range(shnum):
        name, kind, _, _, offset, size, link, _, _, entsize = \
            struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        headers.append((name, kind, offset, size, link, entsize))
    strtab = headers[shstrndx]
    names = data[strtab[2]:strtab[2] + strtab[3]]

    def cstr(table, at):
        return table[at:table.index(b"\0", at)].decode()

    sections = {}
    for name, kind, offset, size, link, entsize in headers:
        sections[cstr(names, name)] = (kind, data[offset:offset + size],
                                       link, entsize)
    return sections, headers, cstr


def unresolved_symbols(data):
    sections, headers, cstr = read_elf_sections(data)
    symtab = sections.get(".symtab")
    if not symtab:
        return []
    _, body, link, entsize = symtab
    strtab = data[headers[link][2]:headers[link][2] + headers[link][3]]
    result = []
    for at in range(0, len(body), entsize or 24):
        name, info, _, shndx, _, _ = struct.unpack_from("<IBBHQQ", body, at)
        text = cstr(strtab, name)
        if shndx == 0 and text and not text.startswith("__INTEL_PATCH"):
            result.append(text)
    return result


def parse_ze_info(text):
    """Kernel name -> execution_env of the zebin's .ze_info (YAML)."""
    kernels = {}
    in_kernels = False
    current = None
    env_indent = None
    for line in text.splitlines():
        if not line.strip() or line.startswith("---"):
            continue
        indent = len(line) - len(line.lstrip())
        if indent == 0:
            in_kernels = line.startswith("kernels:")
            current = None
            continue
        if not in_kernels:
            continue
        stripped = line.strip()
        match = re.match(r"- name:\s*(\S+)", stripped)
        if match and indent <= 4:
            current = kernels.setdefault(match.group(1), {})
            env_indent = None
            continue
        if current is None:
            continue
        if stripped == "execution_env:":
            env_indent = indent
            continue
        if env_indent is not None:
            if indent <= env_indent:
                env_indent = None
                continue
            key, _, value = stripped.partition(":")
            current[key.strip()] = value.strip()
    return kernels


# --- ocloc ------------------------------------------------------------------

def compile_spirv(ocloc, spv, device, options, out_dir):
    args = [ocloc, "compile", "-spirv_input", "-file", spv, "-device",
            device, "-out_dir", out_dir, "-output", "k", "-output_no_suffix",
            "--format", "zebin"]
    if options:
        args += ["-options", options]
    result = run(args)
    # ocloc that stops early (a crash, an option it rejects) writes no
    # output directory: a failed build with its output, not a traceback.
    if not os.path.isdir(out_dir):
        return None, "ocloc exited with status %d and wrote no %s\n%s" % (
            result.returncode, out_dir, result.stdout)
    binaries = [f for f in sorted(os.listdir(out_dir))
                if not f.endswith((".spv", ".txt", ".dbg"))]
    if result.returncode != 0 or not binaries:
        return None, result.stdout
    return os.path.join(out_dir, binaries[0]), result.stdout


def count_instructions(ocloc, binary, device, dump_dir):
    """Kernel name -> instruction counts from `ocloc disasm`."""
    run([ocloc, "disasm", "-file", binary, "-dump", dump_dir, "-device",
         device])
    counts = {}
    for f in os.listdir(dump_dir):
        match = re.match(r"\.text\.(.+)\.asm$", f)
        if not match:
            continue
        c = {"dpas": 0, "load2d": 0, "prefetch2d": 0, "store2d": 0,
             "instructions": 0}
        with open(os.path.join(dump_dir, f), errors="replace") as asm:
            for line in asm:
                code = line.split("//")[0].strip()
                if not code or code.startswith(("L", "(")) and \
                        code.endswith(":"):
                    continue
                c["instructions"] += 1
                if re.match(r"(\(\S+\)\s+)?dpas", code):
                    c["dpas"] += 1
                if "load_block2d" in line:
                    # A load to the null register is a prefetch.
                    if re.match(r"(\(\S+\)\s+)?send\S*\s+\(\S+\)\s+null\b",
                                code):
                        c["prefetch2d"] += 1
                    else:
                        c["load2d"] += 1
                if "store_block2d" in line:
                    c["store2d"] += 1
        counts[match.group(1)] = c
    return counts


# --- cl_intel_subgroup_2d_block_io rules ------------------------------------

def check_block_call(known, name, args):
    """Violations of the extension's restrictions by one call, as strings.

    intel_sub_group_2d_block_<op>_<bits>b_<rows>r<cols>x<blocks>c(
        global void *base, int width, int height, int pitch, int2 coord, ...)
    width and pitch in bytes, height in rows, coord = (x in elements, y in
    rows). Restrictions (undefined behaviour otherwise, not checked by IGC):
    base 64-byte aligned; 64 <= width <= 2^24 bytes and a multiple of 4 (for
    8- and 16-bit data; 32- and 64-bit rows are multiples of 4 anyway);
    1 <= height <= 2^24; width <= pitch <= 2^24 and pitch a multiple of 16;
    coord.x even for 16-bit data. Values the module does not determine are
    not reported, except a 16-bit coord.x not known to be even (reported as
    unverified, which fails nothing); kernel pointer arguments are taken to
    be 64-byte aligned.
    """
    match = BLOCK_BUILTIN.search(name)
    bits = int(match.group(2))
    violations = []
    base, width, height, pitch = (known.get(a) for a in args[:4])
    coord = known.get(args[4]) if len(args) > 4 else None

    def exact(v):
        return None if isinstance(v, list) else known.exact(v)

    w, h, p = exact(width), exact(height), exact(pitch)
    if not isinstance(base, list) and known.alignment(base) < 64:
        violations.append("base address only %d-byte aligned (64 needed)" %
                          known.alignment(base))
    if w is not None:
        if w < 64:
            violations.append("width %d bytes < 64" % w)
        if w > 1 << 24:
            violations.append("width %d bytes > 2^24" % w)
        if w % 4:
            violations.append("width %d bytes not a multiple of 4" % w)
    if h is not None and not 1 <= h <= 1 << 24:
        violations.append("height %d rows outside [1, 2^24]" % h)
    if p is not None:
        if p % 16:
            violations.append("pitch %d bytes not a multiple of 16" % p)
        if w is not None and p < w:
            violations.append("pitch %d bytes < width %d" % (p, w))
        if p > 1 << 24:
            violations.append("pitch %d bytes > 2^24" % p)
    if bits == 16 and isinstance(coord, list) and coord:
        x = coord[0]
        if known.exact(x) is not None and known.exact(x) % 2:
            violations.append("coord.x %d odd for 16-bit data" %
                              known.exact(x))
        elif known.exact(x) is None and known.alignment(x) < 2:
            violations.append(UNVERIFIED + "coord.x not known to be even "
                              "for 16-bit data")
    return violations


def check_rules(module):
    """(calls checked, [(builtin, violation)]) for a module's 2D-block calls.
    Violations are reported once per builtin and message."""
    known = spirv_module.Known(module)
    checked = 0
    seen = []
    for _, callee, args in module.calls:
        name = module.function_name(callee)
        match = BLOCK_BUILTIN.search(name)
        if not match:
            continue
        checked += 1
        short = match.group(0)[len("intel_sub_group_2d_block_"):]
        for v in check_block_call(known, name, args):
            if (short, v) not in seen:
                seen.append((short, v))
    return checked, seen


# --- one SPIR-V file --------------------------------------------------------

def check_file(ocloc, spv, devices, args):
    with open(spv, "rb") as f:
        module = spirv_module.Module(f.read())
    options = " ".join(o for o in (module.build_options(), args.options)
                       if o)
    planned_grf = 256 if any(o in options.split()
                             for o in LARGE_GRF_OPTIONS) else 128
    rule_calls, violations = check_rules(module)
    records = []
    if args.no_compile:
        for entry, kernel in sorted(module.entry_points.items(),
                                    key=lambda e: e[1]):
            broken = [v for v in violations if not v[1].startswith(UNVERIFIED)]
            records.append({
                "file": os.path.basename(spv), "device": "-",
                "kernel": kernel, "options": options,
                "planned_simd": module.subgroup_size(entry),
                "planned_grf": planned_grf, "rule_calls": rule_calls,
                "violations": violations,
                "failures": ["%d 2D-block rule violation(s)" % len(broken)]
                if broken else []})
        return records
    for device in devices:
        with tempfile.TemporaryDirectory() as tmp:
            binary, log = compile_spirv(ocloc, spv, device, options,
                                        os.path.join(tmp, "out"))
            if binary is None:
                records.append({"file": os.path.basename(spv),
                                "device": device, "kernel": "-",
                                "build_log": log.strip(), "options": options,
                                "failures": ["build failed"],
                                "violations": violations})
                continue
            data = open(binary, "rb").read()
            sections, _, _ = read_elf_sections(data)
            ze_info = parse_ze_info(sections[".ze_info"][1].decode(
                "utf-8", "replace")) if ".ze_info" in sections else {}
            undefined = unresolved_symbols(data)
            counts = count_instructions(ocloc, binary, device,
                                        os.path.join(tmp, "dis"))
        for entry, kernel in sorted(module.entry_points.items(),
                                    key=lambda e: e[1]):
            env = ze_info.get(kernel, {})
            r = {"file": os.path.basename(spv), "device": device,
                 "kernel": kernel, "options": options,
                 "simd": int(env.get("simd_size", 0)),
                 "planned_simd": module.subgroup_size(entry),
                 "grf": int(env.get("grf_count", 0)),
                 "planned_grf": planned_grf,
                 "spill": int(env.get("spill_size", 0)),
                 "private": int(env.get("private_size", 0)),
                 "stack_calls": env.get("has_stack_calls", "false") == "true",
                 "unresolved": undefined,
                 "rule_calls": rule_calls, "violations": violations}
            r.update(counts.get(kernel, {}))
            f = []
            if not env:
                f.append("kernel missing from the zebin")
            if undefined:
                f.append("unresolved symbols: " + " ".join(undefined))
            if r["stack_calls"]:
                f.append("stack calls")
            if r["grf"] != planned_grf:
                f.append("GRF %d, planned %d" % (r["grf"], planned_grf))
            if r["planned_simd"] is None:
                f.append("SIMD%d chosen by the compiler (no SubgroupSize)" %
                         r["simd"])
            elif r["simd"] != r["planned_simd"]:
                f.append("SIMD%d, planned %d" % (r["simd"], r["planned_simd"]))
            if r["spill"]:
                f.append("spill %d bytes" % r["spill"])
            for op in args.require:
                if not r.get(op):
                    f.append("no %s" % op)
            broken = [v for v in violations if not v[1].startswith(UNVERIFIED)]
            if broken:
                f.append("%d 2D-block rule violation(s)" % len(broken))
            r["failures"] = f
            records.append(r)
    return records


def failure_check(failure):
    """Which check a failure message belongs to."""
    if failure.startswith(("build", "kernel missing")):
        return "build"
    if failure.startswith(("unresolved", "stack")):
        return "symbols"
    if failure.startswith("GRF"):
        return "grf"
    if failure.startswith("SIMD"):
        return "simd"
    if failure.startswith("spill"):
        return "spill"
    if failure.startswith("no "):
        return "ops"
    return "rules"


def describe(record, checks):
    if "device" in record and record["device"] == "-":
        head = "simd -/%s grf -/%d 2d-calls %d" % (
            record["planned_simd"] or "-", record["planned_grf"],
            record["rule_calls"])
    elif "simd" not in record:
        head = "build FAILED"
    else:
        head = "simd %d/%s grf %d/%d spill %d dpas %d load2d %d " \
            "prefetch2d %d store2d %d 2d-calls %d" % (
                record["simd"], record["planned_simd"] or "-", record["grf"],
                record["planned_grf"], record["spill"],
                record.get("dpas", 0), record.get("load2d", 0),
                record.get("prefetch2d", 0), record.get("store2d", 0),
                record["rule_calls"])
    failing = [f for f in record["failures"] if failure_check(f) in checks]
    return head + (": FAIL " + "; ".join(failing) if failing else ": ok")


# --- models ------------------------------------------------------------------

def dump_model(opt, pipeline, model, inputs, device, options, out_dir):
    source = open(model, "rb").read() + inputs
    if pipeline == "xe":
        flag = "--xpu-xe-pipeline=chip=%s dump-binaries=%s %s" % (
            device, out_dir, options)
    else:
        flag = "--xpu-spirv-pipeline=chip=%s dump-binaries=%s %s" % (
            device, out_dir, options)
    result = subprocess.run([opt, flag.strip(), "-o", os.devnull],
                            input=source, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    if (result.returncode == 0 and pipeline == "xe" and
            spirv_val_dir.has_bad_ids(out_dir)):
        # LLVM's SPIR-V backend (llvm-project#160613, docs/KnownIssues.md).
        sys.stderr.write("%s %s: an id defined twice or past the id "
                         "bound; compiled again\n" %
                         (model, device))
        for f in os.listdir(out_dir):
            os.remove(os.path.join(out_dir, f))
        result = subprocess.run([opt, flag.strip(), "-o", os.devnull],
                                input=source, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
    return result.returncode == 0, result.stderr.decode()


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("paths", nargs="+",
                    help="SPIR-V files, directories of them, or models")
    ap.add_argument("--ocloc", default=shutil.which("ocloc"),
                    help="the ocloc to run (default: ocloc on PATH)")
    ap.add_argument("--device", default="pvc",
                    help="devices, comma separated (default pvc)")
    ap.add_argument("--checks", default=",".join(ALL_CHECKS),
                    help="checks that fail the run (default: all)")
    ap.add_argument("--require", default="",
                    help="instructions the machine code must have: dpas, "
                    "load2d, prefetch2d, store2d (comma separated)")
    ap.add_argument("--options", default="",
                    help="compiler options added to the embedded ones (to "
                    "measure other plans; the GRF plan follows them)")
    ap.add_argument("--opt", help="xpu-opt: compile the models first")
    ap.add_argument("--pipeline", choices=("xe", "spirv"), default="xe")
    ap.add_argument("--pipeline-options", default="")
    ap.add_argument("--inputs", help="file appended to each model")
    ap.add_argument("--expect", type=int,
                    help="exact number of SPIR-V files per model and device")
    ap.add_argument("--only", default="",
                    help="check only the SPIR-V files whose name matches "
                    "this regular expression (e.g. _xe_gemm: the DPAS "
                    "kernels, not the SIMT kernels beside them)")
    ap.add_argument("--json", help="write every record to this file")
    ap.add_argument("--no-compile", action="store_true",
                    help="only read the SPIR-V (the 2D-block rules and the "
                    "plan); no ocloc needed")
    args = ap.parse_args()
    args.require = [r for r in args.require.split(",") if r]
    checks = set(c for c in args.checks.split(",") if c)
    unknown = checks - set(ALL_CHECKS)
    if unknown:
        ap.error("unknown checks: %s" % ", ".join(sorted(unknown)))
    if not args.ocloc and not args.no_compile:
        sys.exit("igccheck: no ocloc (--ocloc, or scripts/setup.sh)")
    devices = [d for d in args.device.split(",") if d]

    failed = False
    all_records = []

    def report(label, device_list, spvs):
        nonlocal failed
        if args.expect is not None and len(spvs) != args.expect:
            print("%s: %d SPIR-V files, expected %d" % (label, len(spvs),
                                                        args.expect))
            failed = True
        for spv in spvs:
            for r in check_file(args.ocloc, spv, device_list, args):
                r["model"] = label
                all_records.append(r)
                print("%s %s %s %s: %s" % (label, r["device"], r["file"],
                                           r["kernel"], describe(r, checks)))
                if "rules" in checks:
                    for builtin, v in r["violations"]:
                        print("  %s: %s" % (builtin, v))
                if any(failure_check(f) in checks for f in r["failures"]):
                    failed = True
                if r.get("build_log") and "build" in checks:
                    sys.stderr.write(r["build_log"] + "\n")

    inputs = open(args.inputs, "rb").read() if args.inputs else b""
    for path in args.paths:
        if args.opt:
            name = os.path.splitext(os.path.basename(path))[0]
            for device in devices:
                with tempfile.TemporaryDirectory() as tmp:
                    ok, err = dump_model(args.opt, args.pipeline, path, inputs,
                                         device, args.pipeline_options, tmp)
                    if not ok:
                        print("%s %s: xpu-opt FAILED" % (name, device))
                        sys.stderr.write(err)
                        failed = True
                        continue
                    spvs = sorted(os.path.join(tmp, f)
                                  for f in os.listdir(tmp)
                                  if f.endswith(".spv") and
                                  re.search(args.only, f))
                    if not spvs:
                        print("%s %s: no SPIR-V file matches '%s'" %
                              (name, device, args.only))
                        failed = True
                    report(name, [device], spvs)
        elif os.path.isdir(path):
            spvs = sorted(os.path.join(path, f) for f in os.listdir(path)
                          if f.endswith(".spv"))
            if not spvs:
                print("%s: no SPIR-V file" % path)
                failed = True
            report(os.path.basename(os.path.normpath(path)), devices, spvs)
        else:
            report(os.path.basename(path), devices, [path])

    if args.json:
        with open(args.json, "w") as f:
            json.dump(all_records, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
