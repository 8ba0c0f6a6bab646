"""CUDA events: a recorded event is a marker command of the engine.

cudaEventRecord puts a marker at the end of the stream (on the legacy
default stream it also waits for every blocking stream, csrc/engine.c); the
event completes when the marker does, and its time is the marker's end
timestamp (CLOCK_MONOTONIC, nanoseconds), so cudaEventElapsedTime is the
difference of two markers' ends.  Each event has a number (1, 2, ... in
creation order, shown by its repr); the marker carries it, so that the
timeline (PYEMU_TRACE) shows the record as "event N", of kind event.
"""
from __future__ import annotations

import itertools
import threading

from ..runtime import core as _core
from ..runtime import sync as _sync
from ..runtime import views as _views
from ..runtime.core import CoreError, ffi, lib
from . import _errors as E
from . import devices as _devices
from . import runtime as _rt
from ._errors import cudaSuccess
from .stream import cudaStream_t, queue_of

_out = threading.local()        # each thread's pyemu_cmd ** for the records
_numbers = itertools.count(1)   # the events' numbers, for the timeline (thread-safe in CPython)


def _new_out():
    _out.p = ffi.new("pyemu_cmd **")
    return _out.p

cudaEventDefault = 0x00
cudaEventBlockingSync = 0x01
cudaEventDisableTiming = 0x02
cudaEventInterprocess = 0x04
cudaEventRecordDefault = 0x00
cudaEventRecordExternal = 0x01

_ALL_FLAGS = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess


class cudaEvent_t:
    """An event, as cudaEventCreate returns it: the flags and the marker of
    its last record (None before the first)."""

    __slots__ = ("flags", "_cmd", "_alive", "_gen", "device", "number", "__weakref__")

    def __init__(self, flags):
        self.flags = flags
        self.number = next(_numbers)        # "event N" on the timeline
        self._cmd = None
        self._alive = True
        self._gen = _views.generation()     # a cudaDeviceReset destroys it
        self.device = _devices.current()    # the device current when it was made
        _devices.track(self)                # ... whose reset destroys it

    def __del__(self):
        cmd, self._cmd = getattr(self, "_cmd", None), None
        if cmd is not None and lib is not None:
            lib.pyemu_cmd_release(cmd)

    def __repr__(self):
        return (f"<cudaEvent_t event {self.number} flags={self.flags}"
                f"{'' if self._alive else ' destroyed'}>")


def _event(event, call) -> cudaEvent_t:
    if not isinstance(event, cudaEvent_t):
        E.fail(E.cudaErrorInvalidResourceHandle, f"{event!r} is not an event", call)
    if not event._alive:
        E.fail(E.cudaErrorInvalidResourceHandle, "the event was destroyed", call)
    if event._gen != _views.generation():
        E.fail(E.cudaErrorInvalidResourceHandle, "the event was destroyed by cudaDeviceReset",
               call)
    return event


def command_of(event, call):
    """The marker of the event's last record (pyemu_cmd *), or None."""
    return _event(event, call)._cmd


def cudaEventCreateWithFlags(flags) -> cudaEvent_t:
    """cudaEventCreateWithFlags(flags): cudaEventDefault, cudaEventBlockingSync,
    cudaEventDisableTiming, cudaEventInterprocess (the last needs
    cudaEventDisableTiming, as in CUDA, and then gives cudaErrorNotSupported:
    there is no other process to share it with)."""
    call = "cudaEventCreateWithFlags"
    if type(flags) is bool or not isinstance(flags, int) or int(flags) & ~_ALL_FLAGS:
        E.fail(E.cudaErrorInvalidValue, f"unknown event flags {flags!r}", call)
    flags = int(flags)
    if flags & cudaEventInterprocess:
        if not flags & cudaEventDisableTiming:
            E.fail(E.cudaErrorInvalidValue, "cudaEventInterprocess needs cudaEventDisableTiming",
                   call)
        E.fail(E.cudaErrorNotSupported, "interprocess events are not supported by pyemu", call)
    E.check_sticky(call)
    return cudaEvent_t(flags)


def cudaEventCreate() -> cudaEvent_t:
    """cudaEventCreate: an event with timing (cudaEventDefault)."""
    return cudaEventCreateWithFlags(cudaEventDefault)


def cudaEventRecordWithFlags(event, stream=0, flags=cudaEventRecordDefault) -> cudaError_t:  # noqa: F821
    """cudaEventRecordWithFlags(event, stream=0, flags=0): as cudaEventRecord;
    flags cudaEventRecordDefault or cudaEventRecordExternal (the same here)."""
    call = "cudaEventRecordWithFlags"
    if type(flags) is bool or not isinstance(flags, int) or \
            int(flags) not in (cudaEventRecordDefault, cudaEventRecordExternal):
        E.fail(E.cudaErrorInvalidValue, f"unknown record flags {flags!r}", call)
    return _record(event, stream, call)


def cudaEventRecord(event, stream=0) -> cudaError_t:  # noqa: F821
    """cudaEventRecord(event, stream=0): the event completes when all the work
    queued on `stream` before it has; recording again replaces the previous
    record (a wait on the event then waits for the new one).  Returns at once."""
    return _record(event, stream, "cudaEventRecord")


def _record(event, stream, call):
    # the fast path first: this is what a timing loop measures (< 5 us)
    ev = event if type(event) is cudaEvent_t and event._alive and \
        event._gen == _views.generation() else _event(event, call)
    q = stream._queue if type(stream) is cudaStream_t else None
    if q is None:
        q = queue_of(stream, call)
    if _devices.MULTI:  # event and stream of one device (CUDA C Programming Guide, multi-device)
        sd = getattr(stream, "device", None)
        if ev.device != (_devices.current() if sd is None else sd):
            E.fail(E.cudaErrorInvalidResourceHandle, f"the event belongs to device {ev.device}, "
                   "the stream to another", call)
    out = _out.p if hasattr(_out, "p") else _new_out()
    # a device poisoned by a kernel fault refuses the marker with its sticky code
    status = lib.pyemu_enqueue_record(q, ev.number, out)
    if status:
        try:
            _core.check(status)
        except CoreError as exc:
            E.raise_core(exc, call)
    old, ev._cmd = ev._cmd, out[0]
    if old is not None:
        lib.pyemu_cmd_release(old)
    return cudaSuccess


def cudaEventQuery(event):
    """cudaEventQuery(event): cudaSuccess once the last record has completed
    (or if it was never recorded), cudaErrorNotReady (returned, not raised,
    and not the thread's last error) before; raises only for real errors."""
    call = "cudaEventQuery"
    cmd = command_of(event, call)
    E.check_sticky(call)
    if cmd is None or lib.pyemu_cmd_status(cmd) <= 0:
        return cudaSuccess
    return E.cudaErrorNotReady


def cudaEventSynchronize(event) -> cudaError_t:  # noqa: F821
    """cudaEventSynchronize(event): wait until the last record has completed
    (at once if never recorded); a kernel fault (sticky) is reported here."""
    call = "cudaEventSynchronize"
    cmd = command_of(event, call)
    _rt.no_wait_in_host_function(call)
    E.check_sticky(call)
    if cmd is not None:
        lib.pyemu_cmd_retain(cmd)       # a record on another thread may replace it meanwhile
        try:
            _sync.wait_command(cmd)
        finally:
            lib.pyemu_cmd_release(cmd)
    _rt._after_wait(call)
    return cudaSuccess


def _end_ns(ev, call):
    if ev.flags & cudaEventDisableTiming:
        E.fail(E.cudaErrorInvalidResourceHandle, "the event was created with "
               "cudaEventDisableTiming", call)
    if ev._cmd is None:
        E.fail(E.cudaErrorInvalidResourceHandle, "the event was never recorded", call)
    return ev._cmd


def cudaEventElapsedTime(start, end) -> float:
    """cudaEventElapsedTime(start, end): milliseconds between two completed
    records, as a float.  cudaErrorInvalidResourceHandle for an event with
    timing disabled or never recorded, cudaErrorNotReady while either has
    not completed (as CUDA)."""
    call = "cudaEventElapsedTime"
    s, e = _event(start, call), _event(end, call)
    if s.device != e.device:
        E.fail(E.cudaErrorInvalidResourceHandle, f"the events belong to devices {s.device} and "
               f"{e.device}", call)
    cs, ce = _end_ns(s, call), _end_ns(e, call)
    E.check_sticky(call)
    times = []
    for cmd in (cs, ce):
        q, sb, st, en = (ffi.new("unsigned long long *") for _ in range(4))
        if lib.pyemu_cmd_times(cmd, q, sb, st, en) != 0:
            E.fail(E.cudaErrorNotReady, "an event has not completed yet", call)
        times.append(en[0])
    return (times[1] - times[0]) / 1e6


def cudaEventDestroy(event) -> cudaError_t:  # noqa: F821
    """cudaEventDestroy(event): returns at once, even if the recorded work
    has not completed; the event is invalid afterwards."""
    ev = _event(event, "cudaEventDestroy")
    ev._alive = False
    cmd, ev._cmd = ev._cmd, None
    if cmd is not None:
        lib.pyemu_cmd_release(cmd)
    return cudaSuccess


__all__ = [
    "cudaEvent_t", "cudaEventDefault", "cudaEventBlockingSync", "cudaEventDisableTiming",
    "cudaEventInterprocess", "cudaEventRecordDefault", "cudaEventRecordExternal",
    "cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventRecord", "cudaEventRecordWithFlags",
    "cudaEventQuery", "cudaEventSynchronize", "cudaEventElapsedTime", "cudaEventDestroy",
]
