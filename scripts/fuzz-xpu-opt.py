#!/usr/bin/env python3
"""Structured mutation fuzzer for xpu-opt: bad input must give a located
diagnostic and a non-zero exit, never a crash.

Each mutant is a chunk of the seed corpus (test/ and examples/ split at
`// -----`, see scripts/extract-fuzz-corpus.py) with one to three structured
mutations that keep most of the input well formed, so that it gets past the
parser and reaches the verifiers and the lowerings:

  * shapes: one dimension, every dimension of one type, or one size
    everywhere set to 0, 1, 2, 3, 2^31, 2^32 or 2^40, or made dynamic (?);
  * element types: one occurrence or all of them (f16, bf16, f32, f64, i8,
    i32, index, f8E4M3FN), the accumulator type alone;
  * operands: two operands of an op swapped, one operand deleted;
  * #xpu.target: unknown chip, absurd or inconsistent fields, a target added
    to a module that has none;
  * #xpu.config: numbers set to 0, 1, 3, 2^31, 2^32 or 2^40, a config added to
    a GEMM that has none, the schedule changed;
  * epilogue: block arguments added or removed, their types or the yield's
    type changed, broadcast kinds and the rhs layout changed;
  * text: truncation, a line dropped or repeated, a number changed, related
    tokens swapped (the mutations of the first version of this fuzzer).

Every mutant runs through `--pipelines-per-mutant` pipelines (all of them
with 0). A run is a *crash* when xpu-opt dies from a signal, exits with
neither 0 nor 1, prints a stack dump, an LLVM fatal error, an assertion or
UNREACHABLE, or runs past the timeout; an *unlocated error* when it fails
with an error that has no source location (`<unknown>` or a bare `error:`
for an input that parsed). Runs are grouped by signature (the first stack
frame outside the signal handler, or the message with numbers removed); one
input per signature is written to --out with the command that reproduces it.
The seed is fixed, so a campaign reproduces.

  fuzz-xpu-opt.py --xpu-opt build/bin/xpu-opt [--mutants N] [--seed S]
                  [--jobs J] [--out DIR] FILE_OR_DIR...

Crashes of upstream MLIR that are known and reported (KNOWN_UPSTREAM,
docs/KnownIssues.md) are counted apart. Exit status: 1 when a crash or an
unlocated error was found, else 0.
"""

import argparse
import collections
import concurrent.futures
import os
import random
import re
import subprocess
import sys
import tempfile

PIPELINES = {
    "parse": [],
    "canonicalize": ["--canonicalize"],
    "lower-to-linalg": [
        "--pass-pipeline=builtin.module(func.func(xpu-raise),"
        "xpu-lower-to-linalg)"],
    "cpu-tile": [
        "--pass-pipeline=builtin.module(func.func(xpu-raise{strict=true}),"
        "xpu-lower-to-linalg,func.func(xpu-cpu-tile-and-vectorize))"],
    "catalog": [
        "--pass-pipeline=builtin.module(func.func(xpu-raise,xpu-fuse-epilogue,"
        "xpu-fold-affine-into-weights,xpu-simplify-epilogue,"
        "xpu-demote-f64,"
        "xpu-prepack-bf16,xpu-split-gemm-reduction,xpu-analyze),"
        "xpu-outline-weight-pack)"],
    "xpu-optimize": ["--xpu-optimize"],
    "xpu-optimize-bf16": ["--xpu-optimize=precision=bf16"],
    "xpu-cpu-pipeline": ["--xpu-cpu-pipeline"],
    "convert-xpu-to-gpu": [
        "--pass-pipeline=builtin.module(func.func(xpu-raise,"
        "xpu-select-strategy,convert-xpu-to-gpu))"],
    "convert-xpu-to-xegpu": [
        "--pass-pipeline=builtin.module(func.func(xpu-raise,"
        "xpu-select-strategy),convert-xpu-to-xegpu)"],
    "xpu-spirv-pipeline": ["--xpu-spirv-pipeline"],
    "xpu-xe-pipeline": ["--xpu-xe-pipeline=chip=bmg"],
    "xpu-xe-pipeline-bf16": ["--xpu-xe-pipeline=chip=pvc precision=bf16"],
}

SIZES = ["0", "1", "2", "3", "17", str(2**31), str(2**32), str(2**40)]
ELEMENT_TYPES = ["f16", "bf16", "f32", "f64", "i8", "i32", "index",
                 "f8E4M3FN"]
TYPE_RE = re.compile(r"\b(tensor|memref|vector)<((?:[0-9?]+x)*)"
                     r"([a-zA-Z_][a-zA-Z0-9_]*)")
SCALAR_TYPE_RE = re.compile(r"(?<![\w<x])(f16|bf16|f32|f64|i1|i8|i32|i64)\b")
NUMBER_RE = re.compile(r"(?<![\w%#@^.])\d+\b")
SSA_RE = re.compile(r"%[\w.#]+")

TOKEN_SWAPS = [
    ("f32", "f16"), ("f32", "i32"), ("f32", "f64"), ("f16", "bf16"),
    ("kn", "nk"), ("nk", "kn"), ("per_col", "per_row"), ("per_row", "full"),
    ("full", "scalar"), ("scalar", "per_col"), ("parallel", "reduction"),
    ("linalg.matmul", "linalg.batch_matmul"), ("xpu.yield", "linalg.yield"),
    ("linalg.yield", "xpu.yield"), ("arith.addf", "arith.addi"),
    ("(d0, d1)", "(d1, d0)"), ("[1, 0]", "[0, 1]"), ("tensor<", "memref<"),
    ("acc(f32)", "acc(f16)"), ("epilogue(", "epilogue (("),
    ("data_parallel", "stream_k"), ("data_parallel", "persistent"),
    ("arith.addf", "arith.subf"), ("math.tanh", "math.erf"),
    ("arith.maximumf", "arith.minimumf"), ("\"pvc\"", "\"bmg\""),
    ("\"pvc\"", "\"sm_90\""), ("\"pvc\"", "\"cpu\""),
]

TARGET_FIELDS = {
    "grf_count": ["0", "-1", "1", str(2**31), str(2**40)],
    "grf_bytes": ["0", "3", str(2**40)],
    "slm_bytes": ["0", "-1", "1", str(2**62)],
    "compute_units": ["0", "1", str(2**40)],
    "mma": ["[0, 0, 0]", "[0, 16, 16]", "[1, 1, 1]", "[8, 16]",
            "[4096, 4096, 4096]", "[%d, 16, 16]" % 2**40],
    "subgroup_sizes": ["[]", "[3]", "[0]", "[1]", "[%d]" % 2**40],
    "vector_bits": ["0", "7", str(2**40)],
    "peak_f32_gflops": ["0", "1", str(2**62)],
    "peak_bf16_gflops": ["0", "1", str(2**62)],
    "mem_gbps": ["0", "1", str(2**62)],
    "vendor": ['"amd"', '""', '"cpu"', '"nvidia"'],
    "bogus": ["1"],
}


def pick_match(regex, text, rng):
    matches = list(regex.finditer(text))
    return rng.choice(matches) if matches else None


# --- structured mutations ----------------------------------------------------

def mutate_shape(text, rng):
    m = pick_match(TYPE_RE, text, rng)
    if not m or not m.group(2):
        return None
    dims = m.group(2)[:-1].split("x")
    new = rng.choice(SIZES + ["?"])
    mode = rng.choice([0, 1, 1, 2, 2, 2])
    if mode == 2:  # one size everywhere it appears as a dimension
        old = rng.choice(dims)

        def fix(t):
            ds = t.group(2)[:-1].split("x") if t.group(2) else []
            ds = [new if d == old else d for d in ds]
            return t.group(1) + "<" + "".join(d + "x" for d in ds) + t.group(3)
        return TYPE_RE.sub(fix, text)
    i = rng.randrange(len(dims))
    dims[i] = new
    replacement = m.group(1) + "<" + "".join(d + "x" for d in dims) + m.group(3)
    if mode == 1:  # every occurrence of this type
        return text.replace(m.group(0), replacement)
    return text[:m.start()] + replacement + text[m.end():]


def mutate_element_type(text, rng):
    mode = rng.choice([0, 1, 1, 1, 2])
    new = rng.choice(ELEMENT_TYPES)
    if mode == 0:  # the accumulator type
        m = pick_match(re.compile(r"acc\((\w+)\)"), text, rng)
        if m:
            return text[:m.start(1)] + new + text[m.end(1):]
    types = list(TYPE_RE.finditer(text)) + list(SCALAR_TYPE_RE.finditer(text))
    if not types:
        return None
    m = rng.choice(types)
    group = 3 if m.re is TYPE_RE else 1
    old = m.group(group)
    if mode == 1:  # everywhere: consistent, so it reaches the lowerings
        return re.sub(r"(?<=[<x( ])%s\b" % re.escape(old), new, text)
    return text[:m.start(group)] + new + text[m.end(group):]


def operand_lists(text):
    """(start, end) spans of comma-separated SSA operand lists after an op."""
    spans = []
    for m in re.finditer(r"= [\w.]+(?: \"?[\w.]*\"?)? ?\(?((?:%[\w.#]+, )+%[\w.#]+)",
                         text):
        spans.append((m.start(1), m.end(1)))
    for m in re.finditer(r"ins\(((?:%[\w.#]+, )*%[\w.#]+)", text):
        spans.append((m.start(1), m.end(1)))
    return spans


def mutate_operands(text, rng):
    spans = operand_lists(text)
    if not spans:
        return None
    s, e = rng.choice(spans)
    ops = text[s:e].split(", ")
    if rng.randrange(2) and len(ops) >= 2:
        i, j = rng.sample(range(len(ops)), 2)
        ops[i], ops[j] = ops[j], ops[i]
    else:
        del ops[rng.randrange(len(ops))]
    return text[:s] + ", ".join(ops) + text[e:]


def random_target(rng):
    chip = rng.choice(['"pvc"', '"bmg"', '"sm_90"', '"cpu"', '"foo"'])
    if rng.randrange(2):  # a preset as it is, or with one field changed
        chip = chip if chip != '"foo"' else '"pvc"'
        count = rng.randrange(2)
    else:
        count = rng.randrange(1, 4)
    fields = []
    for key in rng.sample(sorted(TARGET_FIELDS), count):
        fields.append("%s = %s" % (key, rng.choice(TARGET_FIELDS[key])))
    return "#xpu.target<%s>" % ", ".join([chip] + fields)


def mutate_target(text, rng):
    m = pick_match(re.compile(r"#xpu\.target<[^>]*>"), text, rng)
    if m:
        return text[:m.start()] + random_target(rng) + text[m.end():]
    # No target: wrap the chunk in a module that has one.
    if "module" in text:
        return None
    # Attribute aliases (#map = ...) stay at the top level.
    lines = text.split("\n")
    aliases = [l for l in lines if l.startswith("#")]
    body = [l for l in lines if not l.startswith("#")]
    return ("%s\nmodule attributes {xpu.target = %s} {\n%s\n}\n" %
            ("\n".join(aliases), random_target(rng), "\n".join(body)))


def random_config(rng):
    def num():
        return rng.choice(["0", "1", "2", "3", "8", "16", "32", "256",
                           str(2**31), str(2**32), str(2**40)])
    return ("#xpu.config<tile = [%s, %s, %s], group_m = %s, subgroups = "
            "[%s, %s], stages = %s, grf_mode = %s, schedule = %s>" %
            (num(), num(), num(), num(), num(), num(), num(),
             rng.choice(["0", "128", "256", "64"]),
             rng.choice(["data_parallel", "stream_k", "persistent"])))


def mutate_config(text, rng):
    m = pick_match(re.compile(r"#xpu\.config<[^>]*>"), text, rng)
    if m:
        cfg = m.group(0)
        if rng.randrange(3) == 0:
            cfg = random_config(rng)
        else:
            nums = list(re.finditer(r"\d+", cfg))
            n = rng.choice(nums)
            cfg = (cfg[:n.start()] +
                   rng.choice(["0", "1", "3", "1024", str(2**31), str(2**32),
                               str(2**40)]) + cfg[n.end():])
        return text[:m.start()] + cfg + text[m.end():]
    # Add a config to a GEMM: before the ` : (` of its signature.
    g = pick_match(re.compile(r"xpu\.gemm"), text, rng)
    if not g:
        return None
    sig = text.find(" : (", g.end())
    if sig < 0:
        return None
    return (text[:sig] + " {config = %s}" % random_config(rng) + text[sig:])


def mutate_epilogue(text, rng):
    mode = rng.randrange(5)
    if mode == 0:  # one more block argument
        m = pick_match(re.compile(r"\^bb0\(([^)]*)\)"), text, rng)
        if m:
            extra = "%%fz: %s" % rng.choice(["f32", "f16", "i32", "f64"])
            args = m.group(1) + (", " if m.group(1) else "") + extra
            return text[:m.start(1)] + args + text[m.end(1):]
    if mode == 1:  # one block argument less
        m = pick_match(re.compile(r"\^bb0\(([^)]*)\)"), text, rng)
        if m and m.group(1):
            args = m.group(1).split(", ")
            del args[rng.randrange(len(args))]
            return text[:m.start(1)] + ", ".join(args) + text[m.end(1):]
    if mode == 2:  # a block argument's type
        m = pick_match(re.compile(r"(?<=\^bb0\()[^)]*"), text, rng)
        if m:
            args = m.group(0).split(", ")
            i = rng.randrange(len(args))
            name = args[i].split(":")[0]
            args[i] = "%s: %s" % (name, rng.choice(ELEMENT_TYPES))
            return text[:m.start()] + ", ".join(args) + text[m.end():]
    if mode == 3:  # the yielded type
        m = pick_match(re.compile(r"(?:xpu|linalg)\.yield %[\w.#]+ : (\w+)"),
                       text, rng)
        if m:
            return (text[:m.start(1)] + rng.choice(ELEMENT_TYPES) +
                    text[m.end(1):])
    # An epilogue operand dropped or repeated.
    m = pick_match(re.compile(r"epilogue\(([^)]*)\)"), text, rng)
    if not m:
        return None
    items = m.group(1).split(", %")
    items = [items[0]] + ["%" + x for x in items[1:]]
    if rng.randrange(2) and len(items) > 1:
        del items[rng.randrange(len(items))]
    else:
        items.append(rng.choice(items))
    return text[:m.start(1)] + ", ".join(items) + text[m.end(1):]


# --- the mutations of the first version ---------------------------------------

def mutate_text(text, rng):
    kind = rng.randrange(5)
    lines = text.split("\n")
    if kind == 0:  # truncate anywhere
        return text[: rng.randrange(len(text) + 1)]
    if kind == 1 and len(lines) > 1:  # drop a line
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if kind == 2 and len(lines) > 1:  # duplicate a line
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])
        return "\n".join(lines)
    if kind == 3:  # change a number (shapes, permutations, attributes)
        m = pick_match(NUMBER_RE, text, rng)
        if m:
            return text[:m.start()] + rng.choice(SIZES) + text[m.end():]
    present = [s for s in TOKEN_SWAPS if s[0] in text]
    if not present:
        return None
    a, b = rng.choice(present)
    starts = [m.start() for m in re.finditer(re.escape(a), text)]
    s = rng.choice(starts)
    return text[:s] + b + text[s + len(a):]


MUTATIONS = [
    (mutate_shape, 4), (mutate_element_type, 3), (mutate_operands, 2),
    (mutate_target, 2), (mutate_config, 3), (mutate_epilogue, 3),
    (mutate_text, 3),
]


def mutate(text, rng):
    names = []
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        funcs, weights = zip(*MUTATIONS)
        for _attempt in range(5):
            f = rng.choices(funcs, weights)[0]
            out = f(text, rng)
            if out is not None and out != text:
                text = out
                names.append(f.__name__[len("mutate_"):])
                break
    return text, names


# --- classification ---------------------------------------------------------

FRAME_RE = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (?:in )?(.*)$")
SKIP_FRAMES = ("llvm::sys::", "SignalHandler", "__restore_rt", "libc.so",
               "__pthread", "__GI_", "PrintStackTrace",
               "llvm::report_fatal_error", "llvm::llvm_unreachable",
               "__assert_fail", "__libc_", "_start", "CrashRecoveryContext")


# Crashes in upstream MLIR that are reported upstream (docs/KnownIssues.md):
# counted and listed apart, not as findings of this project.
KNOWN_UPSTREAM = [
    # linalg.transpose / reduce / broadcast: a malformed `permutation =` or
    # `dimensions =` list sets a null attribute (LinalgOps.cpp,
    # parseDenseI64ArrayAttr).
    ("upstream: linalg parser stores a null DenseI64ArrayAttr",
     re.compile(r"NamedAttrList::set[\s\S]*linalg::(Transpose|Reduce|Broadcast)"
                r"Op::parse")),
    # vector.mask verifies the mask type of a vector.contract that has no
    # indexing_maps yet (MaskOp::verify before the contract's verifier).
    ("upstream: vector.mask verifies an unverified vector.contract",
     re.compile(r"ContractionOp::getExpectedMaskType[\s\S]*MaskOp::verify")),
    # xegpu-propagate-layout walks the blocks of an llvm.func in a
    # gpu.module and sets a function type from a non-entry block's
    # arguments (an input that already holds LLVM kernels).
    ("upstream: xegpu-propagate-layout on an llvm.func with a branch",
     re.compile(r"function_interface_impl::setFunctionType[\s\S]*"
                r"walk<mlir::ForwardIterator>\(mlir::Operation\*, "
                r"llvm::function_ref<mlir::WalkResult \(mlir::Block\*\)>")),
    # linalg.generic / vector.contract: an iterator_types element that is
    # not a string is read as one, and its garbage is put in the error.
    ("upstream: a non-string iterator_types element read as a string",
     re.compile(r"Diagnostic::operator<<[\s\S]*"
                r"(linalg::GenericOp|vector::ContractionOp)::parse")),
    # nvgpu's TMA descriptor verifier takes the bit width of the
    # descriptor's element type before checking it is an integer or float
    # (an index element: getIntOrFloatBitWidth on a non-scalar type).
    ("upstream: nvgpu TMA descriptor verifier on an index element",
     re.compile(r"getIntOrFloatBitWidth[\s\S]*verifyTmaDescriptorWithMemref")),
    # A dialect resource blob whose first 4 bytes (its alignment) are 0:
    # the parser lets 0 through its power-of-two check and the buffer's
    # allocation aborts.
    ("upstream: resource blob aligned to 0 bytes",
     re.compile(r"Buffer allocation failed[\s\S]*parseSourceFile")),
]


def normalize(msg):
    msg = re.sub(r"0x[0-9a-f]+", "0x?", msg)
    msg = re.sub(r"\d+", "N", msg)
    msg = re.sub(r"%[\w.#]+", "%v", msg)
    return msg.strip()[:160]


def first_frame(stderr):
    for line in stderr.splitlines():
        m = FRAME_RE.match(line)
        if not m:
            continue
        frame = m.group(1)
        if any(s in frame for s in SKIP_FRAMES):
            continue
        frame = re.sub(r"\s*\(/[^)]*\)$", "", frame)   # (/path/lib.so+0x..)
        frame = re.sub(r" \S+:\d+(:\d+)?$", "", frame)  # file:line
        frame = re.sub(r" \(\.\w+[.\d]*\)", "", frame)   # (.isra.0)
        frame = re.sub(r"\(.*", "", frame).strip()
        if frame:
            return frame[:120]
    return "?"


def classify(proc, timed_out):
    """Returns (kind, signature) or None for an acceptable run."""
    if timed_out:
        return ("crash", "HANG")
    err = proc.stderr
    fatal = re.search(r"LLVM ERROR: (.*)", err)
    if fatal:
        return ("crash", "LLVM ERROR: " + normalize(fatal.group(1)))
    assertion = re.search(r"Assertion `(.*)' failed", err)
    if assertion:
        return ("crash", "assertion: " + normalize(assertion.group(1)))
    if "UNREACHABLE" in err:
        m = re.search(r"UNREACHABLE executed at ([^\n]*)", err)
        return ("crash", "UNREACHABLE " + normalize(m.group(1) if m else ""))
    for name, pattern in KNOWN_UPSTREAM:
        if pattern.search(err):
            return ("known", name)
    if (proc.returncode < 0 or proc.returncode > 1 or "Stack dump" in err or
            "PLEASE submit a bug report" in err or "AddressSanitizer" in err or
            "runtime error:" in err):
        sig = ("signal %d" % -proc.returncode if proc.returncode < 0
               else "exit %d" % proc.returncode)
        m = re.search(r"runtime error: (.*)", err)
        if m:
            return ("crash", "UBSan: " + normalize(m.group(1)))
        m = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", err)
        if m:
            sig = "ASan " + m.group(1)
        return ("crash", "%s in %s" % (sig, first_frame(err)))
    if proc.returncode == 0:
        return None
    first = next((line for line in err.splitlines() if "error:" in line), None)
    if first is None:
        return ("unlocated", "exit 1 without an error message")
    if first.startswith("<unknown>") or first.startswith("loc(") or \
            first.startswith("error:"):
        msg = first.split("error:", 1)[1]
        return ("unlocated", "unlocated error:" + normalize(msg))
    return None


def run_one(xpu_opt, path, args, timeout):
    try:
        proc = subprocess.run([xpu_opt, path, "-o", os.devnull] + args,
                              capture_output=True, text=True, timeout=timeout,
                              errors="replace")
        return proc, False
    except subprocess.TimeoutExpired:
        return None, True


def load_corpus(paths):
    corpus = []
    for p in paths:
        files = []
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, n) for n in sorted(names)]
        else:
            files.append(p)
        for f in sorted(files):
            with open(f, errors="replace") as fh:
                text = fh.read()
            # Each split chunk is an independent input; RUN/CHECK comments
            # only cost parse time.
            for chunk in text.split("// -----"):
                chunk = "\n".join(l for l in chunk.split("\n")
                                  if not l.lstrip().startswith("//"))
                if chunk.strip():
                    corpus.append(chunk)
    return corpus


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--xpu-opt", required=True)
    ap.add_argument("--mutants", type=int, default=300)
    ap.add_argument("--pipelines-per-mutant", type=int, default=3,
                    help="random pipelines per mutant; 0 runs all of them")
    ap.add_argument("--pipelines", default=",".join(PIPELINES),
                    help="comma-separated subset of: " + ", ".join(PIPELINES))
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--timeout", type=int, default=60)
    ap.add_argument("--out", default=tempfile.gettempdir(),
                    help="where one input per signature is written")
    ap.add_argument("--all-seeds", action="store_true",
                    help="also mutate seed chunks that do not verify")
    ap.add_argument("--verbose", action="store_true",
                    help="print every failing run, not only the summary")
    ap.add_argument("files", nargs="+", help="seed files or directories")
    args = ap.parse_args()

    pipelines = [p for p in args.pipelines.split(",") if p]
    for p in pipelines:
        if p not in PIPELINES:
            ap.error("unknown pipeline '%s'; known: %s" %
                     (p, ", ".join(PIPELINES)))
    corpus = load_corpus(args.files)
    if not args.all_seeds:
        # Mutations start from inputs that verify, so that more mutants get
        # past the parser; invalid seeds (invalid.mlir) only repeat it.
        with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
            def verifies(text):
                with tempfile.NamedTemporaryFile("w", suffix=".mlir") as t:
                    t.write(text)
                    t.flush()
                    proc, timed_out = run_one(args.xpu_opt, t.name, [],
                                              args.timeout)
                    return not timed_out and proc.returncode == 0
            keep = list(pool.map(verifies, corpus))
        total = len(corpus)
        corpus = [c for c, k in zip(corpus, keep) if k]
        print("%d of %d seed chunks verify" % (len(corpus), total))
    if not corpus:
        ap.error("empty seed corpus")
    rng = random.Random(args.seed)
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="xpu-fuzz-")

    # Mutants and their pipelines are drawn up front, so that the campaign
    # does not depend on the number of jobs.
    jobs = []
    for i in range(args.mutants):
        text, names = mutate(rng.choice(corpus), rng)
        path = os.path.join(work, "mutant-%d.mlir" % i)
        with open(path, "w") as fh:
            fh.write(text)
        chosen = (pipelines if args.pipelines_per_mutant <= 0 else
                  rng.sample(pipelines,
                             min(args.pipelines_per_mutant, len(pipelines))))
        for p in chosen:
            jobs.append((i, path, p, names))

    found = collections.OrderedDict()
    counts = collections.Counter()
    by_mutation = collections.Counter()
    rejected = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = [(job, pool.submit(run_one, args.xpu_opt, job[1],
                                     PIPELINES[job[2]], args.timeout))
                   for job in jobs]
        for (i, path, p, names), fut in futures:
            proc, timed_out = fut.result()
            verdict = classify(proc, timed_out)
            if verdict is None:
                if proc.returncode != 0:
                    rejected += 1
                continue
            kind, sig = verdict
            if kind == "unlocated" and PIPELINES[p]:
                # An unlocated error that parsing alone gives comes from an
                # upstream parser (docs/KnownIssues.md: linalg named-op
                # bodies), not from a pass.
                parsed, _ = run_one(args.xpu_opt, path, [], args.timeout)
                if parsed is not None and classify(parsed, False) == verdict:
                    kind, sig = ("known", "upstream: unlocated error while "
                                 "parsing:" + sig.split(":", 1)[1])
            elif kind == "unlocated":
                kind, sig = ("known", "upstream: unlocated error while "
                             "parsing:" + sig.split(":", 1)[1])
            key = (kind, sig)
            counts[key] += 1
            for n in set(names):
                by_mutation[n] += 1
            if key not in found:
                keep = os.path.join(args.out, "xpu-opt-%s-%d.mlir" %
                                    (kind, len(found)))
                with open(path) as src, open(keep, "w") as dst:
                    dst.write(src.read())
                found[key] = (keep, p)
            if args.verbose:
                print("%s: mutant %d (%s) through %s: %s" %
                      (kind.upper(), i, "+".join(names), p, sig))

    crashes = sum(c for (k, _), c in counts.items() if k == "crash")
    unlocated = sum(c for (k, _), c in counts.items() if k == "unlocated")
    known = sum(c for (k, _), c in counts.items() if k == "known")
    for (kind, sig), (keep, p) in found.items():
        print("%4dx %s: %s" % (counts[(kind, sig)], kind, sig))
        print("      xpu-opt %s %s" % (keep, " ".join(
            "'%s'" % a if "(" in a else a for a in PIPELINES[p])))
    if by_mutation:
        print("failing runs by mutation: " + ", ".join(
            "%s %d" % kv for kv in sorted(by_mutation.items())))
    print("%d mutants, %d runs: %d rejected with a diagnostic, %d crashes, "
          "%d unlocated errors, %d signatures; %d known upstream crashes" %
          (args.mutants, len(jobs), rejected, crashes, unlocated,
           sum(1 for k, _ in found if k != "known"), known))
    for f in os.listdir(work):
        os.unlink(os.path.join(work, f))
    os.rmdir(work)
    return 1 if crashes or unlocated else 0


if __name__ == "__main__":
    sys.exit(main())
