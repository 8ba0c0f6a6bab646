"""Recording a timeline: PYEMU_TRACE=file.json, or start() / stop().

While recording, the core notes every command as it completes (its queue,
kind, kernel name and grid or copy bytes, queued/submit/start/end times)
and which worker ran which of its items (csrc/trace.c).  stop() writes them
in the Chrome trace-event format, which Perfetto (ui.perfetto.dev) and
chrome://tracing open: process "device 0" has one lane per stream or queue,
process "workers" one lane per worker thread (= multiprocessor).
`python -m pyemu timeline file.json -o timeline.png` draws it.

Kinds (the events' "cat"): kernel, copy (its direction and bytes in the
name), fill, host function, event (a cudaEventRecord, named "event N" after
the event's number: cudaEvent_t.number), marker (OpenCL's markers and
barriers, and the markers CUDA's synchronising calls put), user event.

Queues get their lane names from the facades (name_queue): "legacy default
stream", "stream 1 (non-blocking)", ...; an unnamed queue is "queue 0x...".
"""
from __future__ import annotations

import atexit
import json
import os
import threading

from . import core as _core
from .core import ffi, lib

KINDS = {1: "kernel", 2: "copy", 3: "fill", 4: "marker", 5: "user event", 64: "host function"}
MARKER = 4


def kind(e) -> str:
    """The kind of a recorded command: a marker that records an event is an event."""
    if e["type"] == MARKER and e.get("tag"):
        return "event"
    return KINDS.get(e["type"], "command")

_lock = threading.Lock()
_names = {}             # queue address -> lane name
_events, _spans = [], []
_path = [None]
_t0 = [None]


def name_queue(queue, label: str) -> None:
    """Give the lane of `queue` (a pyemu_queue *) a name."""
    _names[int(ffi.cast("uintptr_t", queue))] = label


def recording() -> bool:
    return _t0[0] is not None


def destination() -> str | None:
    """Where the timeline is written: the path start() was given, or
    PYEMU_TRACE; None when nobody asked for one (no profiler attached)."""
    return _path[0] or os.environ.get("PYEMU_TRACE") or None


def start(path: str | None = None) -> None:
    """Start recording; `path`: where stop() (or the end of the program) writes it."""
    _core.ensure_started()
    with _lock:
        _path[0] = path or _path[0]
        if _t0[0] is None:
            _t0[0] = lib.pyemu_now_ns()
    _core.check(lib.pyemu_trace_enable(1))


def _drain() -> None:
    n = lib.pyemu_trace_take_events(ffi.NULL, 0)
    if n:
        buf = ffi.new("pyemu_trace_event[]", n)
        got = lib.pyemu_trace_take_events(buf, n)
        for i in range(got):
            e = buf[i]
            _events.append({
                "queue": e.queue, "seq": e.seq, "queued": e.t_queued, "submit": e.t_submit,
                "start": e.t_start, "end": e.t_end, "type": e.type, "status": e.status,
                "items": e.items, "bytes": e.bytes, "src": e.src, "dst": e.dst, "tag": e.tag,
                "grid": list(e.grid), "block": list(e.block),
                "dir": f"{_side(e.src)}2{_side(e.dst)}" if e.type == 2 else "",
                "name": ffi.string(e.name).decode("utf-8", "replace")})
    n = lib.pyemu_trace_take_spans(ffi.NULL, 0)
    if n:
        buf = ffi.new("pyemu_trace_span[]", n)
        got = lib.pyemu_trace_take_spans(buf, n)
        for i in range(got):
            s = buf[i]
            _spans.append({"seq": s.seq, "worker": s.worker, "begin": s.t_begin,
                           "end": s.t_end, "items": s.items})


def drain() -> None:
    """Take what the core recorded so far (cudaFreeHost calls it, so that a
    copy's direction is told while its page-locked memory is still known)."""
    if recording():
        with _lock:
            _drain()


def stop(path: str | None = None) -> dict:
    """Stop recording; returns the trace (Chrome trace-event format, a dict)
    and writes it to `path` (or the path start() was given) if any."""
    lib.pyemu_trace_enable(0)
    with _lock:
        _drain()
        doc = chrome_trace(_events, _spans, _t0[0] or 0)
        _events.clear()
        _spans.clear()
        out = path or _path[0]
        _t0[0] = None
    if out:
        with open(out, "w") as f:
            json.dump(doc, f)
    return doc


def _label(e) -> str:
    k = kind(e)
    if k == "event":
        return f"event {e['tag']}"
    if e["type"] == 1:
        g, b = e["grid"], e["block"]
        return f"{e['name']}<<<({g[0]},{g[1]},{g[2]}), ({b[0]},{b[1]},{b[2]})>>>"
    if e["type"] == 2:
        return f"copy {e['dir']} {e['bytes']} B"
    if e["type"] == 3:
        return f"fill {e['bytes']} B"
    return k


def _side(addr) -> str:
    """'D' for device memory, 'H' for host memory (page-locked included)."""
    import sys
    hm = sys.modules.get("pyemu.cuda.host_memory")
    if hm is not None and hm.is_page_locked(addr, 1):
        return "H"
    lo, hi = _core.region()
    return "D" if lo <= addr < hi else "H"


def chrome_trace(events, spans, t0) -> dict:
    """The Chrome trace-event document of recorded events and spans."""
    out = []
    lanes = {}
    for e in sorted(events, key=lambda e: e["seq"]):
        if e["queue"] not in lanes:
            lanes[e["queue"]] = len(lanes)
    for q, tid in lanes.items():
        name = _names.get(q, "user events" if q == 0 else f"queue 0x{q:x}")
        out.append({"ph": "M", "name": "thread_name", "pid": 0, "tid": tid,
                    "args": {"name": name}})
        out.append({"ph": "M", "name": "thread_sort_index", "pid": 0, "tid": tid,
                    "args": {"sort_index": tid}})
    out.append({"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "device 0"}})
    out.append({"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "workers"}})
    by_seq = {}
    for e in events:
        by_seq[e["seq"]] = e
        if e["type"] == MARKER and e["start"] == e["end"]:
            ph = {"ph": "i", "s": "t"}
        else:
            ph = {"ph": "X", "dur": max(e["end"] - e["start"], 0) / 1e3}
        args = {"seq": e["seq"], "queued_us": (e["queued"] - t0) / 1e3,
                "submit_us": (e["submit"] - t0) / 1e3, "status": e["status"],
                "items": e["items"], "bytes": e["bytes"]}
        if e.get("tag"):
            args["event"] = e["tag"]
        out.append({"name": _label(e), "cat": kind(e), "pid": 0,
                    "tid": lanes[e["queue"]], "ts": (e["start"] - t0) / 1e3, **ph,
                    "args": args})
    workers = set()
    for s in spans:
        e = by_seq.get(s["seq"])
        workers.add(s["worker"])
        out.append({"name": _label(e) if e else f"command {s['seq']}",
                    "cat": kind(e) if e else "command", "ph": "X",
                    "pid": 1, "tid": s["worker"], "ts": (s["begin"] - t0) / 1e3,
                    "dur": max(s["end"] - s["begin"], 0) / 1e3,
                    "args": {"seq": s["seq"], "items": s["items"],
                             "stream": _names.get(e["queue"], "") if e else ""}})
    nworkers = lib.pyemu_num_workers()
    for w in sorted(workers):
        name = "copy engine" if w >= nworkers else f"worker {w}"
        out.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": w,
                    "args": {"name": name}})
    return {"traceEvents": out, "displayTimeUnit": "ms",
            "otherData": {"producer": "pyemu", "clock": "CLOCK_MONOTONIC"}}


def start_from_env() -> None:
    """PYEMU_TRACE=file.json: record from now on, write the file at exit."""
    path = os.environ.get("PYEMU_TRACE")
    if path and not recording():
        start(path)
        atexit.register(_at_exit)


def _at_exit():
    if recording():
        try:
            from ..runtime import sync
            sync.wait_device()
        except Exception:
            pass
        stop()


__all__ = ["start", "stop", "drain", "recording", "destination", "name_queue", "chrome_trace",
           "start_from_env", "kind", "KINDS"]
