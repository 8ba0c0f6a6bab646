"""Host functions in streams: cudaLaunchHostFunc, cudaStreamAddCallback.

Each is a CMD_HOST command of the engine (csrc/engine.c): it waits in its
stream like any command, and once what it waits for is done the engine hands
it to one host thread of pyemu's, which runs the Python function and then
completes the command, so the stream's later work waits for the function to
return.  Functions run one at a time, in the order they became ready (CUDA
runs them on one internal thread too); never on a worker thread, and no
worker ever waits for the GIL.  As in CUDA, a host function must not call
the CUDA API (a synchronisation there would wait for itself).
"""
from __future__ import annotations

import itertools
import threading
import traceback

from ..runtime import core as _core
from ..runtime.core import CoreError, ffi, lib
from . import _errors as E
from . import runtime as _rt
from ._errors import cudaSuccess
from .stream import queue_of

_lock = threading.Lock()
_pending = {}                   # tag -> the function to call with no arguments
_tags = itertools.count(1)
_thread = None


def _loop():
    _rt._host_fn.on = True          # waits for the device fail here (they would hang)
    tag = ffi.new("unsigned long long *")
    cmd = ffi.new("pyemu_cmd **")
    while True:
        status = lib.pyemu_host_next(100, tag, cmd)
        if status == lib.PYEMU_E_TIMEOUT:
            continue
        with _lock:
            fn = _pending.pop(tag[0], None)
        try:
            if fn is not None:
                fn(status)
        except BaseException:     # the function's own bug must not stop the stream
            traceback.print_exc()
        finally:
            lib.pyemu_host_done(cmd[0])


def _start():
    global _thread
    if _thread is None:
        with _lock:
            if _thread is None:
                _thread = threading.Thread(target=_loop, name="pyemu-host-functions", daemon=True)
                _thread.start()


def _enqueue(stream, fn, call):
    q = queue_of(stream, call)
    E.check_sticky(call)
    _start()
    t = next(_tags)
    with _lock:
        _pending[t] = fn
    try:
        _core.check(lib.pyemu_enqueue_host(q, t, ffi.NULL, 0, ffi.NULL))
    except CoreError as exc:
        with _lock:
            _pending.pop(t, None)
        E.raise_core(exc, call)
    return cudaSuccess


def cudaLaunchHostFunc(stream, fn, userData=None) -> cudaError_t:  # noqa: F821
    """cudaLaunchHostFunc(stream, fn, userData): fn(userData) runs on pyemu's
    host-function thread once the work queued on the stream before it is
    done; the stream's later work waits for it to return.  Returns at once."""
    call = "cudaLaunchHostFunc"
    if not callable(fn):
        E.fail(E.cudaErrorInvalidValue, f"fn must be callable, not {type(fn).__name__}", call)
    return _enqueue(stream, lambda status: fn(userData), call)


def cudaStreamAddCallback(stream, callback, userData=None, flags=0) -> cudaError_t:  # noqa: F821
    """cudaStreamAddCallback(stream, callback, userData, flags=0): as
    cudaLaunchHostFunc, calling callback(stream, status, userData) where
    status is cudaSuccess or the device's sticky error; flags must be 0."""
    call = "cudaStreamAddCallback"
    if not callable(callback):
        E.fail(E.cudaErrorInvalidValue, f"callback must be callable, not "
               f"{type(callback).__name__}", call)
    if type(flags) is bool or not isinstance(flags, int) or flags != 0:
        E.fail(E.cudaErrorInvalidValue, f"flags must be 0, not {flags!r}", call)

    def run(status):
        code = E.sticky()[0] or (E.from_core(status) if status else cudaSuccess)
        callback(stream, code, userData)
    return _enqueue(stream, run, call)


__all__ = ["cudaLaunchHostFunc", "cudaStreamAddCallback"]
