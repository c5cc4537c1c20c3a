"""Traces of what compiled code does, in the Chrome trace event format that
Perfetto (ui.perfetto.dev) and chrome://tracing open.

    with xpu_opt.profile("trace.json") as prof:   # written at the end
        y = compiled(x)
    prof.events                                   # the events, as dicts

or XPU_OPT_TRACE=trace.json in the environment: the whole process is
traced and the file written at exit.

Events are complete events ("ph": "X", times in microseconds since the
process's monotonic clock origin) on the calling thread: `host` for a call
of a compiled module or of a torch.compile partition, `eager` for a part
that ran as PyTorch, `pack` for the weight-packing entry point
(forward.pack, once per weight set) and `call` for the per-call entry
point (forward or forward.packed), `compile` for a compilation. On a
device target each call's kernels follow as `kernel` events on a thread
named after the device, with the device time the runtime measured (one
event per kernel and call, its launches in `args`).
"""

import atexit
import json
import os
import threading
import time

_recorders = []
_lock = threading.Lock()
_PID = os.getpid()
# The pseudo-thread of device kernels (Perfetto shows one track per tid).
DEVICE_TID = 1 << 30


def active():
    """True while some profile records (a cheap test for the hot path)."""
    return bool(_recorders)


def _now_us():
    return time.perf_counter_ns() / 1000.0


def emit(name, cat, start_us, dur_us, args=None, tid=None):
    """Adds a complete event to every active profile."""
    event = {"name": name, "cat": cat, "ph": "X", "ts": start_us,
             "dur": max(dur_us, 0.0), "pid": _PID,
             "tid": threading.get_native_id() if tid is None else tid}
    if args:
        event["args"] = args
    with _lock:
        for r in _recorders:
            r.events.append(event)


class span:
    """`with span(name, cat, args):` records the block as one event when a
    profile is active, and costs one list test when none is."""

    __slots__ = ("name", "cat", "args", "start")

    def __init__(self, name, cat, args=None):
        self.name = name
        self.cat = cat
        self.args = args
        self.start = None

    def __enter__(self):
        if _recorders:
            self.start = _now_us()
        return self

    def __exit__(self, *exc):
        if self.start is not None:
            emit(self.name, self.cat, self.start, _now_us() - self.start,
                 self.args)
        return False


def kernels(profile, start_us, device):
    """Adds the kernels of one call (the runtime's profile: (name,
    launches, nanoseconds)) as events on the device's track, one after the
    other from `start_us`."""
    t = start_us
    for name, launches, ns in profile:
        dur = ns / 1000.0 if ns >= 0 else 0.0
        emit(name, "kernel", t, dur, {"launches": launches,
                                      "device": device,
                                      "device_ns": ns}, tid=DEVICE_TID)
        t += dur


class Profile:
    """Records the events of the calls made while it is active (a context
    manager); save(path) writes them as a Chrome trace JSON file."""

    def __init__(self, path=None):
        self.path = path
        self.events = []

    def __enter__(self):
        with _lock:
            _recorders.append(self)
        return self

    def __exit__(self, *exc):
        with _lock:
            if self in _recorders:
                _recorders.remove(self)
        if self.path:
            self.save(self.path)
        return False

    def trace(self):
        """The trace as a JSON-ready dict: {"traceEvents": [...]}."""
        meta = [{"name": "process_name", "ph": "M", "pid": _PID, "tid": 0,
                 "args": {"name": "xpu_opt"}},
                {"name": "thread_name", "ph": "M", "pid": _PID,
                 "tid": DEVICE_TID, "args": {"name": "device kernels"}}]
        with _lock:
            events = list(self.events)
        return {"traceEvents": meta + events, "displayTimeUnit": "ms"}

    def save(self, path):
        with open(path, "w") as f:
            json.dump(self.trace(), f)


def profile(path=None):
    """A Profile (use it in a `with` statement): every call of compiled
    code inside the block is recorded; with `path` the trace is written
    there when the block ends."""
    return Profile(path)


def _from_environment():
    path = os.environ.get("XPU_OPT_TRACE")
    if path:
        whole = Profile(path)
        whole.__enter__()
        atexit.register(whole.__exit__, None, None, None)


_from_environment()
