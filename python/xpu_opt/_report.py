"""What the torch.compile backend and xpu_opt.optimize did: which parts of
a model compiled, which run as PyTorch runs them, and why.

Each decision is an Entry, kept for the process (xpu_opt.report() returns
them, xpu_opt.report(reset=True) also forgets them) and, with
XPU_OPT_LOG=1 in the environment, printed to stderr as it is made:

    xpu_opt: compiled fused_0 [linear, gelu] f32 (16, 64) -> cpu in 2.31 s
    xpu_opt: fell back fused_3 [matmul, softmax]: CompileError: xpu_opt: ...
    xpu_opt: runs as PyTorch: scaled_dot_product_attention x2 (not a GEMM, ...)
"""

import dataclasses
import os
import sys
import threading

COMPILED = "compiled"
FELL_BACK = "fell back"
EAGER = "runs as PyTorch"

_lock = threading.Lock()
_entries = []


@dataclasses.dataclass
class Entry:
    """One decision: `status` is COMPILED, FELL_BACK (a part chosen for
    compilation that did not compile, or cannot run compiled for this
    call) or EAGER (operations never chosen); `name` is the part (a
    partition or submodule), `ops` the operations it holds, `reason` why
    it fell back or runs eagerly, `detail` the shapes and target or the
    compile time."""
    status: str
    name: str
    ops: tuple
    reason: str = ""
    detail: str = ""

    def line(self):
        ops = f" [{', '.join(self.ops)}]" if self.ops else ""
        text = f"{self.status} {self.name}{ops}"
        if self.detail:
            text += f" {self.detail}"
        if self.reason:
            text += f": {self.reason}"
        return text


class Report:
    """The entries, in the order they were made; str() is one line each.
    `compiled`, `fell_back` and `eager` select by status."""

    def __init__(self, entries):
        self.entries = list(entries)

    def _with(self, status):
        return [e for e in self.entries if e.status == status]

    @property
    def compiled(self):
        return self._with(COMPILED)

    @property
    def fell_back(self):
        return self._with(FELL_BACK)

    @property
    def eager(self):
        return self._with(EAGER)

    def __len__(self):
        return len(self.entries)

    def __str__(self):
        head = (f"xpu_opt report: {len(self.compiled)} compiled, "
                f"{len(self.fell_back)} fell back, {len(self.eager)} "
                "groups of operations run as PyTorch")
        return "\n".join([head] + ["  " + e.line() for e in self.entries])

    __repr__ = __str__


def logging_enabled():
    return os.environ.get("XPU_OPT_LOG", "") not in ("", "0")


def record(status, name, ops=(), reason="", detail=""):
    """Keeps an entry (and prints it with XPU_OPT_LOG=1)."""
    reason = reason.splitlines()[0] if reason else ""
    entry = Entry(status, name, tuple(ops), reason, detail)
    with _lock:
        _entries.append(entry)
    if logging_enabled():
        print(f"xpu_opt: {entry.line()}", file=sys.stderr, flush=True)
    return entry


def report(reset=False):
    """A Report of every decision made so far in this process: what the
    torch.compile backend and xpu_opt.optimize compiled, what fell back to
    PyTorch and why. print(xpu_opt.report()) shows it; reset=True also
    forgets the entries (the next report starts empty)."""
    with _lock:
        result = Report(_entries)
        if reset:
            _entries.clear()
    return result
