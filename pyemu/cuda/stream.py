"""CUDA streams: views of command-engine queues (csrc/engine.c).

A stream is an in-order queue of the engine.  A blocking stream
(cudaStreamDefault) carries PYEMU_QUEUE_BLOCKING: its commands wait for the
legacy default stream's last command, and the legacy default stream's
commands wait for the last command of every blocking stream, which is CUDA's
implicit synchronisation; a cudaStreamNonBlocking stream has no such edges.
Stream 0 (None, 0, cudaStreamLegacy) is the legacy default stream, or, after
set_default_stream("per-thread") or with PYEMU_DEFAULT_STREAM=per-thread
(nvcc's --default-stream per-thread), each host thread's own blocking stream
(cudaStreamPerThread).

Priorities are recorded and reported; the workers do not schedule by them.
"""
from __future__ import annotations

import os

from ..runtime import core as _core
from ..runtime import trace as _trace
from ..runtime import sync as _sync
from ..runtime import views as _views
from ..runtime.core import CoreError, ffi, lib
from . import _errors as E
from . import devices as _devices
from . import runtime as _rt
from ._errors import cudaSuccess

cudaStreamDefault = 0x00
cudaStreamNonBlocking = 0x01

# the special handles of driver_types.h: (cudaStream_t)0x1 and 0x2
_LEGACY_HANDLE = 0x1
_PER_THREAD_HANDLE = 0x2

# cudaDeviceGetStreamPriorityRange on an H100 (CUDA 12/13): least 0, greatest -5
_LEAST_PRIORITY = 0
_GREATEST_PRIORITY = -5


class cudaStream_t:
    """A stream, as cudaStreamCreate returns it.  `_queue` is the engine queue
    (what a launch `k[grid, block, shared, stream]` runs on); None once destroyed."""

    __slots__ = ("_queue", "flags", "priority", "_gen", "device", "__weakref__")

    def __init__(self, queue, flags=0, priority=0):
        self._queue = queue
        self.flags = flags
        self.priority = priority
        self._gen = _views.generation()     # a cudaDeviceReset destroys it
        self.device = _devices.current()    # the device current when it was made
        _devices.track(self)                # ... whose reset destroys it

    def __repr__(self):
        state = "destroyed" if self._queue is None else f"flags={self.flags}"
        return f"<cudaStream_t {state} priority={self.priority}>"


class _SpecialStream(cudaStream_t):
    """cudaStreamLegacy and cudaStreamPerThread: their queue is looked up at use."""

    __slots__ = ("_handle",)

    def __init__(self, handle):
        self._handle = handle
        self.device = None                  # the current device's, at each use
        self.flags = cudaStreamDefault
        self.priority = 0
        self._gen = None

    @property
    def _queue(self):
        return _rt.legacy_queue() if self._handle == _LEGACY_HANDLE else _rt.per_thread_queue()

    def __int__(self):
        return self._handle

    __index__ = __int__

    def __repr__(self):
        return "cudaStreamLegacy" if self._handle == _LEGACY_HANDLE else "cudaStreamPerThread"


cudaStreamLegacy = _SpecialStream(_LEGACY_HANDLE)
cudaStreamPerThread = _SpecialStream(_PER_THREAD_HANDLE)


def set_default_stream(mode: str) -> None:
    """What stream 0 means from now on: "legacy" (CUDA's default) or
    "per-thread" (nvcc --default-stream per-thread).  A pyemu extension; the
    environment variable PYEMU_DEFAULT_STREAM sets it at import."""
    if mode not in ("legacy", "per-thread"):
        E.fail(E.cudaErrorInvalidValue, f"default stream mode {mode!r} is not 'legacy' or "
               "'per-thread'", "set_default_stream")
    _rt._per_thread_default[0] = mode == "per-thread"


_trace.start_from_env()     # PYEMU_TRACE=file.json: record the timeline
_env = os.environ.get("PYEMU_DEFAULT_STREAM", "legacy").strip().lower() or "legacy"
if _env in ("per-thread", "per_thread", "perthread"):
    _rt._per_thread_default[0] = True
elif _env != "legacy":      # a misspelt mode would silently change the semantics
    raise ValueError(f"PYEMU_DEFAULT_STREAM={_env!r}: give 'legacy' (CUDA's default) or "
                     "'per-thread' (nvcc --default-stream per-thread)")


def is_legacy(stream) -> bool:
    """Whether `stream` names the legacy default stream."""
    if stream is None or stream is cudaStreamLegacy:
        return True
    if type(stream) is int or (isinstance(stream, int) and not isinstance(stream, bool)):
        return (stream == 0 and not _rt._per_thread_default[0]) or stream == _LEGACY_HANDLE
    return False


def queue_of(stream, call):
    """The engine queue of `stream` (0/None: the default stream), or
    cudaErrorInvalidResourceHandle for a destroyed stream or a non-stream."""
    if stream is None:
        return _rt.default_queue()
    if isinstance(stream, cudaStream_t):
        q = stream._queue
        if q is None:
            E.fail(E.cudaErrorInvalidResourceHandle, "the stream was destroyed", call)
        if stream._gen is not None and stream._gen != _views.generation():
            E.fail(E.cudaErrorInvalidResourceHandle, "the stream was destroyed by "
                   "cudaDeviceReset", call)
        return q
    if isinstance(stream, int) and not isinstance(stream, bool):
        if stream == 0:
            return _rt.default_queue()
        if stream == _LEGACY_HANDLE:
            return _rt.legacy_queue()
        if stream == _PER_THREAD_HANDLE:
            return _rt.per_thread_queue()
    E.fail(E.cudaErrorInvalidResourceHandle, f"{stream!r} is not a stream", call)


def _create(flags, priority, call):
    if type(flags) is bool or not isinstance(flags, int) or \
            int(flags) not in (cudaStreamDefault, cudaStreamNonBlocking):
        E.fail(E.cudaErrorInvalidValue, f"flags must be cudaStreamDefault or "
               f"cudaStreamNonBlocking, not {flags!r}", call)
    E.check_sticky(call)
    _core.ensure_started()
    out = ffi.new("pyemu_queue **")
    qflags = 0 if flags & cudaStreamNonBlocking else lib.PYEMU_QUEUE_BLOCKING
    qflags |= _devices.queue_flags()    # the device it belongs to (csrc/engine.c)
    # its priority: urgency 0 (CUDA's 0, the least) to 5 (-5); the workers
    # take a more urgent kernel's blocks first (csrc/pool.c)
    qflags |= -priority << lib.PYEMU_QUEUE_PRIORITY_SHIFT
    try:
        _core.check(lib.pyemu_queue_create(qflags, out))
    except CoreError as exc:
        E.raise_core(exc, call)
    _count[0] += 1
    _trace.name_queue(out[0], f"stream {_count[0]}" +
                      (" (non-blocking)" if flags & cudaStreamNonBlocking else "") +
                      (f" (device {_devices.current()})" if _devices.MULTI else ""))
    return cudaStream_t(out[0], int(flags), priority)


_count = [0]


def cudaStreamCreate() -> cudaStream_t:
    """cudaStreamCreate: a new blocking stream (it synchronises with the
    legacy default stream)."""
    return _create(cudaStreamDefault, 0, "cudaStreamCreate")


def cudaStreamCreateWithFlags(flags) -> cudaStream_t:
    """cudaStreamCreateWithFlags(flags): cudaStreamDefault or cudaStreamNonBlocking
    (no implicit synchronisation with the legacy default stream)."""
    return _create(flags, 0, "cudaStreamCreateWithFlags")


def cudaDeviceGetStreamPriorityRange() -> tuple:
    """cudaDeviceGetStreamPriorityRange: (leastPriority, greatestPriority),
    (0, -5) as on an H100.  Lower numbers are higher priorities."""
    return _LEAST_PRIORITY, _GREATEST_PRIORITY


def cudaStreamCreateWithPriority(flags, priority) -> cudaStream_t:
    """cudaStreamCreateWithPriority(flags, priority): a priority outside the
    range is clamped to it, as CUDA does.  As on a GPU, when a worker frees up
    it takes the blocks of the most urgent ready command first (lower numbers
    are more urgent); running blocks are not preempted."""
    try:
        p = int(priority)
    except (TypeError, ValueError):
        E.fail(E.cudaErrorInvalidValue, f"priority must be an int, not {type(priority).__name__}",
               "cudaStreamCreateWithPriority")
    p = max(_GREATEST_PRIORITY, min(_LEAST_PRIORITY, p))
    return _create(flags, p, "cudaStreamCreateWithPriority")


def _live(stream, call) -> cudaStream_t:
    queue_of(stream, call)           # raises for a destroyed stream or a non-stream
    return stream if isinstance(stream, cudaStream_t) else None


def cudaStreamGetFlags(hStream) -> int:
    """cudaStreamGetFlags(hStream): the flags it was created with."""
    s = _live(hStream, "cudaStreamGetFlags")
    return s.flags if s is not None else cudaStreamDefault


def cudaStreamGetPriority(hStream) -> int:
    """cudaStreamGetPriority(hStream): its priority (clamped as at creation)."""
    s = _live(hStream, "cudaStreamGetPriority")
    return s.priority if s is not None else 0


def cudaStreamDestroy(stream) -> cudaError_t:  # noqa: F821
    """cudaStreamDestroy(stream): returns at once; the work already queued
    still runs.  The default stream and the special handles cannot be
    destroyed (cudaErrorInvalidResourceHandle), nor a destroyed stream."""
    call = "cudaStreamDestroy"
    if not isinstance(stream, cudaStream_t) or isinstance(stream, _SpecialStream):
        E.fail(E.cudaErrorInvalidResourceHandle, f"{stream!r} is not a stream that can be "
               "destroyed", call)
    q = stream._queue
    if q is None:
        E.fail(E.cudaErrorInvalidResourceHandle, "the stream was destroyed already", call)
    stream._queue = None
    lib.pyemu_queue_release(q)
    return cudaSuccess


def _marker(queue, call, wait=()):
    """A marker command at the end of queue (waiting for `wait` too); the
    caller owns the returned reference."""
    ev = ffi.new("pyemu_cmd **")
    arr = ffi.new("pyemu_cmd *[]", list(wait)) if wait else ffi.NULL
    try:
        _core.check(lib.pyemu_enqueue_marker(queue, 0, arr, len(wait), ev))
    except CoreError as exc:
        E.raise_core(exc, call)
    return ev[0]


def cudaStreamSynchronize(stream) -> cudaError_t:  # noqa: F821
    """cudaStreamSynchronize(stream): wait until the stream's work is done; a
    kernel fault (sticky) is reported here.  For the legacy default stream
    that includes the blocking streams' work queued before the call."""
    call = "cudaStreamSynchronize"
    q = queue_of(stream, call)
    _rt.no_wait_in_host_function(call)
    if is_legacy(stream):
        m = _marker(q, call)
        _sync.wait_command(m)
        lib.pyemu_cmd_release(m)
    else:
        _sync.wait_queue(q)
    _rt._after_wait(call)
    return cudaSuccess


def cudaStreamQuery(stream):
    """cudaStreamQuery(stream): cudaSuccess when all its work is done,
    cudaErrorNotReady (returned, not raised, and not the thread's last error)
    while some runs; raises only for real errors (a destroyed stream, a
    kernel fault)."""
    call = "cudaStreamQuery"
    q = queue_of(stream, call)
    E.check_sticky(call)
    if is_legacy(stream):
        m = _marker(q, call)
        done = lib.pyemu_cmd_status(m) <= 0
        lib.pyemu_cmd_release(m)
    else:
        done = lib.pyemu_queue_finish(q, 0) == 0
    if done:
        _rt._after_wait(call)
        return cudaSuccess
    return E.cudaErrorNotReady


cudaEventWaitDefault = 0x00
cudaEventWaitExternal = 0x01


def cudaStreamWaitEvent(stream, event, flags=0) -> cudaError_t:  # noqa: F821
    """cudaStreamWaitEvent(stream, event, flags=0): the stream's later work
    waits until the event's last record has completed; an event never
    recorded is no wait.  Returns at once."""
    from .event import command_of
    call = "cudaStreamWaitEvent"
    q = queue_of(stream, call)
    cmd = command_of(event, call)
    if type(flags) is bool or not isinstance(flags, int) or \
            int(flags) not in (cudaEventWaitDefault, cudaEventWaitExternal):
        E.fail(E.cudaErrorInvalidValue, f"flags must be cudaEventWaitDefault, not {flags!r}", call)
    E.check_sticky(call)
    if cmd is None:
        return cudaSuccess
    lib.pyemu_cmd_release(_marker(q, call, [cmd]))
    return cudaSuccess


__all__ = [
    "cudaStream_t", "cudaStreamDefault", "cudaStreamNonBlocking", "cudaStreamLegacy",
    "cudaStreamPerThread", "set_default_stream", "cudaStreamCreate", "cudaStreamCreateWithFlags",
    "cudaStreamCreateWithPriority", "cudaDeviceGetStreamPriorityRange", "cudaStreamGetFlags",
    "cudaStreamGetPriority", "cudaStreamDestroy", "cudaStreamSynchronize", "cudaStreamQuery",
    "cudaStreamWaitEvent", "cudaEventWaitDefault", "cudaEventWaitExternal",
]
