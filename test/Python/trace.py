"""Kernel traces (issue 27, part 4): xpu_opt.profile(path) and
XPU_OPT_TRACE=FILE write Chrome trace JSON that Perfetto opens.

The schema checked: an object with a `traceEvents` list; every event has
`name` (string), `ph`, `pid` and `tid` (integers); complete events ("X")
have numeric `ts` and `dur` >= 0 (microseconds) and lie, on one thread,
inside or after one another (never partly overlapping: Perfetto nests
them); metadata events ("M") name the process and the device track.

Contents checked: a compiled module called three times gives three `host`
events, one `pack` event (weights packed once) and three per-call `call`
events (forward.packed), each inside its host call; a changed weight gives
a second `pack`; on a device target each call's kernels follow as
`kernel` events. A torch.compile model gives one `host` event per
partition call and `eager` events for none (everything compiles) or
more. XPU_OPT_TRACE in a child process writes the file at exit.

    trace.py --target=cpu|opencl --dir=SCRATCH
"""

import json
import pathlib
import sys

import torch
from torch import nn

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import xpu_testlib as t  # noqa: E402

import xpu_opt  # noqa: E402

TARGET, SCRATCH = t.target_and_scratch()


def validate(trace):
    """Raises AssertionError unless `trace` has the Chrome trace schema
    above; returns its complete events."""
    assert isinstance(trace, dict) and isinstance(
        trace.get("traceEvents"), list), "no traceEvents list"
    complete = []
    for e in trace["traceEvents"]:
        assert isinstance(e.get("name"), str), e
        assert e.get("ph") in ("X", "M"), e
        assert isinstance(e.get("pid"), int) and isinstance(
            e.get("tid"), int), e
        if e["ph"] == "X":
            assert isinstance(e.get("ts"), (int, float)), e
            assert isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0, e
            complete.append(e)
        else:
            assert e["name"] in ("process_name", "thread_name") and \
                isinstance(e["args"]["name"], str), e
    by_thread = {}
    for e in complete:
        by_thread.setdefault(e["tid"], []).append(e)
    for tid, events in by_thread.items():
        if tid == xpu_opt._trace.DEVICE_TID:
            continue
        events.sort(key=lambda e: (e["ts"], -e["dur"]))
        open_ends = []
        for e in events:
            while open_ends and open_ends[-1] <= e["ts"]:
                open_ends.pop()
            end = e["ts"] + e["dur"]
            assert not open_ends or end <= open_ends[-1] + 1e-3, \
                f"{e['name']} overlaps its enclosing event partly"
            open_ends.append(end)
    return complete


def inside(inner, outer):
    return (outer["ts"] <= inner["ts"] + 1e-3 and inner["ts"] + inner["dur"]
            <= outer["ts"] + outer["dur"] + 1e-3)


def model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 32), nn.BatchNorm1d(32), nn.GELU(),
                         nn.Linear(32, 16)).eval()


@t.case(f"xpu_opt.profile: host, pack, call (and kernel) events on {TARGET}")
def compiled_module():
    m = model()
    x = torch.randn(8, 64)
    fast = xpu_opt.compile(m, x, target=TARGET)
    path = SCRATCH / "module.json"
    with xpu_opt.profile(str(path)) as prof:
        for _ in range(3):
            fast(x)
        with torch.no_grad():
            m[0].weight.mul_(0.5)
        fast(x)
    trace = json.loads(path.read_text())
    assert trace == json.loads(json.dumps(prof.trace())), "file != events"
    events = validate(trace)
    cats = [e["cat"] for e in events]
    assert cats.count("host") == 4, cats
    assert cats.count("pack") == 2, cats   # once, then after the change
    assert cats.count("call") == 4, cats
    hosts = [e for e in events if e["cat"] == "host"]
    for e in events:
        if e["cat"] in ("pack", "call"):
            assert any(inside(e, h) for h in hosts), e
    calls = [e for e in events if e["cat"] == "call"]
    assert all(e["name"].startswith("forward") for e in calls), calls
    kernels = [e for e in events if e["cat"] == "kernel"]
    if TARGET != "cpu":
        assert kernels, "no kernel events on a device target"
        assert all(e["args"]["launches"] >= 1 for e in kernels), kernels
    else:
        assert not kernels, kernels
    # Nothing is recorded once the block ended.
    before = len(prof.events)
    fast(x)
    assert len(prof.events) == before
    return (f"{len(events)} events: "
            f"{sorted(set((e['cat'], e['name']) for e in events))}")


@t.case(f"a torch.compile model traced on {TARGET}")
def dynamo_model():
    m = model()
    x = torch.randn(8, 64)
    torch._dynamo.reset()
    fast = torch.compile(m, backend="xpu_opt", options={"target": TARGET})
    with torch.no_grad():
        fast(x)  # compiles outside the profile
        with xpu_opt.profile() as prof:
            fast(x)
            fast(x)
    events = validate(prof.trace())
    parts = [e for e in events if e["cat"] == "host"
             and e["name"].startswith("graph")]
    assert len(parts) == 4, [e["name"] for e in events]  # 2 partitions x 2
    assert not [e for e in events if e["cat"] == "compile"]
    return f"{len(parts)} partition calls, {len(events)} events"


CHILD = r'''
import torch, xpu_opt
m = torch.nn.Linear(16, 8).eval()
x = torch.randn(4, 16)
fast = xpu_opt.compile(m, x, target={target!r})
fast(x); fast(x)
'''


@t.case(f"XPU_OPT_TRACE writes the trace at exit on {TARGET}")
def environment():
    path = SCRATCH / "env.json"
    status, out, err = t.run_python(CHILD.format(target=TARGET), {
        "XPU_OPT_TRACE": str(path)})
    assert status == 0, err[-2000:]
    events = validate(json.loads(path.read_text()))
    cats = [e["cat"] for e in events]
    assert cats.count("host") == 2 and cats.count("call") == 2, cats
    return f"{len(events)} events"


t.finish()
