"""The C core, loaded once: `ffi`, `lib`, and the one status-to-exception helper.

Facades (pyemu.cuda, pyemu.opencl) catch CoreError and translate its
`status` (a PYEMU_E_* code from csrc/pyemu_core.h) into their own codes.
"""
from __future__ import annotations

import threading

from . import config as _config

try:
    from .._native import ffi, lib
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError(
        "pyemu's C core is not built: run `pip install -e .` in the pyemu checkout "
        f"(or `python csrc/build_core.py`) first ({exc})"
    ) from exc


class CoreError(Exception):
    """A failed core call: `status` is the PYEMU_E_* code, str() the core's sentence."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def last_error() -> str:
    return ffi.string(lib.pyemu_last_error()).decode("utf-8", "replace")


def check(status: int) -> None:
    """Raise CoreError for a non-zero PYEMU_* status."""
    if status:
        raise CoreError(status, last_error())


_init_lock = threading.Lock()
_started = False


def ensure_started() -> None:
    """Start the workers and reserve device memory, once per process."""
    global _started
    if _started:
        return
    with _init_lock:
        if not _started:
            check(lib.pyemu_init(_config.num_threads(), _config.stack_size(),
                                 _config.device_memory()))
            timeout = _config.kernel_timeout_ms()
            if timeout:
                check(lib.pyemu_set_kernel_timeout(timeout))
            _started = True


def region() -> tuple[int, int]:
    """The address range that holds all device memory."""
    lo = ffi.new("unsigned long long *")
    hi = ffi.new("unsigned long long *")
    lib.pyemu_mem_region(lo, hi)
    return lo[0], hi[0]


def take_printf() -> str:
    """Device printf output of completed launches, in launch order ('' if none)."""
    n = lib.pyemu_printf_pending()
    if not n:
        return ""
    buf = ffi.new("char[]", n)
    got = lib.pyemu_printf_take(buf, n)
    return ffi.unpack(buf, got).decode("utf-8", "replace")


# ---- completion callbacks (clSetEventCallback, cudaLaunchHostFunc, ...) ----

_callbacks_lock = threading.Lock()
_callbacks = {}     # key -> the Python function, kept alive until it has run


@ffi.def_extern()
def pyemu_py_on_complete(cmd, status, data):
    with _callbacks_lock:
        fn = _callbacks.pop(int(ffi.cast("uintptr_t", data)), None)
    if fn is not None:
        try:
            fn(status)
        except Exception:   # a callback's own bug must not reach the worker thread
            import traceback
            traceback.print_exc()


_next_callback = [1]


def on_complete(cmd, fn) -> None:
    """Call fn(status) once `cmd` completes (status 0) or fails (negative), on
    the thread that completes it (at once if it is complete already)."""
    with _callbacks_lock:
        key = _next_callback[0]
        _next_callback[0] += 1
        _callbacks[key] = fn
    status = lib.pyemu_cmd_on_complete(cmd, lib.pyemu_py_on_complete, ffi.cast("void *", key))
    if status:
        with _callbacks_lock:
            _callbacks.pop(key, None)
        check(status)
