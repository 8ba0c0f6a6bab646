"""Events: what every enqueue returns, wait lists, clWaitForEvents, user
events, completion callbacks, markers and barriers, profiling.

A cl_event is a command of the core's engine (pyemu_cmd, the same object a
CUDA event records): its execution status, its wait edges, its times and its
completion callbacks are the engine's.  A user event is a command in no queue
that completes when clSetUserEventStatus says so.
"""
from __future__ import annotations

from ..runtime import core as _core
from ..runtime import holds as _holds
from ..runtime import sync as _sync
from ..runtime import views as _views
from ..runtime.core import CoreError, ffi, lib
from . import _constants as K
from ._base import CLObject, check, info, release, retain
from ._errors import (CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, CL_INVALID_CONTEXT,
                      CL_INVALID_EVENT, CL_INVALID_EVENT_WAIT_LIST, CL_INVALID_OPERATION,
                      CL_INVALID_VALUE, CL_PROFILING_INFO_NOT_AVAILABLE, CLError, fail,
                      from_core, in_opencl_words, raise_core)
from .platform import check_context
from ..runtime.sync import flush_printf
from .queue import check_queue


_CMD_TYPE = K.cl_command_type
_release = lib.pyemu_cmd_release


class cl_event(CLObject):
    """An OpenCL event: one command of the core's engine (or a user event)."""

    # slots: every enqueue makes one, and most are dropped at once.  No
    # __weakref__: clEnqueueNDRangeKernel recycles a dropped event object
    # (ndrange.py), which a weak reference could tell
    __slots__ = ("_cmd", "queue", "context", "command_type")
    _kind = "event"

    def __init__(self, cmd, queue, context, command_type):
        super().__init__()
        self._cmd = cmd          # one core reference, ours
        self.queue = queue
        self.context = context
        self.command_type = command_type if type(command_type) is _CMD_TYPE \
            else _CMD_TYPE(command_type)

    @property
    def is_user(self) -> bool:
        return self.command_type == K.CL_COMMAND_USER

    def _destroy(self):
        cmd, self._cmd = getattr(self, "_cmd", None), None
        if cmd is not None and lib is not None:
            lib.pyemu_cmd_release(cmd)

    def __del__(self):
        # the object goes: nothing to clear (_destroy has cleared _cmd when
        # clReleaseEvent let go of the command already)
        try:
            cmd = self._cmd
        except AttributeError:      # made by object.__new__ and dropped unfilled
            return
        if cmd is not None and _release is not None:
            _release(cmd)

    def status(self) -> int:
        """The execution status as OpenCL numbers it (negative: the error)."""
        s = lib.pyemu_cmd_status(self._cmd)
        if s >= 0:
            return K.cl_command_execution_status(s)
        if self.is_user:
            return s                            # the code the user set
        return int(from_core(-s))


def check_event(event, call, code=CL_INVALID_EVENT) -> cl_event:
    return check(event, cl_event, code, call)


def wait_list(events, context, call):
    """(cffi array, count, the events) of an event_wait_list; None and [] are no list."""
    if events is None:
        return ffi.NULL, 0, ()
    if isinstance(events, CLObject) or isinstance(events, (str, bytes)):
        fail(CL_INVALID_EVENT_WAIT_LIST, "event_wait_list must be a list of events", call)
    try:
        evs = list(events)
    except TypeError:
        fail(CL_INVALID_EVENT_WAIT_LIST, f"event_wait_list is {type(events).__name__}, "
             "not a list of events", call)
    if not evs:
        return ffi.NULL, 0, ()
    for i, e in enumerate(evs):
        if not isinstance(e, cl_event) or not e._alive:
            fail(CL_INVALID_EVENT_WAIT_LIST, f"entry {i} of event_wait_list is not a valid "
                 f"event ({e!r})", call)
        if context is not None and e.context is not context:
            fail(CL_INVALID_CONTEXT, f"event {i} of event_wait_list is of another context", call)
    return ffi.new("pyemu_cmd *[]", [e._cmd for e in evs]), len(evs), tuple(evs)


def _raise_failed(ev, call):
    code = lib.pyemu_cmd_error(ev._cmd, ffi.NULL, 0)
    if code:
        buf = ffi.new("char[]", 1024)
        lib.pyemu_cmd_error(ev._cmd, buf, 1024)
        fail(from_core(code), in_opencl_words(ffi.string(buf).decode("utf-8", "replace")), call)


def enqueue(queue, call, command_type, submit, events, keep=(), blocking=False,
            mems=()) -> cl_event:
    """Run submit(wait_array, count, event_out) -> core status; the event it made.

    `mems`: the memory objects the command uses (the core holds their memory
    until it completes); `keep`: Python objects (host memory) held until then.
    A blocking command waits, and raises if the command failed (a failed
    event in its wait list: CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)."""
    arr, n, evs = wait_list(events, queue.context, call)
    out = ffi.new("pyemu_cmd **")
    status = submit(arr, n, out)
    if status:
        raise_core(CoreError(status, _core.last_error()), call)
    ev = _new_event(out[0], queue, command_type)
    if mems:
        bufs = ffi.new("pyemu_buffer *[]", [m.handle for m in mems])
        if lib.pyemu_cmd_use_buffers(ev._cmd, bufs, len(mems)):
            _sync.wait_command(ev._cmd)     # out of host memory: hold them by waiting
    if keep:       # host memory, until the command completes
        _holds.hold(ev._cmd, keep)
    if blocking:
        _sync.wait_command(ev._cmd)
        flush_printf()
        _raise_failed(ev, call)
    return ev


def _new_event(cmd, queue, command_type, _new=object.__new__, _gen=_views._generation):
    """cl_event(cmd, queue, queue.context, command_type) without the checks an
    event made by the engine does not need (command_type is a cl_command_type)."""
    e = _new(cl_event)
    e._refs = 1
    e._gen = _gen[0]
    e._cmd = cmd
    e.queue = queue
    e.context = queue.context
    e.command_type = command_type
    return e


def enqueue_kernel(queue, launch, data, bufs, nbufs, events, call, command_type) -> cl_event:
    """The event of pyemu_enqueue_kernel_using(queue, launch, data, bufs) behind `events`.

    The core copies the argument bytes and the launch description, holds the
    module, and holds the memory of the `nbufs` buffers of `bufs` (a cffi
    pyemu_buffer *[]) until the kernel completes: nothing of Python's needs
    keeping while it runs."""
    if events is None:
        arr, n = ffi.NULL, 0
    else:
        arr, n, _ = wait_list(events, queue.context, call)
    out = _outs.pop() if _outs else ffi.new("pyemu_cmd **")
    status = _enqueue_kernel(queue.handle, launch, data, len(data), bufs, nbufs, arr, n, out)
    cmd = out[0]
    _outs.append(out)
    if status:
        raise_core(CoreError(status, _core.last_error()), call)
    return _new_event(cmd, queue, command_type)


_enqueue_kernel = lib.pyemu_enqueue_kernel_using
_outs = []      # pyemu_cmd ** places, each used by one enqueue at a time (threads too)


def clWaitForEvents(event_list):
    """clWaitForEvents(event_list): wait until every event is complete.  A failed one
    gives CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST (after waiting for all)."""
    call = "clWaitForEvents"
    if event_list is None or isinstance(event_list, (CLObject, str, bytes)):
        fail(CL_INVALID_VALUE, "event_list must be a non-empty list of events", call)
    try:
        evs = list(event_list)
    except TypeError:
        fail(CL_INVALID_VALUE, f"event_list is {type(event_list).__name__}, not a list of "
             "events", call)
    if not evs:
        fail(CL_INVALID_VALUE, "event_list is empty", call)
    for e in evs:
        check_event(e, call)
        if e.context is not evs[0].context:
            fail(CL_INVALID_CONTEXT, "the events belong to different contexts", call)
    failed = False
    for e in evs:
        if _sync.wait_command(e._cmd):
            failed = True
    flush_printf()
    if failed:
        fail(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "an event failed", call)
    return 0


def clGetEventInfo(event, param_name):
    """clGetEventInfo(event, param_name): the queue (None for a user event), context,
    command type, execution status (negative: failed) or reference count."""
    e = check_event(event, "clGetEventInfo")
    return info({
        K.CL_EVENT_COMMAND_QUEUE: lambda: e.queue,
        K.CL_EVENT_CONTEXT: lambda: e.context,
        K.CL_EVENT_COMMAND_TYPE: lambda: e.command_type,
        K.CL_EVENT_COMMAND_EXECUTION_STATUS: e.status,
        K.CL_EVENT_REFERENCE_COUNT: lambda: e._refs,
    }, param_name, "clGetEventInfo", "cl_event_info")


def clGetEventProfilingInfo(event, param_name) -> int:
    """clGetEventProfilingInfo(event, param_name): a time in ns (the core's clock).

    CL_PROFILING_INFO_NOT_AVAILABLE for a queue without CL_QUEUE_PROFILING_ENABLE,
    a user event, or a command not complete yet."""
    call = "clGetEventProfilingInfo"
    e = check_event(event, call)
    try:
        p = K.cl_profiling_info(int(param_name))
    except (TypeError, ValueError):
        fail(CL_INVALID_VALUE, f"{param_name!r} is not a cl_profiling_info", call)
    if e.is_user or not e.queue.profiling:
        fail(CL_PROFILING_INFO_NOT_AVAILABLE, "the queue was not created with "
             "CL_QUEUE_PROFILING_ENABLE" if not e.is_user else "a user event has no times", call)
    t = ffi.new("unsigned long long[4]")
    if lib.pyemu_cmd_times(e._cmd, t, t + 1, t + 2, t + 3):
        fail(CL_PROFILING_INFO_NOT_AVAILABLE, "the command is not complete", call)
    return int(t[min(int(p) - K.CL_PROFILING_COMMAND_QUEUED, 3)])


_CALLBACK_TYPES = (K.CL_COMPLETE, K.CL_RUNNING, K.CL_SUBMITTED)


def clSetEventCallback(event, command_exec_callback_type, pfn_notify, user_data=None):
    """clSetEventCallback(event, command_exec_callback_type, pfn_notify, user_data=None):
    pfn_notify(event, status, user_data) on a worker (or this) thread.

    The engine reports completion only: a CL_SUBMITTED or CL_RUNNING callback
    runs at once if the command is that far already, else when it completes
    (with the type it was registered for, or the error)."""
    call = "clSetEventCallback"
    e = check_event(event, call)
    try:
        kind = int(command_exec_callback_type)
    except (TypeError, ValueError):
        kind = None
    if kind not in _CALLBACK_TYPES:
        fail(CL_INVALID_VALUE, f"command_exec_callback_type {command_exec_callback_type!r} is "
             "not CL_COMPLETE, CL_RUNNING or CL_SUBMITTED", call)
    if pfn_notify is None or not callable(pfn_notify):
        fail(CL_INVALID_VALUE, "pfn_notify must be callable", call)
    now = e.status()
    if kind != K.CL_COMPLETE and 0 <= now <= kind:
        pfn_notify(e, kind, user_data)
        return 0

    def fire(status, e=e, kind=kind):
        if status >= 0:
            st = K.cl_command_execution_status(kind)
        elif e.is_user:
            st = status
        else:
            st = int(from_core(-status))
        pfn_notify(e, st, user_data)

    try:
        _core.on_complete(e._cmd, fire)
    except CoreError as exc:
        raise_core(exc, call)
    return 0


def clCreateUserEvent(context) -> cl_event:
    """clCreateUserEvent(context): an event in CL_SUBMITTED until clSetUserEventStatus."""
    call = "clCreateUserEvent"
    ctx = check_context(context, call)
    out = ffi.new("pyemu_cmd **")
    try:
        _core.check(lib.pyemu_user_event_create(out))
    except CoreError as exc:
        raise_core(exc, call)
    return cl_event(out[0], None, ctx, K.CL_COMMAND_USER)


def clSetUserEventStatus(event, execution_status):
    """clSetUserEventStatus(event, execution_status): CL_COMPLETE or a negative error,
    once (CL_INVALID_OPERATION the second time)."""
    call = "clSetUserEventStatus"
    e = check_event(event, call)
    if not e.is_user:
        fail(CL_INVALID_EVENT, "not a user event", call)
    try:
        s = int(execution_status)
    except (TypeError, ValueError):
        fail(CL_INVALID_VALUE, f"execution_status {execution_status!r} is not an int", call)
    if s > 0:
        fail(CL_INVALID_VALUE, f"execution_status is CL_COMPLETE or negative, not {s}", call)
    status = lib.pyemu_user_event_set(e._cmd, s)
    if status == lib.PYEMU_E_NOT_READY:
        fail(CL_INVALID_OPERATION, "the status of this user event was set already", call)
    if status:
        raise_core(CoreError(status, _core.last_error()), call)
    return 0


def _marker(command_queue, event_wait_list, barrier, call, command_type):
    q = check_queue(command_queue, call)
    return enqueue(q, call, command_type,
                   lambda arr, n, out: lib.pyemu_enqueue_marker(q.handle, barrier, arr, n, out),
                   event_wait_list)


def clEnqueueMarkerWithWaitList(command_queue, event_wait_list=None) -> cl_event:
    """clEnqueueMarkerWithWaitList(command_queue, event_wait_list=None): an event that
    completes after its wait list (with none: after every command before it)."""
    return _marker(command_queue, event_wait_list, 0, "clEnqueueMarkerWithWaitList",
                   K.CL_COMMAND_MARKER)


def clEnqueueBarrierWithWaitList(command_queue, event_wait_list=None) -> cl_event:
    """clEnqueueBarrierWithWaitList(command_queue, event_wait_list=None): as the marker,
    and every later command of the queue waits for it (out of order queues too)."""
    return _marker(command_queue, event_wait_list, 1, "clEnqueueBarrierWithWaitList",
                   K.CL_COMMAND_BARRIER)


def clRetainEvent(event):
    """clRetainEvent: one more reference."""
    return retain(event, cl_event, CL_INVALID_EVENT, "clRetainEvent")


def clReleaseEvent(event):
    """clReleaseEvent: one reference less; the command still runs."""
    return release(event, cl_event, CL_INVALID_EVENT, "clReleaseEvent")


__all__ = ["cl_event", "clWaitForEvents", "clGetEventInfo", "clGetEventProfilingInfo",
           "clSetEventCallback", "clCreateUserEvent", "clSetUserEventStatus",
           "clEnqueueMarkerWithWaitList", "clEnqueueBarrierWithWaitList", "clRetainEvent",
           "clReleaseEvent"]
_ = CLError
